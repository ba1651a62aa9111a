//! `fuse-block-loads` reaches the fewest 2D block messages the target allows.
//!
//! Every positive `fuse_block_loads_*` fixture (no `; EXPECT: unchanged`) states, in `; GROUP:`
//! lines, the groups of column-adjacent blocks it loads or prefetches:
//! `; GROUP: load|transform|prefetch ELEM W H COUNTS` (COUNTS: the Block Counts of the members
//! in column order, e.g. `1,1,1`), and in `; REUSED: N` how many loads repeat an earlier one
//! exactly. This test checks those lines against the input (every load/prefetch belongs to a
//! group), runs the pass with the fixture's target, and requires the output to have exactly the
//! minimum number of load and prefetch messages per shape, computed here from the target's
//! tables alone (`supports_2d_block`, `block_count_concatenates`), independently of the pass:
//! a group of members can only become messages that each take a contiguous run of members
//! (in column order) whose total count the target supports, so the minimum is a shortest
//! partition of the member sequence into supported runs (dynamic programming). Prefetch runs
//! are supported when one prefetch `W·total` wide or one of `total` blocks is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::Target;
use spvopt_ir::spirv::Op;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Pipeline};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/passes")
}

/// Every `fuse_block_loads_*.spvasm` fixture, sorted.
fn fuse_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixture directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "spvasm")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("fuse_block_loads_"))
        })
        .collect();
    v.sort();
    v
}

fn is_positive(source: &str) -> bool {
    spvopt_tests::directive(source, "EXPECT") != Some("unchanged")
}

/// The shape key messages are counted under: op, element size, width (0 for prefetches, whose
/// width the fusion changes), height.
type Key = (&'static str, u32, u32, u32);

struct Group {
    op: BlockKind,
    elem: u32,
    width: u32,
    height: u32,
    counts: Vec<u32>,
}

impl Group {
    fn key(&self) -> Key {
        key(self.op, self.elem, self.width, self.height)
    }
}

fn key(op: BlockKind, elem: u32, width: u32, height: u32) -> Key {
    let w = if op == BlockKind::Prefetch { 0 } else { width };
    (op.name(), elem, w, height)
}

fn parse_groups(source: &str) -> Result<(Vec<Group>, u32), String> {
    let mut groups = Vec::new();
    let mut reused = 0;
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix(';').map(str::trim_start) else {
            continue;
        };
        if let Some(r) = rest.strip_prefix("REUSED:") {
            reused += r.trim().parse::<u32>().map_err(|e| e.to_string())?;
            continue;
        }
        let Some(r) = rest.strip_prefix("GROUP:") else {
            continue;
        };
        let f: Vec<&str> = r.split_whitespace().collect();
        if f.len() != 5 {
            return Err(format!("bad GROUP line: {line}"));
        }
        let op = match f[0] {
            "load" => BlockKind::Load,
            "transform" => BlockKind::LoadTransform,
            "prefetch" => BlockKind::Prefetch,
            o => return Err(format!("bad GROUP op {o}")),
        };
        let num = |s: &str| s.parse::<u32>().map_err(|e| format!("{line}: {e}"));
        let counts = f[4].split(',').map(num).collect::<Result<Vec<_>, _>>()?;
        groups.push(Group {
            op,
            elem: num(f[1])?,
            width: num(f[2])?,
            height: num(f[3])?,
            counts,
        });
    }
    Ok((groups, reused))
}

/// Whether one message may carry a run of `total` blocks of the group's shape.
fn run_supported(t: &Target, g: &Group, total: u32, sg: u32) -> bool {
    if g.op == BlockKind::Prefetch {
        t.supports_2d_block(g.op, g.elem, g.width * total, g.height, 1)
            || t.supports_2d_block(g.op, g.elem, g.width, g.height, total)
    } else {
        t.supports_2d_block(g.op, g.elem, g.width, g.height, total)
            && t.block_count_concatenates(g.elem, g.width, g.height, total, sg)
    }
}

/// Fewest messages covering the members: shortest partition of the member sequence into
/// contiguous runs the target supports (a single member is always one message).
fn min_messages(t: &Target, g: &Group, sg: u32) -> u32 {
    let n = g.counts.len();
    let mut best = vec![u32::MAX; n + 1];
    best[0] = 0;
    for end in 1..=n {
        for start in 0..end {
            if best[start] == u32::MAX {
                continue;
            }
            let total: u32 = g.counts[start..end].iter().sum();
            if end - start == 1 || run_supported(t, g, total, sg) {
                best[end] = best[end].min(best[start] + 1);
            }
        }
    }
    best[n]
}

/// Load and prefetch messages of `m` by shape key (prefetch widths ignored), plus how many
/// blocks each key's messages carry in total.
fn messages(m: &Module) -> BTreeMap<Key, (u32, u32)> {
    let mut out: BTreeMap<Key, (u32, u32)> = BTreeMap::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                let op = match inst.op() {
                    Some(Op::Subgroup2DBlockLoadINTEL) => BlockKind::Load,
                    Some(Op::Subgroup2DBlockLoadTransformINTEL) => BlockKind::LoadTransform,
                    Some(Op::Subgroup2DBlockLoadTransposeINTEL) => BlockKind::LoadTranspose,
                    Some(Op::Subgroup2DBlockPrefetchINTEL) => BlockKind::Prefetch,
                    _ => continue,
                };
                let c = |k: usize| {
                    inst.operand_id(k)
                        .and_then(|id| m.const_int_value(id))
                        .expect("constant block shape") as u32
                };
                let (elem, w, h, count) = (c(0), c(1), c(2), c(3));
                let e = out.entry(key(op, elem, w, h)).or_default();
                e.0 += 1;
                e.1 += if op == BlockKind::Prefetch {
                    w * count
                } else {
                    count
                };
            }
        }
    }
    out
}

fn subgroup_size(source: &str) -> u32 {
    source
        .lines()
        .find_map(|l| {
            l.split_once("OpExecutionMode")
                .and_then(|(_, r)| r.split_once("SubgroupSize"))
                .and_then(|(_, n)| n.trim().parse().ok())
        })
        .unwrap_or(16)
}

fn check_fixture(path: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let target =
        spvopt_tests::directive(&source, "TARGET").map_or_else(Target::default, Target::named);
    let sg = subgroup_size(&source);
    let (groups, reused) = parse_groups(&source)?;
    if groups.is_empty() {
        return Err("positive fixture without ; GROUP: lines".into());
    }
    if !path.with_extension("launch.json").exists() {
        return Err("positive fixture without a .launch.json".into());
    }
    let words = text::assemble(&source, TargetEnv::Universal_1_4).map_err(|e| e.to_string())?;
    let mut m = spvopt_ir::load_words(&words).map_err(|e| e.to_string())?;

    // The GROUP lines describe the input: per key, the member messages and blocks (prefetch
    // blocks in elements of width), plus the repeated loads.
    let before = messages(&m);
    let mut declared: BTreeMap<Key, (u32, u32)> = BTreeMap::new();
    let mut expected: BTreeMap<Key, u32> = BTreeMap::new();
    for g in &groups {
        let d = declared.entry(g.key()).or_default();
        d.0 += g.counts.len() as u32;
        d.1 += g
            .counts
            .iter()
            .map(|&c| {
                if g.op == BlockKind::Prefetch {
                    c * g.width
                } else {
                    c
                }
            })
            .sum::<u32>();
        *expected.entry(g.key()).or_default() += min_messages(&target, g, sg);
    }
    let in_messages: u32 = before.values().map(|v| v.0).sum();
    let declared_messages: u32 = declared.values().map(|v| v.0).sum();
    if in_messages != declared_messages + reused
        || declared.keys().any(|k| !before.contains_key(k))
        || before.keys().any(|k| !declared.contains_key(k))
    {
        return Err(format!(
            "GROUP/REUSED lines do not describe the input: input {before:?}, declared \
             {declared:?} + {reused} reused"
        ));
    }

    let pipeline = Pipeline::parse("fuse-block-loads").map_err(|e| e.to_string())?;
    run_pipeline(
        &pipeline,
        &mut m,
        &target,
        &mut spvopt_tests::checked_hooks(),
    )
    .map_err(|e| e.to_string())?;
    let after = messages(&m);
    let actual: BTreeMap<Key, u32> = after.iter().map(|(k, v)| (*k, v.0)).collect();
    if actual != expected {
        return Err(format!(
            "messages after fusion {actual:?}, minimum for {} {expected:?}",
            target.name
        ));
    }
    // Fusion keeps every block: the blocks carried per key are those of the distinct members.
    for (k, (_, blocks)) in &declared {
        if after.get(k).map(|v| v.1) != Some(*blocks) {
            return Err(format!(
                "blocks carried for {k:?}: {:?}, expected {blocks}",
                after.get(k)
            ));
        }
    }
    Ok(())
}

#[test]
fn fuse_fixtures_reach_minimum_messages() {
    let fixtures = fuse_fixtures();
    let positive: Vec<&PathBuf> = fixtures
        .iter()
        .filter(|p| is_positive(&std::fs::read_to_string(p).unwrap_or_default()))
        .collect();
    assert!(
        positive.len() >= 15,
        "expected the positive fuse-block-loads fixtures, found {}",
        positive.len()
    );
    let failures: Vec<String> = positive
        .iter()
        .filter_map(|p| {
            check_fixture(p)
                .err()
                .map(|e| format!("{}: {e}", p.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} fixture(s) not at the minimum:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The fuse fixtures through the shared fixture runner (CHECK lines, validation, idempotence,
/// simulator equivalence), found from this crate's own directory.
#[test]
fn fuse_fixtures_run() {
    let fixtures = fuse_fixtures();
    let negative = fixtures
        .iter()
        .filter(|p| !is_positive(&std::fs::read_to_string(p).unwrap_or_default()))
        .count();
    assert!(
        fixtures.len() >= 25 && negative >= 10,
        "expected >= 25 fuse fixtures with >= 10 negative, found {} ({negative} negative)",
        fixtures.len()
    );
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|p| {
            spvopt_tests::run_fixture(p)
                .err()
                .map(|e| format!("{}: {e}", p.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The minimum computation itself, on hand-checked PVC cases.
#[test]
fn min_messages_table() {
    let pvc = Target::pvc();
    let g = |op, elem, width, height, counts: &[u32]| Group {
        op,
        elem,
        width,
        height,
        counts: counts.to_vec(),
    };
    // 8-bit W16: counts 1, 2, 4 (W*C <= 64).
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Load, 1, 16, 8, &[1, 1, 1, 1]), 16),
        1
    );
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Load, 1, 16, 8, &[1, 1, 1]), 16),
        2
    );
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Load, 1, 16, 16, &[2, 1, 1]), 16),
        1
    );
    // 16-bit W16: W*C <= 32, so pairs.
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Load, 2, 16, 16, &[1, 1, 1, 1]), 16),
        2
    );
    // 16-bit W8 H2: 32-byte blocks do not fill a 64-byte GRF: no fusion.
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Load, 2, 8, 2, &[1, 1]), 16),
        2
    );
    // 16-bit prefetch W16 x4: at most 32 wide.
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Prefetch, 2, 16, 16, &[1, 1, 1, 1]), 16),
        2
    );
    assert_eq!(
        min_messages(&pvc, &g(BlockKind::Prefetch, 1, 16, 8, &[1, 1, 1, 1]), 16),
        1
    );
}
