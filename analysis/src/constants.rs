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
//! Integer values are kept as their bit pattern masked to the type width; division by zero,
//! shifts by the width or more and unknown opcodes do not fold.

mod bounds;

use std::cell::RefCell;
use std::rc::Rc;

use spirv::Op;
use spvopt_ir::opcode_class::{leading_id_operands, op_class, OpClass};
use spvopt_ir::{BlockId, Id, Inst, Module, Section};

use crate::block_io::{BlockIo, MatrixMad, ShapeOperand};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::known_bits::width_mask;
use crate::operands::op_of;
use crate::tensor_layout::{self, is_tensor_op, is_tensor_type, Field, TensorState};
use crate::types::{int_width, is_bool, pointer_of};

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

    // ---- folding ----------------------------------------------------------------------

    fn scalar_of_type(m: &Module, ty: Id, bits: u64) -> Option<ConstValue> {
        let t = m.def_inst(ty)?;
        let width = t.operand_word(0)?;
        if t.is(Op::TypeInt) {
            Some(ConstValue::Int {
                width,
                bits: bits & width_mask(width),
            })
        } else if t.is(Op::TypeFloat) {
            Some(ConstValue::Float {
                width,
                bits: bits & width_mask(width),
            })
        } else {
            None
        }
    }

    fn null_of_type(m: &Module, ty: Id, depth: u32) -> Option<ConstValue> {
        let t = m.def_inst(ty)?;
        Some(match op_of(t)? {
            Op::TypeBool => ConstValue::Bool(false),
            Op::TypeInt | Op::TypeFloat => Constants::scalar_of_type(m, ty, 0)?,
            Op::TypeVector if depth < 4 => {
                let n = t.operand_word(1)?;
                if n > 64 {
                    return Some(ConstValue::Null);
                }
                let e = Constants::null_of_type(m, t.operand_id(0)?, depth + 1)?;
                // Vectors of vectors (invalid, but they load) multiply sizes: refuse here what
                // the bounds would refuse once built.
                if e.bounded_size()?.saturating_mul(n as usize) >= bounds::MAX_COMPOSITE_NODES {
                    return None;
                }
                ConstValue::Composite(vec![e; n as usize])
            }
            _ => ConstValue::Null,
        })
    }

    fn literal_bits(words: &[u32]) -> Option<u64> {
        match words {
            [lo] => Some(u64::from(*lo)),
            [lo, hi] => Some(u64::from(*lo) | u64::from(*hi) << 32),
            _ => None,
        }
    }

    fn fold_global(
        &self,
        m: &Module,
        dec: &Decorations,
        inst: &Inst,
        r: Id,
        overrides: &std::collections::HashMap<u32, u64>,
    ) -> Option<ConstValue> {
        let ty = inst.result_type()?;
        let over = || dec.spec_id(r).and_then(|s| overrides.get(&s).copied());
        match op_of(inst)? {
            Op::ConstantTrue => Some(ConstValue::Bool(true)),
            Op::ConstantFalse => Some(ConstValue::Bool(false)),
            Op::SpecConstantTrue => Some(ConstValue::Bool(over().is_none_or(|v| v != 0))),
            Op::SpecConstantFalse => Some(ConstValue::Bool(over().is_some_and(|v| v != 0))),
            Op::Constant => {
                Constants::scalar_of_type(m, ty, Constants::literal_bits(inst.operands())?)
            }
            Op::SpecConstant => {
                let bits = match over() {
                    Some(v) => v,
                    None => Constants::literal_bits(inst.operands())?,
                };
                Constants::scalar_of_type(m, ty, bits)
            }
            Op::ConstantNull => Constants::null_of_type(m, ty, 0),
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let parts: Option<Vec<ConstValue>> = inst
                    .operands()
                    .iter()
                    .map(|&w| Id::new(w).and_then(|p| self.value(p)).cloned())
                    .collect();
                Some(ConstValue::Composite(parts?))
            }
            Op::SpecConstantOp => {
                let ops = inst.operands();
                let opcode = u16::try_from(*ops.first()?).ok()?;
                let op = Op::from_u32(u32::from(opcode))?;
                self.fold_op(m, op, ty, &ops[1..], &|o| self.values.get(&o).cloned())
            }
            _ => None,
        }
    }

    /// Folds `op` with operand words `ops` (ids, and literals where the opcode has them).
    fn fold_op(
        &self,
        m: &Module,
        op: Op,
        ty: Id,
        ops: &[u32],
        get: &dyn Fn(Id) -> Option<ConstValue>,
    ) -> Option<ConstValue> {
        let args: Vec<Option<ConstValue>> = match op {
            Op::CompositeExtract => vec![Id::new(*ops.first()?).and_then(get)],
            Op::CompositeInsert => ops
                .iter()
                .take(2)
                .map(|&w| Id::new(w).and_then(get))
                .collect(),
            _ => ops.iter().map(|&w| Id::new(w).and_then(get)).collect(),
        };
        let arg = |k: usize| -> Option<&ConstValue> { args.get(k)?.as_ref() };
        match op {
            Op::CompositeExtract => {
                let mut v = arg(0)?;
                for &idx in &ops[1..] {
                    match v {
                        ConstValue::Composite(c) => v = c.get(idx as usize)?,
                        _ => return None,
                    }
                }
                return Some(v.clone());
            }
            Op::CompositeInsert => {
                let obj = arg(0)?.clone();
                let mut comp = arg(1)?.clone();
                let mut slot = &mut comp;
                for &idx in &ops[2..] {
                    match slot {
                        ConstValue::Composite(c) => slot = c.get_mut(idx as usize)?,
                        _ => return None,
                    }
                }
                *slot = obj;
                return Some(comp);
            }
            Op::CompositeConstruct => {
                let parts: Option<Vec<ConstValue>> =
                    (0..ops.len()).map(|k| arg(k).cloned()).collect();
                return Some(ConstValue::Composite(parts?));
            }
            Op::CopyObject => return arg(0).cloned(),
            Op::Select => {
                let c = arg(0)?.as_bool()?;
                return if c { arg(1).cloned() } else { arg(2).cloned() };
            }
            _ => {}
        }
        if is_bool(m, ty) {
            return fold_bool(op, &|k| arg(k));
        }
        let w = int_width(m, ty)?;
        if w > 64 {
            return None;
        }
        let mask = width_mask(w);
        let int = |k: usize| -> Option<(u64, u32)> {
            match *arg(k)? {
                ConstValue::Int { width, bits } => Some((bits, width)),
                _ => None,
            }
        };
        let (a, aw) = int(0)?;
        let sa = sign_extend(a, aw);
        let bits = match op {
            Op::SNegate => a.wrapping_neg(),
            Op::Not => !a,
            Op::UConvert => a,
            Op::SConvert => sa as u64,
            Op::Bitcast => {
                if aw != w {
                    return None;
                }
                a
            }
            _ => {
                let (b, bw) = int(1)?;
                let sb = sign_extend(b, bw);
                match op {
                    Op::IAdd => a.wrapping_add(b),
                    Op::ISub => a.wrapping_sub(b),
                    Op::IMul => a.wrapping_mul(b),
                    Op::UDiv => a.checked_div(b)?,
                    Op::SDiv => sa.checked_div(sb)? as u64,
                    Op::UMod => a.checked_rem(b)?,
                    Op::SRem => sa.checked_rem(sb)? as u64,
                    Op::SMod => {
                        let r = sa.checked_rem(sb)?;
                        (if r != 0 && (r < 0) != (sb < 0) {
                            r.wrapping_add(sb)
                        } else {
                            r
                        }) as u64
                    }
                    Op::ShiftLeftLogical => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        a << b
                    }
                    Op::ShiftRightLogical => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        (a & mask) >> b
                    }
                    Op::ShiftRightArithmetic => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        (sign_extend(a, w) >> b) as u64
                    }
                    Op::BitwiseAnd => a & b,
                    Op::BitwiseOr => a | b,
                    Op::BitwiseXor => a ^ b,
                    _ => return None,
                }
            }
        };
        Some(ConstValue::Int {
            width: w,
            bits: bits & mask,
        })
    }

    // ---- tensor layouts -----------------------------------------------------------------

    fn field(&self, m: &Module, id: Id) -> Field {
        match self.fold(m, id) {
            Some(ConstValue::Int { bits, .. }) => Field::Const(bits as i64),
            Some(_) => Field::Unknown,
            None => Field::Value(id),
        }
    }

    fn tensor_dataflow(&mut self, m: &Module, cfg: &Cfg, rpo: &[BlockId]) {
        // Relevant instructions and tracked variables.
        let mut tracked: Vec<Id> = Vec::new();
        let mut any = false;
        for &b in rpo {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if inst.is(Op::Variable) {
                    let pointee = inst
                        .result_type()
                        .and_then(|t| pointer_of(m, t))
                        .map(|(_, p)| p);
                    if pointee.is_some_and(|p| is_tensor_type(m, p)) {
                        if let Some(r) = inst.result_id() {
                            tracked.push(r);
                        }
                    }
                }
                if inst.result_type().is_some_and(|t| is_tensor_type(m, t)) {
                    any = true;
                }
            }
        }
        if !any {
            return;
        }
        // Untrack variables used other than as a load/store pointer.
        let mut untracked: HashSet<Id> = HashSet::default();
        let tracked_set: HashSet<Id> = tracked.iter().copied().collect();
        if !tracked.is_empty() {
            for &b in rpo {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    let ok_pointer = (inst.is(Op::Load) || inst.is(Op::Store))
                        .then(|| inst.operand_id(0))
                        .flatten();
                    let mut first = true;
                    let result_type = inst.result_type();
                    m.for_each_used_id(i, |id| {
                        let is_type = first && result_type == Some(id);
                        first = false;
                        if !is_type && Some(id) != ok_pointer && tracked_set.contains(&id) {
                            untracked.insert(id);
                        }
                    });
                    // A store of a tracked pointer's value as data is covered above; a store
                    // *through* it uses it as operand 0 (fine).
                }
            }
        }
        tracked.retain(|v| !untracked.contains(v));
        let index_of: HashMap<Id, usize> =
            tracked.iter().enumerate().map(|(k, &v)| (v, k)).collect();
        let var_index = |id: Id| index_of.get(&id).copied();
        let nv = tracked.len();
        // The state is one entry per tracked variable per block: bound it (hostile inputs with
        // thousands of both would need gigabytes); beyond the budget nothing is known, as when
        // the iteration does not converge.
        if nv.saturating_mul(rpo.len()) > TENSOR_DATAFLOW_ENTRIES {
            return;
        }
        let mut out: HashMap<BlockId, Vec<Lat>> = HashMap::default();
        let mut lat: HashMap<Id, Lat> = HashMap::default();
        let mut converged = false;
        for _sweep in 0..32 {
            let mut changed = false;
            for (k, &b) in rpo.iter().enumerate() {
                let mut state: Vec<Lat> = if k == 0 {
                    vec![Lat::Top; nv]
                } else {
                    let mut s = vec![Lat::Top; nv];
                    for &p in cfg.preds(b) {
                        if let Some(ps) = out.get(&p) {
                            for (x, y) in s.iter_mut().zip(ps) {
                                *x = x.meet(y);
                            }
                        }
                    }
                    s
                };
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if inst.is(Op::Store) {
                        if let (Some(p), Some(v)) = (inst.operand_id(0), inst.operand_id(1)) {
                            if let Some(k) = var_index(p) {
                                state[k] = lat.get(&v).cloned().unwrap_or(Lat::Bottom);
                            }
                        }
                        continue;
                    }
                    let Some(ty) = inst.result_type() else {
                        continue;
                    };
                    if !is_tensor_type(m, ty) {
                        continue;
                    }
                    let Some(r) = inst.result_id() else { continue };
                    let get = |id: Id| lat.get(&id).cloned().unwrap_or(Lat::Top);
                    let new = match op_of(inst) {
                        Some(Op::Load) => match inst.operand_id(0).and_then(var_index) {
                            Some(k) => state[k].clone(),
                            None => Lat::Bottom,
                        },
                        Some(Op::CopyObject) => inst.operand_id(0).map_or(Lat::Bottom, get),
                        Some(Op::Phi) => {
                            let mut acc = Lat::Top;
                            for pair in inst.operands().chunks(2) {
                                acc = acc.meet(&Id::new(pair[0]).map_or(Lat::Bottom, get));
                            }
                            acc
                        }
                        Some(Op::Select) => {
                            let cond = inst.operand_id(0).and_then(|c| self.fold(m, c));
                            match (
                                cond.as_ref().and_then(ConstValue::as_bool),
                                inst.operand_id(1),
                                inst.operand_id(2),
                            ) {
                                (Some(true), Some(a), _) => get(a),
                                (Some(false), _, Some(b)) => get(b),
                                (None, Some(a), Some(b)) => get(a).meet(&get(b)),
                                _ => Lat::Bottom,
                            }
                        }
                        op if is_tensor_op(op) => {
                            let input = inst.operand_id(0).map(get);
                            let is_create = matches!(
                                op,
                                Some(Op::CreateTensorLayoutNV | Op::CreateTensorViewNV)
                            );
                            let field = |id: Id| self.field(m, id);
                            match (is_create, input) {
                                (true, _) => match tensor_layout::apply(m, inst, &field, None) {
                                    Some(s) => Lat::Val(Rc::new(s)),
                                    None => Lat::Bottom,
                                },
                                (false, Some(Lat::Val(s))) => {
                                    match tensor_layout::apply(m, inst, &field, Some(&s)) {
                                        Some(s) => Lat::Val(Rc::new(s)),
                                        None => Lat::Bottom,
                                    }
                                }
                                (false, Some(Lat::Top)) => Lat::Top,
                                _ => Lat::Bottom,
                            }
                        }
                        _ => Lat::Bottom,
                    };
                    if lat.get(&r) != Some(&new) {
                        lat.insert(r, new);
                        changed = true;
                    }
                }
                if out.get(&b) != Some(&state) {
                    out.insert(b, state);
                    changed = true;
                }
            }
            if !changed {
                converged = true;
                break;
            }
        }
        if !converged {
            return;
        }
        for (id, l) in lat {
            if let Lat::Val(s) = l {
                self.tensors.insert(id, s);
            }
        }
    }
}

/// Largest number of (block, tracked variable) states the tensor data-flow keeps (16 MiB).
const TENSOR_DATAFLOW_ENTRIES: usize = 1 << 20;

/// Lattice of tensor states during data-flow.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Lat {
    Top,
    Val(Rc<TensorState>),
    Bottom,
}

impl Lat {
    fn meet(&self, other: &Lat) -> Lat {
        match (self, other) {
            (Lat::Top, x) | (x, Lat::Top) => x.clone(),
            (Lat::Val(a), Lat::Val(b)) if a == b => Lat::Val(a.clone()),
            _ => Lat::Bottom,
        }
    }
}

/// The opcodes the folder evaluates: integer arithmetic, bitwise, integer width changes,
/// integer comparisons, boolean logic, and moving values through composites.
fn is_foldable(op: Op) -> bool {
    use Op::*;
    op_class(op).intersects(
        OpClass::INTEGER_ARITHMETIC
            | OpClass::BITWISE
            | OpClass::INTEGER_CONVERSION
            | OpClass::INTEGER_COMPARISON
            | OpClass::LOGICAL,
    ) || matches!(
        op,
        Bitcast | CopyObject | Select | CompositeExtract | CompositeInsert | CompositeConstruct
    )
}

fn fold_bool<'a>(op: Op, arg: &dyn Fn(usize) -> Option<&'a ConstValue>) -> Option<ConstValue> {
    use Op::*;
    let b = |k: usize| arg(k)?.as_bool();
    let ints = || -> Option<(u64, u64, i64, i64)> {
        match (arg(0)?.clone(), arg(1)?.clone()) {
            (ConstValue::Int { width: wa, bits: a }, ConstValue::Int { width: wb, bits: c }) => {
                Some((a, c, sign_extend(a, wa), sign_extend(c, wb)))
            }
            _ => None,
        }
    };
    let v = match op {
        LogicalNot => !b(0)?,
        LogicalAnd => b(0)? && b(1)?,
        LogicalOr => b(0)? || b(1)?,
        LogicalEqual => b(0)? == b(1)?,
        LogicalNotEqual => b(0)? != b(1)?,
        _ => {
            let (a, c, sa, sc) = ints()?;
            match op {
                IEqual => a == c,
                INotEqual => a != c,
                UGreaterThan => a > c,
                SGreaterThan => sa > sc,
                UGreaterThanEqual => a >= c,
                SGreaterThanEqual => sa >= sc,
                ULessThan => a < c,
                SLessThan => sa < sc,
                ULessThanEqual => a <= c,
                SLessThanEqual => sa <= sc,
                _ => return None,
            }
        }
    };
    Some(ConstValue::Bool(v))
}
