//! What a target supports, as text: the one-line summary (`--list-targets`) and the whole
//! profile with sources (`--describe-target`), both generated from the tables.

use std::fmt::Write as _;

use super::{Target, SOURCES_FILE};
use crate::block_kind::BlockKind;

impl Target {
    /// One line of what the device supports, generated from the tables (`--list-targets`
    /// and the first line of `--describe-target` print it).
    pub fn summary(&self) -> String {
        let sg = self
            .subgroup_sizes
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/");
        let mut parts = vec![format!("SIMD{sg}"), format!("{} B GRF", self.grf_bytes)];
        parts.push(if !self.features.block_io_2d {
            "no 2D block IO".to_string()
        } else if self
            .block_shapes
            .iter()
            .any(|r| r.op == BlockKind::LoadTransform && r.widths.iter().any(|&w| w * r.elem > 32))
        {
            "2D block IO with wide VNNI transforms".to_string()
        } else {
            "2D block IO".to_string()
        });
        if self.features.dpas && !self.mma_shapes.is_empty() {
            let mut sizes: Vec<u32> = self.mma_shapes.iter().map(|m| m.subgroup_size).collect();
            sizes.sort_unstable();
            sizes.dedup();
            let sizes = sizes
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("/");
            let tf32 = if self.has_tf32() {
                "incl. tf32"
            } else {
                "no tf32"
            };
            parts.push(format!("SIMD{sizes} DPAS {tf32}"));
        } else {
            parts.push("no DPAS (MMA must be emulated)".to_string());
        }
        if !self.features.buffer_prefetch {
            parts.push("no buffer prefetch".to_string());
        }
        if self.block_shapes.iter().any(|r| {
            r.op == BlockKind::Prefetch
                && r.widths.iter().any(|&w| {
                    r.counts.iter().any(|&c| {
                        r.max_width_x_count.is_none_or(|m| w * c <= m)
                            && u64::from(w) * u64::from(c) * u64::from(r.elem) > 64
                    })
                })
        }) {
            parts.push("256 B prefetch rows".to_string());
        }
        if self.features.block_io_2d && self.block_base_align < 64 {
            parts.push(format!("2D block base {} B aligned", self.block_base_align));
        }
        if self.max_grf_per_thread() > 256 {
            parts.push(format!("{}-GRF mode", self.max_grf_per_thread()));
        }
        parts.join(", ")
    }

    /// The whole profile, readably (for `--describe-target`), each value with its source in
    /// brackets (sections of [`SOURCES_FILE`]).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let yes = |b: bool| if b { "yes" } else { "no" };
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let src = &self.sources;
        let _ = writeln!(s, "target {}: {}", self.name, self.description);
        let _ = writeln!(s, "  summary:          {}", self.summary());
        let _ = writeln!(
            s,
            "  sources:          {SOURCES_FILE}, sections in [brackets]; [inference] = our reading"
        );
        let row = |s: &mut String, key: &str, value: String, source: &str| {
            let _ = writeln!(s, "  {:<18}{:<24} [{source}]", format!("{key}:"), value);
        };
        row(
            &mut s,
            "subgroup sizes",
            list(self.subgroup_sizes),
            src.subgroup_sizes,
        );
        row(
            &mut s,
            "GRF size",
            format!("{} bytes", self.grf_bytes),
            src.grf,
        );
        row(
            &mut s,
            "2D block IO",
            yes(self.features.block_io_2d).into(),
            src.block_io_2d,
        );
        row(
            &mut s,
            "2D block base",
            if self.features.block_io_2d {
                format!("{}-byte aligned", self.block_base_align)
            } else {
                "n/a".into()
            },
            src.block_base_align,
        );
        row(
            &mut s,
            "GRF modes",
            if self.grf_modes.is_empty() {
                "n/a".into()
            } else {
                format!("{} registers/thread", list(self.grf_modes))
            },
            src.grf_modes,
        );
        let mut long = Vec::new();
        if self.features.vector_any_intel {
            long.push("VectorAnyINTEL");
        }
        if self.features.long_vector_ext {
            long.push("LongVectorEXT");
        }
        row(
            &mut s,
            "long vectors",
            if long.is_empty() {
                "no".into()
            } else {
                long.join(", ")
            },
            src.long_vectors,
        );
        row(&mut s, "DPAS", yes(self.features.dpas).into(), src.dpas);
        row(&mut s, "tf32 DPAS", yes(self.has_tf32()).into(), src.tf32);
        row(
            &mut s,
            "buffer prefetch",
            format!(
                "{} (NumBytes {})",
                yes(self.features.buffer_prefetch),
                list(self.prefetch_bytes)
            ),
            src.buffer_prefetch,
        );
        if self.block_shapes.is_empty() {
            let _ = writeln!(s, "  2D block shapes:  none [{}]", src.block_shapes);
        } else {
            let _ = writeln!(
                s,
                "  2D block shapes (elem bytes; widths; heights; counts; max width x count) [{}]:",
                src.block_shapes
            );
            for op in BlockKind::ALL {
                for r in self.block_shapes.iter().filter(|r| r.op == op) {
                    let line = format!(
                        "    {:<15} {}B  W {:<16} H {:<16} C {:<6} {}",
                        op.name(),
                        r.elem,
                        list(r.widths),
                        list(r.heights),
                        list(r.counts),
                        r.max_width_x_count
                            .map_or(String::new(), |m| format!("W*C <= {m}"))
                    );
                    let _ = writeln!(s, "{}", line.trim_end());
                }
            }
        }
        if self.mma_shapes.is_empty() || !self.features.dpas {
            let _ = writeln!(s, "  MMA shapes:       none [{}]", src.mma_shapes);
        } else {
            let _ = writeln!(s, "  MMA shapes (N = subgroup size) [{}]:", src.mma_shapes);
            for m in self.mma_shapes {
                let _ = writeln!(
                    s,
                    "    SG{:<3} M {:<8} N {:<3} K {:<3} {}",
                    m.subgroup_size,
                    list(m.m),
                    m.subgroup_size,
                    m.k,
                    m.types.name()
                );
            }
        }
        s
    }
}
