//! Counting one kernel's GEN ISA, as `ocloc disasm` prints it (`.text.<kernel>.asm`).
//!
//! The rules of the reference counter script `isa_stats.py` (checked by hand against dumps): an instruction
//! is every line that is not a label (`L123:`), blank, a comment or `illegal` (padding), minus
//! IGC's signature after the last end-of-thread send (`nop`, `mov (16|M0) null<1>:ud imm`); a send
//! is an opcode starting with `send`, classified by the message the disassembler prints after
//! `//` (the text after the last `;`) and by its destination (`null`: a prefetch); a loop is
//! the range between a backward branch (`jmpi`/`goto`/`while`/`brc`/`brd` to a label at or before
//! it) and its target, offsets counted as 16 bytes an instruction, 8 when `{Compacted}`.

use std::collections::BTreeMap;

use serde::Serialize;

/// What a send instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SendKind {
    /// 2D block load with a destination.
    Load2d,
    /// 2D block load to `null`: a prefetch.
    Prefetch2d,
    Store2d,
    SlmLoad,
    SlmStore,
    SlmAtomic,
    /// Per-lane global load (LSC `load.ugm`, not transposed).
    GlobalGather,
    GlobalScatter,
    /// Transposed LSC load/store (one address, a block): a 1D block read/write.
    GlobalBlockLoad,
    GlobalBlockStore,
    Prefetch1d,
    GlobalAtomic,
    /// The per-thread / cross-thread payload (local ids, arguments).
    PayloadLoad,
    /// Register spill (scratch write).
    SpillStore,
    /// Register fill (scratch read).
    Fill,
    Fence,
    BarrierSignal,
    EndOfThread,
    Other,
}

impl SendKind {
    /// The kind of the send on `line` (the whole disassembly line).
    pub fn of_line(line: &str) -> SendKind {
        let (code, comment) = line.split_once("//").unwrap_or((line, ""));
        let desc = comment
            .rsplit(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_lowercase();
        let null_dst = destination(code).is_some_and(|d| d.starts_with("null"));
        let transposed = is_transposed(&desc);
        if desc.contains("scratch") || desc.contains(".ss[") {
            return if desc.contains("write") || desc.starts_with("store") {
                SendKind::SpillStore
            } else {
                SendKind::Fill
            };
        }
        if desc.contains("load_block2d") {
            return if null_dst {
                SendKind::Prefetch2d
            } else {
                SendKind::Load2d
            };
        }
        if desc.contains("store_block2d") {
            return SendKind::Store2d;
        }
        if desc.contains("end of thread") || desc == "eot" {
            return SendKind::EndOfThread;
        }
        if desc.contains("barrier") {
            return SendKind::BarrierSignal;
        }
        if desc.contains("fence") {
            return SendKind::Fence;
        }
        if desc.contains("atomic") {
            return if desc.contains(".slm") {
                SendKind::SlmAtomic
            } else {
                SendKind::GlobalAtomic
            };
        }
        if desc.contains(".slm") {
            return match () {
                _ if desc.starts_with("load") => SendKind::SlmLoad,
                _ if desc.starts_with("store") => SendKind::SlmStore,
                _ => SendKind::Other,
            };
        }
        if desc.starts_with("load") && desc.contains(".ugm") {
            return match () {
                _ if desc.contains("bti[255]") && desc.contains(".a32") => SendKind::PayloadLoad,
                _ if null_dst => SendKind::Prefetch1d,
                _ if transposed => SendKind::GlobalBlockLoad,
                _ => SendKind::GlobalGather,
            };
        }
        if desc.starts_with("store") && desc.contains(".ugm") {
            return if transposed {
                SendKind::GlobalBlockStore
            } else {
                SendKind::GlobalScatter
            };
        }
        SendKind::Other
    }
}

/// The destination operand: the first word after the `(N|Mx)` execution size.
fn destination(code: &str) -> Option<&str> {
    let rest = &code[code.find(')')? + 1..];
    rest.split_whitespace().next()
}

/// LSC data size `.d32x16t` (the trailing `t`: transposed), `.d16u32x8t` likewise.
fn is_transposed(desc: &str) -> bool {
    desc.split([' ', ','])
        .flat_map(|w| w.split('.'))
        .any(|part| {
            let Some(body) = part.strip_prefix('d').and_then(|b| b.strip_suffix('t')) else {
                return false;
            };
            let Some((size, count)) = body.split_once('x') else {
                return false;
            };
            let size = size.split_once('u').map_or(size, |(s, _)| s);
            !size.is_empty()
                && size.bytes().all(|b| b.is_ascii_digit())
                && !count.is_empty()
                && count.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Counts over a range of instructions (a kernel, or one loop's body).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub instructions: usize,
    pub sends: BTreeMap<SendKind, usize>,
    pub send_total: usize,
    pub dpas: usize,
    /// `sync.bar` (barrier waits).
    pub barrier_waits: usize,
}

impl Counts {
    /// Sends of `kind`.
    pub fn sends_of(&self, kind: SendKind) -> usize {
        self.sends.get(&kind).copied().unwrap_or(0)
    }

    /// Spill messages (stores to scratch).
    pub fn spills(&self) -> usize {
        self.sends_of(SendKind::SpillStore)
    }

    /// Fill messages (loads from scratch).
    pub fn fills(&self) -> usize {
        self.sends_of(SendKind::Fill)
    }

    fn add(&mut self, op: &str, line: &str) {
        self.instructions += 1;
        if op.starts_with("send") {
            *self.sends.entry(SendKind::of_line(line)).or_default() += 1;
            self.send_total += 1;
        }
        if op.contains("dpas") {
            self.dpas += 1;
        }
        if op.starts_with("sync.bar") {
            self.barrier_waits += 1;
        }
    }
}

/// One loop: a backward branch at byte offset `to` to the label at `from`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoopCounts {
    pub from: u32,
    pub to: u32,
    pub counts: Counts,
}

/// One kernel's ISA counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelIsa {
    pub counts: Counts,
    /// Innermost first is not guaranteed: in order of the branch's target offset.
    pub loops: Vec<LoopCounts>,
}

struct Line<'a> {
    offset: u32,
    op: &'a str,
    text: &'a str,
}

/// Counts the disassembly `text` of one kernel.
pub fn parse_kernel_asm(text: &str) -> KernelIsa {
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut offset = 0u32;
    for raw in text.lines() {
        let s = raw.trim();
        if s.is_empty() || s.starts_with("//") {
            continue;
        }
        if let Some(label) = s.strip_prefix('L').and_then(|r| r.strip_suffix(':')) {
            if let Ok(at) = label.trim().parse::<u32>() {
                offset = at;
                continue;
            }
        }
        let body = match s.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or("", |(_, b)| b.trim()),
            None => s,
        };
        let op = body.split_whitespace().next().unwrap_or("");
        if op == "illegal" || op.is_empty() {
            continue;
        }
        lines.push(Line {
            offset,
            op,
            text: raw,
        });
        offset += if is_compacted(raw) { 8 } else { 16 };
    }
    drop_signature(&mut lines);
    let mut counts = Counts::default();
    for l in &lines {
        counts.add(l.op, l.text);
    }
    let mut ranges: Vec<(u32, u32)> = lines
        .iter()
        .filter(|l| is_branch(l.op))
        .filter_map(|l| {
            let code = l.text.split("//").next().unwrap_or("");
            let back = label_refs(code).filter(|&t| t <= l.offset).min()?;
            Some((back, l.offset))
        })
        .collect();
    ranges.sort_unstable();
    ranges.dedup();
    let loops = ranges
        .into_iter()
        .map(|(from, to)| {
            let mut c = Counts::default();
            for l in lines.iter().filter(|l| (from..=to).contains(&l.offset)) {
                c.add(l.op, l.text);
            }
            LoopCounts {
                from,
                to,
                counts: c,
            }
        })
        .collect();
    KernelIsa { counts, loops }
}

fn is_compacted(line: &str) -> bool {
    line.split('{').skip(1).any(|opts| {
        opts.split('}')
            .next()
            .is_some_and(|o| o.contains("Compacted"))
    })
}

fn is_eot(line: &str) -> bool {
    line.split('{')
        .skip(1)
        .any(|opts| opts.split('}').next().is_some_and(|o| o.contains("EOT")))
}

fn is_branch(op: &str) -> bool {
    matches!(
        op.split('.').next().unwrap_or(""),
        "jmpi" | "goto" | "while" | "brc" | "brd"
    )
}

/// The numbers of the `L<n>` label references in `code`.
fn label_refs(code: &str) -> impl Iterator<Item = u32> + '_ {
    code.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| w.strip_prefix('L')?.parse().ok())
}

/// IGC's signature after the last end-of-thread send: not code.
fn drop_signature(lines: &mut Vec<Line<'_>>) {
    let Some(eot) = lines.iter().rposition(|l| is_eot(l.text)) else {
        return;
    };
    let tail = &lines[eot + 1..];
    let signature = |l: &Line<'_>| {
        l.op == "nop"
            || (l.op == "mov"
                && l.text.split(')').skip(1).any(|r| {
                    r.starts_with(char::is_whitespace) && r.trim_start().starts_with("null<")
                }))
    };
    if !tail.is_empty() && tail.iter().all(signature) {
        lines.truncate(eot + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "\
L0:
(W)     mov (16|M0)              r1.0<1>:ud    r0.0<1;1,0>:ud
L16:
        send.ugm (16|M0)         r10  r12  null:0  0x0  0x08200580  // wr:2+0, rd:2; load.ugm.d32x16t.a64
        send.ugm (16|M0)         null r12  null:0  0x0  0x0  // wr:1+0, rd:0; load_block2d.ugm.d16.a64
        send.ugm (16|M0)         r20  r12  null:0  0x0  0x0  // wr:1+0, rd:8; load_block2d.ugm.d16.a64
        dpas.8x8 (16|M0)         r30:f r30:f r20:hf r10:hf {Atomic}
        send.ugm (16|M0)         r40  r12  null:0  0x0  0x0  // wr:2+0, rd:2; load.ugm.d32.a64
        sync.bar                 null {Compacted}
(f0.0)  jmpi                     L16
L120:
        send.ugm (16|M0)         null r12  r40:2  0x0  0x0  // wr:2+2, rd:0; store.ugm.d32.a64
        send.gtwy (1|M0)         null r112 null:0  0x0  0x0  // wr:1+0, rd:0; end of thread {EOT}
        illegal
        nop
(W)     mov (16|M0)              null<1>:ud    0x1:ud
";

    #[test]
    fn a_dump_is_counted_by_the_reference_rules() {
        let k = parse_kernel_asm(DUMP);
        assert_eq!(k.counts.instructions, 10);
        assert_eq!(k.counts.send_total, 6);
        assert_eq!(k.counts.dpas, 1);
        assert_eq!(k.counts.barrier_waits, 1);
        assert_eq!(k.counts.sends_of(SendKind::GlobalBlockLoad), 1);
        assert_eq!(k.counts.sends_of(SendKind::Prefetch2d), 1);
        assert_eq!(k.counts.sends_of(SendKind::Load2d), 1);
        assert_eq!(k.counts.sends_of(SendKind::GlobalGather), 1);
        assert_eq!(k.counts.sends_of(SendKind::GlobalScatter), 1);
        assert_eq!(k.counts.sends_of(SendKind::EndOfThread), 1);
        // The loop: L16 to the jmpi at 16 + 5 * 16 + 8 (the compacted sync.bar) = 104.
        assert_eq!(k.loops.len(), 1, "{:?}", k.loops);
        assert_eq!((k.loops[0].from, k.loops[0].to), (16, 104));
        assert_eq!(k.loops[0].counts.instructions, 7);
        assert_eq!(k.loops[0].counts.send_total, 4);
    }

    #[test]
    fn spills_and_slm_are_told_apart() {
        let spill =
            "send.ugm (16|M0) null r1 r2:4 0x0 0x0 // wr:1+4, rd:0; store.ugm.d32x16t.a32.ss[a0.2]";
        let fill =
            "send.ugm (16|M0) r5 r1 null:0 0x0 0x0 // wr:1+0, rd:4; load.ugm.d32x16t.a32.ss[a0.2]";
        let hword =
            "send (16|M0) null r1 r2:2 0x0 0x0 // wr:1+2, rd:0; hword scratch block write x4";
        let slm = "send.slm (16|M0) r5 r1 null:0 0x0 0x0 // wr:1+0, rd:2; load.slm.d32.a32";
        assert_eq!(SendKind::of_line(spill), SendKind::SpillStore);
        assert_eq!(SendKind::of_line(fill), SendKind::Fill);
        assert_eq!(SendKind::of_line(hword), SendKind::SpillStore);
        assert_eq!(SendKind::of_line(slm), SendKind::SlmLoad);
    }
}
