//! SPV_INTEL_subgroups buffer block reads / writes: strided distribution, alignment, bounds.

use spvopt_sim::block_io_1d::{block_read, block_write, bytes_per_invocation};
use spvopt_sim::error::{SimError, SubgroupIssue};
use spvopt_sim::memory::{AllocKind, Memory};
use spvopt_sim::subgroup::Subgroup;

fn buffer(len: u64) -> (Memory, u64) {
    let mut mem = Memory::new();
    let base = mem
        .alloc(len, 4096, AllocKind::Global { arg: 0 }, "buf")
        .unwrap();
    for i in 0..len {
        mem.write_u8(base + i, i as u8).unwrap();
    }
    (mem, base)
}

#[test]
fn read_component_j_of_invocation_i_is_element_j_sg_plus_i() {
    let (mem, base) = buffer(1024);
    for (es, comps, n) in [
        (4u32, 2u32, 4u32),
        (2, 8, 16),
        (1, 16, 16),
        (8, 4, 8),
        (4, 1, 16),
    ] {
        let r = block_read(&mem, base + 64, es, comps, Subgroup::full(n)).unwrap();
        assert_eq!(r.data.len(), n as usize);
        for (i, d) in r.data.iter().enumerate() {
            assert_eq!(d.len(), bytes_per_invocation(es, comps));
            for j in 0..comps as usize {
                let elem = j * n as usize + i;
                for b in 0..es as usize {
                    assert_eq!(d[j * es as usize + b], (64 + elem * es as usize + b) as u8);
                }
            }
        }
        let total = (es * comps * n) as u64;
        let lines: Vec<u64> = (0..total.div_ceil(64))
            .map(|l| base + 64 + 64 * l)
            .collect();
        assert_eq!(r.lines, lines);
    }
}

#[test]
fn write_is_the_inverse_of_read() {
    let (mut mem, base) = buffer(1024);
    let r = block_read(&mem, base + 16, 2, 4, Subgroup::full(8)).unwrap();
    let dst = mem
        .alloc(256, 64, AllocKind::Global { arg: 1 }, "dst")
        .unwrap();
    let lines = block_write(&mut mem, dst + 32, 2, 4, Subgroup::full(8), &r.data).unwrap();
    assert_eq!(lines, vec![dst, dst + 64]);
    let out = mem.bytes_of(dst).unwrap();
    for (i, &b) in out.iter().enumerate() {
        let want = if (32..96).contains(&i) {
            (16 + i - 32) as u8
        } else {
            0
        };
        assert_eq!(b, want, "byte {i}");
    }
}

#[test]
fn alignment_rules() {
    let (mut mem, base) = buffer(1024);
    let sg = Subgroup::full(16);
    assert!(block_read(&mem, base + 4, 2, 1, sg).is_ok());
    assert!(matches!(
        block_read(&mem, base + 2, 2, 1, sg),
        Err(SimError::Misaligned { align: 4, .. })
    ));
    assert!(matches!(
        block_read(&mem, base + 4, 8, 1, sg),
        Err(SimError::Misaligned { align: 8, .. })
    ));
    let data = vec![vec![0u8; 4]; 16];
    assert!(block_write(&mut mem, base + 16, 4, 1, sg, &data).is_ok());
    assert!(matches!(
        block_write(&mut mem, base + 4, 4, 1, sg, &data),
        Err(SimError::Misaligned { align: 16, .. })
    ));
}

#[test]
fn bounds_subgroup_and_shape_errors() {
    let (mut mem, base) = buffer(256);
    let sg = Subgroup::full(16);
    // 4 x 16 x 4 = 256 bytes fit exactly; one more component does not
    assert!(block_read(&mem, base, 4, 4, sg).is_ok());
    assert!(matches!(
        block_read(&mem, base, 4, 5, sg),
        Err(SimError::OutOfBounds { .. })
    ));
    assert!(matches!(
        block_read(&mem, 0, 4, 1, sg),
        Err(SimError::NullAccess { .. })
    ));
    assert!(matches!(
        block_read(
            &mem,
            base,
            4,
            1,
            Subgroup {
                size: 12,
                max_size: 16
            }
        ),
        Err(SimError::Subgroup {
            issue: SubgroupIssue::Partial,
            ..
        })
    ));
    assert!(matches!(
        block_read(&mem, base, 3, 1, sg),
        Err(SimError::BlockIo1d { .. })
    ));
    assert!(matches!(
        block_read(&mem, base, 4, 0, sg),
        Err(SimError::BlockIo1d { .. })
    ));
    assert!(matches!(
        block_read(&mem, base, 4, 1 << 20, sg),
        Err(SimError::BlockIo1d { .. })
    ));
    let data = vec![vec![0u8; 8]; 16];
    assert!(matches!(
        block_write(&mut mem, base, 4, 1, sg, &data),
        Err(SimError::DataSize {
            expected: 4,
            got: 8,
            ..
        })
    ));
    assert!(matches!(
        block_write(&mut mem, base, 8, 1, sg, &data[..3]),
        Err(SimError::InvocationCount {
            expected: 16,
            got: 3,
            ..
        })
    ));
    // a faulting write changes nothing
    let big = vec![vec![0xffu8; 20]; 16];
    assert!(block_write(&mut mem, base + 16, 4, 5, sg, &big).is_err());
    assert_eq!(mem.read_u8(base + 16).unwrap(), 16);
}
