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

mod mma;
mod writer;

use spirv::{BuiltIn, Capability, Decoration, Op, StorageClass};
use spvopt_sim::block_io_2d::{self, Block2dOp, Block2dParams};
use spvopt_sim::subgroup::Subgroup;
use spvopt_sim::{Arg, Launch};

pub use mma::MmaClass;
use mma::{OperandType, Operands, Scalar};
use rspirv::dr::Operand;
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

    // ---- the module ----------------------------------------------------------------------

    fn run(mut self) -> Kernel {
        self.sg = if self.c.chance(25) { 8 } else { 16 };
        self.summary.subgroup_size = self.sg;
        self.nsg = 1 + self.c.below(2) as u32;
        self.groups = 1 + self.c.below(2) as u32;
        self.budget = 3 + self.c.below(10) as u32;
        self.exotic = self.c.chance(25);
        self.wild = self.c.chance(20);

        let t_u32 = self.t.u32_;
        let p_cw = self.t.p_cw_u8;
        let fn_ty = self
            .s
            .function_type(self.t.void, &[p_cw, p_cw, p_cw, t_u32, t_u32, t_u32, t_u32]);
        let main = self.s.id();
        self.src = self.s.id();
        self.dst = self.s.id();
        self.st = self.s.id();
        for i in 0..4 {
            self.args[i] = self.s.id();
        }
        for (id, name) in [
            (main, "main"),
            (self.src, "src"),
            (self.dst, "dst"),
            (self.st, "st"),
            (self.args[0], "w"),
            (self.args[1], "h"),
            (self.args[2], "p"),
            (self.args[3], "n"),
        ] {
            self.s.name(id, name);
        }
        // builtin variables
        let p_in_v3 = self.s.pointer(StorageClass::Input, self.t.v3u64);
        let p_in_u32 = self.s.pointer(StorageClass::Input, t_u32);
        let mut interface = Vec::new();
        let mut builtin_var = |g: &mut Gen, ty: u32, b: BuiltIn| {
            let v = g.s.global_variable(ty, StorageClass::Input);
            g.s.decorate(v, Decoration::BuiltIn, vec![Operand::BuiltIn(b)]);
            g.s.decorate(v, Decoration::Constant, vec![]);
            interface.push(v);
            v
        };
        let gid_var = builtin_var(&mut self, p_in_v3, BuiltIn::GlobalInvocationId);
        let wg_var = builtin_var(&mut self, p_in_v3, BuiltIn::WorkgroupId);
        let lid_var = builtin_var(&mut self, p_in_u32, BuiltIn::SubgroupLocalInvocationId);
        let sgid_var = builtin_var(&mut self, p_in_u32, BuiltIn::SubgroupId);

        // launch arguments: surface w/h/p for argument surfaces, n
        let w = self.c.pick(&[64u32, 128, 256]);
        let h = self.c.pick(&[8u32, 16, 32]);
        let p = w + self.c.pick(&[0u32, 0, 64]);
        self.arg_values = [w, h, p, self.c.below(256) as u32];

        // prologue
        let entry = self.s.id();
        let params = [
            (self.src, p_cw),
            (self.dst, p_cw),
            (self.st, p_cw),
            (self.args[0], t_u32),
            (self.args[1], t_u32),
            (self.args[2], t_u32),
            (self.args[3], t_u32),
        ];
        self.s
            .begin_kernel(self.t.void, main, fn_ty, &params, entry);
        self.label = entry;
        let t_u64 = self.t.u64_;
        let v3 = self.t.v3u64;
        let gid3 = self.op(Op::Load, v3, &[gid_var]);
        let gid = self.op(Op::CompositeExtract, t_u64, &[gid3, 0]);
        let wg3 = self.op(Op::Load, v3, &[wg_var]);
        let wg64 = self.op(Op::CompositeExtract, t_u64, &[wg3, 0]);
        self.wg = self.op(Op::UConvert, t_u32, &[wg64]);
        self.lid = self.op(Op::Load, t_u32, &[lid_var]);
        self.sgid = self.op(Op::Load, t_u32, &[sgid_var]);
        self.per_inv_id = self.s.id();
        let obase = self.op(Op::IMul, t_u64, &[gid, self.per_inv_id]);
        self.out_base = self.op(Op::InBoundsPtrAccessChain, p_cw, &[self.dst, obase]);
        let nsg = self.u32c(self.nsg);
        let wgs = self.op(Op::IMul, t_u32, &[self.wg, nsg]);
        let sgindex = self.op(Op::IAdd, t_u32, &[wgs, self.sgid]);
        let region = self.u32c(ST_REGION);
        let st_off = self.op(Op::IMul, t_u32, &[sgindex, region]);
        self.st_base = self.cw_offset(self.st, st_off);
        let marker = self.u32c(MARKER);
        self.observe_u32(marker);
        self.make_surfaces();

        while self.budget > 0 {
            self.budget -= 1;
            self.statement(0);
            if self.c.exhausted() {
                break;
            }
        }
        self.void_op(Op::Return, &[]);

        // the bytes of dst per invocation, now known
        let per_inv = self.out_off.div_ceil(64) * 64;
        self.s
            .constant_u64_with_id(t_u64, self.per_inv_id, u64::from(per_inv));
        let words = self.s.finish(main, self.sg, &interface);
        // the id bound seeds the buffers' contents
        let launch = self.launch(per_inv, words[3]);
        Kernel {
            words,
            launch,
            summary: self.summary,
        }
    }

    fn make_surfaces(&mut self) {
        let n = 1 + self.c.below(3);
        let p_cw = self.t.p_cw_u8;
        for k in 0..n {
            let from_args = k == 1 || (k == 0 && self.c.chance(20));
            let (w, h, p) = if from_args {
                (self.arg_values[0], self.arg_values[1], self.arg_values[2])
            } else {
                let w = self.c.pick(&[64u32, 128, 256, 512]);
                let h = self.c.pick(&[8u32, 16, 32, 64]);
                (w, h, w + self.c.pick(&[0u32, 0, 64, 128]))
            };
            let h = h.min(32 * 1024 / p);
            // a base 64-byte aligned offset into src, the region within 36 KiB
            let room = (36 * 1024 - p * h) / 64;
            let off = 64 * self.c.below(room.min(16) as usize + 1) as u32;
            let base = if off == 0 {
                self.src
            } else {
                let oc = self.u32c(off);
                self.cw_offset(self.src, oc)
            };
            let (width, height, pitch) = if from_args {
                (self.args[0], self.args[1], self.args[2])
            } else {
                (self.u32c(w), self.u32c(h), self.u32c(p))
            };
            self.surfaces.push(Surface {
                base,
                width,
                height,
                pitch,
                w,
                h,
                in_st: false,
            });
            let _ = p_cw;
        }
        // the subgroup's region of st
        let w = self.c.pick(&[64u32, 128]);
        let p = w + self.c.pick(&[0u32, 64]);
        let h = (ST_REGION / p).min(self.c.pick(&[8u32, 16, 32]));
        let (width, height, pitch) = (self.u32c(w), self.u32c(h), self.u32c(p));
        self.surfaces.push(Surface {
            base: self.st_base,
            width,
            height,
            pitch,
            w,
            h,
            in_st: true,
        });
    }

    fn launch(&mut self, per_inv: u32, bound: u32) -> Launch {
        let local = u64::from(self.sg * self.nsg);
        let global = local * u64::from(self.groups);
        // bytes whose f16 / bf16 / f32 readings are all finite and below 1 in magnitude
        let mut r = spvopt_sim::launch::SplitMix64(u64::from(bound) * 0x9E37 + 7);
        let wild = self.wild;
        let mut data = |n: u32| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    let x = r.next_u64();
                    if wild {
                        (x >> 32) as u8
                    } else {
                        ((x % 0x3C) as u8) | ((x >> 40) as u8 & 0x80)
                    }
                })
                .collect()
        };
        let buffer = |bytes: Vec<u8>| Arg::Buffer {
            bytes,
            ty: None,
            ulp: None,
        };
        let scalar = |v: u32| Arg::Scalar {
            ty: "u32".into(),
            bytes: v.to_le_bytes().to_vec(),
        };
        let args = vec![
            buffer(data(SRC_BYTES)),
            buffer(vec![0; (global * u64::from(per_inv)) as usize]),
            buffer(data(ST_REGION * self.nsg * self.groups)),
            scalar(self.arg_values[0]),
            scalar(self.arg_values[1]),
            scalar(self.arg_values[2]),
            scalar(self.arg_values[3]),
        ];
        let mut launch = Launch::new("main", [global, 1, 1], [local, 1, 1], args);
        launch.subgroup_size = Some(self.sg);
        launch.max_steps = MAX_STEPS;
        launch
    }

    // ---- statements ----------------------------------------------------------------------

    /// One statement in uniform control flow at nesting `depth`.
    fn statement(&mut self, depth: u32) {
        let choice = self.c.below(20);
        match choice {
            0..=5 => {
                let kind = self.c.pick(&[
                    Kind::Load,
                    Kind::Load,
                    Kind::Load,
                    Kind::Transform,
                    Kind::Transpose,
                ]);
                self.block_load(kind);
            }
            6 | 7 => self.prefetch(),
            8 | 9 => self.store(),
            10 | 11 => self.mma(),
            12 | 13 => self.divergent_if(depth),
            14 if depth < 3 => self.uniform_if(depth),
            15 | 16 if depth < 2 => self.counted_loop(depth),
            17 if depth < 2 => self.gemm_loop(),
            18 => self.block_read_1d(),
            19 if self.c.chance(50) => self.write_st(),
            _ => {
                let v = self.divergent_value();
                self.observe_u32(v);
            }
        }
    }

    fn pick_shape(&mut self, kind: Kind) -> Shape {
        let exotic = self.exotic;
        let c = &mut self.c;
        let (es, w, h, count) = match kind {
            Kind::Load | Kind::Prefetch | Kind::Store => {
                let es = c.pick(&[1u32, 2, 2, 2, 4, 4, 8]);
                let w = match es {
                    1 => c.pick(&[4u32, 8, 16, 32, 64, if exotic { 12 } else { 16 }]),
                    2 => c.pick(&[2u32, 4, 8, 16, 16, 32, if exotic { 6 } else { 8 }]),
                    4 => c.pick(&[1u32, 2, 4, 8, 16, if exotic { 3 } else { 8 }]),
                    _ => c.pick(&[1u32, 2, 4, 8]),
                };
                let h = if kind == Kind::Store {
                    c.pick(&[1u32, 2, 4, 8, 8, 16])
                } else {
                    c.pick(&[
                        1u32,
                        2,
                        4,
                        8,
                        8,
                        16,
                        32,
                        if exotic { 3 } else { 8 },
                        if exotic { 5 } else { 16 },
                    ])
                };
                let count = if kind == Kind::Store {
                    1
                } else {
                    c.pick(&[1u32, 1, 1, 2, 4])
                };
                (es, w, h, count)
            }
            Kind::Transform => {
                let es = c.pick(&[1u32, 2, 2]);
                let (w, h) = if es == 1 {
                    (
                        c.pick(&[4u32, 8, 16, 16, 32, 64]),
                        c.pick(&[4u32, 8, 16, 32, if exotic { 6 } else { 32 }]),
                    )
                } else {
                    (
                        c.pick(&[2u32, 4, 8, 16, 16, 32]),
                        c.pick(&[2u32, 4, 8, 16, 32, if exotic { 3 } else { 16 }]),
                    )
                };
                (es, w, h, c.pick(&[1u32, 1, 2, 4]))
            }
            Kind::Transpose => {
                let es = c.pick(&[4u32, 4, 8]);
                if es == 4 {
                    (
                        es,
                        c.pick(&[1u32, 2, 4, 8, 16]),
                        c.pick(&[1u32, 2, 4, 8, 16, 32, if exotic { 3 } else { 8 }]),
                        1,
                    )
                } else {
                    (es, c.pick(&[1u32, 2, 4]), c.pick(&[8u32, 4]), 1)
                }
            }
        };
        let mut s = Shape { es, w, h, c: count };
        while self.dst_bytes(kind, s).is_none_or(|b| b > MAX_DST_BYTES) {
            if s.c > 1 {
                s.c /= 2;
            } else if s.h > 1 {
                s.h /= 2;
            } else {
                // a shape every profile's table has
                return match kind {
                    Kind::Transform => Shape {
                        es: 2,
                        w: 16,
                        h: 16,
                        c: 1,
                    },
                    Kind::Transpose => Shape {
                        es: 4,
                        w: 8,
                        h: 8,
                        c: 1,
                    },
                    _ => Shape {
                        es: 2,
                        w: 16,
                        h: 8,
                        c: 1,
                    },
                };
            }
        }
        s
    }

    /// Per-invocation bytes of a block op (0 for prefetches), as the simulator computes them.
    fn dst_bytes(&self, kind: Kind, s: Shape) -> Option<u32> {
        let p = Block2dParams {
            element_size: s.es,
            block_width: s.w,
            block_height: s.h,
            block_count: s.c,
            base: 0,
            memory_width: 64,
            memory_height: 1,
            memory_pitch: 64,
            x: 0,
            y: 0,
            mapping: Default::default(),
            base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
        };
        block_io_2d::layout(kind.sim_op(), &p, Subgroup::full(self.sg))
            .ok()
            .map(|l| l.bytes_per_invocation as u32)
    }

    fn pick_surface(&mut self, kind: Kind) -> Surface {
        let stores = kind == Kind::Store;
        let mut candidates = Vec::new();
        for k in 0..self.surfaces.len() {
            let sf = self.surfaces[k];
            if sf.in_st == stores || (!stores && self.c.chance(15)) {
                candidates.push(sf);
            }
        }
        if candidates.is_empty() {
            // loads from src
            return self.surfaces[0];
        }
        let i = self.c.below(candidates.len());
        candidates[i]
    }

    /// Coordinates mostly inside `sf` (elements of `s.es` bytes), sometimes partly outside,
    /// sometimes subgroup-dependent or affine in the innermost loop counter.
    fn pick_coord(&mut self, sf: &Surface, s: Shape, kind: Kind) -> Coord {
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        let cols = (sf.w / s.es) as i32;
        let mut x = self.c.below((cols as usize).max(1)) as i32 / multiple * multiple;
        if self.c.chance(10) {
            x = -(s.w as i32 / multiple).max(1) * multiple;
        }
        let mut y = self.c.below(sf.h as usize) as i32;
        match self.c.below(16) {
            0 => y = -1,
            1 => y = sf.h as i32, // wholly below the surface: zeros
            _ => {}
        }
        let u = self.t.u32_;
        let mut coord = Coord {
            x,
            y,
            x_dyn: None,
            y_dyn: None,
        };
        if let Some(l) = self.loops.last().copied() {
            if self.c.chance(75) {
                self.summary.loop_carried_loads += u32::from(kind != Kind::Store);
                // affine in the counter: a block (or row group) per iteration
                let (along_x, step) = if self.c.chance(50) {
                    let step = match kind {
                        Kind::Transpose => s.h,
                        _ => s.w * s.c,
                    };
                    (true, step.div_ceil(multiple as u32) * multiple as u32)
                } else {
                    (false, if kind == Kind::Transpose { s.w } else { s.h })
                };
                let sc = self.u32c(step);
                let d = self.op(Op::IMul, u, &[l.counter, sc]);
                if along_x {
                    coord.x_dyn = Some(d);
                    coord.x = coord.x.min(cols / 2) / multiple * multiple;
                } else {
                    coord.y_dyn = Some(d);
                    coord.y = coord.y.min(sf.h as i32 / 2);
                }
                return coord;
            }
        }
        if self.c.chance(15) {
            // subgroup-uniform but not constant: the subgroup id
            let k = self.u32c(s.h);
            let d = self.op(Op::IMul, u, &[self.sgid, k]);
            coord.y_dyn = Some(d);
        }
        coord
    }

    fn coord_value(&mut self, c: Coord) -> u32 {
        let u = self.t.u32_;
        let part = |g: &mut Gen, k: i32, d: Option<u32>| {
            let kc = g.u32c(k as u32);
            match d {
                Some(d) if k == 0 => d,
                Some(d) => g.op(Op::IAdd, u, &[d, kc]),
                None => kc,
            }
        };
        let x = part(self, c.x, c.x_dyn);
        let y = part(self, c.y, c.y_dyn);
        if c.x_dyn.is_none() && c.y_dyn.is_none() && self.c.chance(50) {
            let v = self.t.v2u32;
            return self.s.composite(v, &[x, y]);
        }
        let v = self.t.v2u32;
        self.op(Op::CompositeConstruct, v, &[x, y])
    }

    /// Emits one block operation; `dst` is the per-invocation pointer (loads, stores).
    fn emit_block(
        &mut self,
        kind: Kind,
        s: Shape,
        sf: &Surface,
        coord: u32,
        ptr: Option<(u32, u32)>,
    ) {
        match kind {
            Kind::Load => self.summary.loads += 1,
            Kind::Transform => self.summary.transform_loads += 1,
            Kind::Transpose => self.summary.transpose_loads += 1,
            Kind::Prefetch => self.summary.prefetches += 1,
            Kind::Store => self.summary.stores += 1,
        }
        self.s.cap(Capability::Subgroup2DBlockIOINTEL);
        self.s.ext("SPV_INTEL_2d_block_io");
        // builtin form: 1/2/4-byte elements, argument surfaces (int width/height/pitch)
        let builtin_ok = s.es <= 4 && !(kind == Kind::Transpose && s.es != 4);
        if builtin_ok && self.c.chance(12) {
            self.builtin_call(kind, s, sf, coord, ptr.map(|p| p.1));
            return;
        }
        match kind {
            Kind::Transform => self.s.cap(Capability::Subgroup2DBlockTransformINTEL),
            Kind::Transpose => self.s.cap(Capability::Subgroup2DBlockTransposeINTEL),
            _ => {}
        }
        let [es, w, h, c] = [s.es, s.w, s.h, s.c].map(|v| self.u32c(v));
        let ops: Vec<u32> = match (kind, ptr.map(|p| p.0)) {
            (Kind::Prefetch, _) => vec![es, w, h, c, sf.base, sf.width, sf.height, sf.pitch, coord],
            (Kind::Store, Some(p)) => {
                vec![
                    es, w, h, c, p, sf.base, sf.width, sf.height, sf.pitch, coord,
                ]
            }
            (_, Some(p)) => vec![
                es, w, h, c, sf.base, sf.width, sf.height, sf.pitch, coord, p,
            ],
            _ => unreachable!("loads and stores have a pointer"),
        };
        self.void_op(kind.op(), &ops);
    }

    /// `kind` as a call of the OpenCL builtin; `var` is the per-invocation array.
    fn builtin_call(&mut self, kind: Kind, s: Shape, sf: &Surface, coord: u32, var: Option<u32>) {
        self.summary.builtin_calls += 1;
        self.s.cap(Capability::Linkage);
        let base = format!(
            "intel_sub_group_2d_block_{}_{}b_{}r{}x{}c",
            kind.builtin(),
            s.es * 8,
            s.h,
            s.w,
            s.c
        );
        let elem_code = match (kind, s.es) {
            (Kind::Transform, _) | (_, 4) => "j",
            (_, 1) => "h",
            _ => "t",
        };
        let name = match kind {
            Kind::Prefetch => format!("_Z{}{base}PU3AS1viiiDv2_i", base.len()),
            _ => format!("_Z{}{base}PU3AS1viiiDv2_iP{elem_code}", base.len()),
        };
        let t_u32 = self.t.u32_;
        let elem = match elem_code {
            "j" => t_u32,
            "h" => self.t.u8_,
            _ => self.s.int(16),
        };
        let p_elem = self.s.pointer(StorageClass::Function, elem);
        let mut params = vec![self.t.p_cw_u8, t_u32, t_u32, t_u32, self.t.v2u32];
        if kind != Kind::Prefetch {
            params.push(p_elem);
        }
        let f = match self.builtins.iter().find(|(n, _)| *n == name) {
            Some(&(_, f)) => f,
            None => {
                let fty = self.s.function_type(self.t.void, &params);
                let f = self.s.declare_function(self.t.void, fty, &params);
                self.s.name(f, &name);
                let import = vec![
                    Operand::LiteralString(name.clone()),
                    Operand::LinkageType(spirv::LinkageType::Import),
                ];
                self.s.decorate(f, Decoration::LinkageAttributes, import);
                self.builtins.push((name, f));
                f
            }
        };
        let mut args = vec![f, sf.base, sf.width, sf.height, sf.pitch, coord];
        if let Some(var) = var {
            // the builtin's pointer type, to the array's first byte
            let q = self.op(Op::Bitcast, p_elem, &[var]);
            args.push(q);
        }
        let void = self.t.void;
        self.op(Op::FunctionCall, void, &args);
    }

    /// A fresh Function array for `bytes` bytes of `kind`'s destination; returns (loaded,
    /// pointer operand).
    fn destination(&mut self, kind: Kind, s: Shape, bytes: u32) -> (Loaded, u32) {
        let elem_bytes = if kind == Kind::Transform { 4 } else { s.es };
        let elem = self.s.int(elem_bytes * 8);
        let arr = self.s.array(elem, bytes / elem_bytes);
        let var = self.variable(arr);
        let ptr = if kind == Kind::Transform || self.c.chance(50) {
            let p = self.s.pointer(StorageClass::Function, elem);
            let zero = self.u32c(0);
            self.op(Op::InBoundsAccessChain, p, &[var, zero])
        } else {
            let p = self.t.p_fn_u8;
            self.op(Op::Bitcast, p, &[var])
        };
        (
            Loaded {
                var,
                bytes,
                elem,
                elem_bytes,
            },
            ptr,
        )
    }

    /// Copies (all or a prefix of) a loaded array to the output.
    fn observe_loaded(&mut self, l: Loaded) {
        let p = self.t.p_fn_u8;
        let src = self.op(Op::Bitcast, p, &[l.var]);
        let half = l.bytes / 2 / l.elem_bytes * l.elem_bytes;
        let bytes = if half > 0 && self.c.chance(20) {
            half
        } else {
            l.bytes
        };
        let out = self.out_ptr(bytes, 16);
        let n = self.u32c(bytes);
        self.void_op(Op::CopyMemorySized, &[out, src, n]);
    }

    fn block_load(&mut self, kind: Kind) {
        let mut s = self.pick_shape(kind);
        let pair = kind != Kind::Transpose && self.c.chance(45);
        if pair && self.c.chance(70) {
            // small enough that the two fit one load of the target tables
            s = self.narrow_for_pair(s);
        }
        let sf = self.pick_surface(kind);
        let coord = self.pick_coord(&sf, s, kind);
        let bytes = self.dst_bytes(kind, s).unwrap_or(0);
        let (l, ptr) = self.destination(kind, s, bytes);
        let cv = self.coord_value(coord);
        self.emit_block(kind, s, &sf, cv, Some((ptr, l.var)));
        self.scope.push(l);
        // copies out right away, or after the partner (a write between two loads of the
        // same memory, which may alias dst, keeps fuse-block-loads from fusing them)
        let copy_first = self.c.chance(30);
        if copy_first || (!pair && self.c.chance(85)) {
            self.observe_loaded(l);
        }
        if pair {
            if self.c.chance(25) {
                // code between the two: other blocks (cross-block fusion), writes to st
                self.summary.between_pairs += 1;
                match self.c.below(3) {
                    0 => self.divergent_if_with(1, None),
                    1 => self.write_st(),
                    _ => {
                        let v = self.divergent_value();
                        self.observe_u32(v);
                    }
                }
            }
            let (s2, sf2, c2) = self.partner(kind, s, sf, coord);
            let bytes2 = self.dst_bytes(kind, s2).unwrap_or(0);
            let (l2, ptr2) = self.destination(kind, s2, bytes2);
            let cv2 = self.coord_value(c2);
            self.emit_block(kind, s2, &sf2, cv2, Some((ptr2, l2.var)));
            self.scope.push(l2);
            if !copy_first {
                self.observe_loaded(l);
            }
            self.observe_loaded(l2);
        }
    }

    /// `s` with count 1 and at most half the widest row of the Xe-HPC tables.
    fn narrow_for_pair(&mut self, s: Shape) -> Shape {
        let widest = 64 / s.es;
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        let mut w = s.w;
        while w * 2 > widest && w / 2 >= multiple && (w / 2).is_multiple_of(multiple) {
            w /= 2;
        }
        let n = Shape { w, c: 1, ..s };
        if n.es == 8 || w * 2 > widest {
            s
        } else {
            n
        }
    }

    /// A second block operation next to the first: right after its last block (fusable), or
    /// a near miss.
    fn partner(&mut self, kind: Kind, s: Shape, sf: Surface, c: Coord) -> (Shape, Surface, Coord) {
        let mut c2 = c;
        let mut s2 = s;
        let mut sf2 = sf;
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        match self.c.below(9) {
            8 => {
                // the same block again (reuse)
                self.summary.identical_pairs += 1;
            }
            0..=3 => {
                self.summary.adjacent_pairs += 1;
                c2.x += (s.w * s.c) as i32;
                if self.c.chance(20) {
                    // reversed order: the partner is the left one
                    c2.x = c.x - (s.w * s.c) as i32;
                }
            }
            4 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32 + multiple;
            }
            5 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                c2.y += 1;
            }
            6 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                let others: Vec<Surface> = self
                    .surfaces
                    .iter()
                    .copied()
                    .filter(|o| o.in_st == sf.in_st)
                    .collect();
                sf2 = others[self.c.below(others.len())];
            }
            _ => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                s2.c = if s.c == 1 { 2 } else { 1 };
                if self.dst_bytes(kind, s2).is_none_or(|b| b > MAX_DST_BYTES) {
                    s2 = s;
                }
            }
        }
        (s2, sf2, c2)
    }

    fn prefetch(&mut self) {
        let s = self.pick_shape(Kind::Prefetch);
        let sf = self.pick_surface(Kind::Prefetch);
        let coord = self.pick_coord(&sf, s, Kind::Prefetch);
        let cv = self.coord_value(coord);
        self.emit_block(Kind::Prefetch, s, &sf, cv, None);
        if self.c.chance(50) {
            let (s2, sf2, c2) = self.partner(Kind::Prefetch, s, sf, coord);
            let cv2 = self.coord_value(c2);
            self.emit_block(Kind::Prefetch, s2, &sf2, cv2, None);
        }
    }

    fn store(&mut self) {
        let s = self.pick_shape(Kind::Store);
        // the data: a load of the same shape (same per-invocation layout) from src
        let load_sf = self.surfaces[0];
        let lc = self.pick_coord(&load_sf, s, Kind::Load);
        let bytes = self.dst_bytes(Kind::Store, s).unwrap_or(0);
        let (l, ptr) = self.destination(Kind::Load, s, bytes);
        let lcv = self.coord_value(lc);
        self.emit_block(Kind::Load, s, &load_sf, lcv, Some((ptr, l.var)));
        if self.c.chance(40) {
            // per-invocation changes before the store
            self.scope.push(l);
            let depth = 1;
            self.divergent_if_with(depth, Some(l));
            self.scope.pop();
        }
        let sf = self.pick_surface(Kind::Store);
        let coord = self.pick_coord(&sf, s, Kind::Store);
        let cv = self.coord_value(coord);
        self.emit_block(Kind::Store, s, &sf, cv, Some((ptr, l.var)));
        if self.c.chance(30) {
            // read back what the store wrote (and what it did not)
            let back = Shape { c: 1, ..s };
            let bytes = self.dst_bytes(Kind::Load, back).unwrap_or(0);
            let (l2, p2) = self.destination(Kind::Load, back, bytes);
            let cv2 = self.coord_value(coord);
            self.emit_block(Kind::Load, back, &sf, cv2, Some((p2, l2.var)));
            self.observe_loaded(l2);
        }
    }

    /// Writes a per-invocation value into a byte of a loaded array.
    fn modify_loaded(&mut self, l: Loaded) {
        let u = self.t.u32_;
        let v = self.divergent_value();
        let v = match l.elem_bytes {
            4 => v,
            _ => self.op(Op::UConvert, l.elem, &[v]),
        };
        let n = l.bytes / l.elem_bytes;
        let j = self.c.below(n as usize) as u32;
        let p = self.s.pointer(StorageClass::Function, l.elem);
        let jc = self.u32c(j);
        let q = self.op(Op::InBoundsAccessChain, p, &[l.var, jc]);
        self.void_op(Op::Store, &[q, v]);
        let _ = u;
    }

    fn divergent_if(&mut self, depth: u32) {
        let target = if !self.scope.is_empty() && self.c.chance(50) {
            let i = self.c.below(self.scope.len());
            Some(self.scope[i])
        } else {
            None
        };
        self.divergent_if_with(depth, target);
        if let Some(l) = target {
            if self.c.chance(70) {
                self.observe_loaded(l);
            }
        }
    }

    /// `if (lid < k)` / `if (lid & 1)`: per-invocation code only, a phi at the merge.
    fn divergent_if_with(&mut self, depth: u32, target: Option<Loaded>) {
        self.summary.divergent_ifs += 1;
        let u = self.t.u32_;
        let b = self.t.bool_;
        let cond = if self.c.chance(60) {
            let k = 1 + self.c.below(self.sg as usize - 1) as u32;
            let kc = self.u32c(k);
            self.op(Op::ULessThan, b, &[self.lid, kc])
        } else {
            let one = self.u32c(1);
            let zero = self.u32c(0);
            let a = self.op(Op::BitwiseAnd, u, &[self.lid, one]);
            self.op(Op::IEqual, b, &[a, zero])
        };
        let (then_l, else_l, merge) = (self.s.id(), self.s.id(), self.s.id());
        let has_else = self.c.chance(50);
        let structured = self.c.chance(60);
        if structured {
            self.void_op(Op::SelectionMerge, &[merge, 0]);
        }
        let from = self.label;
        self.void_op(
            Op::BranchConditional,
            &[cond, then_l, if has_else { else_l } else { merge }],
        );
        self.label(then_l);
        let v1 = self.divergent_arm(depth, target);
        let then_end = self.label;
        self.branch(merge);
        let (v2, else_end) = if has_else {
            self.label(else_l);
            let v = self.divergent_arm(depth, None);
            let end = self.label;
            self.branch(merge);
            (v, end)
        } else {
            (self.u32c(0xFFFF), from)
        };
        self.label(merge);
        let phi = self.op(Op::Phi, u, &[v1, then_end, v2, else_end]);
        self.observe_u32(phi);
    }

    /// Per-invocation statements of a divergent arm; returns a value for the merge's phi.
    fn divergent_arm(&mut self, depth: u32, target: Option<Loaded>) -> u32 {
        if let Some(l) = target {
            self.modify_loaded(l);
        }
        let n = self.c.below(3);
        for _ in 0..n {
            match self.c.below(5) {
                0 if depth < 3 => self.divergent_if_with(depth + 1, None),
                4 => self.write_st(),
                1 if !self.scope.is_empty() => {
                    let i = self.c.below(self.scope.len());
                    let l = self.scope[i];
                    self.modify_loaded(l);
                }
                _ => {
                    let v = self.divergent_value();
                    self.observe_u32(v);
                }
            }
        }
        self.divergent_value()
    }

    /// A per-invocation store of a u32 into the subgroup's region of st (which block loads of
    /// the st surface read: aliasing for fuse-block-loads and insert-prefetches).
    fn write_st(&mut self) {
        self.summary.st_writes += 1;
        let u = self.t.u32_;
        let v = self.divergent_value();
        let k = self.c.below((ST_REGION / 4 - 2 * self.sg) as usize) as u32;
        let kc = self.u32c(k);
        let idx = self.op(Op::IAdd, u, &[self.lid, kc]);
        let pt = self.t.p_cw_u32;
        let base = self.op(Op::Bitcast, pt, &[self.st_base]);
        let p = self.op(Op::InBoundsPtrAccessChain, pt, &[base, idx]);
        self.void_op(Op::Store, &[p, v]);
    }

    /// `if` on a uniform value: any statements inside.
    fn uniform_if(&mut self, depth: u32) {
        self.summary.uniform_ifs += 1;
        let b = self.t.bool_;
        let cond = match self.c.below(3) {
            0 => {
                let v = self.c.below(256) as u32;
                let k = self.u32c(v);
                self.op(Op::UGreaterThan, b, &[self.args[3], k])
            }
            1 => {
                let z = self.u32c(0);
                self.op(Op::IEqual, b, &[self.sgid, z])
            }
            _ => {
                let z = self.u32c(0);
                self.op(Op::INotEqual, b, &[self.wg, z])
            }
        };
        let (then_l, else_l, merge) = (self.s.id(), self.s.id(), self.s.id());
        let has_else = self.c.chance(40);
        if self.c.chance(60) {
            self.void_op(Op::SelectionMerge, &[merge, 0]);
        }
        self.void_op(
            Op::BranchConditional,
            &[cond, then_l, if has_else { else_l } else { merge }],
        );
        let mark = self.scope.len();
        self.label(then_l);
        self.arm(depth);
        self.scope.truncate(mark);
        self.branch(merge);
        if has_else {
            self.label(else_l);
            self.arm(depth);
            self.scope.truncate(mark);
            self.branch(merge);
        }
        self.label(merge);
    }

    fn arm(&mut self, depth: u32) {
        let n = 1 + self.c.below(3) as u32;
        for _ in 0..n.min(self.budget + 1) {
            self.budget = self.budget.saturating_sub(1);
            self.statement(depth + 1);
        }
    }

    /// Starts a loop of `trip` (id) iterations at most `max` (`do_while`: at least one,
    /// tested at the bottom); returns (counter, next counter id, header, exit, continue target).
    fn loop_header(&mut self, max: u32, extra_phis: &[(u32, u32, u32, u32)]) -> LoopParts {
        self.summary.loops += 1;
        let u = self.t.u32_;
        let trip = if self.c.chance(30) {
            // 1..=max from the uniform argument n
            let m = self.u32c(max);
            let r = self.op(Op::UMod, u, &[self.args[3], m]);
            let one = self.u32c(1);
            self.op(Op::IAdd, u, &[r, one])
        } else {
            let t = 1 + self.c.below(max as usize) as u32;
            self.u32c(t)
        };
        let structured = self.c.chance(60);
        let (header, body, cont, exit) = (self.s.id(), self.s.id(), self.s.id(), self.s.id());
        let (counter, next) = (self.s.id(), self.s.id());
        let pre = self.label;
        self.branch(header);
        self.label(header);
        let zero = self.u32c(0);
        let latch = if structured { cont } else { header };
        let _ = latch;
        // the counter's latch is patched below for unstructured loops (the body's last block)
        let counter_phi_at = self.s.phi(u, counter, &[(zero, pre), (next, 0)]);
        let mut phi_at = Vec::new();
        for &(ty, id, init, _) in extra_phis {
            phi_at.push(self.s.phi(ty, id, &[(init, pre), (0, 0)]));
        }
        let outer = self.loops.last().copied();
        let iter = match outer {
            None => counter,
            Some(o) => {
                let mc = self.u32c(max);
                let m = self.op(Op::IMul, u, &[o.iter, mc]);
                self.op(Op::IAdd, u, &[m, counter])
            }
        };
        let iters = outer.map_or(1, |o| o.iters) * max;
        if structured {
            let b = self.t.bool_;
            let more = self.op(Op::ULessThan, b, &[counter, trip]);
            self.void_op(Op::LoopMerge, &[exit, cont, 0]);
            self.void_op(Op::BranchConditional, &[more, body, exit]);
            self.label(body);
        }
        self.loops.push(LoopCtx {
            counter,
            iter,
            iters,
        });
        LoopParts {
            structured,
            header,
            cont,
            exit,
            counter,
            next,
            trip,
            counter_phi_at,
            phi_at,
        }
    }

    /// Closes a loop; `latch_values` are the extra phis' values from the latch.
    fn loop_end(&mut self, p: LoopParts, latch_values: &[u32]) {
        let u = self.t.u32_;
        let one = self.u32c(1);
        self.loops.pop();
        if p.structured {
            self.branch(p.cont);
            self.label(p.cont);
            self.s.op(Op::IAdd, u, p.next, &[p.counter, one]);
            self.branch(p.header);
        } else {
            self.s.op(Op::IAdd, u, p.next, &[p.counter, one]);
            let b = self.t.bool_;
            let more = self.op(Op::ULessThan, b, &[p.next, p.trip]);
            self.void_op(Op::BranchConditional, &[more, p.header, p.exit]);
        }
        let latch = self.label;
        // patch the phis' latch block (and values)
        self.s.set_incoming(p.counter_phi_at, 1, p.next, latch);
        for (k, &at) in p.phi_at.iter().enumerate() {
            self.s.set_incoming(at, 1, latch_values[k], latch);
        }
        self.label(p.exit);
    }

    fn counted_loop(&mut self, depth: u32) {
        let max = 1 + self.c.below(4) as u32;
        let parts = self.loop_header(max, &[]);
        let mark = self.scope.len();
        self.arm(depth);
        self.scope.truncate(mark);
        self.loop_end(parts, &[]);
    }

    /// A K loop of a GEMM: A (plain) and B (VNNI transform) block loads at counter-affine
    /// coordinates, an MMA accumulating into a phi, the result written after the loop.
    fn gemm_loop(&mut self) {
        let class = self.c.pick(&[
            MmaClass::F16ToF32,
            MmaClass::Bf16ToF32,
            MmaClass::F16ToF16,
            MmaClass::Bf16ToBf16,
        ]);
        let m = self.c.pick(&[1u32, 2, 4, 8, 8, 16]);
        let k = 16 * self.c.pick(&[1u32, 1, 2]);
        let Some([ta, tb, tc]) = class.operand_types(self.sg, m, k) else {
            return;
        };
        let a_shape = Shape {
            es: 2,
            w: k,
            h: m,
            c: 1,
        };
        let b_shape = Shape {
            es: 2,
            w: self.sg,
            h: k,
            c: 1,
        };
        if self.dst_bytes(Kind::Load, a_shape) != Some(ta.bytes())
            || self.dst_bytes(Kind::Transform, b_shape) != Some(tb.bytes())
        {
            return;
        }
        self.summary.gemm_loops += 1;
        self.mma_caps();
        let c_ty = self.operand_type(tc);
        let init = if self.c.chance(50) {
            self.s.null(c_ty)
        } else {
            self.operand_from_src(tc)
        };
        let acc = self.s.id();
        let max = 1 + self.c.below(4) as u32;
        let parts = self.loop_header(max, &[(c_ty, acc, init, 0)]);
        let u = self.t.u32_;
        let sa = self.surfaces[self.c.below(self.surfaces.len() - 1)];
        let sb = self.surfaces[self.c.below(self.surfaces.len() - 1)];
        // A: rows y0.., columns counter*K; B: rows counter*K.., columns x0
        let kc = self.u32c(k);
        let xa = self.op(Op::IMul, u, &[parts.counter, kc]);
        let ya = self.c.below(sa.h as usize) as i32;
        let ca = Coord {
            x: 0,
            y: ya,
            x_dyn: Some(xa),
            y_dyn: None,
        };
        let xb = (self.c.below((sb.w / 2) as usize) as i32) / 2 * 2;
        let cb = Coord {
            x: xb,
            y: 0,
            x_dyn: None,
            y_dyn: Some(xa),
        };
        self.summary.loop_carried_loads += 2;
        let (la, pa) = self.destination(Kind::Load, a_shape, ta.bytes());
        let cva = self.coord_value(ca);
        self.emit_block(Kind::Load, a_shape, &sa, cva, Some((pa, la.var)));
        let (lb, pb) = self.destination(Kind::Transform, b_shape, tb.bytes());
        let cvb = self.coord_value(cb);
        self.emit_block(Kind::Transform, b_shape, &sb, cvb, Some((pb, lb.var)));
        let a = self.operand_from_loaded(la, ta);
        let b = self.operand_from_loaded(lb, tb);
        let kd = self.u32c(k);
        let next = self.s.id();
        self.s.op(
            Op::SubgroupMatrixMultiplyAccumulateINTEL,
            c_ty,
            next,
            &[kd, a, b, acc, class.mask()],
        );
        self.summary.mma += 1;
        // after a loop tested at the top the result is the header's phi; after a
        // bottom-tested one, the last MMA (which dominates the exit)
        let result = if parts.structured { acc } else { next };
        self.loop_end(parts, &[next]);
        let out = self.out_ptr(tc.bytes(), tc.bytes().next_power_of_two());
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, c_ty);
        let q = self.op(Op::Bitcast, pt, &[out]);
        self.void_op(Op::Store, &[q, result]);
    }

    /// `OpSubgroupBlockReadINTEL` of 1, 2, 4 or 8 dwords per invocation from src (at a
    /// counter-affine address inside loops: `insert-prefetches` prefetches those too).
    fn block_read_1d(&mut self) {
        self.summary.block_reads_1d += 1;
        self.s.cap(Capability::SubgroupBufferBlockIOINTEL);
        self.s.ext("SPV_INTEL_subgroups");
        let n = self.c.pick(&[1u32, 1, 2, 4, 8]);
        let u = self.t.u32_;
        let ty = self.s.vector(u, n);
        let first = SCALAR_AREA / 4 + 16 * self.c.below(32) as u32;
        let mut idx = self.u32c(first);
        if let Some(l) = self.loops.last().copied() {
            if self.c.chance(75) {
                let step = self.u32c(n * self.sg);
                let d = self.op(Op::IMul, u, &[l.counter, step]);
                idx = self.op(Op::IAdd, u, &[d, idx]);
            }
        }
        let pt = self.t.p_cw_u32;
        let base = self.op(Op::Bitcast, pt, &[self.src]);
        let p = self.op(Op::InBoundsPtrAccessChain, pt, &[base, idx]);
        let v = self.op(Op::SubgroupBlockReadINTEL, ty, &[p]);
        let out = self.out_ptr(4 * n, (4 * n).next_power_of_two());
        let po = self.s.pointer(StorageClass::CrossWorkgroup, ty);
        let q = self.op(Op::Bitcast, po, &[out]);
        self.void_op(Op::Store, &[q, v]);
    }

    fn mma_caps(&mut self) {
        self.s
            .cap(Capability::SubgroupMatrixMultiplyAccumulateINTEL);
        self.s.ext("SPV_INTEL_subgroup_matrix_multiply_accumulate");
    }

    /// An operand loaded per invocation from the scalar area of src.
    fn operand_from_src(&mut self, o: OperandType) -> u32 {
        let ty = self.operand_type(o);
        let bytes = o.bytes();
        let align = bytes.next_power_of_two();
        let slot = self.c.below(4) as u32;
        let off = SCALAR_AREA + slot * 16 * 64 / align * align;
        let u = self.t.u32_;
        let sz = self.u32c(align);
        let lo = self.op(Op::IMul, u, &[self.lid, sz]);
        let oc = self.u32c(off);
        let at = self.op(Op::IAdd, u, &[lo, oc]);
        let p = self.cw_offset(self.src, at);
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, ty);
        let q = self.op(Op::Bitcast, pt, &[p]);
        self.op(Op::Load, ty, &[q])
    }

    fn operand_from_loaded(&mut self, l: Loaded, o: OperandType) -> u32 {
        let ty = self.operand_type(o);
        let pt = self.s.pointer(StorageClass::Function, ty);
        let q = self.op(Op::Bitcast, pt, &[l.var]);
        self.op(Op::Load, ty, &[q])
    }

    fn mma(&mut self) {
        let class = self.c.pick(&mma::ALL);
        let m = self.c.pick(&[1u32, 2, 4, 8, 8, 16]);
        let k = class.k() * self.c.pick(&[1u32, 1, 2]);
        let Some(types) = class.operand_types(self.sg, m, k) else {
            let v = self.divergent_value();
            self.observe_u32(v);
            return;
        };
        self.mma_caps();
        let mut vals = [0u32; 3];
        for (i, o) in types.iter().enumerate() {
            let from_scope = self
                .scope
                .iter()
                .copied()
                .filter(|l| l.bytes >= o.bytes() && l.elem_bytes <= o.scalar.bytes())
                .collect::<Vec<_>>();
            vals[i] = if i == 2 && self.c.chance(25) {
                let ty = self.operand_type(*o);
                self.s.null(ty)
            } else if !from_scope.is_empty() && i < 2 && self.c.chance(60) {
                let l = from_scope[self.c.below(from_scope.len())];
                self.operand_from_loaded(l, *o)
            } else {
                self.operand_from_src(*o)
            };
        }
        let c_ty = self.operand_type(types[2]);
        let kd = self.u32c(k);
        let r = self.op(
            Op::SubgroupMatrixMultiplyAccumulateINTEL,
            c_ty,
            &[kd, vals[0], vals[1], vals[2], class.mask()],
        );
        self.summary.mma += 1;
        let bytes = types[2].bytes();
        let out = self.out_ptr(bytes, bytes.next_power_of_two());
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, c_ty);
        let q = self.op(Op::Bitcast, pt, &[out]);
        self.void_op(Op::Store, &[q, r]);
    }
}

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
