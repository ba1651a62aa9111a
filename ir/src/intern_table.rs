//! A module's table of its types and constants by value (the data [`crate::Interner`] reads
//! and extends; its code is in [`crate::interning`]), and which opcodes are interned. Apart,
//! so that the module can hold the table without depending on the interner.

use std::collections::HashMap;

use smallvec::SmallVec;
use spirv::Op;

use crate::id::Id;

/// Opcode and words (result type included for constants) of an interned declaration.
pub(crate) type Key = (u16, SmallVec<[u32; 6]>);

/// A module's interning table: what [`crate::Interner`] reads and extends.
#[derive(Clone, Debug, Default)]
pub(crate) struct InternTable {
    pub(crate) map: HashMap<Key, Id>,
    /// Entries of the global section scanned so far.
    pub(crate) scanned: usize,
}

impl InternTable {
    /// Forgets everything: the next use scans the global section again.
    pub(crate) fn invalidate(&mut self) {
        self.map.clear();
        self.scanned = 0;
    }
}

/// Whether instructions of `op` are interned: types and constants that are equal exactly when
/// their opcode and operands are (so two such declarations with equal words may be merged).
pub fn is_internable(op: Option<Op>) -> bool {
    use Op::*;
    matches!(
        op,
        Some(
            TypeVoid
                | TypeBool
                | TypeInt
                | TypeFloat
                | TypeVector
                | TypeMatrix
                | TypeArray
                | TypeRuntimeArray
                | TypePointer
                | TypeFunction
                | TypeEvent
                | TypeDeviceEvent
                | TypeReserveId
                | TypeQueue
                | TypePipe
                | TypeSampler
                | TypeCooperativeMatrixKHR
                | ConstantTrue
                | ConstantFalse
                | Constant
                | ConstantComposite
                | ConstantNull
        )
    )
}
