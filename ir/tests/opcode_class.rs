//! The opcode-class table (`spvopt_ir::opcode_class`) checked against the SPIR-V grammar for
//! every opcode: each hand-kept class holds only opcodes of the grammar class it belongs to, with
//! the results it promises; the classes that must be complete list every opcode of their grammar
//! classes; the grammar-derived scope operands point at id operands.

use spvopt_ir::grammar::{inst_desc, GrammarClass, InstDesc, OperandKind};
use spvopt_ir::opcode_class::{
    grammar_class, leading_id_operands, op_class, scope_operands, OpClass,
};
use spvopt_ir::spirv::Op;

/// Every opcode the grammar knows, with its description and `spirv::Op`.
fn grammar_opcodes() -> Vec<(u16, &'static InstDesc, Option<Op>)> {
    (0..=u16::MAX)
        .filter_map(|o| inst_desc(o).map(|d| (o, d, Op::from_u32(o as u32))))
        .collect()
}

/// Whether `class` (one class) admits an opcode of grammar class `g`.
fn expected_grammar_classes(class: OpClass) -> &'static [GrammarClass] {
    use GrammarClass as G;
    match class {
        OpClass::INTEGER_ARITHMETIC | OpClass::FLOAT_ARITHMETIC => &[G::Arithmetic],
        OpClass::BITWISE | OpClass::BIT_FIELD => &[G::Bit],
        OpClass::INTEGER_CONVERSION | OpClass::NUMERIC_CONVERSION => &[G::Conversion],
        OpClass::POINTER_CONVERSION => &[G::Conversion],
        OpClass::INTEGER_COMPARISON
        | OpClass::FLOAT_COMPARISON
        | OpClass::LOGICAL
        | OpClass::FLOAT_TEST => &[G::RelationalAndLogical],
        OpClass::COMPOSITE => &[G::Composite],
        OpClass::ACCESS_CHAIN => &[G::Memory],
        OpClass::ATOMIC | OpClass::ATOMIC_RMW => &[G::Atomic],
        OpClass::COLLECTIVE => &[G::Group, G::NonUniform],
        _ => unreachable!(),
    }
}

const SINGLE_CLASSES: [OpClass; 15] = [
    OpClass::INTEGER_ARITHMETIC,
    OpClass::FLOAT_ARITHMETIC,
    OpClass::BITWISE,
    OpClass::BIT_FIELD,
    OpClass::INTEGER_CONVERSION,
    OpClass::NUMERIC_CONVERSION,
    OpClass::POINTER_CONVERSION,
    OpClass::INTEGER_COMPARISON,
    OpClass::FLOAT_COMPARISON,
    OpClass::LOGICAL,
    OpClass::FLOAT_TEST,
    OpClass::COMPOSITE,
    OpClass::ACCESS_CHAIN,
    OpClass::ATOMIC,
    OpClass::ATOMIC_RMW,
];

#[test]
fn every_classified_opcode_is_in_the_grammar_with_the_promised_shape() {
    let known: std::collections::HashSet<u16> =
        grammar_opcodes().iter().map(|&(o, _, _)| o).collect();
    for o in 0..=u16::MAX {
        let Some(op) = Op::from_u32(o as u32) else {
            continue;
        };
        let c = op_class(op);
        if c == OpClass::NONE {
            continue;
        }
        assert!(
            known.contains(&o),
            "{op:?} is classified but not in the grammar"
        );
        let d = inst_desc(o).unwrap();
        let g = grammar_class(o).unwrap();
        for single in SINGLE_CLASSES {
            if c.contains(single) {
                assert!(
                    expected_grammar_classes(single).contains(&g),
                    "{op:?} ({g:?}) in {single:?}"
                );
            }
        }
        if c.intersects(OpClass::REMOVABLE_IF_UNUSED | OpClass::ATOMIC_RMW) {
            assert!(d.has_result(), "{op:?} has no result");
        }
        if c.contains(OpClass::COMPONENTWISE) {
            assert!(c.contains(OpClass::PURE), "{op:?} componentwise, not pure");
        }
        if c.contains(OpClass::PURE) {
            assert!(
                c.contains(OpClass::REMOVABLE_IF_UNUSED),
                "{op:?} pure, not removable"
            );
            assert!(
                !c.intersects(OpClass::ATOMIC | OpClass::COLLECTIVE),
                "{op:?} pure and atomic/collective"
            );
        }
        if c.contains(OpClass::MAY_BE_UNDEFINED) {
            assert!(c.contains(OpClass::INTEGER_ARITHMETIC), "{op:?}");
        }
        if c.contains(OpClass::INTEGER_CONVERSION) {
            assert!(c.contains(OpClass::NUMERIC_CONVERSION), "{op:?}");
        }
    }
}

#[test]
fn complete_classes_hold_every_opcode_of_their_grammar_classes() {
    use GrammarClass as G;
    // Whole-matrix operations on cooperative matrices (held by the whole scope, converted by
    // their own pass), the one instruction that is only a continuation of another, and
    // SPV_INTEL_function_variants' copy whose value depends on the specialization target.
    let not_pure = [
        "OpCompositeConstructCoopMatQCOM",
        "OpCompositeExtractCoopMatQCOM",
        "OpConditionalCopyObjectINTEL",
        "OpCooperativeMatrixMulAddKHR",
        "OpCooperativeMatrixReduceEXT",
        "OpCooperativeMatrixConvertUseEXT",
        "OpCooperativeMatrixTransposeNV",
        "OpCompositeConstructContinuedINTEL",
    ];
    for (o, d, op) in grammar_opcodes() {
        let Some(op) = op else { continue };
        let c = op_class(op);
        let g = grammar_class(o).unwrap();
        // Atomics: exactly the grammar's Atomic class; RMW = all but load, store, flag clear.
        assert_eq!(c.contains(OpClass::ATOMIC), g == G::Atomic, "{}", d.name);
        if g == G::Atomic {
            let plain = matches!(op, Op::AtomicLoad | Op::AtomicStore | Op::AtomicFlagClear);
            assert_eq!(c.contains(OpClass::ATOMIC_RMW), !plain, "{}", d.name);
        }
        assert_eq!(
            c.contains(OpClass::COLLECTIVE),
            matches!(g, G::Group | G::NonUniform),
            "{}",
            d.name
        );
        let value_class = matches!(
            g,
            G::Arithmetic | G::Bit | G::Conversion | G::RelationalAndLogical | G::Composite
        );
        if value_class && !not_pure.contains(&d.name) {
            assert!(c.contains(OpClass::PURE), "{} ({g:?}) is not PURE", d.name);
        }
    }
}

#[test]
fn scope_operands_are_id_operands_named_by_the_grammar() {
    for (o, d, _) in grammar_opcodes() {
        let s = scope_operands(o);
        let ids: Vec<bool> = d
            .operands
            .iter()
            .filter(|(k, _)| !matches!(k, OperandKind::ResultType | OperandKind::Result))
            .map(|(k, _)| *k == OperandKind::Id)
            .collect();
        for p in [s.execution, s.memory].into_iter().flatten() {
            assert!(ids.get(p) == Some(&true), "{}: scope at {p}", d.name);
        }
    }
    let s = |op: Op| {
        let s = scope_operands(op as u16);
        (s.execution, s.memory)
    };
    assert_eq!(s(Op::ControlBarrier), (Some(0), Some(1)));
    assert_eq!(s(Op::MemoryBarrier), (None, Some(0)));
    assert_eq!(s(Op::AtomicStore), (None, Some(1)));
    assert_eq!(s(Op::AtomicIAdd), (None, Some(1)));
    assert_eq!(s(Op::GroupNonUniformShuffle), (Some(0), None));
    assert_eq!(s(Op::GroupAsyncCopy), (Some(0), None));
    // A type's scope is part of the type, not an operation's scope.
    assert_eq!(s(Op::TypeCooperativeMatrixKHR), (None, None));
    assert_eq!(s(Op::IAdd), (None, None));
}

#[test]
fn leading_id_operands_stop_at_the_first_literal() {
    assert_eq!(leading_id_operands(Op::CompositeExtract as u16), 1);
    assert_eq!(leading_id_operands(Op::CompositeInsert as u16), 2);
    assert_eq!(leading_id_operands(Op::VectorShuffle as u16), 2);
    assert_eq!(leading_id_operands(Op::GenericCastToPtrExplicit as u16), 1);
    assert_eq!(leading_id_operands(Op::IAdd as u16), usize::MAX);
    assert_eq!(leading_id_operands(Op::AccessChain as u16), usize::MAX);
    assert_eq!(
        leading_id_operands(Op::CompositeConstruct as u16),
        usize::MAX
    );
    assert_eq!(leading_id_operands(u16::MAX), 0);
}

#[test]
fn load_store_layouts_match_the_grammar() {
    use spvopt_ir::grammar::Quantifier;
    use spvopt_ir::opcode_class::{
        load_store, AccessDirection, OP_PREDICATED_LOAD_INTEL, OP_PREDICATED_STORE_INTEL,
    };
    let cases = [
        (Op::Load as u16, "OpLoad", AccessDirection::Read),
        (Op::Store as u16, "OpStore", AccessDirection::Write),
        (
            OP_PREDICATED_LOAD_INTEL,
            "OpPredicatedLoadINTEL",
            AccessDirection::Read,
        ),
        (
            OP_PREDICATED_STORE_INTEL,
            "OpPredicatedStoreINTEL",
            AccessDirection::Write,
        ),
    ];
    for (opcode, name, direction) in cases {
        let d = inst_desc(opcode).unwrap_or_else(|| panic!("{name} not in the grammar"));
        assert_eq!(d.name, name);
        let ls = load_store(opcode).unwrap();
        assert_eq!(ls.direction, direction, "{name}");
        assert_eq!(d.has_result(), direction == AccessDirection::Read, "{name}");
        // Operands after the result type and result id.
        let ops: Vec<_> = d
            .operands
            .iter()
            .filter(|(k, _)| !matches!(k, OperandKind::ResultType | OperandKind::Result))
            .collect();
        let ids = [Some(ls.pointer), ls.object, ls.predicate, ls.default];
        for k in ids.into_iter().flatten() {
            assert_eq!(
                *ops[k],
                (OperandKind::Id, Quantifier::One),
                "{name} operand {k}"
            );
        }
        let n_ids = ids.iter().flatten().count();
        assert_eq!(
            ls.memory_operands, n_ids,
            "{name}: memory operands follow the ids"
        );
        assert!(
            matches!(
                ops[ls.memory_operands],
                (OperandKind::BitEnum(_), Quantifier::Optional)
            ),
            "{name}: optional MemoryAccess last"
        );
        assert_eq!(ops.len(), n_ids + 1, "{name}");
    }
    // Every other opcode is not a plain access.
    let others = (0..=u16::MAX).filter(|&o| load_store(o).is_some()).count();
    assert_eq!(others, cases.len());
}
