//! Induction variables: a loop header's phis classified from their update along the back edge,
//! evaluated tentatively (the phi taken as an atom) and recorded with their affine step.

use super::*;

impl Induction {
    /// Classifies the phis of `header` (those of `only`, when given: a phi's classification
    /// depends only on the phis its back-edge value is computed from, which are in the slice).
    pub(super) fn classify_header_phis(
        &mut self,
        m: &Module,
        header: BlockId,
        l: LoopId,
        only: Option<&ValueSlice>,
    ) {
        let phis: Vec<InstId> = m
            .block_phis(header)
            .filter(|&i| only.is_none_or(|s| s.defines(i)))
            .collect();
        let mut resolved: HashMap<Id, AffineExpr> = HashMap::default();
        let mut done = vec![false; phis.len()];
        for _round in 0..HEADER_ROUNDS {
            let mut progress = false;
            for (k, &pi) in phis.iter().enumerate() {
                if done[k] {
                    continue;
                }
                let inst = m.inst(pi);
                let Some(p) = inst.result_id() else {
                    done[k] = true;
                    continue;
                };
                let w = inst.result_type().and_then(|t| int_width(m, t));
                let Some(w) = w.filter(|&w| w <= 64) else {
                    done[k] = true;
                    continue;
                };
                match self.classify_phi(m, inst, p, l, &resolved) {
                    Some(Some(mut form)) => {
                        form.normalize(w);
                        self.record_header_phi(p, l, &form);
                        resolved.insert(p, form.clone());
                        self.set_val(p, Some(Val::Scalar(form)));
                        done[k] = true;
                        progress = true;
                    }
                    Some(None) => {
                        let atom = AffineExpr::value(p);
                        resolved.insert(p, atom.clone());
                        self.set_val(p, Some(Val::Scalar(atom)));
                        done[k] = true;
                        progress = true;
                    }
                    None => {} // retry next round
                }
            }
            if !progress {
                break;
            }
        }
        for (k, &pi) in phis.iter().enumerate() {
            if !done[k] {
                if let Some(p) = m.inst(pi).result_id() {
                    self.set_val(p, Some(Val::Scalar(AffineExpr::value(p))));
                }
            }
        }
    }

    pub(super) fn record_header_phi(&mut self, p: Id, l: LoopId, form: &AffineExpr) {
        let step = form.counter_coefficient(l);
        if step.terms().is_empty() && step.constant == 0 {
            return;
        }
        let init = form.at_counter_zero(l);
        self.iv_of.insert(p, self.ivs.len());
        self.ivs.push(InductionVariable {
            phi: p,
            loop_id: l,
            init,
            step,
        });
    }

    /// `Some(Some(form))`: affine; `Some(None)`: an atom; `None`: retry later.
    pub(super) fn classify_phi(
        &self,
        m: &Module,
        inst: &Inst,
        p: Id,
        l: LoopId,
        resolved: &HashMap<Id, AffineExpr>,
    ) -> Option<Option<AffineExpr>> {
        let header = self.loops.header(l)?;
        let ops = inst.operands();
        let mut init: Option<AffineExpr> = None;
        let mut back: Option<AffineExpr> = None;
        for pair in ops.chunks(2) {
            let (Some(v), Some(pred)) = (Id::new(pair[0]), pair.get(1).and_then(|&w| Id::new(w)))
            else {
                return Some(None);
            };
            let pred_block = crate::cfg::block_of_label(m, pred, m.block(header).func);
            let Some(pred_block) = pred_block else {
                continue; // not an edge of this function (malformed); ignore
            };
            if self.loops.contains(l, pred_block) {
                let mut budget = TENTATIVE_BUDGET;
                let r = match self.tentative(m, v, p, l, header, resolved, &mut budget) {
                    Tentative::Unresolved => return None,
                    Tentative::Known(Val::Scalar(e)) => e,
                    Tentative::Known(_) => return Some(None),
                };
                match &back {
                    None => back = Some(r),
                    Some(b) if *b == r => {}
                    Some(_) => return Some(None),
                }
            } else {
                let e = match self.form(v) {
                    Some(e) => e,
                    None => return Some(None),
                };
                match &init {
                    None => init = Some(e),
                    Some(x) if *x == e => {}
                    Some(_) => return Some(None),
                }
            }
        }
        let (Some(init), Some(r)) = (init, back) else {
            return Some(None);
        };
        let self_mono = crate::affine::Monomial::new(Some(p), None);
        let mentions_self = r.terms().iter().any(|t| t.monomial.value() == Some(p));
        if mentions_self {
            // Basic induction variable: r = p + s.
            let coeff = r
                .terms()
                .iter()
                .find(|t| t.monomial == self_mono)
                .map(|t| t.coeff);
            if coeff != Some(1) {
                return Some(None);
            }
            let s = r.sub(&AffineExpr::value(p))?;
            if s.terms().iter().any(|t| t.monomial.value() == Some(p))
                || s.mentions_counter(l)
                || !self.tentative_invariant(m, &s, l)
            {
                return Some(None);
            }
            let Some(si) = s.times_counter(l) else {
                return Some(None);
            };
            return Some(init.add(&si));
        }
        // A phi that carries q from the previous iteration.
        if !self.tentative_invariant(m, &r.at_counter_zero(l), l) {
            return Some(None);
        }
        let c = r.counter_coefficient(l);
        if c.has_counter() || !self.tentative_invariant(m, &c, l) {
            return Some(None);
        }
        let r0 = r.at_counter_zero(l);
        let Some(expected) = r0.sub(&c) else {
            return Some(None);
        };
        if expected != init {
            return Some(None);
        }
        Some(r.sub(&c))
    }

    /// Invariance during header classification: values defined inside the loop have not been
    /// visited yet, so they count as varying.
    pub(super) fn tentative_invariant(&self, m: &Module, e: &AffineExpr, l: LoopId) -> bool {
        e.terms().iter().all(|t| {
            let value_ok = t.monomial.value().is_none_or(|v| {
                let inside = m
                    .def(v)
                    .and_then(|d| m.inst_block(d))
                    .is_some_and(|b| self.loops.contains(l, b));
                !inside && self.is_invariant_in(v, l)
            });
            value_ok
                && t.monomial
                    .counter()
                    .is_none_or(|c| !self.loops.loop_contains_loop(l, c))
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn tentative(
        &self,
        m: &Module,
        v: Id,
        phi: Id,
        l: LoopId,
        header: BlockId,
        resolved: &HashMap<Id, AffineExpr>,
        budget: &mut u32,
    ) -> Tentative {
        if v == phi {
            return Tentative::Known(Val::Scalar(AffineExpr::value(phi)));
        }
        let opaque = |x: Id| match self.val(x) {
            Some(val) => Tentative::Known(val),
            None => Tentative::Known(Val::Scalar(AffineExpr::value(x))),
        };
        let Some(def) = m.def(v) else {
            return opaque(v);
        };
        let Some(b) = m.inst_block(def) else {
            return opaque(v); // module-level
        };
        if !self.loops.contains(l, b) {
            return opaque(v);
        }
        let inst = m.inst(def);
        if b == header && inst.is(Op::Phi) {
            return match resolved.get(&v) {
                Some(e) => Tentative::Known(Val::Scalar(e.clone())),
                None => Tentative::Unresolved,
            };
        }
        let atom = Tentative::Known(Val::Scalar(AffineExpr::value(v)));
        if *budget == 0 {
            return atom;
        }
        *budget -= 1;
        let Some(ty) = inst.result_type() else {
            return atom;
        };
        let Some((w, n)) = tracked_int_or_int_vector(m, ty) else {
            return atom;
        };
        if n > 4 || w > 64 || inst.is(Op::Phi) {
            return atom;
        }
        let mut operand_vals: SmallVec<[(Id, Val); 4]> = SmallVec::new();
        let (skip, count) = pure_leading_skip(op_of(inst)).unwrap_or((0, 0));
        for &word in inst.operands().iter().skip(skip).take(count) {
            let Some(o) = Id::new(word) else { continue };
            if operand_vals.iter().any(|(x, _)| *x == o) {
                continue;
            }
            match self.tentative(m, o, phi, l, header, resolved, budget) {
                Tentative::Unresolved => return Tentative::Unresolved,
                Tentative::Known(val) => operand_vals.push((o, val)),
            }
        }
        let lookup = |x: Id| -> Option<Val> {
            operand_vals
                .iter()
                .find(|(y, _)| *y == x)
                .map(|(_, v)| v.clone())
                .or_else(|| self.val(x))
        };
        let lookup_scalar = |x: Id| -> Option<Cow<'_, AffineExpr>> {
            match operand_vals.iter().find(|(y, _)| *y == x) {
                Some((_, Val::Scalar(e))) => Some(Cow::Borrowed(e)),
                Some((_, Val::Vector(_))) => None,
                None => self.form_ref(x),
            }
        };
        match self.transfer(m, inst, w, n, &lookup, &lookup_scalar) {
            Some(val) => Tentative::Known(val),
            None if n == 1 => atom,
            None => Tentative::Known(Val::Vector((0..n).map(|_| None).collect())),
        }
    }

    /// Possibly-set bits of integer `id` with form `e` (width `w`).
    pub(super) fn maybe_one(&self, id: Id, e: &AffineExpr, w: u32) -> u64 {
        let mask = width_mask(w);
        if let Some(c) = e.as_constant() {
            return c as u64 & mask;
        }
        let tz = e.trailing_zeros(|v| self.known.trailing_zeros(v));
        let kz = self.known.known_zero(id) | width_mask(tz);
        !kz & mask
    }
}
