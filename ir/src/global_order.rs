//! Restores "definitions before uses" in the global (types, constants, variables) section.
//!
//! Passes that create a type or constant with [`crate::Interner`] get it appended at the end of
//! the section; a pass that then makes an *earlier* instruction use it (e.g. replaces a type
//! everywhere by a new one) breaks the logical layout. [`Module::sort_global_section`] reorders
//! the section so that every id defined in it is defined before its first use in it, keeping
//! the original relative order wherever possible (stable: Kahn's algorithm taking the earliest
//! ready instruction first). Uses that form a cycle (`OpTypeForwardPointer` structures) keep
//! their original order for the instructions on the cycle.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::id::InstId;
use crate::module::{Module, Section};

impl Module {
    /// Reorders [`Section::Global`] so that definitions precede uses (stable; O(n log n)).
    /// Returns whether the order changed.
    pub fn sort_global_section(&mut self) -> bool {
        let list: Vec<InstId> = self.section(Section::Global).to_vec();
        let n = list.len();
        let position: HashMap<InstId, usize> =
            list.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        // Edges: definition (in this section) -> user (in this section).
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut pending = vec![0usize; n];
        let mut out_of_order = false;
        for (k, &i) in list.iter().enumerate() {
            let mut deps: Vec<usize> = Vec::new();
            self.for_each_used_id(i, |id| {
                if let Some(d) = self.def(id).and_then(|di| position.get(&di).copied()) {
                    if d != k {
                        deps.push(d);
                    }
                }
            });
            deps.sort_unstable();
            deps.dedup();
            for d in deps {
                out_of_order |= d > k;
                users[d].push(k);
                pending[k] += 1;
            }
        }
        if !out_of_order {
            return false;
        }
        let mut ready: BinaryHeap<Reverse<usize>> =
            (0..n).filter(|&k| pending[k] == 0).map(Reverse).collect();
        let mut placed = vec![false; n];
        let mut order: Vec<InstId> = Vec::with_capacity(n);
        loop {
            while let Some(Reverse(k)) = ready.pop() {
                placed[k] = true;
                order.push(list[k]);
                for &u in &users[k] {
                    pending[u] -= 1;
                    if pending[u] == 0 {
                        ready.push(Reverse(u));
                    }
                }
            }
            // A cycle (forward pointers): release its earliest instruction as it was.
            match (0..n).find(|&k| !placed[k]) {
                Some(k) => {
                    pending[k] = 0;
                    ready.push(Reverse(k));
                }
                None => break,
            }
        }
        let changed = order != list;
        self.sections[Section::Global as usize] = order;
        self.interned.invalidate();
        changed
    }
}

#[cfg(test)]
mod tests {
    use crate::{Inst, Module, Section};
    use spirv::Op;

    #[test]
    fn a_type_appended_late_moves_before_its_user() {
        let mut m = Module::new(0x0001_0400);
        let (int, vec, ptr) = (m.fresh_id(), m.fresh_id(), m.fresh_id());
        m.push_to_section(
            Section::Global,
            Inst::new(Op::TypeInt, None, Some(int), &[32, 0]),
        );
        // The pointer names the vector, which is defined after it.
        m.push_to_section(
            Section::Global,
            Inst::new(Op::TypePointer, None, Some(ptr), &[7, vec.word()]),
        );
        m.push_to_section(
            Section::Global,
            Inst::new(Op::TypeVector, None, Some(vec), &[int.word(), 4]),
        );
        assert!(m.sort_global_section());
        let order: Vec<_> = m
            .section_insts(Section::Global)
            .filter_map(|(_, i)| i.result_id())
            .collect();
        assert_eq!(order, vec![int, vec, ptr]);
        assert!(!m.sort_global_section(), "sorting is idempotent");
    }
}
