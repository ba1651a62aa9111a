//! The module pre-decoded for execution: a dense type table with memory layouts, every result
//! id mapped to a value slot (module constants in one shared pool, function values in a
//! per-function frame), function bodies as blocks of decoded instructions with their phis and
//! immediate post-dominators (the SIMT reconvergence points), decorations the interpreter needs.
//!
//! Layout rules (OpenCL C): scalars are naturally aligned; an n-component vector has the
//! alignment of n rounded up to a power of two times its component size (a 3-component vector
//! occupies 4 components in arrays and structs, 3 when loaded or stored on its own); arrays use
//! `ArrayStride` when decorated, else the element's padded size; structs use `Offset`
//! decorations when present, else natural alignment (`CPacked`: none). Booleans take one byte.

use std::collections::HashMap;

use spvopt_ir::grammar::ExtSet;
use spvopt_ir::spirv::{self, Op};
use spvopt_ir::{Id, InstId, Module, Section};

use crate::error::SimError;

/// Sentinel block index: the virtual exit of a function.
pub const EXIT: u32 = u32::MAX;

/// A type, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        elem: u32,
        n: u32,
    },
    Array {
        elem: u32,
        n: u32,
        stride: u32,
    },
    Struct {
        members: Vec<u32>,
        offsets: Vec<u32>,
    },
    Pointer {
        storage: u32,
        pointee: u32,
    },
    /// `OpTypeCooperativeMatrixKHR`: component type, scope, rows, columns, use.
    CoopMatrix {
        elem: u32,
        scope: u32,
        rows: u32,
        cols: u32,
        usage: u32,
    },
    /// `OpTypeTensorLayoutNV` (dims, clamp mode) and `OpTypeTensorViewNV` (dims, has_dims, perm).
    /// Values: see [`crate::tensor_addressing`].
    TensorLayout {
        dims: u32,
        clamp: u32,
    },
    TensorView {
        dims: u32,
        has_dims: bool,
        perm: Vec<u32>,
    },
    /// Anything else (functions, events, opaque types): carried as 8 opaque bytes.
    Other,
}

/// A type with its layout.
#[derive(Debug, Clone)]
pub struct TyInfo {
    pub ty: Ty,
    /// Bytes of a value of this type (registers and load/store size).
    pub size: u32,
    pub align: u32,
    /// Bytes between consecutive elements of this type in memory.
    pub stride: u32,
}

/// Where the value of an id lives.
#[derive(Debug, Clone, Copy, Default)]
pub struct Loc {
    /// 0: no value; 1: constant pool; 2: function frame; 3: per-invocation globals.
    pub kind: u8,
    pub off: u32,
    pub size: u32,
}

/// A terminator.
#[derive(Debug, Clone)]
pub enum Term {
    Branch(u32),
    CondBranch(u32, u32, u32),
    Switch {
        selector: u32,
        default: u32,
        cases: Vec<(u64, u32)>,
    },
    Return,
    ReturnValue(u32),
    Unreachable,
    Kill,
}

/// One decoded non-terminator instruction.
#[derive(Debug, Clone)]
pub struct DInst {
    pub op: Op,
    /// Result type id (0 if none).
    pub ty: u32,
    /// Result id (0 if none).
    pub res: u32,
    /// Operand words after the result type and result id.
    pub w: smallvec::SmallVec<[u32; 8]>,
    /// The instruction in the module (for error messages).
    pub at: InstId,
    /// For OpExtInst of OpenCL.std: the instruction's name; empty otherwise.
    pub ext: &'static str,
}

/// A block: phis, body, terminator, reconvergence point.
#[derive(Debug, Clone)]
pub struct DBlock {
    pub label: u32,
    /// (result id, [(predecessor label, value id)]).
    pub phis: Vec<(u32, Vec<(u32, u32)>)>,
    pub insts: Vec<DInst>,
    pub term: Term,
    pub term_at: InstId,
    /// Immediate post-dominator (block index) or [`EXIT`].
    pub ipdom: u32,
}

/// A decoded function.
#[derive(Debug, Clone)]
pub struct DFunc {
    pub id: u32,
    pub name: String,
    pub ret_ty: u32,
    pub params: Vec<u32>,
    pub blocks: Vec<DBlock>,
    pub block_of_label: HashMap<u32, u32>,
    pub frame_size: u32,
    /// `LinkageAttributes ... Import` name for declarations without a body.
    pub import: Option<String>,
}

/// A module-scope variable that needs memory at launch.
#[derive(Debug, Clone)]
pub struct GlobalVar {
    pub id: u32,
    pub storage: u32,
    pub pointee: u32,
    pub init: Option<u32>,
    /// BuiltIn decoration (or the builtin named by an imported `__spirv_BuiltIn*` variable).
    pub builtin: Option<u32>,
}

/// The decoded module.
#[derive(Debug, Clone)]
pub struct Program {
    pub types: Vec<Option<TyInfo>>,
    pub locs: Vec<Loc>,
    pub consts: Vec<u8>,
    pub funcs: Vec<DFunc>,
    pub func_of_id: HashMap<u32, usize>,
    pub entries: Vec<(String, u32)>,
    pub globals: Vec<GlobalVar>,
    pub ptr_bytes: u32,
    pub fp_rounding: HashMap<u32, u32>,
    pub saturated: std::collections::HashSet<u32>,
    pub names: HashMap<u32, String>,
    /// Function-storage variables: result id -> index into the per-invocation private slots.
    pub func_vars: HashMap<u32, usize>,
    /// Sizes of the function variables, by index.
    pub func_var_types: Vec<u32>,
    /// Number of per-invocation global value slots (Private variables), 8 bytes each.
    pub lane_globals: u32,
    /// Type id of every value id (0 for ids without a value).
    pub vty: Vec<u32>,
}

fn merr(msg: impl Into<String>) -> SimError {
    SimError::Module(msg.into())
}

fn round_up(x: u32, a: u32) -> u32 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

impl Program {
    pub fn ty(&self, id: u32) -> Result<&TyInfo, SimError> {
        self.types
            .get(id as usize)
            .and_then(|t| t.as_ref())
            .ok_or_else(|| merr(format!("%{id} is not a type the simulator knows")))
    }

    /// Component type id and count of a scalar or vector type (1 for scalars).
    pub fn components(&self, ty: u32) -> Result<(u32, u32), SimError> {
        let t = self.ty(ty)?;
        match t.ty {
            Ty::Vector { elem, n } => Ok((elem, n)),
            // an invocation's elements of a cooperative matrix act as a vector (element-wise ops)
            Ty::CoopMatrix { elem, .. } => Ok((elem, t.size / self.ty(elem)?.size.max(1))),
            _ => Ok((ty, 1)),
        }
    }

    /// Bit width of a scalar type (bool: 8, pointers: pointer bytes * 8).
    pub fn scalar_bits(&self, ty: u32) -> Result<u32, SimError> {
        let t = self.ty(ty)?;
        Ok(match t.ty {
            Ty::Bool => 8,
            Ty::Int { width, .. } | Ty::Float { width } => width,
            Ty::Pointer { .. } => self.ptr_bytes * 8,
            _ => t.size * 8,
        })
    }

    pub fn is_float(&self, ty: u32) -> bool {
        matches!(self.ty(ty).map(|t| &t.ty), Ok(Ty::Float { .. }))
    }

    pub fn name_of(&self, id: u32) -> String {
        match self.names.get(&id) {
            Some(n) => format!("%{n}"),
            None => format!("%{id}"),
        }
    }

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
                    Some((Ty::Float { width: w }, w / 8, w / 8, w / 8))
                }
                Op::TypeVector => {
                    let e = word(0)?;
                    let n = word(1)?;
                    let es = p.ty(e)?.size;
                    let alloc_n = if n == 3 { 4 } else { n };
                    let align = es * alloc_n.next_power_of_two();
                    let size = es * n;
                    Some((
                        Ty::Vector { elem: e, n },
                        size,
                        align,
                        round_up(es * alloc_n, align),
                    ))
                }
                Op::TypeArray => {
                    let e = word(0)?;
                    let n = p
                        .const_u64(m, word(1)?)
                        .ok_or_else(|| merr("array length is not a constant"))?
                        as u32;
                    let et = p.ty(e)?.clone();
                    let stride = array_stride.get(&res).copied().unwrap_or(et.stride);
                    let size = stride
                        .checked_mul(n)
                        .ok_or_else(|| merr("array too large"))?;
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
                    let mut off = 0u32;
                    let mut align = 1u32;
                    let mut offsets = Vec::new();
                    for (i, &mt) in ops.iter().enumerate() {
                        let t = p.ty(mt)?;
                        let a = if packed { 1 } else { t.align.max(1) };
                        let o = member_offsets
                            .get(&(res, i as u32))
                            .copied()
                            .unwrap_or_else(|| round_up(off, a));
                        offsets.push(o);
                        off = o + t.stride.max(t.size);
                        align = align.max(a);
                    }
                    let size = round_up(off, align);
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
                    let es = p.ty(e)?.size;
                    let per = (rows * cols).div_ceil(sg_size.max(1));
                    Some((
                        Ty::CoopMatrix {
                            elem: e,
                            scope,
                            rows,
                            cols,
                            usage,
                        },
                        per * es,
                        es,
                        per * es,
                    ))
                }
                Op::TypeTensorLayoutNV => {
                    let dims = p.const_u64(m, word(0)?).unwrap_or(0) as u32;
                    let clamp = p.const_u64(m, word(1)?).unwrap_or(0) as u32;
                    let size = crate::tensor_addressing::layout_bytes(dims);
                    Some((Ty::TensorLayout { dims, clamp }, size, 4, size))
                }
                Op::TypeTensorViewNV => {
                    let dims = p.const_u64(m, word(0)?).unwrap_or(0) as u32;
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

        // ---- functions ---------------------------------------------------------------------
        for f in &m.functions {
            let def = m.inst(f.def);
            let fid = def.result_id().map(|r| r.word()).unwrap_or(0);
            let ret_ty = def.result_type().map(|r| r.word()).unwrap_or(0);
            let mut frame = 0u32;
            let mut alloc = |p: &mut Program, id: u32, ty: u32| -> Result<(), SimError> {
                let size = p.ty(ty)?.size;
                let off = round_up(frame, 8);
                frame = off + size;
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
                    let Some(op) = inst.op() else {
                        return Err(merr(format!("unknown opcode {}", inst.opcode())));
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
                    if matches!(
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
                    ) {
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
        Ok(p)
    }

    fn add_const(&mut self, id: u32, bytes: &[u8]) {
        let off = round_up(self.consts.len() as u32, 8);
        self.consts.resize(off as usize, 0);
        self.consts.extend_from_slice(bytes);
        if let Some(l) = self.locs.get_mut(id as usize) {
            *l = Loc {
                kind: 1,
                off,
                size: bytes.len() as u32,
            };
        }
    }

    /// Bytes of a module constant.
    pub fn const_bytes(&self, id: u32) -> Result<&[u8], SimError> {
        let l = self.locs.get(id as usize).copied().unwrap_or_default();
        if l.kind != 1 {
            return Err(merr(format!("%{id} is not a constant")));
        }
        Ok(&self.consts[l.off as usize..(l.off + l.size) as usize])
    }

    fn const_u64(&self, m: &Module, id: u32) -> Option<u64> {
        if let Ok(b) = self.const_bytes(id) {
            let mut v = [0u8; 8];
            let n = b.len().min(8);
            v[..n].copy_from_slice(&b[..n]);
            return Some(u64::from_le_bytes(v));
        }
        let inst = m.def_inst(Id::new(id)?)?;
        if inst.is(Op::Constant) || inst.is(Op::SpecConstant) {
            let lo = inst.operand_word(0)? as u64;
            let hi = inst.operand_word(1).unwrap_or(0) as u64;
            return Some(lo | hi << 32);
        }
        None
    }

    /// (offset, size) of each constituent of a composite type.
    pub fn composite_parts(&self, ty: u32) -> Result<Vec<(u32, u32)>, SimError> {
        Ok(match &self.ty(ty)?.ty {
            Ty::Vector { elem, n } => {
                let es = self.ty(*elem)?.size;
                (0..*n).map(|i| (i * es, es)).collect()
            }
            Ty::Array { elem, n, stride } => {
                let es = self.ty(*elem)?.size;
                (0..*n).map(|i| (i * stride, es)).collect()
            }
            Ty::Struct { members, offsets } => members
                .iter()
                .zip(offsets)
                .map(|(&t, &o)| Ok((o, self.ty(t)?.size)))
                .collect::<Result<_, SimError>>()?,
            Ty::CoopMatrix { elem, .. } => {
                let es = self.ty(*elem)?.size.max(1);
                let n = self.ty(ty)?.size / es;
                (0..n).map(|i| (i * es, es)).collect()
            }
            _ => return Err(merr(format!("%{ty} is not a composite type"))),
        })
    }

    /// Type and (offset, size) of member `idx` of a composite type.
    pub fn member(&self, ty: u32, idx: u32) -> Result<(u32, u32), SimError> {
        match &self.ty(ty)?.ty {
            Ty::Vector { elem, n } if idx < *n => Ok((*elem, idx * self.ty(*elem)?.size)),
            Ty::Array { elem, n, stride } if idx < *n || *n == 0 => Ok((*elem, idx * stride)),
            Ty::Struct { members, offsets } if (idx as usize) < members.len() => {
                Ok((members[idx as usize], offsets[idx as usize]))
            }
            Ty::CoopMatrix { elem, .. } => Ok((*elem, idx * self.ty(*elem)?.size)),
            _ => Err(merr(format!("index {idx} out of range of type %{ty}"))),
        }
    }

    fn fill_composite(&self, ty: u32, parts: &[u32], out: &mut [u8]) -> Result<(), SimError> {
        // vectors may be built from smaller vectors
        let mut off = 0usize;
        let layout = self.composite_parts(ty)?;
        let is_vec = matches!(self.ty(ty)?.ty, Ty::Vector { .. });
        if matches!(self.ty(ty)?.ty, Ty::CoopMatrix { .. }) && parts.len() == 1 {
            // a cooperative-matrix constant has one constituent, replicated to every element
            let src = self.const_bytes(parts[0])?;
            for (o, s) in layout {
                let n = (s as usize).min(src.len());
                if let Some(d) = out.get_mut(o as usize..o as usize + n) {
                    d.copy_from_slice(&src[..n]);
                }
            }
            return Ok(());
        }
        for (i, &c) in parts.iter().enumerate() {
            let src = self.const_bytes(c)?;
            let at = if is_vec {
                off
            } else {
                layout.get(i).map(|x| x.0 as usize).unwrap_or(out.len())
            };
            if at > out.len() {
                return Err(merr(format!(
                    "constant composite with constituent %{c} past the end of its type"
                )));
            }
            let n = src.len().min(out.len() - at);
            out[at..at + n].copy_from_slice(&src[..n]);
            off += src.len();
        }
        Ok(())
    }
}

/// The BuiltIn number of a `__spirv_BuiltIn<Name>` import.
pub fn builtin_by_name(name: &str) -> Option<u32> {
    use spirv::BuiltIn as B;
    Some(match name {
        "GlobalInvocationId" => B::GlobalInvocationId,
        "LocalInvocationId" => B::LocalInvocationId,
        "WorkgroupId" => B::WorkgroupId,
        "NumWorkgroups" => B::NumWorkgroups,
        "WorkgroupSize" => B::WorkgroupSize,
        "GlobalSize" => B::GlobalSize,
        "GlobalOffset" => B::GlobalOffset,
        "SubgroupLocalInvocationId" => B::SubgroupLocalInvocationId,
        "SubgroupId" => B::SubgroupId,
        "SubgroupSize" => B::SubgroupSize,
        "SubgroupMaxSize" => B::SubgroupMaxSize,
        "NumSubgroups" => B::NumSubgroups,
        "NumEnqueuedSubgroups" => B::NumEnqueuedSubgroups,
        "EnqueuedWorkgroupSize" => B::EnqueuedWorkgroupSize,
        "GlobalLinearId" => B::GlobalLinearId,
        "LocalInvocationIndex" => B::LocalInvocationIndex,
        "WorkDim" => B::WorkDim,
        _ => return None,
    } as u32)
}

/// Immediate post-dominators over the blocks' successor edges, with a virtual exit joining
/// every block without successors (Cooper-Harvey-Kennedy on the reverse CFG). Blocks that
/// cannot reach the exit get [`EXIT`].
fn compute_ipdoms(blocks: &mut [DBlock]) {
    let n = blocks.len();
    let succs: Vec<Vec<u32>> = blocks
        .iter()
        .map(|b| match &b.term {
            Term::Branch(t) => vec![*t],
            Term::CondBranch(_, t, f) => vec![*t, *f],
            Term::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|c| c.1));
                v
            }
            _ => vec![],
        })
        .collect();
    let exit = n; // virtual node
    let mut preds_rev: Vec<Vec<usize>> = vec![Vec::new(); n + 1]; // reverse-graph predecessors = successors
    for (b, s) in succs.iter().enumerate() {
        if s.is_empty() {
            preds_rev[b].push(exit);
        }
        for &t in s {
            preds_rev[b].push(t as usize);
        }
    }
    // reverse-graph successors of x = CFG predecessors of x (exit -> blocks without succs)
    let mut rsucc: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (b, ps) in preds_rev.iter().enumerate() {
        for &p in ps {
            rsucc[p].push(b);
        }
    }
    // postorder of the reverse graph from exit
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if *i < rsucc[v].len() {
            let w = rsucc[v][*i];
            *i += 1;
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
            stack.pop();
        }
    }
    let mut po = vec![usize::MAX; n + 1];
    for (i, &v) in order.iter().enumerate() {
        po[v] = i;
    }
    let undef = usize::MAX;
    let mut idom = vec![undef; n + 1];
    idom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == exit {
                continue;
            }
            let mut new = undef;
            for &p in &preds_rev[v] {
                if idom[p] == undef {
                    continue;
                }
                if new == undef {
                    new = p;
                } else {
                    let (mut a, mut b) = (p, new);
                    while a != b {
                        while po[a] < po[b] {
                            a = idom[a];
                        }
                        while po[b] < po[a] {
                            b = idom[b];
                        }
                    }
                    new = a;
                }
            }
            if new != undef && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    for (b, blk) in blocks.iter_mut().enumerate() {
        let d = idom[b];
        blk.ipdom = if d == undef || d == exit {
            EXIT
        } else {
            d as u32
        };
    }
}
