//! The lane map's walk over one kernel function (see `lane_map.rs`): each value's
//! per-invocation polynomial from its operands', in reverse post-order, with loop phis taken as
//! atoms (and checked afterwards by `LaneMap::build`), remainders and widenings recorded as
//! assumptions, and bit operations evaluated per invocation where exact.

use crate::fxhash::FxHashMap as HashMap;
use spirv::{BuiltIn, Op};
use spvopt_ir::{BlockId, FuncId, Id, Inst, Module};

use super::*;
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::types::{int_width, is_bool, pointer_of, size_of};

mod values;

pub(super) struct Walker<'a> {
    pub(super) m: &'a Module,
    pub(super) cfg: &'a Cfg,
    pub(super) dec: &'a Decorations,
    pub(super) lanes: usize,
    /// The work-group's shape `(X, Y, Z)`, `X·Y·Z = lanes`.
    pub(super) shape: [usize; 3],
    pub(super) sg: usize,
    pub(super) builtins: &'a HashMap<Id, BuiltIn>,
    pub(super) values: HashMap<Id, LaneValue>,
    pub(super) no_wrap: Vec<(Id, Id, bool)>,
    pub(super) forced_unknown: &'a [Id],
    pub(super) joined: &'a HashMap<BlockId, Vec<Id>>,
    pub(super) header_phis: Vec<Id>,
    pub(super) subst: &'a HashMap<Id, (Poly, Poly)>,
    /// Lane-varying loop phis taken tentatively as atoms this walk: (phi, initial value).
    pub(super) placeholders: Vec<(Id, Poly)>,
    pub(super) assumptions: Vec<(Id, Poly, Poly)>,
    pub(super) exact_widenings: bool,
    pub(super) widenings: Vec<(Id, Poly, bool)>,
    /// Loop phis taken as atoms assuming a branch condition evaluated later is uniform.
    pub(super) pending_conds: Vec<(Id, Id)>,
    /// Alignment of atoms made from conversions of aligned uniform values.
    pub(super) derived_tz: HashMap<Id, u32>,
    /// Loop counters known never to be negative (from the previous walk).
    pub(super) nonneg: &'a [Id],
    pub(super) seen: std::collections::HashSet<Id>,
    pub(super) atom_tz: &'a HashMap<Id, u32>,
}

impl Walker<'_> {
    pub(super) fn walk(&mut self, f: FuncId) {
        let func = self.m.function(f);
        for &p in &func.header {
            let inst = self.m.inst(p);
            if let (Some(r), Some(t)) = (inst.result_id(), inst.result_type()) {
                self.atom_if_scalar(r, t);
            }
        }
        let rpo: Vec<BlockId> = self.cfg.rpo(f).to_vec();
        for b in rpo {
            for i in self.m.block_insts(b) {
                let inst = self.m.inst(i);
                if let Some(r) = inst.result_id() {
                    self.seen.insert(r);
                    if self.forced_unknown.contains(&r) {
                        continue;
                    }
                    if let Some(v) = self.eval(b, inst) {
                        self.values.insert(r, v);
                    }
                }
            }
        }
    }

    pub(super) fn atom_if_scalar(&mut self, r: Id, ty: Id) {
        if let Some(w) = self.width_of(ty) {
            self.values
                .insert(r, LaneValue::Int(Poly::atom(r, w, self.lanes)));
        } else if is_bool(self.m, ty) {
            self.values.insert(r, LaneValue::UniformBool);
        }
    }

    /// Bit width of an integer type, or 64 for a pointer.
    pub(super) fn width_of(&self, ty: Id) -> Option<u32> {
        if let Some(w) = int_width(self.m, ty) {
            return (w <= 64).then_some(w);
        }
        pointer_of(self.m, ty).map(|_| 64)
    }

    pub(super) fn poly(&self, id: Id) -> Option<Poly> {
        if let Some(LaneValue::Int(p)) = self.values.get(&id) {
            return Some(p.clone());
        }
        // Module-level constants.
        let inst = self.m.def_inst(id)?;
        let w = self.width_of(inst.result_type()?)?;
        match inst.op()? {
            Op::Constant => {
                let lo = u64::from(inst.operand_word(0)?);
                let hi = inst.operand_word(1).map_or(0, u64::from);
                Some(Poly::constant(
                    sext((hi << 32 | lo) as i64, w),
                    w,
                    self.lanes,
                ))
            }
            Op::ConstantNull => Some(Poly::constant(0, w, self.lanes)),
            // A Workgroup variable (OpenCL C's kernel-scope `__local` array): one address for
            // the whole work-group, an atom like a local pointer parameter.
            Op::Variable if inst.operand_word(0) == Some(spirv::StorageClass::Workgroup as u32) => {
                Some(Poly::atom(id, w, self.lanes))
            }
            _ => None,
        }
    }

    pub(super) fn bool_of(&self, id: Id) -> Option<LaneValue> {
        if let Some(v) = self.values.get(&id) {
            return match v {
                LaneValue::Bool(_) | LaneValue::UniformBool => Some(v.clone()),
                _ => None,
            };
        }
        let inst = self.m.def_inst(id)?;
        match inst.op()? {
            Op::ConstantTrue => Some(LaneValue::Bool(vec![true; self.lanes].into())),
            Op::ConstantFalse | Op::ConstantNull if is_bool(self.m, inst.result_type()?) => {
                Some(LaneValue::Bool(vec![false; self.lanes].into()))
            }
            _ => None,
        }
    }

    pub(super) fn table_of(&self, p: &Poly) -> Option<Vec<i64>> {
        Some(match p.as_table()? {
            Coef::Same(c) => vec![c; self.lanes],
            Coef::Lanes(t) => t[..self.lanes].to_vec(),
        })
    }

    /// The table `f(a(l), c(l))` at width `w` over the invocations `l` (what `lanes_poly` of
    /// `f` over `table_of` of both gives; `None` when `f` is `None` for some invocation): `f` once
    /// when `a` and `c` are each one value for every invocation (the table is then that one
    /// value everywhere, a constant).
    pub(super) fn table_op(
        &self,
        a: &Coef,
        c: &Coef,
        w: u32,
        f: impl Fn(i64, i64) -> Option<i64>,
    ) -> Option<Poly> {
        if let (Coef::Same(x), Coef::Same(y)) = (a, c) {
            if self.lanes > 0 {
                return Some(Poly::constant(f(*x, *y)?, w, self.lanes));
            }
        }
        let mut t = Vec::with_capacity(self.lanes);
        for l in 0..self.lanes {
            t.push(sext(f(a.at(l), c.at(l))?, w));
        }
        Some(Poly::table(t.into(), w))
    }

    pub(super) fn lanes_poly(&self, t: Vec<i64>, w: u32) -> Poly {
        let t: Vec<i64> = t.into_iter().map(|v| sext(v, w)).collect();
        Poly::table(t.into(), w)
    }

    pub(super) fn eval(&mut self, b: BlockId, inst: &Inst) -> Option<LaneValue> {
        let op = inst.op()?;
        let r = inst.result_id()?;
        let ty = inst.result_type()?;
        let w = self.width_of(ty);
        let opd = |k: usize| inst.operand_id(k);
        let int = |v: Option<Poly>| v.map(LaneValue::Int);
        match op {
            Op::Load => {
                let ptr = opd(0)?;
                let &bi = self.builtins.get(&ptr)?;
                match w {
                    // A scalar built-in (SubgroupId, SubgroupLocalInvocationId, …).
                    Some(w) => self.builtin_component(bi, 0, w, r),
                    None => Some(LaneValue::Builtin(bi)),
                }
            }
            Op::CompositeExtract => {
                let src = opd(0)?;
                let k = inst.operand_word(1)?;
                let w = w?;
                match self.values.get(&src)? {
                    LaneValue::Builtin(bi) => self.builtin_component(*bi, k, w, r),
                    _ => None,
                }
            }
            Op::IAdd | Op::ISub | Op::IMul => {
                let (a, c) = (self.poly(opd(0)?)?, self.poly(opd(1)?)?);
                let v = match op {
                    Op::IAdd => a.add(&c),
                    Op::ISub => a.sub(&c),
                    _ => a.mul(&c),
                };
                int(v.or_else(|| self.uniform_atom(&[&a, &c], r, w?)))
            }
            Op::SNegate => int(Some(self.poly(opd(0)?)?.scale(-1))),
            Op::Not => {
                let a = self.poly(opd(0)?)?;
                int(a.scale(-1).add(&Poly::constant(-1, a.width, self.lanes)))
            }
            Op::ShiftLeftLogical => {
                let (a, s) = (self.poly(opd(0)?)?, self.poly(opd(1)?)?);
                if let Some(s) = s.as_constant().filter(|&s| s >= 0 && (s as u32) < a.width) {
                    return int(Some(a.scale(1i64 << s)));
                }
                self.bitwise(op, &a, &s, r, w?)
            }
            Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::SDiv
            | Op::UDiv
            | Op::SRem
            | Op::SMod
            | Op::UMod => {
                let (a, c) = (self.poly(opd(0)?)?, self.poly(opd(1)?)?);
                self.bitwise(op, &a, &c, r, w?)
            }
            Op::UConvert | Op::SConvert => {
                let a = self.poly(opd(0)?)?;
                self.convert(&a, opd(0)?, op == Op::SConvert, r, w?)
            }
            Op::Bitcast | Op::ConvertPtrToU | Op::ConvertUToPtr => {
                let a = self.poly(opd(0)?)?;
                (a.width == w?).then_some(LaneValue::Int(a))
            }
            Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::AccessChain
            | Op::InBoundsAccessChain => self.access_chain(inst, op),
            Op::Select => self.select(inst, r, w),
            Op::IEqual
            | Op::INotEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual => self.comparison(op, opd(0)?, opd(1)?),
            Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual => {
                self.logical(op, opd(0)?, opd(1)?)
            }
            Op::LogicalNot => match self.bool_of(opd(0)?)? {
                LaneValue::Bool(t) => Some(LaneValue::Bool(
                    t.iter().map(|v| !v).collect::<Vec<_>>().into(),
                )),
                v => Some(v),
            },
            Op::Phi => self.phi_value(b, inst, r, ty),
            _ => None,
        }
    }

    pub(super) fn builtin_component(
        &self,
        bi: BuiltIn,
        k: u32,
        w: u32,
        r: Id,
    ) -> Option<LaneValue> {
        let n = self.lanes;
        let table =
            |f: &dyn Fn(usize) -> i64| Poly::table((0..n).map(f).collect::<Vec<i64>>().into(), w);
        let p = match bi {
            // Linear invocation `l` is `x + X·(y + Y·z)` (SPIR-V's and OpenCL's linearisation;
            // subgroups are consecutive linear ids, as in spv-sim and Intel's drivers).
            BuiltIn::LocalInvocationId => match k {
                0 => table(&|l| (l % self.shape[0]) as i64),
                1 => table(&|l| (l / self.shape[0] % self.shape[1]) as i64),
                2 => table(&|l| (l / (self.shape[0] * self.shape[1])) as i64),
                _ => return None,
            },
            BuiltIn::LocalInvocationIndex => table(&|l| l as i64),
            BuiltIn::SubgroupLocalInvocationId => table(&|l| (l % self.sg) as i64),
            BuiltIn::SubgroupId => table(&|l| (l / self.sg) as i64),
            BuiltIn::WorkgroupId
            | BuiltIn::NumWorkgroups
            | BuiltIn::GlobalOffset
            | BuiltIn::GlobalSize
            | BuiltIn::WorkgroupSize
            | BuiltIn::EnqueuedWorkgroupSize
            | BuiltIn::NumSubgroups
            | BuiltIn::SubgroupSize
            | BuiltIn::SubgroupMaxSize => Poly::atom(r, w, n),
            _ => return None,
        };
        Some(LaneValue::Int(p))
    }

    /// An atom for `r` when every operand is lane-invariant (then `r` is work-group uniform).
    pub(super) fn uniform_atom(&self, ops: &[&Poly], r: Id, w: u32) -> Option<Poly> {
        ops.iter()
            .all(|p| p.is_lane_invariant())
            .then(|| Poly::atom(r, w, self.lanes))
    }

    pub(super) fn atom_tz_of(&self, a: Id) -> u32 {
        self.atom_tz
            .get(&a)
            .or_else(|| self.derived_tz.get(&a))
            .copied()
            .unwrap_or(0)
    }

    /// Whether no atom of `p` is a phi (so `p` can be evaluated before the kernel body).
    pub(super) fn free_of_phis(&self, p: &Poly) -> bool {
        p.terms().iter().all(|(m, _)| {
            m.iter()
                .all(|&a| !self.m.def_inst(a).is_some_and(|i| i.is(Op::Phi)))
        })
    }

    pub(super) fn bitwise(
        &mut self,
        op: Op,
        a: &Poly,
        c: &Poly,
        r: Id,
        w: u32,
    ) -> Option<LaneValue> {
        if let (Some(ta), Some(tc)) = (a.as_table(), c.as_table()) {
            let wd = a.width;
            return self
                .table_op(&ta, &tc, w, |x, y| int_op(op, x, y, wd))
                .map(LaneValue::Int);
        }
        if let Some(p) = self.uniform_atom(&[a, c], r, w) {
            return Some(LaneValue::Int(p));
        }
        // A remainder of a lane-varying dividend by a uniform divisor, taken as the dividend
        // under the recorded assumption 0 ≤ a < b (Triton's `offs % M` wrap-around).
        if matches!(op, Op::SRem | Op::UMod | Op::SMod)
            && c.is_lane_invariant()
            && a.as_table().is_none()
            && !a.is_lane_invariant()
            && self.free_of_phis(a)
            && self.free_of_phis(c)
        {
            self.assumptions.push((r, a.clone(), c.clone()));
            return Some(LaneValue::Int(a.with_width(w)));
        }
        // A symbolic value whose symbolic part is a multiple of 2^k, combined with a table:
        // only the low k bits (the table part's) take part.
        let (sym, tab) = if a.as_table().is_none() {
            (a, c)
        } else {
            (c, a)
        };
        let t = self.table_of(tab)?;
        let k = sym.symbolic_trailing_zeros_with(|a| self.atom_tz_of(a));
        if k == 0 || k >= 63 {
            return None;
        }
        let low = sym.constant_part();
        let lowmask = (1i64 << k) - 1;
        let fits = t.iter().all(|&v| (0..=lowmask).contains(&v));
        let lows: Vec<i64> = (0..self.lanes).map(|l| low.at(l)).collect();
        let lows_fit = lows.iter().all(|&v| (0..=lowmask).contains(&v));
        match op {
            Op::BitwiseOr | Op::BitwiseXor if fits && lows_fit => {
                let nl: Vec<i64> = (0..self.lanes)
                    .map(|l| {
                        if op == Op::BitwiseOr {
                            lows[l] | t[l]
                        } else {
                            lows[l] ^ t[l]
                        }
                    })
                    .collect();
                Some(LaneValue::Int(
                    sym.with_constant_part(Coef::Lanes(nl.into())),
                ))
            }
            Op::BitwiseAnd if fits => {
                // sym & t with t < 2^k keeps only the low bits of sym's constant part.
                let nl: Vec<i64> = (0..self.lanes).map(|l| lows[l] & t[l]).collect();
                Some(LaneValue::Int(self.lanes_poly(nl, w)))
            }
            _ => None,
        }
    }

    pub(super) fn access_chain(&self, inst: &Inst, op: Op) -> Option<LaneValue> {
        let base = self.poly(inst.operand_id(0)?)?;
        let (_, mut pointee) = pointer_of(self.m, self.m.type_of(inst.operand_id(0)?)?)?;
        let mut addr = base;
        let mut k = 1;
        if matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
            let idx = self.index_poly(inst.operand_id(1)?)?;
            let size = size_of(self.m, self.dec, pointee)? as i64;
            addr = addr.add(&idx.scale(size))?;
            k = 2;
        }
        while let Some(i) = inst.operand_id(k) {
            let t = self.m.def_inst(pointee)?;
            match t.op()? {
                Op::TypeArray | Op::TypeVector | Op::TypeRuntimeArray => {
                    pointee = t.operand_id(0)?;
                    let size = size_of(self.m, self.dec, pointee)? as i64;
                    addr = addr.add(&self.index_poly(i)?.scale(size))?;
                }
                _ => return None,
            }
            k += 1;
        }
        Some(LaneValue::Int(addr))
    }

    /// An index operand as a 64-bit polynomial (sign-extended, as OpenCL indexes are).
    pub(super) fn index_poly(&self, id: Id) -> Option<Poly> {
        let p = self.poly(id)?;
        if p.width == 64 {
            return Some(p);
        }
        let t = self.table_of(&p)?;
        Some(Poly::table(t.into(), 64))
    }

    pub(super) fn phi_value(
        &mut self,
        b: BlockId,
        inst: &Inst,
        r: Id,
        ty: Id,
    ) -> Option<LaneValue> {
        let w = self.width_of(ty)?;
        if let Some((p, _)) = self.subst.get(&r) {
            return Some(LaneValue::Int(p.clone()));
        }
        let ops = inst.operands();
        let mut incoming = Vec::new();
        let mut back_edge = false;
        for pair in ops.chunks(2) {
            let v = Id::new(pair[0])?;
            match self.poly(v) {
                Some(p) => incoming.push(p),
                None if !self.seen.contains(&v) && self.m.def(v).is_some() => back_edge = true,
                None => return None,
            }
        }
        let first = incoming.first()?.clone();
        let all_same = incoming.iter().all(|p| p.same_as(&first));
        if all_same && !back_edge {
            return Some(LaneValue::Int(first));
        }
        if !incoming.iter().all(|p| p.is_lane_invariant()) {
            if back_edge && incoming.len() == 1 {
                // A lane-varying loop phi: tentatively an atom, to find its step.
                self.placeholders.push((r, first));
                return Some(LaneValue::Int(Poly::atom(r, w, self.lanes)));
            }
            return None;
        }
        // Control joining here must be uniform over the work-group.
        if let Some(conds) = self.joined.get(&b) {
            for &c in conds {
                match self.bool_of(c) {
                    Some(LaneValue::UniformBool) => {}
                    Some(LaneValue::Bool(t)) if t.iter().all(|&v| v == t[0]) => {}
                    // A condition computed later in the loop (the latch's exit test): checked
                    // after the walk.
                    None if back_edge && !self.seen.contains(&c) => self.pending_conds.push((r, c)),
                    _ => return None,
                }
            }
        }
        if back_edge {
            self.header_phis.push(r);
        }
        Some(LaneValue::Int(Poly::atom(r, w, self.lanes)))
    }

    /// After the walk: each loop phi taken as an atom whose back-edge value is the phi plus a
    /// lane-invariant step not involving it, with its initial value and step.
    pub(super) fn inductions(&self) -> Vec<(Id, Poly, Poly)> {
        let mut out = Vec::new();
        for &phi in &self.header_phis {
            let Some(inst) = self.m.def_inst(phi) else {
                continue;
            };
            let Some(LaneValue::Int(me)) = self.values.get(&phi) else {
                continue;
            };
            let mut init = None;
            let mut step = None;
            let mut ok = true;
            for pair in inst.operands().chunks(2) {
                let Some(p) = Id::new(pair[0]).and_then(|v| self.poly(v)) else {
                    ok = false;
                    break;
                };
                match p.sub(me) {
                    Some(d) if !d.mentions(phi) && p.mentions(phi) => {
                        if step.replace(d).is_some() {
                            ok = false;
                        }
                    }
                    _ => {
                        if init.replace(p).is_some() {
                            ok = false;
                        }
                    }
                }
            }
            if let (true, Some(i), Some(s)) = (ok, init, step) {
                out.push((phi, i, s));
            }
        }
        out
    }

    /// The polynomial on loop phi `phi`'s back edge (the incoming value defined in the loop).
    pub(super) fn back_edge_value(&self, phi: Id) -> Option<Poly> {
        let inst = self.m.def_inst(phi)?;
        let header = self.m.inst_block(self.m.def(phi)?)?;
        let mut found = None;
        for pair in inst.operands().chunks(2) {
            let (v, label) = (Id::new(pair[0])?, Id::new(pair[1])?);
            let pred = self.m.def(label).and_then(|l| self.m.inst_block(l))?;
            // A predecessor the header dominates is a latch (its block comes after in RPO).
            let is_latch = self.cfg.rpo_number(pred) >= self.cfg.rpo_number(header);
            if is_latch {
                if found.is_some() {
                    return None;
                }
                found = Some(self.poly(v)?);
            }
        }
        found
    }

    /// `init + (q - q0)·(step / sq)` for lane-varying loop phi `phi` whose back-edge value is
    /// itself plus a lane-invariant `step`, over a uniform counter `q = q0 + sq·i` of the same
    /// loop (with `step` divisible by the constant `sq`); with the step.
    pub(super) fn counter_form(
        &self,
        phi: Id,
        init: &Poly,
        inductions: &[(Id, Poly, Poly)],
    ) -> Option<(Poly, Poly)> {
        let me = Poly::atom(phi, init.width, self.lanes);
        let step = self.back_edge_value(phi)?.sub(&me)?;
        if !step.is_lane_invariant()
            || step.mentions(phi)
            || self.placeholders.iter().any(|(p, _)| step.mentions(*p))
        {
            return None;
        }
        let header = self.m.inst_block(self.m.def(phi)?)?;
        for (q, q0, sq) in inductions {
            if self.m.inst_block(self.m.def(*q)?) != Some(header) {
                continue;
            }
            let Some(sq) = sq.as_constant().filter(|&c| c != 0) else {
                continue;
            };
            if step
                .terms()
                .iter()
                .any(|(_, c)| !matches!(c, Coef::Same(v) if v % sq == 0))
            {
                continue;
            }
            let mut per = Poly::constant(0, init.width, self.lanes);
            for (m, c) in step.terms() {
                let Coef::Same(v) = c else { return None };
                let mut t = Poly::constant(v / sq, init.width, self.lanes);
                for &a in m {
                    t = t.mul(&Poly::atom(a, init.width, self.lanes))?;
                }
                per = per.add(&t)?;
            }
            let count = Poly::atom(*q, init.width, self.lanes).sub(&q0.with_width(init.width))?;
            let expr = init.add(&count.mul(&per)?)?;
            return Some((expr, step));
        }
        None
    }

    /// After the walk: whether every incoming value of loop phi `phi` is lane-invariant.
    pub(super) fn phi_inputs_invariant(&self, phi: Id) -> bool {
        let Some(inst) = self.m.def_inst(phi) else {
            return false;
        };
        inst.operands().chunks(2).all(|pair| {
            Id::new(pair[0])
                .and_then(|v| self.poly(v))
                .is_some_and(|p| p.is_lane_invariant())
        })
    }
}

fn width_mask(w: u32) -> i64 {
    if w >= 64 {
        -1
    } else {
        (1i64 << w) - 1
    }
}

fn compare(op: Op, a: i64, b: i64, w: u32) -> bool {
    let (ua, ub) = ((a & width_mask(w)) as u64, (b & width_mask(w)) as u64);
    match op {
        Op::IEqual => a == b,
        Op::INotEqual => a != b,
        Op::SLessThan => a < b,
        Op::SLessThanEqual => a <= b,
        Op::SGreaterThan => a > b,
        Op::SGreaterThanEqual => a >= b,
        Op::ULessThan => ua < ub,
        Op::ULessThanEqual => ua <= ub,
        Op::UGreaterThan => ua > ub,
        _ => ua >= ub,
    }
}

/// One integer operation at width `w` on sign-extended operands; `None` where it is undefined
/// (division by zero, shift by the width or more).
fn int_op(op: Op, a: i64, b: i64, w: u32) -> Option<i64> {
    let m = width_mask(w);
    let (ua, ub) = ((a & m) as u64, (b & m) as u64);
    let v = match op {
        Op::BitwiseAnd => a & b,
        Op::BitwiseOr => a | b,
        Op::BitwiseXor => a ^ b,
        Op::ShiftLeftLogical => {
            if ub >= u64::from(w) {
                return None;
            }
            a.wrapping_shl(ub as u32)
        }
        Op::ShiftRightLogical => {
            if ub >= u64::from(w) {
                return None;
            }
            (ua >> ub) as i64
        }
        Op::ShiftRightArithmetic => {
            if ub >= u64::from(w) {
                return None;
            }
            a >> ub
        }
        Op::SDiv => a.checked_div(b)?,
        Op::SRem => a.checked_rem(b)?,
        Op::SMod => {
            let r = a.checked_rem(b)?;
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        }
        Op::UDiv => ua.checked_div(ub)? as i64,
        Op::UMod => ua.checked_rem(ub)? as i64,
        _ => return None,
    };
    Some(sext(v, w))
}
