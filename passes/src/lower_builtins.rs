//! `lower-builtins`: the inverse of `raise-builtins` — native 2D block and MMA instructions
//! become calls to Intel's OpenCL builtins, for drivers without the SPIR-V extensions.
//!
//! What: `OpSubgroup2DBlock{Load,LoadTransform,LoadTranspose,Store,Prefetch}INTEL` with
//! constant shape operands become `OpFunctionCall`s of
//! `intel_sub_group_2d_block_{read,read_transform,read_transpose,write,prefetch}_<E>b_<H>r<W>x<C>c`
//! (arguments `base, width, height, pitch, coord[, ptr]`; for stores the private source
//! pointer moves last); `OpSubgroupMatrixMultiplyAccumulateINTEL` becomes a call of
//! `intel_sub_group_<a>_<b>_matrix_mad_k<K>` named after its operand mask (same result id).
//! Callees are body-less functions declared once per name with clang's Itanium mangling of
//! the OpenCL parameter types (`_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt`)
//! and decorated `LinkageAttributes "<mangled>" Import` (an existing import of that name is
//! reused). Pointers whose type differs from the declared parameter type (e.g. the
//! translator's `uchar*` Dst where the builtin takes `ushort*`) are passed through an
//! `OpBitcast`. When no native op of a family is left, its capabilities
//! (Subgroup2DBlock{IO,Transform,Transpose}INTEL, SubgroupMatrixMultiplyAccumulateINTEL) and
//! extension are removed; `Linkage` is declared.
//!
//! When: always applicable. Ops with non-constant shapes or K, element sizes other than
//! 1/2/4/8, width/height/pitch/coord that are not 32-bit integers (the builtins take `int`),
//! MMA masks no builtin spells (e.g. mixed int8×int4, FP8), or result and accumulator types
//! that differ are left alone and counted (`unsupported`).
//!
//! Why correct: the builtins are specified with the semantics of the native instructions
//! (see `raise-builtins`); the calls pass the same values in the builtin's parameter order,
//! and a pointer bitcast changes no address. Declarations are placed before all function
//! definitions (SPIR-V logical layout): `Module::insert_function_at` puts each one there and keeps
//! the block → function table consistent (no reload: the pass cannot fail on a module the
//! loader accepted).
//! One rewrite (`--max-changes`): lowering one native op to a call, in module order; the
//! declarations, capabilities and extensions it needs belong to it (ops left native keep
//! theirs).
//! Cost: linear in module size (one scan; each declaration moves the function list once).

use std::collections::HashMap;

use spirv::{Capability, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::grammar::encode_string;
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::builtin_mangling::{
    block_op_of, block_params, linkages, mangle, numeric_kind, pointer_kind, scalar_kind,
    BlockBuiltin, ClScalar, ClType, MmaBuiltin, MmaElem, EXT_2D_BLOCK_IO, EXT_MMA, LINKAGE_IMPORT,
};
use crate::edit::capabilities::ensure_capability;
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

pub struct LowerBuiltins;

fn stat_name(op: BlockKind) -> &'static str {
    match op {
        BlockKind::Load => "lowered_load",
        BlockKind::LoadTransform => "lowered_load_transform",
        BlockKind::LoadTranspose => "lowered_load_transpose",
        BlockKind::Store => "lowered_store",
        BlockKind::Prefetch => "lowered_prefetch",
    }
}

/// A declaration: function id and parameter types.
#[derive(Clone)]
struct Decl {
    id: Id,
    ret: Id,
    params: Vec<Id>,
}

/// A declaration to add: function id, return type, function type, (parameter id, type)s,
/// linkage name.
struct NewDecl {
    id: Id,
    ret: Id,
    fn_ty: Id,
    params: Vec<(Id, Id)>,
    name: String,
}

struct Lowerer<'a> {
    interner: Interner,
    /// Imported declarations by linkage name (existing and created).
    decls: HashMap<String, Decl>,
    /// Declarations to add as functions.
    new_decls: Vec<NewDecl>,
    stats: &'a mut Statistics,
}

fn is_int32_scalar(m: &Module, v: Id) -> bool {
    m.type_of(v).and_then(|t| scalar_kind(m, t)) == Some((false, 32))
}

fn is_int32x2(m: &Module, v: Id) -> bool {
    m.type_of(v)
        .filter(|&t| m.def_inst(t).is_some_and(|i| i.is(Op::TypeVector)))
        .and_then(|t| numeric_kind(m, t))
        == Some((false, 32, 2))
}

/// The OpenCL type of a SPIR-V scalar/vector value type; ints get `signed`.
fn cl_type(m: &Module, ty: Id, signed: bool) -> Option<ClType> {
    let (float, bits, n) = numeric_kind(m, ty)?;
    let s = if float {
        ClScalar::float(bits)?
    } else {
        ClScalar::int(bits, signed)?
    };
    let is_vec = m.def_inst(ty)?.is(Op::TypeVector);
    Some(if is_vec {
        ClType::Vector(s, n)
    } else {
        ClType::Scalar(s)
    })
}

/// A parameter type still to be decided: a fixed type, or `ptr<sc, int(bits)>` when the
/// module has that integer type (else the argument's own pointer type).
#[derive(Clone, Copy)]
enum ParamTy {
    Exact(Id),
    IntPtr(StorageClass, u32, Id),
}

/// A call to emit: everything checked, nothing changed yet.
struct CallPlan {
    name: String,
    /// `None`: void.
    ret: Option<Id>,
    result: Option<Id>,
    params: Vec<ParamTy>,
    args: Vec<Id>,
    stat: &'static str,
}

fn plan_block(m: &Module, i: InstId, op: BlockKind) -> Option<CallPlan> {
    let ops = m.inst(i).operands();
    let want = if op == BlockKind::Prefetch { 9 } else { 10 };
    if ops.len() != want {
        return None;
    }
    let mut shape = [0u32; 4];
    for (s, &w) in shape.iter_mut().zip(&ops[..4]) {
        *s = u32::try_from(m.const_int_value(Id::new(w)?)?).ok()?;
    }
    let [elem, w, h, c] = shape;
    let small = |v: u32| (1..=4096).contains(&v);
    if !matches!(elem, 1 | 2 | 4 | 8) || !small(w) || !small(h) || !small(c) {
        return None;
    }
    let b = BlockBuiltin {
        op,
        elem_bytes: elem,
        width: w,
        height: h,
        count: c,
    };
    let ids: Vec<Id> = ops[4..]
        .iter()
        .map(|&w| Id::new(w))
        .collect::<Option<_>>()?;
    // Builtin argument order: the private source of a store goes last.
    let args: Vec<Id> = if op == BlockKind::Store {
        let mut v = ids[1..].to_vec();
        v.push(ids[0]);
        v
    } else {
        ids
    };
    if !args[1..4].iter().all(|&v| is_int32_scalar(m, v)) || !is_int32x2(m, args[4]) {
        return None;
    }
    let base_ty = m.type_of(args[0])?;
    if pointer_kind(m, base_ty)?.0 != StorageClass::CrossWorkgroup as u32 {
        return None;
    }
    let mut params = vec![ParamTy::IntPtr(StorageClass::CrossWorkgroup, 8, base_ty)];
    for &v in &args[1..5] {
        params.push(ParamTy::Exact(m.type_of(v)?));
    }
    if let Some(bits) = b.private_pointee_bits() {
        let ptr_ty = m.type_of(args[5])?;
        if pointer_kind(m, ptr_ty)?.0 != StorageClass::Function as u32 {
            return None;
        }
        params.push(ParamTy::IntPtr(StorageClass::Function, bits, ptr_ty));
    }
    Some(CallPlan {
        name: mangle(&b.base_name(), &block_params(b)),
        ret: None,
        result: None,
        params,
        args,
        stat: stat_name(op),
    })
}

fn plan_mma(m: &Module, i: InstId) -> Option<CallPlan> {
    let inst = m.inst(i);
    let (rt, r) = (inst.result_type()?, inst.result_id()?);
    let ops = inst.operands();
    if ops.len() != 5 {
        return None;
    }
    let k = u32::try_from(m.const_int_value(Id::new(ops[0])?)?).ok()?;
    let mb = MmaBuiltin::from_mask(ops[4], k)?;
    let args = [Id::new(ops[1])?, Id::new(ops[2])?, Id::new(ops[3])?];
    let (ta, tb, tc) = (
        m.type_of(args[0])?,
        m.type_of(args[1])?,
        m.type_of(args[2])?,
    );
    if tc != rt {
        return None;
    }
    let signed = |e: MmaElem| !e.is_unsigned_int();
    let cl = [
        cl_type(m, ta, signed(mb.a))?,
        cl_type(m, tb, signed(mb.b))?,
        cl_type(m, tc, true)?,
    ];
    Some(CallPlan {
        name: mangle(&mb.base_name(), &cl),
        ret: Some(rt),
        result: Some(r),
        params: vec![ParamTy::Exact(ta), ParamTy::Exact(tb), ParamTy::Exact(tc)],
        args: args.to_vec(),
        stat: "lowered_mma",
    })
}

impl Lowerer<'_> {
    /// Whether `plan` can call the existing declaration of its name (pure).
    fn fits_existing(&self, m: &Module, plan: &CallPlan) -> bool {
        let Some(d) = self.decls.get(&plan.name) else {
            return true;
        };
        if d.params.len() != plan.args.len() {
            return false;
        }
        let ret_ok = match plan.ret {
            Some(r) => r == d.ret,
            None => m.def_inst(d.ret).is_some_and(|t| t.is(Op::TypeVoid)),
        };
        ret_ok
            && plan.args.iter().zip(&d.params).all(|(&a, &p)| {
                let Some(t) = m.type_of(a) else { return false };
                t == p
                    || matches!(
                        (pointer_kind(m, t), pointer_kind(m, p)),
                        (Some((sa, _)), Some((sp, _))) if sa == sp
                    )
            })
    }

    /// Emits the call (declaring the callee when new) before `at`.
    fn emit(&mut self, m: &mut Module, at: InstId, plan: CallPlan) {
        let ret = match plan.ret {
            Some(r) => r,
            None => self.interner.void(m),
        };
        let decl = match self.decls.get(&plan.name) {
            Some(d) => d.clone(),
            None => {
                let params: Vec<Id> = plan
                    .params
                    .iter()
                    .map(|p| match *p {
                        ParamTy::Exact(t) => t,
                        ParamTy::IntPtr(sc, bits, fallback) => {
                            match self.interner.find(m, Op::TypeInt, None, &[bits, 0]) {
                                Some(int) => self.interner.pointer(m, sc, int),
                                None => fallback,
                            }
                        }
                    })
                    .collect();
                let fn_ty = self.interner.function_type(m, ret, &params);
                let id = m.fresh_id();
                let ps: Vec<(Id, Id)> = params.iter().map(|&t| (m.fresh_id(), t)).collect();
                self.new_decls.push(NewDecl {
                    id,
                    ret,
                    fn_ty,
                    params: ps,
                    name: plan.name.clone(),
                });
                let d = Decl { id, ret, params };
                self.decls.insert(plan.name.clone(), d.clone());
                d
            }
        };
        let mut words = vec![decl.id.word()];
        for (&a, &p) in plan.args.iter().zip(&decl.params) {
            if m.type_of(a) == Some(p) {
                words.push(a.word());
            } else {
                let cast = m.fresh_id();
                m.insert_before(at, Inst::new(Op::Bitcast, Some(p), Some(cast), &[a.word()]));
                self.stats.add("pointer_bitcasts", 1);
                words.push(cast.word());
            }
        }
        let result = plan.result.unwrap_or_else(|| m.fresh_id());
        m.insert_before(
            at,
            Inst::new(Op::FunctionCall, Some(ret), Some(result), &words),
        );
        self.stats.add(plan.stat, 1);
    }
}

impl Pass for LowerBuiltins {
    fn name(&self) -> &'static str {
        "lower-builtins"
    }

    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        // 1. The native ops.
        let mut work: Vec<(InstId, Option<BlockKind>)> = Vec::new();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    match m.inst(i).op() {
                        Some(Op::SubgroupMatrixMultiplyAccumulateINTEL) => work.push((i, None)),
                        Some(op) => {
                            if let Some(k) = block_op_of(op) {
                                work.push((i, Some(k)));
                            }
                        }
                        None => {}
                    }
                }
            }
        }
        if work.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        // 2. Existing imported declarations, by name.
        let mut decls = HashMap::new();
        let body_less: Vec<Id> = m
            .function_ids()
            .filter(|&f| m.function(f).blocks.is_empty())
            .filter_map(|f| m.function_result(f))
            .collect();
        for l in linkages(m).into_iter().filter(|l| l.import) {
            if !body_less.contains(&l.target) {
                continue;
            }
            let Some(f) = m.function_with_id(l.target) else {
                continue;
            };
            let params: Vec<Id> = m
                .function(f)
                .header
                .iter()
                .filter(|&&p| m.inst(p).is(Op::FunctionParameter))
                .filter_map(|&p| m.inst(p).result_type())
                .collect();
            let Some(ret) = m.inst(m.function(f).def).result_type() else {
                continue;
            };
            decls.insert(
                l.name.clone(),
                Decl {
                    id: l.target,
                    ret,
                    params,
                },
            );
        }
        // 3. Lower.
        let mut lw = Lowerer {
            interner: Interner::default(),
            decls,
            new_decls: Vec::new(),
            stats: &mut stats,
        };
        let (mut left_block, mut left_mma) = (false, false);
        let mut lowered = 0u64;
        for (i, kind) in work {
            let plan = match kind {
                Some(op) => plan_block(m, i, op),
                None => plan_mma(m, i),
            }
            .filter(|p| lw.fits_existing(m, p));
            match plan {
                // Over the --max-changes limit: left native, like an unsupported op.
                Some(_) if !changes.allow() => {
                    if kind.is_some() {
                        left_block = true;
                    } else {
                        left_mma = true;
                    }
                }
                Some(plan) => {
                    lw.emit(m, i, plan);
                    m.erase(i);
                    lowered += 1;
                }
                None => {
                    lw.stats.add("unsupported", 1);
                    if kind.is_some() {
                        left_block = true;
                    } else {
                        left_mma = true;
                    }
                }
            }
        }
        let new_decls = std::mem::take(&mut lw.new_decls);
        if lowered == 0 {
            // Planning is pure: nothing was changed.
            return Ok(PassResult::unchanged(stats));
        }
        // 4. Declarations, after the existing ones and before every definition.
        let first_definition = m
            .function_ids()
            .position(|f| !m.function(f).blocks.is_empty())
            .unwrap_or(m.functions.len());
        for (
            k,
            NewDecl {
                id,
                ret,
                fn_ty,
                params,
                name,
            },
        ) in new_decls.iter().enumerate()
        {
            let def = Inst::new(Op::Function, Some(*ret), Some(*id), &[0, fn_ty.word()]);
            let ps = params
                .iter()
                .map(|&(p, t)| Inst::new(Op::FunctionParameter, Some(t), Some(p), &[]))
                .collect();
            m.insert_function_at(first_definition + k, def, ps);
            let mut words = vec![id.word(), spirv::Decoration::LinkageAttributes as u32];
            words.extend(encode_string(name));
            words.push(LINKAGE_IMPORT);
            m.push_to_section(
                Section::Annotation,
                Inst::new(Op::Decorate, None, None, &words),
            );
            stats.add("declarations_added", 1);
        }
        // 5. Capabilities and extensions.
        let mut removed_caps = 0u64;
        let mut drop_caps: Vec<u32> = Vec::new();
        let mut drop_exts: Vec<&str> = Vec::new();
        if !left_block {
            drop_caps.extend([
                Capability::Subgroup2DBlockIOINTEL as u32,
                Capability::Subgroup2DBlockTransformINTEL as u32,
                Capability::Subgroup2DBlockTransposeINTEL as u32,
            ]);
            drop_exts.push(EXT_2D_BLOCK_IO);
        }
        if !left_mma {
            drop_caps.push(Capability::SubgroupMatrixMultiplyAccumulateINTEL as u32);
            drop_exts.push(EXT_MMA);
        }
        m.retain_section(Section::Capability, |m, i| {
            let drop = m
                .inst(i)
                .operand_word(0)
                .is_some_and(|c| drop_caps.contains(&c));
            removed_caps += u64::from(drop);
            !drop
        });
        let mut removed_exts = 0u64;
        m.retain_section(Section::Extension, |m, i| {
            let drop = spvopt_ir::grammar::decode_string(m.inst(i).operands())
                .is_some_and(|e| drop_exts.contains(&e));
            removed_exts += u64::from(drop);
            !drop
        });
        if removed_caps > 0 {
            stats.add("capabilities_removed", removed_caps);
        }
        if removed_exts > 0 {
            stats.add("extensions_removed", removed_exts);
        }
        if !new_decls.is_empty() && ensure_capability(m, Capability::Linkage) {
            stats.add("capabilities_added", 1);
        }
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}
