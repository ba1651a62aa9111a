//! Synthetic OpenCL kernels for benchmarks.
//!
//! [`generate_kernel`] builds a valid SPIR-V 1.2 OpenCL module (`Kernel`, `Addresses`, `Int64`,
//! `Physical64 OpenCL`) of a requested size, so the loader, emitter and passes can be timed
//! against `spirv-opt` on 10k / 100k / 1M instruction inputs. It uses no dependencies: words are
//! written directly, with the opcode and enumerant numbers of the SPIR-V 1.2 spec as constants.
//!
//! Shape of a module:
//! - one kernel `bench_kernel(global float* a, global float* b, global float* out, uint n)` that
//!   reads `GlobalInvocationId` (an `Input` variable listed in its interface) and calls a number of
//!   helper functions `float helper_K(a, b, out, ulong idx, float x, uint n)`; helpers call
//!   lower-numbered helpers of their group of four (no recursion, call depth at most 4);
//! - straight-line code mixing integer and float arithmetic, conversions, `OpenCL.std` calls (fma,
//!   fmin, fmax, sqrt, fabs, u_min, u_max), `OpPtrAccessChain` + `OpLoad`/`OpStore` on the buffers
//!   indexed from the invocation id (plus loop counters), selects, `Function` variables, calls;
//! - structured diamonds (`OpSelectionMerge`, `OpBranchConditional`, arms, merge block with
//!   `OpPhi`; some without an else arm) and loops (`OpLoopMerge`, header with `OpPhi` for the
//!   counter and an accumulator, continue block with the back edge) with constant trip counts
//!   of 2..8, nested at most two deep;
//! - dead values (pure results nobody uses) for DCE, `OpName` for functions, parameters, every
//!   block and about a third of the values, `OpString`/`OpSource`/`OpLine`/`OpNoLine`/
//!   `OpModuleProcessed` for strip-debug, and `OpDecorate` (built-in, parameter attributes,
//!   `FPFastMathMode`).
//!
//! The instruction count lands exactly on the target (for targets above a few hundred): every
//! construct is generated under an instruction budget, and the kernel's tail is filled with
//! single instructions. Generation is linear and deterministic for a given seed.

mod en;
mod op;
mod statements;

const MAGIC: u32 = 0x0723_0203;
const VERSION_1_2: u32 = 0x0001_0200;

/// Largest number of instructions one leaf statement can emit (checked by a debug assertion).
const MAX_LEAF: usize = 16;
/// Instructions a diamond or loop emits besides its arms / body (checked by a debug assertion).
const CONSTRUCT_OVERHEAD: usize = 32;
/// Smallest budget for which a diamond or loop is started.
const MIN_CONSTRUCT: usize = CONSTRUCT_OVERHEAD + 2 * MAX_LEAF;
/// Roughly how many instructions each function gets.
const INSTRUCTIONS_PER_FUNCTION: usize = 6000;
const MAX_HELPERS: usize = 160;
/// Instructions the kernel emits after its body: access chain, store, return, function end.
const KERNEL_CLOSING: usize = 4;

/// Generates a valid OpenCL Kernel-environment SPIR-V module with about `target_instructions`
/// instructions (within 1%), deterministic for a given seed.
///
/// The count is exact for targets of more than a few hundred instructions; smaller targets give
/// the smallest module the generator makes (a kernel and two helpers, 141 instructions).
pub fn generate_kernel(target_instructions: usize, seed: u64) -> Vec<u32> {
    Gen::new(target_instructions, seed).run()
}

/// Counts instructions of a module (for reporting). Stops at a zero word count.
pub fn count_instructions(words: &[u32]) -> usize {
    let mut at = 5;
    let mut n = 0;
    while at < words.len() {
        let word_count = (words[at] >> 16) as usize;
        if word_count == 0 {
            break;
        }
        at += word_count;
        n += 1;
    }
    n
}

/// SplitMix64: tiny, fast, good enough for shaping code.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

/// Value types the generated code computes with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    F32 = 0,
    U32 = 1,
    U64 = 2,
}

struct Types {
    void: u32,
    bool_: u32,
    u32_: u32,
    u64_: u32,
    f32_: u32,
    v3u64: u32,
    ptr_input_v3u64: u32,
    ptr_global_f32: u32,
    ptr_function_f32: u32,
    fn_kernel: u32,
    fn_helper: u32,
}

impl Types {
    fn of(&self, ty: Ty) -> u32 {
        match ty {
            Ty::F32 => self.f32_,
            Ty::U32 => self.u32_,
            Ty::U64 => self.u64_,
        }
    }
}

/// Per-function generation state.
struct Func {
    /// Values (per [`Ty`]) that dominate the current point, as scoped stacks.
    pools: [Vec<u32>; 3],
    /// Label of the block being filled.
    block: u32,
    /// Buffers `a`, `b`, `out`.
    bufs: [u32; 3],
    /// The `ulong` base index (invocation id, or the helper's `idx` parameter).
    base: u32,
    /// The `uint n` parameter.
    n: u32,
    /// `Function`-storage float variables.
    vars: [u32; 2],
    /// Counters of the enclosing loops, innermost last.
    loop_counters: Vec<u32>,
    /// Helpers (indices into `Gen::helpers`) this function may call.
    callees: std::ops::Range<usize>,
    is_kernel: bool,
}

impl Func {
    fn marks(&self) -> [usize; 3] {
        [
            self.pools[0].len(),
            self.pools[1].len(),
            self.pools[2].len(),
        ]
    }
    fn truncate(&mut self, marks: [usize; 3]) {
        for (pool, mark) in self.pools.iter_mut().zip(marks) {
            pool.truncate(mark);
        }
    }
    fn push(&mut self, ty: Ty, id: u32) {
        self.pools[ty as usize].push(id);
    }
}

#[derive(Clone, Copy)]
enum Leaf {
    IntArith,
    FloatArith,
    ExtInst,
    Convert,
    Load,
    Store,
    Select,
    Dead,
    Variable,
    Call,
    NoLine,
}

const LEAVES: [(Leaf, usize); 11] = [
    (Leaf::IntArith, 20),
    (Leaf::FloatArith, 22),
    (Leaf::ExtInst, 7),
    (Leaf::Convert, 8),
    (Leaf::Load, 10),
    (Leaf::Store, 4),
    (Leaf::Select, 4),
    (Leaf::Dead, 5),
    (Leaf::Variable, 3),
    (Leaf::Call, 1),
    (Leaf::NoLine, 1),
];

struct Gen {
    rng: Rng,
    target: usize,
    next_id: u32,
    /// Instructions emitted so far, over all sections.
    count: usize,
    /// OpString, OpSource.
    debug_source: Vec<u32>,
    /// OpName.
    names: Vec<u32>,
    /// OpModuleProcessed.
    processed: Vec<u32>,
    annotations: Vec<u32>,
    /// Types, constants, global variables.
    globals: Vec<u32>,
    /// Function definitions.
    code: Vec<u32>,
    t: Types,
    ext_cl: u32,
    file: u32,
    gid_var: u32,
    kernel_id: u32,
    line: u32,
    const_u32: Vec<u32>,
    const_u64: Vec<u32>,
    const_f32: Vec<u32>,
    helpers: Vec<u32>,
    helper_called: Vec<bool>,
    uncalled: usize,
}

fn emit(buf: &mut Vec<u32>, opcode: u32, operands: &[u32]) {
    buf.push(((operands.len() as u32 + 1) << 16) | opcode);
    buf.extend_from_slice(operands);
}

/// Emits an instruction with a literal string operand between `before` and `after`.
fn emit_str(buf: &mut Vec<u32>, opcode: u32, before: &[u32], s: &[u8], after: &[u32]) {
    let str_words = s.len() / 4 + 1;
    buf.push((((1 + before.len() + str_words + after.len()) as u32) << 16) | opcode);
    buf.extend_from_slice(before);
    for chunk_start in (0..str_words * 4).step_by(4) {
        let mut word = 0u32;
        for k in 0..4 {
            let byte = s.get(chunk_start + k).copied().unwrap_or(0);
            word |= (byte as u32) << (8 * k);
        }
        buf.push(word);
    }
    buf.extend_from_slice(after);
}

impl Gen {
    fn new(target: usize, seed: u64) -> Gen {
        let mut rng = Rng(seed ^ 0x5350_565F_4F50_5421);
        rng.next();
        let estimate = target.saturating_mul(5);
        Gen {
            rng,
            target,
            next_id: 1,
            count: 0,
            debug_source: Vec::new(),
            names: Vec::with_capacity(estimate / 8),
            processed: Vec::new(),
            annotations: Vec::new(),
            globals: Vec::new(),
            code: Vec::with_capacity(estimate),
            t: Types {
                void: 0,
                bool_: 0,
                u32_: 0,
                u64_: 0,
                f32_: 0,
                v3u64: 0,
                ptr_input_v3u64: 0,
                ptr_global_f32: 0,
                ptr_function_f32: 0,
                fn_kernel: 0,
                fn_helper: 0,
            },
            ext_cl: 0,
            file: 0,
            gid_var: 0,
            kernel_id: 0,
            line: 1,
            const_u32: vec![0; 257],
            const_u64: vec![0; 33],
            const_f32: vec![0; 32],
            helpers: Vec::new(),
            helper_called: Vec::new(),
            uncalled: 0,
        }
    }

    fn id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn code(&mut self, opcode: u32, operands: &[u32]) {
        emit(&mut self.code, opcode, operands);
        self.count += 1;
    }

    fn global(&mut self, opcode: u32, operands: &[u32]) {
        emit(&mut self.globals, opcode, operands);
        self.count += 1;
    }

    fn decorate(&mut self, operands: &[u32]) {
        emit(&mut self.annotations, op::DECORATE, operands);
        self.count += 1;
    }

    fn name(&mut self, id: u32, name: &[u8]) {
        emit_str(&mut self.names, op::NAME, &[id], name, &[]);
        self.count += 1;
    }

    /// Names `id` as `base.id`, the way clang numbers its temporaries.
    fn name_numbered(&mut self, id: u32, base: &[u8]) {
        let mut buf = [0u8; 40];
        let len = base.len().min(24);
        buf[..len].copy_from_slice(&base[..len]);
        buf[len] = b'.';
        let mut digits = [0u8; 10];
        let mut n = id;
        let mut d = 0;
        loop {
            digits[d] = b'0' + (n % 10) as u8;
            d += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for k in 0..d {
            buf[len + 1 + k] = digits[d - 1 - k];
        }
        self.name(id, &buf[..len + 1 + d]);
    }

    /// Names about a third of the values.
    fn maybe_name(&mut self, id: u32, base: &[u8]) {
        if self.rng.percent(33) {
            self.name_numbered(id, base);
        }
    }

    fn label(&mut self, f: &mut Func, label: u32, base: &[u8]) {
        self.code(op::LABEL, &[label]);
        self.name_numbered(label, base);
        f.block = label;
    }

    fn cu32(&mut self, value: u32) -> u32 {
        let slot = value as usize;
        if self.const_u32[slot] == 0 {
            let id = self.id();
            let ty = self.t.u32_;
            self.global(op::CONSTANT, &[ty, id, value]);
            self.const_u32[slot] = id;
        }
        self.const_u32[slot]
    }

    fn cu64(&mut self, value: u32) -> u32 {
        let slot = value as usize;
        if self.const_u64[slot] == 0 {
            let id = self.id();
            let ty = self.t.u64_;
            // 64-bit literals are two words, low-order first.
            self.global(op::CONSTANT, &[ty, id, value, 0]);
            self.const_u64[slot] = id;
        }
        self.const_u64[slot]
    }

    /// Float constant `(k + 1) * 0.25`, never zero.
    fn cf32(&mut self, k: usize) -> u32 {
        if self.const_f32[k] == 0 {
            let id = self.id();
            let ty = self.t.f32_;
            let bits = ((k + 1) as f32 * 0.25).to_bits();
            self.global(op::CONSTANT, &[ty, id, bits]);
            self.const_f32[k] = id;
        }
        self.const_f32[k]
    }

    fn constant(&mut self, ty: Ty) -> u32 {
        match ty {
            Ty::F32 => {
                let k = self.rng.below(32);
                self.cf32(k)
            }
            Ty::U32 => {
                let v = self.rng.below(17) as u32;
                self.cu32(v)
            }
            Ty::U64 => {
                let v = self.rng.below(33) as u32;
                self.cu64(v)
            }
        }
    }

    /// A value of type `ty` available at the current point, mostly a recent one.
    fn pick(&mut self, f: &Func, ty: Ty) -> u32 {
        let pool = &f.pools[ty as usize];
        let len = pool.len();
        debug_assert!(len > 0);
        let at = if self.rng.percent(80) {
            len - 1 - self.rng.below(len.min(12))
        } else {
            self.rng.below(len)
        };
        pool[at]
    }

    /// A value or, a quarter of the time, a constant.
    fn operand(&mut self, f: &Func, ty: Ty) -> u32 {
        if self.rng.percent(25) {
            self.constant(ty)
        } else {
            self.pick(f, ty)
        }
    }

    fn run(mut self) -> Vec<u32> {
        self.preamble();
        let helper_count = (self.target / INSTRUCTIONS_PER_FUNCTION).clamp(2, MAX_HELPERS);
        for _ in 0..helper_count {
            let id = self.id();
            self.helpers.push(id);
            self.helper_called.push(false);
        }
        self.uncalled = helper_count;
        let share = self.target.saturating_sub(self.count) / (helper_count + 1);
        for k in 0..helper_count {
            let end = self.count + share;
            self.helper(k, end);
        }
        self.kernel();
        self.assemble()
    }

    fn preamble(&mut self) {
        // Counted here, emitted in `assemble`: 3 capabilities, the import, the memory model, the
        // entry point.
        self.count += 6;
        self.ext_cl = self.id();

        self.file = self.id();
        let file = self.file;
        emit_str(
            &mut self.debug_source,
            op::STRING,
            &[file],
            b"/tmp/bench/bench_kernel.cl",
            &[],
        );
        emit(
            &mut self.debug_source,
            op::SOURCE,
            &[en::SOURCE_OPENCL_C, 102000, file],
        );
        emit_str(
            &mut self.processed,
            op::MODULE_PROCESSED,
            &[],
            b"spv-opt bench_gen",
            &[],
        );
        self.count += 3;

        let t = Types {
            void: self.id(),
            bool_: self.id(),
            u32_: self.id(),
            u64_: self.id(),
            f32_: self.id(),
            v3u64: self.id(),
            ptr_input_v3u64: self.id(),
            ptr_global_f32: self.id(),
            ptr_function_f32: self.id(),
            fn_kernel: self.id(),
            fn_helper: self.id(),
        };
        self.global(op::TYPE_VOID, &[t.void]);
        self.global(op::TYPE_BOOL, &[t.bool_]);
        self.global(op::TYPE_INT, &[t.u32_, 32, 0]);
        self.global(op::TYPE_INT, &[t.u64_, 64, 0]);
        self.global(op::TYPE_FLOAT, &[t.f32_, 32]);
        self.global(op::TYPE_VECTOR, &[t.v3u64, t.u64_, 3]);
        self.global(
            op::TYPE_POINTER,
            &[t.ptr_input_v3u64, en::STORAGE_INPUT, t.v3u64],
        );
        self.global(
            op::TYPE_POINTER,
            &[t.ptr_global_f32, en::STORAGE_CROSS_WORKGROUP, t.f32_],
        );
        self.global(
            op::TYPE_POINTER,
            &[t.ptr_function_f32, en::STORAGE_FUNCTION, t.f32_],
        );
        let p = t.ptr_global_f32;
        self.global(op::TYPE_FUNCTION, &[t.fn_kernel, t.void, p, p, p, t.u32_]);
        self.global(
            op::TYPE_FUNCTION,
            &[t.fn_helper, t.f32_, p, p, p, t.u64_, t.f32_, t.u32_],
        );
        self.name(t.u32_, b"uint");
        self.name(t.u64_, b"ulong");
        self.name(t.f32_, b"float");
        self.t = t;

        self.gid_var = self.id();
        let (gid, ptr) = (self.gid_var, self.t.ptr_input_v3u64);
        self.global(op::LINE, &[self.file, 1, 1]);
        self.global(op::VARIABLE, &[ptr, gid, en::STORAGE_INPUT]);
        self.global(op::NO_LINE, &[]);
        self.name(gid, b"__spirv_BuiltInGlobalInvocationId");
        self.decorate(&[
            gid,
            en::DECORATION_BUILT_IN,
            en::BUILT_IN_GLOBAL_INVOCATION_ID,
        ]);
        self.decorate(&[gid, en::DECORATION_CONSTANT]);
    }

    /// Function header shared by helpers and the kernel: parameters, entry block, variables.
    fn params(&mut self, names: &[&[u8]], types: &[u32]) -> Vec<u32> {
        let mut ids = Vec::with_capacity(types.len());
        for (name, &ty) in names.iter().zip(types) {
            let id = self.id();
            self.code(op::FUNCTION_PARAMETER, &[ty, id]);
            self.name(id, name);
            ids.push(id);
        }
        ids
    }

    fn pointer_param_attrs(&mut self, bufs: [u32; 3], read_only: bool) {
        for (k, &buf) in bufs.iter().enumerate() {
            self.decorate(&[
                buf,
                en::DECORATION_FUNC_PARAM_ATTR,
                en::PARAM_ATTR_NO_CAPTURE,
            ]);
            if read_only && k < 2 {
                self.decorate(&[buf, en::DECORATION_FUNC_PARAM_ATTR, en::PARAM_ATTR_NO_WRITE]);
            }
            if read_only {
                self.decorate(&[buf, en::DECORATION_FUNC_PARAM_ATTR, en::PARAM_ATTR_NO_ALIAS]);
            }
        }
    }

    fn entry_block(&mut self, f: &mut Func) {
        let entry = self.id();
        self.code(op::LABEL, &[entry]);
        self.name(entry, b"entry");
        f.block = entry;
        for (k, name) in [&b"acc"[..], &b"tmp"[..]].iter().enumerate() {
            let var = self.id();
            self.code(
                op::VARIABLE,
                &[self.t.ptr_function_f32, var, en::STORAGE_FUNCTION],
            );
            self.name(var, name);
            f.vars[k] = var;
        }
        self.line_info();
    }

    fn helper(&mut self, k: usize, end: usize) {
        let id = self.helpers[k];
        let t = (self.t.f32_, self.t.fn_helper, self.t.ptr_global_f32);
        self.code(op::FUNCTION, &[t.0, id, en::FUNCTION_CONTROL_NONE, t.1]);
        self.name_numbered(id, b"helper");
        let p = self.params(
            &[b"a", b"b", b"out", b"idx", b"x", b"n"],
            &[t.2, t.2, t.2, self.t.u64_, self.t.f32_, self.t.u32_],
        );
        let bufs = [p[0], p[1], p[2]];
        self.pointer_param_attrs(bufs, false);
        let mut f = Func {
            pools: [vec![p[4]], vec![p[5]], vec![p[3]]],
            block: 0,
            bufs,
            base: p[3],
            n: p[5],
            vars: [0; 2],
            loop_counters: Vec::new(),
            callees: (k - k % 4)..k,
            is_kernel: false,
        };
        self.entry_block(&mut f);
        let x = p[4];
        self.code(op::STORE, &[f.vars[0], x, en::MEMORY_ACCESS_ALIGNED, 4]);
        self.code(op::STORE, &[f.vars[1], x, en::MEMORY_ACCESS_ALIGNED, 4]);
        self.load(&mut f);

        self.body(&mut f, end.saturating_sub(2));
        let result = self.pick(&f, Ty::F32);
        self.code(op::RETURN_VALUE, &[result]);
        self.code(op::FUNCTION_END, &[]);
    }

    fn kernel(&mut self) {
        let kernel = self.id();
        self.kernel_id = kernel;
        let t = (self.t.void, self.t.fn_kernel, self.t.ptr_global_f32);
        self.code(op::FUNCTION, &[t.0, kernel, en::FUNCTION_CONTROL_NONE, t.1]);
        self.name(kernel, b"bench_kernel");
        let p = self.params(&[b"a", b"b", b"out", b"n"], &[t.2, t.2, t.2, self.t.u32_]);
        let bufs = [p[0], p[1], p[2]];
        self.pointer_param_attrs(bufs, true);
        let mut f = Func {
            pools: [Vec::new(), vec![p[3]], Vec::new()],
            block: 0,
            bufs,
            base: 0,
            n: p[3],
            vars: [0; 2],
            loop_counters: Vec::new(),
            callees: 0..self.helpers.len(),
            is_kernel: true,
        };
        self.entry_block(&mut f);
        let (gid_vec, gid, gid32) = (self.id(), self.id(), self.id());
        self.code(
            op::LOAD,
            &[
                self.t.v3u64,
                gid_vec,
                self.gid_var,
                en::MEMORY_ACCESS_ALIGNED,
                32,
            ],
        );
        self.code(op::COMPOSITE_EXTRACT, &[self.t.u64_, gid, gid_vec, 0]);
        self.code(op::U_CONVERT, &[self.t.u32_, gid32, gid]);
        self.name(gid, b"gid");
        self.name(gid32, b"gid32");
        f.base = gid;
        f.push(Ty::U64, gid);
        f.push(Ty::U32, gid32);
        let (ptr, x) = (self.id(), self.id());
        self.code(
            op::PTR_ACCESS_CHAIN,
            &[self.t.ptr_global_f32, ptr, bufs[0], gid],
        );
        self.code(
            op::LOAD,
            &[self.t.f32_, x, ptr, en::MEMORY_ACCESS_ALIGNED, 4],
        );
        self.name(x, b"x");
        f.push(Ty::F32, x);
        self.code(op::STORE, &[f.vars[0], x, en::MEMORY_ACCESS_ALIGNED, 4]);
        self.code(op::STORE, &[f.vars[1], x, en::MEMORY_ACCESS_ALIGNED, 4]);

        let start = self.count;
        let body_end = self.target.saturating_sub(KERNEL_CLOSING);
        let helper_count = self.helpers.len();
        let spacing = body_end.saturating_sub(start) / (helper_count + 1);
        let mut next_scheduled = 0;
        loop {
            // Calls to every helper, spread evenly over the kernel.
            while next_scheduled < helper_count
                && self.count >= start + (next_scheduled + 1) * spacing
                && self.count + MAX_LEAF * (self.uncalled + 1) <= body_end
            {
                if !self.helper_called[next_scheduled] {
                    self.call_helper(&mut f, next_scheduled);
                }
                next_scheduled += 1;
            }
            let reserve = MAX_LEAF * self.uncalled;
            let remaining = body_end.saturating_sub(self.count + reserve);
            if remaining < MAX_LEAF {
                break;
            }
            self.statement(&mut f, 0, remaining);
        }
        for k in 0..helper_count {
            if !self.helper_called[k] {
                self.call_helper(&mut f, k);
            }
        }
        // Fill to the exact count with single instructions that create nothing else.
        while self.count < body_end {
            let id = self.id();
            let (ty, opcode) = match self.rng.below(3) {
                0 => (Ty::F32, op::F_ADD),
                1 => (Ty::F32, op::F_MUL),
                _ => (Ty::U32, op::I_ADD),
            };
            let (a, b) = (self.pick(&f, ty), self.pick(&f, ty));
            self.code(opcode, &[self.t.of(ty), id, a, b]);
            f.push(ty, id);
        }
        let (ptr, value) = (self.id(), self.pick(&f, Ty::F32));
        self.code(
            op::PTR_ACCESS_CHAIN,
            &[self.t.ptr_global_f32, ptr, bufs[2], gid],
        );
        self.code(op::STORE, &[ptr, value, en::MEMORY_ACCESS_ALIGNED, 4]);
        self.code(op::RETURN, &[]);
        self.code(op::FUNCTION_END, &[]);
    }

    fn assemble(self) -> Vec<u32> {
        let mut out = Vec::with_capacity(
            64 + self.debug_source.len()
                + self.names.len()
                + self.processed.len()
                + self.annotations.len()
                + self.globals.len()
                + self.code.len(),
        );
        out.extend_from_slice(&[MAGIC, VERSION_1_2, 0, self.next_id, 0]);
        for cap in [en::CAP_ADDRESSES, en::CAP_KERNEL, en::CAP_INT64] {
            emit(&mut out, op::CAPABILITY, &[cap]);
        }
        emit_str(
            &mut out,
            op::EXT_INST_IMPORT,
            &[self.ext_cl],
            b"OpenCL.std",
            &[],
        );
        emit(
            &mut out,
            op::MEMORY_MODEL,
            &[en::ADDRESSING_PHYSICAL64, en::MEMORY_MODEL_OPENCL],
        );
        emit_str(
            &mut out,
            op::ENTRY_POINT,
            &[en::EXECUTION_MODEL_KERNEL, self.kernel_id],
            b"bench_kernel",
            &[self.gid_var],
        );
        out.extend_from_slice(&self.debug_source);
        out.extend_from_slice(&self.names);
        out.extend_from_slice(&self.processed);
        out.extend_from_slice(&self.annotations);
        out.extend_from_slice(&self.globals);
        out.extend_from_slice(&self.code);
        out
    }
}
