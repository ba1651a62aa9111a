//! The opcode-class table: what kind of operation each opcode is, in one place for every analysis
//! and pass.
//!
//! Two sources:
//! - **Grammar facts**, generated from SPIRV-Headers (`ir/grammar/gen_grammar.py`): the grammar's
//!   instruction class ([`grammar_class`]: `Atomic`, `Barrier`, `Group`, …), which operands are
//!   ids ([`leading_id_operands`]) and where the execution / memory scope operands are
//!   ([`scope_operands`]).
//! - **Semantic classes**, kept by hand below ([`OpClass`]): facts the grammar does not state, such
//!   as "the result is a function of the operands alone" ([`OpClass::PURE`]) or "component k of
//!   the result depends only on component k of each operand" ([`OpClass::COMPONENTWISE`]).
//!
//! [`op_class`] is a table lookup (the table is built at compile time). The test
//! `ir/tests/opcode_class.rs` checks every opcode of the grammar against the hand-kept classes
//! (each class's opcodes have the grammar class and the result the class promises, and every
//! grammar opcode of the classes that are complete by construction is listed).
//!
//! The simulator (`sim/`) keeps its own semantics on purpose: it is the oracle the passes are
//! checked against, so it reads only the grammar facts.

use crate::grammar::{self, tables, GrammarClass, OperandKind, Quantifier};
use spirv::Op;

/// A set of semantic classes of an opcode (bit set). Combine with `|`, test with
/// [`OpClass::intersects`] / [`OpClass::contains`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpClass(u32);

impl OpClass {
    /// No class.
    pub const NONE: OpClass = OpClass(0);
    /// Integer arithmetic: `IAdd ISub IMul UDiv SDiv UMod SRem SMod SNegate`.
    pub const INTEGER_ARITHMETIC: OpClass = OpClass(1 << 0);
    /// Floating-point arithmetic: `FAdd FSub FMul FDiv FRem FMod FNegate`.
    pub const FLOAT_ARITHMETIC: OpClass = OpClass(1 << 1);
    /// Shifts and bitwise logic: `ShiftLeftLogical ShiftRight* Bitwise{And,Or,Xor} Not`.
    pub const BITWISE: OpClass = OpClass(1 << 2);
    /// Bit-field operations and bit counting: `BitFieldInsert BitField{S,U}Extract BitReverse
    /// BitCount`.
    pub const BIT_FIELD: OpClass = OpClass(1 << 3);
    /// Integer width changes: `UConvert SConvert`.
    pub const INTEGER_CONVERSION: OpClass = OpClass(1 << 4);
    /// Conversions between numeric types (includes [`OpClass::INTEGER_CONVERSION`]):
    /// `UConvert SConvert FConvert ConvertFToU ConvertFToS ConvertUToF ConvertSToF
    /// SatConvertSToU SatConvertUToS QuantizeToF16 ConvertFToBF16INTEL ConvertBF16ToFINTEL`.
    pub const NUMERIC_CONVERSION: OpClass = OpClass(1 << 5);
    /// Conversions from or to pointers: `ConvertPtrToU ConvertUToPtr PtrCastToGeneric
    /// GenericCastToPtr GenericCastToPtrExplicit`.
    pub const POINTER_CONVERSION: OpClass = OpClass(1 << 6);
    /// Integer comparisons: `IEqual INotEqual {U,S}{GreaterThan,LessThan}[Equal]`.
    pub const INTEGER_COMPARISON: OpClass = OpClass(1 << 7);
    /// Floating-point comparisons: `F{Ord,Unord}{Equal,NotEqual,LessThan,GreaterThan,…}`.
    pub const FLOAT_COMPARISON: OpClass = OpClass(1 << 8);
    /// Boolean logic: `LogicalAnd LogicalOr LogicalNot LogicalEqual LogicalNotEqual`.
    pub const LOGICAL: OpClass = OpClass(1 << 9);
    /// Floating-point tests: `IsNan IsInf IsFinite IsNormal SignBitSet LessOrGreater Ordered
    /// Unordered`.
    pub const FLOAT_TEST: OpClass = OpClass(1 << 10);
    /// Composite construction and access: `CompositeConstruct CompositeExtract CompositeInsert
    /// VectorShuffle VectorExtractDynamic VectorInsertDynamic CopyLogical`.
    pub const COMPOSITE: OpClass = OpClass(1 << 11);
    /// Address computations: `AccessChain InBoundsAccessChain PtrAccessChain
    /// InBoundsPtrAccessChain`.
    pub const ACCESS_CHAIN: OpClass = OpClass(1 << 12);
    /// Component k of the result depends only on component k of each operand (when the
    /// operands are vectors of the result's size): the arithmetic, bitwise, conversion,
    /// comparison, logical and floating-point test classes, `BitReverse` and `BitCount`.
    pub const COMPONENTWISE: OpClass = OpClass(1 << 13);
    /// The result is a function of the id operands alone: no memory access, no side effect, no
    /// dependence on the invocation or on where it executes (computing it elsewhere from the
    /// same operands gives the same value; divisions may still be undefined there, see
    /// [`OpClass::MAY_BE_UNDEFINED`]). Not `Phi`, `Variable`, `Undef` (see
    /// [`OpClass::REMOVABLE_IF_UNUSED`]).
    pub const PURE: OpClass = OpClass(1 << 14);
    /// Has no effect but its result: removing it when the result is unused changes nothing.
    /// [`OpClass::PURE`] plus `Undef Variable Phi ArrayLength`. (`Load` is removable only when
    /// not volatile, `ExtInst` depends on the instruction: decided by the caller.)
    pub const REMOVABLE_IF_UNUSED: OpClass = OpClass(1 << 15);
    /// Undefined for some operand values (division or remainder by zero): must not be executed
    /// speculatively. `UDiv SDiv UMod SRem SMod`.
    pub const MAY_BE_UNDEFINED: OpClass = OpClass(1 << 16);
    /// Atomics (the grammar's `Atomic` class): every `OpAtomic*`.
    pub const ATOMIC: OpClass = OpClass(1 << 17);
    /// Atomics that read, modify and write memory through their pointer (operand 0) and return
    /// the old value: every [`OpClass::ATOMIC`] but `AtomicLoad`, `AtomicStore`,
    /// `AtomicFlagClear`.
    pub const ATOMIC_RMW: OpClass = OpClass(1 << 18);
    /// Executed by a group of invocations together: every opcode of the grammar's `Group` and
    /// `Non-Uniform` classes (which include the subgroup KHR/INTEL extensions' shuffles, block IO,
    /// 2D block IO and MMA). Results may depend on other invocations.
    pub const COLLECTIVE: OpClass = OpClass(1 << 19);

    /// Whether every class of `other` is in `self`.
    pub const fn contains(self, other: OpClass) -> bool {
        self.0 & other.0 == other.0
    }
    /// Whether `self` and `other` share a class.
    pub const fn intersects(self, other: OpClass) -> bool {
        self.0 & other.0 != 0
    }
    /// The union of both sets.
    pub const fn union(self, other: OpClass) -> OpClass {
        OpClass(self.0 | other.0)
    }
}

impl std::ops::BitOr for OpClass {
    type Output = OpClass;
    fn bitor(self, rhs: OpClass) -> OpClass {
        self.union(rhs)
    }
}

use Op::*;

/// The hand-kept lists: each row gives opcodes and the classes they all belong to. The classes
/// that follow from others (COMPONENTWISE, PURE, REMOVABLE_IF_UNUSED) are given by the rows as
/// well, so one row says everything about its opcodes. COLLECTIVE comes from the grammar.
const ROWS: &[(&[Op], OpClass)] = {
    const VALUE: OpClass = OpClass::PURE.union(OpClass::REMOVABLE_IF_UNUSED);
    const ELEMENTWISE: OpClass = VALUE.union(OpClass::COMPONENTWISE);
    &[
        (
            &[IAdd, ISub, IMul, SNegate],
            OpClass::INTEGER_ARITHMETIC.union(ELEMENTWISE),
        ),
        (
            &[UDiv, SDiv, UMod, SRem, SMod],
            OpClass::INTEGER_ARITHMETIC
                .union(ELEMENTWISE)
                .union(OpClass::MAY_BE_UNDEFINED),
        ),
        (
            &[FAdd, FSub, FMul, FDiv, FRem, FMod, FNegate],
            OpClass::FLOAT_ARITHMETIC.union(ELEMENTWISE),
        ),
        // SPV_KHR_fma (grammar rev 7): a * b + c, rounded once, component by component.
        (&[FmaKHR], ELEMENTWISE),
        (
            &[
                ShiftLeftLogical,
                ShiftRightLogical,
                ShiftRightArithmetic,
                BitwiseAnd,
                BitwiseOr,
                BitwiseXor,
                Not,
            ],
            OpClass::BITWISE.union(ELEMENTWISE),
        ),
        (
            &[BitReverse, BitCount],
            OpClass::BIT_FIELD.union(ELEMENTWISE),
        ),
        (
            &[BitFieldInsert, BitFieldSExtract, BitFieldUExtract],
            OpClass::BIT_FIELD.union(VALUE),
        ),
        (
            &[UConvert, SConvert],
            OpClass::INTEGER_CONVERSION
                .union(OpClass::NUMERIC_CONVERSION)
                .union(ELEMENTWISE),
        ),
        (
            &[
                FConvert,
                ConvertFToU,
                ConvertFToS,
                ConvertUToF,
                ConvertSToF,
                SatConvertSToU,
                SatConvertUToS,
                QuantizeToF16,
                ConvertFToBF16INTEL,
                ConvertBF16ToFINTEL,
                RoundFToTF32INTEL,
            ],
            OpClass::NUMERIC_CONVERSION.union(ELEMENTWISE),
        ),
        (
            &[
                ConvertPtrToU,
                ConvertUToPtr,
                PtrCastToGeneric,
                GenericCastToPtr,
                GenericCastToPtrExplicit,
            ],
            OpClass::POINTER_CONVERSION.union(VALUE),
        ),
        (
            &[
                IEqual,
                INotEqual,
                UGreaterThan,
                SGreaterThan,
                UGreaterThanEqual,
                SGreaterThanEqual,
                ULessThan,
                SLessThan,
                ULessThanEqual,
                SLessThanEqual,
            ],
            OpClass::INTEGER_COMPARISON.union(ELEMENTWISE),
        ),
        (
            &[
                FOrdEqual,
                FUnordEqual,
                FOrdNotEqual,
                FUnordNotEqual,
                FOrdLessThan,
                FUnordLessThan,
                FOrdGreaterThan,
                FUnordGreaterThan,
                FOrdLessThanEqual,
                FUnordLessThanEqual,
                FOrdGreaterThanEqual,
                FUnordGreaterThanEqual,
            ],
            OpClass::FLOAT_COMPARISON.union(ELEMENTWISE),
        ),
        (
            &[
                LogicalEqual,
                LogicalNotEqual,
                LogicalOr,
                LogicalAnd,
                LogicalNot,
            ],
            OpClass::LOGICAL.union(ELEMENTWISE),
        ),
        (
            &[
                IsNan,
                IsInf,
                IsFinite,
                IsNormal,
                SignBitSet,
                LessOrGreater,
                Ordered,
                Unordered,
            ],
            OpClass::FLOAT_TEST.union(ELEMENTWISE),
        ),
        (
            &[
                CompositeConstruct,
                CompositeExtract,
                CompositeInsert,
                VectorShuffle,
                VectorExtractDynamic,
                VectorInsertDynamic,
                CopyLogical,
                CompositeConstructReplicateEXT,
            ],
            OpClass::COMPOSITE.union(VALUE),
        ),
        (
            &[
                AccessChain,
                InBoundsAccessChain,
                PtrAccessChain,
                InBoundsPtrAccessChain,
            ],
            OpClass::ACCESS_CHAIN.union(VALUE),
        ),
        (
            &[
                CopyObject,
                Select,
                Bitcast,
                Transpose,
                SampledImage,
                VectorTimesScalar,
                MatrixTimesScalar,
                VectorTimesMatrix,
                MatrixTimesVector,
                MatrixTimesMatrix,
                OuterProduct,
                Dot,
                IAddCarry,
                ISubBorrow,
                UMulExtended,
                SMulExtended,
                SDot,
                UDot,
                SUDot,
                SDotAccSat,
                UDotAccSat,
                SUDotAccSat,
                BitwiseFunctionINTEL,
                Any,
                All,
                PtrEqual,
                PtrNotEqual,
                PtrDiff,
                BitCastArrayQCOM,
                ExtractSubArrayQCOM,
            ],
            VALUE,
        ),
        (
            &[Undef, Variable, Phi, ArrayLength],
            OpClass::REMOVABLE_IF_UNUSED,
        ),
        (
            &[
                AtomicExchange,
                AtomicCompareExchange,
                AtomicCompareExchangeWeak,
                AtomicIIncrement,
                AtomicIDecrement,
                AtomicIAdd,
                AtomicISub,
                AtomicSMin,
                AtomicUMin,
                AtomicSMax,
                AtomicUMax,
                AtomicAnd,
                AtomicOr,
                AtomicXor,
                AtomicFlagTestAndSet,
                AtomicFAddEXT,
                AtomicFMinEXT,
                AtomicFMaxEXT,
            ],
            OpClass::ATOMIC.union(OpClass::ATOMIC_RMW),
        ),
        (&[AtomicLoad, AtomicStore, AtomicFlagClear], OpClass::ATOMIC),
    ]
};

/// One past the largest opcode the rows name (the table's length).
const TABLE_LEN: usize = {
    let mut max = 0;
    let mut r = 0;
    while r < ROWS.len() {
        let ops = ROWS[r].0;
        let mut k = 0;
        while k < ops.len() {
            if ops[k] as usize > max {
                max = ops[k] as usize;
            }
            k += 1;
        }
        r += 1;
    }
    max + 1
};

/// Classes per opcode, indexed by opcode (hand-kept rows only; grammar-derived classes are
/// added in [`op_class`]).
static TABLE: [OpClass; TABLE_LEN] = {
    let mut t = [OpClass::NONE; TABLE_LEN];
    let mut r = 0;
    while r < ROWS.len() {
        let (ops, class) = ROWS[r];
        let mut k = 0;
        while k < ops.len() {
            let i = ops[k] as usize;
            t[i] = t[i].union(class);
            k += 1;
        }
        r += 1;
    }
    t
};

/// The semantic classes of `op`: the hand-kept rows, plus [`OpClass::COLLECTIVE`] for every
/// opcode of the grammar's `Group` and `Non-Uniform` classes (one table lookup; the table is
/// completed from the grammar on first use).
#[inline]
pub fn op_class(op: Op) -> OpClass {
    static FULL: std::sync::OnceLock<Box<[OpClass]>> = std::sync::OnceLock::new();
    let full = FULL.get_or_init(|| {
        (0..tables::OPCODE_INDEX.len())
            .map(|o| {
                let hand = TABLE.get(o).copied().unwrap_or(OpClass::NONE);
                match grammar_class(o as u16) {
                    Some(GrammarClass::Group | GrammarClass::NonUniform) => {
                        hand | OpClass::COLLECTIVE
                    }
                    _ => hand,
                }
            })
            .collect()
    });
    full.get(op as usize).copied().unwrap_or(OpClass::NONE)
}

/// Whether `op` has any class of `class`.
#[inline]
pub fn is(op: Op, class: OpClass) -> bool {
    op_class(op).intersects(class)
}

/// Whether `op` orders memory or execution between invocations: a barrier of the grammar's
/// `Barrier` class (`OpControlBarrier`, `OpMemoryBarrier`, named barriers, the split barriers'
/// arrive and wait) or any atomic (its memory semantics may acquire or release). Moving a
/// memory access across one can change what it observes of other invocations' accesses.
pub fn synchronizes(op: Op) -> bool {
    is(op, OpClass::ATOMIC) || grammar_class(op as u16) == Some(GrammarClass::Barrier)
}

/// The grammar's instruction class of `opcode` (`None` for opcodes the grammar does not know).
pub fn grammar_class(opcode: u16) -> Option<GrammarClass> {
    let i = *tables::OPCODE_INDEX.get(opcode as usize)?;
    tables::INST_CLASSES.get(i as usize).copied()
}

/// Positions of the scope operands of an instruction, as operand indices after the result type
/// and result id (`Inst::operands()` indices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeOperands {
    /// The `Execution` scope: which invocations execute it together.
    pub execution: Option<usize>,
    /// The `Memory` scope: which invocations its memory effects are ordered for.
    pub memory: Option<usize>,
}

/// Where the execution and memory scope operands of `opcode` are, from the grammar (type
/// declarations, whose scope is part of the type, have none).
pub fn scope_operands(opcode: u16) -> ScopeOperands {
    let pos = |p: u8| (p != u8::MAX).then_some(p as usize);
    match tables::SCOPE_OPERANDS.binary_search_by_key(&opcode, |&(op, _, _)| op) {
        Ok(i) => {
            let (_, execution, memory) = tables::SCOPE_OPERANDS[i];
            ScopeOperands {
                execution: pos(execution),
                memory: pos(memory),
            }
        }
        Err(_) => ScopeOperands::default(),
    }
}

/// How many operands (after the result type and result id) are ids before the first literal:
/// `usize::MAX` when every operand is an id (also for a repeated id operand), 0 for opcodes the
/// grammar does not know. `CompositeExtract` 1, `CompositeInsert` and `VectorShuffle` 2,
/// `IAdd` and `AccessChain` all.
pub fn leading_id_operands(opcode: u16) -> usize {
    let Some(desc) = grammar::inst_desc(opcode) else {
        return 0;
    };
    let mut n = 0;
    for (kind, quantifier) in desc.operands {
        match kind {
            OperandKind::ResultType | OperandKind::Result => {}
            OperandKind::Id if *quantifier == Quantifier::One => n += 1,
            OperandKind::Id => return usize::MAX,
            _ => return n,
        }
    }
    usize::MAX
}

/// `OpPredicatedLoadINTEL` (SPV_INTEL_predicated_io): result type, result, pointer, predicate,
/// default value, optional memory operands. Not in the `spirv` crate's `Op` (grammar rev 7 only).
pub const OP_PREDICATED_LOAD_INTEL: u16 = 6258;
/// `OpPredicatedStoreINTEL` (SPV_INTEL_predicated_io): pointer, object, predicate, optional
/// memory operands.
pub const OP_PREDICATED_STORE_INTEL: u16 = 6259;
/// The `PredicatedIOINTEL` capability both need.
pub const CAPABILITY_PREDICATED_IO_INTEL: u32 = 6257;

/// Whether a plain memory access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessDirection {
    /// A load (of the pointee through the pointer).
    Read,
    /// A store.
    Write,
}

/// Where the operands of a load or store are (`Inst::operands()` indices, after the result type
/// and result id): `OpLoad`, `OpStore` and their predicated forms. One access of the pointer's
/// pointee type through one pointer, so alias analysis, uniformity and dce treat the predicated
/// forms as the plain ones (plus the predicate and, for a load, the default value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadStore {
    /// Read or write.
    pub direction: AccessDirection,
    /// The pointer operand (always 0).
    pub pointer: usize,
    /// The stored object (stores only).
    pub object: Option<usize>,
    /// The predicate (predicated forms only): when false, nothing is accessed.
    pub predicate: Option<usize>,
    /// The value a predicated load returns when its predicate is false.
    pub default: Option<usize>,
    /// Where the optional memory operands (`MemoryAccess` mask then its parameters) start.
    pub memory_operands: usize,
}

impl LoadStore {
    /// Whether the access is volatile (memory operand mask bit 0) in `operands`.
    pub fn is_volatile(&self, operands: &[u32]) -> bool {
        operands
            .get(self.memory_operands)
            .is_some_and(|mask| mask & spirv::MemoryAccess::VOLATILE.bits() != 0)
    }
}

/// The operand layout of a plain or predicated load or store (`None` for any other opcode; atomics,
/// copies and block IO are not plain accesses).
pub fn load_store(opcode: u16) -> Option<LoadStore> {
    let (direction, object, predicate, default, memory_operands) = match opcode {
        o if o == Op::Load as u16 => (AccessDirection::Read, None, None, None, 1),
        o if o == Op::Store as u16 => (AccessDirection::Write, Some(1), None, None, 2),
        OP_PREDICATED_LOAD_INTEL => (AccessDirection::Read, None, Some(1), Some(2), 3),
        OP_PREDICATED_STORE_INTEL => (AccessDirection::Write, Some(1), Some(2), None, 3),
        _ => return None,
    };
    Some(LoadStore {
        direction,
        pointer: 0,
        object,
        predicate,
        default,
        memory_operands,
    })
}
