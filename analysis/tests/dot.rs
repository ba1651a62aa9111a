//! `dot::dot` (`spv-opt --print-analysis NAME --format dot`): the output is a Graphviz digraph
//! with one node per block (labelled with the block's label) and exactly the edges of the
//! analysis it draws, on real kernels (a Triton GEMM with its K loop, every Triton kernel).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use spvopt_analysis::dot::dot;
use spvopt_analysis::post_dominators::PostDominators;
use spvopt_analysis::{Analyses, AnnotateError, Cfg, Dominators, Loops};
use spvopt_ir::{BlockId, Module};

fn triton_kernels() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/triton");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

fn load(path: &Path) -> Module {
    spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).unwrap()
}

/// A parsed digraph: node number → label, and the edges as (source label, target label, edge
/// label).
struct Graph {
    nodes: BTreeMap<u32, String>,
    edges: BTreeSet<(String, String, String)>,
}

/// Reads petgraph's dot output: `N [ label = "…" attrs]` and `A -> B [ label = "…" attrs]`.
fn parse(text: &str) -> Graph {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("digraph {"), "{text}");
    assert!(text.ends_with("}\n"), "{text}");
    let label = |rest: &str| -> String {
        let start = rest.find("label = \"").expect("a label") + "label = \"".len();
        let end = rest[start..].find('"').expect("a closing quote") + start;
        rest[start..end].replace("\\n", "\n")
    };
    let mut nodes = BTreeMap::new();
    let mut raw_edges = Vec::new();
    for line in lines {
        let line = line.trim();
        if line == "}" {
            continue;
        }
        let (head, rest) = line.split_once(" [ ").expect("attributes");
        match head.split_once(" -> ") {
            Some((a, b)) => raw_edges.push((a.parse::<u32>().unwrap(), b.parse().unwrap(), {
                label(rest)
            })),
            None => {
                nodes.insert(head.parse().unwrap(), label(rest));
            }
        }
    }
    let block = |n: u32| nodes[&n].split(' ').next().unwrap().to_string();
    let edges = raw_edges
        .into_iter()
        .map(|(a, b, l)| (block(a), block(b), l))
        .collect();
    Graph { nodes, edges }
}

fn label_of(m: &Module, b: BlockId) -> String {
    m.inst(m.block(b).label).result_id().unwrap().to_string()
}

fn blocks(m: &Module) -> Vec<BlockId> {
    m.function_ids()
        .flat_map(|f| m.function(f).blocks.clone())
        .collect()
}

fn check(path: &Path) {
    let m = load(path);
    let mut analyses = Analyses::new();
    let cfg = analyses.get::<Cfg>(&m);
    let all = blocks(&m);
    let labels: BTreeSet<String> = all.iter().map(|&b| label_of(&m, b)).collect();
    let cfg_edges: BTreeSet<(String, String, String)> = all
        .iter()
        .flat_map(|&b| {
            cfg.succs(b)
                .iter()
                .map(|&s| (label_of(&m, b), label_of(&m, s), String::new()))
                .collect::<Vec<_>>()
        })
        .collect();
    let name = path.display();

    // cfg
    let g = parse(&dot(&m, "cfg", &mut analyses).unwrap());
    assert_eq!(g.nodes.len(), all.len(), "{name}: one node per block");
    let node_labels: BTreeSet<String> = g
        .nodes
        .values()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(node_labels, labels, "{name}");
    assert_eq!(g.edges, cfg_edges, "{name}: cfg edges");

    // dominators
    let dom = analyses.get::<Dominators>(&m);
    let pdom = analyses.get::<PostDominators>(&m);
    let mut want = BTreeSet::new();
    for &b in &all {
        if let Some(d) = dom.idom(b) {
            want.insert((label_of(&m, d), label_of(&m, b), String::new()));
        }
        if let Some(p) = pdom.ipdom(b) {
            want.insert((label_of(&m, p), label_of(&m, b), "pdom".to_string()));
        }
    }
    let g = parse(&dot(&m, "dominators", &mut analyses).unwrap());
    assert_eq!(g.nodes.len(), all.len(), "{name}");
    assert_eq!(
        g.edges, want,
        "{name}: dominator and post-dominator tree edges"
    );

    // loops: the CFG edges, back edges labelled
    let loops = analyses.get::<Loops>(&m);
    let mut want = BTreeSet::new();
    let mut backs = 0;
    for &b in &all {
        for &s in cfg.succs(b) {
            let back = loops
                .loop_of_header(s)
                .and_then(|l| loops.get(l))
                .is_some_and(|l| l.latches.contains(&b));
            backs += usize::from(back);
            let l = if back { "back" } else { "" };
            want.insert((label_of(&m, b), label_of(&m, s), l.to_string()));
        }
    }
    let text = dot(&m, "loops", &mut analyses).unwrap();
    let g = parse(&text);
    assert_eq!(g.edges, want, "{name}: loop edges");
    let headers = g.nodes.values().filter(|l| l.contains("header")).count();
    assert_eq!(headers, loops.len(), "{name}: every loop header says so");
    assert!(backs >= loops.len(), "{name}: every loop has a back edge");
}

#[test]
fn dot_graphs_match_the_analyses_on_every_triton_kernel() {
    let kernels = triton_kernels();
    for k in &kernels {
        check(k);
    }
    // The GEMM has its K loop.
    let gemm = kernels
        .iter()
        .find(|p| {
            p.to_string_lossy()
                .contains("gemm_fp16_blockptr_128x128x32_w8__pvc.spv")
        })
        .unwrap();
    let m = load(gemm);
    let text = dot(&m, "loops", &mut Analyses::new()).unwrap();
    assert!(text.contains("label = \"back\""), "{text}");
    assert!(text.contains("loop depth 1"), "{text}");
}

#[test]
fn dot_of_other_analyses_is_an_error() {
    let m = load(&triton_kernels()[0]);
    assert_eq!(
        dot(&m, "uniformity", &mut Analyses::new()),
        Err(AnnotateError::NoDotFormat("uniformity".into()))
    );
    assert_eq!(
        dot(&m, "nonsense", &mut Analyses::new()),
        Err(AnnotateError::UnknownAnalysis("nonsense".into()))
    );
}
