//! Def-use chains as an analysis: for every id, the instructions that use it.
//!
//! Built in two linear passes into one flat array (counts, then fill — CSR layout), so there
//! is no per-id allocation. It is a snapshot: rebuild after changing the module.

use crate::id::{Id, InstId};
use crate::module::Module;

/// Users of every id.
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    starts: Vec<u32>,
    users: Vec<InstId>,
}

impl DefUse {
    /// Computes the uses of every id in `m` (an instruction using an id twice appears twice).
    pub fn build(m: &Module) -> DefUse {
        let n = m.id_capacity();
        let mut counts = vec![0u32; n + 1];
        let insts: Vec<InstId> = m.all_insts().collect();
        for &i in &insts {
            m.for_each_used_id(i, |id| {
                if id.index() < n {
                    counts[id.index() + 1] += 1;
                }
            });
        }
        for k in 1..counts.len() {
            counts[k] += counts[k - 1];
        }
        let mut fill = counts.clone();
        let mut users = vec![InstId::from_index(0); counts[n] as usize];
        for &i in &insts {
            m.for_each_used_id(i, |id| {
                if id.index() < n {
                    let slot = &mut fill[id.index()];
                    users[*slot as usize] = i;
                    *slot += 1;
                }
            });
        }
        DefUse {
            starts: counts,
            users,
        }
    }

    /// The instructions that use `id`.
    pub fn users(&self, id: Id) -> &[InstId] {
        let i = id.index();
        if i + 1 >= self.starts.len() {
            return &[];
        }
        &self.users[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Whether `other` lists the same users for every id, in any order (an id the other chains
    /// do not cover has none).
    pub fn same_uses(&self, other: &DefUse) -> bool {
        let ids = self.starts.len().max(other.starts.len()).saturating_sub(1);
        let sorted = |d: &DefUse, i: usize| {
            let mut v: Vec<u32> = if i + 1 < d.starts.len() {
                d.users[d.starts[i] as usize..d.starts[i + 1] as usize]
                    .iter()
                    .map(|u| u.index() as u32)
                    .collect()
            } else {
                Vec::new()
            };
            v.sort_unstable();
            v
        };
        (0..ids).all(|i| sorted(self, i) == sorted(other, i))
    }

    /// Number of uses of `id`.
    pub fn use_count(&self, id: Id) -> usize {
        self.users(id).len()
    }

    /// Whether `id` has no uses.
    pub fn is_unused(&self, id: Id) -> bool {
        self.users(id).is_empty()
    }

    /// Replaces every use of `old` by `new`, touching only the users of `old`.
    pub fn replace_all_uses(&self, m: &mut Module, old: Id, new: Id) {
        let mut last = None;
        for &u in self.users(old) {
            if last == Some(u) {
                continue;
            }
            last = Some(u);
            m.map_used_ids(u, |x| if x == old { new } else { x });
        }
    }
}
