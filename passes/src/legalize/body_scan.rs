//! The function-body instructions legalize's steps look at, found in one walk of the bodies
//! instead of one walk per step: 2D block ops and buffer prefetches ([`super::split_shapes`]),
//! MMAs ([`super::mma`]), composite constructs ([`super::vector_constituents`]), the
//! instructions the Level Zero rules check and the calls ([`super::level_zero_env`]).
//!
//! What: [`BodyScan::take`] lists them per kind, each list in layout order (functions, their
//! blocks, their instructions: the order the steps' own walks had). [`BodyScan::current`]
//! hands out a scan of the module as it is: it keeps the one taken while no rewrite has been
//! counted since (`Changes::made`), and takes a new one otherwise.
//! Why correct: every step counts each rewrite in `Changes` before making it, so while the
//! count stands still the bodies are those the scan saw; a module that did change is scanned
//! again.
//! Cost: one walk of the function bodies per legalize run that changes nothing (one more after
//! each counted rewrite a later step must see).

use spirv::Op;
use spvopt_analysis::block_io::BlockKind;
use spvopt_ir::opcode_class::{op_class, scope_operands, OpClass, ScopeOperands};
use spvopt_ir::opcode_table::PerOpcode;
use spvopt_ir::{FuncId, InstId, Module};

use crate::pass::Changes;

/// The instructions of the function bodies legalize looks at, by kind, in layout order.
#[derive(Default)]
pub struct BodyScan {
    /// `Changes::made` when the scan was taken (`None`: not taken).
    made: Option<u64>,
    /// 2D block loads, stores and prefetches.
    pub block_ops: Vec<InstId>,
    /// `OpSubgroupBlockPrefetchINTEL`.
    pub buffer_prefetches: Vec<InstId>,
    /// `OpSubgroupMatrixMultiplyAccumulateINTEL`.
    pub mmas: Vec<InstId>,
    /// `OpCompositeConstruct`.
    pub constructs: Vec<InstId>,
    /// What the Level Zero rules check in bodies: image reads and writes, atomics,
    /// instructions with scope operands.
    pub checked: Vec<InstId>,
    /// `OpFunctionCall`s, with the calling function.
    pub calls: Vec<(FuncId, InstId)>,
}

const BLOCK_OP: u8 = 1;
const BUFFER_PREFETCH: u8 = 2;
const MMA: u8 = 4;
const CONSTRUCT: u8 = 8;
const CHECKED: u8 = 16;
const CALL: u8 = 32;

/// The lists instructions of `opcode` go to (bits), decided once per opcode and process.
#[inline]
fn kinds(opcode: u16) -> u8 {
    static TABLE: PerOpcode<u8> = PerOpcode::new();
    TABLE.get(opcode, |opcode| {
        let Some(op) = spvopt_ir::inst::op_of(opcode) else {
            return 0;
        };
        let mut k = 0;
        if BlockKind::of_opcode(op).is_some() {
            k |= BLOCK_OP;
        }
        match op {
            Op::SubgroupBlockPrefetchINTEL => k |= BUFFER_PREFETCH,
            Op::SubgroupMatrixMultiplyAccumulateINTEL => k |= MMA,
            Op::CompositeConstruct => k |= CONSTRUCT,
            Op::FunctionCall => k |= CALL,
            _ => {}
        }
        if matches!(
            op,
            Op::ImageWrite | Op::ImageRead | Op::ImageSampleExplicitLod
        ) || op_class(op).intersects(OpClass::ATOMIC)
            || scope_operands(opcode) != ScopeOperands::default()
        {
            k |= CHECKED;
        }
        k
    })
}

impl BodyScan {
    /// Scans the bodies of `m`.
    pub fn take(m: &Module) -> BodyScan {
        let mut scan = BodyScan::default();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let k = kinds(m.inst(i).opcode());
                    if k != 0 {
                        scan.add(k, f, i);
                    }
                }
            }
        }
        scan
    }

    fn add(&mut self, k: u8, f: FuncId, i: InstId) {
        if k & BLOCK_OP != 0 {
            self.block_ops.push(i);
        }
        if k & BUFFER_PREFETCH != 0 {
            self.buffer_prefetches.push(i);
        }
        if k & MMA != 0 {
            self.mmas.push(i);
        }
        if k & CONSTRUCT != 0 {
            self.constructs.push(i);
        }
        if k & CHECKED != 0 {
            self.checked.push(i);
        }
        if k & CALL != 0 {
            self.calls.push((f, i));
        }
    }

    /// A scan of `m` as it is: this one while no rewrite has been counted in `changes` since
    /// it was taken, else a new one.
    pub fn current(&mut self, m: &Module, changes: &Changes) -> &BodyScan {
        if self.made != Some(changes.made()) {
            *self = BodyScan::take(m);
            self.made = Some(changes.made());
        }
        self
    }
}
