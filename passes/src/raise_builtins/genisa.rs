//! The third form `raise-builtins` reads: calls of IGC's GenISA 2D block intrinsics that
//! Triton's fallback path leaves as imported functions (`llvm.genx.GenISA.LSC2DBlockRead.v8i16`,
//! `…LSC2DBlockWrite.v8i16`, `…LSC2DBlockPrefetch.isVoid`; intel-xpu-backend-for-triton
//! `third_party/intel/lib/TritonGENToLLVM/TritonGENToLLVMPass.cpp`, `createGenISA2DBlock*`).
//!
//! Argument layout (IGC `IGC/GenISAIntrinsics/generator/input/Intrinsic_definitions.yml`):
//! 0 base address (i64), 1 surface width − 1 (bytes), 2 surface height − 1 (rows), 3 pitch − 1
//! (bytes), 4 x (elements), 5 y (rows), 6 element size in bits, 7 block width, 8 block height,
//! 9 block count, 10 transpose, 11 VNNI transform, 12 cache controls (Triton passes its
//! `LoadCacheControl` / `StoreCacheControl` enum, which mirrors IGC's `LSC_L1_L3_CC`); writes
//! add 13, the stored value. A read returns the per-invocation data as its value.
//!
//! The native op: Element Size = bits/8, Block Width/Height/Count the constants, the base as a
//! CrossWorkgroup pointer (the pointer the address was converted from, else `OpConvertUToPtr`),
//! width/height/pitch plus one (a constant folded; `v - 1` taken back to `v`), the coordinate
//! `(x, y)`; the data goes through a new Function variable of the value's type: a read loads
//! it into the call's result id after the native load, a write stores the value into it
//! before the native store. Cache controls become `CacheControlLoadINTEL` /
//! `CacheControlStoreINTEL` on the base pointer (L3's default, Cached / WriteBack, left
//! implicit as `insert-prefetches` does). IGC lowers the native ops to these same intrinsics
//! (`Subgroup2DBlockIoResolution`), so the data each invocation gets is the same.
//!
//! A call is raised only when every argument has the intrinsic's type, the shape, flags and
//! cache controls are constants, and the value's size is what the block gives each invocation
//! at every subgroup size the module's kernels declare; otherwise it is kept (statistic
//! `genisa_kept_<reason>` and a warning with its location). Whether the device can do the
//! shape is `legalize`'s question (split, or an error with the location), which `-O` asks next.

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::{BlockKind, BlockShape};
use spvopt_analysis::builtin_names::GenIsaBlock;
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::builtin_mangling::{block_opcode, numeric_kind, pointer_kind, scalar_kind};

/// `Decoration CacheControlLoadINTEL` / `CacheControlStoreINTEL` (SPV_INTEL_cache_controls).
const CACHE_CONTROL_LOAD: u32 = 6442;
const CACHE_CONTROL_STORE: u32 = 6443;
/// `ExecutionMode SubgroupSize`.
const SUBGROUP_SIZE_MODE: u32 = 35;

/// What one GenISA call becomes.
#[derive(Clone, Debug)]
pub(super) struct GenIsaPlan {
    pub kind: BlockKind,
    /// Element size (bytes), block width, height, count.
    pub shape: [u32; 4],
    /// (decoration, [(cache level, control)]) when the call asks for cache controls.
    pub cache: Option<(u32, Vec<(u32, u32)>)>,
}

/// The `SubgroupSize` values the module's kernels declare.
pub(super) fn declared_subgroup_sizes(m: &Module) -> Vec<u32> {
    let mut v: Vec<u32> = m
        .section_insts(Section::ExecutionMode)
        .filter(|(_, i)| i.is(Op::ExecutionMode) && i.operand_word(1) == Some(SUBGROUP_SIZE_MODE))
        .filter_map(|(_, i)| i.operand_word(2))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn const_word(m: &Module, id: Id) -> Option<u32> {
    let d = m.def_inst(id)?;
    match d.op()? {
        Op::Constant => {
            let (float, bits) = scalar_kind(m, d.result_type()?)?;
            (!float && bits == 32).then(|| d.operand_word(0)).flatten()
        }
        Op::ConstantTrue => Some(1),
        Op::ConstantFalse => Some(0),
        _ => None,
    }
}

fn is_int(m: &Module, v: Id, bits: u32) -> bool {
    m.type_of(v)
        .and_then(|t| scalar_kind(m, t))
        .is_some_and(|(f, b)| !f && b == bits)
}

/// Bytes of a numeric scalar or vector type.
fn value_bytes(m: &Module, ty: Id) -> Option<u32> {
    let (_, bits, n) = numeric_kind(m, ty)?;
    (bits % 8 == 0).then_some(bits / 8 * n)
}

/// L1 and L3 controls of Triton's `LoadCacheControl` (TritonGENAttrDefs.td) as
/// SPV_INTEL_cache_controls `LoadCacheControl` values (Uncached 0, Cached 1, Streaming 2,
/// InvalidateAfterRead 3), the mapping of Triton's `loadCacheControlToDecoration`.
fn load_cache(v: u32) -> Option<(u32, u32)> {
    Some(match v {
        1 => (0, 0),
        2 => (0, 1),
        3 => (1, 0),
        4 => (1, 1),
        5 => (2, 0),
        6 => (2, 1),
        7 => (3, 1),
        _ => return None,
    })
}

/// The same for `StoreCacheControl` (Uncached 0, WriteThrough 1, WriteBack 2, Streaming 3;
/// `storeCacheControlToDecoration`).
fn store_cache(v: u32) -> Option<(u32, u32)> {
    Some(match v {
        1 => (0, 0),
        2 => (0, 2),
        3 => (1, 0),
        4 => (1, 2),
        5 => (3, 0),
        6 => (3, 2),
        7 => (2, 2),
        8 => (1, 1),
        9 => (3, 3),
        _ => return None,
    })
}

/// What `call` (a call of `op`) becomes, or the reason it is kept.
pub(super) fn plan(
    m: &Module,
    op: GenIsaBlock,
    call: &Inst,
    sg_sizes: &[u32],
) -> Result<GenIsaPlan, &'static str> {
    let args: Vec<Id> = call.operands()[1..]
        .iter()
        .map(|&w| Id::new(w))
        .collect::<Option<_>>()
        .ok_or("arguments")?;
    if args.len() != op.arg_count() {
        return Err("arguments");
    }
    let void = call
        .result_type()
        .and_then(|t| m.def_inst(t))
        .is_some_and(|t| t.is(Op::TypeVoid));
    if void == (op == GenIsaBlock::Read) {
        return Err("arguments");
    }
    let base_ok = is_int(m, args[0], 64)
        || m.type_of(args[0])
            .and_then(|t| pointer_kind(m, t))
            .is_some_and(|(sc, _)| sc == StorageClass::CrossWorkgroup as u32);
    if !base_ok || !args[1..6].iter().all(|&a| is_int(m, a, 32)) {
        return Err("arguments");
    }
    let c = |i: usize| const_word(m, args[i]).ok_or("non_constant_shape");
    let (bits, w, h, count) = (c(6)?, c(7)?, c(8)?, c(9)?);
    let (transpose, vnni, cache) = (c(10)?, c(11)?, c(12)?);
    if !matches!(bits, 8 | 16 | 32 | 64)
        || w == 0
        || h == 0
        || count == 0
        || transpose > 1
        || vnni > 1
    {
        return Err("shape");
    }
    let kind = match (op, transpose, vnni) {
        (GenIsaBlock::Prefetch, 0, 0) => BlockKind::Prefetch,
        (GenIsaBlock::Write, 0, 0) => BlockKind::Store,
        (GenIsaBlock::Read, 0, 0) => BlockKind::Load,
        (GenIsaBlock::Read, 0, 1) => BlockKind::LoadTransform,
        (GenIsaBlock::Read, 1, 0) => BlockKind::LoadTranspose,
        (GenIsaBlock::Read, ..) => return Err("transpose_and_transform"),
        _ => return Err("shape"),
    };
    let cache = match (cache, kind) {
        (0, _) => None,
        (v, BlockKind::Store) => {
            let (l1, l3) = store_cache(v).ok_or("cache_controls")?;
            let mut levels = vec![(0, l1)];
            if l3 != 2 {
                levels.push((1, l3));
            }
            Some((CACHE_CONTROL_STORE, levels))
        }
        (v, _) => {
            let (l1, l3) = load_cache(v).ok_or("cache_controls")?;
            let mut levels = vec![(0, l1)];
            if l3 != 1 {
                levels.push((1, l3));
            }
            Some((CACHE_CONTROL_LOAD, levels))
        }
    };
    let shape = BlockShape {
        element_size: bits / 8,
        width: w,
        height: h,
        count,
    };
    let data_ty = match op {
        GenIsaBlock::Read => call.result_type(),
        GenIsaBlock::Write => m.type_of(args[13]),
        GenIsaBlock::Prefetch => None,
    };
    if let Some(t) = data_ty {
        let bytes = value_bytes(m, t).ok_or("arguments")?;
        if sg_sizes.is_empty() {
            return Err("subgroup_size_unknown");
        }
        for &sg in sg_sizes {
            let per_block = shape
                .bytes_per_invocation_per_block(kind, sg)
                .ok_or("shape")?;
            if per_block.checked_mul(count) != Some(bytes) {
                return Err("value_size");
            }
        }
    }
    Ok(GenIsaPlan {
        kind,
        shape: [bits / 8, w, h, count],
        cache,
    })
}

/// `v + 1` for a surface field passed minus one: a constant folded, `a - 1` (or `a + -1`)
/// taken back to `a`, else an `OpIAdd` before `at`.
fn plus_one(m: &mut Module, it: &mut Interner, at: InstId, v: Id) -> Id {
    if let Some(c) = const_word(m, v) {
        return it.u32_const(m, c.wrapping_add(1));
    }
    if let Some(d) = m.def_inst(v) {
        let ops = (
            d.operand_id(0),
            d.operand_id(1).and_then(|k| const_word(m, k)),
        );
        match (d.op(), ops) {
            (Some(Op::ISub), (Some(a), Some(1))) | (Some(Op::IAdd), (Some(a), Some(u32::MAX)))
                if is_int(m, a, 32) =>
            {
                return a;
            }
            _ => {}
        }
    }
    let ty = it.int(m, 32);
    let one = it.u32_const(m, 1);
    let r = m.fresh_id();
    m.insert_before(
        at,
        Inst::new(Op::IAdd, Some(ty), Some(r), &[v.word(), one.word()]),
    );
    r
}

/// A new Function variable of type `ty` at the start of `func`'s entry block.
fn function_variable(m: &mut Module, it: &mut Interner, at: InstId, ty: Id) -> Option<Id> {
    let func = m.block(m.inst_block(at)?).func;
    let ptr = it.pointer(m, StorageClass::Function, ty);
    let var = m.fresh_id();
    let inst = Inst::new(
        Op::Variable,
        Some(ptr),
        Some(var),
        &[StorageClass::Function as u32],
    );
    let entry = *m.function(func).blocks.first()?;
    match m.block_insts(entry).find(|&i| !m.inst(i).is(Op::Variable)) {
        Some(i) => m.insert_before(i, inst),
        None => m.append_inst(entry, inst),
    };
    Some(var)
}

/// Replaces the call `call` by the native op of `plan` (and the variable traffic it needs).
/// Returns `false` (module unchanged) if the call is not in a function body.
pub(super) fn emit(m: &mut Module, it: &mut Interner, call: InstId, p: &GenIsaPlan) -> bool {
    if m.inst_block(call).is_none() {
        return false;
    }
    let c = m.inst(call).to_owned();
    let args: Vec<Id> = c.operands()[1..]
        .iter()
        .filter_map(|&w| Id::new(w))
        .collect();
    let elem = it.int(m, p.shape[0] * 8);
    let cross = it.pointer(m, StorageClass::CrossWorkgroup, elem);
    // The base: the pointer the address came from, else the address converted back.
    let from_ptr = m
        .def_inst(args[0])
        .filter(|d| d.is(Op::ConvertPtrToU))
        .and_then(|d| d.operand_id(0))
        .filter(|&q| {
            m.type_of(q)
                .and_then(|t| pointer_kind(m, t))
                .is_some_and(|(sc, _)| sc == StorageClass::CrossWorkgroup as u32)
        });
    let already_ptr = m
        .type_of(args[0])
        .and_then(|t| pointer_kind(m, t))
        .is_some();
    let base = match (from_ptr.or(already_ptr.then_some(args[0])), &p.cache) {
        (Some(q), None) => q,
        (Some(q), Some(_)) => {
            // A fresh id to carry this access's cache controls alone.
            let ty = m.type_of(q).unwrap_or(cross);
            let zero = it.u32_const(m, 0);
            let r = m.fresh_id();
            m.insert_before(
                call,
                Inst::new(
                    Op::PtrAccessChain,
                    Some(ty),
                    Some(r),
                    &[q.word(), zero.word()],
                ),
            );
            r
        }
        (None, _) => {
            let r = m.fresh_id();
            m.insert_before(
                call,
                Inst::new(Op::ConvertUToPtr, Some(cross), Some(r), &[args[0].word()]),
            );
            r
        }
    };
    if let Some((decoration, levels)) = &p.cache {
        for &(level, control) in levels {
            m.push_to_section(
                Section::Annotation,
                Inst::new(
                    Op::Decorate,
                    None,
                    None,
                    &[base.word(), *decoration, level, control],
                ),
            );
        }
    }
    let width = plus_one(m, it, call, args[1]);
    let height = plus_one(m, it, call, args[2]);
    let pitch = plus_one(m, it, call, args[3]);
    let u32t = it.int(m, 32);
    let v2 = it.vector(m, u32t, 2);
    let coord = m.fresh_id();
    m.insert_before(
        call,
        Inst::new(
            Op::CompositeConstruct,
            Some(v2),
            Some(coord),
            &[args[4].word(), args[5].word()],
        ),
    );
    let mut words: Vec<u32> = p.shape.iter().map(|&v| it.u32_const(m, v).word()).collect();
    let surface = [base, width, height, pitch, coord].map(Id::word);
    let opcode = block_opcode(p.kind);
    match p.kind {
        BlockKind::Prefetch => {
            words.extend(surface);
            m.insert_before(call, Inst::new(opcode, None, None, &words));
        }
        kind => {
            let data_ty = if kind == BlockKind::Store {
                m.type_of(args[13])
            } else {
                c.result_type()
            };
            let (Some(data_ty), Some(var)) = (
                data_ty,
                data_ty.and_then(|t| function_variable(m, it, call, t)),
            ) else {
                return false;
            };
            // The per-invocation pointer: to a 32-bit integer for transformed loads (the
            // extension's rule for typed pointers), else to the value's component type.
            let comp = if kind == BlockKind::LoadTransform {
                u32t
            } else {
                match m.def_inst(data_ty) {
                    Some(t) if t.is(Op::TypeVector) => t.operand_id(0).unwrap_or(data_ty),
                    _ => data_ty,
                }
            };
            let pty = it.pointer(m, StorageClass::Function, comp);
            let private = m.fresh_id();
            m.insert_before(
                call,
                Inst::new(Op::Bitcast, Some(pty), Some(private), &[var.word()]),
            );
            if kind == BlockKind::Store {
                m.insert_before(
                    call,
                    Inst::new(Op::Store, None, None, &[var.word(), args[13].word()]),
                );
                words.push(private.word());
                words.extend(surface);
                m.insert_before(call, Inst::new(opcode, None, None, &words));
            } else {
                words.extend(surface);
                words.push(private.word());
                m.insert_before(call, Inst::new(opcode, None, None, &words));
                m.insert_before(
                    call,
                    Inst::new(Op::Load, Some(data_ty), c.result_id(), &[var.word()]),
                );
            }
        }
    }
    m.erase(call);
    true
}
