//! Built-in Input variables and the entry points' interfaces: the variable of a built-in
//! (found or created, decorated `BuiltIn`, listed in every entry point's interface, as SPIR-V
//! 1.4 requires of every global an entry point uses), the subgroup lane's in particular.

use spirv::Op;
use spvopt_ir::{Id, Inst, Interner, Module, Section};

/// The `SubgroupLocalInvocationId` Input variable, created if missing, and listed in every
/// entry point's interface.
pub fn lane_variable(m: &mut Module, types: &mut Interner) -> Id {
    let builtin = spirv::Decoration::BuiltIn as u32;
    let lid = spirv::BuiltIn::SubgroupLocalInvocationId as u32;
    let found = m
        .section_insts(Section::Annotation)
        .filter(|(_, d)| d.is(Op::Decorate))
        .find(|(_, d)| d.operand_word(1) == Some(builtin) && d.operand_word(2) == Some(lid))
        .and_then(|(_, d)| d.operand_id(0))
        .filter(|&v| m.def_inst(v).is_some_and(|i| i.is(Op::Variable)));
    builtin_input_variable(
        m,
        types,
        spirv::BuiltIn::SubgroupLocalInvocationId,
        |m, types| types.int(m, 32),
        found,
    )
}

/// The Input variable of built-in `b`: `existing` when given, else a new variable of the value
/// type `ty` makes, decorated `BuiltIn b`; either way listed in every entry point's interface (Input
/// variables belong to it in every SPIR-V version).
pub fn builtin_input_variable(
    m: &mut spvopt_ir::Module,
    types: &mut spvopt_ir::Interner,
    b: spirv::BuiltIn,
    ty: impl FnOnce(&mut spvopt_ir::Module, &mut spvopt_ir::Interner) -> spvopt_ir::Id,
    existing: Option<spvopt_ir::Id>,
) -> spvopt_ir::Id {
    use spirv::StorageClass;
    use spvopt_ir::{InstId, Section};
    let var = match existing {
        Some(v) => v,
        None => {
            let ty = ty(m, types);
            let pt = types.pointer(m, StorageClass::Input, ty);
            let v = m.fresh_id();
            m.push_to_section(
                Section::Global,
                Inst::new(
                    Op::Variable,
                    Some(pt),
                    Some(v),
                    &[StorageClass::Input as u32],
                ),
            );
            m.push_to_section(
                Section::Annotation,
                Inst::new(
                    Op::Decorate,
                    None,
                    None,
                    &[v.word(), spirv::Decoration::BuiltIn as u32, b as u32],
                ),
            );
            v
        }
    };
    let eps: Vec<InstId> = m.section(Section::EntryPoint).to_vec();
    for e in eps {
        let inst = m.inst(e);
        if !inst.is(Op::EntryPoint) {
            continue;
        }
        let ops = inst.operands();
        let i = interface_start(ops);
        if ops[i..].contains(&var.word()) {
            continue;
        }
        let mut words = ops.to_vec();
        words.push(var.word());
        m.replace_inst(e, Inst::new(Op::EntryPoint, None, None, &words));
    }
    var
}

/// Index of the first interface operand of `OpEntryPoint` (after model, function, name).
pub fn interface_start(ops: &[u32]) -> usize {
    let mut i = 2;
    while i < ops.len() {
        let w = ops[i];
        i += 1;
        if w.to_le_bytes().contains(&0) {
            break;
        }
    }
    i.min(ops.len())
}
