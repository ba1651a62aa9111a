//! Graphviz output of the block-level analyses, for people to look at
//! (`spv-opt --print-analysis cfg|dominators|loops --format dot IN | dot -Tsvg`).
//!
//! One `digraph` for the module: a node per block of every function with a body, labelled
//! `%<block label> in %<function>` (the function's `OpName` when it has one); node numbers are
//! the order of blocks in the module.
//! - `cfg`: an edge per CFG successor (the analysis's edges, also of unreachable blocks, which
//!   are drawn dashed); function entry blocks are drawn as a double octagon.
//! - `dominators`: the dominator tree (an edge from the immediate dominator to each block) and,
//!   dashed and labelled `pdom`, the post-dominator tree (from the immediate post-dominator).
//! - `loops`: the CFG edges, back edges (to the header of a loop containing the source) bold and
//!   labelled `back`; every block in a loop says its depth, headers say `header`.
//!
//! The graph is built as a `petgraph` graph and written with `petgraph::dot`.

use std::fmt::Write as _;

use petgraph::dot::Dot;
use petgraph::graph::{DiGraph, NodeIndex};
use spvopt_ir::{BlockId, FuncId, Module};

use crate::builtins::debug_names;
use crate::cache::Analyses;
use crate::cfg::Cfg;
use crate::dominators::Dominators;
use crate::fxhash::FxHashMap as HashMap;
use crate::loops::Loops;
use crate::post_dominators::PostDominators;
use crate::print::AnnotateError;
pub use crate::print::DOT_ANALYSES;

/// A node: its label and extra Graphviz attributes.
struct Node {
    label: String,
    attrs: &'static str,
}

impl std::fmt::Display for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

/// An edge: its label (may be empty) and extra attributes.
struct Edge {
    label: &'static str,
    attrs: &'static str,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label)
    }
}

/// `m`'s blocks as a graph of analysis `analysis` (one of [`DOT_ANALYSES`]), in Graphviz's
/// dot language.
pub fn dot(m: &Module, analysis: &str, analyses: &mut Analyses) -> Result<String, AnnotateError> {
    if !DOT_ANALYSES.contains(&analysis) {
        return Err(if crate::print::ANALYSIS_NAMES.contains(&analysis) {
            AnnotateError::NoDotFormat(analysis.to_string())
        } else {
            AnnotateError::UnknownAnalysis(analysis.to_string())
        });
    }
    let cfg = analyses.get::<Cfg>(m);
    let names = function_names(m);
    let mut g: DiGraph<Node, Edge> = DiGraph::new();
    let mut node_of: HashMap<BlockId, NodeIndex> = HashMap::default();
    let loops = (analysis == "loops").then(|| analyses.get::<Loops>(m));
    for f in m.function_ids() {
        let fname = names(m, f);
        let entry = m.function(f).blocks.first().copied();
        for &b in &m.function(f).blocks {
            let mut label = format!("{} in {fname}", block_label(m, b));
            if let Some(loops) = &loops {
                if let Some(l) = loops.innermost(b).and_then(|l| loops.get(l)) {
                    let header = if l.header == b { "header, " } else { "" };
                    let _ = write!(label, "\n{header}loop depth {}", l.depth);
                }
            }
            let attrs = if Some(b) == entry {
                "shape = doubleoctagon"
            } else if !cfg.is_reachable(b) {
                "shape = box, style = dashed"
            } else {
                "shape = box"
            };
            node_of.insert(b, g.add_node(Node { label, attrs }));
        }
    }
    let edge = |label, attrs| Edge { label, attrs };
    let blocks: Vec<BlockId> = m
        .function_ids()
        .flat_map(|f| m.function(f).blocks.clone())
        .collect();
    match analysis {
        "cfg" => {
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    g.add_edge(node_of[&b], node_of[&s], edge("", ""));
                }
            }
        }
        "dominators" => {
            let dom = analyses.get::<Dominators>(m);
            let pdom = analyses.get::<PostDominators>(m);
            for &b in &blocks {
                if let Some(d) = dom.idom(b) {
                    g.add_edge(node_of[&d], node_of[&b], edge("", ""));
                }
            }
            for &b in &blocks {
                if let Some(p) = pdom.ipdom(b) {
                    g.add_edge(
                        node_of[&p],
                        node_of[&b],
                        edge("pdom", "style = dashed, color = gray40"),
                    );
                }
            }
        }
        _ => {
            let loops = loops.unwrap_or_else(|| analyses.get::<Loops>(m));
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    let back = loops
                        .loop_of_header(s)
                        .and_then(|l| loops.get(l))
                        .is_some_and(|l| l.latches.contains(&b));
                    let e = if back {
                        edge("back", "style = bold, color = red")
                    } else {
                        edge("", "")
                    };
                    g.add_edge(node_of[&b], node_of[&s], e);
                }
            }
        }
    }
    let node_attrs = |_, (_, n): (NodeIndex, &Node)| n.attrs.to_string();
    let edge_attrs = |_, e: petgraph::graph::EdgeReference<'_, Edge>| e.weight().attrs.to_string();
    let mut out = Dot::with_attr_getters(&g, &[], &edge_attrs, &node_attrs).to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

fn block_label(m: &Module, b: BlockId) -> String {
    m.inst(m.block(b).label)
        .result_id()
        .map_or("%?".to_string(), |l| l.to_string())
}

/// How a function is named in labels: `%<OpName>` when it has one, else its result id.
fn function_names(m: &Module) -> impl Fn(&Module, FuncId) -> String {
    let names = debug_names(m, &|_| true);
    move |m: &Module, f: FuncId| match m.function_result(f) {
        Some(r) => match names.get(&r) {
            Some(n) => format!("%{n}"),
            None => r.to_string(),
        },
        None => "%?".to_string(),
    }
}
