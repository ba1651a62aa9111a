//! Helpers shared by the fuzz targets: decoding a pipeline / target selector and building a
//! bounded simulator launch from a few bytes. The targets are in `fuzz/fuzz_targets/`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;

use spvopt_analysis::Target;
use spvopt_ir::spirv::Op;
use spvopt_ir::Module;
use spvopt_sim::{Arg, Launch};

/// The largest single allocation a fuzz input may make: 1 GiB, issue 11's budget.
pub const MAX_ALLOCATION: usize = 1 << 30;

/// The system allocator, aborting (a libFuzzer crash, input saved) on any single allocation
/// above [`MAX_ALLOCATION`]. libFuzzer's own `-malloc_limit_mb` needs a sanitizer's malloc
/// hooks, so uninstrumented-memory builds (`cargo fuzz run -s none`, several times the
/// executions per second; the crates are safe Rust, which ASan has nothing to add to) get the
/// same limit from here; with ASan both apply.
pub struct LimitedAlloc;

impl LimitedAlloc {
    fn check(size: usize) {
        if size > MAX_ALLOCATION {
            // No allocation while reporting: write straight to stderr, then abort.
            let msg = b"==spvopt-fuzz== single allocation above 1 GiB (MAX_ALLOCATION)\n";
            unsafe { libc_write(2, msg.as_ptr(), msg.len()) };
            std::process::abort();
        }
    }
}

extern "C" {
    #[link_name = "write"]
    fn libc_write(fd: i32, buf: *const u8, n: usize) -> isize;
}

// SAFETY: forwards to `System` unchanged after the size check.
unsafe impl GlobalAlloc for LimitedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::check(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LimitedAlloc = LimitedAlloc;

/// Every registered pass alone, then pipelines that combine them.
pub fn pipelines() -> Vec<String> {
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

/// `(pipeline, target, module bytes)` from a fuzz input: byte 0 picks the pipeline, byte 1
/// the target.
pub fn split_selector(data: &[u8]) -> Option<(&'static str, &'static Target, &[u8])> {
    static CHOICES: OnceLock<(Vec<String>, Vec<Target>)> = OnceLock::new();
    if data.len() < 2 {
        return None;
    }
    let (p, targets) = CHOICES.get_or_init(|| (pipelines(), Target::all()));
    let pipeline = &p[data[0] as usize % p.len()];
    let target = &targets[data[1] as usize % targets.len()];
    Some((pipeline, target, &data[2..]))
}

/// Step budget per subgroup: keeps every input well under a second.
pub const MAX_STEPS: u64 = 20_000;

/// A launch of `m`'s first entry point from the 8 selector bytes, or `None` when it has no
/// entry point or a parameter type we do not feed.
pub fn launch_for(m: &Module, sel: &[u8]) -> Option<Launch> {
    let (_, ep) = m.section_insts(spvopt_ir::Section::EntryPoint).next()?;
    let func_id = ep.operand_id(1)?;
    let name = spvopt_ir::grammar::decode_string(&ep.operands()[2..])?.to_string();
    let f = m
        .function_ids()
        .find(|&f| m.function_result(f) == Some(func_id))?;
    let mut args = Vec::new();
    let mut seed = u64::from(sel[7]) | 1;
    for &p in &m.function(f).header {
        let param = m.inst(p);
        if !param.is(Op::FunctionParameter) {
            continue;
        }
        let ty = m.def_inst(param.result_type()?)?;
        args.push(match ty.op()? {
            Op::TypePointer if ty.operand_word(0) == Some(4) => Arg::Local(1024),
            Op::TypePointer => {
                seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
                Arg::Buffer {
                    bytes: (0..4096u64)
                        .map(|i| (seed.wrapping_mul(i + 1) >> 56) as u8)
                        .collect(),
                    ty: None,
                    ulp: None,
                }
            }
            Op::TypeInt | Op::TypeFloat => {
                let width = ty.operand_word(0)?;
                let kind = if ty.is(Op::TypeFloat) { "f" } else { "u" };
                let ty_name = format!("{kind}{width}");
                let value = u64::from(sel[args.len() % 4]);
                let bytes = value.to_le_bytes()[..(width as usize / 8).clamp(1, 8)].to_vec();
                Arg::Scalar { ty: ty_name, bytes }
            }
            _ => return None,
        });
    }
    let local = [u64::from(sel[4] % 4 + 1) * 8, 1, 1];
    let groups = u64::from(sel[5] % 3 + 1);
    let mut launch = Launch::new(&name, [local[0] * groups, 1, 1], local, args);
    launch.subgroup_size = Some(if sel[6] & 1 == 0 { 8 } else { 16 });
    launch.max_steps = MAX_STEPS;
    Some(launch)
}
