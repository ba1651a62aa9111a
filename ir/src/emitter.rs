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
                f(self.blocks[b].label);
                let mut next = self.blocks[b].first;
                while let Some(i) = next {
                    f(i);
                    next = self.links[i].next;
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
        let mut out = Vec::with_capacity(self.word_estimate());
        out.extend_from_slice(&self.header_words());
        self.for_each_inst_in_order(|i| {
            let inst = self.inst(i);
            out.push(inst.first_word());
            out.extend_from_slice(&inst.words);
        });
        out
    }

    /// The module as bytes, in the byte order it was loaded from (little-endian for new modules).
    /// Written straight into the byte buffer: no intermediate word vector (on a large module
    /// that copy and its pages cost as much as the emission).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::with_capacity(self.word_estimate() * 4);
        let big_endian = self.header.big_endian;
        let mut put = |words: &[u32]| {
            if big_endian {
                for w in words {
                    out.extend_from_slice(&w.to_be_bytes());
                }
            } else {
                // SAFETY: any initialised `u32` slice is readable as bytes (4 per word, no
                // padding), and on a little-endian host (grammar.rs refuses to compile
                // otherwise) the in-memory bytes of the words are their little-endian encoding.
                out.extend_from_slice(unsafe {
                    std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 4)
                });
            }
        };
        put(&self.header_words());
        self.for_each_inst_in_order(|i| {
            let inst = self.inst(i);
            put(&[inst.first_word()]);
            put(&inst.words);
        });
        out
    }

    /// Writes the module's bytes (as [`Module::to_bytes`] makes them) to `out`, a block of
    /// instructions at a time: no copy of the whole output in memory.
    pub fn write_bytes(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        const BLOCK: usize = 1 << 16;
        let mut buf: Vec<u8> = Vec::with_capacity(BLOCK + 4 * 1024);
        let big_endian = self.header.big_endian;
        let put = |buf: &mut Vec<u8>, words: &[u32]| {
            for w in words {
                buf.extend_from_slice(&if big_endian {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                });
            }
        };
        put(&mut buf, &self.header_words());
        let mut result = Ok(());
        self.for_each_inst_in_order(|i| {
            if result.is_err() {
                return;
            }
            let inst = self.inst(i);
            put(&mut buf, &[inst.first_word()]);
            put(&mut buf, &inst.words);
            if buf.len() >= BLOCK {
                result = out.write_all(&buf);
                buf.clear();
            }
        });
        result?;
        out.write_all(&buf)
    }

    /// Capacity for the emitted words: the pool's length, which holds every live instruction's
    /// words (and those of erased or replaced ones: capacity never written costs no memory
    /// pages).
    fn word_estimate(&self) -> usize {
        self.pool.len() + 5
    }
}
