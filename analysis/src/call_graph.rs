//! The static call graph: a `petgraph` graph with a node per function and an edge per call site
//! (`OpFunctionCall` to a function of the module), in module order, so every order derived from
//! it is the same from run to run.
//!
//! [`CallGraph::sccs`] are its strongly connected components (Tarjan, `petgraph::algo`), callees
//! first; [`CallGraph::callers_first`] is the order analyses that propagate facts from callers
//! to callees (uniformity's parameters) visit functions in: every caller before its callees,
//! the functions of one recursive cycle together.

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use spirv::Op;
use spvopt_ir::{FuncId, InstId, Module};

use crate::fxhash::FxHashMap as HashMap;

/// Functions and the calls between them.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    graph: DiGraph<FuncId, InstId>,
}

impl CallGraph {
    /// The call graph of every `OpFunctionCall` in `m`.
    pub fn build(m: &Module) -> CallGraph {
        let calls = m.function_ids().flat_map(|f| {
            m.function(f)
                .blocks
                .iter()
                .flat_map(move |&b| m.block_insts(b))
                .filter(|&i| m.inst(i).is(Op::FunctionCall))
                .collect::<Vec<_>>()
        });
        CallGraph::from_calls(m, calls)
    }

    /// The call graph of the call instructions `calls` (in that order), e.g. the call sites an
    /// analysis has already collected. Calls of ids that are no function of `m` are left out.
    pub fn from_calls(m: &Module, calls: impl IntoIterator<Item = InstId>) -> CallGraph {
        let mut graph = DiGraph::new();
        let mut by_result = HashMap::default();
        let mut node = Vec::new();
        for f in m.function_ids() {
            let n = graph.add_node(f);
            node.push(n);
            if let Some(r) = m.function_result(f) {
                by_result.insert(r, n);
            }
        }
        for call in calls {
            let Some(b) = m.inst_block(call) else {
                continue;
            };
            let caller = m.block(b).func;
            let callee = m.inst(call).operand_id(0).and_then(|c| by_result.get(&c));
            if let (Some(&from), Some(&to)) = (node.get(caller.index()), callee) {
                graph.add_edge(from, to, call);
            }
        }
        CallGraph { graph }
    }

    /// The strongly connected components, callees before callers (reverse topological order
    /// of the condensation), each in module order: a component of one function that does not
    /// call itself is no recursion.
    pub fn sccs(&self) -> Vec<Vec<FuncId>> {
        tarjan_scc(&self.graph)
            .into_iter()
            .map(|scc| {
                let mut fs: Vec<FuncId> = scc.into_iter().map(|n| self.graph[n]).collect();
                fs.sort_unstable_by_key(|f| f.index());
                fs
            })
            .collect()
    }

    /// Every function, callers before callees (the functions of a cycle next to each other).
    pub fn callers_first(&self) -> Vec<FuncId> {
        self.sccs().into_iter().rev().flatten().collect()
    }
}
