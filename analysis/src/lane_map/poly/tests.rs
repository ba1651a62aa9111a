//! The polynomial arithmetic and its shortcuts checked against each other and against
//! evaluation.

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
