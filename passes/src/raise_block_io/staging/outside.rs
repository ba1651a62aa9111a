//! Whether a loop's staging may go: every Workgroup load of the function outside the loop
//! reads only bytes that stores after the loop write again before it (see
//! [`loads_outside_are_rewritten`]).
//!
//! Cost: one scan of the function, then per byte of every store and load outside the loop
//! (per invocation, at most `MAX_REGION` in all) one link in a dense per-root table of
//! writer lists (a hash map only for a root whose bytes lie scattered over more than
//! `MAX_REGION`).

use std::collections::HashMap;

use smallvec::SmallVec;
use spirv::{Op, StorageClass};
use spvopt_analysis::fxhash::{FxHashMap, FxHashSet};
use spvopt_analysis::lane_map::{Coef, LaneMap};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::{decorations::Decorations, Dominators};
use spvopt_ir::opcode_class::load_store;
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module};

use super::{workgroup_root, MAX_REGION};

/// A Workgroup load or store outside the staging.
#[derive(Clone, Copy)]
struct Access {
    inst: InstId,
    block: BlockId,
    /// Position in its block.
    index: usize,
    ptr: Id,
}

/// The Workgroup loads and stores of `f` outside the staging (`staging`), in order; `None`
/// if one is predicated (what it reads or writes is not followed).
fn outside_accesses(
    m: &Module,
    f: FuncId,
    staging: &FxHashSet<InstId>,
) -> Option<(Vec<Access>, Vec<Access>)> {
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    for &b in &m.function(f).blocks {
        for (index, i) in m.block_insts(b).enumerate() {
            if staging.contains(&i) {
                continue;
            }
            let inst = m.inst(i);
            let Some(ls) = load_store(inst.opcode()) else {
                continue;
            };
            let Some(ptr) = inst.operand_id(ls.pointer) else {
                continue;
            };
            let wg = m
                .type_of(ptr)
                .and_then(|t| pointer_of(m, t))
                .is_some_and(|(sc, _)| sc == StorageClass::Workgroup as u32);
            if !wg {
                continue;
            }
            if ls.predicate.is_some() {
                return None;
            }
            let access = Access {
                inst: i,
                block: b,
                index,
                ptr,
            };
            if inst.is(Op::Load) {
                loads.push(access);
            } else {
                stores.push(access);
            }
        }
    }
    Some((loads, stores))
}

/// No writer (the end of a list of writers).
const NONE: u32 = u32::MAX;

/// The outside stores (by index) that write each byte of one Workgroup root.
enum RootBytes {
    /// Bytes `lo..lo + first.len()`: per byte the first of its list of writers in `links`.
    Dense {
        lo: i64,
        first: Vec<u32>,
        /// (store, next writer of the same byte).
        links: Vec<(u32, u32)>,
    },
    /// Bytes scattered too widely for a table.
    Sparse(FxHashMap<i64, SmallVec<[usize; 2]>>),
}

impl RootBytes {
    /// An empty index for the bytes `lo..hi` (`None`: unknown or too wide a range).
    fn new(range: Option<(i64, i64)>) -> RootBytes {
        match range {
            Some((lo, hi)) if hi.checked_sub(lo).is_some_and(|n| n <= MAX_REGION) => {
                RootBytes::Dense {
                    lo,
                    first: vec![NONE; (hi - lo) as usize],
                    links: Vec::new(),
                }
            }
            _ => RootBytes::Sparse(Default::default()),
        }
    }

    /// Records that store `k` writes byte `at` (inside the range given to `new`).
    fn add(&mut self, at: i64, k: usize) {
        match self {
            RootBytes::Dense { lo, first, links } => {
                let head = &mut first[(at - *lo) as usize];
                // At most MAX_REGION bytes per invocation and fewer stores: fits in u32.
                links.push((k as u32, *head));
                *head = (links.len() - 1) as u32;
            }
            RootBytes::Sparse(map) => map.entry(at).or_default().push(k),
        }
    }

    /// Whether `ok` holds for some store that writes byte `at` (asked in no particular
    /// order, until one holds); `None` when no store writes it.
    #[inline]
    fn any_writer(&self, at: i64, mut ok: impl FnMut(usize) -> bool) -> Option<bool> {
        match self {
            RootBytes::Dense { lo, first, links } => {
                let mut next = *first.get(usize::try_from(at.checked_sub(*lo)?).ok()?)?;
                if next == NONE {
                    return None;
                }
                while next != NONE {
                    let (k, after) = links[next as usize];
                    if ok(k as usize) {
                        return Some(true);
                    }
                    next = after;
                }
                Some(false)
            }
            RootBytes::Sparse(map) => Some(map.get(&at)?.iter().any(|&k| ok(k))),
        }
    }
}

/// One outside store's bytes: per invocation `offset.at(l) .. + size` of `root`.
struct StoreBytes {
    k: usize,
    root: Id,
    offset: Coef,
    size: i64,
}

/// The check of one loop (see [`loads_outside_are_rewritten`]).
struct Check<'a> {
    m: &'a Module,
    dec: &'a Decorations,
    dom: &'a Dominators,
    lanes: &'a LaneMap,
    /// The loop's barrier's block.
    loop_block: BlockId,
    /// The blocks of the staging's stores, loads and barriers.
    loop_blocks: FxHashSet<BlockId>,
    stores: Vec<Access>,
    /// Bytes (per invocation) the byte indexes hold, bounded by `MAX_REGION`.
    mapped: u64,
    /// Whether the loop can run after a block (a path from it to `loop_block`).
    reaches: HashMap<BlockId, bool>,
}

impl Check<'_> {
    fn size_of(&self, id: Id) -> Option<u64> {
        self.m
            .type_of(id)
            .and_then(|t| spvopt_analysis::types::size_of(self.m, self.dec, t))
    }

    /// Counts `size` more bytes per invocation; `false` past `MAX_REGION` (a hostile module's
    /// huge vector accesses are not worth 10 GB of index).
    fn take(&mut self, size: u64) -> bool {
        self.mapped += size.saturating_mul(self.lanes.lanes as u64);
        self.mapped <= MAX_REGION as u64
    }

    /// Every byte the stores outside the loop write, once: root -> byte -> the stores;
    /// `None` when the bytes are too many.
    fn writers(&mut self) -> Option<FxHashMap<Id, RootBytes>> {
        let mut spans: Vec<StoreBytes> = Vec::new();
        let mut ranges: FxHashMap<Id, Option<(i64, i64)>> = Default::default();
        for k in 0..self.stores.len() {
            let st = self.stores[k];
            if self.loop_blocks.contains(&st.block) {
                continue;
            }
            let Some(sp) = self.lanes.poly(st.ptr) else {
                continue;
            };
            let Some(root) = workgroup_root(sp) else {
                continue;
            };
            let Some(size) = self
                .m
                .inst(st.inst)
                .operand_id(1)
                .and_then(|v| self.size_of(v))
            else {
                continue;
            };
            if !self.take(size) {
                return None;
            }
            let offset = sp.constant_part();
            let range = ranges.entry(root).or_insert(Some((i64::MAX, i64::MIN)));
            for l in 0..self.lanes.lanes {
                let a = offset.at(l);
                *range = range.and_then(|(lo, hi)| {
                    let end = a.checked_add(size as i64)?;
                    Some((lo.min(a), hi.max(end)))
                });
            }
            spans.push(StoreBytes {
                k,
                root,
                offset,
                size: size as i64,
            });
        }
        let mut writers: FxHashMap<Id, RootBytes> = Default::default();
        for s in spans {
            let bytes = writers
                .entry(s.root)
                .or_insert_with(|| RootBytes::new(ranges[&s.root]));
            for l in 0..self.lanes.lanes {
                let at = s.offset.at(l);
                for b in 0..s.size {
                    bytes.add(at + b, s.k);
                }
            }
        }
        Some(writers)
    }

    /// Whether store `st` comes before load `ld` on every path.
    fn before(&self, st: Access, ld: Access) -> bool {
        if st.block == ld.block {
            st.index < ld.index
        } else {
            self.dom.dominates(st.block, ld.block)
        }
    }

    /// Whether the loop can run after block `from`.
    fn loop_reachable_from(&mut self, from: BlockId) -> bool {
        if let Some(&r) = self.reaches.get(&from) {
            return r;
        }
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![from];
        let mut found = false;
        while let Some(b) = stack.pop() {
            if b == self.loop_block {
                found = true;
                break;
            }
            if !seen.insert(b) {
                continue;
            }
            spvopt_analysis::cfg::for_each_successor(self.m, b, |x| stack.push(x));
        }
        self.reaches.insert(from, found);
        found
    }

    /// Whether store `k` counts for load `ld` (before it on every path, the loop not after
    /// the store), remembered in `counts`.
    #[cold]
    fn counts_for(&mut self, k: usize, ld: Access, counts: &mut [Option<bool>]) -> bool {
        let st = self.stores[k];
        let ok = self.before(st, ld) && !self.loop_reachable_from(st.block);
        counts[k] = Some(ok);
        ok
    }

    /// Whether every byte load `ld` reads (per invocation) is written by a store that counts
    /// for it: before it on every path, the loop not after the store.
    fn load_is_rewritten(&mut self, ld: Access, writers: &FxHashMap<Id, RootBytes>) -> bool {
        if self.loop_blocks.contains(&ld.block) {
            // A Workgroup load of the loop that is not part of the staging.
            return false;
        }
        let Some(pp) = self.lanes.poly(ld.ptr) else {
            return false;
        };
        let Some(size) = self
            .m
            .inst(ld.inst)
            .result_id()
            .and_then(|r| self.size_of(r))
        else {
            return false;
        };
        if !self.take(size) {
            return false;
        }
        let Some(root) = workgroup_root(pp) else {
            return false;
        };
        let bytes = writers.get(&root);
        let mut counts: Vec<Option<bool>> = vec![None; self.stores.len()];
        let off = pp.constant_part();
        for l in 0..self.lanes.lanes {
            let at = off.at(l);
            for b in 0..size as i64 {
                let covered = bytes.and_then(|x| {
                    x.any_writer(at + b, |k| match counts[k] {
                        Some(ok) => ok,
                        None => self.counts_for(k, ld, &mut counts),
                    })
                });
                if covered != Some(true) {
                    return false;
                }
            }
        }
        true
    }
}

/// Whether every Workgroup load of the function outside the loop reads only bytes that
/// stores after the loop write again before it (so removing the loop's stores changes
/// nothing it reads): each such store dominates the load, and is itself dominated by the
/// loop's header without being in the loop.
#[allow(clippy::too_many_arguments)]
pub fn loads_outside_are_rewritten(
    m: &Module,
    dec: &Decorations,
    dom: &Dominators,
    lanes: &LaneMap,
    f: FuncId,
    (staging_stores, staging_loads, barriers): (&[InstId], &[InstId], &[InstId]),
    barrier: InstId,
) -> bool {
    let Some(loop_block) = m.inst_block(barrier) else {
        return false;
    };
    let staging: FxHashSet<InstId> = staging_stores
        .iter()
        .chain(staging_loads)
        .copied()
        .collect();
    let Some((loads, stores)) = outside_accesses(m, f, &staging) else {
        return false;
    };
    let loop_blocks: FxHashSet<BlockId> = staging_stores
        .iter()
        .chain(staging_loads)
        .chain(barriers)
        .filter_map(|&i| m.inst_block(i))
        .collect();
    let mut check = Check {
        m,
        dec,
        dom,
        lanes,
        loop_block,
        loop_blocks,
        stores,
        mapped: 0,
        reaches: HashMap::new(),
    };
    let Some(writers) = check.writers() else {
        return false;
    };
    loads
        .into_iter()
        .all(|ld| check.load_is_rewritten(ld, &writers))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense table and the hash map answer the same for the same writes, including
    /// bytes outside the range, unwritten bytes and bytes two stores write.
    #[test]
    fn dense_and_sparse_root_bytes_agree() {
        let writes = [(10i64, 0usize), (11, 0), (13, 1), (11, 2), (19, 3)];
        let mut dense = RootBytes::new(Some((10, 20)));
        let mut sparse = RootBytes::new(None);
        assert!(matches!(dense, RootBytes::Dense { .. }));
        assert!(matches!(sparse, RootBytes::Sparse(_)));
        for &(at, k) in &writes {
            dense.add(at, k);
            sparse.add(at, k);
        }
        let writers = |bytes: &RootBytes, at: i64| {
            let mut ks = Vec::new();
            let any = bytes.any_writer(at, |k| {
                ks.push(k);
                false
            });
            ks.sort_unstable();
            any.map(|_| ks)
        };
        for at in [i64::MIN, -1, 0, 9, 10, 11, 12, 13, 18, 19, 20, 21, i64::MAX] {
            assert_eq!(writers(&dense, at), writers(&sparse, at), "byte {at}");
        }
        assert_eq!(writers(&dense, 11), Some(vec![0, 2]));
        assert_eq!(writers(&dense, 12), None);
        // The search stops at the first store that holds.
        let mut asked = 0;
        assert_eq!(
            dense.any_writer(11, |_| {
                asked += 1;
                true
            }),
            Some(true)
        );
        assert_eq!(asked, 1);
    }

    /// A range wider than `MAX_REGION` (or one whose width overflows) is kept in a hash map.
    #[test]
    fn wide_ranges_are_sparse() {
        let wide = RootBytes::new(Some((0, MAX_REGION + 1)));
        assert!(matches!(wide, RootBytes::Sparse(_)));
        let overflow = RootBytes::new(Some((i64::MIN, i64::MAX)));
        assert!(matches!(overflow, RootBytes::Sparse(_)));
        let exact = RootBytes::new(Some((-5, MAX_REGION - 5)));
        assert!(matches!(exact, RootBytes::Dense { .. }));
    }
}
