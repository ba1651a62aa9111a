//! `Module::insert_function_at`: a declaration inserted before the first definition of a real
//! kernel (Triton output calling Intel builtins) lands there, every block keeps its function,
//! and the emitted module reloads, passes the structural invariants and lists the functions in
//! the new order; appending past the end is `add_function`.

use std::path::Path;

use spvopt_ir::spirv::Op;
use spvopt_ir::{FuncId, Id, Inst, InstBuf, Module};

fn load(rel: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel);
    spvopt_ir::load_bytes(&std::fs::read(p).unwrap()).unwrap()
}

/// Result ids of the functions in order, and whether each has a body.
fn functions(m: &Module) -> Vec<(Id, bool)> {
    m.function_ids()
        .map(|f| {
            (
                m.function_result(f).unwrap(),
                !m.function(f).blocks.is_empty(),
            )
        })
        .collect()
}

/// Every block's function index is its function's position.
fn blocks_consistent(m: &Module) {
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            assert_eq!(m.block(b).func, f, "block of function {}", f.index());
        }
    }
}

/// A declaration with the type of an existing declaration `like`.
fn declaration_like(m: &mut Module, like: FuncId) -> (InstBuf, Vec<InstBuf>, Id) {
    let def = m.inst(m.function(like).def).to_owned();
    let params: Vec<InstBuf> = m
        .function(like)
        .header
        .iter()
        .map(|&p| m.inst(p).to_owned())
        .collect();
    let id = m.fresh_id();
    let def = Inst::new(Op::Function, def.result_type(), Some(id), def.operands());
    let params = params
        .iter()
        .map(|p| {
            let pid = m.fresh_id();
            Inst::new(Op::FunctionParameter, p.result_type(), Some(pid), &[])
        })
        .collect();
    (def, params, id)
}

#[test]
fn declaration_inserted_before_the_first_definition() {
    let mut m = load("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let before = functions(&m);
    let first_def = before.iter().position(|&(_, body)| body).unwrap();
    assert!(first_def > 0, "the kernel imports builtins");
    assert!(before[first_def..].iter().all(|&(_, body)| body));
    let (def, params, id) = declaration_like(&mut m, FuncId::from_index(0));
    let f = m.insert_function_at(first_def, def, params);
    assert_eq!(f.index(), first_def);
    assert_eq!(m.function_result(f), Some(id));
    let mut want = before.clone();
    want.insert(first_def, (id, false));
    assert_eq!(functions(&m), want);
    blocks_consistent(&m);
    spvopt_ir::verify(&m).unwrap();
    // Emitted and loaded again: the same functions in the same order.
    let again = spvopt_ir::load_words(&m.to_words()).unwrap();
    assert_eq!(functions(&again), want);
    blocks_consistent(&again);
}

#[test]
fn insert_at_the_front_and_past_the_end() {
    let mut m = load("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let before = functions(&m);
    let (def, params, front) = declaration_like(&mut m, FuncId::from_index(0));
    assert_eq!(m.insert_function_at(0, def, params).index(), 0);
    let (def, params, back) = declaration_like(&mut m, FuncId::from_index(0));
    let n = m.functions.len();
    // Past the end appends (a declaration after definitions is not valid SPIR-V, but the
    // function list takes it: it is the caller's layout).
    assert_eq!(m.insert_function_at(n + 5, def, params).index(), n);
    let mut want = vec![(front, false)];
    want.extend(before);
    want.push((back, false));
    assert_eq!(functions(&m), want);
    blocks_consistent(&m);
}
