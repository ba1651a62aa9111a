//! The obligations of `raise-block-io`: every fact the raised copy relies on that the module
//! does not prove by itself, as values of one enum ([`Obligation`]), and the one place each is
//! discharged ([`discharge`]).
//!
//! The analyses produce them: the work-group shape (`workgroup_shape` in `raise_block_io.rs`),
//! the lane map's remainders taken as their dividend and widenings taken exactly (and the
//! lane-varying narrow widenings it cannot take), the planner's surface (base alignment, width,
//! pitch, height, size), column bound multiple, vector first column, mask width, column-origin
//! sign and block-origin range (`plan.rs`, `plan/bounds.rs`), and the trip counts a bound no
//! mask states comes from (`plan/bounds/implied.rs`, as `AtLeast`).
//!
//! Each is discharged in exactly one of five ways, decided here:
//! - **proven** from the module (constants, decorations, trailing zeros, loop counters): nothing
//!   is emitted;
//! - **run time**: a term of the one check before the kernel body (`rewrite/check.rs`,
//!   `Check::obligation`, one arm per kind), under which the raised copy runs and the
//!   unchanged body otherwise;
//! - **reduced** to simpler obligations, discharged in turn (a block origin's range becomes
//!   `AtLeast` comparisons of the terms the check can compute);
//! - **made true by the rewrite** (a block origin computed in 64 bits and saturated);
//! - **rejected** with its reason (a statistics key and a sentence): false, or neither provable
//!   nor checkable before the body.
//!
//! Why this is sound: the raised copy runs only when every obligation holds (proven ones hold
//! always, run-time ones are checked, saturated origins are exact by construction, see
//! `obligation/origins.rs`), and under them the rewrite is exact (see `raise_block_io.rs`).

use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{Coef, LaneMap, Poly};
use spvopt_ir::{FuncId, Id, Module};

use super::emit;
use super::reject::OperandReject;

mod origins;
pub use origins::SATURATE_AT;

/// The largest surface width, pitch and height 2D block IO takes (bytes, bytes, rows).
pub const SURFACE_LIMIT: i64 = 1 << 24;
/// The surface size (bytes) under which the kernel's 32-bit index arithmetic cannot wrap
/// inside the surface.
pub const SURFACE_SIZE_LIMIT: i64 = 1 << 31;

/// A fact the raised copy relies on (see the module documentation).
#[derive(Clone, Debug)]
pub enum Obligation {
    /// The work-group is exactly `(lanes, 1, 1)`: only a bound (`MaxWorkgroupSizeINTEL`) is
    /// declared, and the lane map assumed that shape.
    WorkgroupShape { lanes: u32 },
    /// The surface base pointer (a kernel argument) is a multiple of `align` bytes.
    BaseAligned { base: Id, align: u32 },
    /// `64 ≤ width ≤ 2^24` bytes and `width % 4 == 0`.
    SurfaceWidth { width: Poly },
    /// `64 ≤ pitch ≤ 2^24`, `pitch % 16 == 0` and `pitch ≥ width` (bytes).
    SurfacePitch { pitch: Poly, width: Poly },
    /// `1 ≤ height ≤ 2^24` rows.
    SurfaceHeight { height: Poly },
    /// `height · pitch < 2^31` bytes: the kernel's 32-bit index arithmetic (and every widening
    /// of a 32-bit index) does not wrap inside the surface.
    SurfaceSize { height: Poly, pitch: Poly },
    /// The column bound (`width` bytes) is a multiple of `bytes` (a masked vector's bytes: the
    /// vector is loaded iff its first column is in bounds).
    ColumnBoundMultiple { width: Poly, bytes: u32 },
    /// `lhs ≥ rhs` (64-bit): a loop's trip count covers a bound no mask states, or a block
    /// origin's checkable terms leave it in range.
    AtLeast { lhs: Poly, rhs: Poly },
    /// An atom of a column origin is `≥ 0` (columns below 0 are in the buffer, and no mask
    /// excludes them).
    NonNegative { atom: Id },
    /// A remainder the lane map took as its dividend: `0 ≤ dividend` and, with `upper`,
    /// `dividend < divisor` in every invocation (`lanes` of them).
    RemainderAsDividend {
        remainder: Id,
        dividend: Poly,
        divisor: Poly,
        upper: bool,
        lanes: u32,
    },
    /// A widening of a lane-invariant value taken as the exact polynomial of its operand: the
    /// operand does not wrap at its width.
    WideningExact { operand: Poly, signed: bool },
    /// A widening of a lane-varying value narrower than 32 bits (`result` its result): the
    /// lane map's polynomial is the mathematical value, the kernel's wraps at the width.
    NarrowWidening { result: Id, width: u32 },
    /// A mask compares values of `width` bits: below 32 they may wrap where the polynomials
    /// do not (32-bit ones cannot within a surface under 2^31 bytes: `SurfaceSize`).
    MaskWidth { width: u32 },
    /// Every column origin is a multiple of `2^zeros` elements (2D block IO's x alignment for
    /// 1- and 2-byte elements and packed reads).
    ColumnAligned { origins: Vec<Poly>, zeros: u32 },
    /// A masked vector's first column is a multiple of the vector (`2^zeros` elements): its
    /// mask is then the vector's column bound.
    VectorFirstColumn { column: Poly, zeros: u32 },
    /// The block origins along `dim` (0 rows, 1 columns) fit the block operation's 32-bit
    /// coordinate (`obligation/origins.rs`); `nonneg` are atoms checked `≥ 0` at run time.
    OriginFits {
        dim: usize,
        origins: Vec<Poly>,
        nonneg: Vec<Id>,
    },
}

/// The kinds of [`Obligation`], for tests that enumerate them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObligationKind {
    WorkgroupShape,
    BaseAligned,
    SurfaceWidth,
    SurfacePitch,
    SurfaceHeight,
    SurfaceSize,
    ColumnBoundMultiple,
    AtLeast,
    NonNegative,
    RemainderAsDividend,
    WideningExact,
    NarrowWidening,
    MaskWidth,
    ColumnAligned,
    VectorFirstColumn,
    OriginFits,
}

impl ObligationKind {
    /// Every kind (`Obligation::kind` is exhaustive, so a new variant needs a kind here; the
    /// discharge test enumerates this list).
    #[cfg(test)]
    pub const ALL: [ObligationKind; 16] = [
        ObligationKind::WorkgroupShape,
        ObligationKind::BaseAligned,
        ObligationKind::SurfaceWidth,
        ObligationKind::SurfacePitch,
        ObligationKind::SurfaceHeight,
        ObligationKind::SurfaceSize,
        ObligationKind::ColumnBoundMultiple,
        ObligationKind::AtLeast,
        ObligationKind::NonNegative,
        ObligationKind::RemainderAsDividend,
        ObligationKind::WideningExact,
        ObligationKind::NarrowWidening,
        ObligationKind::MaskWidth,
        ObligationKind::ColumnAligned,
        ObligationKind::VectorFirstColumn,
        ObligationKind::OriginFits,
    ];
}

/// How an obligation is met (see the module documentation).
#[derive(Clone, Debug)]
pub enum Discharge {
    Proven,
    RunTime,
    Reduced(Vec<Obligation>),
    /// Only `OriginFits`: the origin along the dimension is saturated in the raised copy.
    Saturated,
    Rejected(OperandReject),
}

/// What discharging reads: the module, the kernel function and its lane map.
pub struct Facts<'a> {
    pub m: &'a Module,
    pub dec: &'a Decorations,
    pub lanes: &'a LaneMap,
    pub func: FuncId,
}

impl Obligation {
    pub fn kind(&self) -> ObligationKind {
        match self {
            Obligation::WorkgroupShape { .. } => ObligationKind::WorkgroupShape,
            Obligation::BaseAligned { .. } => ObligationKind::BaseAligned,
            Obligation::SurfaceWidth { .. } => ObligationKind::SurfaceWidth,
            Obligation::SurfacePitch { .. } => ObligationKind::SurfacePitch,
            Obligation::SurfaceHeight { .. } => ObligationKind::SurfaceHeight,
            Obligation::SurfaceSize { .. } => ObligationKind::SurfaceSize,
            Obligation::ColumnBoundMultiple { .. } => ObligationKind::ColumnBoundMultiple,
            Obligation::AtLeast { .. } => ObligationKind::AtLeast,
            Obligation::NonNegative { .. } => ObligationKind::NonNegative,
            Obligation::RemainderAsDividend { .. } => ObligationKind::RemainderAsDividend,
            Obligation::WideningExact { .. } => ObligationKind::WideningExact,
            Obligation::NarrowWidening { .. } => ObligationKind::NarrowWidening,
            Obligation::MaskWidth { .. } => ObligationKind::MaskWidth,
            Obligation::ColumnAligned { .. } => ObligationKind::ColumnAligned,
            Obligation::VectorFirstColumn { .. } => ObligationKind::VectorFirstColumn,
            Obligation::OriginFits { .. } => ObligationKind::OriginFits,
        }
    }

    /// The polynomials the run-time check reads (their atoms are recomputed before the body).
    pub fn polys(&self) -> Vec<&Poly> {
        match self {
            Obligation::SurfaceWidth { width } => vec![width],
            Obligation::SurfacePitch { pitch, width } => vec![pitch, width],
            Obligation::SurfaceHeight { height } => vec![height],
            Obligation::SurfaceSize { height, pitch } => vec![height, pitch],
            Obligation::ColumnBoundMultiple { width, .. } => vec![width],
            Obligation::AtLeast { lhs, rhs } => vec![lhs, rhs],
            Obligation::RemainderAsDividend {
                dividend, divisor, ..
            } => vec![dividend, divisor],
            Obligation::WideningExact { operand, .. } => vec![operand],
            Obligation::ColumnAligned { origins, .. } | Obligation::OriginFits { origins, .. } => {
                origins.iter().collect()
            }
            Obligation::VectorFirstColumn { column, .. } => vec![column],
            Obligation::WorkgroupShape { .. }
            | Obligation::BaseAligned { .. }
            | Obligation::NonNegative { .. }
            | Obligation::NarrowWidening { .. }
            | Obligation::MaskWidth { .. } => Vec::new(),
        }
    }

    /// Whether two obligations state the same fact (one run-time term serves both).
    pub fn same_as(&self, o: &Obligation) -> bool {
        let same = |a: &[&Poly], b: &[&Poly]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
        };
        let scalars = match (self, o) {
            (Obligation::WorkgroupShape { lanes: a }, Obligation::WorkgroupShape { lanes: b }) => {
                a == b
            }
            (
                Obligation::BaseAligned { base: a, align: x },
                Obligation::BaseAligned { base: b, align: y },
            ) => a == b && x == y,
            (
                Obligation::ColumnBoundMultiple { bytes: a, .. },
                Obligation::ColumnBoundMultiple { bytes: b, .. },
            ) => a == b,
            (Obligation::NonNegative { atom: a }, Obligation::NonNegative { atom: b }) => a == b,
            (
                Obligation::RemainderAsDividend {
                    remainder: a,
                    upper: x,
                    lanes: p,
                    ..
                },
                Obligation::RemainderAsDividend {
                    remainder: b,
                    upper: y,
                    lanes: q,
                    ..
                },
            ) => a == b && x == y && p == q,
            (
                Obligation::WideningExact { signed: a, .. },
                Obligation::WideningExact { signed: b, .. },
            ) => a == b,
            (
                Obligation::NarrowWidening { result: a, .. },
                Obligation::NarrowWidening { result: b, .. },
            ) => a == b,
            (Obligation::MaskWidth { width: a }, Obligation::MaskWidth { width: b }) => a == b,
            (
                Obligation::ColumnAligned { zeros: a, .. },
                Obligation::ColumnAligned { zeros: b, .. },
            )
            | (
                Obligation::VectorFirstColumn { zeros: a, .. },
                Obligation::VectorFirstColumn { zeros: b, .. },
            ) => a == b,
            (
                Obligation::OriginFits {
                    dim: a, nonneg: x, ..
                },
                Obligation::OriginFits {
                    dim: b, nonneg: y, ..
                },
            ) => a == b && x == y,
            (a, b) => a.kind() == b.kind(),
        };
        scalars && same(&self.polys(), &o.polys())
    }
}

/// A constant's value (the lane-invariant constant polynomial), if `p` is one.
fn constant(p: &Poly) -> Option<i64> {
    p.as_constant()
}

/// `Proven` when `holds` is true, the rejection when false, `RunTime` when unknown.
fn decided(holds: Option<bool>, otherwise: OperandReject) -> Discharge {
    match holds {
        Some(true) => Discharge::Proven,
        Some(false) => Discharge::Rejected(otherwise),
        None => Discharge::RunTime,
    }
}

/// Whether the run-time check can compute `p` before the body (its atoms are kernel arguments,
/// module-level values or side-effect-free functions of them).
fn checkable(facts: &Facts, p: &Poly) -> bool {
    p.terms()
        .iter()
        .all(|(mono, _)| mono.iter().all(|&x| emit::copyable(facts.m, facts.func, x)))
}

/// How `ob` is met: the one place each kind is discharged (see the module documentation).
pub fn discharge(ob: &Obligation, facts: &Facts) -> Discharge {
    let surface = OperandReject::ObligationFalse;
    match ob {
        Obligation::WorkgroupShape { .. } => Discharge::RunTime,
        Obligation::BaseAligned { base, align } => {
            if facts
                .dec
                .alignment(*base)
                .is_some_and(|a| a != 0 && a % align.max(&1) == 0)
            {
                Discharge::Proven
            } else {
                Discharge::RunTime
            }
        }
        Obligation::SurfaceWidth { width } => decided(
            constant(width).map(|w| (64..=SURFACE_LIMIT).contains(&w) && w % 4 == 0),
            surface,
        ),
        Obligation::SurfacePitch { pitch, width } => decided(
            constant(pitch)
                .zip(constant(width))
                .map(|(p, w)| (64..=SURFACE_LIMIT).contains(&p) && p % 16 == 0 && p >= w),
            surface,
        ),
        Obligation::SurfaceHeight { height } => decided(
            constant(height).map(|h| (1..=SURFACE_LIMIT).contains(&h)),
            surface,
        ),
        Obligation::SurfaceSize { height, pitch } => decided(
            constant(height)
                .zip(constant(pitch))
                .map(|(h, p)| i128::from(h) * i128::from(p) < i128::from(SURFACE_SIZE_LIMIT)),
            surface,
        ),
        Obligation::ColumnBoundMultiple { width, bytes } => {
            // `bytes` is a power of two (a vector of power-of-two elements).
            if facts.lanes.trailing_zeros(width) >= bytes.trailing_zeros() {
                return Discharge::Proven;
            }
            decided(
                constant(width).map(|w| w % i64::from((*bytes).max(1)) == 0),
                OperandReject::ObligationFalse,
            )
        }
        Obligation::AtLeast { lhs, rhs } => match lhs.sub(rhs).and_then(|d| constant(&d)) {
            Some(d) => decided(Some(d >= 0), OperandReject::ObligationFalse),
            None => Discharge::RunTime,
        },
        Obligation::NonNegative { atom } => {
            if facts.lanes.is_nonneg_counter(facts.m, *atom) {
                Discharge::Proven
            } else {
                Discharge::RunTime
            }
        }
        Obligation::RemainderAsDividend {
            dividend, divisor, ..
        } => {
            let sym = dividend.with_constant_part(Coef::Same(0));
            if checkable(facts, &sym) && checkable(facts, divisor) {
                Discharge::RunTime
            } else {
                Discharge::Rejected(OperandReject::UnprovableAssumption)
            }
        }
        Obligation::WideningExact { operand, .. } => {
            if checkable(facts, operand) {
                Discharge::RunTime
            } else {
                Discharge::Rejected(OperandReject::UnprovableAssumption)
            }
        }
        Obligation::NarrowWidening { width, .. } => {
            decided(Some(*width >= 32), OperandReject::NarrowWidening)
        }
        Obligation::MaskWidth { width } => decided(Some(*width >= 32), OperandReject::NarrowMask),
        Obligation::ColumnAligned { origins, zeros } => decided(
            Some(
                origins
                    .iter()
                    .all(|x| facts.lanes.trailing_zeros(x) >= *zeros),
            ),
            OperandReject::Misaligned,
        ),
        Obligation::VectorFirstColumn { column, zeros } => decided(
            Some(facts.lanes.trailing_zeros(column) >= *zeros),
            OperandReject::VectorOffsetFromMask,
        ),
        Obligation::OriginFits {
            dim: _,
            origins,
            nonneg,
        } => origins::discharge(facts, origins, nonneg),
    }
}

/// The obligations that remain for the run-time check after discharging `obs` (reduced ones
/// in turn), distinct and in order, and which dimensions' origins are saturated; or the first
/// rejection.
pub fn discharge_all(
    facts: &Facts,
    obs: Vec<Obligation>,
) -> Result<(Vec<Obligation>, [bool; 2]), OperandReject> {
    let mut run_time: Vec<Obligation> = Vec::new();
    let mut saturate = [false; 2];
    let mut work: std::collections::VecDeque<Obligation> = obs.into();
    while let Some(ob) = work.pop_front() {
        match discharge(&ob, facts) {
            Discharge::Proven => {}
            Discharge::RunTime => {
                if !run_time.iter().any(|o| o.same_as(&ob)) {
                    run_time.push(ob);
                }
            }
            Discharge::Reduced(more) => {
                // In place of the obligation, before the ones after it.
                for o in more.into_iter().rev() {
                    work.push_front(o);
                }
            }
            Discharge::Saturated => {
                if let Obligation::OriginFits { dim, .. } = ob {
                    saturate[dim.min(1)] = true;
                }
            }
            Discharge::Rejected(r) => return Err(r),
        }
    }
    Ok((run_time, saturate))
}

/// The lane map's obligations (`lanes` invocations): each remainder taken as its dividend (its
/// upper bound unless `relaxed`), each widening taken exactly and each lane-varying narrow
/// widening.
pub fn lane_map_obligations(
    m: &Module,
    map: &LaneMap,
    lanes: u32,
    relaxed: &[Id],
) -> Vec<Obligation> {
    let mut obs = Vec::new();
    for (rem, a, b) in &map.assumptions {
        obs.push(Obligation::RemainderAsDividend {
            remainder: *rem,
            dividend: a.clone(),
            divisor: b.clone(),
            upper: !relaxed.contains(rem),
            lanes,
        });
    }
    for (_, a, signed) in &map.widenings {
        obs.push(Obligation::WideningExact {
            operand: a.clone(),
            signed: *signed,
        });
    }
    for &(result, operand, _) in &map.no_wrap {
        let width = m
            .type_of(operand)
            .and_then(|t| spvopt_analysis::types::int_width(m, t));
        if let Some(width) = width.filter(|&w| w < 32) {
            obs.push(Obligation::NarrowWidening { result, width });
        }
    }
    obs
}

/// Whether the lane map `map` of function `func` (`lanes` invocations) can be relied on: its
/// own obligations (remainders, exact widenings: checkable before the body; no lane-varying
/// index widened from fewer than 32 bits) can all be met; the rejection and the instruction it
/// is about otherwise.
pub fn lane_map_usable(
    m: &Module,
    dec: &Decorations,
    map: &LaneMap,
    func: FuncId,
    lanes: u32,
) -> Result<(), (OperandReject, Option<spvopt_ir::InstId>)> {
    let facts = Facts {
        m,
        dec,
        lanes: map,
        func,
    };
    let obs = lane_map_obligations(m, map, lanes, &[]);
    check_all(&facts, &obs).map_err(|(r, at)| (r, at.and_then(|x| m.def(x))))
}

/// Whether every obligation of `obs` can be met (proven or checked at run time): the first
/// rejection and where (the obligation's value) otherwise.
pub fn check_all(facts: &Facts, obs: &[Obligation]) -> Result<(), (OperandReject, Option<Id>)> {
    for ob in obs {
        if let Discharge::Rejected(r) = discharge(ob, facts) {
            let at = match ob {
                Obligation::NarrowWidening { result, .. } => Some(*result),
                _ => None,
            };
            return Err((r, at));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
