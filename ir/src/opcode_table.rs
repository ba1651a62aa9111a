//! Per-opcode facts computed on first use, one opcode at a time: a fresh process (a driver's
//! first JIT call) pays only for the opcodes its module has (a Triton GEMM: about 45) instead
//! of filling whole tables over the grammar's ~7,000 opcodes up front, which cost about
//! 2.4 M x86 instructions on the first `-O` call. The slots are `OnceLock`s in a static array
//! (zero-initialised memory: untouched slots cost no page).

use std::sync::OnceLock;

/// Opcodes below this get a slot; the rest (none the grammar knows) are computed each time.
pub const SLOTS: usize = 8192;

/// A value per opcode, computed on first use.
pub struct PerOpcode<T> {
    slots: [OnceLock<T>; SLOTS],
}

impl<T> PerOpcode<T> {
    /// An empty table (for a `static`).
    pub const fn new() -> PerOpcode<T> {
        PerOpcode {
            slots: [const { OnceLock::new() }; SLOTS],
        }
    }
}

impl<T: Copy> PerOpcode<T> {
    /// The value of `opcode`, computed by `compute` the first time it is asked for.
    #[inline]
    pub fn get(&self, opcode: u16, compute: impl FnOnce(u16) -> T) -> T {
        match self.slots.get(usize::from(opcode)) {
            Some(slot) => *slot.get_or_init(|| compute(opcode)),
            None => compute(opcode),
        }
    }
}

impl<T> Default for PerOpcode<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_once_per_opcode() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static T: PerOpcode<u32> = PerOpcode::new();
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let f = |op: u16| {
            CALLS.fetch_add(1, Ordering::Relaxed);
            u32::from(op) * 2
        };
        assert_eq!(T.get(7, f), 14);
        assert_eq!(T.get(7, f), 14);
        assert_eq!(T.get(9000, f), 18000);
        assert_eq!(T.get(9000, f), 18000);
        assert_eq!(
            CALLS.load(Ordering::Relaxed),
            3,
            "slot 7 once, 9000 (no slot) twice"
        );
    }
}
