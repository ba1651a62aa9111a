//! Hostile modules whose size drives the depth of a walk: a nested `OpSpecConstantOp`, nested
//! composite constants, a long call chain, a long chain of in-loop values feeding a prefetched
//! load, a deeply nested pointee type. Each was a recursion as deep as the input (the `pipeline`
//! fuzz target died of a silent stack overflow twice); the walks are iterative or depth-bounded
//! now. Every check runs on a thread with a small stack ([`STACK`]), so a walk that still
//! recursed once per level would overflow (and abort this binary) at a fraction of the input
//! size the 8 MiB main thread needs, which keeps the tests cheap and decisive.

use spirv::Op;
use spvopt_analysis::Target;

/// The stack of the checking threads: far below the 8 MiB of libFuzzer's main thread, far above
/// what the non-recursive walks need.
const STACK: usize = 256 << 10;

/// Runs `f` on a thread with a [`STACK`]-byte stack. A stack overflow there aborts the process.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic")
}

/// Every registered pass alone, then the fuzz target's pipelines (`fuzz/src/lib.rs`'s
/// `pipelines`; the fuzz crate is not a dependency of the tests).
fn pipelines() -> Vec<String> {
    let mut v: Vec<String> = spvopt_passes::REGISTRY
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    for p in [
        "O",
        "raise-builtins,lower-builtins",
        "lower-builtins,raise-builtins",
        "split-block-loads,fuse-block-loads",
        "insert-prefetches,fuse-block-loads,dce",
        "insert-prefetches(prefetch-cooperative=true),strip-prefetches",
        "legalize,dce",
        "strip-debug,raise-builtins,legalize,insert-prefetches,fuse-block-loads,dce",
    ] {
        v.push(p.to_string());
    }
    v
}

/// Loads `words` and runs `pipelines` on `target` as the `pipeline` fuzz target does, on a
/// small stack: each either fails with a one-line error or writes a module that reloads.
fn run_all(words: Vec<u32>, pipelines: Vec<String>, target: &'static str) {
    on_small_stack(move || {
        let m = spvopt_ir::load_words(&words).expect("the hostile module loads");
        let words = m.to_words();
        let target = Target::named(target);
        for p in &pipelines {
            match spvopt_passes::optimize_words(&words, p, &target) {
                Ok((out, _)) => {
                    let again = spvopt_ir::load_words(&out)
                        .unwrap_or_else(|e| panic!("{p}: output does not load: {e}"));
                    spvopt_ir::verify(&again).expect("a reloaded module passes verify");
                }
                Err(e) => assert!(!e.to_string().contains('\n'), "{p}: {e}"),
            }
        }
    });
}

/// Runs `pipeline` on `words` for pvc on a small stack; it must succeed.
fn run_one(words: &[u32], pipeline: &'static str) -> (Vec<u32>, spvopt_passes::RunReport) {
    let words = words.to_vec();
    on_small_stack(move || {
        spvopt_passes::optimize_words(&words, pipeline, &Target::named("pvc"))
            .unwrap_or_else(|e| panic!("{pipeline}: {e}"))
    })
}

/// A module as words, built instruction by instruction (header bound fixed up by `finish`).
struct Words(Vec<u32>);

impl Words {
    fn new() -> Words {
        Words(vec![0x0723_0203, 0x0001_0400, 0, 0, 0])
    }
    fn inst(&mut self, op: Op, operands: &[u32]) {
        self.0.push(((operands.len() as u32 + 1) << 16) | op as u32);
        self.0.extend_from_slice(operands);
    }
    /// The usual kernel preamble: Addresses/Kernel/Int64, Physical64 OpenCL.
    fn kernel_preamble(&mut self) {
        use spirv::Capability as C;
        for c in [C::Addresses, C::Kernel, C::Int64] {
            self.inst(Op::Capability, &[c as u32]);
        }
        self.inst(Op::MemoryModel, &[2, 2]); // Physical64 OpenCL
    }
    fn finish(mut self, bound: u32) -> Vec<u32> {
        self.0[3] = bound;
        self.0
    }
}

#[test]
fn a_spec_constant_op_nested_sixty_thousand_times_loads() {
    // `OpSpecConstantOp` whose opcode operand is `OpSpecConstantOp` again, 60,000 times, then
    // an `OpIAdd`: the grammar walker recursed once per nesting (two frames per word of one
    // instruction), so a single 240 KB instruction overflowed the loader's stack.
    let mut w = Words::new();
    w.kernel_preamble();
    let (uint, one, c) = (1, 2, 3);
    w.inst(Op::TypeInt, &[uint, 32, 0]);
    w.inst(Op::Constant, &[uint, one, 1]);
    let mut ops = vec![uint, c];
    ops.extend(std::iter::repeat_n(Op::SpecConstantOp as u32, 60_000));
    ops.extend([Op::IAdd as u32, one, one]);
    w.inst(Op::SpecConstantOp, &ops);
    let words = w.finish(4);
    on_small_stack(move || {
        // Nested OpSpecConstantOp is invalid SPIR-V, but it is well formed for the walker: the
        // module loads and emits byte for byte (nothing is lost either way).
        let m = spvopt_ir::load_words(&words).expect("loads");
        assert_eq!(m.to_words(), words);
    });
    // And the pipelines (constant folding reads the opcode operand) cope with it.
    let mut w = Words::new();
    w.kernel_preamble();
    w.inst(Op::TypeInt, &[uint, 32, 0]);
    w.inst(Op::Constant, &[uint, one, 1]);
    w.inst(Op::SpecConstantOp, &ops);
    run_all(w.finish(4), pipelines(), "pvc");
}

/// The text of fixture `tests/fixtures/passes/NAME.spvasm`.
fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/passes")
        .join(format!("{name}.spvasm"));
    std::fs::read_to_string(path).expect("fixture")
}

/// `text` with its one occurrence of `line` replaced by `with`.
fn replace_line(text: &str, line: &str, with: &str) -> String {
    assert_eq!(text.matches(line).count(), 1, "{line}");
    text.replacen(line, with, 1)
}

/// `first`, then the lines `line(1)` … `line(n)`: a chain of `n` instructions.
fn chain(first: &str, n: usize, line: impl Fn(usize) -> String) -> String {
    first.to_string() + &(1..=n).map(line).collect::<String>()
}

fn assemble(text: &str) -> Vec<u32> {
    spvopt_ir::text::assemble(text, spvopt_ir::text::TargetEnv::Universal_1_6).expect("assembles")
}

/// The self-loop kernel with a 2D block load in its loop (`insert_prefetches_self_loop`), for
/// the passes that only look further when a module has block loads.
fn block_load_loop() -> String {
    fixture("insert_prefetches_self_loop")
}

/// [`block_load_loop`] with `globals` (types and constants) after its types, assembled.
fn block_load_loop_with(globals: &str) -> Vec<u32> {
    block_load_loop_with_text(&block_load_loop(), globals)
}

/// `text` (a variant of [`block_load_loop`]) with `globals` after its types, assembled.
fn block_load_loop_with_text(text: &str, globals: &str) -> Vec<u32> {
    let types_end = "%arr_32 = OpTypeArray %uchar %uint_32\n";
    assemble(&replace_line(
        text,
        types_end,
        &format!("{types_end}{globals}"),
    ))
}

#[test]
fn constants_nested_five_thousand_deep_fold_without_deep_recursion() {
    // `%k(n+1) = OpConstantComposite %S %k(n)`: the folded value was a tree as deep as the
    // chain, cloned and dropped recursively (and each level cloned the whole tree below it).
    let n = 5_000;
    let consts = chain(
        "%S = OpTypeStruct %uint\n%k0 = OpConstantComposite %S %uint_0\n",
        n,
        |k| format!("%k{k} = OpConstantComposite %S %k{}\n", k - 1),
    );
    run_all(block_load_loop_with(&consts), pipelines(), "pvc");
}

#[test]
fn a_call_chain_of_five_thousand_functions_is_analysed_without_deep_recursion() {
    // main calls f0, f0 calls f1, …: the call graph's strongly connected components (Tarjan,
    // petgraph's recursive implementation) recursed once per function of the chain.
    let n = 5_000;
    let mut funcs = String::new();
    for k in 0..n {
        funcs += &format!("%f{k} = OpFunction %void None %fnty0\n%l{k} = OpLabel\n");
        if k + 1 < n {
            funcs += &format!("%r{k} = OpFunctionCall %void %f{}\n", k + 1);
        }
        funcs += "OpReturn\nOpFunctionEnd\n";
    }
    let text = block_load_loop();
    let text = replace_line(
        &text,
        "       %fnty = OpTypeFunction %void %ptr_cw_uchar %ptr_cw_uchar\n",
        "%fnty = OpTypeFunction %void %ptr_cw_uchar %ptr_cw_uchar\n%fnty0 = OpTypeFunction %void\n",
    );
    let text = replace_line(
        &text,
        "        %lid = OpLoad %uint %lid_var\n",
        "%lid = OpLoad %uint %lid_var\n%call = OpFunctionCall %void %f0\n",
    );
    let words = assemble(&(text + &funcs));
    run_all(words, pipelines(), "pvc");
}

#[test]
fn a_prefetched_coordinate_behind_twenty_thousand_copies_is_planned_iteratively() {
    // The load's coordinate is the counter times 16 behind 20,000 `OpCopyObject`s inside the
    // loop: insert-prefetches plans the prologue by hoisting the coordinate's computation into
    // the preheader, which recursed once per instruction of the chain before its 64-instruction
    // budget could stop it (nothing is counted until the bottom of the chain is reached).
    let n = 20_000;
    let mut copies = chain("%x0 = OpIMul %uint %i %uint_16\n", n, |k| {
        format!("%x{k} = OpCopyObject %uint %x{}\n", k - 1)
    });
    copies += &format!("%coord = OpCompositeConstruct %v2uint %x{n} %uint_0\n");
    let text = replace_line(
        &block_load_loop(),
        "          %x = OpIMul %uint %i %uint_16\n      %coord = OpCompositeConstruct %v2uint %x %uint_0\n",
        &copies,
    );
    let words = assemble(&text);
    let pipelines = vec![
        "insert-prefetches".to_string(),
        "insert-prefetches,fuse-block-loads,dce".to_string(),
        "insert-prefetches(prefetch-cooperative=true),strip-prefetches".to_string(),
    ];
    run_all(words.clone(), pipelines, "pvc");
    // The budget counts the chain being walked too: the walk stops after 64 instructions
    // instead of cloning all 20,000 copies into the preheader (which doubled the module).
    let before = words.len();
    let (out, _) = run_one(&words, "insert-prefetches");
    assert!(
        out.len() < before + 1_000,
        "{} words became {}",
        before,
        out.len()
    );
}

#[test]
fn a_tensor_pointer_to_a_vector_nested_fifty_thousand_deep_is_refused() {
    // convert-tensor-addressing sizes the pointee of each tensor load/store pointer; with a
    // vector of a vector of … (50,000 levels) that walk recursed once per level.
    let n = 50_000;
    let mut nest = chain("%n0 = OpTypeVector %half 1\n", n, |k| {
        format!("%n{k} = OpTypeVector %n{} 1\n", k - 1)
    });
    nest += &format!("%ptr_Cr_half = OpTypePointer CrossWorkgroup %n{n}\n");
    let text = replace_line(
        &fixture("convert_tensor_addressing_mul_add"),
        "%ptr_Cr_half = OpTypePointer CrossWorkgroup %half\n",
        &nest,
    );
    let words = assemble(&text);
    run_all(words, vec!["convert-tensor-addressing".to_string()], "pvc");
}

#[test]
fn a_constant_doubled_forty_times_is_not_built() {
    // `%d(n+1) = OpConstantComposite %S2 %d(n) %d(n)`: 4 words per level double the folded
    // value, so 40 levels were 2^42 nodes (memory exhausted long before). Composites above
    // 65,536 nodes are not folded now.
    let first = "%S2 = OpTypeStruct %uint %uint\n%d0 = OpConstantComposite %S2 %uint_0 %uint_0\n";
    let consts = chain(first, 40, |k| {
        format!("%d{k} = OpConstantComposite %S2 %d{} %d{}\n", k - 1, k - 1)
    });
    run_all(block_load_loop_with(&consts), pipelines(), "pvc");
}

#[test]
fn a_cycle_of_in_loop_values_behind_a_prefetched_load_is_not_hoisted() {
    // The load's pitch is `%pitch = %pitch2 + 0`, `%pitch2 = %pitch + 0` in the two blocks of
    // its loop (not SSA, but it loads: the later block's definition may be used earlier).
    // Planning the prologue hoisted operands recursively without marking the ones in progress,
    // so the cycle recursed until the stack ran out, whatever its size.
    let text = block_load_loop();
    let text = replace_line(
        &text,
        "   OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src %uint_128 %uint_16 %uint_128 %coord %vp\n",
        "   OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src %uint_128 %uint_16 %pitch %coord %vp\n",
    );
    let text = replace_line(
        &text,
        "          %x = OpIMul %uint %i %uint_16\n",
        "%x = OpIMul %uint %i %uint_16\n%pitch = OpIAdd %uint %pitch2 %uint_0\n",
    );
    let text = replace_line(
        &text,
        "               OpBranchConditional %more %loop %exit\n",
        "OpBranch %body\n%body = OpLabel\n%pitch2 = OpIAdd %uint %pitch %uint_0\n\
         OpBranchConditional %more %loop %exit\n",
    );
    let text = replace_line(
        &text,
        "%i = OpPhi %uint %uint_0 %entry %inext %loop\n",
        "%i = OpPhi %uint %uint_0 %entry %inext %body\n",
    );
    let text = replace_line(
        &text,
        "%acc = OpPhi %uint %uint_0 %entry %acc2 %loop\n",
        "%acc = OpPhi %uint %uint_0 %entry %acc2 %body\n",
    );
    run_all(assemble(&text), pipelines(), "pvc");
}

#[test]
fn null_vectors_of_vectors_are_not_built() {
    // `OpConstantNull` of a 64-vector of 64-vectors of … (4 levels, invalid but it loads) was
    // folded into 64^4 nodes (half a GiB) per constant, 3 words each.
    let mut types = chain("%v0 = OpTypeVector %uint 64\n", 3, |k| {
        format!("%v{k} = OpTypeVector %v{} 64\n", k - 1)
    });
    types += &(0..64)
        .map(|k| format!("%null{k} = OpConstantNull %v3\n"))
        .collect::<String>();
    run_all(block_load_loop_with(&types), pipelines(), "pvc");
}

/// The constants analysis of `m`.
fn constants(m: &spvopt_ir::Module) -> spvopt_analysis::Constants {
    spvopt_analysis::Constants::build(m, &spvopt_analysis::Cfg::build(m), &Default::default())
}

#[test]
fn wrappers_of_one_large_constant_are_folded_only_within_the_budget() {
    // `%w(k) = OpConstantComposite %W %d14`, 2,000 times: 4 words each, but every folded
    // wrapper was a copy of %d14's 65,535 nodes (4.1 GB and 21.6 s for a 34 KB module). Now a
    // composite above 1,024 nodes is not folded, and all folded composites together hold at
    // most 2^20 nodes: here %d8 (1,023 nodes) is wrapped 2,000 times; about 1,000 wrappers
    // fold, the rest do not.
    let first = "%S2 = OpTypeStruct %uint %uint\n%d0 = OpConstantComposite %S2 %uint_0 %uint_0\n";
    let mut consts = chain(first, 14, |k| {
        format!("%d{k} = OpConstantComposite %S2 %d{} %d{}\n", k - 1, k - 1)
    });
    consts += "%W = OpTypeStruct %S2\n";
    for k in 0..2000 {
        consts +=
            &format!("%w{k} = OpConstantComposite %W %d8\n%u{k} = OpConstantComposite %W %d14\n");
    }
    let words = block_load_loop_with(&consts);
    let m = spvopt_ir::load_words(&words).expect("loads");
    let c = constants(&m);
    // The fixture has no composite constants: %d0..%d14, then %w0, %u0, %w1, %u1, …
    let composites: Vec<spvopt_ir::Id> = m
        .section_insts(spvopt_ir::Section::Global)
        .filter(|(_, i)| i.is(Op::ConstantComposite))
        .filter_map(|(_, i)| i.result_id())
        .collect();
    assert_eq!(composites.len(), 15 + 2 * 2000);
    let (d, w, u) = (
        &composites[..15],
        |k: usize| composites[15 + 2 * k],
        |k: usize| composites[16 + 2 * k],
    );
    assert!(c.value(d[8]).is_some(), "1,023 nodes fold");
    assert!(c.value(d[14]).is_none(), "65,535 nodes do not");
    assert!(c.value(u(0)).is_none(), "nor a wrapper of them");
    assert!(c.value(w(0)).is_some(), "the first wrappers of %d8 fold");
    assert!(
        c.value(w(1999)).is_none(),
        "the budget ends before the last"
    );
    run_all(words, pipelines(), "pvc");
}

#[test]
fn a_tensor_view_type_with_ten_thousand_permutation_entries_is_not_copied_per_setter() {
    // `OpTypeTensorViewNV %uint_2 %true %uint_0 …` with 10,000 permutation entries (Dim is 2),
    // then 1,500 `OpTensorViewSetClipNV` in a chain: every setter copied its input's state,
    // permutation included, so the constants analysis held 1,500 copies of 10,000 entries
    // (479 MB for an 89 KB module). The state keeps the first Dim entries, as the passes read.
    let (p, n) = (10_000, 1_500);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/tensor/kernel_k3_tile_transpose_view_clip_crossworkgroup.spvasm");
    let text = std::fs::read_to_string(path).expect("corpus kernel");
    let text = replace_line(
        &text,
        "OpExecutionMode %kernel LocalSize 16 1 1\n",
        "OpExecutionMode %kernel LocalSize 16 1 1\nOpExecutionMode %kernel SubgroupSize 16\n",
    );
    let text = replace_line(
        &text,
        " %view_ID = OpTypeTensorViewNV %uint_2 %true %uint_0 %uint_1\n",
        &format!(
            "%view_ID = OpTypeTensorViewNV %uint_2 %true{}\n",
            " %uint_0".repeat(p)
        ),
    );
    let clips = chain(
        "%dx0 = OpTensorViewSetClipNV %view_ID %dv2 %uint_0 %valid_rows %uint_0 %uint_16\n",
        n,
        |k| {
            format!(
                "%dx{k} = OpTensorViewSetClipNV %view_ID %dx{} %uint_0 %valid_rows %uint_0 %uint_16\n",
                k - 1
            )
        },
    );
    let text = replace_line(
        &text,
        "        %dv3 = OpTensorViewSetClipNV %view_ID %dv2 %uint_0 %valid_rows %uint_0 %uint_16\n",
        &format!(
            "{clips}%dv3 = OpTensorViewSetClipNV %view_ID %dx{n} %uint_0 %valid_rows %uint_0 %uint_16\n"
        ),
    );
    let words = assemble(&text);
    assert!(words.len() * 4 < 100_000);
    let m = spvopt_ir::load_words(&words).expect("loads");
    let c = constants(&m);
    let views: Vec<spvopt_ir::Id> = m
        .all_insts()
        .map(|i| m.inst(i))
        .filter(|i| i.is(Op::TensorViewSetClipNV))
        .filter_map(|i| i.result_id())
        .collect();
    assert_eq!(views.len(), n + 2);
    for v in views {
        let state = c.tensor_view(v).expect("a view state");
        assert_eq!(state.permutation.len(), 2, "Dim entries, not {p}");
    }
    run_all(words, pipelines(), "pvc");
}

#[test]
fn the_notes_of_a_loop_with_a_thousand_loads_and_prefetches_stay_linear() {
    // 1,080 identical 2D block loads and 1,190 identical prefetches of a fixed coordinate in
    // one loop (96 KB): every load's note listed every prefetch and why it did not count, so
    // insert-prefetches kept 108 MB of notes (114 MB peak). A note lists 16 of them now.
    let (loads, prefetches) = (1_080, 1_190);
    let load = "   OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src %uint_128 %uint_16 %uint_128 %coord %vp\n";
    let prefetch = "OpSubgroup2DBlockPrefetchINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src %uint_128 %uint_16 %uint_128 %c0\n";
    let text = replace_line(
        &block_load_loop(),
        load,
        &(prefetch.repeat(prefetches) + &load.repeat(loads)),
    );
    let words =
        block_load_loop_with_text(&text, "%c0 = OpConstantComposite %v2uint %uint_0 %uint_0\n");
    assert!(words.len() * 4 < 100_000);
    let (_, report) = run_one(&words, "insert-prefetches");
    let notes: Vec<&String> = report.passes.iter().flat_map(|r| r.stats.notes()).collect();
    assert_eq!(notes.len(), loads);
    let bytes: usize = notes.iter().map(|n| n.len()).sum();
    assert!(bytes < 4_000 * loads, "{bytes} bytes of notes");
    assert!(
        notes[0].ends_with(&format!("and {} more", prefetches - 16)),
        "{}",
        notes[0]
    );
    run_all(words, pipelines(), "pvc");
}

#[test]
fn repeats_of_a_load_far_apart_are_checked_within_a_scan_budget() {
    // A 2D block load, 4,100 stores to another variable, then 1,100 repeats of the load (99 KB):
    // fuse-block-loads checked each repeat for a write between it and the first load, scanning
    // all the stores each time (4.5M alias queries, 1.9 s). The checks of a function scan at
    // most 64 instructions per instruction (plus 65,536) now; past that they fail.
    let (stores, repeats) = (4_100, 1_100);
    let load = "   OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src %uint_128 %uint_16 %uint_128 %coord %vp\n";
    let text = replace_line(
        &block_load_loop(),
        load,
        &format!(
            "{load}{}{}",
            "OpStore %sv %uint_0\n".repeat(stores),
            load.repeat(repeats)
        ),
    );
    let text = replace_line(
        &text,
        "        %var = OpVariable %ptr_fn_arr Function\n",
        "%var = OpVariable %ptr_fn_arr Function\n%sv = OpVariable %ptr_fn_uint Function\n",
    );
    let words = assemble(&text);
    assert!(words.len() * 4 < 100_000);
    let (_, report) = run_one(&words, "fuse-block-loads");
    let stats = &report.passes[0].stats;
    // Only the first repeat can reuse the data (the later ones see the earlier ones use the
    // destination), as before; but only the checks within the budget ran.
    assert_eq!(stats.get("loads_reused"), 1);
    let checked = stats.get("loads_reused") + stats.get("rejected_destination_used_between");
    let over = stats.get("rejected_scan_budget");
    assert_eq!(checked + over, repeats as u64);
    let instructions = (stores + repeats + 20) as u64;
    assert!(
        checked * stores as u64 <= 64 * instructions + (1 << 16),
        "{checked} checked"
    );
    run_all(words, pipelines(), "pvc");
}

#[test]
fn a_group_linkage_name_on_four_thousand_ids_is_stored_once() {
    // A decoration group with a 50,000-byte `LinkageAttributes` name, applied by one
    // `OpGroupDecorate` to 4,000 ids (other decoration groups, 2 words each): the decorations
    // analysis stored a copy of the name per id, 200 MB for a 99 KB module (each pass that
    // reads decorations built it again). The ids share one decoded name now.
    let n = 4_000;
    let defs: String = (0..n)
        .map(|t| format!("%t{t} = OpDecorationGroup\n"))
        .collect();
    let targets: String = (0..n).map(|t| format!(" %t{t}")).collect();
    let groups = format!(
        "OpDecorate %g LinkageAttributes \"{}\" Export\n%g = OpDecorationGroup\n{defs}\
         OpGroupDecorate %g{targets}\n",
        "a".repeat(50_000)
    );
    let text = replace_line(
        &block_load_loop(),
        "               OpDecorate %lid_var Constant\n",
        &format!("OpDecorate %lid_var Constant\n{groups}"),
    );
    let words = assemble(&text);
    assert!(words.len() * 4 < 100_000);
    let m = spvopt_ir::load_words(&words).expect("loads");
    let d = spvopt_analysis::decorations::Decorations::build(&m);
    let ids: Vec<spvopt_ir::Id> = m
        .section_insts(spvopt_ir::Section::Annotation)
        .filter(|(_, i)| i.is(Op::DecorationGroup))
        .filter_map(|(_, i)| i.result_id())
        .collect();
    assert_eq!(ids.len(), n + 1);
    let first = d.linkage(ids[1]).expect("decorated through the group");
    assert_eq!(first.name.len(), 50_000);
    for &t in &ids[2..] {
        let l = d.linkage(t).expect("decorated through the group");
        assert!(std::ptr::eq(l, first), "one decoded name for all ids");
    }
    run_all(words, pipelines(), "pvc");
}

/// `count` MMAs with M = 32, K = 256 (f16 into f32, subgroup 16): no target has the shape, so
/// lower-mma splits or emulates each with M·K = 8,192 steps.
fn large_mmas(count: usize) -> Vec<u32> {
    let text = fixture("lower_mma_emulate_dg2_sg16_f16")
        .replace("OpTypeVector %ushort 8", "OpTypeVector %ushort 512")
        .replace("OpTypeVector %uint 8", "OpTypeVector %uint 128")
        .replace("OpTypeVector %float 8", "OpTypeVector %float 32")
        .replace(
            "%kdim = OpConstant %uint 16",
            "%kdim = OpConstant %uint 256",
        );
    let line = "          %r = OpSubgroupMatrixMultiplyAccumulateINTEL %v8float %kdim %a %b %c MatrixAPackedFloat16INTEL|MatrixBPackedFloat16INTEL\n";
    let more: String = (1..count)
        .map(|k| line.replace("%r =", &format!("%r{k} =")))
        .collect();
    assemble(&replace_line(&text, line, &format!("{line}{more}")))
}

#[test]
fn large_mmas_are_lowered_only_within_a_budget() {
    // Each 8-word MMA of M = 32, K = 256 became about 118,000 words of shuffles and FMAs:
    // 300 of them (a 10 KB module) were 35M words, 573 MB and 1.2 s per target. The MMAs a
    // module has split or emulated now total at most 2^16 + 128 per instruction in M·K.
    let target = Target::named("dg2");
    let (out, _) = spvopt_passes::optimize_words(&large_mmas(8), "lower-mma", &target)
        .expect("8 MMAs: 65,536, within the budget");
    assert!(out.len() > 500_000);
    let words = large_mmas(20);
    let e = match spvopt_passes::optimize_words(&words, "lower-mma", &target) {
        Ok((out, _)) => panic!(
            "20 MMAs (163,840, beyond the budget) became {} words",
            out.len()
        ),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("total M·K of 163840") && !e.contains('\n'),
        "{e}"
    );
    run_all(words, pipelines(), "dg2");
}
