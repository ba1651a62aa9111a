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

use std::rc::Rc;

use smallvec::SmallVec;
use spvopt_ir::Id;

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
    pub fn add_constant_fits(&self, c: i64) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> Id {
        Id::new(n).unwrap()
    }

    /// `constant_offset_at` is `with_width`, `sub` of `at_lane` and `as_constant` in one walk.
    #[test]
    fn constant_offset_at_matches_the_polynomial_arithmetic() {
        let lanes = 4;
        let t: Rc<[i64]> = Rc::from(vec![0, 1, 2, 3]);
        let a = Poly::atom(id(7), 32, lanes);
        let b = Poly::atom(id(9), 32, lanes);
        let x = Poly::table(t.clone(), 32);
        let ab = a.mul(&b).unwrap();
        let others = [
            a.scale(128).add(&x).unwrap(),
            a.scale(128).add(&Poly::table(t, 32).scale(3)).unwrap(),
            ab.add(&x).unwrap(),
            Poly::constant(i64::from(i32::MAX), 32, lanes),
            b.add(&x).unwrap(),
        ];
        let mines = [
            a.scale(128).with_width(64),
            a.scale(128)
                .add(&Poly::constant(5, 32, lanes))
                .unwrap()
                .with_width(64),
            ab.add(&Poly::constant(-1, 32, lanes)).unwrap(),
            Poly::constant(i64::from(i32::MIN), 64, lanes),
            a.add(&x).unwrap(),
            Poly::constant(3, 32, lanes),
        ];
        for mine in &mines {
            for other in &others {
                for lane in 0..lanes {
                    let slow = mine
                        .with_width(other.width)
                        .sub(&other.at_lane(lane))
                        .and_then(|d| d.as_constant());
                    assert_eq!(
                        mine.constant_offset_at(other, lane),
                        slow,
                        "{mine:?} - {other:?} @ {lane}"
                    );
                }
            }
        }
    }

    /// Polynomials of a few shapes: tables, atoms, products, wrapping constants, many terms.
    fn samples(lanes: usize) -> Vec<Poly> {
        let t: Rc<[i64]> = Rc::from(vec![0, 1, 2, 3]);
        let u: Rc<[i64]> = Rc::from(vec![5, 5, 6, 4]);
        let x = Poly::table(t, 32);
        let y = Poly::table(u, 32);
        let a = Poly::atom(id(7), 32, lanes);
        let b = Poly::atom(id(9), 32, lanes);
        let mut many = Poly::constant(0, 32, lanes);
        for k in 0..MAX_TERMS as u32 - 1 {
            many = many.add(&Poly::atom(id(20 + k), 32, lanes)).unwrap();
        }
        let full = many.add(&Poly::atom(id(40), 32, lanes)).unwrap();
        vec![
            Poly::constant(0, 32, lanes),
            Poly::constant(3, 32, lanes),
            Poly::constant(i64::from(i32::MAX), 32, lanes),
            x.clone(),
            y.clone(),
            x.scale(-1),
            a.scale(128).add(&x).unwrap(),
            a.scale(-128).add(&y).unwrap(),
            a.mul(&b).unwrap().add(&x).unwrap(),
            b.add(&Poly::constant(-7, 32, lanes)).unwrap(),
            many.add(&Poly::constant(1, 32, lanes)).unwrap(),
            many,
            full,
        ]
    }

    /// The merge in `add` and the direct `scale`, `with_width` and `at_lane` give what adding
    /// the terms one by one gives.
    #[test]
    fn merged_arithmetic_matches_term_by_term() {
        let lanes = 4;
        let by_terms = |p: &Poly, width: u32, f: &dyn Fn(&Coef) -> Coef| {
            let mut q = Poly {
                width,
                lanes: p.lanes,
                terms: SmallVec::new(),
            };
            for (m, c) in &p.terms {
                q.add_term(m.clone(), f(c));
            }
            q
        };
        let all = samples(lanes);
        for p in &all {
            for q in &all {
                let mut slow = p.clone();
                for (m, c) in &q.terms {
                    slow.add_term(m.clone(), c.clone());
                }
                let slow = slow.check();
                let fast = p.add(q);
                assert_eq!(slow.is_some(), fast.is_some(), "{p:?} + {q:?}");
                if let (Some(s), Some(f)) = (slow, fast) {
                    assert!(s.same_as(&f), "{p:?} + {q:?}");
                }
            }
            for k in [0, 1, -1, 3, 1 << 31] {
                let slow = by_terms(p, p.width, &|c| c.map(|v| v.wrapping_mul(k)));
                assert!(p.scale(k).same_as(&slow), "{p:?} * {k}");
            }
            for to in [8, 16, 32, 64] {
                let slow = by_terms(p, to, &|c| c.clone());
                assert!(p.with_width(to).same_as(&slow), "{p:?} at {to} bits");
            }
            for lane in 0..lanes {
                let slow = by_terms(p, p.width, &|c| Coef::Same(c.at(lane)));
                assert!(p.at_lane(lane).same_as(&slow), "{p:?} @ {lane}");
            }
        }
    }

    /// `add_constant` gives what adding `Poly::constant` gives.
    #[test]
    fn add_constant_matches_add() {
        let lanes = 4;
        for p in &samples(lanes) {
            for c in [
                0,
                1,
                -3,
                7,
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                1 << 32,
                -1 << 40,
            ] {
                let slow = p.add(&Poly::constant(c, p.width, lanes));
                let fast = p.add_constant(c);
                assert_eq!(slow.is_some(), fast.is_some(), "{p:?} + {c}");
                assert_eq!(p.add_constant_fits(c), fast.is_some(), "{p:?} + {c} fits");
                if let (Some(s), Some(f)) = (slow, fast) {
                    assert!(s.same_as(&f), "{p:?} + {c}");
                }
                let wide = p.with_width(64);
                let slow = wide.add(&Poly::constant(c, 64, lanes));
                let fast = wide.add_constant(c);
                assert_eq!(slow.map(|s| s.terms().len()), fast.map(|f| f.terms().len()));
            }
        }
    }

    /// `is_sum_with_constant` decides what adding the constant and comparing decides.
    #[test]
    fn sum_with_constant_matches_the_sum() {
        let lanes = 4;
        let all = samples(lanes);
        for base in &all {
            for c in [0, 1, -3, 7, i64::from(i32::MIN), 1 << 32] {
                let sum = base.add(&Poly::constant(c, base.width, lanes));
                for mine in all.iter().chain(sum.iter()) {
                    let slow = sum.as_ref().is_some_and(|s| s.same_as(mine));
                    assert_eq!(
                        mine.is_sum_with_constant(base, c),
                        slow,
                        "{mine:?} = {base:?} + {c}"
                    );
                }
            }
        }
    }

    #[test]
    fn arithmetic_wraps_at_the_width() {
        let lanes = 4;
        let t: Rc<[i64]> = Rc::from(vec![0, 1, 2, 3]);
        let x = Poly::table(t, 32);
        let a = Poly::atom(id(7), 32, lanes);
        let p = a.scale(128).add(&x).unwrap();
        assert_eq!(p.symbolic_trailing_zeros(), 7);
        assert_eq!(p.eval(3, |_| 2), 259);
        let big = Poly::constant(i64::from(i32::MAX), 32, lanes);
        let one = Poly::constant(1, 32, lanes);
        assert_eq!(
            big.add(&one).unwrap().as_constant(),
            Some(i64::from(i32::MIN))
        );
        let sq = a.mul(&a).unwrap().mul(&p).unwrap();
        assert_eq!(sq.terms().len(), 2);
        assert!(sq.mul(&a).is_none(), "degree 4 is beyond MAX_DEGREE");
        let d = p.sub(&p).unwrap();
        assert!(d.terms().is_empty());
        assert!(p.same_as(&x.add(&a.scale(128)).unwrap()));
        assert!(!p.is_lane_invariant());
        assert!(p.at_lane(2).is_lane_invariant());
        let q = p.permuted(&[3, 2, 1, 0]);
        assert_eq!(q.eval(0, |_| 0), 3);
    }
}
