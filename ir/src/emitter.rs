//! Emitter: a [`Module`] back into SPIR-V words / bytes, in the byte order it was read in.

use crate::module::Module;

impl Module {
    /// The module as SPIR-V words in host order.
    pub fn to_words(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.insts.len() * 4 + 5);
        out.extend_from_slice(&[
            0x0723_0203,
            self.header.version,
            self.header.generator,
            self.header.bound,
            self.header.schema,
        ]);
        for i in self.all_insts() {
            let inst = self.inst(i);
            out.push(((inst.word_count() as u32) << 16) | inst.opcode() as u32);
            out.extend_from_slice(&inst.words);
        }
        out
    }

    /// The module as bytes, in the byte order it was loaded from (little-endian for new modules).
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = self.to_words();
        let mut out = Vec::with_capacity(words.len() * 4);
        if self.header.big_endian {
            for w in words {
                out.extend_from_slice(&w.to_be_bytes());
            }
        } else {
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }
}
