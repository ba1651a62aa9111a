//! Comparisons of two [`Poly`]s that decide what a difference or sum of them would say
//! without building it: equality for every invocation, a constant offset at one invocation,
//! and being another plus a constant.

use super::{same_coef, sext, Coef, Mono, Poly, MAX_TERMS};

impl Poly {
    /// `self` (lane-invariant) minus invocation `lane` of `other`, at `other`'s width, when
    /// that is a constant: what `self.with_width(other.width).sub(&other.at_lane(lane))` and
    /// `as_constant` give, without building either polynomial.
    pub fn constant_offset_at(&self, other: &Poly, lane: usize) -> Option<i64> {
        let w = other.width;
        let (mut i, mut j) = (0, 0);
        let mut constant = 0i64;
        let (a, b) = (&self.terms, &other.terms);
        while i < a.len() || j < b.len() {
            let order = match (a.get(i), b.get(j)) {
                (Some((ma, _)), Some((mb, _))) => ma.as_slice().cmp(mb.as_slice()),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (m, ca, cb) = match order {
                std::cmp::Ordering::Less => {
                    i += 1;
                    (&a[i - 1].0, Some(&a[i - 1].1), None)
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    (&b[j - 1].0, None, Some(&b[j - 1].1))
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (&a[i - 1].0, Some(&a[i - 1].1), Some(&b[j - 1].1))
                }
            };
            // `self`'s coefficients are tables only when they differ between invocations
            // (canonical form): then the difference is not a constant.
            let x = match ca {
                None => 0,
                Some(Coef::Same(v)) => sext(*v, w),
                Some(Coef::Lanes(_)) => return None,
            };
            let y = cb.map_or(0, |c| sext(c.at(lane), w));
            let d = sext(x.wrapping_sub(y), w);
            if m.is_empty() {
                constant = d;
            } else if d != 0 {
                return None;
            }
        }
        Some(constant)
    }

    /// Whether the two polynomials are equal for every invocation.
    /// The terms are canonical (sorted by monomial, no zero coefficient, coefficients
    /// sign-extended at the width, a table only when its entries differ), so equal polynomials
    /// have equal terms.
    pub fn same_as(&self, other: &Poly) -> bool {
        self.width == other.width
            && self.lanes == other.lanes
            && self.terms.len() == other.terms.len()
            && self
                .terms
                .iter()
                .zip(&other.terms)
                .all(|((ma, ca), (mb, cb))| ma == mb && same_coef(ca, cb))
    }

    /// The constant monomial's coefficient (when present) and the other terms: the constant
    /// monomial (empty) sorts first.
    fn split_constant(&self) -> (Option<&Coef>, &[(Mono, Coef)]) {
        match self.terms.first() {
            Some((m, k)) if m.is_empty() => (Some(k), &self.terms[1..]),
            _ => (None, &self.terms[..]),
        }
    }

    /// Whether `self` is `base + c`: what `base.add(&Poly::constant(c, base.width, base.lanes))`
    /// followed by `same_as(self)` decides (false when the sum has too many terms), without
    /// building the sum.
    pub fn is_sum_with_constant(&self, base: &Poly, c: i64) -> bool {
        if self.width != base.width || self.lanes != base.lanes {
            return false;
        }
        let w = base.width;
        let c = sext(c, w);
        let (mine_c, mine_rest) = self.split_constant();
        let (base_c, base_rest) = base.split_constant();
        let rest_same = mine_rest.len() == base_rest.len()
            && mine_rest
                .iter()
                .zip(base_rest)
                .all(|((ma, ca), (mb, cb))| ma == mb && same_coef(ca, cb));
        if !rest_same {
            return false;
        }
        // The constant part of the sum, canonical (a table of distinct entries stays one).
        let constant_same = match base_c {
            None | Some(Coef::Same(_)) => {
                let sum = sext(base_c.map_or(0, |k| k.at(0)).wrapping_add(c), w);
                match mine_c {
                    None => sum == 0,
                    Some(Coef::Same(v)) => *v == sum,
                    Some(Coef::Lanes(_)) => false,
                }
            }
            Some(Coef::Lanes(t)) => match mine_c {
                Some(Coef::Lanes(u)) => {
                    u.len() == t.len()
                        && u.iter()
                            .zip(t.iter())
                            .all(|(&x, &y)| x == sext(y.wrapping_add(c), w))
                }
                _ => false,
            },
        };
        let sum_terms = base_rest.len() + usize::from(mine_c.is_some());
        constant_same && sum_terms <= MAX_TERMS
    }
}
