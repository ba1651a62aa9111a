//! Straight-line code inserted before one instruction (the MMA being lowered).

use spirv::Op;
use spvopt_ir::grammar::{encode_string, ExtSet};
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use super::plan::OperandType;

pub struct Builder<'a> {
    pub m: &'a mut Module,
    pub types: &'a mut Interner,
    /// New instructions go before this one.
    pub at: InstId,
}

impl Builder<'_> {
    /// Emits `op` with a fresh result of type `ty`.
    pub fn val(&mut self, op: Op, ty: Id, ops: &[u32]) -> Id {
        let r = self.m.fresh_id();
        self.m
            .insert_before(self.at, Inst::new(op, Some(ty), Some(r), ops));
        r
    }
    /// Unsigned integer type of `bits` bits.
    pub fn uint(&mut self, bits: u32) -> Id {
        self.types.int(self.m, bits)
    }
    pub fn f32(&mut self) -> Id {
        self.types.float(self.m, 32)
    }
    pub fn vector(&mut self, comp: Id, n: u32) -> Id {
        if n == 1 {
            comp
        } else {
            self.types.vector(self.m, comp, n)
        }
    }
    /// Integer constant of type `ty` (`value` truncated to the type's width).
    pub fn int_const(&mut self, ty: Id, value: u64) -> Id {
        let bits = self
            .m
            .def_inst(ty)
            .and_then(|t| t.operand_word(0))
            .unwrap_or(32);
        let v = if bits >= 64 {
            value
        } else {
            value & ((1u64 << bits) - 1)
        };
        self.types.int_const(self.m, ty, v)
    }
    pub fn u32c(&mut self, v: u32) -> Id {
        self.types.u32_const(self.m, v)
    }
    /// `v` of type `from` as type `to` (`OpBitcast`, nothing when the types are one).
    pub fn bitcast(&mut self, v: Id, from: Id, to: Id) -> Id {
        if from == to {
            v
        } else {
            self.val(Op::Bitcast, to, &[v.word()])
        }
    }
    /// Components `first .. first + n` of `v` (of operand type `t`): `v` itself, one
    /// `OpCompositeExtract` or one `OpVectorShuffle`.
    pub fn sub_vector(&mut self, v: Id, t: &OperandType, first: u32, n: u32) -> Id {
        if t.count == 1 || (first == 0 && n == t.count) {
            return v;
        }
        if n == 1 {
            return self.val(Op::CompositeExtract, t.component, &[v.word(), first]);
        }
        let vt = self.vector(t.component, n);
        let mut ops = vec![v.word(), v.word()];
        ops.extend(first..first + n);
        self.val(Op::VectorShuffle, vt, &ops)
    }
    /// Component `i` of `v` as an unsigned integer of the component's width.
    pub fn component_bits(&mut self, v: Id, t: &OperandType, i: u32) -> Id {
        let c = if t.count == 1 {
            v
        } else {
            self.val(Op::CompositeExtract, t.component, &[v.word(), i])
        };
        let u = self.uint(t.bits);
        self.bitcast(c, t.component, u)
    }
    /// `OpSubgroupShuffleINTEL`: `v` of type `ty` from invocation `lane` (an id).
    pub fn shuffle(&mut self, ty: Id, v: Id, lane: Id) -> Id {
        self.val(Op::SubgroupShuffleINTEL, ty, &[v.word(), lane.word()])
    }
    /// `OpGroupBroadcast` at subgroup scope: `v` of type `ty` (a 32-bit integer or float,
    /// which OpenCL's `sub_group_broadcast` takes) from invocation `lane`, a constant. In
    /// convergent code, where an MMA must be, it is the value a shuffle from that constant lane
    /// gives, and it says that the lane is the same for every invocation, which Intel's CPU
    /// runtime compiles far faster (a cut of tensor-hw `bg_f16_64x48x80` to one output tile,
    /// 1,280 such shuffles: 57-100 s in the runtime's compiler, 5 s as broadcasts, same
    /// results).
    pub fn broadcast(&mut self, ty: Id, v: Id, lane: Id) -> Id {
        let scope = self.u32c(spirv::Scope::Subgroup as u32);
        self.val(
            Op::GroupBroadcast,
            ty,
            &[scope.word(), v.word(), lane.word()],
        )
    }
}

/// The id of the module's `OpExtInstImport "OpenCL.std"`, added when missing.
pub fn opencl_std(m: &mut Module) -> Id {
    if let Some(id) = m.ext_set_id(ExtSet::OpenClStd) {
        return id;
    }
    let id = m.fresh_id();
    m.push_to_section(
        Section::ExtInstImport,
        Inst::new(
            Op::ExtInstImport,
            None,
            Some(id),
            &encode_string("OpenCL.std"),
        ),
    );
    m.register_ext_set(id, ExtSet::OpenClStd);
    id
}

/// OpenCL.std `fma` (correctly rounded a·b + c).
pub const OPENCL_FMA: u32 = 26;
