//! Cooperative prefetching: which tiles every subgroup of a work-group loads alike, and how
//! the rows are split between the subgroups.

use indexmap::IndexMap;

use super::*;

/// A cooperative split of a tile across the subgroups of a work-group.
#[derive(Clone, Copy, Debug)]
pub(super) struct Split {
    /// Number of parts (a power of two ≥ 2): `parts / cols` row bands × `cols` columns.
    pub(super) parts: u32,
    /// Rows per part.
    pub(super) rows: u32,
    /// Column parts (power of two; 1: each subgroup prefetches its whole row band).
    pub(super) cols: u32,
    /// Elements per column part.
    pub(super) col_width: u32,
    /// Whether `SubgroupId` may reach `parts` (then it is reduced mod `parts`).
    pub(super) wrap: bool,
}

/// Built-ins whose value differs between the subgroups of a work-group.
pub(super) fn per_subgroup_builtin(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::SubgroupId
            | BuiltIn::SubgroupLocalInvocationId
            | BuiltIn::LocalInvocationId
            | BuiltIn::GlobalInvocationId
            | BuiltIn::LocalInvocationIndex
            | BuiltIn::GlobalLinearId
    )
}

/// What cooperative splitting needs to know about the module.
pub(super) struct CoopInfo {
    /// Ids that may differ between the subgroups of a work-group.
    pub(super) dependent: HashSet<Id>,
    /// Functions with a branch on such a value.
    pub(super) divergent: HashSet<Id>,
    /// Entry-point function → subgroups per work-group (power of two ≥ 2).
    pub(super) subgroups: HashMap<Id, u32>,
}

/// Follows address arithmetic and casts from `p` to its root; whether that is an `Input` or
/// `UniformConstant` variable (read-only memory nothing writes).
pub(super) fn read_only_root(m: &Module, mut p: Id) -> bool {
    for _ in 0..64 {
        let Some(inst) = m.def_inst(p) else {
            return false;
        };
        match inst.op() {
            Some(op) if derives_pointer(op) => match inst.operand_id(0) {
                Some(q) => p = q,
                None => return false,
            },
            Some(Op::Variable) => {
                return inst.operand_word(0) == Some(StorageClass::Input as u32)
                    || inst.operand_word(0) == Some(StorageClass::UniformConstant as u32);
            }
            _ => return false,
        }
    }
    false
}

impl CoopInfo {
    pub(super) fn build(m: &Module, facts: &KernelFacts, dec: &Decorations) -> CoopInfo {
        let vars: Vec<Id> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| i.is(Op::Variable))
            .filter_map(|(_, i)| i.result_id())
            .collect();
        let var_set: HashSet<Id> = vars.iter().copied().collect();
        let names = debug_names(m, &|id| var_set.contains(&id));
        let mut dependent: HashSet<Id> = vars
            .into_iter()
            .filter(|&v| builtin_of_variable(dec, &names, v).is_some_and(per_subgroup_builtin))
            .collect();
        let insts: Vec<InstId> = m
            .function_ids()
            .flat_map(|f| m.function(f).blocks.clone())
            .flat_map(|b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        // Callee → its parameters, for call arguments.
        let params: HashMap<Id, Vec<Id>> = m
            .function_ids()
            .filter_map(|f| {
                let r = m.function_result(f)?;
                let ps = m
                    .function(f)
                    .header
                    .iter()
                    .filter(|&&i| m.inst(i).is(Op::FunctionParameter))
                    .filter_map(|&i| m.inst(i).result_id())
                    .collect();
                Some((r, ps))
            })
            .collect();
        // Flow-insensitive fixpoint; memory is one class.
        let mut memory = false;
        loop {
            let mut changed = false;
            for &i in &insts {
                let inst = m.inst(i);
                let mut uses_dep = false;
                m.for_each_used_id(i, |u| uses_dep |= dependent.contains(&u));
                let writes = (!inst.has_result()
                    && !inst.is(Op::Subgroup2DBlockPrefetchINTEL)
                    && !inst.is(Op::SubgroupBlockPrefetchINTEL))
                    || inst.is(Op::FunctionCall)
                    || inst.name().starts_with("OpAtomic");
                if writes && (uses_dep || inst.is(Op::FunctionCall)) && !memory {
                    // Conservative: a write of (or through) a dependent value, or any call.
                    let terminator = matches!(
                        inst.op(),
                        Some(
                            Op::Branch
                                | Op::BranchConditional
                                | Op::Switch
                                | Op::Return
                                | Op::ReturnValue
                                | Op::LoopMerge
                                | Op::SelectionMerge
                        )
                    );
                    if !terminator {
                        memory = true;
                        changed = true;
                    }
                }
                if inst.is(Op::FunctionCall) {
                    let ops = inst.operands();
                    if let Some(ps) = inst.operand_id(0).and_then(|c| params.get(&c)) {
                        for (a, p) in ops[1..].iter().zip(ps) {
                            if Id::new(*a).is_some_and(|a| dependent.contains(&a))
                                && dependent.insert(*p)
                            {
                                changed = true;
                            }
                        }
                    }
                }
                let Some(r) = inst.result_id() else { continue };
                if dependent.contains(&r) {
                    continue;
                }
                let dep = uses_dep
                    || inst.is(Op::FunctionCall)
                    || (memory
                        && inst.is(Op::Load)
                        && !inst.operand_id(0).is_some_and(|p| read_only_root(m, p)));
                if dep {
                    dependent.insert(r);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut divergent = HashSet::new();
        for f in m.function_ids() {
            let Some(fr) = m.function_result(f) else {
                continue;
            };
            for &b in &m.function(f).blocks {
                if let Some(t) = m.block_terminator(b) {
                    let inst = m.inst(t);
                    if (inst.is(Op::BranchConditional) || inst.is(Op::Switch))
                        && inst.operand_id(0).is_some_and(|c| dependent.contains(&c))
                    {
                        divergent.insert(fr);
                    }
                }
            }
        }
        // Subgroups per work-group of each function: `SubgroupsPerWorkgroup`, else the
        // work-group size bound over the subgroup size, of every kernel reaching it
        // (KernelFacts: Triton's kernels are wrappers calling the real kernel, which inherits).
        let mut subgroups = HashMap::new();
        for f in m.function_ids() {
            let (Some(fr), Fact::Known(s)) =
                (m.function_result(f), facts.subgroups_per_workgroup(f))
            else {
                continue;
            };
            if s >= 2 && s.is_power_of_two() && s <= 1 << 16 {
                subgroups.insert(fr, s);
            }
        }
        // Functions only called (transitively) from entry points with one known count inherit
        // it (Triton's kernels are wrappers calling the real kernel); a caller with subgroup-
        // dependent control makes its callees divergent. The callees in module order (an
        // IndexMap): with a bounded number of rounds the result must not depend on a hash
        // order that changes from run to run.
        let mut callers: IndexMap<Id, Vec<Id>> = IndexMap::new();
        for f in m.function_ids() {
            let Some(fr) = m.function_result(f) else {
                continue;
            };
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    if let Some(c) = m
                        .inst(i)
                        .operand_id(0)
                        .filter(|_| m.inst(i).is(Op::FunctionCall))
                    {
                        callers.entry(c).or_default().push(fr);
                    }
                }
            }
        }
        for _ in 0..16 {
            let mut changed = false;
            for (callee, cs) in &callers {
                if cs.iter().any(|c| divergent.contains(c)) && divergent.insert(*callee) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        CoopInfo {
            dependent,
            divergent,
            subgroups,
        }
    }
}
