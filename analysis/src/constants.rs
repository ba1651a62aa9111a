//! Constant folding of what passes need as numbers: 2D block shapes (element size, width,
//! height, count), MMA K dimensions, spec constants, and tensor layout/view state.
//!
//! - Module-level constants are folded eagerly, in module order (operands precede uses):
//!   `OpConstant`, `OpConstantTrue/False`, `OpConstantNull`, `OpConstantComposite`, spec
//!   constants (`OpSpecConstant*` with their default, or the value given for their `SpecId` in
//!   the override map) and `OpSpecConstantOp` (with the same evaluator as function bodies).
//! - Function-body instructions (integer/boolean arithmetic, comparisons, conversions, selects,
//!   composite instructions) whose operands all fold are folded on demand by
//!   [`Constants::fold`]: an explicit-stack post-order walk over the operands, memoised, so a
//!   whole module costs no more than one visit per instruction and nothing is paid for bodies
//!   nobody asks about. (Block shapes and MMA K are module-level constants by the specs.)
//! - Tensor layouts and views (`tensor_layout.rs`) flow through SSA (setters, `OpCopyObject`),
//!   `OpPhi`/`OpSelect` (when all inputs agree) and Function variables that hold them (glslang
//!   keeps every layout in one and loads/stores around each setter): a forward data-flow over
//!   the CFG with the lattice ⊤ (no information yet) > state > ⊥ (conflicting/unknown),
//!   iterated in reverse post-order until nothing changes (monotone, so it terminates; a sweep
//!   cap guards malformed input). Only variables used solely as the pointer of `OpLoad`/
//!   `OpStore` are tracked; anything else yields ⊥. A load that no store reaches stays ⊤ and is
//!   reported as unknown. This runs only for modules that declare tensor types.
//!
//! Composites deeper than 64 levels or of more than 65,536 nodes are not folded
//! (`constants/bounds.rs`: hostile modules nest and double them at will).
//!
//! The evaluator of one instruction is `constants/fold.rs`; the tensor data-flow is
//! `constants/tensor_flow.rs`.
//!
//! Integer values are kept as their bit pattern masked to the type width; division by zero,
//! shifts by the width or more and unknown opcodes do not fold.

mod bounds;
mod fold;
mod tensor_flow;

use fold::is_foldable;

use std::cell::RefCell;
use std::rc::Rc;

use spirv::Op;
use spvopt_ir::opcode_class::leading_id_operands;
use spvopt_ir::{Id, Module, Section};

use crate::block_io::{BlockIo, MatrixMad, ShapeOperand};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::operands::op_of;
use crate::tensor_layout::{self, TensorState};

/// A folded constant value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstValue {
    /// `OpConstantTrue` / `OpConstantFalse` (or a folded comparison).
    Bool(bool),
    /// Bit pattern, masked to `width` bits.
    Int {
        /// Bits of the type.
        width: u32,
        /// The value's bits (zero above `width`).
        bits: u64,
    },
    /// Bit pattern of a float of `width` bits.
    Float {
        /// Bits of the type.
        width: u32,
        /// The float's bits.
        bits: u64,
    },
    /// A constant vector, array or struct: its parts in order.
    Composite(Vec<ConstValue>),
    /// `OpConstantNull` of a type that is not a scalar (pointer, struct, …).
    Null,
}

impl ConstValue {
    /// The value as an unsigned integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            ConstValue::Int { bits, .. } => Some(bits),
            _ => None,
        }
    }
    /// The value as a signed integer (sign-extended from its width).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            ConstValue::Int { width, bits } => Some(sign_extend(bits, width)),
            _ => None,
        }
    }
    /// The value as a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            ConstValue::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl std::fmt::Display for ConstValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConstValue::Bool(b) => write!(f, "{b}"),
            ConstValue::Int { width, bits } => {
                let s = sign_extend(*bits, *width);
                if s < 0 {
                    write!(f, "{s}")
                } else {
                    write!(f, "{bits}")
                }
            }
            ConstValue::Float { width: 32, bits } => write!(f, "{}", f32::from_bits(*bits as u32)),
            ConstValue::Float { width: 64, bits } => write!(f, "{}", f64::from_bits(*bits)),
            ConstValue::Float { width, bits } => write!(f, "f{width}:0x{bits:x}"),
            ConstValue::Composite(c) => {
                write!(f, "{{")?;
                for (k, x) in c.iter().enumerate() {
                    if k > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, "}}")
            }
            ConstValue::Null => write!(f, "null"),
        }
    }
}

fn sign_extend(bits: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        bits as i64
    } else {
        let sh = 64 - width;
        ((bits << sh) as i64) >> sh
    }
}

/// Folded constants of a module.
#[derive(Clone, Debug, Default)]
pub struct Constants {
    /// Module-level constants.
    values: HashMap<Id, ConstValue>,
    /// Function-body values folded on demand by [`Constants::fold`] (`None`: not constant).
    body: RefCell<HashMap<Id, Option<ConstValue>>>,
    tensors: HashMap<Id, Rc<TensorState>>,
    /// Nodes of the composites in `values` and `body` (see [`bounds`]).
    composite_nodes: std::cell::Cell<usize>,
}

impl Analysis for Constants {
    const KIND: AnalysisSet = AnalysisSet::CONSTANTS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet(AnalysisSet::CFG.0 | AnalysisSet::DECORATIONS.0);
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let dec = analyses.get::<Decorations>(m);
        Constants::build_with(m, &cfg, &std::collections::HashMap::new(), &dec)
    }
    /// The same module-level constants and tensor layouts/views (function-body values are
    /// folded on demand, a memo of queries, not facts the cache holds).
    fn same_facts(&self, fresh: &Self) -> bool {
        self.values == fresh.values && self.tensors == fresh.tensors
    }
}

impl Constants {
    /// Folds the constants of `m`; `spec_overrides` maps `SpecId`s to values (bit patterns)
    /// that replace the defaults of the spec constants decorated with them.
    pub fn build(
        m: &Module,
        cfg: &Cfg,
        spec_overrides: &std::collections::HashMap<u32, u64>,
    ) -> Constants {
        Constants::build_with(m, cfg, spec_overrides, &Decorations::build(m))
    }

    /// [`Constants::build`] with the module's [`Decorations`] already at hand (the cache's).
    pub fn build_with(
        m: &Module,
        cfg: &Cfg,
        spec_overrides: &std::collections::HashMap<u32, u64>,
        dec: &Decorations,
    ) -> Constants {
        let mut c = Constants::default();
        let mut has_tensor_types = false;
        for (_, inst) in m.section_insts(Section::Global) {
            if inst.is(Op::TypeTensorLayoutNV) || inst.is(Op::TypeTensorViewNV) {
                has_tensor_types = true;
            }
            let Some(r) = inst.result_id() else { continue };
            let v = c.fold_global(m, dec, inst, r, spec_overrides);
            if let Some(v) = c.admit(v) {
                c.set(r, v);
            }
        }
        if has_tensor_types {
            for f in m.function_ids() {
                c.tensor_dataflow(m, cfg, cfg.rpo(f));
            }
        }
        c
    }

    /// `v` if it may be kept: within the per-value bounds, and a composite only while all
    /// composites kept so far stay within [`bounds::MAX_STORED_COMPOSITE_NODES`].
    fn admit(&self, v: Option<ConstValue>) -> Option<ConstValue> {
        let v = v?;
        let nodes = v.bounded_size()?;
        if matches!(v, ConstValue::Composite(_)) {
            let total = self.composite_nodes.get() + nodes;
            if total > bounds::MAX_STORED_COMPOSITE_NODES {
                return None;
            }
            self.composite_nodes.set(total);
        }
        Some(v)
    }

    fn set(&mut self, id: Id, v: ConstValue) {
        self.values.insert(id, v);
    }

    // ---- queries --------------------------------------------------------------------

    /// The value of the module-level constant `id` (see [`Constants::fold`] for values
    /// computed in function bodies).
    pub fn value(&self, id: Id) -> Option<&ConstValue> {
        self.values.get(&id)
    }

    /// The constant value of `id`: a module-level constant, or a function-body instruction
    /// whose operands all fold (computed on first request and remembered).
    pub fn fold(&self, m: &Module, id: Id) -> Option<ConstValue> {
        if let Some(v) = self.values.get(&id) {
            return Some(v.clone());
        }
        if let Some(r) = self.body.borrow().get(&id) {
            return r.clone();
        }
        // Post-order walk over foldable operands (no recursion, so no depth limit).
        let mut stack: Vec<(Id, bool)> = vec![(id, false)];
        let mut visiting: HashSet<Id> = HashSet::default();
        while let Some((x, expanded)) = stack.pop() {
            if self.values.contains_key(&x) || self.body.borrow().contains_key(&x) {
                continue;
            }
            let foldable = m
                .def_inst(x)
                .and_then(|i| op_of(i).filter(|&op| is_foldable(op)).map(|op| (i, op)));
            let Some((inst, op)) = foldable else {
                self.body.borrow_mut().insert(x, None);
                continue;
            };
            if !expanded {
                if !visiting.insert(x) {
                    // A cycle (malformed input): not constant.
                    self.body.borrow_mut().insert(x, None);
                    continue;
                }
                stack.push((x, true));
                let n = leading_id_operands(op as u16);
                for &w in inst.operands().iter().take(n) {
                    if let Some(o) = Id::new(w) {
                        stack.push((o, false));
                    }
                }
                continue;
            }
            let v = match inst.result_type() {
                Some(ty) => self.fold_op(m, op, ty, inst.operands(), &|o| {
                    self.values
                        .get(&o)
                        .cloned()
                        .or_else(|| self.body.borrow().get(&o).cloned().flatten())
                }),
                None => None,
            };
            let v = self.admit(v);
            self.body.borrow_mut().insert(x, v);
        }
        self.body.borrow().get(&id).cloned().flatten()
    }

    /// [`Constants::fold`] as an unsigned integer.
    pub fn fold_int(&self, m: &Module, id: Id) -> Option<u64> {
        self.fold(m, id)?.as_u64()
    }

    /// The integer value of `id` (bit pattern, zero-extended).
    pub fn int(&self, id: Id) -> Option<u64> {
        self.value(id)?.as_u64()
    }

    /// The integer value of `id`, sign-extended.
    pub fn int_signed(&self, id: Id) -> Option<i64> {
        self.value(id)?.as_i64()
    }

    /// The value of a block shape operand.
    pub fn shape_operand(&self, s: ShapeOperand) -> Option<u32> {
        match s {
            ShapeOperand::Literal(v) => Some(v),
            ShapeOperand::Id(id) => u32::try_from(self.int(id)?).ok(),
        }
    }

    /// Element size (bytes), block width, block height and block count of a 2D block op.
    pub fn block_shape(&self, b: &BlockIo) -> Option<[u32; 4]> {
        Some([
            self.shape_operand(b.shape[0])?,
            self.shape_operand(b.shape[1])?,
            self.shape_operand(b.shape[2])?,
            self.shape_operand(b.shape[3])?,
        ])
    }

    /// The K dimension of an MMA.
    pub fn mma_k(&self, mad: &MatrixMad) -> Option<u32> {
        self.shape_operand(mad.k_dim)
    }

    /// The state of the tensor layout or view value `id`.
    pub fn tensor_state(&self, id: Id) -> Option<&TensorState> {
        self.tensors.get(&id).map(|r| &**r)
    }

    /// The state of the tensor layout value `id`.
    pub fn tensor_layout(&self, id: Id) -> Option<&tensor_layout::TensorLayoutState> {
        match self.tensor_state(id)? {
            TensorState::Layout(l) => Some(l),
            TensorState::View(_) => None,
        }
    }

    /// The state of the tensor view value `id`.
    pub fn tensor_view(&self, id: Id) -> Option<&tensor_layout::TensorViewState> {
        match self.tensor_state(id)? {
            TensorState::View(v) => Some(v),
            TensorState::Layout(_) => None,
        }
    }
}
