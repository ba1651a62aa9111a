//! Every restriction of the spec and the subgroup reported as a typed error.

use super::*;

fn limit_of(op: Block2dOp, p: &Block2dParams, n: Subgroup) -> Block2dLimit {
    match layout(op, p, n) {
        Err(SimError::Block2d { limit, op: name }) => {
            assert_eq!(name, op.name());
            limit
        }
        other => panic!("expected a 2D block limit, got {other:?}"),
    }
}

#[test]
fn every_restriction_is_reported() {
    let base = 0x10_0000;
    let ok = params(2, 16, 8, 1, base);
    use Block2dOp::*;
    for op in [Load, LoadTransform, LoadTranspose, Store, Prefetch] {
        assert!(layout(op, &ok, sg(16)).is_ok(), "{op:?}");
    }
    let with = |f: &dyn Fn(&mut Block2dParams)| {
        let mut p = ok;
        f(&mut p);
        p
    };
    let cases: Vec<(Block2dOp, Block2dParams, Block2dLimit)> = vec![
        (
            Load,
            with(&|p| p.element_size = 3),
            Block2dLimit::ElementSize { element_size: 3 },
        ),
        (
            Load,
            with(&|p| p.element_size = 16),
            Block2dLimit::ElementSize { element_size: 16 },
        ),
        (
            Load,
            with(&|p| p.block_width = 0),
            Block2dLimit::ZeroBlockDimension {
                block_width: 0,
                block_height: 8,
                block_count: 1,
            },
        ),
        (
            Store,
            with(&|p| p.block_count = 0),
            Block2dLimit::ZeroBlockDimension {
                block_width: 16,
                block_height: 8,
                block_count: 0,
            },
        ),
        (
            Load,
            with(&|p| p.block_width = 15),
            Block2dLimit::BlockWidthMultiple {
                block_width: 15,
                element_size: 2,
                multiple: 2,
            },
        ),
        (
            Prefetch,
            with(&|p| {
                p.element_size = 1;
                p.block_width = 6
            }),
            Block2dLimit::BlockWidthMultiple {
                block_width: 6,
                element_size: 1,
                multiple: 4,
            },
        ),
        (
            Load,
            with(&|p| p.x = 3),
            Block2dLimit::CoordinateX {
                x: 3,
                element_size: 2,
                multiple: 2,
            },
        ),
        (
            LoadTransform,
            with(&|p| {
                p.element_size = 1;
                p.x = -2
            }),
            Block2dLimit::CoordinateX {
                x: -2,
                element_size: 1,
                multiple: 4,
            },
        ),
        (
            Load,
            with(&|p| p.base = base + 32),
            Block2dLimit::BaseAlignment {
                base: base + 32,
                alignment: 64,
            },
        ),
        (
            Store,
            with(&|p| p.base = base + 8),
            Block2dLimit::BaseAlignment {
                base: base + 8,
                alignment: 64,
            },
        ),
        (
            Load,
            with(&|p| p.memory_width = 63),
            Block2dLimit::MemoryWidth { memory_width: 63 },
        ),
        (
            Load,
            with(&|p| {
                p.memory_width = (1 << 24) + 8;
                p.memory_pitch = (1 << 24) + 8
            }),
            Block2dLimit::MemoryWidth {
                memory_width: (1 << 24) + 8,
            },
        ),
        (
            Load,
            with(&|p| p.memory_width = -64),
            Block2dLimit::MemoryWidth { memory_width: -64 },
        ),
        (
            Load,
            with(&|p| p.memory_height = 0),
            Block2dLimit::MemoryHeight { memory_height: 0 },
        ),
        (
            Load,
            with(&|p| p.memory_height = (1 << 24) + 1),
            Block2dLimit::MemoryHeight {
                memory_height: (1 << 24) + 1,
            },
        ),
        (
            Load,
            with(&|p| p.memory_pitch = 120),
            Block2dLimit::PitchBelowWidth {
                memory_pitch: 120,
                memory_width: 128,
            },
        ),
        (
            Load,
            with(&|p| p.memory_pitch = 132),
            Block2dLimit::PitchMultiple { memory_pitch: 132 },
        ),
        (
            LoadTransform,
            with(&|p| p.element_size = 4),
            Block2dLimit::TransformElementSize { element_size: 4 },
        ),
        (
            Load,
            with(&|p| {
                p.block_height = 1 << 20;
            }),
            Block2dLimit::TooLarge {
                bytes: 16 * 2 * (1 << 20),
            },
        ),
        (
            LoadTranspose,
            with(&|p| {
                p.block_height = u32::MAX;
            }),
            Block2dLimit::TooLarge {
                bytes: 16 * 2 * u32::MAX as u64,
            },
        ),
        (
            // 840000 bytes unpadded, 1120000 once the width pads from 3 to 4
            Load,
            with(&|p| {
                p.element_size = 4;
                p.block_width = 3;
                p.block_height = 70000;
            }),
            Block2dLimit::TooLarge { bytes: 1_120_000 },
        ),
    ];
    for (op, p, want) in cases {
        assert_eq!(limit_of(op, &p, sg(16)), want, "{op:?} {p:?}");
        let msg = SimError::Block2d {
            op: op.name(),
            limit: want,
        }
        .to_string();
        assert!(!msg.contains('\n'), "{msg}");
    }
    // pitch equal to width and a multiple of 8 is fine, as are wide surfaces
    assert!(layout(Load, &with(&|p| p.memory_pitch = 128), sg(16)).is_ok());
    assert!(layout(
        Load,
        &with(&|p| {
            p.memory_width = 1 << 24;
            p.memory_pitch = 1 << 24
        }),
        sg(16)
    )
    .is_ok());
    assert!(layout(Load, &with(&|p| p.memory_height = 1 << 24), sg(16)).is_ok());
}

#[test]
fn subgroup_restrictions() {
    let p = params(4, 8, 8, 1, 0x10_0000);
    let issue = |s: Subgroup| match layout(Block2dOp::Load, &p, s) {
        Err(SimError::Subgroup { issue, .. }) => issue,
        other => panic!("{other:?}"),
    };
    assert_eq!(issue(sg(12)), SubgroupIssue::MaxSizeNotPowerOfTwo);
    assert_eq!(
        issue(Subgroup {
            size: 8,
            max_size: 16
        }),
        SubgroupIssue::Partial
    );
    assert_eq!(issue(sg(0)), SubgroupIssue::Empty);
    assert_eq!(issue(sg(1 << 12)), SubgroupIssue::TooLarge);
    assert!(layout(Block2dOp::Load, &p, sg(1)).is_ok());
}

#[test]
fn a_device_may_need_less_base_alignment() {
    // Xe3P (Triton PR #7697): 4-byte aligned bases; the extension's 64 stays the default.
    let mut p = params(2, 16, 8, 1, 0x10_0024);
    assert_eq!(
        limit_of(Block2dOp::Load, &p, sg(16)),
        Block2dLimit::BaseAlignment {
            base: 0x10_0024,
            alignment: 64
        }
    );
    p.base_alignment = 4;
    assert!(layout(Block2dOp::Load, &p, sg(16)).is_ok());
    p.base = 0x10_0026;
    let l = limit_of(Block2dOp::Store, &p, sg(16));
    assert_eq!(
        l,
        Block2dLimit::BaseAlignment {
            base: 0x10_0026,
            alignment: 4
        }
    );
    assert_eq!(l.to_string(), "base address 0x100026 is not 4-byte aligned");
}

#[test]
fn invocation_pointer_alignment() {
    let p = params(4, 8, 8, 1, 0x10_0000);
    assert!(check_invocation_pointer(Block2dOp::Load, &p, 0x2004).is_ok());
    assert_eq!(
        check_invocation_pointer(Block2dOp::Store, &p, 0x2002),
        Err(SimError::Block2d {
            op: "OpSubgroup2DBlockStoreINTEL",
            limit: Block2dLimit::InvocationPointerAlignment {
                addr: 0x2002,
                element_size: 4
            }
        })
    );
    assert!(check_invocation_pointer(Block2dOp::Prefetch, &p, 0x2002).is_ok());
}

#[test]
fn huge_coordinates_do_not_overflow() {
    let (mem, base) = surface(4);
    for (x, y) in [
        (i64::MAX - 3, 0),
        (i64::MIN, i64::MIN),
        (0, i64::MAX),
        (-4, i64::MAX - 1),
    ] {
        let mut p = params(4, 8, 4, 4, base);
        p.x = x - x.rem_euclid(4);
        p.y = y;
        let r = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap();
        assert!(r.lines.is_empty(), "{x} {y}");
    }
}
