//! A backward slice of values: some root values and every value their provenance and induction
//! facts are computed from (the operands those analyses read, transitively, through phis and
//! back edges alike).
//!
//! Provenance, induction forms, loop variance and known bits of a value are computed from the
//! same facts of its operands only, so visiting only the slice's definitions gives exactly the
//! same facts for the values of the slice: [`Induction::build_for`] and
//! [`Provenance::build_for`]. [`ValueSlice::of_block_operations`] is the slice passes over 2D
//! block operations need (their base pointers, coordinates, shapes and surfaces).
//!
//! Which operands are followed (`for_each_input`) is what those analyses read: every value
//! of a phi; every id of a constant composite, an access chain or a composite construction;
//! the pointer of a load (loads from read-only memory vary like their pointer) and of a
//! pointer cast; the leading id operands (those before the first literal) of every other
//! [`OpClass::PURE`] instruction. Any other result (a call, a variable, an unknown opcode) is
//! an atom or a root to them, whatever its operands. One visit per definition.
//!
//! [`Induction::build_for`]: crate::induction::Induction::build_for
//! [`Provenance::build_for`]: crate::provenance::Provenance::build_for

use spirv::Op;
use spvopt_ir::entity::EntitySet;
use spvopt_ir::opcode_class::{leading_id_operands, op_class, OpClass};
use spvopt_ir::{BlockId, Id, Inst, InstId, Module};

use crate::block_io::block_io;
use crate::block_kind::BlockKind;
use crate::builtins::Callees;
use crate::operands::op_of;

/// A set of values closed under "is an operand the analyses read of the definition of".
#[derive(Clone, Debug)]
pub struct ValueSlice {
    values: EntitySet<Id>,
    /// The definitions of `values` (tested before an instruction is decoded).
    defs: EntitySet<InstId>,
    /// The blocks holding some of `defs` (the others need no visit).
    blocks: EntitySet<BlockId>,
}

impl ValueSlice {
    /// `roots` and every value their facts are computed from.
    pub fn backward_from(m: &Module, roots: impl IntoIterator<Item = Id>) -> ValueSlice {
        let mut values = EntitySet::with_capacity(m.id_capacity());
        let mut defs = EntitySet::new();
        let mut blocks = EntitySet::new();
        let mut work: Vec<InstId> = Vec::new();
        let mut add = |x: Id, work: &mut Vec<InstId>| {
            if let Some(d) = m.def(x) {
                if values.insert(x) {
                    defs.insert(d);
                    if let Some(b) = m.inst_block(d) {
                        blocks.insert(b);
                    }
                    work.push(d);
                }
            }
        };
        for r in roots {
            add(r, &mut work);
        }
        while let Some(d) = work.pop() {
            for_each_input(m.inst(d), |x| add(x, &mut work));
        }
        ValueSlice {
            values,
            defs,
            blocks,
        }
    }

    /// The operands of every 2D block operation (native, or a call of a 2D block builtin) and
    /// the pointer of every 1D subgroup block read, write and prefetch, and what they are
    /// computed from.
    pub fn of_block_operations(m: &Module, callees: &Callees) -> ValueSlice {
        const CALL: u16 = Op::FunctionCall as u16;
        const READ_1D: u16 = Op::SubgroupBlockReadINTEL as u16;
        const WRITE_1D: u16 = Op::SubgroupBlockWriteINTEL as u16;
        const PREFETCH_1D: u16 = Op::SubgroupBlockPrefetchINTEL as u16;
        let mut roots: Vec<Id> = Vec::new();
        let ids = |inst: &Inst, roots: &mut Vec<Id>, skip: usize| {
            roots.extend(
                inst.operands()
                    .iter()
                    .skip(skip)
                    .filter_map(|&w| Id::new(w)),
            );
        };
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if BlockKind::of(inst).is_some() {
                        ids(inst, &mut roots, 0);
                        continue;
                    }
                    match inst.opcode() {
                        READ_1D | WRITE_1D | PREFETCH_1D => roots.extend(inst.operand_id(0)),
                        // A builtin call: every argument (after the function).
                        CALL if block_io(m, callees, i).is_some() => ids(inst, &mut roots, 1),
                        _ => {}
                    }
                }
            }
        }
        ValueSlice::backward_from(m, roots)
    }

    /// Whether `id` is in the slice.
    #[inline]
    pub fn contains(&self, id: Id) -> bool {
        self.values.contains(id)
    }

    /// Whether block `b` defines a value of the slice.
    #[inline]
    pub fn has_definitions_in(&self, b: BlockId) -> bool {
        self.blocks.contains(b)
    }

    /// Whether instruction `i` defines a value of the slice.
    #[inline]
    pub fn defines(&self, i: InstId) -> bool {
        self.defs.contains(i)
    }
}

/// Calls `f` with each operand of `inst` whose provenance or induction facts those of its
/// result are computed from (see the module documentation).
fn for_each_input(inst: &Inst, mut f: impl FnMut(Id)) {
    let ops = inst.operands();
    let mut take = |words: &[u32]| words.iter().filter_map(|&w| Id::new(w)).for_each(&mut f);
    let Some(op) = op_of(inst) else { return };
    match op {
        Op::Phi => ops
            .iter()
            .step_by(2)
            .filter_map(|&w| Id::new(w))
            .for_each(f),
        Op::ConstantComposite
        | Op::SpecConstantComposite
        | Op::CompositeConstruct
        | Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain => take(ops),
        Op::Load
        | Op::Bitcast
        | Op::CopyObject
        | Op::PtrCastToGeneric
        | Op::GenericCastToPtr
        | Op::GenericCastToPtrExplicit => take(&ops[..ops.len().min(1)]),
        op if op_class(op).intersects(OpClass::PURE) => {
            let n = leading_id_operands(op as u16).min(ops.len());
            take(&ops[..n]);
        }
        _ => {}
    }
}
