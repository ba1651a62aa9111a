//! The static call graph: a `petgraph` graph with a node per function and an edge per call site
//! (`OpFunctionCall` to a function of the module), in module order, so every order derived from
//! it is the same from run to run.
//!
//! [`CallGraph::sccs`] are its strongly connected components (Tarjan, in the order of
//! `petgraph::algo::tarjan_scc` but with an explicit stack: petgraph's recursion is as deep as
//! the longest call chain, which a hostile module makes as long as it likes), callees first; [`CallGraph::callers_first`] is the order analyses that propagate facts from callers
//! to callees (uniformity's parameters) visit functions in: every caller before its callees,
//! the functions of one recursive cycle together.

use petgraph::graph::{DiGraph, NodeIndex};
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

/// `petgraph::algo::tarjan_scc` (Pearce's space-efficient variant of Tarjan's algorithm, the
/// same visiting order, so the same components in the same order) with the recursion of its
/// `visit` turned into an explicit stack of frames: a chain of N calls needs N frames of heap,
/// not N frames of the thread's stack.
fn tarjan_scc(g: &DiGraph<FuncId, InstId>) -> Vec<Vec<NodeIndex>> {
    // `root[v]`: 0 while unvisited, then the visit index (later the lowest reachable one), and
    // finally the component number, counting down from usize::MAX (as petgraph does, so the
    // comparisons below are petgraph's).
    let mut root = vec![0usize; g.node_count()];
    let mut index = 1;
    let mut component = usize::MAX;
    let mut stack: Vec<NodeIndex> = Vec::new();
    let mut out = Vec::new();
    // (node, its remaining successors, whether it is still the root of its component).
    let mut frames: Vec<(NodeIndex, petgraph::graph::Neighbors<'_, InstId>, bool)> = Vec::new();
    for start in g.node_indices() {
        if root[start.index()] != 0 {
            continue;
        }
        root[start.index()] = index;
        index += 1;
        frames.push((start, g.neighbors(start), true));
        while let Some(frame) = frames.last_mut() {
            let v = frame.0;
            if let Some(w) = frame.1.next() {
                if root[w.index()] == 0 {
                    root[w.index()] = index;
                    index += 1;
                    frames.push((w, g.neighbors(w), true));
                } else if root[w.index()] < root[v.index()] {
                    root[v.index()] = root[w.index()];
                    frame.2 = false;
                }
                continue;
            }
            let (v, _, local_root) = frames.pop().expect("a frame");
            if local_root {
                // Pop v's component: the stack's tail of nodes with a root index not below v's.
                let rv = root[v.index()];
                let mut adjustment = 1;
                let start = stack
                    .iter()
                    .rposition(|&w| {
                        if rv > root[w.index()] {
                            true
                        } else {
                            root[w.index()] = component;
                            adjustment += 1;
                            false
                        }
                    })
                    .map_or(0, |x| x + 1);
                root[v.index()] = component;
                stack.push(v);
                out.push(stack.split_off(start));
                index -= adjustment;
                component -= 1;
            } else {
                stack.push(v);
            }
            // Back in the caller's frame: the comparison petgraph makes after `visit(w)`.
            if let Some(parent) = frames.last_mut() {
                if root[v.index()] < root[parent.0.index()] {
                    root[parent.0.index()] = root[v.index()];
                    parent.2 = false;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same components in the same order as petgraph's recursive implementation, on graphs
    /// with cycles, self-loops, parallel edges and unreachable parts.
    #[test]
    fn tarjan_matches_petgraph() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        for round in 0..500 {
            let nodes = 1 + round % 23;
            let mut g: DiGraph<FuncId, InstId> = DiGraph::new();
            let ids: Vec<NodeIndex> = (0..nodes)
                .map(|k| g.add_node(FuncId::from_index(k)))
                .collect();
            for e in 0..next(3 * nodes as u64 + 1) {
                g.add_edge(
                    ids[next(nodes as u64)],
                    ids[next(nodes as u64)],
                    InstId::from_index(e),
                );
            }
            assert_eq!(
                tarjan_scc(&g),
                petgraph::algo::tarjan_scc(&g),
                "round {round}"
            );
        }
    }
}
