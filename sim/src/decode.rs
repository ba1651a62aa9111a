//! Decoding a module for execution ([`Program::decode`]): types and their memory layouts,
//! constants into the shared pool, value slots of every function, blocks of decoded
//! instructions with phis and immediate post-dominators, decorations and built-ins.

use std::collections::HashMap;

use spvopt_ir::grammar::ExtSet;
use spvopt_ir::spirv::{self, Op};
use spvopt_ir::{Id, Module, Section};

use crate::error::SimError;
use crate::program::{
    builtin_by_name, compute_ipdoms, merr, round_up, DBlock, DFunc, DInst, GlobalVar, Loc, Program,
    Term, Ty, TyInfo, EXIT,
};

impl Program {
    /// Decodes `m` for execution. `sg_size` sizes cooperative-matrix values.
    pub fn decode(m: &Module, sg_size: u32) -> Result<Program, SimError> {
        let bound = m.id_capacity(); // max defined id + 1: never the untrusted header bound
        let mut p = Program {
            types: vec![None; bound],
            locs: vec![Loc::default(); bound],
            consts: Vec::new(),
            funcs: Vec::new(),
            func_of_id: HashMap::new(),
            entries: Vec::new(),
            globals: Vec::new(),
            ptr_bytes: 8,
            fp_rounding: HashMap::new(),
            saturated: Default::default(),
            names: HashMap::new(),
            func_vars: HashMap::new(),
            func_var_types: Vec::new(),
            lane_globals: 0,
            vty: vec![0; bound],
            vcomps: Vec::new(),
        };
        // ---- decorations, names, entry points --------------------------------------------
        let mut array_stride: HashMap<u32, u32> = HashMap::new();
        let mut member_offsets: HashMap<(u32, u32), u32> = HashMap::new();
        let mut cpacked: std::collections::HashSet<u32> = Default::default();
        let mut builtin: HashMap<u32, u32> = HashMap::new();
        let mut import: HashMap<u32, String> = HashMap::new();
        for (_, inst) in m.section_insts(Section::Annotation) {
            let ops = inst.operands();
            if inst.is(Op::Decorate) && ops.len() >= 2 {
                let (target, dec) = (ops[0], ops[1]);
                let arg = ops.get(2).copied().unwrap_or(0);
                match dec {
                    d if d == spirv::Decoration::ArrayStride as u32 => {
                        array_stride.insert(target, arg);
                    }
                    d if d == spirv::Decoration::BuiltIn as u32 => {
                        builtin.insert(target, arg);
                    }
                    d if d == spirv::Decoration::FPRoundingMode as u32 => {
                        p.fp_rounding.insert(target, arg);
                    }
                    d if d == spirv::Decoration::SaturatedConversion as u32 => {
                        p.saturated.insert(target);
                    }
                    d if d == spirv::Decoration::CPacked as u32 => {
                        cpacked.insert(target);
                    }
                    d if d == spirv::Decoration::LinkageAttributes as u32 => {
                        let words = &ops[2..];
                        let name = spvopt_ir::grammar::decode_string(words).unwrap_or("");
                        let used = name.len() / 4 + 1;
                        let kind = words.get(used).copied().unwrap_or(0);
                        if kind == spirv::LinkageType::Import as u32 {
                            import.insert(target, name.to_string());
                        }
                    }
                    _ => {}
                }
            } else if inst.is(Op::MemberDecorate)
                && ops.len() >= 4
                && ops[2] == spirv::Decoration::Offset as u32
            {
                member_offsets.insert((ops[0], ops[1]), ops[3]);
            }
        }
        for (_, inst) in m.section_insts(Section::Debug) {
            if inst.is(Op::Name) {
                let ops = inst.operands();
                if let (Some(&t), Some(s)) = (
                    ops.first(),
                    spvopt_ir::grammar::decode_string(ops.get(1..).unwrap_or(&[])),
                ) {
                    if !s.is_empty() {
                        p.names.insert(t, s.to_string());
                    }
                }
            }
        }
        for (_, inst) in m.section_insts(Section::MemoryModel) {
            if inst.operand_word(0) == Some(spirv::AddressingModel::Physical32 as u32) {
                p.ptr_bytes = 4;
            }
        }
        for (_, inst) in m.section_insts(Section::EntryPoint) {
            let ops = inst.operands();
            if ops.len() >= 3 {
                let name = spvopt_ir::grammar::decode_string(&ops[2..]).unwrap_or("");
                p.entries.push((name.to_string(), ops[1]));
            }
        }

        // ---- types, constants, global variables ------------------------------------------
        for (_, inst) in m.section_insts(Section::Global) {
            let Some(op) = inst.op() else { continue };
            let ops = inst.operands();
            let res = inst.result_id().map(|r| r.word()).unwrap_or(0);
            let rty = inst.result_type().map(|r| r.word()).unwrap_or(0);
            if res != 0 && rty != 0 {
                if let Some(v) = p.vty.get_mut(res as usize) {
                    *v = rty;
                }
            }
            let word = |i: usize| ops.get(i).copied().ok_or_else(|| merr("short instruction"));
            let info = match op {
                Op::TypeVoid => Some((Ty::Void, 0, 1, 0)),
                Op::TypeBool => Some((Ty::Bool, 1, 1, 1)),
                Op::TypeInt => {
                    let w = word(0)?;
                    if !matches!(w, 8 | 16 | 32 | 64) {
                        return Err(merr(format!("unsupported integer width {w}")));
                    }
                    let signed = word(1)? != 0;
                    Some((Ty::Int { width: w, signed }, w / 8, w / 8, w / 8))
                }
                Op::TypeFloat => {
                    let w = word(0)?;
                    if !matches!(w, 16 | 32 | 64) {
                        return Err(merr(format!("unsupported float width {w}")));
                    }
                    // The optional FP Encoding (SPV_KHR_bfloat16, SPV_EXT_float8): only
                    // BFloat16KHR (0) on a 16-bit float is executed.
                    let bf16 = match ops.get(1).copied() {
                        None => false,
                        Some(FP_ENCODING_BFLOAT16_KHR) if w == 16 => true,
                        Some(e) => {
                            return Err(merr(format!(
                                "unsupported floating-point encoding {e} of a {w}-bit float"
                            )))
                        }
                    };
                    Some((Ty::Float { width: w, bf16 }, w / 8, w / 8, w / 8))
                }
                Op::TypeVector | Op::TypeVectorIdEXT => {
                    let e = word(0)?;
                    // SPV_EXT_long_vector: the component count is a constant id.
                    let n = if op == Op::TypeVectorIdEXT {
                        let n = p
                            .const_u64(m, word(1)?)
                            .ok_or_else(|| merr("vector component count is not a constant"))?;
                        u32::try_from(n)
                            .ok()
                            .filter(|&n| n > 0)
                            .ok_or_else(|| merr(format!("vector of {n} components")))?
                    } else {
                        word(1)?
                    };
                    // u64: a hostile component count must not wrap (sizes are then capped).
                    let es = u64::from(p.ty(e)?.size);
                    let alloc_n = if n == 3 { 4 } else { u64::from(n) };
                    let align = type_bytes(res, es * alloc_n.next_power_of_two())?;
                    let size = type_bytes(res, es * u64::from(n))?;
                    let stride = round_up(type_bytes(res, es * alloc_n)?, align);
                    Some((Ty::Vector { elem: e, n }, size, align, stride))
                }
                Op::TypeArray => {
                    let e = word(0)?;
                    let n = p
                        .const_u64(m, word(1)?)
                        .ok_or_else(|| merr("array length is not a constant"))?
                        as u32;
                    let et = p.ty(e)?.clone();
                    let stride = array_stride.get(&res).copied().unwrap_or(et.stride);
                    let size = type_bytes(res, u64::from(stride) * u64::from(n))?;
                    Some((Ty::Array { elem: e, n, stride }, size, et.align, size))
                }
                Op::TypeRuntimeArray => {
                    let e = word(0)?;
                    let et = p.ty(e)?.clone();
                    let stride = array_stride.get(&res).copied().unwrap_or(et.stride);
                    Some((
                        Ty::Array {
                            elem: e,
                            n: 0,
                            stride,
                        },
                        0,
                        et.align,
                        0,
                    ))
                }
                Op::TypeStruct => {
                    let packed = cpacked.contains(&res);
                    let mut off = 0u64;
                    let mut align = 1u32;
                    let mut offsets = Vec::new();
                    for (i, &mt) in ops.iter().enumerate() {
                        let t = p.ty(mt)?;
                        let a = if packed { 1 } else { t.align.max(1) };
                        let o = member_offsets
                            .get(&(res, i as u32))
                            .copied()
                            // `off` <= MAX_TYPE_BYTES: checked after every member.
                            .unwrap_or_else(|| round_up(off as u32, a));
                        offsets.push(o);
                        off = u64::from(o) + u64::from(t.stride.max(t.size));
                        type_bytes(res, off)?;
                        align = align.max(a);
                    }
                    let size = type_bytes(res, off.div_ceil(u64::from(align)) * u64::from(align))?;
                    Some((
                        Ty::Struct {
                            members: ops.to_vec(),
                            offsets,
                        },
                        size,
                        align,
                        size,
                    ))
                }
                Op::TypePointer => {
                    let pb = p.ptr_bytes;
                    Some((
                        Ty::Pointer {
                            storage: word(0)?,
                            pointee: word(1)?,
                        },
                        pb,
                        pb,
                        pb,
                    ))
                }
                Op::TypeUntypedPointerKHR => {
                    let pb = p.ptr_bytes;
                    Some((
                        Ty::Pointer {
                            storage: word(0)?,
                            pointee: 0,
                        },
                        pb,
                        pb,
                        pb,
                    ))
                }
                Op::TypeCooperativeMatrixKHR => {
                    let e = word(0)?;
                    let scope = p.const_u64(m, word(1)?).unwrap_or(0) as u32;
                    let rows = p.const_u64(m, word(2)?).unwrap_or(0) as u32;
                    let cols = p.const_u64(m, word(3)?).unwrap_or(0) as u32;
                    let usage = p.const_u64(m, word(4)?).unwrap_or(0) as u32;
                    let es = u64::from(p.ty(e)?.size);
                    // Loads and stores walk every element in one step: bounded like
                    // convert-tensor-addressing's largest matrix.
                    let elements = u64::from(rows) * u64::from(cols);
                    if elements > MAX_COOP_MATRIX_ELEMENTS {
                        return Err(merr(format!(
                            "type %{res}: a cooperative matrix of {rows}x{cols} elements, above \
                             the simulator's limit of {MAX_COOP_MATRIX_ELEMENTS}"
                        )));
                    }
                    let per = elements.div_ceil(u64::from(sg_size.max(1)));
                    let bytes = type_bytes(res, per * es)?;
                    let es = es as u32;
                    Some((
                        Ty::CoopMatrix {
                            elem: e,
                            scope,
                            rows,
                            cols,
                            usage,
                        },
                        bytes,
                        es,
                        bytes,
                    ))
                }
                Op::TypeTensorLayoutNV => {
                    let dims = tensor_dims(p.const_u64(m, word(0)?).unwrap_or(0))?;
                    let clamp = p.const_u64(m, word(1)?).unwrap_or(0) as u32;
                    let size = crate::tensor_addressing::layout_bytes(dims);
                    Some((Ty::TensorLayout { dims, clamp }, size, 4, size))
                }
                Op::TypeTensorViewNV => {
                    let dims = tensor_dims(p.const_u64(m, word(0)?).unwrap_or(0))?;
                    let has_dims = p.const_u64(m, word(1)?).unwrap_or(0) != 0;
                    let perm = ops[2..]
                        .iter()
                        .map(|&x| p.const_u64(m, x).unwrap_or(0) as u32)
                        .collect();
                    let size = crate::tensor_addressing::view_bytes(dims);
                    Some((
                        Ty::TensorView {
                            dims,
                            has_dims,
                            perm,
                        },
                        size,
                        4,
                        size,
                    ))
                }
                Op::TypeFunction
                | Op::TypeEvent
                | Op::TypeDeviceEvent
                | Op::TypeReserveId
                | Op::TypeQueue
                | Op::TypePipe
                | Op::TypeOpaque
                | Op::TypeSampler
                | Op::TypeImage
                | Op::TypeSampledImage
                | Op::TypeForwardPointer => Some((Ty::Other, 8, 8, 8)),
                _ => None,
            };
            if let Some((ty, size, align, stride)) = info {
                if op == Op::TypeForwardPointer {
                    continue;
                }
                if let Some(slot) = p.types.get_mut(res as usize) {
                    *slot = Some(TyInfo {
                        ty,
                        size,
                        align: align.max(1),
                        stride,
                    });
                }
                continue;
            }
            match op {
                Op::Constant
                | Op::SpecConstant
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::ConstantNull
                | Op::Undef
                | Op::ConstantComposite
                | Op::SpecConstantComposite
                | Op::ConstantCompositeReplicateEXT
                | Op::SpecConstantCompositeReplicateEXT => {
                    let size = p.ty(rty)?.size as usize;
                    if p.consts.len() + size > MAX_CONSTANT_BYTES {
                        return Err(merr(format!(
                            "constant %{res}: the module's constants pass the simulator's limit \
                             of {MAX_CONSTANT_BYTES} bytes"
                        )));
                    }
                    let mut bytes = vec![0u8; size];
                    match op {
                        Op::Constant | Op::SpecConstant => {
                            for (i, w) in ops.iter().enumerate() {
                                for (j, b) in w.to_le_bytes().iter().enumerate() {
                                    if let Some(x) = bytes.get_mut(i * 4 + j) {
                                        *x = *b;
                                    }
                                }
                            }
                        }
                        Op::ConstantTrue | Op::SpecConstantTrue => {
                            if let Some(b) = bytes.first_mut() {
                                *b = 1
                            }
                        }
                        Op::ConstantComposite | Op::SpecConstantComposite => {
                            p.fill_composite(rty, ops, &mut bytes)?;
                        }
                        Op::ConstantCompositeReplicateEXT
                        | Op::SpecConstantCompositeReplicateEXT => {
                            let parts = p.composite_parts(rty)?;
                            let v = word(0)?;
                            let src = p.const_bytes(v)?.to_vec();
                            for (off, sz) in parts {
                                let n = (sz as usize).min(src.len());
                                bytes[off as usize..off as usize + n].copy_from_slice(&src[..n]);
                            }
                        }
                        _ => {}
                    }
                    p.add_const(res, &bytes);
                }
                Op::Variable => {
                    let storage = word(0)?;
                    let pointee = match p.ty(rty)?.ty {
                        Ty::Pointer { pointee, .. } => pointee,
                        _ => return Err(merr("OpVariable of non-pointer type")),
                    };
                    let name = import
                        .get(&res)
                        .cloned()
                        .or_else(|| p.names.get(&res).cloned());
                    let bi = builtin.get(&res).copied().or_else(|| {
                        name.as_deref()
                            .and_then(|n| n.strip_prefix("__spirv_BuiltIn"))
                            .and_then(builtin_by_name)
                    });
                    p.globals.push(GlobalVar {
                        id: res,
                        storage,
                        pointee,
                        init: ops.get(1).copied(),
                        builtin: bi,
                    });
                    if storage == spirv::StorageClass::Private as u32 && bi.is_none() {
                        let off = p.lane_globals * 8;
                        p.lane_globals += 1;
                        p.locs[res as usize] = Loc {
                            kind: 3,
                            off,
                            size: p.ptr_bytes,
                        };
                    } else {
                        // address filled in at launch
                        p.add_const(res, &vec![0u8; p.ptr_bytes as usize]);
                    }
                }
                Op::SpecConstantOp => {
                    // not evaluated: any use is reported
                }
                _ => {}
            }
        }

        /// Bytes of values one invocation of one function may hold (16 MiB; the largest
        /// corpus kernel needs a fraction of that). Keeps frame offsets far from overflow.
        const MAX_FRAME_PER_INVOCATION: u32 = 16 << 20;
        // ---- functions ---------------------------------------------------------------------
        for f in &m.functions {
            let def = m.inst(f.def);
            let fid = def.result_id().map(|r| r.word()).unwrap_or(0);
            let ret_ty = def.result_type().map(|r| r.word()).unwrap_or(0);
            let mut frame = 0u32;
            let mut alloc = |p: &mut Program, id: u32, ty: u32| -> Result<(), SimError> {
                let size = p.ty(ty)?.size;
                let off = round_up(frame, 8);
                frame = off
                    .checked_add(size)
                    .filter(|&f| f <= MAX_FRAME_PER_INVOCATION)
                    .ok_or_else(|| {
                        merr(format!(
                            "function %{fid}: its values need more than {MAX_FRAME_PER_INVOCATION} \
                             bytes per invocation (the simulator's limit)"
                        ))
                    })?;
                if let Some(l) = p.locs.get_mut(id as usize) {
                    *l = Loc { kind: 2, off, size };
                }
                Ok(())
            };
            let mut params = Vec::new();
            for &pi in &f.header {
                let inst = m.inst(pi);
                if inst.is(Op::FunctionParameter) {
                    let id = inst.result_id().map(|r| r.word()).unwrap_or(0);
                    let ty = inst.result_type().map(|r| r.word()).unwrap_or(0);
                    alloc(&mut p, id, ty)?;
                    if let Some(v) = p.vty.get_mut(id as usize) {
                        *v = ty;
                    }
                    params.push(id);
                }
            }
            let mut blocks = Vec::new();
            let mut block_of_label = HashMap::new();
            for (bi, &b) in f.blocks.iter().enumerate() {
                block_of_label.insert(m.block_label(b).word(), bi as u32);
            }
            for &b in &f.blocks {
                let label = m.block_label(b).word();
                let mut phis = Vec::new();
                let mut insts = Vec::new();
                let mut term = None;
                let mut term_at = m.block(b).label;
                for ii in m.block_insts(b) {
                    let inst = m.inst(ii);
                    // Predicated loads and stores (SPV_INTEL_predicated_io) are not in
                    // `spirv::Op`: they run as `Load`/`Store` marked `predicated`.
                    let predicated = matches!(inst.opcode(), PREDICATED_LOAD | PREDICATED_STORE);
                    let internal =
                        if spvopt_ir::grammar::internal::is_translator_internal(inst.opcode()) {
                            inst.opcode()
                        } else {
                            0
                        };
                    let op = match inst.opcode() {
                        PREDICATED_LOAD => Op::Load,
                        PREDICATED_STORE => Op::Store,
                        // Run by `Machine::joint_matrix`.
                        _ if internal != 0 => Op::Nop,
                        _ => inst
                            .op()
                            .ok_or_else(|| merr(format!("unknown opcode {}", inst.opcode())))?,
                    };
                    let ops = inst.operands();
                    let res = inst.result_id().map(|r| r.word()).unwrap_or(0);
                    let rty = inst.result_type().map(|r| r.word()).unwrap_or(0);
                    if res != 0
                        && rty != 0
                        && p.types.get(rty as usize).is_some_and(|t| t.is_some())
                    {
                        alloc(&mut p, res, rty)?;
                        if let Some(v) = p.vty.get_mut(res as usize) {
                            *v = rty;
                        }
                    }
                    let t = match op {
                        Op::Phi => {
                            let pairs = ops.chunks(2).filter(|c| c.len() == 2);
                            phis.push((res, pairs.map(|c| (c[1], c[0])).collect()));
                            continue;
                        }
                        Op::Branch => Some(Term::Branch(
                            *block_of_label
                                .get(&ops[0])
                                .ok_or_else(|| merr("bad branch"))?,
                        )),
                        Op::BranchConditional => {
                            let lb = |x: &u32| block_of_label.get(x).copied();
                            Some(Term::CondBranch(
                                ops[0],
                                lb(&ops[1]).ok_or_else(|| merr("bad branch"))?,
                                lb(&ops[2]).ok_or_else(|| merr("bad branch"))?,
                            ))
                        }
                        Op::Switch => {
                            let sel = ops[0];
                            let lw = m
                                .type_of(Id::new(sel).ok_or_else(|| merr("bad switch"))?)
                                .and_then(|t| m.literal_words_of_type(t))
                                .unwrap_or(1) as usize;
                            let default = *block_of_label
                                .get(&ops[1])
                                .ok_or_else(|| merr("bad switch"))?;
                            let mut cases = Vec::new();
                            for c in ops[2..].chunks(lw + 1) {
                                if c.len() != lw + 1 {
                                    return Err(merr("bad switch"));
                                }
                                let mut v = c[0] as u64;
                                if lw == 2 {
                                    v |= (c[1] as u64) << 32;
                                }
                                let t = *block_of_label
                                    .get(&c[lw])
                                    .ok_or_else(|| merr("bad switch"))?;
                                cases.push((v, t));
                            }
                            Some(Term::Switch {
                                selector: sel,
                                default,
                                cases,
                            })
                        }
                        Op::Return => Some(Term::Return),
                        Op::ReturnValue => Some(Term::ReturnValue(ops[0])),
                        Op::Unreachable => Some(Term::Unreachable),
                        Op::Kill | Op::TerminateInvocation => Some(Term::Kill),
                        _ => None,
                    };
                    if let Some(t) = t {
                        term = Some(t);
                        term_at = ii;
                        break;
                    }
                    if internal == 0
                        && matches!(
                            op,
                            Op::Line
                                | Op::NoLine
                                | Op::LoopMerge
                                | Op::SelectionMerge
                                | Op::Nop
                                | Op::LifetimeStart
                                | Op::LifetimeStop
                                | Op::AssumeTrueKHR
                                | Op::Name
                        )
                    {
                        continue;
                    }
                    let mut ext = "";
                    if op == Op::ExtInst {
                        let set = Id::new(ops[0]).and_then(|s| m.ext_set(s));
                        match set {
                            Some(ExtSet::OpenClStd) => {
                                ext = ExtSet::OpenClStd
                                    .inst(ops[1])
                                    .map(|d| d.name)
                                    .unwrap_or("?");
                            }
                            Some(s) if s.is_debug_or_non_semantic() => continue,
                            _ => ext = "?",
                        }
                    }
                    if op == Op::Variable {
                        let idx = p.func_var_types.len();
                        p.func_vars.insert(res, idx);
                        let pointee = match p.ty(rty)?.ty {
                            Ty::Pointer { pointee, .. } => pointee,
                            _ => return Err(merr("OpVariable of non-pointer type")),
                        };
                        p.func_var_types.push(pointee);
                    }
                    insts.push(DInst {
                        op,
                        ty: rty,
                        res,
                        w: smallvec::SmallVec::from_slice(ops),
                        at: ii,
                        ext,
                        predicated,
                        internal,
                    });
                }
                let term = term.ok_or_else(|| merr(format!("block %{label} has no terminator")))?;
                blocks.push(DBlock {
                    label,
                    phis,
                    insts,
                    term,
                    term_at,
                    ipdom: EXIT,
                });
            }
            compute_ipdoms(&mut blocks);
            let name = p
                .names
                .get(&fid)
                .cloned()
                .or_else(|| import.get(&fid).cloned())
                .unwrap_or_else(|| format!("%{fid}"));
            p.func_of_id.insert(fid, p.funcs.len());
            p.funcs.push(DFunc {
                id: fid,
                name,
                ret_ty,
                params,
                import: if blocks.is_empty() {
                    import
                        .get(&fid)
                        .cloned()
                        .or_else(|| p.names.get(&fid).cloned())
                } else {
                    None
                },
                blocks,
                block_of_label,
                frame_size: round_up(frame, 8),
            });
        }
        p.vcomps = (0..p.types.len() as u32)
            .map(|t| {
                p.types[t as usize].as_ref()?;
                crate::components::vcomp_uncached(&p, t).ok()
            })
            .collect();
        Ok(p)
    }
}

/// The largest size, stride or alignment of a type the simulator lays out: 16 MiB, the same as
/// a function's values per invocation may take. Type sizes multiply (a vector of 2^30
/// components costs one instruction), so larger ones are an error instead of a wrapped `u32`.
const MAX_TYPE_BYTES: u64 = 16 << 20;

/// `FPEncoding` `BFloat16KHR` (SPV_KHR_bfloat16).
const FP_ENCODING_BFLOAT16_KHR: u32 = 0;

/// `OpPredicatedLoadINTEL` and `OpPredicatedStoreINTEL` (SPV_INTEL_predicated_io).
const PREDICATED_LOAD: u16 = 6258;
const PREDICATED_STORE: u16 = 6259;

/// The most elements of a cooperative matrix type (256 x 256).
const MAX_COOP_MATRIX_ELEMENTS: u64 = 1 << 16;

/// The most bytes all of a module's constants may take together (each constant's bytes are
/// materialised once; an `OpConstantNull` of a 16 MiB type costs one instruction).
const MAX_CONSTANT_BYTES: usize = 256 << 20;

/// `bytes` as a type size, or the error for type `%res` above [`MAX_TYPE_BYTES`].
fn type_bytes(res: u32, bytes: u64) -> Result<u32, SimError> {
    if bytes <= MAX_TYPE_BYTES {
        Ok(bytes as u32)
    } else {
        Err(merr(format!(
            "type %{res} needs {bytes} bytes, above the simulator's limit of {MAX_TYPE_BYTES}"
        )))
    }
}

/// A tensor layout's or view's dimension count: SPV_NV_tensor_addressing allows 1 to 5.
fn tensor_dims(dims: u64) -> Result<u32, SimError> {
    if dims <= 5 {
        Ok(dims as u32)
    } else {
        Err(merr(format!(
            "a tensor type of {dims} dimensions (at most 5)"
        )))
    }
}
