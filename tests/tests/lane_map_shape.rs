//! The lane map's local ids in a 2-D or 3-D work-group: invocation `i` of a `(X, Y, Z)`
//! work-group has the local id `(i % X, (i / X) % Y, i / (X·Y))` (SPIR-V's linearisation, and
//! spv-sim's launch model), checked on the OpenCL C fixture whose staging is driven by
//! `(get_local_id(2)*2 + get_local_id(1))*16 + get_local_id(0)`: every component the kernel
//! extracts, evaluated per invocation, and the linear id the kernel computes from them.

use spirv::{BuiltIn, Op};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{Coef, LaneMap};
use spvopt_analysis::{Cfg, PostDominators};
use spvopt_ir::text::{self, TargetEnv};

fn fixture(name: &str) -> spvopt_ir::Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/passes")
        .join(name);
    let src = std::fs::read_to_string(path).unwrap();
    let words = text::assemble(&src, TargetEnv::Universal_1_4).unwrap();
    spvopt_ir::load_words(&words).unwrap()
}

/// Per-invocation values of `id` (a table, no symbolic part).
fn table(lanes: &LaneMap, id: spvopt_ir::Id) -> Vec<i64> {
    match lanes.poly(id).and_then(|p| p.as_table()) {
        Some(Coef::Lanes(t)) => t.to_vec(),
        Some(Coef::Same(v)) => vec![v; lanes.lanes],
        None => panic!("%{} is not a table", id.word()),
    }
}

#[test]
fn local_ids_follow_the_linearisation_in_3d() {
    let m = fixture("raise_block_io_positive_workgroup_3d.spvasm");
    // The kernel body (the entry point's wrapper is one block).
    let f = m
        .function_ids()
        .max_by_key(|&f| m.function(f).blocks.len())
        .expect("the kernel body");
    let (cfg, dec) = (Cfg::build(&m), Decorations::build(&m));
    let pdom = PostDominators::build(&m, &cfg);
    let lanes = LaneMap::build(&m, f, &cfg, &pdom, &dec, [16, 2, 2], 16, false);
    assert_eq!(lanes.lanes, 64);
    // Every `OpCompositeExtract` of a LocalInvocationId load, by component.
    let names = spvopt_analysis::builtins::debug_names(&m, &|_| true);
    let mut seen = [false; 3];
    for &b in &m.function(f).blocks {
        for i in m.block_insts(b) {
            let inst = m.inst(i);
            if !inst.is(Op::CompositeExtract) {
                continue;
            }
            let Some(src) = inst.operand_id(0).and_then(|s| m.def_inst(s)) else {
                continue;
            };
            let var = src.operand_id(0);
            let is_lid = src.is(Op::Load)
                && var.is_some_and(|v| {
                    spvopt_analysis::builtins::builtin_of_variable(&dec, &names, v)
                        == Some(BuiltIn::LocalInvocationId)
                });
            if !is_lid {
                continue;
            }
            let k = inst.operand_word(1).unwrap() as usize;
            let want: Vec<i64> = (0..64i64)
                .map(|l| [l % 16, (l / 16) % 2, l / 32][k])
                .collect();
            assert_eq!(
                table(&lanes, inst.result_id().unwrap()),
                want,
                "component {k}"
            );
            seen[k] = true;
        }
    }
    assert_eq!(seen, [true, true, true], "the kernel reads x, y and z");
}
