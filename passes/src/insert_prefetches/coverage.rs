//! Existing prefetches of a loop and whether they cover a load, with the reason either way.
//!
//! A 2D prefetch of the loop counts for a load when it reads the same object (provenance root,
//! else the same pointer) with the same pitch, and its coordinate has the load's step and is
//! `k ≥ 1` steps ahead (up to a remainder smaller than one step or independent of the step's
//! values): the load is left alone (`skipped_already_prefetched`). A prefetch of the same object
//! whose coordinate advances in the loop but does not cover this region also counts
//! (`skipped_already_prefetched_object`: the producer manages this buffer's prefetching, e.g.
//! Triton's transposed-B GEMM or a tile prefetched by one wide block). Anything else does not
//! count, and [`Coverage`] says, per existing prefetch, why (another object, another pitch, a
//! coordinate that is not affine in the loop, or one that does not advance).

use spvopt_analysis::affine::AffineExpr;
use spvopt_analysis::alias::BlockFootprint;
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::induction::{Induction, LoopAffine};
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::provenance::Root;
use spvopt_ir::{Id, InstId, Module};

use spirv::Op;

use super::{Ctx, MAX_AHEAD};
use spvopt_analysis::block_io::BlockOperands;

/// One 2D prefetch of a loop: its object, pitch, and x-bytes / y split in the loop (`None`
/// when a coordinate component is not affine in the loop).
pub(super) struct Prefetch2d {
    pub inst: InstId,
    pub root: Root,
    pub base: Id,
    pub pitch: PitchKey,
    pub xy: Option<(LoopAffine, LoopAffine)>,
}

/// Existing prefetches of a loop: 2D ones and (root, pointer, offset split) for 1D.
#[derive(Default)]
pub(super) struct Existing {
    pub block_2d: Vec<Prefetch2d>,
    pub buffer_1d: Vec<(Root, Id, LoopAffine)>,
}

/// How existing prefetches cover a load, with the explanation for the per-load note.
pub(super) enum Coverage {
    /// No existing prefetch counts.
    None(String),
    /// One covers the load's region `k ≥ 1` iterations ahead.
    Region(String),
    /// One prefetches the same object with an advancing coordinate.
    Object(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PitchKey {
    Form(AffineExpr),
    Id(Id),
}

pub(super) fn pitch_key(ind: &Induction, pitch: Id) -> PitchKey {
    ind.form(pitch).map_or(PitchKey::Id(pitch), PitchKey::Form)
}

/// Same base object: the same provenance root when known, else the same pointer id.
pub(super) fn same_base(ra: Root, ia: Id, rb: Root, ib: Id) -> bool {
    match (ra, rb) {
        (Root::Unknown, _) | (_, Root::Unknown) => ia == ib,
        _ => ra == rb,
    }
}

/// Whether `diff` (prefetch minus load, in some component) is `k` steps ahead, up to a
/// remainder that is smaller than one (constant) step or independent of the step's values.
fn ahead_by(diff: &AffineExpr, step: &AffineExpr, k: i64) -> bool {
    if step.as_constant() == Some(0) {
        return true;
    }
    let Some(r) = diff.sub(&step.scale(k)) else {
        return false;
    };
    if r.terms()
        .iter()
        .any(|t| step.terms().iter().any(|s| s.monomial == t.monomial))
    {
        return false;
    }
    match step.as_constant() {
        Some(s) if s > 0 => (0..s).contains(&r.constant),
        Some(s) => (s + 1..=0).contains(&r.constant),
        None => true,
    }
}

/// How many steps (1..=MAX_AHEAD) a prefetch at `p` is ahead of a load at `load` (per
/// component), or why it is not.
fn steps_ahead(load: &[&LoopAffine], p: &[&LoopAffine]) -> Result<i64, &'static str> {
    if load.len() != p.len() || load.iter().zip(p).any(|(a, b)| a.step != b.step) {
        return Err("its coordinate advances by another step");
    }
    if load.iter().all(|a| a.step.as_constant() == Some(0)) {
        return Err("the load's coordinate does not advance");
    }
    let diffs: Option<Vec<AffineExpr>> = load
        .iter()
        .zip(p)
        .map(|(a, b)| b.base.sub(&a.base))
        .collect();
    let Some(diffs) = diffs else {
        return Err("its offset from the load is not affine");
    };
    (1..=MAX_AHEAD)
        .find(|&k| diffs.iter().zip(load).all(|(d, a)| ahead_by(d, &a.step, k)))
        .ok_or("it is not 1..64 iterations ahead of this load's region")
}

/// Whether a prefetch at `p` covers a load at `load` (per component) at distance ≥ 1.
pub(super) fn covers(load: &[&LoopAffine], p: &[&LoopAffine]) -> bool {
    steps_ahead(load, p).is_ok()
}

/// `%id` of an instruction's result or, for result-less prefetches, its operand list start.
fn name(m: &Module, i: InstId) -> String {
    let inst = m.inst(i);
    match inst.result_id() {
        Some(r) => format!("%{}", r.word()),
        None => format!(
            "{} at (%{})",
            inst.name(),
            inst.operand_id(inst.operands().len().saturating_sub(1))
                .map_or(0, |c| c.word())
        ),
    }
}

impl Ctx<'_> {
    /// The prefetches of loop `l` (2D and 1D).
    pub(super) fn existing(&self, m: &Module, l: LoopId) -> Existing {
        let mut e = Existing::default();
        let prov = self.geo.provenance();
        for &b in self.loops.blocks(l) {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if inst.is(Op::SubgroupBlockPrefetchINTEL) {
                    let Some(ptr) = inst.operand_id(0) else {
                        continue;
                    };
                    let Some(info) = prov.info(ptr) else { continue };
                    if let Some(s) = info
                        .offset
                        .as_ref()
                        .and_then(|o| self.ind.split_in_loop(o, l))
                    {
                        e.buffer_1d.push((info.root, ptr, s));
                    }
                    continue;
                }
                // (Only a native prefetch or a call may be a 2D prefetch: the opcode first.)
                if BlockKind::of(inst) != Some(BlockKind::Prefetch) && !inst.is(Op::FunctionCall) {
                    continue;
                }
                let Some(bio) = self.geo.block_io(m, i) else {
                    continue;
                };
                if bio.kind != BlockKind::Prefetch {
                    continue;
                }
                let Some(fp) = self.geo.block_footprint(m, i) else {
                    continue;
                };
                let xy = match (
                    self.ind.split_in_loop(&fp.x_bytes, l),
                    self.ind.split_in_loop(&fp.y, l),
                ) {
                    (Some(x), Some(y)) => Some((x, y)),
                    _ => None,
                };
                e.block_2d.push(Prefetch2d {
                    inst: i,
                    root: fp.base.root,
                    base: bio.base,
                    pitch: pitch_key(self.ind, bio.mem_pitch),
                    xy,
                });
            }
        }
        e
    }

    /// Whether an existing prefetch of the loop covers the load's region at distance ≥ 1
    /// ([`Coverage::Region`]) or at least prefetches the same object (base and pitch) with a
    /// coordinate advancing in the loop ([`Coverage::Object`]); with, in each case, why each
    /// existing prefetch of the loop did or did not count.
    pub(super) fn covered_2d(
        &self,
        m: &Module,
        fp: &BlockFootprint,
        ops: &BlockOperands,
        l: LoopId,
        existing: &Existing,
    ) -> Coverage {
        if existing.block_2d.is_empty() {
            return Coverage::None("the loop has no 2D prefetch".into());
        }
        let (Some(x), Some(y)) = (
            self.ind.split_in_loop(&fp.x_bytes, l),
            self.ind.split_in_loop(&fp.y, l),
        ) else {
            return Coverage::None(format!(
                "the load's footprint is not affine in the loop ({} prefetch(es) in it not compared)",
                existing.block_2d.len()
            ));
        };
        let pitch = pitch_key(self.ind, ops.memory_pitch);
        let mut why = Why::default();
        let mut object: Option<String> = None;
        for p in &existing.block_2d {
            let n = || name(m, p.inst);
            if !same_base(fp.base.root, ops.base, p.root, p.base) {
                why.push(|| format!("{} reads another object", n()));
                continue;
            }
            if p.pitch != pitch {
                why.push(|| format!("{} has another pitch", n()));
                continue;
            }
            let Some((px, py)) = &p.xy else {
                why.push(|| format!("{}'s coordinate is not affine in the loop", n()));
                continue;
            };
            match steps_ahead(&[&x, &y], &[px, py]) {
                Ok(k) => {
                    return Coverage::Region(format!(
                        "covered by the existing prefetch {}, {k} iteration(s) ahead",
                        n()
                    ))
                }
                Err(reason) => {
                    let advances =
                        px.step.as_constant() != Some(0) || py.step.as_constant() != Some(0);
                    if advances {
                        object.get_or_insert_with(|| {
                            format!(
                                "the existing prefetch {} of the same object advances in the \
                                 loop but does not cover this region ({reason}): its producer \
                                 manages this object's prefetching",
                                n()
                            )
                        });
                    } else {
                        why.push(|| format!("{} (same object) does not advance in the loop", n()));
                    }
                }
            }
        }
        match object {
            Some(o) => Coverage::Object(o),
            None => Coverage::None(format!("no existing prefetch counts: {}", why.text())),
        }
    }
}

/// Why each existing prefetch did not count, for one load's note: the first
/// [`MAX_NOTE_CLAUSES`] reasons, then how many more. Every load of a loop gets a note, so
/// a clause per prefetch made the notes quadratic: 1,080 loads and 1,190 prefetches in one
/// loop (a 96 KB module) kept 108 MB of notes.
#[derive(Default)]
struct Why {
    clauses: Vec<String>,
    more: usize,
}

/// Clauses a note lists (real loops have a few prefetches).
const MAX_NOTE_CLAUSES: usize = 16;

impl Why {
    fn push(&mut self, clause: impl FnOnce() -> String) {
        if self.clauses.len() < MAX_NOTE_CLAUSES {
            self.clauses.push(clause());
        } else {
            self.more += 1;
        }
    }
    fn text(&self) -> String {
        let mut s = self.clauses.join("; ");
        if self.more > 0 {
            s += &format!("; and {} more", self.more);
        }
        s
    }
}
