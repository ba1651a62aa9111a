//! Random *valid* OpenCL kernels for Intel GPUs, with a launch for `spv-sim`: the generator of
//! the differential test (`tests/tests/differential.rs`) and the `differential` fuzz target.
//!
//! [`generate`] reads its choices from a byte stream (libFuzzer's input; an exhausted stream
//! reads as "smallest choice, no option"), [`from_seed`] expands a seed into such a stream.
//! Every kernel is SPIR-V 1.4 (`Kernel`, `Addresses`, `Physical64 OpenCL`) that spirv-val
//! accepts, runs on the simulator without undefined behaviour, and writes everything it
//! computes to its output buffers, so any change of meaning by a pass shows as a difference.
//!
//! A kernel `main(src, dst, st, w, h, p, n)` with a fixed subgroup size (8 or 16) runs 1-2
//! subgroups per work-group, 1-2 work-groups. Its body is a random sequence of statements:
//! - 2D block loads (`OpSubgroup2DBlockLoadINTEL`, `...TransformINTEL`, `...TransposeINTEL`) of
//!   random shapes (the target tables' shapes, and some padded / oversized ones so `legalize`
//!   and `split-block-loads` have work), from 2D surfaces of `src` (constant or argument width,
//!   height and pitch) or of the work-group's region of `st` (which stores write: aliasing),
//!   at constant, subgroup-dependent or loop-counter-affine coordinates, partly out of bounds;
//!   each destination is copied (all or part) to the invocation's slice of `dst`;
//! - pairs: a second load right after the first block (what `fuse-block-loads` fuses) or a
//!   near miss (a gap, another row, another pitch, another block count) it must not fuse;
//! - 2D block prefetches (alone and in pairs) and 2D block stores to `st`, from data that a
//!   load brought and divergent code may have changed;
//! - `OpSubgroupMatrixMultiplyAccumulateINTEL` of every element-type class, M in 1..16 and K
//!   of the tables or twice it (shapes targets run, and shapes `lower-mma` must split or
//!   emulate), operands from `src` or from block-loaded data; GEMM loops (A and B block loads
//!   at counter-affine coordinates, an accumulator `OpPhi`);
//! - loops (structured with `OpLoopMerge`, or bottom-tested self loops; constant or
//!   argument-dependent trip counts), nested;
//! - `if`s on the subgroup-local id (divergent: only per-invocation code inside, which writes
//!   into block-loaded data or the output, with an `OpPhi` at the merge) and on uniform values
//!   (any statement inside);
//! - 1D subgroup block reads (`OpSubgroupBlockReadINTEL`, in loops at counter-affine
//!   addresses);
//! - some block operations as OpenCL builtin calls (`intel_sub_group_2d_block_read_16b_8r16x1c`
//!   and friends, imported functions) for `raise-builtins`.
//!
//! Modules are written with rspirv's `dr::Builder` (`writer.rs`): a writer independent of
//! `spvopt-ir`, the crate whose passes the kernels test.
//!
//! Files: this one (the public API, the choice stream, the generator's state and small
//! helpers), `frame.rs` (parameters, prologue, surfaces, the statement loop, the launch),
//! `control.rs` (statement chooser, `if`s, loops), `block_io.rs` (2D block IO and 1D block
//! reads), `gemm.rs` (MMAs and GEMM loops), `mma.rs` (MMA operand types), `writer.rs` (the
//! module writer); `golden.rs` freezes the output (a digest of 3,000 kernels).

mod block_io;
mod control;
mod frame;
mod gemm;
mod mma;
mod writer;

use spirv::{Op, StorageClass};
use spvopt_sim::block_io_2d::Block2dOp;
use spvopt_sim::Launch;

pub use mma::MmaClass;
use mma::{OperandType, Scalar};
use writer::{PhiAt, Writer};

/// The value every kernel stores first, at byte 0 of each invocation's slice of `dst` (tests
/// change it in an output to check that a difference is seen).
pub const MARKER: u32 = 0x5EED_C0DE;

/// Step budget of the launches (every generated kernel needs far fewer).
pub const MAX_STEPS: u64 = 2_000_000;

/// A generated kernel and its launch.
pub struct Kernel {
    pub words: Vec<u32>,
    pub launch: Launch,
    pub summary: Summary,
}

/// What a kernel contains (for coverage figures).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub subgroup_size: u32,
    pub loads: u32,
    pub transform_loads: u32,
    pub transpose_loads: u32,
    pub prefetches: u32,
    pub stores: u32,
    pub adjacent_pairs: u32,
    pub near_misses: u32,
    pub loop_carried_loads: u32,
    pub mma: u32,
    pub gemm_loops: u32,
    pub loops: u32,
    pub divergent_ifs: u32,
    pub uniform_ifs: u32,
    pub builtin_calls: u32,
    pub block_reads_1d: u32,
    pub st_writes: u32,
    pub between_pairs: u32,
    pub identical_pairs: u32,
}

impl Summary {
    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &Summary) {
        self.loads += o.loads;
        self.transform_loads += o.transform_loads;
        self.transpose_loads += o.transpose_loads;
        self.prefetches += o.prefetches;
        self.stores += o.stores;
        self.adjacent_pairs += o.adjacent_pairs;
        self.near_misses += o.near_misses;
        self.loop_carried_loads += o.loop_carried_loads;
        self.mma += o.mma;
        self.gemm_loops += o.gemm_loops;
        self.loops += o.loops;
        self.divergent_ifs += o.divergent_ifs;
        self.uniform_ifs += o.uniform_ifs;
        self.builtin_calls += o.builtin_calls;
        self.block_reads_1d += o.block_reads_1d;
        self.st_writes += o.st_writes;
        self.between_pairs += o.between_pairs;
        self.identical_pairs += o.identical_pairs;
    }
}

/// The kernel a seed gives (the seed expanded to 1 KiB of choices by SplitMix64).
pub fn from_seed(seed: u64) -> Kernel {
    generate(&seed_bytes(seed))
}

/// The choices [`from_seed`] reads for `seed` (also the seeds of the fuzz target's corpus).
pub fn seed_bytes(seed: u64) -> Vec<u8> {
    let mut s = spvopt_sim::launch::SplitMix64(seed);
    (0..1024).map(|_| (s.next_u64() >> 24) as u8).collect()
}

/// The kernel the choices in `data` give. Never fails; every input gives a valid kernel.
pub fn generate(data: &[u8]) -> Kernel {
    Gen::new(data).run()
}

/// Choices read from bytes; an exhausted stream gives 0 / false.
struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = self.data.get(self.at).copied();
        self.at += 1;
        b
    }
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.byte().map_or(0, |b| b as usize % n)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u32) -> bool {
        self.byte()
            .is_some_and(|b| u32::from(b) * 100 < percent * 256)
    }
    fn exhausted(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// A 2D region of a buffer that block operations address.
#[derive(Clone, Copy)]
struct Surface {
    base: u32,
    /// Ids of Memory Width, Height, Pitch.
    width: u32,
    height: u32,
    pitch: u32,
    /// Their values.
    w: u32,
    h: u32,
    in_st: bool,
}

/// A Function-storage array a block load filled, usable while in scope.
#[derive(Clone, Copy)]
struct Loaded {
    var: u32,
    bytes: u32,
    /// Element type id and size.
    elem: u32,
    elem_bytes: u32,
}

#[derive(Clone, Copy)]
struct LoopCtx {
    counter: u32,
    /// Linear iteration number over the enclosing loops (u32 value), and its bound.
    iter: u32,
    iters: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Transform,
    Transpose,
    Prefetch,
    Store,
}

impl Kind {
    fn sim_op(self) -> Block2dOp {
        match self {
            Kind::Load => Block2dOp::Load,
            Kind::Transform => Block2dOp::LoadTransform,
            Kind::Transpose => Block2dOp::LoadTranspose,
            Kind::Prefetch => Block2dOp::Prefetch,
            Kind::Store => Block2dOp::Store,
        }
    }
    fn op(self) -> Op {
        match self {
            Kind::Load => Op::Subgroup2DBlockLoadINTEL,
            Kind::Transform => Op::Subgroup2DBlockLoadTransformINTEL,
            Kind::Transpose => Op::Subgroup2DBlockLoadTransposeINTEL,
            Kind::Prefetch => Op::Subgroup2DBlockPrefetchINTEL,
            Kind::Store => Op::Subgroup2DBlockStoreINTEL,
        }
    }
    fn builtin(self) -> &'static str {
        match self {
            Kind::Load => "read",
            Kind::Transform => "read_transform",
            Kind::Transpose => "read_transpose",
            Kind::Prefetch => "prefetch",
            Kind::Store => "write",
        }
    }
}

/// A block shape: element size, width, height, count.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Shape {
    es: u32,
    w: u32,
    h: u32,
    c: u32,
}

/// Coordinates: a constant part and optional uniform dynamic parts (ids of u32 values).
#[derive(Clone, Copy)]
struct Coord {
    x: i32,
    y: i32,
    x_dyn: Option<u32>,
    y_dyn: Option<u32>,
}

/// Largest per-invocation destination of one load, in bytes.
const MAX_DST_BYTES: u32 = 512;
/// Bytes of `st` each subgroup owns.
const ST_REGION: u32 = 4096;
/// Bytes of `src`.
const SRC_BYTES: u32 = 48 * 1024;
/// Where the per-invocation operand loads of MMAs and scalar code read `src` from.
const SCALAR_AREA: u32 = 40 * 1024;

struct Types {
    void: u32,
    bool_: u32,
    u8_: u32,
    u32_: u32,
    u64_: u32,
    v2u32: u32,
    v3u64: u32,
    p_cw_u8: u32,
    p_cw_u32: u32,
    p_fn_u8: u32,
}

struct Gen<'a> {
    c: Choices<'a>,
    s: Writer,
    t: Types,
    sg: u32,
    nsg: u32,
    groups: u32,
    summary: Summary,
    src: u32,
    dst: u32,
    st: u32,
    /// The uniform scalar arguments w, h, p, n and their values.
    args: [u32; 4],
    arg_values: [u32; 4],
    lid: u32,
    sgid: u32,
    wg: u32,
    out_base: u32,
    st_base: u32,
    /// Reserved id of the `ulong` constant: bytes of dst per invocation.
    per_inv_id: u32,
    out_off: u32,
    surfaces: Vec<Surface>,
    scope: Vec<Loaded>,
    loops: Vec<LoopCtx>,
    /// Label of the block being written.
    label: u32,
    budget: u32,
    /// Builtin declarations made: (name, id).
    builtins: Vec<(String, u32)>,
    /// Whether block shapes may be padded ones no target table has (width 12 bytes, height
    /// 3, ...): `legalize` refuses some of those, so only some kernels have them.
    exotic: bool,
    /// Whether src and st hold arbitrary bytes (NaN, infinity, subnormal floats for the
    /// MMAs) rather than small finite floats.
    wild: bool,
}

impl<'a> Gen<'a> {
    fn new(data: &'a [u8]) -> Gen<'a> {
        let mut s = Writer::new();
        let t = Types {
            void: s.void(),
            bool_: s.bool_(),
            u8_: s.int(8),
            u32_: s.int(32),
            u64_: s.int(64),
            v2u32: 0,
            v3u64: 0,
            p_cw_u8: 0,
            p_cw_u32: 0,
            p_fn_u8: 0,
        };
        let mut g = Gen {
            c: Choices { data, at: 0 },
            s,
            t,
            sg: 16,
            nsg: 1,
            groups: 1,
            summary: Summary::default(),
            src: 0,
            dst: 0,
            st: 0,
            args: [0; 4],
            arg_values: [0; 4],
            lid: 0,
            sgid: 0,
            wg: 0,
            out_base: 0,
            st_base: 0,
            per_inv_id: 0,
            out_off: 0,
            surfaces: Vec::new(),
            scope: Vec::new(),
            loops: Vec::new(),
            label: 0,
            budget: 0,
            builtins: Vec::new(),
            exotic: false,
            wild: false,
        };
        g.t.v2u32 = g.s.vector(g.t.u32_, 2);
        g.t.v3u64 = g.s.vector(g.t.u64_, 3);
        g.t.p_cw_u8 = g.s.pointer(StorageClass::CrossWorkgroup, g.t.u8_);
        g.t.p_cw_u32 = g.s.pointer(StorageClass::CrossWorkgroup, g.t.u32_);
        g.t.p_fn_u8 = g.s.pointer(StorageClass::Function, g.t.u8_);
        g
    }

    // ---- small helpers -----------------------------------------------------------------

    fn u32c(&mut self, v: u32) -> u32 {
        let t = self.t.u32_;
        self.s.constant(t, u64::from(v), 32)
    }

    /// `%r = op %ty operands` in the body.
    fn op(&mut self, op: Op, ty: u32, operands: &[u32]) -> u32 {
        let r = self.s.id();
        self.s.op(op, ty, r, operands)
    }

    fn void_op(&mut self, op: Op, operands: &[u32]) {
        self.s.void_op(op, operands);
    }

    fn label(&mut self, id: u32) {
        self.s.label(id);
        self.label = id;
    }

    fn branch(&mut self, target: u32) {
        self.void_op(Op::Branch, &[target]);
    }

    /// A Function variable of `ty` (declared in the entry block).
    fn variable(&mut self, ty: u32) -> u32 {
        let p = self.s.pointer(StorageClass::Function, ty);
        self.s.function_variable(p)
    }

    fn scalar_type(&mut self, s: Scalar) -> u32 {
        match s {
            Scalar::U8 => self.s.int(8),
            Scalar::U16 => self.s.int(16),
            Scalar::U32 => self.s.int(32),
            Scalar::U64 => self.s.int(64),
            Scalar::F16 => self.s.float(16),
            Scalar::F32 => self.s.float(32),
        }
    }

    fn operand_type(&mut self, o: OperandType) -> u32 {
        let s = self.scalar_type(o.scalar);
        self.s.vector(s, o.count)
    }

    /// `base + offset` bytes (u32 offset id) as a CrossWorkgroup uchar pointer.
    fn cw_offset(&mut self, base: u32, offset: u32) -> u32 {
        let p = self.t.p_cw_u8;
        self.op(Op::InBoundsPtrAccessChain, p, &[base, offset])
    }

    /// The current loop nest's iteration count bound (1 outside loops).
    fn iters(&self) -> u32 {
        self.loops.last().map_or(1, |l| l.iters)
    }

    /// A pointer to `bytes` fresh bytes of this invocation's slice of `dst` (one slot per
    /// iteration of the enclosing loops), aligned to `align`.
    fn out_ptr(&mut self, bytes: u32, align: u32) -> u32 {
        let align = align.clamp(1, 64);
        self.out_off = self.out_off.div_ceil(align) * align;
        let stride = bytes.div_ceil(align) * align;
        let off = self.out_off;
        self.out_off += stride * self.iters();
        let offset = match self.loops.last().copied() {
            None => self.u32c(off),
            Some(l) => {
                let u = self.t.u32_;
                let sc = self.u32c(stride);
                let m = self.op(Op::IMul, u, &[l.iter, sc]);
                let oc = self.u32c(off);
                self.op(Op::IAdd, u, &[m, oc])
            }
        };
        let base = self.out_base;
        self.cw_offset(base, offset)
    }

    /// Stores u32 `value` to a fresh output slot.
    fn observe_u32(&mut self, value: u32) {
        let p = self.out_ptr(4, 4);
        let pt = self.t.p_cw_u32;
        let q = self.op(Op::Bitcast, pt, &[p]);
        self.void_op(Op::Store, &[q, value]);
    }

    /// A per-invocation u32 read from the scalar area of `src` (index `lid + k`).
    fn scalar_from_src(&mut self) -> u32 {
        let u = self.t.u32_;
        let k = self.c.below(64) as u32;
        let kc = self.u32c(SCALAR_AREA / 4 + k);
        let idx = self.op(Op::IAdd, u, &[self.lid, kc]);
        let pt = self.t.p_cw_u32;
        let base = self.op(Op::Bitcast, pt, &[self.src]);
        let p = self.op(Op::InBoundsPtrAccessChain, pt, &[base, idx]);
        self.op(Op::Load, u, &[p])
    }

    /// A per-invocation u32 computed from the subgroup-local id and `src`.
    fn divergent_value(&mut self) -> u32 {
        let u = self.t.u32_;
        let x = if self.c.chance(50) {
            self.scalar_from_src()
        } else {
            let k = self.c.below(7) as u32 + 1;
            let kc = self.u32c(k);
            self.op(Op::IMul, u, &[self.lid, kc])
        };
        let op = self
            .c
            .pick(&[Op::IAdd, Op::BitwiseXor, Op::IMul, Op::ShiftLeftLogical]);
        let k = if op == Op::ShiftLeftLogical {
            self.c.below(8) as u32
        } else {
            self.c.below(1000) as u32 + 1
        };
        let kc = self.u32c(k);
        let y = self.op(op, u, &[x, kc]);
        if self.c.chance(30) {
            self.op(Op::IAdd, u, &[y, self.lid])
        } else {
            y
        }
    }
}

/// An open loop ([`Gen::loop_header`] to [`Gen::loop_end`]): its blocks, counter and the
/// header phis whose latch operands are set when the loop closes.
struct LoopParts {
    structured: bool,
    header: u32,
    cont: u32,
    exit: u32,
    counter: u32,
    next: u32,
    trip: u32,
    counter_phi_at: PhiAt,
    phi_at: Vec<PhiAt>,
}

#[cfg(test)]
mod golden;
