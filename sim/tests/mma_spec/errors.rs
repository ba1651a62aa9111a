//! Interpretation and data errors; arbitrary operands never panic.

use super::*;

fn issue(d: &MmaDesc) -> MmaIssue {
    match plan(d) {
        Err(SimError::Mma(i)) => {
            let msg = SimError::Mma(i.clone()).to_string();
            assert!(!msg.contains('\n'), "{msg}");
            i
        }
        other => panic!("expected an MMA issue, got {other:?}"),
    }
}

#[test]
fn interpretation_errors() {
    let ok = desc(
        16,
        0x3000,
        v(Int(16), 8),
        v(Int(32), 8),
        v(Float(32), 8),
        v(Float(32), 8),
        16,
    );
    assert!(plan(&ok).is_ok());
    let with = |f: &dyn Fn(&mut MmaDesc)| {
        let mut d = ok;
        f(&mut d);
        d
    };
    assert_eq!(
        issue(&with(&|d| d.operands |= 0x4000)),
        MmaIssue::UnknownOperandBits { bits: 0x4000 }
    );
    assert_eq!(
        issue(&with(&|d| d.operands |= MATRIX_A_PACKED_FLOAT16)),
        MmaIssue::ConflictingInterpretations {
            matrix: MmaMatrix::A,
            bits: 0x1400
        }
    );
    assert!(matches!(
        issue(&with(
            &|d| d.operands = MATRIX_A_TF32 | MATRIX_B_PACKED_BFLOAT16
        )),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::A,
            flag: "MatrixATF32INTEL",
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| d.operands |= MATRIX_C_BFLOAT16)),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::C,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| d.operands |= MATRIX_RESULT_BFLOAT16)),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::Result,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| {
            d.operands = MATRIX_A_PACKED_FLOAT16 | MATRIX_B_PACKED_FLOAT16;
            d.a = v(Int(8), 16)
        })),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::A,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(
            &|d| d.operands = MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_BFLOAT16
        )),
        MmaIssue::MixedDomains { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| {
            d.operands = MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_INT8;
            d.k_dim = 32
        })),
        MmaIssue::MixedDomains { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| d.a.component = Int(12))),
        MmaIssue::ComponentType { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| d.result.component = Float(8))),
        MmaIssue::ComponentType { .. }
    ));
    assert_eq!(
        issue(&with(&|d| d.k_dim = 0)),
        MmaIssue::ZeroDimension { m: 8, n: 16, k: 0 }
    );
    assert_eq!(
        issue(&with(&|d| d.k_dim = 24)),
        MmaIssue::KAndSubgroupSize { k: 24, n: 16 }
    );
    assert_eq!(
        issue(&with(&|d| d.a = v(Int(16), 4))),
        MmaIssue::OperandBits {
            matrix: MmaMatrix::A,
            expected_bits: 128,
            got_bits: 64
        }
    );
    assert_eq!(
        issue(&with(&|d| d.b = v(Int(32), 4))),
        MmaIssue::OperandBits {
            matrix: MmaMatrix::B,
            expected_bits: 256,
            got_bits: 128
        }
    );
    assert_eq!(
        issue(&with(&|d| d.c = v(Float(32), 4))),
        MmaIssue::ComponentCount {
            matrix: MmaMatrix::C,
            expected: 8,
            got: 4
        }
    );
    assert!(matches!(
        plan(&with(&|d| d.subgroup_size = 1 << 20)),
        Err(SimError::Subgroup { .. })
    ));
}

#[test]
fn data_errors() {
    let d = desc(
        16,
        0x3000,
        v(Int(16), 8),
        v(Int(32), 8),
        v(Float(32), 8),
        v(Float(32), 8),
        16,
    );
    let a = vec![vec![0u8; 16]; 16];
    let b = vec![vec![0u8; 32]; 16];
    let c = vec![vec![0u8; 32]; 16];
    assert!(multiply_accumulate(&d, &a, &b, &c).is_ok());
    assert!(matches!(
        multiply_accumulate(&d, &a[..15], &b, &c),
        Err(SimError::InvocationCount {
            what: "Matrix A",
            expected: 16,
            got: 15
        })
    ));
    let mut short = c.clone();
    short[3].pop();
    assert!(matches!(
        multiply_accumulate(&d, &a, &b, &short),
        Err(SimError::DataSize {
            what: "Matrix C",
            invocation: 3,
            expected: 32,
            got: 31
        })
    ));
}

/// Arbitrary descriptions and data never panic: every outcome is a value or a typed error.
#[test]
fn arbitrary_operands_never_panic() {
    let mut rng = Lcg(99);
    let comps = [
        Int(4),
        Int(8),
        Int(12),
        Int(16),
        Int(32),
        Int(64),
        Float(8),
        Float(16),
        Float(32),
        Float(64),
    ];
    let counts = [0u32, 1, 2, 3, 4, 8, 16];
    for _ in 0..20_000 {
        let ty = |rng: &mut Lcg| {
            v(
                comps[rng.next() as usize % comps.len()],
                counts[rng.next() as usize % counts.len()],
            )
        };
        let d = MmaDesc {
            k_dim: [0u32, 1, 2, 3, 4, 8, 16, 32, 64][rng.next() as usize % 9],
            operands: rng.next() & 0x7fff & if rng.next() % 2 == 0 { 0x3fff } else { 0xffff },
            a: ty(&mut rng),
            b: ty(&mut rng),
            c: ty(&mut rng),
            result: ty(&mut rng),
            subgroup_size: [0u32, 1, 4, 8, 16, 5][rng.next() as usize % 6],
        };
        let n = d.subgroup_size as usize;
        let data = |t: VectorType, rng: &mut Lcg| -> Vec<Vec<u8>> {
            let bytes = (t.bits() / 8) as usize + (rng.next() % 8 == 0) as usize;
            (0..n)
                .map(|_| (0..bytes).map(|_| rng.next() as u8).collect())
                .collect()
        };
        let (a, b, c) = (
            data(d.a, &mut rng),
            data(d.b, &mut rng),
            data(d.c, &mut rng),
        );
        let _ = multiply_accumulate(&d, &a, &b, &c);
    }
}
