//! Polynomials whose coefficients are per-invocation tables: `Σ_k T_k(lid) · m_k`, where each
//! monomial `m_k` is a product of work-group-uniform atoms (SSA values the lane map does not
//! expand: kernel parameters, the work-group id, loop phis, …) and `T_k` gives, for every local
//! invocation of the work-group, an integer coefficient.
//!
//! Arithmetic is modulo 2^width (wrapping): every coefficient is kept sign-extended from the
//! value's bit width, so two polynomials of one width are equal exactly when they denote the
//! same function of their atoms (for every invocation) modulo 2^width. Polynomials are kept
//! small ([`MAX_TERMS`] terms of at most [`MAX_DEGREE`] atoms); an operation that would exceed
//! that returns `None` and the caller treats the value as unknown (or, when it is uniform, as a
//! new atom).
//!
//! This file holds the representation, its constructors and the arithmetic; comparisons of two
//! polynomials are in `poly/compare.rs`, divisibility, evaluation and per-invocation views in
//! `poly/properties.rs`.

use std::rc::Rc;

use smallvec::SmallVec;
use spvopt_ir::Id;

mod compare;
mod properties;
#[cfg(test)]
mod tests;

/// Largest number of terms of a polynomial.
pub const MAX_TERMS: usize = 8;
/// Largest number of atoms in one monomial.
pub const MAX_DEGREE: usize = 3;

/// A product of atoms (sorted, with repetition); empty for the constant monomial `1`.
pub type Mono = SmallVec<[Id; MAX_DEGREE]>;

/// A coefficient: the same for every invocation, or one per invocation.
#[derive(Clone, Debug)]
pub enum Coef {
    /// One value for every invocation.
    Same(i64),
    /// One value per invocation (`lanes` of them).
    Lanes(Rc<[i64]>),
}

impl Coef {
    /// The coefficient of invocation `lane`.
    pub fn at(&self, lane: usize) -> i64 {
        match self {
            Coef::Same(c) => *c,
            Coef::Lanes(t) => t[lane],
        }
    }
    /// Whether every invocation has the same coefficient.
    pub fn is_same(&self) -> bool {
        match self {
            Coef::Same(_) => true,
            Coef::Lanes(t) => t.iter().all(|&v| v == t[0]),
        }
    }
    fn is_zero(&self) -> bool {
        match self {
            Coef::Same(c) => *c == 0,
            Coef::Lanes(t) => t.iter().all(|&v| v == 0),
        }
    }
    fn map2(&self, other: &Coef, lanes: usize, f: impl Fn(i64, i64) -> i64) -> Coef {
        match (self, other) {
            (Coef::Same(a), Coef::Same(b)) => Coef::Same(f(*a, *b)),
            _ => Coef::Lanes((0..lanes).map(|l| f(self.at(l), other.at(l))).collect()),
        }
    }
    fn map(&self, f: impl Fn(i64) -> i64) -> Coef {
        match self {
            Coef::Same(a) => Coef::Same(f(*a)),
            Coef::Lanes(t) => Coef::Lanes(t.iter().map(|&v| f(v)).collect()),
        }
    }
    /// Canonical form: a table whose entries are all equal becomes `Same`.
    fn canonical(self) -> Coef {
        match self {
            Coef::Lanes(t) if t.iter().all(|&v| v == t[0]) => Coef::Same(t[0]),
            c => c,
        }
    }
}

/// Whether two canonical coefficients are equal (a table only when its entries differ, so a
/// table never equals a single value).
fn same_coef(a: &Coef, b: &Coef) -> bool {
    match (a, b) {
        (Coef::Same(x), Coef::Same(y)) => x == y,
        (Coef::Lanes(x), Coef::Lanes(y)) => x[..] == y[..],
        _ => false,
    }
}

/// Sign-extends `v` from `width` bits.
pub fn sext(v: i64, width: u32) -> i64 {
    if width >= 64 {
        v
    } else {
        let s = 64 - width;
        (v << s) >> s
    }
}

/// A polynomial's terms: inline up to the few an address has (base, a few strides, a constant).
type Terms = SmallVec<[(Mono, Coef); 4]>;

/// A polynomial (see the module documentation) of one bit width over `lanes` invocations.
#[derive(Clone, Debug)]
pub struct Poly {
    /// Bit width of the values (arithmetic wraps at it).
    pub width: u32,
    /// How many invocations the per-invocation coefficients cover.
    pub lanes: usize,
    /// Sorted by monomial, no zero coefficient.
    terms: Terms,
}

impl Poly {
    /// The constant `c`.
    pub fn constant(c: i64, width: u32, lanes: usize) -> Poly {
        let mut terms = SmallVec::new();
        let c = sext(c, width);
        if c != 0 {
            terms.push((Mono::new(), Coef::Same(c)));
        }
        Poly {
            width,
            lanes,
            terms,
        }
    }
    /// The per-invocation table `t`.
    pub fn table(t: Rc<[i64]>, width: u32) -> Poly {
        let lanes = t.len();
        Poly::from_terms(width, lanes, vec![(Mono::new(), Coef::Lanes(t))])
    }
    /// The atom `a` (coefficient 1).
    pub fn atom(a: Id, width: u32, lanes: usize) -> Poly {
        Poly::from_terms(width, lanes, vec![(smallvec::smallvec![a], Coef::Same(1))])
    }

    fn from_terms(width: u32, lanes: usize, terms: Vec<(Mono, Coef)>) -> Poly {
        let mut p = Poly {
            width,
            lanes,
            terms: SmallVec::new(),
        };
        for (m, c) in terms {
            p.add_term(m, c);
        }
        p
    }

    fn add_term(&mut self, m: Mono, c: Coef) {
        let w = self.width;
        let lanes = self.lanes;
        match self
            .terms
            .binary_search_by(|(k, _)| k.as_slice().cmp(m.as_slice()))
        {
            Ok(i) => {
                let sum = self.terms[i]
                    .1
                    .map2(&c, lanes, |a, b| sext(a.wrapping_add(b), w))
                    .canonical();
                if sum.is_zero() {
                    self.terms.remove(i);
                } else {
                    self.terms[i].1 = sum;
                }
            }
            Err(i) => {
                let c = c.map(|v| sext(v, w)).canonical();
                if !c.is_zero() {
                    self.terms.insert(i, (m, c));
                }
            }
        }
    }

    /// The terms, sorted by monomial.
    pub fn terms(&self) -> &[(Mono, Coef)] {
        &self.terms
    }

    /// The coefficient of monomial `m` (zero when absent).
    pub fn coef(&self, m: &[Id]) -> Coef {
        self.terms
            .iter()
            .find(|(k, _)| k.as_slice() == m)
            .map_or(Coef::Same(0), |(_, c)| c.clone())
    }

    /// The value when the polynomial has no atoms: one integer per invocation.
    pub fn as_table(&self) -> Option<Coef> {
        match self.terms.as_slice() {
            [] => Some(Coef::Same(0)),
            [(m, c)] if m.is_empty() => Some(c.clone()),
            _ => None,
        }
    }

    /// The constant when the polynomial is the same number for every invocation.
    pub fn as_constant(&self) -> Option<i64> {
        match self.as_table()? {
            Coef::Same(c) => Some(c),
            Coef::Lanes(_) => None,
        }
    }

    /// Whether the value is the same for every invocation (every coefficient is).
    pub fn is_lane_invariant(&self) -> bool {
        self.terms.iter().all(|(_, c)| c.is_same())
    }

    /// Whether some term mentions atom `a`.
    pub fn mentions(&self, a: Id) -> bool {
        self.terms.iter().any(|(m, _)| m.contains(&a))
    }

    fn check(self) -> Option<Poly> {
        (self.terms.len() <= MAX_TERMS).then_some(self)
    }

    /// `self + other` (same width): one merge of the two sorted term lists (what adding
    /// `other`'s terms one by one to a copy of `self` gives).
    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let w = self.width;
        let lanes = self.lanes;
        let mut terms = Terms::new();
        let (a, b) = (&self.terms, &other.terms);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let order = match (a.get(i), b.get(j)) {
                (Some((ma, _)), Some((mb, _))) => ma.as_slice().cmp(mb.as_slice()),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    // `self`'s terms are canonical at its width already.
                    terms.push((Mono::from_slice(&a[i].0), a[i].1.clone()));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    let c = b[j].1.map(|v| sext(v, w)).canonical();
                    if !c.is_zero() {
                        terms.push((Mono::from_slice(&b[j].0), c));
                    }
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let sum = a[i]
                        .1
                        .map2(&b[j].1, lanes, |x, y| sext(x.wrapping_add(y), w))
                        .canonical();
                    if !sum.is_zero() {
                        terms.push((Mono::from_slice(&a[i].0), sum));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Poly {
            width: w,
            lanes,
            terms,
        }
        .check()
    }

    /// `self + c`: what `self.add(&Poly::constant(c, self.width, self.lanes))` gives (the
    /// constant is taken at this polynomial's width; `None` past [`MAX_TERMS`] terms), without
    /// the merge: only the constant monomial, which sorts first, changes.
    pub fn add_constant(&self, c: i64) -> Option<Poly> {
        let w = self.width;
        let c = sext(c, w);
        let mut p = self.clone();
        if c != 0 {
            match p.terms.first_mut() {
                Some((m, k)) if m.is_empty() => {
                    let sum = k.map(|v| sext(v.wrapping_add(c), w)).canonical();
                    if sum.is_zero() {
                        p.terms.remove(0);
                    } else {
                        *k = sum;
                    }
                }
                _ => p.terms.insert(0, (Mono::new(), Coef::Same(c))),
            }
        }
        p.check()
    }

    /// Whether [`Poly::add_constant`] gives a polynomial (at most [`MAX_TERMS`] terms), without
    /// building it: the constant monomial is added, kept, or cancelled.
    #[inline]
    pub fn add_constant_fits(&self, c: i64) -> bool {
        // At most one term is added.
        if self.terms.len() < MAX_TERMS {
            return true;
        }
        let w = self.width;
        let c = sext(c, w);
        let mut len = self.terms.len();
        if c != 0 {
            match self.terms.first() {
                Some((m, k)) if m.is_empty() => {
                    let cancels = match k {
                        Coef::Same(v) => sext(v.wrapping_add(c), w) == 0,
                        Coef::Lanes(t) => t.iter().all(|&v| sext(v.wrapping_add(c), w) == 0),
                    };
                    if cancels {
                        len -= 1;
                    }
                }
                _ => len += 1,
            }
        }
        len <= MAX_TERMS
    }

    /// `self - other` (same width).
    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.scale(-1))
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> Poly {
        let mut p = Poly {
            width: self.width,
            lanes: self.lanes,
            terms: SmallVec::new(),
        };
        let w = self.width;
        // The monomials stay sorted and distinct: each term is kept or dropped.
        for (m, c) in &self.terms {
            let c = c.map(|v| sext(v.wrapping_mul(k), w)).canonical();
            if !c.is_zero() {
                p.terms.push((Mono::from_slice(m), c));
            }
        }
        p
    }

    /// `self · other` (same width).
    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut p = Poly {
            width: self.width,
            lanes: self.lanes,
            terms: SmallVec::new(),
        };
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                if ma.len() + mb.len() > MAX_DEGREE {
                    return None;
                }
                let mut m: Mono = ma.iter().chain(mb.iter()).copied().collect();
                m.sort_unstable();
                p.add_term(m, ca.map2(cb, self.lanes, |a, b| a.wrapping_mul(b)));
                if p.terms.len() > 2 * MAX_TERMS {
                    return None;
                }
            }
        }
        p.check()
    }

    /// The same polynomial at another width: truncation (`to < width`), or the coefficients
    /// reinterpreted at a larger width, which is exact only when the value provably does not
    /// wrap; callers decide (see `LaneMap`'s conversions).
    pub fn with_width(&self, to: u32) -> Poly {
        if to >= self.width {
            // Coefficients sign-extended from `width` bits are so from `to` bits too: the
            // terms stay as they are.
            let mut p = self.clone();
            p.width = to;
            return p;
        }
        let mut p = Poly {
            width: to,
            lanes: self.lanes,
            terms: SmallVec::new(),
        };
        // The monomials stay sorted and distinct: each term is kept or dropped.
        for (m, c) in &self.terms {
            let c = c.map(|v| sext(v, to)).canonical();
            if !c.is_zero() {
                p.terms.push((Mono::from_slice(m), c));
            }
        }
        p
    }
}
