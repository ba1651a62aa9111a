//! Emitter: a [`Module`] back into SPIR-V words / bytes, in the byte order it was read in.

use crate::id::InstId;
use crate::module::Module;

impl Module {
    /// Calls `f` with every live instruction in emission order (a plain loop: faster than
    /// [`Module::all_insts`]'s iterator chain on big modules).
    pub fn for_each_inst_in_order(&self, mut f: impl FnMut(InstId)) {
        for s in &self.sections {
            for &i in s {
                f(i);
            }
        }
        for func in &self.functions {
            for &i in &func.prefix {
                f(i);
            }
            f(func.def);
            for &i in &func.header {
                f(i);
            }
            for &b in &func.blocks {
                f(self.blocks[b.index()].label);
                let mut next = self.blocks[b.index()].first;
                while let Some(i) = next {
                    f(i);
                    next = self.links[i.index()].next;
                }
            }
            f(func.end);
        }
        for &i in &self.trailing {
            f(i);
        }
    }

    fn header_words(&self) -> [u32; 5] {
        [
            0x0723_0203,
            self.header.version,
            self.header.generator,
            self.header.bound,
            self.header.schema,
        ]
    }

    /// The module as SPIR-V words in host order.
    pub fn to_words(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.insts.len() * 5 + 5);
        out.extend_from_slice(&self.header_words());
        self.for_each_inst_in_order(|i| {
            let inst = &self.insts[i.index()];
            out.push(((inst.word_count() as u32) << 16) | inst.opcode() as u32);
            out.extend_from_slice(&inst.words);
        });
        out
    }

    /// The module as bytes, in the byte order it was loaded from (little-endian for new modules).
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = self.to_words();
        if self.header.big_endian {
            return words.iter().flat_map(|w| w.to_be_bytes()).collect();
        }
        let n = words.len() * 4;
        let mut out: Vec<u8> = Vec::with_capacity(n);
        // SAFETY: `out` has capacity for `n` bytes, the source holds exactly `n` initialised
        // bytes, the regions do not overlap, and on a little-endian host (grammar.rs refuses to
        // compile otherwise) the in-memory bytes of the words are their little-endian encoding.
        unsafe {
            std::ptr::copy_nonoverlapping(words.as_ptr().cast::<u8>(), out.as_mut_ptr(), n);
            out.set_len(n);
        }
        out
    }
}
