//! How a prefetch covers a load's rectangle: one wide block when the target has it, else the
//! load's own shape, else pieces of at most 64 bytes per row and 32 rows.

use super::*;

/// One prefetch block of a load's rectangle: shape and offset from the load's coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) count: u32,
    pub(super) dx: u32,
    pub(super) dy: u32,
}

/// The prefetches covering a `total_width` (elements) × `height` rectangle of `elem`-byte
/// elements that a load with block width `w` and count `count` reads: one wide block if the
/// target has it, else the load's own shape, else pieces (≤ 64 bytes per row, ≤ 32 rows).
pub(super) fn pieces(
    target: &Target,
    elem: u32,
    w: u32,
    count: u32,
    height: u32,
) -> Option<Vec<Piece>> {
    let total = w.checked_mul(count)?;
    let ok = |w, h, c| target.supports_2d_block(BlockKind::Prefetch, elem, w, h, c);
    if ok(total, height, 1) {
        return Some(vec![Piece {
            width: total,
            height,
            count: 1,
            dx: 0,
            dy: 0,
        }]);
    }
    if ok(w, height, count) {
        return Some(vec![Piece {
            width: w,
            height,
            count,
            dx: 0,
            dy: 0,
        }]);
    }
    let mut best: Option<(u32, u32)> = None;
    let mut pw = 1u32;
    while pw <= total && pw.saturating_mul(elem) <= 64 {
        let mut ph = 1u32;
        while ph <= height && ph <= 32 {
            if total.is_multiple_of(pw) && height.is_multiple_of(ph) && ok(pw, ph, 1) {
                let better = best.is_none_or(|(bw, bh)| (pw * ph, pw) > (bw * bh, bw));
                if better {
                    best = Some((pw, ph));
                }
            }
            ph *= 2;
        }
        pw *= 2;
    }
    let (pw, ph) = best?;
    // At most 16 pieces; counted before any is built (a hostile height or width would
    // otherwise build billions first).
    let n = u64::from(height.div_ceil(ph)) * u64::from(total.div_ceil(pw));
    if n > MAX_PIECES {
        return None;
    }
    let mut v = Vec::new();
    for dy in (0..height).step_by(ph as usize) {
        for dx in (0..total).step_by(pw as usize) {
            v.push(Piece {
                width: pw,
                height: ph,
                count: 1,
                dx,
                dy,
            });
        }
    }
    Some(v)
}

/// The most prefetches one load's rectangle is split into.
const MAX_PIECES: u64 = 16;
