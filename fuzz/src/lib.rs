//! Helpers shared by the fuzz targets: decoding a pipeline / target selector, the bounded
//! simulator launch from a few bytes (`spvopt_sim::fuzz_launch`, re-exported), and the
//! allocation limit. The targets are in `fuzz/fuzz_targets/`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
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
            libc_write(2, msg.as_ptr(), msg.len());
            std::process::abort();
        }
    }
}

fn libc_write(fd: i32, buf: *const u8, n: usize) -> isize {
    // SAFETY: `buf` points to `n` readable bytes (callers pass a slice's pointer and length).
    unsafe { libc::write(fd, buf.cast(), n) }
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

/// Size of the alternate signal stack [`report_crashes_on_alternate_stack`] installs.
const ALT_STACK_BYTES: usize = 1 << 20;

/// The input being run, for the SIGSEGV handler (set by [`note_input`]).
static INPUT_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static INPUT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Records `data` as the input being run: the first statement of every target, so that
/// [`report_crashes_on_alternate_stack`]'s handler can write it out.
pub fn note_input(data: &[u8]) {
    INPUT_PTR.store(data.as_ptr().cast_mut(), Ordering::Relaxed);
    INPUT_LEN.store(data.len(), Ordering::Relaxed);
}

/// Makes a stack overflow (and any other SIGSEGV) a finding with its input saved.
///
/// libFuzzer's own SIGSEGV handler runs on the faulting stack, so after a stack overflow it
/// cannot run and the process dies silently with no input saved (what ended two `pipeline`
/// runs on 2026-11-25); Rust's overflow report is not there either, since `main` is
/// libFuzzer's. Called from a target's `init` (before libFuzzer installs its handlers), this
/// gives the main thread a 1 MiB alternate signal stack and a SIGSEGV handler on it (libFuzzer
/// keeps `SA_ONSTACK` and chains to it). The handler writes the input recorded by
/// [`note_input`] to `sigsegv-PID.input` in the working directory with plain system calls and
/// ends the process with exit code 77. It does not leave the report to libFuzzer: an overflow
/// inside `malloc` leaves the allocator's lock held, and libFuzzer's crash report (which
/// allocates to copy the input) then deadlocks — what the first overflow this handler caught
/// did, on 2026-11-25 (its input was read out of the hung process with gdb).
pub fn report_crashes_on_alternate_stack() {
    // SAFETY: plain libc calls with valid arguments; the mapping is never freed (it must live
    // as long as the process), and the handler only calls async-signal-safe functions.
    unsafe {
        let stack = libc::mmap(
            std::ptr::null_mut(),
            ALT_STACK_BYTES,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            return;
        }
        let ss = libc::stack_t {
            ss_sp: stack,
            ss_flags: 0,
            ss_size: ALT_STACK_BYTES,
        };
        if libc::sigaltstack(&ss, std::ptr::null_mut()) != 0 {
            return;
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_segv as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGSEGV, &sa, std::ptr::null_mut());
    }
}

/// `prefix`, then `n` in decimal or hex (`base`), then `suffix`, into `buf` without
/// allocating; returns the length written.
fn put_number(buf: &mut [u8], prefix: &[u8], n: usize, base: usize, suffix: &[u8]) -> usize {
    let mut at = 0;
    for &b in prefix {
        buf[at] = b;
        at += 1;
    }
    let mut digits = [0u8; 20];
    let (mut k, mut x) = (0, n);
    loop {
        digits[k] = b"0123456789abcdef"[x % base];
        k += 1;
        x /= base;
        if x == 0 {
            break;
        }
    }
    while k > 0 {
        k -= 1;
        buf[at] = digits[k];
        at += 1;
    }
    for &b in suffix {
        buf[at] = b;
        at += 1;
    }
    at
}

extern "C" fn on_segv(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    let mut line = [0u8; 160];
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let n = put_number(
        &mut line,
        b"==spvopt-fuzz== SIGSEGV at 0x",
        addr,
        16,
        b" (a stack overflow when just under the stack)\n",
    );
    libc_write(2, line.as_ptr(), n);
    // SAFETY: async-signal-safe calls only; the recorded input outlives the run that faults.
    unsafe {
        let pid = libc::getpid() as usize;
        let n = put_number(&mut line, b"sigsegv-", pid, 10, b".input\0");
        let fd = libc::open(
            line.as_ptr().cast(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC,
            0o644,
        );
        let (ptr, len) = (
            INPUT_PTR.load(Ordering::Relaxed),
            INPUT_LEN.load(Ordering::Relaxed),
        );
        if fd >= 0 && !ptr.is_null() {
            libc::write(fd, ptr.cast(), len);
            libc::close(fd);
            let say = b"==spvopt-fuzz== input written to ";
            libc_write(2, say.as_ptr(), say.len());
            libc_write(2, line.as_ptr(), n - 1);
            libc_write(2, b"\n".as_ptr(), 1);
        }
        libc::_exit(77);
    }
}
