//! Renumbering ids compactly, for modules whose ids have become sparse.
//!
//! The loader rejects ids far above what a module's size needs ([`crate::loader::id_limit`]),
//! so that dense per-id tables cost O(module size). A pass that removes most of a module (dead
//! code) can leave such sparse ids behind; [`Module::compact_ids_if_sparse`] renumbers them so
//! that every module we write loads again. Modules whose ids fit are left untouched (their
//! output stays byte-identical).

use crate::id::Id;
use crate::module::Module;

impl Module {
    /// Renumbers the ids 1, 2, … in order of definition (emission order) when the highest id
    /// is at or above [`crate::loader::id_limit`] of the module's word count; returns whether
    /// it did. Linear. Ids used but not defined (never in a verified module) are kept; operands
    /// of opcodes the grammar does not know are kept verbatim.
    pub fn compact_ids_if_sparse(&mut self) -> bool {
        let mut words = 5;
        self.for_each_inst_in_order(|i| words += self.inst(i).word_count());
        if self.id_capacity() <= crate::loader::id_limit(words) as usize {
            return false;
        }
        let order = self.all_insts();
        let mut map = vec![0u32; self.id_capacity()];
        let mut next = 1u32;
        for &i in order.as_slice() {
            if let Some(r) = self.inst(i).result_id() {
                map[r.index()] = next;
                next += 1;
            }
        }
        let remap = |id: Id| match map.get(id.index()) {
            Some(&n) if n != 0 => Id::new(n).expect("new ids start at 1"),
            _ => id,
        };
        for &i in order.as_slice() {
            self.map_used_ids(i, remap);
            if let Some(r) = self.inst(i).result_id() {
                self.inst_mut(i).set_result_id(remap(r));
            }
        }
        self.defs = crate::entity::SecondaryMap::with_capacity(next as usize, None);
        self.defs.resize(next as usize);
        for &i in order.as_slice() {
            if let Some(r) = self.inst(i).result_id() {
                self.defs[r] = Some(i);
            }
        }
        for (id, _) in &mut self.ext_sets {
            *id = remap(*id);
        }
        self.header.bound = next;
        self.interned.invalidate();
        true
    }
}
