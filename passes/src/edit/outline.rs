//! Outlining: code built straight into a new function, whose values from other functions then
//! become its parameters ([`Outline`]), and the merging of structurally identical functions
//! ([`merge_identical_functions`]).
//!
//! Why: a conversion that emits the same cold code at many sites (the exact per-element path
//! of `convert-tensor-addressing`, one loop per cooperative-matrix access) can emit it once as a
//! function called from every site. Marked `DontInline`, IGC keeps it a subroutine (measured:
//! IGC 2.40 emits `call`/`ret` for a `DontInline` function), so the kernel's size and IGC's
//! compile time stop growing with the number of sites.
//!
//! Why correct: the outlined body is the code the site would have run, with every value it
//! reads from the caller passed as an argument in the same order it is declared as a
//! parameter; a function's semantics depend only on its instructions and its arguments, so two
//! functions whose instructions are equal up to a renaming of their own ids (the key of
//! [`merge_identical_functions`], which also covers their parameter and return types) compute
//! the same thing for the same arguments, and calls of one may call the other.

use spirv::Op;
use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spvopt_ir::grammar::{walk_operands, SlotKind};
use spvopt_ir::{BlockId, FuncId, Id, Inst, InstId, Interner, Module};

/// `FunctionControl DontInline`.
const DONT_INLINE: u32 = 0x2;

/// A function being built: created with [`Outline::begin`] (an entry block, no parameters),
/// filled by the caller, closed by [`Outline::finish`].
pub struct Outline {
    pub func: FuncId,
    /// The function's result id (the callee operand of `OpFunctionCall`).
    pub id: Id,
    /// Its entry block.
    pub entry: BlockId,
    ret: Id,
}

impl Outline {
    /// A new `DontInline` function returning `ret`, appended to the module, with an empty
    /// entry block. Its function type is set by [`Outline::finish`].
    pub fn begin(m: &mut Module, ret: Id) -> Outline {
        let id = m.fresh_id();
        // The type operand is a placeholder until `finish` knows the parameters.
        let def = Inst::new(
            Op::Function,
            Some(ret),
            Some(id),
            &[DONT_INLINE, ret.word()],
        );
        let func = m.add_function(def, Vec::new());
        let label = m.fresh_id();
        let entry = m.append_block(func, label);
        Outline {
            func,
            id,
            entry,
            ret,
        }
    }

    /// Closes the function: `leading` (ids without a definition that the body used as
    /// stand-ins, with their types) become its first parameters, then every value the body
    /// uses from another function (a parameter or a body instruction's result there), in the
    /// order of first use. The body is rewritten to read the parameters and the function type
    /// is set. Returns the arguments of a call: the free values, in parameter order, after
    /// those for `leading` (which the caller supplies itself).
    pub fn finish(
        self,
        m: &mut Module,
        types: &mut Interner,
        leading: &[(Id, Id)],
    ) -> Result<Vec<Id>, OutlineError> {
        let f = self.func;
        let insts: Vec<InstId> = m
            .function(f)
            .blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        let mut own: HashSet<Id> = m
            .function(f)
            .blocks
            .iter()
            .map(|&b| m.block_label(b))
            .collect();
        for &i in &insts {
            if let Some(r) = m.inst(i).result_id() {
                own.insert(r);
            }
        }
        let stand_ins: HashSet<Id> = leading.iter().map(|&(id, _)| id).collect();
        let mut free: Vec<Id> = Vec::new();
        let mut seen: HashSet<Id> = HashSet::default();
        for &i in &insts {
            m.for_each_used_id(i, |id| {
                if own.contains(&id) || stand_ins.contains(&id) || seen.contains(&id) {
                    return;
                }
                let local = m.def(id).is_some_and(|d| {
                    m.inst_block(d).is_some() || m.inst(d).is(Op::FunctionParameter)
                });
                if local {
                    seen.insert(id);
                    free.push(id);
                }
            });
        }
        let mut params: Vec<(Id, Id)> = leading.to_vec();
        for &v in &free {
            let ty = m.type_of(v).ok_or_else(|| OutlineError::UntypedValue {
                value: v,
                defined_by: m.def_inst(v).and_then(Inst::op),
            })?;
            params.push((v, ty));
        }
        let mut rename: HashMap<Id, Id> = HashMap::default();
        let mut param_types = Vec::with_capacity(params.len());
        for &(v, ty) in &params {
            let p = m.fresh_id();
            m.push_parameter(f, Inst::new(Op::FunctionParameter, Some(ty), Some(p), &[]));
            rename.insert(v, p);
            param_types.push(ty);
        }
        for &i in &insts {
            m.map_used_ids(i, |id| rename.get(&id).copied().unwrap_or(id));
        }
        let fn_type = types.function_type(m, self.ret, &param_types);
        let def = m.function(f).def;
        // `words` follow the opcode word: result type, result, control, function type.
        m.inst_mut(def).words[3] = fn_type.word();
        Ok(free)
    }
}

/// Why [`Outline::finish`] cannot make a function of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutlineError {
    /// A value the body uses from outside has no type, so it cannot become a parameter.
    #[error("outlined value %{} (defined by {defined_by:?}) has no type", .value.word())]
    UntypedValue { value: Id, defined_by: Option<Op> },
}

/// Merges functions at positions `from..` of the module that are identical up to a renaming
/// of their own ids into the first of each kind: calls of the others call it, and the others
/// are removed. Returns how many were removed. Linear in the size of those functions (plus
/// one pass over the module's calls).
pub fn merge_identical_functions(m: &mut Module, from: usize) -> usize {
    let candidates: Vec<FuncId> = m.function_ids().skip(from).collect();
    let mut first_of: HashMap<Vec<u32>, Id> = HashMap::default();
    let mut replaced: HashMap<Id, Id> = HashMap::default();
    let mut removed: Vec<FuncId> = Vec::new();
    for f in candidates {
        let Some(id) = m.function_result(f) else {
            continue;
        };
        let key = structural_key(m, f);
        match first_of.get(&key) {
            Some(&keep) => {
                replaced.insert(id, keep);
                removed.push(f);
            }
            None => {
                first_of.insert(key, id);
            }
        }
    }
    if removed.is_empty() {
        return 0;
    }
    let calls: Vec<InstId> = m
        .all_insts()
        .filter(|&i| m.inst(i).is(Op::FunctionCall))
        .collect();
    for i in calls {
        let words = &mut m.inst_mut(i).words;
        // Result type, result, callee, arguments.
        if let Some(callee) = Id::new(words[2]) {
            if let Some(&keep) = replaced.get(&callee) {
                words[2] = keep.word();
            }
        }
    }
    // From the last, so the positions of those still to remove do not move.
    removed.sort_by_key(|f| std::cmp::Reverse(f.index()));
    let n = removed.len();
    for f in removed {
        m.remove_function(f);
    }
    n
}

/// The instructions of function `f` (its `OpFunction`, parameters and blocks) with each id
/// the function defines replaced by its position among the function's definitions (high bit
/// set, so it cannot equal a module-level id), one record per instruction.
fn structural_key(m: &Module, f: FuncId) -> Vec<u32> {
    let func = m.function(f);
    // Each block's label first (`None`), then its instructions.
    let mut order: Vec<(Option<InstId>, Option<Id>)> = vec![(Some(func.def), None)];
    order.extend(func.header.iter().map(|&p| (Some(p), None)));
    for &b in &func.blocks {
        order.push((None, Some(m.block_label(b))));
        order.extend(m.block_insts(b).map(|i| (Some(i), None)));
    }
    let mut local: HashMap<Id, u32> = HashMap::default();
    for &(i, label) in &order {
        if let Some(r) = label.or_else(|| i.and_then(|i| m.inst(i).result_id())) {
            let n = local.len() as u32;
            local.insert(r, 0x8000_0000 | n);
        }
    }
    let mut key = Vec::new();
    for &(i, _) in &order {
        let Some(i) = i else {
            key.push(u32::MAX);
            continue;
        };
        let inst = m.inst(i);
        let mut words: Vec<u32> = inst.words.to_vec();
        let _ = walk_operands(inst.opcode(), &inst.words, m, |s| {
            if matches!(
                s.kind,
                SlotKind::Id | SlotKind::ResultType | SlotKind::Result
            ) {
                if let Some(&n) = Id::new(words[s.index]).and_then(|id| local.get(&id)) {
                    words[s.index] = n;
                }
            }
        });
        key.push(u32::from(inst.opcode()) << 16 | words.len() as u32);
        key.extend(words);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvopt_ir::text::{assemble, disassemble, TargetEnv};

    /// A kernel reading `%x` (a parameter) and `%y` (a body value) in two places, the code of
    /// each outlined by the test.
    const KERNEL: &str = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\n\
        OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %k \"k\"\n\
        %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%uint_3 = OpConstant %uint 3\n\
        %fn = OpTypeFunction %void %uint\n\
        %k = OpFunction %void None %fn\n%x = OpFunctionParameter %uint\n\
        %entry = OpLabel\n%y = OpIAdd %uint %x %uint_3\nOpReturn\nOpFunctionEnd\n";

    fn kernel() -> (Module, Id, Id, InstId) {
        let words = assemble(KERNEL, TargetEnv::Universal_1_2).unwrap();
        let m = spvopt_ir::load_words(&words).unwrap();
        let f = m.function_ids().next().unwrap();
        let entry = m.function(f).blocks[0];
        let ret = m.block_terminator(entry).unwrap();
        let x = m.inst(m.function(f).header[0]).result_id().unwrap();
        let y = m
            .block_insts(entry)
            .find_map(|i| m.inst(i).is(Op::IAdd).then(|| m.inst(i).result_id()))
            .flatten()
            .unwrap();
        (m, x, y, ret)
    }

    /// Outlines `y * x + s` (s a stand-in) and calls it before the kernel's return.
    fn outline_once(m: &mut Module, types: &mut Interner, x: Id, y: Id, ret: InstId) -> Id {
        let uint = types.int(m, 32);
        let f = Outline::begin(m, uint);
        let s = m.fresh_id();
        let (a, b) = (m.fresh_id(), m.fresh_id());
        m.append_inst(
            f.entry,
            Inst::new(Op::IMul, Some(uint), Some(a), &[y.word(), x.word()]),
        );
        m.append_inst(
            f.entry,
            Inst::new(Op::IAdd, Some(uint), Some(b), &[a.word(), s.word()]),
        );
        m.append_inst(f.entry, Inst::new(Op::ReturnValue, None, None, &[b.word()]));
        let callee = f.id;
        let args = f.finish(m, types, &[(s, uint)]).unwrap();
        assert_eq!(args, vec![y, x], "free values in the order of first use");
        let r = m.fresh_id();
        let mut ops = vec![callee.word(), y.word()];
        ops.extend(args.iter().map(|v| v.word()));
        m.insert_before(ret, Inst::new(Op::FunctionCall, Some(uint), Some(r), &ops));
        callee
    }

    #[test]
    fn free_values_become_parameters_and_twins_merge_into_one() {
        let (mut m, x, y, ret) = kernel();
        let mut types = Interner::default();
        let first = outline_once(&mut m, &mut types, x, y, ret);
        let second = outline_once(&mut m, &mut types, x, y, ret);
        assert_ne!(first, second);
        assert_eq!(m.function_ids().count(), 3);
        let text = disassemble(&m.to_words()).unwrap();
        assert_eq!(text.matches("DontInline").count(), 2, "{text}");
        assert_eq!(merge_identical_functions(&mut m, 1), 1);
        assert_eq!(m.function_ids().count(), 2);
        let words = m.to_words();
        let text = disassemble(&words).unwrap();
        assert_eq!(text.matches("DontInline").count(), 1, "{text}");
        assert_eq!(
            text.matches(&format!("OpFunctionCall %uint %{}", first.word()))
                .count(),
            2,
            "both calls call the kept function: {text}"
        );
        // Three parameters (the stand-in, then y and x), and the module still loads.
        assert_eq!(
            text.matches("OpFunctionParameter %uint").count(),
            4,
            "{text}"
        );
        spvopt_ir::load_words(&words).unwrap();
    }

    #[test]
    fn functions_that_differ_are_kept() {
        let (mut m, x, y, ret) = kernel();
        let mut types = Interner::default();
        outline_once(&mut m, &mut types, x, y, ret);
        outline_once(&mut m, &mut types, x, y, ret);
        // The second one's multiply becomes a subtraction.
        let last = m.function_ids().last().unwrap();
        let entry = m.function(last).blocks[0];
        let mul = m
            .block_insts(entry)
            .find(|&i| m.inst(i).is(Op::IMul))
            .unwrap();
        let (ty, r) = (m.inst(mul).result_type(), m.inst(mul).result_id());
        let operands = m.inst(mul).operands().to_vec();
        m.replace_inst(mul, Inst::new(Op::ISub, ty, r, &operands));
        assert_eq!(merge_identical_functions(&mut m, 1), 0);
        assert_eq!(m.function_ids().count(), 3);
    }
}
