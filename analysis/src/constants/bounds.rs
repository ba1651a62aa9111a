//! Bounds on folded composite values. Real composites nest a few levels (a struct of arrays
//! of vectors) and hold what the module spells out; a hostile module nests
//! `OpConstantComposite`s as deep as it likes (a value's derived `Clone`, `Drop` and
//! `PartialEq` recurse once per level: a stack overflow) and doubles a value's size with 4
//! words (`{%c, %c}`: exponential memory). Values beyond either bound are not folded.
//!
//! Folding an instruction clones the values of its operands, so the size bound is also the
//! cost bound of every instruction that reads a composite, and many small instructions that
//! each wrap the same large composite (`%w = OpConstantComposite %W %big`, 4 words each) would
//! each store a copy: 2,000 wrappers of a 65,535-node value took 4.1 GB and 21.6 s. Hence a
//! small per-value bound and a bound on all composite nodes one [`Constants`](super::Constants)
//! holds; what is beyond them is not constant as far as the passes know.

use super::ConstValue;

/// Composites nested deeper than this are not folded.
pub(super) const MAX_COMPOSITE_DEPTH: usize = 64;
/// Composites of more nodes than this are not folded: block shapes, coordinates, MMA K and
/// tensor states (what passes ask for) are far smaller, as are constant tables of kernels.
pub(super) const MAX_COMPOSITE_NODES: usize = 1 << 10;
/// All folded composites of one module together hold at most this many nodes (tens of MiB).
pub(super) const MAX_STORED_COMPOSITE_NODES: usize = 1 << 20;

impl ConstValue {
    /// The number of nodes of the value when it is within [`MAX_COMPOSITE_DEPTH`] and
    /// [`MAX_COMPOSITE_NODES`]. A walk with an explicit stack that stops at the first excess,
    /// so it costs no more than the bounded part; values are made from bounded parts, so the
    /// derived recursions over them stay within twice the depth bound.
    pub(super) fn bounded_size(&self) -> Option<usize> {
        let ConstValue::Composite(parts) = self else {
            return Some(1);
        };
        let mut stack: Vec<(&[ConstValue], usize)> = vec![(parts, 1)];
        let mut nodes = 1;
        while let Some((parts, depth)) = stack.pop() {
            nodes += parts.len();
            if depth > MAX_COMPOSITE_DEPTH || nodes > MAX_COMPOSITE_NODES {
                return None;
            }
            for p in parts {
                if let ConstValue::Composite(inner) = p {
                    stack.push((inner, depth + 1));
                }
            }
        }
        Some(nodes)
    }
}
