//! API-level tests of the analyses: alias queries (`may_write_read_region`, footprints and
//! their relations), spec-constant overrides, tensor layouts of the corpus kernels, loop and
//! induction queries, and robustness on broken modules (no panics).

use std::collections::HashMap;
use std::path::Path;

use spvopt_analysis::alias::Alias;
use spvopt_analysis::constants::Constants;
use spvopt_analysis::induction::Induction;
use spvopt_analysis::print::{annotate, ANALYSIS_NAMES};
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Cfg, Loops};
use spvopt_ir::spirv::Op;
use spvopt_ir::{Id, InstId, Module};

fn assemble(text: &str) -> Module {
    let words = spvopt_ir::text::assemble(text, spvopt_ir::text::TargetEnv::Universal_1_6)
        .unwrap_or_else(|e| panic!("does not assemble: {e}"));
    spvopt_ir::load_words(&words).unwrap_or_else(|e| panic!("does not load: {e}"))
}

fn id(n: u32) -> Id {
    Id::new(n).unwrap()
}

/// Function-body instructions with opcode `op`, in layout order.
fn body_insts(m: &Module, op: Op) -> Vec<InstId> {
    let mut out = Vec::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                if m.inst(i).is(op) {
                    out.push(i);
                }
            }
        }
    }
    out
}

const HEADER: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int16
               OpCapability Linkage
               OpCapability Subgroup2DBlockIOINTEL
               OpExtension "SPV_INTEL_2d_block_io"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %1 "k"
"#;

const TYPES: &str = r#"
          %2 = OpTypeVoid
          %3 = OpTypeBool
          %4 = OpTypeInt 32 0
          %5 = OpTypeInt 8 0
          %6 = OpTypeInt 64 0
          %7 = OpTypeVector %4 2
          %8 = OpTypeInt 16 0
         %11 = OpTypePointer CrossWorkgroup %5
         %12 = OpTypePointer CrossWorkgroup %4
         %13 = OpConstant %6 16
         %14 = OpTypeArray %8 %13
         %15 = OpTypePointer Function %14
         %16 = OpTypePointer Function %4
         %20 = OpConstant %4 0
         %21 = OpConstant %4 1
         %22 = OpConstant %4 2
         %23 = OpConstant %4 8
         %24 = OpConstant %4 16
         %25 = OpConstant %4 32
         %26 = OpConstant %4 64
         %27 = OpConstant %4 7
         %30 = OpConstantComposite %7 %20 %20
         %31 = OpConstantComposite %7 %24 %20
         %32 = OpConstantComposite %7 %20 %23
         %33 = OpConstantComposite %7 %20 %27
         %34 = OpConstantComposite %7 %24 %23
         %35 = OpTypeFunction %2 %11 %12 %4 %4 %3
         %36 = OpTypeFunction %2 %16
"#;

/// A kernel `k(a, c, w, pitch, cond)` with the given body (after the entry label `%40`) and
/// optional decorations.
fn kernel(decorations: &str, body: &str) -> Module {
    let text = format!(
        "{HEADER}{decorations}{TYPES}
        %100 = OpFunction %2 None %36
        %101 = OpFunctionParameter %16
        %102 = OpLabel
               OpReturn
               OpFunctionEnd
          %1 = OpFunction %2 None %35
         %90 = OpFunctionParameter %11
         %91 = OpFunctionParameter %12
         %92 = OpFunctionParameter %4
         %93 = OpFunctionParameter %4
         %94 = OpFunctionParameter %3
         %40 = OpLabel
         %41 = OpVariable %15 Function
         %42 = OpVariable %16 Function
         %43 = OpVariable %16 Function
{body}
               OpFunctionEnd
"
    );
    assemble(&text)
}

/// 2D block load of 16x8 2-byte elements from `%90` with pitch `%93` at coordinate `coord`.
fn load2d(coord: &str) -> String {
    format!("OpSubgroup2DBlockLoadINTEL %22 %24 %23 %21 %90 %92 %92 %93 {coord} %41\n")
}

#[test]
fn store_through_other_argument_between_loads_may_alias_unless_noalias() {
    let body = format!(
        "{}OpStore %91 %20\n{}OpReturn",
        load2d("%30"),
        load2d("%31")
    );
    for (decor, expect) in [
        ("", true),
        ("OpDecorate %90 FuncParamAttr NoAlias\n", false),
        ("OpDecorate %91 Restrict\n", false),
    ] {
        let m = kernel(decor, &body);
        let mut a = Analyses::new();
        let alias = a.get::<Alias>(&m);
        let loads = body_insts(&m, Op::Subgroup2DBlockLoadINTEL);
        let store = body_insts(&m, Op::Store)[0];
        assert_eq!(
            alias.may_write_read_region(&m, store, loads[1]),
            expect,
            "decorations {decor:?}"
        );
        // A 2D load writes only its private destination: never the other load's region.
        assert!(!alias.may_write_read_region(&m, loads[0], loads[1]));
    }
}

#[test]
fn block_store_and_load_footprints() {
    // Stores rows [0, 8) at x = 0; loads rows [8, 16) (disjoint), rows [7, 15) (overlap), and
    // x = 16 elements (disjoint columns).
    let store = "OpSubgroup2DBlockStoreINTEL %22 %24 %23 %21 %41 %90 %92 %92 %93 %30\n";
    let body = format!(
        "{store}{}{}{}OpReturn",
        load2d("%32"),
        load2d("%33"),
        load2d("%31")
    );
    let m = kernel("", &body);
    let mut a = Analyses::new();
    let alias = a.get::<Alias>(&m);
    let st = body_insts(&m, Op::Subgroup2DBlockStoreINTEL)[0];
    let loads = body_insts(&m, Op::Subgroup2DBlockLoadINTEL);
    assert!(!alias.may_write_read_region(&m, st, loads[0]), "rows below");
    assert!(
        alias.may_write_read_region(&m, st, loads[1]),
        "overlapping row 7"
    );
    assert!(
        !alias.may_write_read_region(&m, st, loads[2]),
        "columns to the right"
    );

    let fs = alias.block_footprint(&m, st).expect("store footprint");
    let f0 = alias.block_footprint(&m, loads[0]).expect("load footprint");
    let f2 = alias.block_footprint(&m, loads[2]).expect("load footprint");
    assert_eq!((fs.row_bytes, fs.rows), (32, 8));
    let below = alias.block_relation(&fs, &f0);
    assert!(below.is_below_neighbour(&fs, &f0), "{below:?}");
    let right = alias.block_relation(&fs, &f2);
    assert!(right.is_right_neighbour(&fs, &f2), "{right:?}");
}

#[test]
fn different_pitch_or_unknown_coordinate_may_alias() {
    // Same base, but the load uses a different pitch (%92): no proof.
    let store = "OpSubgroup2DBlockStoreINTEL %22 %24 %23 %21 %41 %90 %92 %92 %93 %30\n";
    let other_pitch = "OpSubgroup2DBlockLoadINTEL %22 %24 %23 %21 %90 %92 %92 %92 %32 %41\n";
    let m = kernel("", &format!("{store}{other_pitch}OpReturn"));
    let mut a = Analyses::new();
    let alias = a.get::<Alias>(&m);
    let st = body_insts(&m, Op::Subgroup2DBlockStoreINTEL)[0];
    let ld = body_insts(&m, Op::Subgroup2DBlockLoadINTEL)[0];
    assert!(alias.may_write_read_region(&m, st, ld));
}

#[test]
fn private_variables_calls_and_prefetches() {
    // Store to a private variable that does not escape; store to one that escapes through a
    // call; an unknown call; a prefetch.
    let body = format!(
        "OpStore %42 %20\nOpStore %43 %20\n%60 = OpFunctionCall %2 %100 %43\n\
         OpSubgroup2DBlockPrefetchINTEL %22 %24 %23 %21 %90 %92 %92 %93 %30\n{}OpReturn",
        load2d("%30")
    );
    let m = kernel("", &body);
    let mut a = Analyses::new();
    let alias = a.get::<Alias>(&m);
    let stores = body_insts(&m, Op::Store);
    let call = body_insts(&m, Op::FunctionCall)[0];
    let pf = body_insts(&m, Op::Subgroup2DBlockPrefetchINTEL)[0];
    let ld = body_insts(&m, Op::Subgroup2DBlockLoadINTEL)[0];
    assert!(
        !alias.may_write_read_region(&m, stores[0], ld),
        "private, not escaped"
    );
    // %43 escapes, but it is Function memory and the load reads CrossWorkgroup memory.
    assert!(
        !alias.may_write_read_region(&m, stores[1], ld),
        "different storage class"
    );
    assert!(
        alias.may_write_read_region(&m, call, ld),
        "unknown callee writes anything"
    );
    assert!(
        !alias.may_write_read_region(&m, pf, ld),
        "prefetches write nothing"
    );
    assert!(alias.provenance().is_escaped(id(43)));
    assert!(!alias.provenance().is_escaped(id(42)));
}

#[test]
fn loop_carried_footprints_need_the_same_iteration() {
    // In a loop: store at x = 32*i + 64 bytes... (coordinates in elements: 16*i + 32), then a
    // load at x = 16*i. In the same iteration they are disjoint; across iterations the store
    // of iteration i overlaps the load of iteration i + 2.
    let body = "\
               OpBranch %50
         %50 = OpLabel
         %51 = OpPhi %4 %20 %40 %52 %50
         %52 = OpIAdd %4 %51 %21
         %53 = OpShiftLeftLogical %4 %51 %27
         %54 = OpIMul %4 %51 %24
         %55 = OpIAdd %4 %54 %25
         %56 = OpCompositeConstruct %7 %55 %20
         %57 = OpCompositeConstruct %7 %54 %20
               OpSubgroup2DBlockStoreINTEL %22 %24 %23 %21 %41 %90 %92 %92 %93 %56
               OpSubgroup2DBlockLoadINTEL %22 %24 %23 %21 %90 %92 %92 %93 %57 %41
               OpBranchConditional %94 %50 %58
         %58 = OpLabel
               OpReturn";
    let m = kernel("", body);
    let mut a = Analyses::new();
    let alias = a.get::<Alias>(&m);
    let st = body_insts(&m, Op::Subgroup2DBlockStoreINTEL)[0];
    let ld = body_insts(&m, Op::Subgroup2DBlockLoadINTEL)[0];
    assert!(alias.may_write_read_region(&m, st, ld));
    assert!(!alias.may_write_read_region_in_same_iteration(&m, st, ld));

    // The coordinates are affine in the loop counter with constant steps.
    let ind = a.get::<Induction>(&m);
    let loops = a.get::<Loops>(&m);
    let l = loops.ids().next().expect("one loop");
    let aff = ind
        .vector_affine_in_loop(id(56), l)
        .expect("affine coordinate");
    assert_eq!(aff[0].step.as_constant(), Some(16));
    assert_eq!(aff[0].base.as_constant(), Some(32));
    assert_eq!(aff[1].step.as_constant(), Some(0));
    assert!(ind.affine_in_loop(id(53), l).is_some());
    let iv = ind.induction_variable(id(51)).expect("counter");
    assert_eq!(
        (iv.init.as_constant(), iv.step.as_constant()),
        (Some(0), Some(1))
    );
}

#[test]
fn loop_queries() {
    let body = "\
               OpBranch %50
         %50 = OpLabel
               OpLoopMerge %53 %52 None
               OpBranch %51
         %51 = OpLabel
               OpBranchConditional %94 %52 %53
         %52 = OpLabel
               OpBranch %50
         %53 = OpLabel
               OpReturn";
    let m = kernel("", body);
    let mut a = Analyses::new();
    let loops = a.get::<Loops>(&m);
    let cfg = a.get::<Cfg>(&m);
    assert_eq!(loops.len(), 1);
    let l = loops.ids().next().unwrap();
    let block = |label: u32| m.inst_block(m.def(id(label)).unwrap()).unwrap();
    assert_eq!(loops.header(l), Some(block(50)));
    let mut blocks: Vec<_> = loops.blocks(l).to_vec();
    blocks.sort();
    let mut expect = vec![block(50), block(51), block(52)];
    expect.sort();
    assert_eq!(blocks, expect);
    assert_eq!(loops.exit_blocks(l, &cfg), vec![block(53)]);
    assert_eq!(loops.preheader(l, &cfg), Some(block(40)));
    assert!(loops.contains(l, block(52)));
    assert!(!loops.contains(l, block(53)));
    assert_eq!(loops.enclosing(block(51)).collect::<Vec<_>>(), vec![l]);
}

#[test]
fn spec_constant_overrides() {
    let text = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %1 "k"
               OpDecorate %10 SpecId 3
               OpDecorate %12 SpecId 4
          %2 = OpTypeVoid
          %3 = OpTypeBool
          %4 = OpTypeInt 32 0
         %10 = OpSpecConstant %4 8
         %11 = OpSpecConstantOp %4 IMul %10 %10
         %12 = OpSpecConstantTrue %3
          %5 = OpTypeFunction %2
          %1 = OpFunction %2 None %5
          %6 = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    let m = assemble(text);
    let cfg = Cfg::build(&m);
    let defaults = Constants::build(&m, &cfg, &HashMap::new());
    assert_eq!(defaults.int(id(11)), Some(64));
    assert_eq!(defaults.value(id(12)).and_then(|v| v.as_bool()), Some(true));
    let over = Constants::build(&m, &cfg, &HashMap::from([(3, 32), (4, 0)]));
    assert_eq!(over.int(id(10)), Some(32));
    assert_eq!(over.int(id(11)), Some(1024));
    assert_eq!(over.value(id(12)).and_then(|v| v.as_bool()), Some(false));
}

#[test]
fn corpus_tensor_kernels_have_known_layouts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/tensor");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("tensor corpus not found; skipping");
        return;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "spv") {
            continue;
        }
        let m = spvopt_ir::load_bytes(&std::fs::read(&p).unwrap()).expect("load");
        let mut a = Analyses::new();
        let consts = a.get::<Constants>(&m);
        for op in [
            Op::CooperativeMatrixLoadTensorNV,
            Op::CooperativeMatrixStoreTensorNV,
        ] {
            for i in body_insts(&m, op) {
                let inst = m.inst(i);
                // Load: Pointer Object TensorLayout …; Store: Pointer Object TensorLayout ….
                let layout = inst.operand_id(2).expect("layout operand");
                let l = consts.tensor_layout(layout);
                assert!(l.is_some(), "{}: layout {layout} unknown", p.display());
                let l = l.unwrap();
                assert_eq!(l.dimension.len(), 2);
                n += 1;
            }
        }
    }
    assert!(
        n >= 8,
        "expected loads and stores in the tensor corpus, found {n}"
    );
}

/// Tiny deterministic generator for the robustness test.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn broken_modules_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let files = [
        "triton/nodbg/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        "triton/native/gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
        "triton/softmax_fp32_1024_w4_sg16__pvc.spv",
        "tensor/kernel_k3_tile_transpose_view_clip_workgroup.spv",
    ];
    let mut rng = Lcg(0x5eed);
    for f in files {
        let Ok(bytes) = std::fs::read(root.join(f)) else {
            continue;
        };
        for round in 0..6 {
            let mut m = spvopt_ir::load_bytes(&bytes).expect("load");
            // Erase some function-body instructions (definitions vanish, terminators go
            // missing, phis lose inputs) and a few whole blocks.
            let all: Vec<InstId> = m
                .function_ids()
                .flat_map(|f| m.function(f).blocks.clone())
                .flat_map(|b| m.block_insts(b).collect::<Vec<_>>())
                .collect();
            let stride = 3 + round * 5;
            for (k, &i) in all.iter().enumerate() {
                if (k as u64 + rng.next()).is_multiple_of(stride as u64) {
                    m.erase(i);
                }
            }
            if round % 2 == 1 {
                let blocks: Vec<_> = m
                    .function_ids()
                    .flat_map(|f| m.function(f).blocks.clone())
                    .collect();
                for (k, b) in blocks.into_iter().enumerate() {
                    if k % 4 == 1 {
                        m.remove_block(b);
                    }
                }
            }
            let mut a = Analyses::new();
            for name in ANALYSIS_NAMES {
                let out = annotate(&m, name, &mut a).expect("known analysis");
                assert!(!out.is_empty());
            }
            let uni = a.get::<Uniformity>(&m);
            let _ = uni.is_uniform(id(1));
        }
    }
}

#[test]
fn quadratic_coordinate_is_not_affine() {
    // A 2D load whose x coordinate is i*i: not affine in the loop counter; y = 8*i is.
    let body = "\
               OpBranch %50
         %50 = OpLabel
         %51 = OpPhi %4 %20 %40 %52 %50
         %52 = OpIAdd %4 %51 %21
         %53 = OpIMul %4 %51 %51
         %54 = OpIMul %4 %51 %23
         %56 = OpCompositeConstruct %7 %53 %54
               OpSubgroup2DBlockLoadINTEL %22 %24 %23 %21 %90 %92 %92 %93 %56 %41
               OpBranchConditional %94 %50 %58
         %58 = OpLabel
               OpReturn";
    let m = kernel("", body);
    let mut a = Analyses::new();
    let ind = a.get::<Induction>(&m);
    let loops = a.get::<Loops>(&m);
    let l = loops.ids().next().expect("one loop");
    assert!(ind.vector_affine_in_loop(id(56), l).is_none());
    assert!(ind.affine_in_loop(id(53), l).is_none());
    let y = ind.affine_in_loop(id(54), l).expect("8*i");
    assert_eq!(y.step.as_constant(), Some(8));
    // The footprint keeps i*i as an opaque value that varies in the loop, so it is never
    // compared across instances (a load writes only its private destination anyway).
    let alias = a.get::<Alias>(&m);
    let ld = body_insts(&m, Op::Subgroup2DBlockLoadINTEL)[0];
    let f = alias.block_footprint(&m, ld).expect("footprint");
    assert_eq!(f.x_bytes.terms().len(), 1);
    assert!(!alias.may_write_read_region(&m, ld, ld));
}

#[test]
fn loop_carried_divergence_reaches_partial_vectors_and_the_code_after_the_loop() {
    // %51 is uniform when its block is first evaluated (its back-edge value %60, an atomic's
    // result, comes later); the vectors built from it are divergent in component 0 only, and
    // the code after the loop sees the final masks.
    let body = "\
               OpBranch %50
         %50 = OpLabel
         %51 = OpPhi %4 %20 %40 %60 %50
         %52 = OpPhi %4 %20 %40 %61 %50
         %53 = OpCompositeConstruct %7 %51 %52
         %54 = OpCompositeInsert %7 %52 %53 1
         %55 = OpCompositeInsert %7 %51 %30 1
         %60 = OpAtomicIAdd %4 %91 %21 %20 %21
         %61 = OpIAdd %4 %52 %21
               OpBranchConditional %94 %50 %58
         %58 = OpLabel
         %62 = OpCompositeExtract %4 %54 0
         %63 = OpCompositeExtract %4 %54 1
         %64 = OpCompositeExtract %4 %55 1
               OpReturn";
    let m = kernel("", body);
    let mut a = Analyses::new();
    let uni = a.get::<Uniformity>(&m);
    assert!(!uni.is_uniform(id(51)) && !uni.is_uniform(id(60)));
    assert!(uni.is_uniform(id(52)) && uni.is_uniform(id(61)));
    for v in [53, 54] {
        assert_eq!(uni.divergent_mask(id(v)), 0b01, "%{v}");
    }
    assert_eq!(uni.divergent_mask(id(55)), 0b10);
    assert!(!uni.is_uniform(id(62)) && uni.is_uniform(id(63)) && !uni.is_uniform(id(64)));
    let loops = a.get::<Loops>(&m);
    let l = loops.ids().next().expect("one loop");
    assert!(!uni.has_divergent_exit(l));
}
