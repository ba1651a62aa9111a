//! Ordinary memory traffic: the messages, bytes and 64-byte lines of every executed load, store
//! and atomic, per storage class ([`MemoryTraffic`], `Counters::memory`), so kernels that stage
//! data through memory and kernels that use 2D block IO compare on one footing.
//!
//! **Message.** A subgroup executes SIMT-style (`exec.rs`): all its active invocations execute an
//! instruction together, in one step under the active mask. A message is one such step of a
//! memory instruction: one per subgroup per executed instruction with at least one invocation
//! active, as the hardware issues one send per SIMD instruction. Invocations that reach the
//! instruction apart (on two paths of a divergent branch, before they reconverge) execute it in
//! two steps and count two messages. The schedule is fixed (work-groups in order, then a
//! work-group's subgroups in order, each until its next barrier), so the counts are
//! deterministic.
//!
//! **Bytes**: the bytes accessed, summed over the active invocations. **Lines**: the distinct
//! 64-byte-aligned lines the active invocations' accesses cover in one message, summed over
//! messages (the cache-line / transaction measure: 16 invocations reading consecutive `float`s
//! from a 64-byte-aligned address are 1 message, 64 bytes, 1 line; at a 64-byte stride, 16 lines).
//!
//! **What counts.** Loads: `OpLoad`, `vload*`, the source of `OpCopyMemory(Sized)`, 1D subgroup
//! block reads (one message for the whole block; also counted in `block_reads_1d`). Stores:
//! `OpStore`, `vstore*`, the destination of `OpCopyMemory(Sized)`, the pointer results of `modf`,
//! `fract`, `frexp`, `remquo`, `sincos`, `OpVariable` initializers, 1D subgroup block writes (also
//! in `block_writes_1d`). Atomics: every `OpAtomic*` instruction, `OpAtomicLoad` and
//! `OpAtomicStore` included (one message, the bytes of the operand). Not counted here: 2D block
//! loads/stores/prefetches (`block2d`), 1D prefetches, cooperative-matrix and tensor loads and
//! stores, reads of built-in `Input` variables (registers on the hardware), and the private
//! memory through which builtin-call 2D block loads and stores pass their data.
//!
//! **Storage class**, from the pointer's type: `CrossWorkgroup` (and `StorageBuffer`,
//! `PhysicalStorageBuffer`, `Uniform`, `DeviceOnlyINTEL`, `HostOnlyINTEL`) → global, `Workgroup` →
//! local, `Function` / `Private` → private, `UniformConstant` / `PushConstant` → constant.
//! `Generic` (and any other class) is resolved per invocation by the allocation its address is in
//! (a buffer argument → global, local memory → local, a Function / Private variable → private,
//! module constants → constant), else counted as generic; a message whose invocations reach two
//! classes counts one message in each.
//!
//! Cost: per invocation one or two pushes into a reused buffer (line address with the class in its
//! low bits), per message a sort of those few entries; no allocation once the buffer has grown.

use serde::Serialize;
use spvopt_ir::spirv::StorageClass;

use crate::memory::AllocKind;

/// Bytes in a line, the unit of [`AccessCount::lines`].
pub const LINE_BYTES: u64 = 64;

/// The storage classes traffic is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemClass {
    Global = 0,
    Local = 1,
    Private = 2,
    Constant = 3,
    Generic = 4,
}

impl MemClass {
    pub const ALL: [MemClass; 5] = [
        MemClass::Global,
        MemClass::Local,
        MemClass::Private,
        MemClass::Constant,
        MemClass::Generic,
    ];

    /// Its name in counters (`global`, `local`, `private`, `constant`, `generic`).
    pub fn name(self) -> &'static str {
        match self {
            MemClass::Global => "global",
            MemClass::Local => "local",
            MemClass::Private => "private",
            MemClass::Constant => "constant",
            MemClass::Generic => "generic",
        }
    }

    /// The class of memory in an allocation of `kind`; `None` (no allocation) is generic.
    pub fn of_alloc(kind: Option<AllocKind>) -> MemClass {
        match kind {
            Some(AllocKind::Global { .. }) => MemClass::Global,
            Some(AllocKind::Local { .. }) => MemClass::Local,
            Some(AllocKind::Private) => MemClass::Private,
            Some(AllocKind::Constant) => MemClass::Constant,
            None => MemClass::Generic,
        }
    }
}

/// How accesses through a pointer of one storage class are classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtrClass {
    /// Always this class.
    Fixed(MemClass),
    /// By the allocation each invocation's address is in (`Generic` pointers).
    ByTarget,
    /// Not memory traffic (built-in `Input` variables).
    Uncounted,
}

impl PtrClass {
    /// The classification of a pointer type's storage class (a SPIR-V `StorageClass` word).
    pub fn of_storage(storage: u32) -> PtrClass {
        use StorageClass as S;
        let fixed = PtrClass::Fixed;
        match storage {
            s if s == S::CrossWorkgroup as u32
                || s == S::StorageBuffer as u32
                || s == S::PhysicalStorageBuffer as u32
                || s == S::Uniform as u32
                || s == S::DeviceOnlyINTEL as u32
                || s == S::HostOnlyINTEL as u32 =>
            {
                fixed(MemClass::Global)
            }
            s if s == S::Workgroup as u32 => fixed(MemClass::Local),
            s if s == S::Function as u32 || s == S::Private as u32 => fixed(MemClass::Private),
            s if s == S::UniformConstant as u32 || s == S::PushConstant as u32 => {
                fixed(MemClass::Constant)
            }
            s if s == S::Input as u32 => PtrClass::Uncounted,
            _ => PtrClass::ByTarget,
        }
    }
}

/// Kinds of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
    Atomic,
}

/// Messages, bytes and lines of one kind of access to one storage class.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct AccessCount {
    /// One per subgroup per executed instruction (see the module comment).
    pub messages: u64,
    /// Bytes accessed, summed over the active invocations.
    pub bytes: u64,
    /// Distinct 64-byte lines per message, summed over messages.
    pub lines: u64,
}

impl AccessCount {
    fn add(&mut self, o: &AccessCount) {
        self.messages += o.messages;
        self.bytes += o.bytes;
        self.lines += o.lines;
    }
}

/// The traffic of one storage class.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ClassTraffic {
    pub load: AccessCount,
    pub store: AccessCount,
    pub atomic: AccessCount,
}

impl ClassTraffic {
    /// Load, store and atomic counts added up.
    pub fn all(&self) -> AccessCount {
        let mut a = self.load;
        a.add(&self.store);
        a.add(&self.atomic);
        a
    }

    fn get_mut(&mut self, access: Access) -> &mut AccessCount {
        match access {
            Access::Load => &mut self.load,
            Access::Store => &mut self.store,
            Access::Atomic => &mut self.atomic,
        }
    }

    fn add(&mut self, o: &ClassTraffic) {
        self.load.add(&o.load);
        self.store.add(&o.store);
        self.atomic.add(&o.atomic);
    }
}

/// Ordinary memory traffic per storage class (`Counters::memory`).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct MemoryTraffic {
    /// `CrossWorkgroup` and the other global-memory classes.
    pub global: ClassTraffic,
    /// `Workgroup` (shared local memory).
    pub local: ClassTraffic,
    /// `Function` and `Private`.
    pub private: ClassTraffic,
    /// `UniformConstant`.
    pub constant: ClassTraffic,
    /// `Generic` pointers whose address is in no allocation the simulator can name.
    pub generic: ClassTraffic,
}

impl MemoryTraffic {
    pub fn class(&self, c: MemClass) -> &ClassTraffic {
        match c {
            MemClass::Global => &self.global,
            MemClass::Local => &self.local,
            MemClass::Private => &self.private,
            MemClass::Constant => &self.constant,
            MemClass::Generic => &self.generic,
        }
    }

    fn class_mut(&mut self, c: MemClass) -> &mut ClassTraffic {
        match c {
            MemClass::Global => &mut self.global,
            MemClass::Local => &mut self.local,
            MemClass::Private => &mut self.private,
            MemClass::Constant => &mut self.constant,
            MemClass::Generic => &mut self.generic,
        }
    }

    /// Every class added up.
    pub fn total(&self) -> ClassTraffic {
        let mut t = ClassTraffic::default();
        for c in MemClass::ALL {
            t.add(self.class(c));
        }
        t
    }
}

/// The invocations' accesses of one message, collected before it is counted. Reused from
/// message to message (cleared, not freed).
#[derive(Debug, Default)]
pub struct Message {
    /// Per invocation and line it touches: the line's address with the class in the low bits
    /// (not deduplicated).
    lines: Vec<u64>,
    bytes: [u64; 5],
    /// Bit `c`: some invocation accessed class `c`.
    present: u8,
}

impl Message {
    /// Starts a new message.
    #[inline]
    pub fn clear(&mut self) {
        self.lines.clear();
        self.bytes = [0; 5];
        self.present = 0;
    }

    /// One invocation's access of `len` bytes at `addr` in class `c`.
    #[inline]
    pub fn add(&mut self, c: MemClass, addr: u64, len: u64) {
        let k = c as usize;
        self.present |= 1 << k;
        self.bytes[k] += len;
        if len == 0 {
            return;
        }
        let first = addr & !(LINE_BYTES - 1);
        let last = addr.saturating_add(len - 1) & !(LINE_BYTES - 1);
        let mut line = first;
        loop {
            self.lines.push(line | k as u64);
            if line >= last {
                break;
            }
            line += LINE_BYTES;
        }
    }

    /// Counts the collected message as `access` into `into` (one message per class touched)
    /// and clears it.
    pub fn finish(&mut self, access: Access, into: &mut MemoryTraffic) {
        if self.present == 0 {
            return;
        }
        self.lines.sort_unstable();
        self.lines.dedup();
        let mut lines = [0u64; 5];
        for &l in &self.lines {
            lines[(l & (LINE_BYTES - 1)) as usize] += 1;
        }
        for c in MemClass::ALL {
            let k = c as usize;
            if self.present >> k & 1 == 1 {
                let a = into.class_mut(c).get_mut(access);
                a.messages += 1;
                a.bytes += self.bytes[k];
                a.lines += lines[k];
            }
        }
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(access: Access, accesses: &[(MemClass, u64, u64)]) -> MemoryTraffic {
        let mut m = Message::default();
        let mut t = MemoryTraffic::default();
        for &(c, a, n) in accesses {
            m.add(c, a, n);
        }
        m.finish(access, &mut t);
        t
    }

    #[test]
    fn consecutive_floats_are_one_line() {
        let acc: Vec<_> = (0..16)
            .map(|i| (MemClass::Global, 0x1000 + 4 * i, 4))
            .collect();
        let t = one(Access::Load, &acc);
        let want = AccessCount {
            messages: 1,
            bytes: 64,
            lines: 1,
        };
        assert_eq!(t.global.load, want);
        assert_eq!(t.global.store, AccessCount::default());
        assert_eq!(t.total().all(), want);
    }

    #[test]
    fn strided_and_straddling_accesses() {
        let acc: Vec<_> = (0..16)
            .map(|i| (MemClass::Local, 0x1000 + 64 * i, 4))
            .collect();
        assert_eq!(one(Access::Store, &acc).local.store.lines, 16);
        // 8 bytes at 60 straddle two lines; the second access repeats line 64
        let t = one(
            Access::Load,
            &[(MemClass::Private, 60, 8), (MemClass::Private, 64, 4)],
        );
        assert_eq!(
            t.private.load,
            AccessCount {
                messages: 1,
                bytes: 12,
                lines: 2
            }
        );
    }

    #[test]
    fn a_message_reaching_two_classes_counts_in_each() {
        let t = one(
            Access::Atomic,
            &[
                (MemClass::Global, 0x1000, 4),
                (MemClass::Local, 0x1000, 4),
                (MemClass::Global, 0x1004, 4),
            ],
        );
        assert_eq!((t.global.atomic.messages, t.global.atomic.lines), (1, 1));
        assert_eq!((t.local.atomic.messages, t.local.atomic.bytes), (1, 4));
        assert_eq!(t.total().all().messages, 2);
        // nothing collected: no message
        assert_eq!(one(Access::Load, &[]), MemoryTraffic::default());
    }

    #[test]
    fn storage_classes() {
        use StorageClass as S;
        let of = |s: S| PtrClass::of_storage(s as u32);
        assert_eq!(of(S::CrossWorkgroup), PtrClass::Fixed(MemClass::Global));
        assert_eq!(of(S::Workgroup), PtrClass::Fixed(MemClass::Local));
        assert_eq!(of(S::Function), PtrClass::Fixed(MemClass::Private));
        assert_eq!(of(S::Private), PtrClass::Fixed(MemClass::Private));
        assert_eq!(of(S::UniformConstant), PtrClass::Fixed(MemClass::Constant));
        assert_eq!(of(S::Generic), PtrClass::ByTarget);
        assert_eq!(of(S::Input), PtrClass::Uncounted);
        assert_eq!(
            MemClass::of_alloc(Some(AllocKind::Local { group: 0 })),
            MemClass::Local
        );
        assert_eq!(MemClass::of_alloc(None), MemClass::Generic);
    }
}
