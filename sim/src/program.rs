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

use spvopt_ir::spirv::{self, Op};
use spvopt_ir::{Id, InstId, Module};

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
        /// `OpTypeFloat 16 BFloat16KHR` (SPV_KHR_bfloat16): 8 exponent and 7 mantissa bits.
        bf16: bool,
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

/// Scalar kind of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Bool,
    Ptr,
    Other,
}

/// A scalar component type: kind, width in bits, byte size.
#[derive(Clone, Copy, Debug)]
pub struct Comp {
    pub kind: Kind,
    pub bits: u32,
    pub bytes: usize,
    pub signed: bool,
    /// A bfloat16 float (`bits` is 16, as for IEEE half).
    pub bf16: bool,
}

impl Comp {
    /// The float format code the float helpers of [`crate::values`] take: the width, or
    /// [`crate::values::BF16`] for bfloat16.
    #[inline]
    pub fn fw(&self) -> u32 {
        if self.bf16 {
            crate::values::BF16
        } else {
            self.bits
        }
    }
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
    /// `OpPredicatedLoadINTEL` (`op` = `Load`; operands: pointer, predicate, default value,
    /// memory operands) or `OpPredicatedStoreINTEL` (`op` = `Store`; operands: pointer,
    /// object, predicate, memory operands).
    pub predicated: bool,
    /// A translator-internal instruction (`op` = `Nop`; DPC++ `joint_matrix`, `OpFSigmoidINTEL`,
    /// …): its opcode (`spvopt_ir::grammar::internal`), 0 for every other instruction.
    pub internal: u16,
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
    /// The scalar component and component count of every type id (what `vcomp` in
    /// components.rs answers), computed once after decoding: the interpreter asks for every
    /// operand of every instruction and lane. `None` where the answer is an error, which
    /// `vcomp` then reports.
    pub vcomps: Vec<Option<(Comp, usize)>>,
}

pub(crate) fn merr(msg: impl Into<String>) -> SimError {
    SimError::Module(msg.into())
}

pub(crate) fn round_up(x: u32, a: u32) -> u32 {
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
            Ty::Int { width, .. } | Ty::Float { width, .. } => width,
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

    pub(crate) fn add_const(&mut self, id: u32, bytes: &[u8]) {
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

    pub(crate) fn const_u64(&self, m: &Module, id: u32) -> Option<u64> {
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
        // Zero-sized components let a type within the size limit have any number of parts.
        let parts = match &self.ty(ty)?.ty {
            Ty::Vector { n, .. } | Ty::Array { n, .. } => *n,
            _ => 0,
        };
        if parts > MAX_COMPOSITE_PARTS {
            return Err(merr(format!(
                "%{ty} has {parts} parts, above the simulator's limit of {MAX_COMPOSITE_PARTS}"
            )));
        }
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

    pub(crate) fn fill_composite(
        &self,
        ty: u32,
        parts: &[u32],
        out: &mut [u8],
    ) -> Result<(), SimError> {
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
pub(crate) fn compute_ipdoms(blocks: &mut [DBlock]) {
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

/// The most parts (components, elements) of a vector or array the simulator takes apart.
const MAX_COMPOSITE_PARTS: u32 = 1 << 20;
