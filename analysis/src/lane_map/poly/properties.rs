//! What a [`Poly`] says without another polynomial: the powers of two dividing it, its
//! constant part, its value for one invocation and given atoms, and its views for one
//! invocation or a permutation of the invocations.

use smallvec::SmallVec;
use spvopt_ir::Id;

use super::{sext, Coef, Mono, Poly};

impl Poly {
    /// The largest power of two dividing every coefficient of every non-constant monomial
    /// (its exponent, capped at the width); the symbolic part of the value is a multiple of it.
    pub fn symbolic_trailing_zeros(&self) -> u32 {
        self.symbolic_trailing_zeros_with(|_| 0)
    }

    /// [`Poly::symbolic_trailing_zeros`] where atom `a` is known to be a multiple of
    /// `2^atom_tz(a)`.
    pub fn symbolic_trailing_zeros_with(&self, atom_tz: impl Fn(Id) -> u32) -> u32 {
        let mut tz = self.width;
        for (m, c) in &self.terms {
            if m.is_empty() {
                continue;
            }
            let atoms: u32 = m.iter().map(|&a| atom_tz(a)).sum();
            for l in 0..self.lanes {
                tz = tz.min(c.at(l).trailing_zeros().saturating_add(atoms));
                if let Coef::Same(_) = c {
                    break;
                }
            }
        }
        tz
    }

    /// The exponent of the largest power of two dividing the value for every invocation and
    /// every value of the atoms (capped at the width).
    pub fn trailing_zeros_with(&self, atom_tz: impl Fn(Id) -> u32 + Copy) -> u32 {
        let mut tz = self.symbolic_trailing_zeros_with(atom_tz);
        let c = self.constant_part();
        for l in 0..self.lanes {
            tz = tz.min(c.at(l).trailing_zeros());
            if let Coef::Same(_) = c {
                break;
            }
        }
        tz.min(self.width)
    }

    /// The constant monomial's coefficient (per invocation).
    pub fn constant_part(&self) -> Coef {
        self.coef(&[])
    }

    /// The polynomial with the constant monomial's coefficient replaced.
    pub fn with_constant_part(&self, c: Coef) -> Poly {
        let mut p = self.clone();
        if let Ok(i) = p.terms.binary_search_by(|(k, _)| k.as_slice().cmp(&[])) {
            p.terms.remove(i);
        }
        p.add_term(Mono::new(), c);
        p
    }

    /// The value for one invocation, with its atoms given by `atom`.
    pub fn eval(&self, lane: usize, atom: impl Fn(Id) -> i64) -> i64 {
        let mut v: i64 = 0;
        for (m, c) in &self.terms {
            let mut t = c.at(lane);
            for &a in m {
                t = t.wrapping_mul(atom(a));
            }
            v = v.wrapping_add(t);
        }
        sext(v, self.width)
    }

    /// The polynomial of invocation `lane` alone, as a lane-invariant polynomial over the same
    /// invocation count.
    pub fn at_lane(&self, lane: usize) -> Poly {
        let mut p = Poly {
            width: self.width,
            lanes: self.lanes,
            terms: SmallVec::new(),
        };
        // The monomials stay sorted and distinct: each term is kept or dropped.
        for (m, c) in &self.terms {
            let c = sext(c.at(lane), self.width);
            if c != 0 {
                p.terms.push((Mono::from_slice(m), Coef::Same(c)));
            }
        }
        p
    }

    /// Composition with a permutation of invocations: the result's invocation `r` has this
    /// polynomial's coefficients of invocation `from[r]`.
    pub fn permuted(&self, from: &[usize]) -> Poly {
        let mut p = Poly {
            width: self.width,
            lanes: from.len(),
            terms: SmallVec::new(),
        };
        for (m, c) in &self.terms {
            let c = match c {
                Coef::Same(v) => Coef::Same(*v),
                Coef::Lanes(t) => Coef::Lanes(from.iter().map(|&w| t[w]).collect()),
            };
            p.add_term(m.clone(), c);
        }
        p
    }
}
