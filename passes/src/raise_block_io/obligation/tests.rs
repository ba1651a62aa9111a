//! Every obligation kind has a discharge: one example per kind (several for kinds that can
//! be met in more than one way) is discharged as documented, and every obligation left to
//! run time becomes terms of the run-time check (while the kinds never left to it do not).

use super::*;
use crate::raise_block_io::rewrite::check::Check;
use spvopt_analysis::{Analyses, Cfg, PostDominators};
use spvopt_ir::text::{assemble, TargetEnv};
use spvopt_ir::Interner;

const KERNEL: &str = r#"
           OpCapability Addresses
           OpCapability Kernel
           OpCapability Int64
           OpMemoryModel Physical64 OpenCL
           OpEntryPoint Kernel %k "K"
           OpExecutionMode %k LocalSize 16 1 1
           OpDecorate %aligned Alignment 128
   %void = OpTypeVoid
   %uint = OpTypeInt 32 0
  %ulong = OpTypeInt 64 0
   %gptr = OpTypePointer CrossWorkgroup %uint
     %fn = OpTypeFunction %void %gptr %gptr %uint %ulong
      %k = OpFunction %void None %fn
   %base = OpFunctionParameter %gptr
%aligned = OpFunctionParameter %gptr
     %kk = OpFunctionParameter %uint
     %ll = OpFunctionParameter %ulong
  %entry = OpLabel
 %loaded = OpLoad %uint %base
           OpReturn
           OpFunctionEnd
"#;

/// How an example must be discharged.
#[derive(Debug)]
enum Expect {
    Proven,
    RunTime,
    Reduced,
    Saturated,
    Rejected(OperandReject),
}

fn matches(d: &Discharge, e: &Expect) -> bool {
    match (d, e) {
        (Discharge::Proven, Expect::Proven)
        | (Discharge::RunTime, Expect::RunTime)
        | (Discharge::Reduced(_), Expect::Reduced)
        | (Discharge::Saturated, Expect::Saturated) => true,
        (Discharge::Rejected(a), Expect::Rejected(b)) => a == b,
        _ => false,
    }
}

#[test]
fn every_obligation_kind_has_a_discharge() {
    let words = assemble(KERNEL, TargetEnv::Universal_1_2).unwrap();
    let mut m = spvopt_ir::load_words(&words).unwrap();
    let f = m.function_ids().next().unwrap();
    let mut analyses = Analyses::new();
    let cfg = analyses.get::<Cfg>(&m);
    let pdom = analyses.get::<PostDominators>(&m);
    let dec = Decorations::build(&m);
    let lanes = LaneMap::build(&m, f, &cfg, &pdom, &dec, [16, 1, 1], 16, true);
    // The parameters in order, and the body's load.
    let params: Vec<Id> = m.parameter_ids(f);
    let [base, aligned, kk, ll] = params[..] else {
        panic!("four parameters")
    };
    let entry = m.function(f).blocks[0];
    let loaded = m
        .block_insts(entry)
        .find_map(|i| m.inst(i).is(spirv::Op::Load).then(|| m.inst(i).result_id()))
        .flatten()
        .unwrap();
    let c = |v: i64| Poly::constant(v, 64, 16);
    let atom = |a: Id| Poly::atom(a, 64, 16);
    let k = atom(kk);
    let k_plus = |v: i64| k.add_constant(v).unwrap();
    let k_times = |v: i64| k.scale(v);
    use Expect::*;
    use OperandReject as R;
    let examples: Vec<(Obligation, Expect)> = vec![
        (Obligation::WorkgroupShape { lanes: 16 }, RunTime),
        (Obligation::BaseAligned { base, align: 64 }, RunTime),
        (
            Obligation::BaseAligned {
                base: aligned,
                align: 64,
            },
            Proven,
        ),
        (Obligation::SurfaceWidth { width: c(128) }, Proven),
        (
            Obligation::SurfaceWidth { width: c(32) },
            Rejected(R::ObligationFalse),
        ),
        (Obligation::SurfaceWidth { width: k.clone() }, RunTime),
        (
            Obligation::SurfacePitch {
                pitch: c(256),
                width: c(128),
            },
            Proven,
        ),
        (
            Obligation::SurfacePitch {
                pitch: c(128),
                width: c(256),
            },
            Rejected(R::ObligationFalse),
        ),
        (
            Obligation::SurfacePitch {
                pitch: k.clone(),
                width: c(128),
            },
            RunTime,
        ),
        (
            Obligation::SurfaceHeight { height: c(1 << 25) },
            Rejected(R::ObligationFalse),
        ),
        (Obligation::SurfaceHeight { height: k.clone() }, RunTime),
        (
            Obligation::SurfaceSize {
                height: c(1 << 16),
                pitch: c(1 << 15),
            },
            Rejected(R::ObligationFalse),
        ),
        (
            Obligation::SurfaceSize {
                height: c(64),
                pitch: c(64),
            },
            Proven,
        ),
        (
            Obligation::SurfaceSize {
                height: k.clone(),
                pitch: c(64),
            },
            RunTime,
        ),
        (
            Obligation::ColumnBoundMultiple {
                width: k_times(32),
                bytes: 16,
            },
            Proven,
        ),
        (
            Obligation::ColumnBoundMultiple {
                width: c(24),
                bytes: 16,
            },
            Rejected(R::ObligationFalse),
        ),
        (
            Obligation::ColumnBoundMultiple {
                width: k.clone(),
                bytes: 16,
            },
            RunTime,
        ),
        (
            Obligation::AtLeast {
                lhs: k_plus(1),
                rhs: k.clone(),
            },
            Proven,
        ),
        (
            Obligation::AtLeast {
                lhs: k.clone(),
                rhs: k_plus(1),
            },
            Rejected(R::ObligationFalse),
        ),
        (
            Obligation::AtLeast {
                lhs: k.clone(),
                rhs: c(0),
            },
            RunTime,
        ),
        (Obligation::NonNegative { atom: kk }, RunTime),
        (
            Obligation::RemainderAsDividend {
                remainder: kk,
                dividend: k.clone(),
                divisor: c(64),
                upper: true,
                lanes: 16,
            },
            RunTime,
        ),
        (
            Obligation::RemainderAsDividend {
                remainder: loaded,
                dividend: atom(loaded),
                divisor: c(64),
                upper: false,
                lanes: 16,
            },
            Rejected(R::UnprovableAssumption),
        ),
        (
            Obligation::WideningExact {
                operand: Poly::atom(kk, 32, 16),
                signed: true,
            },
            RunTime,
        ),
        (
            Obligation::WideningExact {
                operand: atom(loaded),
                signed: false,
            },
            Rejected(R::UnprovableAssumption),
        ),
        (
            Obligation::NarrowWidening {
                result: kk,
                width: 16,
            },
            Rejected(R::NarrowWidening),
        ),
        (Obligation::MaskWidth { width: 16 }, Rejected(R::NarrowMask)),
        (Obligation::MaskWidth { width: 32 }, Proven),
        (
            Obligation::ColumnAligned {
                origins: vec![k_times(8)],
                zeros: 2,
            },
            Proven,
        ),
        (
            Obligation::ColumnAligned {
                origins: vec![k_times(8), k.clone()],
                zeros: 1,
            },
            Rejected(R::Misaligned),
        ),
        (
            Obligation::VectorFirstColumn {
                column: k_times(8),
                zeros: 3,
            },
            Proven,
        ),
        (
            Obligation::VectorFirstColumn {
                column: k_times(8).add_constant(2).unwrap(),
                zeros: 3,
            },
            Rejected(R::VectorOffsetFromMask),
        ),
        // A 32-bit argument plus 128: always in range. A 64-bit argument: its checkable
        // value is compared. A multiple of a value computed in the body: saturated.
        (
            Obligation::OriginFits {
                dim: 0,
                origins: vec![k_plus(128)],
                nonneg: vec![],
            },
            Proven,
        ),
        (
            Obligation::OriginFits {
                dim: 0,
                origins: vec![atom(ll)],
                nonneg: vec![],
            },
            Reduced,
        ),
        (
            Obligation::OriginFits {
                dim: 1,
                origins: vec![atom(loaded).scale(1 << 20)],
                nonneg: vec![],
            },
            Saturated,
        ),
    ];
    let facts = Facts {
        m: &m,
        dec: &dec,
        lanes: &lanes,
        func: f,
    };
    for kind in ObligationKind::ALL {
        assert!(
            examples.iter().any(|(o, _)| o.kind() == kind),
            "obligation kind {kind:?} has no discharge example"
        );
    }
    let mut run_time = Vec::new();
    let mut never_run_time = Vec::new();
    for (ob, want) in &examples {
        let got = discharge(ob, &facts);
        assert!(
            matches(&got, want),
            "{ob:?}: discharged as {got:?}, documented {want:?}"
        );
        match got {
            Discharge::RunTime => run_time.push(ob.clone()),
            Discharge::Reduced(more) => {
                // Reduced obligations are discharged in turn (here: checked at run time).
                for o in more {
                    assert!(matches!(discharge(&o, &facts), Discharge::RunTime), "{o:?}");
                    run_time.push(o);
                }
            }
            _ => never_run_time.push(ob.clone()),
        }
    }
    // Each obligation left to run time emits terms of the check; the kinds that are never
    // left to it emit none (the check would not be built).
    let at = m.block_terminator(entry).unwrap();
    let mut types = Interner::default();
    let mut check = Check::new(&mut m, &mut types, at, f, None);
    for ob in &run_time {
        let before = check.terms();
        assert!(check.obligation(ob).is_some(), "{ob:?}: no run-time terms");
        assert!(check.terms() > before, "{ob:?}: no run-time terms");
    }
    let always_static = [
        ObligationKind::NarrowWidening,
        ObligationKind::MaskWidth,
        ObligationKind::ColumnAligned,
        ObligationKind::VectorFirstColumn,
        ObligationKind::OriginFits,
    ];
    for ob in never_run_time
        .iter()
        .filter(|o| always_static.contains(&o.kind()))
    {
        assert!(
            check.obligation(ob).is_none(),
            "{ob:?} emitted run-time terms"
        );
    }
    assert!(check.conjunction().is_some());
    spvopt_ir::verify(&m).expect("the check is a valid module");
}
