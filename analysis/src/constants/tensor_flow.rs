//! The tensor layouts and views of [`Constants`] (`SPV_NV_tensor_addressing`): a forward
//! data-flow over the CFG through SSA setters, `OpCopyObject`, agreeing `OpPhi` / `OpSelect`
//! inputs and the Function variables that hold them, with the lattice ⊤ > state > ⊥, iterated
//! in reverse post-order until nothing changes (see the module documentation of `constants.rs`).

use std::rc::Rc;

use spirv::Op;
use spvopt_ir::{BlockId, Id, Module};

use super::{ConstValue, Constants};
use crate::cfg::Cfg;
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::operands::op_of;
use crate::tensor_layout::{self, is_tensor_op, is_tensor_type, Field, TensorState};
use crate::types::pointer_of;

impl Constants {
    fn field(&self, m: &Module, id: Id) -> Field {
        match self.fold(m, id) {
            Some(ConstValue::Int { bits, .. }) => Field::Const(bits as i64),
            Some(_) => Field::Unknown,
            None => Field::Value(id),
        }
    }

    pub(super) fn tensor_dataflow(&mut self, m: &Module, cfg: &Cfg, rpo: &[BlockId]) {
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
