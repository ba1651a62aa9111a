//! One kernel's ISA in a dozen numbers, and when a change of them is a regression: what the
//! checked-in ISA table (`tests/igc/isa_table.txt`, test `isa_table`) and `spv-ab --compiler
//! ocloc` report.
//!
//! The **K loop** is the loop the kernel spends its time in: among the loops with the most
//! `dpas`, the one with the fewest instructions (the innermost of nested loops that contain the
//! same MMAs); in a kernel without `dpas`, among the loops with the most sends, the smallest.
//! A kernel without loops has no K loop (its K-loop numbers are 0).
//!
//! [`IsaSummary::regressions`] is the table's tolerance: `dpas` must be equal (a change means
//! MMAs were dropped or duplicated); sends (all, and those of the K loop), SLM messages,
//! gathers/scatters, spill and fill messages and the spill size must not grow at all; the whole
//! kernel's instructions may grow by 3% + 4 and the K loop's by 3% + 2 (IGC's scheduling moves a
//! few instructions when unrelated code changes). Anything better passes (re-bless to record it).

use serde::Serialize;

use super::isa::SendKind;
use super::KernelIsaFacts;

/// The numbers of one kernel's ISA the table and spv-ab compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IsaSummary {
    pub instructions: usize,
    pub sends: usize,
    pub load2d: usize,
    pub prefetch2d: usize,
    pub store2d: usize,
    /// SLM loads, stores and atomics.
    pub slm: usize,
    /// Per-lane global loads and stores (gathers, scatters).
    pub gathers: usize,
    pub dpas: usize,
    /// Spill stores plus fills.
    pub spill_msgs: usize,
    pub spill_size: u32,
    pub kloop_instructions: usize,
    pub kloop_sends: usize,
}

/// The names of [`IsaSummary`]'s fields, in the table's order.
pub const FIELDS: [&str; 12] = [
    "instructions",
    "sends",
    "load2d",
    "prefetch2d",
    "store2d",
    "slm",
    "gathers",
    "dpas",
    "spill_msgs",
    "spill_size",
    "kloop_instructions",
    "kloop_sends",
];

impl IsaSummary {
    /// Field-wise sum (the ISA of several kernels of one module).
    pub fn plus(&self, o: &IsaSummary) -> IsaSummary {
        IsaSummary {
            instructions: self.instructions + o.instructions,
            sends: self.sends + o.sends,
            load2d: self.load2d + o.load2d,
            prefetch2d: self.prefetch2d + o.prefetch2d,
            store2d: self.store2d + o.store2d,
            slm: self.slm + o.slm,
            gathers: self.gathers + o.gathers,
            dpas: self.dpas + o.dpas,
            spill_msgs: self.spill_msgs + o.spill_msgs,
            spill_size: self.spill_size + o.spill_size,
            kloop_instructions: self.kloop_instructions + o.kloop_instructions,
            kloop_sends: self.kloop_sends + o.kloop_sends,
        }
    }

    /// The summary of one compiled kernel.
    pub fn of(k: &KernelIsaFacts) -> IsaSummary {
        let c = &k.isa.counts;
        let kloop = k
            .isa
            .loops
            .iter()
            .max_by_key(|l| {
                (
                    l.counts.dpas,
                    if l.counts.dpas == 0 {
                        l.counts.send_total
                    } else {
                        0
                    },
                    std::cmp::Reverse(l.counts.instructions),
                )
            })
            .map(|l| &l.counts);
        IsaSummary {
            instructions: c.instructions,
            sends: c.send_total,
            load2d: c.sends_of(SendKind::Load2d),
            prefetch2d: c.sends_of(SendKind::Prefetch2d),
            store2d: c.sends_of(SendKind::Store2d),
            slm: c.sends_of(SendKind::SlmLoad)
                + c.sends_of(SendKind::SlmStore)
                + c.sends_of(SendKind::SlmAtomic),
            gathers: c.sends_of(SendKind::GlobalGather) + c.sends_of(SendKind::GlobalScatter),
            dpas: c.dpas,
            spill_msgs: c.spills() + c.fills(),
            spill_size: k.spill_size.unwrap_or(0),
            kloop_instructions: kloop.map_or(0, |l| l.instructions),
            kloop_sends: kloop.map_or(0, |l| l.send_total),
        }
    }

    /// The values in [`FIELDS`] order.
    pub fn values(&self) -> [u64; 12] {
        [
            self.instructions as u64,
            self.sends as u64,
            self.load2d as u64,
            self.prefetch2d as u64,
            self.store2d as u64,
            self.slm as u64,
            self.gathers as u64,
            self.dpas as u64,
            self.spill_msgs as u64,
            u64::from(self.spill_size),
            self.kloop_instructions as u64,
            self.kloop_sends as u64,
        ]
    }

    /// `key=value` pairs in [`FIELDS`] order, space-separated.
    pub fn to_fields(&self) -> String {
        FIELDS
            .iter()
            .zip(self.values())
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Parses [`IsaSummary::to_fields`]'s text (every field, in any order).
    pub fn parse_fields(text: &str) -> Result<IsaSummary, String> {
        let mut v = [None::<u64>; 12];
        for pair in text.split_whitespace() {
            let (k, n) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}` is not key=value"))?;
            let i = FIELDS
                .iter()
                .position(|f| *f == k)
                .ok_or_else(|| format!("unknown field `{k}`"))?;
            v[i] = Some(n.parse().map_err(|_| format!("`{pair}`: not a number"))?);
        }
        let g = |i: usize| v[i].ok_or_else(|| format!("field `{}` missing", FIELDS[i]));
        Ok(IsaSummary {
            instructions: g(0)? as usize,
            sends: g(1)? as usize,
            load2d: g(2)? as usize,
            prefetch2d: g(3)? as usize,
            store2d: g(4)? as usize,
            slm: g(5)? as usize,
            gathers: g(6)? as usize,
            dpas: g(7)? as usize,
            spill_msgs: g(8)? as usize,
            spill_size: g(9)? as u32,
            kloop_instructions: g(10)? as usize,
            kloop_sends: g(11)? as usize,
        })
    }

    /// What got worse from `old` to `self` beyond the tolerance (module comment), one text each.
    pub fn regressions(&self, old: &IsaSummary) -> Vec<String> {
        let mut out = Vec::new();
        let grow = |what: &str, o: u64, n: u64, pct: u64, slack: u64, out: &mut Vec<String>| {
            if n > o + o * pct / 100 + slack {
                out.push(format!("{what} {o} -> {n}"));
            }
        };
        if self.dpas != old.dpas {
            out.push(format!("dpas {} -> {}", old.dpas, self.dpas));
        }
        let (o, n) = (old.values(), self.values());
        for i in [1, 5, 6, 8, 9, 11] {
            grow(FIELDS[i], o[i], n[i], 0, 0, &mut out);
        }
        grow(FIELDS[0], o[0], n[0], 3, 4, &mut out);
        grow(FIELDS[10], o[10], n[10], 3, 2, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_regressions_follow_the_tolerance() {
        let old = IsaSummary {
            instructions: 100,
            sends: 10,
            dpas: 8,
            kloop_instructions: 50,
            kloop_sends: 5,
            ..IsaSummary::default()
        };
        assert_eq!(IsaSummary::parse_fields(&old.to_fields()).unwrap(), old);
        let same_ish = IsaSummary {
            instructions: 107,
            kloop_instructions: 53,
            ..old
        };
        assert!(same_ish.regressions(&old).is_empty());
        let worse = IsaSummary {
            instructions: 108,
            kloop_sends: 6,
            spill_msgs: 1,
            dpas: 4,
            ..old
        };
        let r = worse.regressions(&old);
        assert_eq!(r.len(), 4, "{r:?}");
        let better = IsaSummary {
            sends: 2,
            kloop_sends: 1,
            ..old
        };
        assert!(better.regressions(&old).is_empty());
        assert!(IsaSummary::parse_fields("sends=1").is_err());
    }
}
