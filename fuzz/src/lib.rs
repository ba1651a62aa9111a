//! Helpers shared by the fuzz targets: decoding a pipeline / target selector, the bounded
//! simulator launch from a few bytes (`spvopt_sim::fuzz_launch`, re-exported), and the
//! allocation limit. The targets are in `fuzz/fuzz_targets/`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;

use spvopt_analysis::Target;

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

pub use spvopt_sim::fuzz_launch::{launch_for, MAX_STEPS};
