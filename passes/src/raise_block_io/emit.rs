//! Code generation for raise-block-io: the kernel body is cloned, the clone gets the 2D block
//! loads and loses the staging, and the original function dispatches to the clone when one
//! work-group-uniform run-time check holds (else it runs its unchanged body).

use std::collections::HashMap;

use spirv::{BuiltIn, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::fxhash::FxHashSet;
use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::Dominators;
use spvopt_ir::{BlockId, FuncId, Id, Inst, InstBuf, InstId, Interner, Module, Section};

use crate::edit::cfg::move_block_before;
use crate::util::is_side_effect_free;

/// Copies function `f` with fresh ids (appended to the module, not an entry point); returns
/// the copy and the id map (old → new) of everything defined in `f`.
pub fn clone_function(m: &mut Module, f: FuncId) -> (FuncId, HashMap<Id, Id>) {
    let func = m.function(f).clone();
    let mut map: HashMap<Id, Id> = HashMap::new();
    let fresh = |m: &mut Module, old: Option<Id>, map: &mut HashMap<Id, Id>| {
        if let Some(o) = old {
            let n = m.fresh_id();
            map.insert(o, n);
        }
    };
    fresh(m, m.inst(func.def).result_id(), &mut map);
    for &p in &func.header {
        fresh(m, m.inst(p).result_id(), &mut map);
    }
    for &b in &func.blocks {
        let label = m.block_label(b);
        fresh(m, Some(label), &mut map);
        let insts: Vec<InstId> = m.block_insts(b).collect();
        for i in insts {
            fresh(m, m.inst(i).result_id(), &mut map);
        }
    }
    let remap = |m: &Module, i: InstId, map: &HashMap<Id, Id>| -> InstBuf {
        let mut inst = m.inst(i).to_owned();
        if let Some(r) = inst.result_id() {
            inst.set_result_id(map[&r]);
        }
        inst
    };
    let def = remap(m, func.def, &map);
    let params: Vec<InstBuf> = func.header.iter().map(|&p| remap(m, p, &map)).collect();
    let nf = m.add_function(def, params);
    let header: Vec<InstId> = m.function(nf).header.clone();
    for h in header {
        m.map_used_ids(h, |id| map.get(&id).copied().unwrap_or(id));
    }
    for &b in &func.blocks {
        let nb = m.append_block(nf, map[&m.block_label(b)]);
        let insts: Vec<InstId> = m.block_insts(b).collect();
        for i in insts {
            if m.inst(i).is(Op::Label) {
                continue;
            }
            let inst = remap(m, i, &map);
            let ni = m.append_inst(nb, inst);
            m.map_used_ids(ni, |id| map.get(&id).copied().unwrap_or(id));
        }
    }
    // Decorations of what was copied (not linkage: the copy is internal).
    let decos: Vec<InstBuf> = m
        .section_insts(Section::Annotation)
        .filter(|(_, d)| d.is(Op::Decorate) || d.is(Op::DecorateId))
        .filter(|(_, d)| d.operand_word(1) != Some(spirv::Decoration::LinkageAttributes as u32))
        .filter_map(|(_, d)| {
            let t = d.operand_id(0)?;
            let n = *map.get(&t)?;
            let mut c = d.to_owned();
            c.operands_mut()[0] = n.word();
            Some(c)
        })
        .collect();
    for d in decos {
        m.push_to_section(Section::Annotation, d);
    }
    (nf, map)
}

/// The Input variable of built-in `b` (a 3-component vector of pointer-sized integers, as
/// OpenCL declares `WorkgroupSize` and `LocalInvocationId`), created if missing and listed
/// in every entry point's interface.
pub fn builtin_vec3(m: &mut Module, types: &mut Interner, b: BuiltIn, existing: Option<Id>) -> Id {
    builtin_input(m, types, b, existing, true)
}

/// The Input variable of a scalar 32-bit built-in (`SubgroupId`), as [`builtin_vec3`].
pub fn builtin_u32(m: &mut Module, types: &mut Interner, b: BuiltIn, existing: Option<Id>) -> Id {
    builtin_input(m, types, b, existing, false)
}

fn builtin_input(
    m: &mut Module,
    types: &mut Interner,
    b: BuiltIn,
    existing: Option<Id>,
    vec3: bool,
) -> Id {
    let ty = move |m: &mut Module, types: &mut Interner| {
        if vec3 {
            let wide = if m
                .section_insts(Section::MemoryModel)
                .any(|(_, i)| i.operand_word(0) == Some(spirv::AddressingModel::Physical32 as u32))
            {
                32
            } else {
                64
            };
            let it = types.int(m, wide);
            types.vector(m, it, 3)
        } else {
            types.int(m, 32)
        }
    };
    crate::edit::variables::builtin_input_variable(m, types, b, ty, existing)
}

/// An instruction's opcode, result type and operands (what [`Builder::op`] shares by).
pub type OpKey = (u16, Id, Vec<u32>);

/// Emits instructions before a fixed point of a block.
pub struct Builder<'a> {
    pub m: &'a mut Module,
    pub types: &'a mut Interner,
    /// Insert before this instruction.
    pub at: InstId,
    /// Atom values: how the polynomials' atoms are read here (id map of a clone).
    pub atom_map: HashMap<Id, Id>,
    pub count: u64,
    /// With a map, `op` gives an instruction it already emitted with the same opcode, type
    /// and operands instead of a new one (for straight-line code of pure instructions and
    /// loads of builtins, such as the run-time check).
    pub memo: Option<HashMap<OpKey, Id>>,
}

impl Builder<'_> {
    pub fn op(&mut self, op: Op, ty: Id, ops: &[u32]) -> Id {
        let key = (op as u16, ty, ops.to_vec());
        if let Some(&r) = self.memo.as_ref().and_then(|memo| memo.get(&key)) {
            return r;
        }
        let r = self.m.fresh_id();
        self.m
            .insert_before(self.at, Inst::new(op, Some(ty), Some(r), ops));
        self.count += 1;
        if let Some(memo) = self.memo.as_mut() {
            memo.insert(key, r);
        }
        r
    }

    pub fn void(&mut self, op: Op, ops: &[u32]) {
        self.m
            .insert_before(self.at, Inst::new(op, None, None, ops));
        self.count += 1;
    }

    pub fn int(&mut self, w: u32) -> Id {
        self.types.int(self.m, w)
    }

    pub fn konst(&mut self, w: u32, v: i64) -> Id {
        let t = self.int(w);
        let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        self.types.int_const(self.m, t, (v as u64) & mask)
    }

    /// `v` converted to a `w`-bit integer (sign-extended when widening).
    pub fn resize(&mut self, v: Id, w: u32) -> Id {
        let from = self
            .m
            .type_of(v)
            .and_then(|t| spvopt_analysis::types::int_width(self.m, t))
            .unwrap_or(w);
        if from == w {
            return v;
        }
        let t = self.int(w);
        let op = if from < w { Op::SConvert } else { Op::UConvert };
        self.op(op, t, &[v.word()])
    }

    fn atom(&mut self, a: Id, w: u32) -> Id {
        let v = self.atom_map.get(&a).copied().unwrap_or(a);
        if self
            .m
            .type_of(v)
            .is_some_and(|t| spvopt_analysis::types::pointer_of(self.m, t).is_some())
        {
            let t = self.int(64);
            let u = self.op(Op::ConvertPtrToU, t, &[v.word()]);
            return self.resize(u, w);
        }
        self.resize(v, w)
    }

    /// The lane-invariant polynomial `p` as a `w`-bit value; `coef` gives the coefficient
    /// value of a term (for per-subgroup coefficients).
    pub fn poly_with(
        &mut self,
        p: &Poly,
        w: u32,
        mut coef: impl FnMut(&mut Self, &Coef) -> Option<Id>,
    ) -> Option<Id> {
        let t = self.int(w);
        let mut acc: Option<Id> = None;
        for (mono, c) in p.terms() {
            let one = matches!(c, Coef::Same(1)) && !mono.is_empty();
            let c = if one { None } else { Some(coef(self, c)?) };
            let term = self.term(c, mono, w);
            acc = Some(match acc {
                None => term,
                Some(x) => self.op(Op::IAdd, t, &[x.word(), term.word()]),
            });
        }
        Some(acc.unwrap_or_else(|| self.konst(w, 0)))
    }

    /// `coef · Π mono` as a `w`-bit value (`coef` `None` for 1; `mono` non-empty then).
    fn term(&mut self, coef: Option<Id>, mono: &[Id], w: u32) -> Id {
        let t = self.int(w);
        let mut term = coef;
        for &a in mono {
            let av = self.atom(a, w);
            term = Some(match term {
                None => av,
                Some(x) => self.op(Op::IMul, t, &[x.word(), av.word()]),
            });
        }
        term.expect("a coefficient or an atom")
    }

    /// A lane-invariant polynomial with the same coefficients in every invocation.
    pub fn poly(&mut self, p: &Poly, w: u32) -> Option<Id> {
        self.poly_with(p, w, |b, c| match c {
            Coef::Same(v) => Some(b.konst(w, *v)),
            Coef::Lanes(_) => None,
        })
    }

    /// `Σ_b bit_b(s)·d_b + c0` fitted to the per-subgroup values `vals` (verified for every
    /// subgroup), with `bits[b]` = bit b of the subgroup id as a `w`-bit value.
    pub fn per_subgroup(&mut self, vals: &[i64], bits: &[Id], w: u32) -> Option<Id> {
        let c0 = vals[0];
        let mut ds = Vec::new();
        for b in 0..bits.len() {
            let i = 1usize << b;
            ds.push(vals.get(i).copied().unwrap_or(c0) - c0);
        }
        for (s, &v) in vals.iter().enumerate() {
            let mut fit = c0;
            for (b, d) in ds.iter().enumerate() {
                if s >> b & 1 == 1 {
                    fit = fit.wrapping_add(*d);
                }
            }
            if fit != v {
                return None;
            }
        }
        let t = self.int(w);
        let mut acc: Option<Id> = (c0 != 0).then(|| self.konst(w, c0));
        for (b, &d) in ds.iter().enumerate() {
            if d == 0 {
                continue;
            }
            // The subgroup bits are 32-bit 0/1 values: at another width, converted.
            let bit = self.resize(bits[b], w);
            let term = if d == 1 {
                bit
            } else {
                let dk = self.konst(w, d);
                self.op(Op::IMul, t, &[bit.word(), dk.word()])
            };
            acc = Some(match acc {
                None => term,
                Some(a) => self.op(Op::IAdd, t, &[a.word(), term.word()]),
            });
        }
        Some(acc.unwrap_or_else(|| self.konst(w, 0)))
    }

    /// A polynomial per subgroup (lane-invariant each) as one value, given the subgroup id's
    /// bits.
    /// A block origin per subgroup as the block operation's 32-bit coordinate: the polynomial
    /// at 32 bits, or, when `saturate`, at 64 bits clamped to `±SATURATE_AT` first (exact
    /// inside, outside every surface beyond: `obligation/origins.rs`).
    pub fn origin(&mut self, ps: &[Poly], bits: &[Id], saturate: bool) -> Option<Id> {
        if !saturate {
            return self.subgroup_poly(ps, bits, 32);
        }
        let wide = self.subgroup_poly(ps, bits, 64)?;
        let (t64, t32) = (self.int(64), self.int(32));
        let bt = self.types.bool(self.m);
        let lo = self.konst(64, -super::plan::SATURATE_AT);
        let hi = self.konst(64, super::plan::SATURATE_AT);
        let below = self.op(Op::SLessThan, bt, &[wide.word(), lo.word()]);
        let v = self.op(Op::Select, t64, &[below.word(), lo.word(), wide.word()]);
        let above = self.op(Op::SGreaterThan, bt, &[v.word(), hi.word()]);
        let v = self.op(Op::Select, t64, &[above.word(), hi.word(), v.word()]);
        Some(self.op(Op::UConvert, t32, &[v.word()]))
    }

    pub fn subgroup_poly(&mut self, ps: &[Poly], bits: &[Id], w: u32) -> Option<Id> {
        // The union of monomials, each coefficient fitted over the subgroups.
        let mut monos: Vec<_> = Vec::new();
        for p in ps {
            for (m, _) in p.terms() {
                if !monos.contains(m) {
                    monos.push(m.clone());
                }
            }
        }
        monos.sort();
        let t = self.int(w);
        let mut acc: Option<Id> = None;
        for mono in monos {
            let vals: Vec<i64> = ps.iter().map(|p| p.coef(&mono).at(0)).collect();
            let one = vals.iter().all(|&v| v == 1) && !mono.is_empty();
            let c = if one {
                None
            } else {
                Some(self.per_subgroup(&vals, bits, w)?)
            };
            let term = self.term(c, &mono, w);
            acc = Some(match acc {
                None => term,
                Some(x) => self.op(Op::IAdd, t, &[x.word(), term.word()]),
            });
        }
        Some(acc.unwrap_or_else(|| self.konst(w, 0)))
    }
}

/// The opcode of a 2D block load kind.
pub fn load_opcode(kind: BlockKind) -> Op {
    match kind {
        BlockKind::LoadTransform => Op::Subgroup2DBlockLoadTransformINTEL,
        BlockKind::LoadTranspose => Op::Subgroup2DBlockLoadTransposeINTEL,
        _ => Op::Subgroup2DBlockLoadINTEL,
    }
}

/// Removes the side-effect-free instructions of function `f` whose results nothing live uses
/// (transitively, so dead cycles of phis go too: a pointer a loop advances but no longer
/// loads through); returns how many went.
pub fn remove_dead(m: &mut Module, f: FuncId) -> u64 {
    let blocks = m.function(f).blocks.clone();
    let removable = |m: &Module, i: InstId| {
        let inst = m.inst(i);
        is_side_effect_free(m, inst) && !inst.is(Op::Variable)
    };
    // Live: every instruction that is not removable, and what live instructions use.
    let mut live: FxHashSet<InstId> = FxHashSet::default();
    let mut work: Vec<InstId> = Vec::new();
    let mut all = Vec::new();
    for &b in &blocks {
        for i in m.block_insts(b) {
            all.push(i);
            if !removable(m, i) {
                live.insert(i);
                work.push(i);
            }
        }
    }
    while let Some(i) = work.pop() {
        m.for_each_used_id(i, |id| {
            if let Some(d) = m.def(id) {
                if m.inst_block(d).is_some_and(|b| m.block(b).func == f) && live.insert(d) {
                    work.push(d);
                }
            }
        });
    }
    let mut removed = 0;
    let mut gone: FxHashSet<u32> = FxHashSet::default();
    for i in all {
        if live.contains(&i) {
            continue;
        }
        if let Some(r) = m.inst(i).result_id() {
            gone.insert(r.word());
        }
        m.erase(i);
        removed += 1;
    }
    forget_annotations(m, &gone);
    removed
}

/// Removes the names and decorations of the ids in `gone` (ids no longer defined).
fn forget_annotations(m: &mut Module, gone: &FxHashSet<u32>) {
    if gone.is_empty() {
        return;
    }
    let targets = |m: &Module, i: InstId| {
        let inst = m.inst(i);
        !(matches!(
            inst.op(),
            Some(Op::Decorate | Op::DecorateId | Op::MemberDecorate | Op::Name | Op::MemberName)
        ) && inst.operand_word(0).is_some_and(|t| gone.contains(&t)))
    };
    m.retain_section(Section::Annotation, targets);
    m.retain_section(Section::Debug, targets);
}

/// When the dispatch calls the raised copy.
pub enum Guard {
    /// When the condition holds; the old body runs otherwise.
    When(Id),
    /// Always (nothing is left to check at run time): the old body goes.
    Always,
}

/// Puts a new first block in `f` that evaluates `guard` (built by `build_guard` into the new
/// block) and calls `fast` with `f`'s parameters when it holds, returning its result;
/// otherwise falls through to the old body. Function variables move to the new block. With
/// [`Guard::Always`] the new block branches to the call and the old body is removed (its
/// names and decorations with it). Returns whether the old body was kept.
pub fn dispatch(
    m: &mut Module,
    types: &mut Interner,
    f: FuncId,
    fast: Id,
    build_guard: impl FnOnce(&mut Module, &mut Interner, InstId) -> Option<Guard>,
) -> Option<bool> {
    let entry = *m.function(f).blocks.first()?;
    let entry_label = m.block_label(entry);
    let gl = m.fresh_id();
    let guard_block = m.append_block(f, gl);
    move_block_before(m, guard_block, entry);
    // Variables first.
    let vars: Vec<InstId> = m
        .block_insts(entry)
        .filter(|&i| m.inst(i).is(Op::Variable))
        .collect();
    for v in vars {
        m.move_to_end(v, guard_block);
    }
    let fast_label = m.fresh_id();
    let br = m.append_inst(guard_block, Inst::new(Op::Unreachable, None, None, &[]));
    let guard = build_guard(m, types, br)?;
    let kept = match guard {
        Guard::When(g) => {
            m.replace_inst(
                br,
                Inst::new(
                    Op::BranchConditional,
                    None,
                    None,
                    &[g.word(), fast_label.word(), entry_label.word()],
                ),
            );
            true
        }
        Guard::Always => {
            m.replace_inst(br, Inst::new(Op::Branch, None, None, &[fast_label.word()]));
            let old: Vec<BlockId> = m.function(f).blocks[1..].to_vec();
            let mut gone: FxHashSet<u32> = FxHashSet::default();
            for b in old {
                gone.insert(m.block_label(b).word());
                for i in m.block_insts(b) {
                    if let Some(r) = m.inst(i).result_id() {
                        gone.insert(r.word());
                    }
                }
                m.remove_block(b);
            }
            forget_annotations(m, &gone);
            false
        }
    };
    let fast_block: BlockId = m.insert_block_after(guard_block, fast_label);
    let func = m.function(f).clone();
    let def = m.inst(func.def);
    let ret_ty = def.result_type()?;
    let params: Vec<u32> = func
        .header
        .iter()
        .filter_map(|&p| m.inst(p).result_id())
        .map(|p| p.word())
        .collect();
    let mut ops = vec![fast.word()];
    ops.extend(params);
    let r = m.fresh_id();
    m.append_inst(
        fast_block,
        Inst::new(Op::FunctionCall, Some(ret_ty), Some(r), &ops),
    );
    let void = types.void(m);
    if ret_ty == void {
        m.append_inst(fast_block, Inst::new(Op::Return, None, None, &[]));
    } else {
        m.append_inst(
            fast_block,
            Inst::new(Op::ReturnValue, None, None, &[r.word()]),
        );
    }
    Some(kept)
}

/// Whether `id` can be recomputed at the start of function `f` by [`copy_tree`]: a module-level
/// value, a parameter of `f`, or a side-effect-free computation of such values (built-in
/// variable loads included).
pub fn copyable(m: &Module, f: FuncId, id: Id) -> bool {
    let mut stack = vec![id];
    let mut seen = 0;
    while let Some(x) = stack.pop() {
        seen += 1;
        if seen > 256 {
            return false;
        }
        let Some(d) = m.def(x) else { return false };
        let Some(b) = m.inst_block(d) else {
            // Globals (constants, types, variables) and parameters.
            continue;
        };
        if m.block(b).func != f {
            return false;
        }
        let inst = m.inst(d);
        if inst.is(Op::Phi) || inst.is(Op::Variable) {
            return false;
        }
        if inst.is(Op::Load) {
            let from_input = inst
                .operand_id(0)
                .and_then(|p| m.type_of(p))
                .and_then(|t| spvopt_analysis::types::pointer_of(m, t))
                .is_some_and(|(sc, _)| sc == StorageClass::Input as u32);
            if !from_input {
                return false;
            }
        } else if !is_side_effect_free(m, inst) {
            return false;
        }
        m.for_each_used_id(d, |u| {
            if m.def_inst(u)
                .is_some_and(|i| !i.is(Op::TypeInt) && !i.is(Op::TypeFloat))
            {
                stack.push(u)
            }
        });
    }
    true
}

/// Recomputes `id` before `at` (see [`copyable`]); `memo` maps already copied ids.
pub fn copy_tree(
    m: &mut Module,
    f: FuncId,
    id: Id,
    at: InstId,
    memo: &mut HashMap<Id, Id>,
) -> Option<Id> {
    if let Some(&v) = memo.get(&id) {
        return Some(v);
    }
    let d = m.def(id)?;
    let Some(b) = m.inst_block(d) else {
        return Some(id);
    };
    if m.block(b).func != f || !copyable(m, f, id) {
        return None;
    }
    let mut inst = m.inst(d).to_owned();
    let mut used = Vec::new();
    m.for_each_used_id(d, |u| used.push(u));
    let mut map = HashMap::new();
    for u in used {
        if m.def(u).and_then(|x| m.inst_block(x)).is_some() {
            let c = copy_tree(m, f, u, at, memo)?;
            map.insert(u, c);
        }
    }
    let r = m.fresh_id();
    inst.set_result_id(r);
    let ni = m.insert_before(at, inst);
    m.map_used_ids(ni, |u| map.get(&u).copied().unwrap_or(u));
    memo.insert(id, r);
    Some(r)
}

/// Makes `Builder::atom_map[a]` a value of the clone available at the builder's insertion point
/// (`at` in the original): the clone's copy of `a` when `a` dominates `at`, else a recomputation
/// of `a`'s pure definition there (operands first).
pub fn recompute_in_clone(
    b: &mut Builder,
    dom: &Dominators,
    at: InstId,
    a: Id,
    corr: &HashMap<InstId, InstId>,
) {
    let m = &*b.m;
    let Some(d) = m.def(a) else { return };
    let Some(db) = m.inst_block(d) else { return };
    let Some(ab) = m.inst_block(at) else { return };
    let before = if db == ab {
        let mut i = m.prev_inst(at);
        let mut found = false;
        while let Some(x) = i {
            if x == d {
                found = true;
                break;
            }
            i = m.prev_inst(x);
        }
        found
    } else {
        dom.dominates(db, ab)
    };
    if before || !corr.contains_key(&d) {
        return;
    }
    let mut used = Vec::new();
    m.for_each_used_id(d, |u| used.push(u));
    let mut inst = m.inst(d).to_owned();
    for u in used {
        recompute_in_clone(b, dom, at, u, corr);
    }
    let r = b.m.fresh_id();
    inst.set_result_id(r);
    let ni = b.m.insert_before(b.at, inst);
    let map = b.atom_map.clone();
    b.m.map_used_ids(ni, |u| map.get(&u).copied().unwrap_or(u));
    b.atom_map.insert(a, r);
}

/// The subgroup id's bits (lid.x / SG in a (n, 1, 1) work-group, which the dispatch checks),
/// lowest first, as many as `n_sub` subgroups need.
pub fn subgroup_bits(b: &mut Builder, sg_var: Id, n_sub: usize) -> Result<Vec<Id>, String> {
    let u32t = b.int(32);
    let sg_ty =
        b.m.def_inst(sg_var)
            .and_then(|v| v.result_type())
            .and_then(|pt| pointer_of(b.m, pt))
            .map(|(_, t)| t)
            .ok_or("subgroup id type")?;
    let sgid = b.op(Op::Load, sg_ty, &[sg_var.word()]);
    let sgid = b.resize(sgid, 32);
    let mut bits = Vec::new();
    let one = b.konst(32, 1);
    let mut k = 0;
    while (1usize << k) < n_sub {
        let sh = b.konst(32, k as i64);
        let v = b.op(Op::ShiftRightLogical, u32t, &[sgid.word(), sh.word()]);
        bits.push(b.op(Op::BitwiseAnd, u32t, &[v.word(), one.word()]));
        k += 1;
    }
    Ok(bits)
}

/// A new Function variable of type `ty` in the entry block of `f` (where SPIR-V requires it).
pub fn function_variable(b: &mut Builder, f: FuncId, ty: Id) -> Result<Id, String> {
    let pty = b.types.pointer(b.m, StorageClass::Function, ty);
    let var = b.m.fresh_id();
    let entry = *b.m.function(f).blocks.first().ok_or("empty copy")?;
    let first = b.m.block_first(entry).ok_or("empty entry")?;
    b.m.insert_before(
        first,
        Inst::new(
            Op::Variable,
            Some(pty),
            Some(var),
            &[StorageClass::Function as u32],
        ),
    );
    Ok(var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvopt_ir::text::{assemble, disassemble, TargetEnv};

    /// A kernel `%k` whose body stores through a named value, and a function `%fast` of the
    /// same type.
    const KERNEL: &str = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\n\
        OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %k \"K\"\nOpName %v \"v\"\n\
        OpDecorate %v Alignment 4\n\
        %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%uint_7 = OpConstant %uint 7\n\
        %ptr = OpTypePointer CrossWorkgroup %uint\n%fn = OpTypeFunction %void %ptr\n\
        %fast = OpFunction %void None %fn\n%fp = OpFunctionParameter %ptr\n%fl = OpLabel\n\
        OpStore %fp %uint_7\nOpReturn\nOpFunctionEnd\n\
        %k = OpFunction %void None %fn\n%p = OpFunctionParameter %ptr\n%e = OpLabel\n\
        %v = OpIAdd %uint %uint_7 %uint_7\nOpStore %p %v\nOpBranch %next\n%next = OpLabel\n\
        OpReturn\nOpFunctionEnd\n";

    fn dispatched(always: bool) -> (bool, String) {
        let words = assemble(KERNEL, TargetEnv::Universal_1_2).unwrap();
        let mut m = spvopt_ir::load_words(&words).unwrap();
        let ids: Vec<FuncId> = m.function_ids().collect();
        let (fast, k) = (ids[0], ids[1]);
        let fast_id = m.function_result(fast).unwrap();
        let mut types = Interner::default();
        let kept = dispatch(&mut m, &mut types, k, fast_id, |m, types, _| {
            Some(if always {
                Guard::Always
            } else {
                Guard::When(types.bool_const(m, true))
            })
        })
        .unwrap();
        spvopt_ir::verify(&m).unwrap();
        (kept, disassemble(&m.to_words()).unwrap())
    }

    #[test]
    fn a_dispatch_with_nothing_to_check_removes_the_old_body_and_its_annotations() {
        let (kept, text) = dispatched(true);
        assert!(!kept);
        assert!(!text.contains("OpIAdd"), "{text}");
        assert!(!text.contains("OpName"), "{text}");
        assert!(!text.contains("Alignment"), "{text}");
        assert!(!text.contains("OpBranchConditional"), "{text}");
        assert_eq!(text.matches("OpFunctionCall").count(), 1, "{text}");
        let words = assemble(&text, TargetEnv::Universal_1_2).unwrap();
        spvopt_ir::load_words(&words).expect("the output reloads");
    }

    #[test]
    fn a_guarded_dispatch_keeps_the_old_body() {
        let (kept, text) = dispatched(false);
        assert!(kept);
        assert!(
            text.contains("OpIAdd") && text.contains("OpBranchConditional"),
            "{text}"
        );
    }
}
