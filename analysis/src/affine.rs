//! Affine expressions over SSA values and loop counters: `c0 + Σ ck · mk`, where each
//! monomial `mk` is a value (`%5`), a loop counter (`i` of some loop: the 0-based number of the
//! current iteration), or the product of one value and one counter (`%s·i`, a symbolic step).
//!
//! Arithmetic is modulo 2^64 (wrapping); callers narrow results to the value's bit width with
//! [`AffineExpr::normalize`] (sign-extending every coefficient), so two expressions compare
//! equal exactly when they denote the same function of their monomials modulo 2^width.
//! Terms are kept sorted by monomial, without zero coefficients, and at most [`MAX_TERMS`] of
//! them: an operation whose result would be larger (or not of this shape, such as `%a·%b` or
//! `i·i`) returns `None`, and the analysis then treats the value as an opaque atom.

use std::fmt;

use smallvec::SmallVec;
use spvopt_ir::Id;

use crate::loops::LoopId;

/// Largest number of terms an expression may have.
pub const MAX_TERMS: usize = 8;

/// A monomial: an optional value times an optional loop counter (at least one present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Monomial(u64);

impl Monomial {
    /// The monomial `value · counter`.
    pub fn new(value: Option<Id>, counter: Option<LoopId>) -> Monomial {
        let v = value.map_or(0, |v| u64::from(v.word()));
        let c = counter.map_or(0, |c| u64::from(c.0) + 1);
        Monomial(v << 32 | c)
    }
    /// The value factor.
    pub fn value(self) -> Option<Id> {
        Id::new((self.0 >> 32) as u32)
    }
    /// The loop-counter factor.
    pub fn counter(self) -> Option<LoopId> {
        let c = self.0 as u32;
        (c != 0).then(|| LoopId(c - 1))
    }
    fn product(self, other: Monomial) -> Option<Monomial> {
        let (v1, c1) = (self.value(), self.counter());
        let (v2, c2) = (other.value(), other.counter());
        if (v1.is_some() && v2.is_some()) || (c1.is_some() && c2.is_some()) {
            return None;
        }
        Some(Monomial::new(v1.or(v2), c1.or(c2)))
    }
}

/// `coefficient · monomial`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The product of atoms.
    pub monomial: Monomial,
    /// Its (non-zero) coefficient.
    pub coeff: i64,
}

/// An affine expression (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AffineExpr {
    /// The constant term.
    pub constant: i64,
    terms: SmallVec<[Term; 2]>,
}

impl AffineExpr {
    /// The constant `c`.
    pub fn constant(c: i64) -> AffineExpr {
        AffineExpr {
            constant: c,
            terms: SmallVec::new(),
        }
    }

    /// The value `%id` (coefficient 1).
    pub fn value(id: Id) -> AffineExpr {
        AffineExpr::monomial(Monomial::new(Some(id), None))
    }

    /// The counter of loop `l` (coefficient 1).
    pub fn counter(l: LoopId) -> AffineExpr {
        AffineExpr::monomial(Monomial::new(None, Some(l)))
    }

    fn monomial(m: Monomial) -> AffineExpr {
        let mut terms = SmallVec::new();
        terms.push(Term {
            monomial: m,
            coeff: 1,
        });
        AffineExpr { constant: 0, terms }
    }

    /// The terms (sorted by monomial, no zero coefficients).
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// The constant value, if the expression has no terms.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Whether some term has a loop counter.
    pub fn has_counter(&self) -> bool {
        self.terms.iter().any(|t| t.monomial.counter().is_some())
    }

    /// Whether some term mentions loop `l`'s counter.
    pub fn mentions_counter(&self, l: LoopId) -> bool {
        self.terms.iter().any(|t| t.monomial.counter() == Some(l))
    }

    /// `self + other`.
    pub fn add(&self, other: &AffineExpr) -> Option<AffineExpr> {
        self.combine(other, 1)
    }

    /// `self - other`.
    pub fn sub(&self, other: &AffineExpr) -> Option<AffineExpr> {
        self.combine(other, -1)
    }

    fn combine(&self, other: &AffineExpr, sign: i64) -> Option<AffineExpr> {
        let mut terms: SmallVec<[Term; 2]> = SmallVec::new();
        let (a, b) = (&self.terms, &other.terms);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let t = if j >= b.len() || (i < a.len() && a[i].monomial < b[j].monomial) {
                i += 1;
                a[i - 1]
            } else if i >= a.len() || b[j].monomial < a[i].monomial {
                j += 1;
                Term {
                    monomial: b[j - 1].monomial,
                    coeff: b[j - 1].coeff.wrapping_mul(sign),
                }
            } else {
                i += 1;
                j += 1;
                Term {
                    monomial: a[i - 1].monomial,
                    coeff: a[i - 1]
                        .coeff
                        .wrapping_add(b[j - 1].coeff.wrapping_mul(sign)),
                }
            };
            if t.coeff != 0 {
                terms.push(t);
            }
        }
        if terms.len() > MAX_TERMS {
            return None;
        }
        Some(AffineExpr {
            constant: self
                .constant
                .wrapping_add(other.constant.wrapping_mul(sign)),
            terms,
        })
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> AffineExpr {
        if k == 0 {
            return AffineExpr::constant(0);
        }
        AffineExpr {
            constant: self.constant.wrapping_mul(k),
            terms: self
                .terms
                .iter()
                .map(|t| Term {
                    monomial: t.monomial,
                    coeff: t.coeff.wrapping_mul(k),
                })
                .filter(|t| t.coeff != 0)
                .collect(),
        }
    }

    /// `-self`.
    pub fn neg(&self) -> AffineExpr {
        self.scale(-1)
    }

    /// `self · other`, when the product is still affine (no value·value or counter·counter).
    pub fn mul(&self, other: &AffineExpr) -> Option<AffineExpr> {
        if let Some(k) = other.as_constant() {
            return Some(self.scale(k));
        }
        if let Some(k) = self.as_constant() {
            return Some(other.scale(k));
        }
        let mut acc = self
            .scale(other.constant)
            .add(&other.scale(self.constant).without_constant())?;
        for x in &self.terms {
            for y in &other.terms {
                let mono = x.monomial.product(y.monomial)?;
                let mut terms = SmallVec::new();
                terms.push(Term {
                    monomial: mono,
                    coeff: x.coeff.wrapping_mul(y.coeff),
                });
                acc = acc.add(&AffineExpr { constant: 0, terms })?;
            }
        }
        Some(acc)
    }

    fn without_constant(&self) -> AffineExpr {
        AffineExpr {
            constant: 0,
            terms: self.terms.clone(),
        }
    }

    /// `self / 2^k` when every coefficient and the constant are multiples of `2^k` (an exact
    /// shift; callers assume no wrap-around happened).
    pub fn exact_shr(&self, k: u32) -> Option<AffineExpr> {
        if k >= 63 {
            return None;
        }
        let mask = (1i64 << k) - 1;
        if self.constant & mask != 0 || self.terms.iter().any(|t| t.coeff & mask != 0) {
            return None;
        }
        Some(AffineExpr {
            constant: self.constant >> k,
            terms: self
                .terms
                .iter()
                .map(|t| Term {
                    monomial: t.monomial,
                    coeff: t.coeff >> k,
                })
                .collect(),
        })
    }

    /// `self / d` when every coefficient and the constant are multiples of `d`.
    pub fn exact_div(&self, d: i64) -> Option<AffineExpr> {
        if d == 0 {
            return None;
        }
        if self.constant.wrapping_rem(d) != 0
            || self.terms.iter().any(|t| t.coeff.wrapping_rem(d) != 0)
        {
            return None;
        }
        Some(AffineExpr {
            constant: self.constant.wrapping_div(d),
            terms: self
                .terms
                .iter()
                .map(|t| Term {
                    monomial: t.monomial,
                    coeff: t.coeff.wrapping_div(d),
                })
                .collect(),
        })
    }

    /// Reduces modulo 2^`width` (sign-extending each coefficient); widths of 64 and more are
    /// unchanged.
    pub fn normalize(&mut self, width: u32) {
        if width == 0 || width >= 64 {
            return;
        }
        let sh = 64 - width;
        self.constant = (self.constant << sh) >> sh;
        for t in &mut self.terms {
            t.coeff = (t.coeff << sh) >> sh;
        }
        self.terms.retain(|t| t.coeff != 0);
    }

    /// The coefficient of loop `l`'s counter: the terms that mention it, with the counter
    /// removed (`3·i + %s·i + 5` → `3 + %s`).
    pub fn counter_coefficient(&self, l: LoopId) -> AffineExpr {
        let mut out = AffineExpr::constant(0);
        for t in &self.terms {
            if t.monomial.counter() == Some(l) {
                match t.monomial.value() {
                    None => out.constant = out.constant.wrapping_add(t.coeff),
                    Some(v) => out.terms.push(Term {
                        monomial: Monomial::new(Some(v), None),
                        coeff: t.coeff,
                    }),
                }
            }
        }
        out.terms.sort_by_key(|t| t.monomial);
        out
    }

    /// The expression with loop `l`'s counter set to 0.
    pub fn at_counter_zero(&self, l: LoopId) -> AffineExpr {
        AffineExpr {
            constant: self.constant,
            terms: self
                .terms
                .iter()
                .copied()
                .filter(|t| t.monomial.counter() != Some(l))
                .collect(),
        }
    }

    /// `self · counter(l)`, when `self` mentions no counter.
    pub fn times_counter(&self, l: LoopId) -> Option<AffineExpr> {
        if self.has_counter() {
            return None;
        }
        let mut terms: SmallVec<[Term; 2]> = SmallVec::new();
        if self.constant != 0 {
            terms.push(Term {
                monomial: Monomial::new(None, Some(l)),
                coeff: self.constant,
            });
        }
        for t in &self.terms {
            terms.push(Term {
                monomial: Monomial::new(t.monomial.value(), Some(l)),
                coeff: t.coeff,
            });
        }
        terms.sort_by_key(|t| t.monomial);
        (terms.len() <= MAX_TERMS).then_some(AffineExpr { constant: 0, terms })
    }

    /// The number of trailing zero bits every value of the expression has, given the trailing
    /// known-zero bits of each value (`tz_of`); counters contribute none.
    pub fn trailing_zeros(&self, tz_of: impl Fn(Id) -> u32) -> u32 {
        let mut tz = if self.constant == 0 {
            64
        } else {
            self.constant.trailing_zeros()
        };
        for t in &self.terms {
            let v = t.monomial.value().map_or(0, &tz_of);
            tz = tz.min((t.coeff.trailing_zeros() + v).min(64));
        }
        tz
    }

    /// Writes the expression, naming counters with `counter_name`.
    pub fn fmt_with(
        &self,
        f: &mut dyn fmt::Write,
        counter_name: &dyn Fn(LoopId) -> String,
    ) -> fmt::Result {
        let mut first = true;
        for t in &self.terms {
            let mut name = String::new();
            if let Some(v) = t.monomial.value() {
                name.push_str(&format!("{v}"));
            }
            if let Some(c) = t.monomial.counter() {
                if !name.is_empty() {
                    name.push('*');
                }
                name.push_str(&counter_name(c));
            }
            let (neg, mag) = if t.coeff < 0 {
                (true, t.coeff.unsigned_abs())
            } else {
                (false, t.coeff as u64)
            };
            if first {
                if neg {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {} ", if neg { '-' } else { '+' })?;
            }
            if mag == 1 {
                write!(f, "{name}")?;
            } else {
                write!(f, "{mag}*{name}")?;
            }
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)?;
        } else if self.constant != 0 {
            let (neg, mag) = if self.constant < 0 {
                (true, self.constant.unsigned_abs())
            } else {
                (false, self.constant as u64)
            };
            write!(f, " {} {mag}", if neg { '-' } else { '+' })?;
        }
        Ok(())
    }
}

impl fmt::Display for AffineExpr {
    /// Counters print as `i<loop>` (`i0`, `i1`, …).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_with(f, &|l| format!("i{}", l.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> Id {
        Id::new(n).unwrap()
    }

    #[test]
    fn add_sub_cancel() {
        let a = AffineExpr::value(id(5))
            .add(&AffineExpr::constant(3))
            .unwrap();
        let b = a.sub(&AffineExpr::value(id(5))).unwrap();
        assert_eq!(b.as_constant(), Some(3));
    }

    #[test]
    fn products() {
        let i = AffineExpr::counter(LoopId(0));
        let s = AffineExpr::value(id(7));
        let p = s.mul(&i).unwrap();
        assert_eq!(p.to_string(), "%7*i0");
        assert!(p.mul(&i).is_none());
        assert!(s.mul(&s).is_none());
        let q = i.scale(32).add(&s).unwrap();
        assert_eq!(q.to_string(), "32*i0 + %7");
        assert_eq!(q.counter_coefficient(LoopId(0)).as_constant(), Some(32));
    }

    #[test]
    fn normalize_wraps() {
        let mut e = AffineExpr::constant(0xFFFF_FFFF);
        e.normalize(32);
        assert_eq!(e.as_constant(), Some(-1));
    }

    #[test]
    fn display_negative() {
        let e = AffineExpr::value(id(3))
            .scale(-2)
            .add(&AffineExpr::constant(-4))
            .unwrap();
        assert_eq!(e.to_string(), "-2*%3 - 4");
    }
}
