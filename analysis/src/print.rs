//! `annotate`: the module's instructions one per line in a simple disassembly-like form
//! (`%12 = OpIAdd %5 %3 %7`, result type first as in the binary), each followed by what one
//! analysis knows about it as a `;` comment. Used by `spv-opt --print-analysis NAME` and by the
//! fixture tests (which match `; CHECK:` lines against it).
//!
//! Analyses: `cfg` (predecessors/successors of blocks, unreachable blocks), `dominators`
//! (immediate dominator and post-dominator of blocks), `loops` (depth, headers, latches),
//! `induction` (`; iv …`, `; affine 32*i + %5`, loop invariance), `uniformity` (`; uniform`,
//! `; divergent`, divergent branches/control), `constants` (`; const 16`, block shapes, MMA K,
//! tensor layout/view state), `alias` (`; root arg 0 + 128`, escapes, block footprints).
//! Loop counters print as `i` for the innermost loop around the instruction and `i@%H` (H: the
//! loop's header label) for other loops.

use std::fmt::Write;

use spirv::Op;
use spvopt_ir::grammar::{decode_string, SlotKind};
use spvopt_ir::{BlockId, Inst, InstId, Module};

use crate::affine::AffineExpr;
use crate::alias::Alias;
use crate::block_io::{block_io, matrix_mad};
use crate::builtins::Callees;
use crate::cache::Analyses;
use crate::cfg::Cfg;
use crate::constants::Constants;
use crate::dominators::Dominators;
use crate::induction::Induction;
use crate::loops::{LoopId, Loops};
use crate::post_dominators::PostDominators;
use crate::provenance::{Provenance, Root};
use crate::uniformity::Uniformity;

/// The analyses `annotate` knows.
pub const ANALYSIS_NAMES: [&str; 7] = [
    "cfg",
    "dominators",
    "loops",
    "induction",
    "uniformity",
    "constants",
    "alias",
];

/// The analyses that are graphs of blocks, which [`crate::dot::dot`] draws.
pub const DOT_ANALYSES: [&str; 3] = ["cfg", "dominators", "loops"];

/// Why `annotate` failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnnotateError {
    /// The analysis name is not one of [`ANALYSIS_NAMES`].
    UnknownAnalysis(String),
    /// `--format dot` of an analysis that is not a graph of blocks (not one of
    /// [`DOT_ANALYSES`]).
    NoDotFormat(String),
}

impl std::fmt::Display for AnnotateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnnotateError::UnknownAnalysis(n) => write!(
                f,
                "unknown analysis \"{n}\" (expected one of: {})",
                ANALYSIS_NAMES.join(", ")
            ),
            AnnotateError::NoDotFormat(n) => write!(
                f,
                "analysis \"{n}\" has no dot format (--format dot draws: {})",
                DOT_ANALYSES.join(", ")
            ),
        }
    }
}

impl std::error::Error for AnnotateError {}

/// One instruction as text: `%r = OpName %type operands…`.
pub fn format_inst(m: &Module, inst: &Inst) -> String {
    let mut s = String::new();
    if let Some(r) = inst.result_id() {
        let _ = write!(s, "{r} = ");
    }
    s.push_str(&inst.name());
    let words = &inst.words;
    let ok = m.walk(inst, |slot| {
        let w = &words[slot.index..(slot.index + slot.words).min(words.len())];
        match slot.kind {
            SlotKind::Result => {}
            SlotKind::ResultType | SlotKind::Id => {
                let _ = write!(s, " %{}", w.first().copied().unwrap_or(0));
            }
            SlotKind::Literal => match w {
                [lo, hi] => {
                    let _ = write!(s, " {}", u64::from(*lo) | u64::from(*hi) << 32);
                }
                _ => {
                    for x in w {
                        let _ = write!(s, " {x}");
                    }
                }
            },
            SlotKind::String => {
                let _ = write!(s, " {:?}", decode_string(w).unwrap_or("?"));
            }
            SlotKind::Opaque => {
                for x in w {
                    let _ = write!(s, " {x}");
                }
            }
        }
    });
    if ok.is_err() {
        s.truncate(0);
        let _ = write!(s, "{}", inst.name());
        for x in words.iter() {
            let _ = write!(s, " {x}");
        }
    }
    s
}

/// Prints `m` annotated with analysis `analysis` (see the module documentation).
pub fn annotate(
    m: &Module,
    analysis: &str,
    analyses: &mut Analyses,
) -> Result<String, AnnotateError> {
    let mut out = String::new();
    for l in annotate_lines(m, analysis, analyses)? {
        if l.indent {
            out.push_str("  ");
        }
        out.push_str(&l.text);
        if !l.comments.is_empty() {
            out.push_str("  ; ");
            out.push_str(&l.comments.join("; "));
        }
        out.push('\n');
    }
    Ok(out)
}

/// One line of [`annotate`]'s listing, in parts: for a caller that prints the instruction
/// another way (`spv-opt --print-analysis` prints it as `--emit-text` does, with names).
#[derive(Clone, Debug)]
pub struct AnnotatedLine {
    /// The instruction (every instruction of the module, in order).
    pub inst: InstId,
    /// Inside a block, after its label: indented.
    pub indent: bool,
    /// [`format_inst`]'s text (ids as numbers, enumerants as numbers).
    pub text: String,
    /// What the analysis says about it (ids in them as numbers, `%12`).
    pub comments: Vec<String>,
}

/// [`annotate`]'s listing, line by line.
pub fn annotate_lines(
    m: &Module,
    analysis: &str,
    analyses: &mut Analyses,
) -> Result<Vec<AnnotatedLine>, AnnotateError> {
    let mut ann: Box<dyn Annotator> = match analysis {
        "cfg" => Box::new(CfgAnn {
            cfg: analyses.get::<Cfg>(m),
        }),
        "dominators" => Box::new(DomAnn {
            dom: analyses.get::<Dominators>(m),
            pdom: analyses.get::<PostDominators>(m),
        }),
        "loops" => Box::new(LoopAnn {
            loops: analyses.get::<Loops>(m),
        }),
        "induction" => Box::new(IndAnn {
            ind: analyses.get::<Induction>(m),
            loops: analyses.get::<Loops>(m),
        }),
        "uniformity" => Box::new(UniAnn {
            uni: analyses.get::<Uniformity>(m),
            callees: analyses.get::<Callees>(m),
        }),
        "constants" => Box::new(ConstAnn {
            consts: analyses.get::<Constants>(m),
            callees: analyses.get::<Callees>(m),
        }),
        "alias" => Box::new(AliasAnn {
            alias: analyses.get::<Alias>(m),
            prov: analyses.get::<Provenance>(m),
            loops: analyses.get::<Loops>(m),
        }),
        other => return Err(AnnotateError::UnknownAnalysis(other.to_string())),
    };
    let mut out = Vec::new();
    let mut current_block: Option<BlockId> = None;
    for i in m.all_insts() {
        let inst = m.inst(i);
        if inst.is(Op::Label) {
            current_block = m.inst_block(i);
        } else if inst.is(Op::Function) || inst.is(Op::FunctionEnd) {
            current_block = None;
        }
        out.push(AnnotatedLine {
            inst: i,
            indent: current_block.is_some() && !inst.is(Op::Label),
            text: format_inst(m, inst),
            comments: ann.comments(m, i, current_block),
        });
    }
    Ok(out)
}

trait Annotator {
    fn comments(&mut self, m: &Module, i: InstId, block: Option<BlockId>) -> Vec<String>;
}

fn label_of(m: &Module, b: BlockId) -> String {
    m.inst(m.block(b).label)
        .result_id()
        .map_or("%?".to_string(), |l| l.to_string())
}

fn block_if_label(m: &Module, i: InstId) -> Option<BlockId> {
    if m.inst(i).is(Op::Label) {
        m.inst_block(i)
    } else {
        None
    }
}

struct CfgAnn {
    cfg: std::rc::Rc<Cfg>,
}

impl Annotator for CfgAnn {
    fn comments(&mut self, m: &Module, i: InstId, _: Option<BlockId>) -> Vec<String> {
        let Some(b) = block_if_label(m, i) else {
            return Vec::new();
        };
        let list = |v: &[BlockId]| -> String {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter()
                    .map(|&x| label_of(m, x))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        let mut c = vec![
            format!("preds {}", list(self.cfg.preds(b))),
            format!("succs {}", list(self.cfg.succs(b))),
        ];
        if !self.cfg.is_reachable(b) {
            c.push("unreachable".to_string());
        }
        c
    }
}

struct DomAnn {
    dom: std::rc::Rc<Dominators>,
    pdom: std::rc::Rc<PostDominators>,
}

impl Annotator for DomAnn {
    fn comments(&mut self, m: &Module, i: InstId, _: Option<BlockId>) -> Vec<String> {
        let Some(b) = block_if_label(m, i) else {
            return Vec::new();
        };
        if !self.dom.tree().contains(b) {
            return vec!["unreachable".to_string()];
        }
        vec![
            format!(
                "idom {}",
                self.dom
                    .idom(b)
                    .map_or("none".to_string(), |x| label_of(m, x))
            ),
            format!(
                "ipdom {}",
                self.pdom
                    .ipdom(b)
                    .map_or("exit".to_string(), |x| label_of(m, x))
            ),
        ]
    }
}

struct LoopAnn {
    loops: std::rc::Rc<Loops>,
}

impl Annotator for LoopAnn {
    fn comments(&mut self, m: &Module, i: InstId, _: Option<BlockId>) -> Vec<String> {
        let Some(b) = block_if_label(m, i) else {
            return Vec::new();
        };
        let mut c = Vec::new();
        let depth = self.loops.depth(b);
        if depth > 0 {
            c.push(format!("loop depth {depth}"));
        }
        if let Some(l) = self.loops.loop_of_header(b) {
            let latches = self
                .loops
                .get(l)
                .map(|d| {
                    d.latches
                        .iter()
                        .map(|&x| label_of(m, x))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            c.push(format!("loop header, latches {latches}"));
        }
        c
    }
}

fn counter_namer<'a>(
    m: &'a Module,
    loops: &'a Loops,
    here: Option<LoopId>,
) -> impl Fn(LoopId) -> String + 'a {
    move |l| {
        if Some(l) == here {
            "i".to_string()
        } else {
            match loops.header(l) {
                Some(h) => format!("i@{}", label_of(m, h)),
                None => format!("i{}", l.0),
            }
        }
    }
}

fn fmt_expr(e: &AffineExpr, namer: &dyn Fn(LoopId) -> String) -> String {
    let mut s = String::new();
    let _ = e.fmt_with(&mut s, namer);
    s
}

struct IndAnn {
    ind: std::rc::Rc<Induction>,
    loops: std::rc::Rc<Loops>,
}

impl Annotator for IndAnn {
    fn comments(&mut self, m: &Module, i: InstId, block: Option<BlockId>) -> Vec<String> {
        let inst = m.inst(i);
        let Some(r) = inst.result_id() else {
            return Vec::new();
        };
        if inst.result_type().is_none() {
            return Vec::new();
        }
        let here = block.and_then(|b| self.loops.innermost(b));
        let namer = counter_namer(m, &self.loops, here);
        let mut c = Vec::new();
        if let Some(iv) = self.ind.induction_variable(r) {
            let h = self
                .loops
                .header(iv.loop_id)
                .map_or("?".to_string(), |h| label_of(m, h));
            c.push(format!(
                "iv init {} step {} (loop {h})",
                fmt_expr(&iv.init, &namer),
                fmt_expr(&iv.step, &namer)
            ));
        }
        if block.is_none() {
            return c; // module-level constants: see the constants analysis
        }
        if let Some(e) = self.ind.form(r) {
            if e != AffineExpr::value(r) {
                c.push(format!("affine {}", fmt_expr(&e, &namer)));
            }
        } else if let Some(v) = self.ind.vector_form(r) {
            let parts: Vec<String> = v
                .iter()
                .map(|x| x.as_ref().map_or("?".to_string(), |e| fmt_expr(e, &namer)))
                .collect();
            c.push(format!("affine ({})", parts.join(", ")));
        }
        if let Some(h) = here {
            if self.ind.is_invariant_in(r, h) && !inst.is(Op::Variable) {
                c.push("loop-invariant".to_string());
            }
        }
        c
    }
}

struct UniAnn {
    uni: std::rc::Rc<Uniformity>,
    callees: std::rc::Rc<Callees>,
}

impl Annotator for UniAnn {
    fn comments(&mut self, m: &Module, i: InstId, _: Option<BlockId>) -> Vec<String> {
        let inst = m.inst(i);
        let mut c = Vec::new();
        if let Some(b) = block_if_label(m, i) {
            if self.uni.is_divergent_control(b) {
                c.push("divergent control".to_string());
            }
            return c;
        }
        if inst.is(Op::BranchConditional) || inst.is(Op::Switch) {
            if let Some(b) = m.inst_block(i) {
                if self.uni.is_divergent_branch(b) {
                    c.push("divergent branch".to_string());
                }
            }
        }
        let non_void = inst
            .result_type()
            .and_then(|t| m.def_inst(t))
            .is_some_and(|t| !t.is(Op::TypeVoid));
        if let (Some(r), true) = (inst.result_id(), non_void) {
            let mask = self.uni.divergent_mask(r);
            if mask == 0 {
                c.push("uniform".to_string());
            } else if mask == u64::MAX {
                c.push("divergent".to_string());
            } else {
                let comps: Vec<String> = (0..64)
                    .filter(|k| mask & (1u64 << k) != 0)
                    .map(|k| k.to_string())
                    .collect();
                c.push(format!("divergent components {}", comps.join(",")));
            }
            if inst.is(Op::Variable) && self.uni.is_divergent_variable(r) {
                c.push("divergent contents".to_string());
            }
        }
        if let Some(b) = block_io(m, &self.callees, i) {
            let bad: Vec<String> = b
                .uniform_operands()
                .filter(|&x| !self.uni.is_uniform(x))
                .map(|x| x.to_string())
                .collect();
            if bad.is_empty() {
                c.push("block operands uniform".to_string());
            } else {
                c.push(format!("block operands divergent: {}", bad.join(" ")));
            }
        }
        c
    }
}

struct ConstAnn {
    consts: std::rc::Rc<Constants>,
    callees: std::rc::Rc<Callees>,
}

impl Annotator for ConstAnn {
    fn comments(&mut self, m: &Module, i: InstId, _: Option<BlockId>) -> Vec<String> {
        let inst = m.inst(i);
        let mut c = Vec::new();
        if let Some(r) = inst.result_id() {
            if let Some(v) = self.consts.fold(m, r) {
                c.push(format!("const {v}"));
            }
            if let Some(t) = self.consts.tensor_state(r) {
                match t {
                    crate::tensor_layout::TensorState::Layout(l) => c.push(l.to_string()),
                    crate::tensor_layout::TensorState::View(v) => c.push(v.to_string()),
                }
            }
        }
        if let Some(b) = block_io(m, &self.callees, i) {
            match self.consts.block_shape(&b) {
                Some([e, w, h, n]) => {
                    c.push(format!("block {:?} elem {e} B, {w}x{h}, count {n}", b.kind))
                }
                None => c.push(format!("block {:?} shape not constant", b.kind)),
            }
        }
        if let Some(mad) = matrix_mad(m, &self.callees, i) {
            match self.consts.mma_k(&mad) {
                Some(k) => c.push(format!("mma k {k}")),
                None => c.push("mma k not constant".to_string()),
            }
        }
        c
    }
}

struct AliasAnn {
    alias: std::rc::Rc<Alias>,
    prov: std::rc::Rc<Provenance>,
    loops: std::rc::Rc<Loops>,
}

impl Annotator for AliasAnn {
    fn comments(&mut self, m: &Module, i: InstId, block: Option<BlockId>) -> Vec<String> {
        let inst = m.inst(i);
        let here = block.and_then(|b| self.loops.innermost(b));
        let namer = counter_namer(m, &self.loops, here);
        let mut c = Vec::new();
        if let Some(r) = inst.result_id() {
            if let Some(info) = self.prov.info(r) {
                let root = match info.root {
                    Root::Param { index, .. } => format!("arg {index}"),
                    Root::Variable(v) => format!("var {v}"),
                    Root::Null => "null".to_string(),
                    Root::Unknown => "unknown".to_string(),
                };
                let off = match &info.offset {
                    Some(o) if o.as_constant() == Some(0) => String::new(),
                    Some(o) => format!(" + {}", fmt_expr(o, &namer)),
                    None => " + ?".to_string(),
                };
                c.push(format!("root {root}{off}"));
                if inst.is(Op::Variable) && self.prov.is_escaped(r) {
                    c.push("escapes".to_string());
                }
                if let Root::Param { id, .. } = info.root {
                    if id == r && self.prov.is_noalias(r) {
                        c.push("noalias".to_string());
                    }
                }
            }
        }
        if let Some(f) = self.alias.block_footprint(m, i) {
            c.push(format!(
                "footprint {:?} rows [{}, +{}) bytes [{}, +{}) pitch {}",
                f.kind,
                fmt_expr(&f.y, &namer),
                f.rows,
                fmt_expr(&f.x_bytes, &namer),
                f.row_bytes,
                f.pitch
                    .as_ref()
                    .map_or("?".to_string(), |p| fmt_expr(p, &namer))
            ));
        } else if self.alias.block_io(m, i).is_some() {
            c.push("footprint unknown".to_string());
        }
        c
    }
}
