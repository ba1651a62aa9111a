//! The interning table lives in the module and is kept across passes (every `Interner`
//! handle sees the same one): what is appended to the global section by other means is found,
//! an entry made stale by an in-place edit or a removal is never returned, and `find` sees
//! what was appended since the table's last use.

use spvopt_ir::spirv::Op;
use spvopt_ir::{Inst, Interner, Module, Section};

fn globals(m: &Module) -> usize {
    m.section(Section::Global).len()
}

#[test]
fn handles_share_the_module_table() {
    let mut m = Module::new(0x0001_0400);
    let a = Interner::default().int(&mut m, 32);
    let n = globals(&m);
    let b = Interner::default().int(&mut m, 32);
    assert_eq!(a, b);
    assert_eq!(globals(&m), n, "no second OpTypeInt 32");
    let c = Interner::default().u32_const(&mut m, 7);
    assert_eq!(Interner::default().u32_const(&mut m, 7), c);
}

#[test]
fn declarations_appended_by_other_means_are_found() {
    let mut m = Module::new(0x0001_0400);
    let mut types = Interner::default();
    let f32_ty = types.float(&mut m, 32);
    // A type appended without the interner, after the table's last use.
    let id = m.fresh_id();
    m.push_to_section(
        Section::Global,
        Inst::new(Op::TypeInt, None, Some(id), &[16, 0]),
    );
    assert_eq!(types.find(&m, Op::TypeInt, None, &[16, 0]), Some(id));
    assert_eq!(types.int(&mut m, 16), id);
    assert_eq!(types.float(&mut m, 32), f32_ty);
}

#[test]
fn stale_entries_are_never_returned() {
    let mut m = Module::new(0x0001_0400);
    let mut types = Interner::default();
    let i32_ty = types.int(&mut m, 32);
    // Edited in place into a 64-bit integer type.
    let def = m.def(i32_ty).unwrap();
    m.inst_mut(def).operands_mut()[0] = 64;
    assert_eq!(
        types.int(&mut m, 64),
        i32_ty,
        "the edited declaration is found"
    );
    let fresh = types.int(&mut m, 32);
    assert_ne!(fresh, i32_ty, "the stale entry is not returned");
    // Removed: interned again, anew.
    m.retain_section(Section::Global, |m, i| m.inst(i).result_id() != Some(fresh));
    let again = types.int(&mut m, 32);
    assert_ne!(again, fresh);
    assert!(m.def(again).is_some());
}
