//! The pooled instruction storage: instructions are views into the module's word pool, so
//! replacing one by a longer one, changing its words in place and allocating new ones must
//! keep every other instruction, the definition table and the emitted words right; and
//! `Module::function_of` answers for every kind of function-local id.

use std::path::Path;

use spvopt_ir::spirv::Op;
use spvopt_ir::{Id, Inst, Module};

fn load(rel: &str) -> (Vec<u8>, Module) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel);
    let bytes = std::fs::read(p).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).unwrap();
    (bytes, m)
}

const KERNEL: &str = "triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";

#[test]
fn loaded_module_emits_its_input() {
    let (bytes, m) = load(KERNEL);
    assert_eq!(m.to_bytes(), bytes);
    let mut streamed = Vec::new();
    m.write_bytes(&mut streamed).unwrap();
    assert_eq!(streamed, bytes);
    let owned = spvopt_ir::load_bytes_owned(bytes.clone()).unwrap();
    assert_eq!(owned.to_bytes(), bytes);
}

#[test]
fn big_endian_input_streams_back_big_endian() {
    let (bytes, _) = load(KERNEL);
    let swapped: Vec<u8> = bytes
        .chunks_exact(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect();
    let m = spvopt_ir::load_bytes_owned(swapped.clone()).unwrap();
    assert!(m.header.big_endian);
    let mut streamed = Vec::new();
    m.write_bytes(&mut streamed).unwrap();
    assert_eq!(streamed, swapped);
}

#[test]
fn growing_an_instruction_moves_it_and_nothing_else() {
    let (_, mut m) = load(KERNEL);
    let before = m.to_words();
    // The first entry point, given one more interface id (its own function id: any id will
    // do for the storage), then given back its words.
    let e = m.section(spvopt_ir::Section::EntryPoint)[0];
    let old: Vec<u32> = m.inst(e).words.to_vec();
    let mut longer = old.clone();
    longer.push(old[1]);
    m.set_inst_words(e, &longer);
    assert_eq!(m.inst(e).words, longer[..]);
    assert_eq!(m.inst(e).word_count(), old.len() + 2);
    let grown = m.to_words();
    assert_eq!(grown.len(), before.len() + 1);
    m.set_inst_words(e, &old);
    assert_eq!(m.to_words(), before, "shrinking back restores the module");
}

#[test]
fn replacing_keeps_the_definition_table_right() {
    let (_, mut m) = load(KERNEL);
    // Some OpIAdd in a body: replaced by an OpISub with another result id.
    let (i, ty, res, ops) = m
        .all_insts()
        .find_map(|i| {
            let inst = m.inst(i);
            inst.is(Op::IAdd).then(|| {
                (
                    i,
                    inst.result_type().unwrap(),
                    inst.result_id().unwrap(),
                    inst.operands().to_vec(),
                )
            })
        })
        .expect("the GEMM adds");
    let fresh = m.fresh_id();
    m.replace_inst(i, Inst::new(Op::ISub, Some(ty), Some(fresh), &ops));
    assert_eq!(m.def(fresh), Some(i));
    assert_eq!(m.def(res), None, "the old result is no longer defined");
    assert!(m.inst(i).is(Op::ISub));
    // In-place operand edits through inst_mut are seen by readers.
    m.inst_mut(i).operands_mut().swap(0, 1);
    assert_eq!(m.inst(i).operands()[0], ops[1]);
}

#[test]
fn function_of_answers_for_function_params_labels_and_bodies() {
    let (_, m) = load(KERNEL);
    for f in m.function_ids() {
        let func = m.function(f);
        let fid = m.function_result(f).unwrap();
        assert_eq!(m.function_of(fid), Some(f));
        for &p in &func.header {
            if let Some(r) = m.inst(p).result_id() {
                assert_eq!(m.function_of(r), Some(f));
            }
        }
        for &b in &func.blocks {
            assert_eq!(m.function_of(m.block_label(b)), Some(f));
            for i in m.block_insts(b) {
                if let Some(r) = m.inst(i).result_id() {
                    assert_eq!(m.function_of(r), Some(f));
                }
            }
        }
    }
    for (_, t) in m.section_insts(spvopt_ir::Section::Global) {
        if let Some(r) = t.result_id() {
            assert_eq!(m.function_of(r), None, "module-level id {r}");
        }
    }
    assert_eq!(
        m.function_of(Id::new(m.id_capacity() as u32 + 5).unwrap()),
        None
    );
}

#[test]
fn links_start_at_the_first_function_and_widen_on_demand() {
    let (_, mut m) = load(KERNEL);
    let body: Vec<_> = m
        .function_ids()
        .flat_map(|f| m.function(f).blocks.clone())
        .flat_map(|b| m.block_insts(b).collect::<Vec<_>>())
        .collect();
    let before: Vec<_> = body
        .iter()
        .map(|&i| (m.prev_inst(i), m.next_inst(i), m.inst_block(i)))
        .collect();
    // A module-level instruction (before the first function: no link stored) reads as
    // unlinked; placing it in a block (a misuse, but it must not corrupt the links) widens
    // the table.
    let name = m.section(spvopt_ir::Section::Debug)[0];
    assert_eq!(m.inst_block(name), None);
    let at = body[body.len() / 2];
    let b = m.inst_block(at).unwrap();
    m.move_before(name, at);
    assert_eq!(m.inst_block(name), Some(b));
    assert_eq!(m.next_inst(name), Some(at));
    m.erase(name);
    let after: Vec<_> = body
        .iter()
        .map(|&i| (m.prev_inst(i), m.next_inst(i), m.inst_block(i)))
        .collect();
    assert_eq!(before, after, "every body link is as it was");
}

#[test]
fn function_with_id_names_functions_only() {
    let (_, m) = load(KERNEL);
    for f in m.function_ids() {
        let id = m.function_result(f).unwrap();
        assert_eq!(m.function_with_id(id), Some(f));
        for &b in &m.function(f).blocks {
            assert_eq!(
                m.function_with_id(m.block_label(b)),
                None,
                "a label is no function"
            );
        }
    }
}
