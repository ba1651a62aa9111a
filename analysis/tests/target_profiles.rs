//! Target profiles against `docs/notes/intel-targets.md` (spot values per table), query
//! behaviour, and unknown names.

use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::target::{MmaTypes, Target};

use BlockKind::{Load, LoadTransform, LoadTranspose, Prefetch, Store};

fn t(name: &str) -> Target {
    Target::by_name(name).unwrap()
}

#[test]
fn names_and_lookup() {
    let names: Vec<&str> = Target::names().collect();
    assert_eq!(
        names,
        ["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl", "generic", "cpu"]
    );
    for n in &names {
        let target = t(n);
        assert_eq!(target.name, *n);
        assert!(!target.description.is_empty());
        assert!(target.describe().starts_with(&format!("target {n}:")));
    }
    assert_eq!(t("PVC").name, "pvc");
    assert_eq!(Target::default().name, "generic");
    assert_eq!(Target::default(), Target::generic());
}

#[test]
fn unknown_names() {
    let e = Target::by_name("xe9").unwrap_err();
    assert_eq!(e.0, "xe9");
    let msg = e.to_string();
    assert!(msg.contains("unknown target \"xe9\""), "{msg}");
    assert!(msg.contains("pvc") && msg.contains("generic"), "{msg}");
    // The compatibility constructor keeps the name and uses the portable tables.
    let n = Target::named("xe9");
    assert_eq!(n.name, "xe9");
    assert_eq!(n.block_shapes, Target::generic().block_shapes);
    assert_eq!(Target::named("bmg"), Target::bmg());
}

#[test]
fn features_per_notes() {
    // §1.3: 2D block IO only on Xe-HPC children (PVC, BMG, LNL); not DG2, not MTL.
    for (n, block, dpas, grf) in [
        ("pvc", true, true, 64),
        ("bmg", true, true, 64),
        ("lnl", true, true, 64),
        ("dg2", false, true, 32),
        ("mtl", false, false, 32),
        ("generic", true, true, 64),
    ] {
        let target = t(n);
        assert_eq!(target.has_2d_block_io(), block, "{n} 2D block IO");
        assert_eq!(target.has_dpas(), dpas, "{n} DPAS");
        // §2.1 GRF size: 64 B on Xe-HPC and later, 32 B before.
        assert_eq!(target.grf_bytes, grf, "{n} GRF");
        // §1.5: NumBytes 1..64, powers of two.
        assert_eq!(target.prefetch_byte_sizes(), [1, 2, 4, 8, 16, 32, 64]);
    }
    assert_eq!(t("pvc").subgroup_sizes(), [16, 32]);
    assert_eq!(t("dg2").subgroup_sizes(), [8, 16, 32]);
    assert!(t("pvc").has_tf32());
    assert!(!t("dg2").has_tf32());
}

#[test]
fn tf32_has_one_truth_per_device() {
    // §4.1: IGC's SIMD16 MMA table (every exec-size-16 DPAS part) and the SYCL runtime's
    // matrix_combinations list tf32 8x16x8 for pvc, bmg, lnl; DG2's SIMD8 table has none.
    for (n, tf32) in [
        ("pvc", true),
        ("bmg", true),
        ("lnl", true),
        ("dg2", false),
        ("mtl", false),
        ("generic", true),
    ] {
        let target = t(n);
        assert_eq!(target.has_tf32(), tf32, "{n}");
        assert_eq!(
            target.supports_mma(16, 8, 16, 8, MmaTypes::Tf32ToF32),
            tf32 && n != "dg2",
            "{n}"
        );
        // the summary (--list-targets) and the description say the same
        assert_eq!(target.summary().contains("incl. tf32"), tf32, "{n}");
        let line = target
            .describe()
            .lines()
            .find(|l| l.trim_start().starts_with("tf32 DPAS:"))
            .unwrap()
            .to_string();
        assert_eq!(line.contains(" yes "), tf32, "{n}: {line}");
        assert!(line.contains("[§"), "{n}: no source: {line}");
    }
}

#[test]
fn pvc_block_table_spot_values() {
    let p = t("pvc");
    // §2.2 Read 16-bit: H 1-32, W 2-32, C 1-4, W·C ≤ 32 (Triton's 16b_32r16x2c).
    assert!(p.supports_2d_load(Load, 2, 16, 32, 2));
    assert!(p.supports_2d_load(Load, 2, 16, 8, 2));
    assert!(p.supports_2d_load(Load, 2, 8, 32, 4));
    assert!(
        !p.supports_2d_load(Load, 2, 16, 32, 4),
        "W·C = 64 elements = 128 B"
    );
    assert!(!p.supports_2d_load(Load, 2, 16, 64, 1), "H ≤ 32");
    assert!(!p.supports_2d_load(Load, 2, 12, 8, 1), "powers of two only");
    // 8-bit W 4-64 C 1-4; 32-bit C ≤ 2; 64-bit C = 1.
    assert!(p.supports_2d_load(Load, 1, 64, 32, 1));
    assert!(!p.supports_2d_load(Load, 1, 64, 32, 2));
    assert!(p.supports_2d_load(Load, 4, 8, 16, 2));
    assert!(!p.supports_2d_load(Load, 4, 8, 16, 4));
    assert!(!p.supports_2d_load(Load, 8, 4, 16, 2));
    // Transform (PVC): 16-bit W ≤ 16; 8-bit H ≥ 4.
    assert!(p.supports_2d_load(LoadTransform, 2, 16, 32, 2));
    assert!(
        !p.supports_2d_load(LoadTransform, 2, 32, 16, 1),
        "Xe2+ only"
    );
    assert!(!p.supports_2d_load(LoadTransform, 1, 16, 2, 1));
    assert!(
        !p.supports_2d_load(LoadTransform, 4, 8, 16, 1),
        "no 32-bit VNNI"
    );
    // §2.1 transposes: d32 W 1-8 H 1-32 C 1; d64 H = 8, W 1-4.
    assert!(p.supports_2d_load(LoadTranspose, 4, 8, 32, 1));
    assert!(!p.supports_2d_load(LoadTranspose, 4, 16, 32, 1), "Xe3P+");
    assert!(!p.supports_2d_load(LoadTranspose, 4, 8, 32, 2));
    assert!(p.supports_2d_load(LoadTranspose, 8, 4, 8, 1));
    assert!(!p.supports_2d_load(LoadTranspose, 8, 4, 16, 1));
    assert!(
        !p.supports_2d_load(LoadTranspose, 2, 16, 16, 1),
        "d16 transpose not native"
    );
    // Write: H ≤ 8, C = 1.
    assert!(p.supports_2d_block(Store, 2, 16, 8, 1));
    assert!(!p.supports_2d_block(Store, 2, 16, 16, 1));
    assert!(!p.supports_2d_block(Store, 2, 16, 8, 2));
    // Prefetch as read (Triton's 16b_16r16x2c, 16b_1r16x2c).
    assert!(p.supports_2d_load(Prefetch, 2, 16, 16, 2));
    assert!(p.supports_2d_load(Prefetch, 2, 16, 1, 2));
    assert!(p.supports_2d_load(Prefetch, 2, 32, 32, 1));
}

#[test]
fn xe2_wide_transforms() {
    for n in ["bmg", "lnl"] {
        let x = t(n);
        // §1.3: LoadTransform 1B W 32/64 (C 1,2 / 1), 2B W 32 H 2-16 C 1 — Xe2+ only.
        assert!(x.supports_2d_load(LoadTransform, 1, 32, 32, 2), "{n}");
        assert!(x.supports_2d_load(LoadTransform, 1, 64, 16, 1), "{n}");
        assert!(!x.supports_2d_load(LoadTransform, 1, 64, 16, 2), "{n}");
        assert!(x.supports_2d_load(LoadTransform, 2, 32, 16, 1), "{n}");
        assert!(!x.supports_2d_load(LoadTransform, 2, 32, 32, 1), "{n}");
        // The PVC rows still hold.
        assert!(x.supports_2d_load(Load, 2, 16, 32, 2), "{n}");
    }
}

#[test]
fn generic_is_the_opencl_table() {
    let g = t("generic");
    // §1.2 rows.
    assert!(g.supports_2d_load(Load, 1, 32, 4, 2));
    assert!(g.supports_2d_load(Load, 1, 16, 8, 4));
    assert!(!g.supports_2d_load(Load, 1, 16, 4, 4));
    assert!(
        !g.supports_2d_load(Load, 1, 16, 8, 1),
        "8b W16 only with C 4"
    );
    assert!(g.supports_2d_load(Load, 2, 16, 32, 2));
    assert!(!g.supports_2d_load(Load, 2, 8, 32, 1), "IGC-only shape");
    assert!(g.supports_2d_load(LoadTransform, 1, 16, 32, 4));
    assert!(g.supports_2d_load(LoadTransform, 2, 16, 16, 2));
    assert!(!g.supports_2d_load(LoadTransform, 2, 16, 8, 1));
    assert!(g.supports_2d_load(LoadTranspose, 4, 8, 16, 1));
    assert!(!g.supports_2d_load(LoadTranspose, 4, 8, 8, 1));
    assert!(g.supports_2d_block(Store, 1, 32, 8, 1));
    assert!(g.supports_2d_block(Store, 4, 16, 4, 1));
    assert!(!g.supports_2d_block(Store, 4, 8, 4, 1));
    assert!(g.supports_2d_load(Prefetch, 1, 16, 32, 2));
    assert!(g.supports_2d_load(Prefetch, 4, 16, 1, 1));
    // Every generic shape is a PVC shape (the portable subset).
    for r in g.block_shapes {
        for &w in r.widths {
            for &h in r.heights {
                for &c in r.counts {
                    assert!(
                        t("pvc").supports_2d_block(r.op, r.elem, w, h, c),
                        "{:?} {}B {w}x{h}x{c}",
                        r.op,
                        r.elem
                    );
                }
            }
        }
    }
}

#[test]
fn no_2d_block_io_answers_no() {
    for n in ["dg2", "mtl"] {
        let x = t(n);
        assert!(x.block_shapes.is_empty());
        assert!(!x.supports_2d_load(Load, 2, 16, 8, 1));
        assert_eq!(x.max_block_count(Load, 2, 16, 8), None);
        assert!(!x.block_count_concatenates(2, 16, 32, 2, 16));
        assert!(
            x.block_count_concatenates(2, 16, 32, 1, 16),
            "count 1 is trivial"
        );
        assert!(x.describe().contains("2D block shapes:  none"));
    }
}

#[test]
fn max_block_count_queries() {
    let p = t("pvc");
    assert_eq!(p.max_block_count(Load, 2, 16, 32), Some(2));
    assert_eq!(p.max_block_count(Load, 2, 8, 32), Some(4));
    assert_eq!(p.max_block_count(Load, 1, 16, 8), Some(4));
    assert_eq!(p.max_block_count(Load, 4, 8, 8), Some(2));
    assert_eq!(p.max_block_count(Load, 8, 8, 8), Some(1));
    assert_eq!(p.max_block_count(LoadTranspose, 4, 8, 32), Some(1));
    assert_eq!(p.max_block_count(Store, 2, 16, 8), Some(1));
    assert_eq!(p.max_block_count(Load, 2, 16, 64), None);
    assert_eq!(t("generic").max_block_count(Load, 1, 16, 8), Some(4));
}

#[test]
fn block_count_register_rule() {
    let p = t("pvc");
    // 16b 16×32 block = 1024 B = 16 whole GRFs: concatenation holds.
    assert!(p.block_count_concatenates(2, 16, 32, 2, 16));
    // 16b 16×1 block = 32 B < 64 B GRF and SG16 × 2 B = 32 B ≠ 64: padding between blocks.
    assert!(!p.block_count_concatenates(2, 16, 1, 2, 16));
    // Same block on SIMD32: 32 × 2 B = 64 B = GRF ⇒ OK.
    assert!(p.block_count_concatenates(2, 16, 1, 2, 32));
    // 32b 8×1 = 32 B but SG16 × 4 B = 64 B ⇒ OK.
    assert!(p.block_count_concatenates(4, 8, 1, 2, 16));
    // 8b 16×2 = 32 B, SG16 × 1 = 16 ⇒ no; 8b 16×4 = 64 B ⇒ yes.
    assert!(!p.block_count_concatenates(1, 16, 2, 4, 16));
    assert!(p.block_count_concatenates(1, 16, 4, 4, 16));
    // Width padded to a power of two before the GRF rounding (§2.3 row pitch).
    assert!(p.block_count_concatenates(2, 12, 4, 2, 16));
}

#[test]
fn mma_tables() {
    let p = t("pvc");
    // §1.4 SG16 rows: M 1,2,4,8; N = 16; K 32 int8, 64 int4, 16 fp16/bf16, 8 tf32.
    for m in [1, 2, 4, 8] {
        assert!(p.supports_mma(16, m, 16, 16, MmaTypes::F16ToF32));
        assert!(p.supports_mma(16, m, 16, 32, MmaTypes::Int8ToInt32));
        assert!(p.supports_mma(16, m, 16, 8, MmaTypes::Tf32ToF32));
        assert!(p.supports_mma(16, m, 16, 16, MmaTypes::Bf16ToBf16));
    }
    assert!(!p.supports_mma(16, 16, 16, 16, MmaTypes::F16ToF32), "M ≤ 8");
    assert!(!p.supports_mma(16, 3, 16, 16, MmaTypes::F16ToF32));
    assert!(
        !p.supports_mma(16, 8, 8, 16, MmaTypes::F16ToF32),
        "N = subgroup size"
    );
    assert!(
        !p.supports_mma(8, 8, 8, 16, MmaTypes::F16ToF32),
        "no SIMD8 DPAS on PVC"
    );
    assert!(
        !p.supports_mma(16, 8, 16, 32, MmaTypes::F16ToF32),
        "K is fixed by type"
    );
    let d = t("dg2");
    assert!(d.supports_mma(8, 8, 8, 16, MmaTypes::F16ToF32));
    assert!(d.supports_mma(8, 4, 8, 64, MmaTypes::Int4ToInt32));
    assert!(
        !d.supports_mma(16, 8, 16, 16, MmaTypes::F16ToF32),
        "DG2 DPAS is SIMD8"
    );
    assert!(!d.supports_mma(8, 8, 8, 8, MmaTypes::Tf32ToF32));
    assert!(
        !d.supports_mma(8, 8, 8, 16, MmaTypes::F16ToF16),
        "f16 accumulate is SG16 only"
    );
    let m = t("mtl");
    assert!(!m.supports_mma(16, 8, 16, 16, MmaTypes::F16ToF32));
    assert!(!m.supports_mma(8, 8, 8, 16, MmaTypes::F16ToF32));
    let g = t("generic");
    assert!(g.supports_mma(8, 8, 8, 32, MmaTypes::Int8ToInt32));
    assert!(g.supports_mma(16, 8, 16, 8, MmaTypes::Tf32ToF32));
}

#[test]
fn mma_types_from_operand_masks() {
    assert_eq!(
        MmaTypes::from_operands(0xC00, Some(32)),
        Some(MmaTypes::F16ToF32)
    );
    assert_eq!(
        MmaTypes::from_operands(0xC00, Some(16)),
        Some(MmaTypes::F16ToF16)
    );
    assert_eq!(
        MmaTypes::from_operands(0x3000, Some(32)),
        Some(MmaTypes::Bf16ToF32)
    );
    assert_eq!(
        MmaTypes::from_operands(0x300C, None),
        Some(MmaTypes::Bf16ToBf16)
    );
    assert_eq!(
        MmaTypes::from_operands(0x33, None),
        Some(MmaTypes::Int8ToInt32)
    );
    assert_eq!(
        MmaTypes::from_operands(0x30, None),
        Some(MmaTypes::Int8ToInt32)
    );
    assert_eq!(
        MmaTypes::from_operands(0xC1, None),
        Some(MmaTypes::Int4ToInt32)
    );
    assert_eq!(
        MmaTypes::from_operands(0x300, Some(32)),
        Some(MmaTypes::Tf32ToF32)
    );
    assert_eq!(MmaTypes::from_operands(0, Some(32)), None);
    assert_eq!(
        MmaTypes::from_operands(0x50, None),
        None,
        "int8 × int4 mixed"
    );
    for ty in [
        MmaTypes::Int8ToInt32,
        MmaTypes::Int4ToInt32,
        MmaTypes::F16ToF32,
        MmaTypes::Tf32ToF32,
    ] {
        assert!(matches!(ty.k(), 8 | 16 | 32 | 64));
    }
}

#[test]
fn describe_is_readable() {
    let d = t("pvc").describe();
    for needle in [
        "subgroup sizes:   16,32",
        "GRF size:         64 bytes",
        "2D block IO:      yes",
        "load-transpose  4B  W 1,2,4,8",
        "SG16  M 1,2,4,8  N 16  K 16  f16*f16->f32",
    ] {
        assert!(d.contains(needle), "missing {needle:?} in\n{d}");
    }
    assert!(d.lines().all(|l| l == l.trim_end()));
    let m = t("mtl").describe();
    assert!(m.contains("MMA shapes:       none"));
}

#[test]
fn xe3_and_xe3p_profiles() {
    let (ptl, cri, bmg) = (t("ptl"), t("cri"), t("bmg"));
    // §5.1: Panther Lake has the Xe2 table; Crescent Island adds wide transposes and
    // 256-byte prefetch rows.
    assert_eq!(ptl.block_shapes, bmg.block_shapes);
    for x in [&ptl, &cri] {
        assert!(
            x.has_2d_block_io() && x.has_dpas() && x.has_tf32(),
            "{}",
            x.name
        );
        assert_eq!(x.grf_bytes, 64);
        assert_eq!(x.subgroup_sizes(), [16, 32]);
        assert!(
            x.supports_2d_load(LoadTransform, 1, 64, 16, 1),
            "{}",
            x.name
        );
        assert!(
            x.supports_mma(16, 8, 16, 8, MmaTypes::Tf32ToF32),
            "{}",
            x.name
        );
    }
    // Wide transposes (WideTransposeConstraints): d32 W 16, d64 H 16 W 8 — cri only.
    assert!(cri.supports_2d_load(LoadTranspose, 4, 16, 32, 1));
    assert!(cri.supports_2d_load(LoadTranspose, 8, 8, 16, 1));
    assert!(!cri.supports_2d_load(LoadTranspose, 8, 8, 4, 1));
    assert!(!ptl.supports_2d_load(LoadTranspose, 4, 16, 32, 1));
    assert!(!ptl.supports_2d_load(LoadTranspose, 8, 8, 8, 1));
    // 256-byte prefetch rows: W x C x elem == 256 exactly, C up to 4; never for loads.
    for (elem, w, c) in [
        (1, 256, 1),
        (1, 128, 2),
        (1, 64, 4),
        (2, 128, 1),
        (2, 32, 4),
    ] {
        assert!(
            cri.supports_2d_load(Prefetch, elem, w, 32, c),
            "{elem} {w} {c}"
        );
        assert!(
            !ptl.supports_2d_load(Prefetch, elem, w, 32, c),
            "{elem} {w} {c}"
        );
        assert!(
            !cri.supports_2d_load(Load, elem, w, 32, c),
            "{elem} {w} {c}"
        );
    }
    assert!(
        !cri.supports_2d_load(Prefetch, 1, 128, 8, 1),
        "128 bytes is neither <= 64 nor 256"
    );
    assert!(!cri.supports_2d_load(Prefetch, 4, 64, 8, 2), "512 bytes");
    assert!(!cri.supports_2d_load(Prefetch, 1, 256, 64, 1), "H <= 32");
    assert_eq!(cri.max_block_count(Prefetch, 1, 64, 8), Some(4));
    // §5.2: base alignment 4 on Xe3P only.
    assert_eq!(cri.block_base_alignment(), 4);
    for n in ["pvc", "bmg", "lnl", "ptl", "generic"] {
        assert_eq!(t(n).block_base_alignment(), 64, "{n}");
    }
    // §5.3: GRF modes.
    assert_eq!(cri.max_grf_per_thread(), 512);
    assert_eq!(ptl.max_grf_per_thread(), 256);
    assert_eq!(t("pvc").grf_modes, [128, 256]);
    assert_eq!(t("cpu").max_grf_per_thread(), 0);
    // The summary and description say it, from the same fields.
    let s = cri.summary();
    assert!(
        s.contains("256 B prefetch rows") && s.contains("4 B aligned") && s.contains("512-GRF")
    );
    let s = ptl.summary();
    assert!(!s.contains("256 B prefetch rows") && !s.contains("aligned") && !s.contains("512"));
    assert!(!t("pvc").summary().contains("256 B prefetch rows"));
    let d = cri.describe();
    for needle in [
        "2D block base:    4-byte aligned",
        "GRF modes:        32,64,96,128,160,192,256,512 registers/thread",
        "prefetch        1B  W 256",
        "[§5.2 (Triton PR #7697",
    ] {
        assert!(d.contains(needle), "missing {needle:?} in\n{d}");
    }
    assert!(t("dg2").describe().contains("2D block base:    n/a"));
}

#[test]
fn long_vectors_per_target() {
    // §6: IGC takes both extensions on every platform; Intel's OpenCL CPU runtime only
    // VectorAnyINTEL (measured).
    for target in Target::all() {
        assert!(target.features.vector_any_intel, "{}", target.name);
        assert_eq!(
            target.features.long_vector_ext,
            target.name != "cpu",
            "{}",
            target.name
        );
    }
    assert!(t("cpu")
        .describe()
        .contains("long vectors:     VectorAnyINTEL "));
    assert!(t("pvc")
        .describe()
        .contains("long vectors:     VectorAnyINTEL, LongVectorEXT"));
}
