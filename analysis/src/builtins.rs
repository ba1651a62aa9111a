//! Recognition of built-in variables and of imported (body-less) functions by name.
//!
//! Real OpenCL compilers reach built-ins in two ways: an `Input` variable decorated `BuiltIn X`,
//! or (the SPIR-V LLVM translator, Triton) a variable imported through `LinkageAttributes`
//! named `__spirv_BuiltInX` that is also decorated. We accept either the decoration or the
//! name. Imported functions are the OpenCL builtins (`intel_sub_group_2d_block_read_16b_32r16x2c`,
//! `intel_sub_group_f16_f16_matrix_mad_k16`, `get_group_id`, …) under their Itanium-mangled
//! names; [`Callees`] names every body-less function once (linkage name first, `OpName` only
//! when needed) and classifies the ones analyses understand.

use crate::fxhash::FxHashMap as HashMap;

use spirv::{BuiltIn, Op};
use spvopt_ir::grammar::decode_string;
use spvopt_ir::{FuncId, Id, Module, Section};

use crate::block_kind::BlockKind;
use crate::builtin_names::{base_name, parse_builtin, Builtin};
use crate::decorations::Decorations;

/// The built-in an `OpVariable` `var` stands for: its `BuiltIn` decoration, or a linkage/debug
/// name `__spirv_BuiltIn<Name>`.
pub fn builtin_of_variable(
    dec: &Decorations,
    names: &HashMap<Id, String>,
    var: Id,
) -> Option<BuiltIn> {
    if let Some(b) = dec.builtin(var) {
        return BuiltIn::from_u32(b);
    }
    let name = dec
        .linkage(var)
        .map(|l| l.name.as_str())
        .or_else(|| names.get(&var).map(String::as_str))?;
    name.strip_prefix("__spirv_BuiltIn")?
        .parse::<BuiltIn>()
        .ok()
}

/// `OpName`s of the ids in `wanted` (one scan of the debug section).
pub fn debug_names(m: &Module, wanted: &dyn Fn(Id) -> bool) -> HashMap<Id, String> {
    let mut out = HashMap::default();
    for (_, inst) in m.section_insts(Section::Debug) {
        if !inst.is(Op::Name) {
            continue;
        }
        let Some(t) = inst.operand_id(0) else {
            continue;
        };
        if !wanted(t) {
            continue;
        }
        if let Some(s) = inst.operands().get(1..).and_then(decode_string) {
            out.insert(t, s.to_string());
        }
    }
    out
}

/// The unmangled base name of an Itanium-mangled function name (`_Z42intel_sub…cPU3AS1…` →
/// `intel_sub…c`); the name itself when it is not mangled (or the mangling is malformed).
pub fn itanium_base_name(name: &str) -> &str {
    base_name(name).unwrap_or(name)
}

/// What an imported function is, when analyses know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalleeKind {
    /// `intel_sub_group_2d_block_<kind>_<E>b_<H>r<W>x<C>c(base, width, height, pitch, coord[, ptr])`.
    BlockIo {
        /// Which 2D block operation.
        kind: BlockKind,
        /// Element size in bytes, block width, height and count.
        shape: [u32; 4],
    },
    /// `intel_sub_group_<a>_<b>_matrix_mad_k<K>(a, b, c)`.
    MatrixMad {
        /// K, the reduction depth in the name.
        k: u32,
    },
    /// An OpenCL work-item function whose result is the same for the whole subgroup
    /// (`get_group_id`, `get_num_groups`, `get_sub_group_id`, …).
    UniformQuery,
    /// A subgroup collective with a subgroup-uniform result (`sub_group_broadcast`,
    /// `sub_group_reduce_*`, `sub_group_all/any`).
    UniformCollective,
    /// Anything else.
    Unknown,
}

/// An imported function: its name and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Callee {
    /// The linkage name (else the `OpName`), mangled as imported.
    pub name: String,
    /// What the function is.
    pub kind: CalleeKind,
}

/// Every body-less function of a module, named and classified.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Callees {
    by_id: HashMap<Id, Callee>,
}

impl Callees {
    /// Names and classifies the body-less functions of `m`.
    pub fn build(m: &Module, dec: &Decorations) -> Callees {
        let mut by_id = HashMap::default();
        let mut missing = Vec::new();
        for f in m.function_ids() {
            let func = m.function(f);
            if !func.blocks.is_empty() {
                continue;
            }
            let Some(id) = m.function_result(f) else {
                continue;
            };
            match dec.linkage(id) {
                Some(l) => {
                    by_id.insert(id, classify(&l.name));
                }
                None => missing.push(id),
            }
        }
        if !missing.is_empty() {
            let wanted: crate::fxhash::FxHashSet<Id> = missing.iter().copied().collect();
            let names = debug_names(m, &|id| wanted.contains(&id));
            for id in missing {
                let name = names.get(&id).cloned().unwrap_or_default();
                by_id.insert(id, classify(&name));
            }
        }
        Callees { by_id }
    }

    /// The imported function `f` (by result id), if it is one.
    pub fn get(&self, f: Id) -> Option<&Callee> {
        self.by_id.get(&f)
    }

    /// What the callee of an `OpFunctionCall` instruction is (`None` for defined functions).
    pub fn of_call(&self, call: &spvopt_ir::Inst) -> Option<&Callee> {
        if !call.is(Op::FunctionCall) {
            return None;
        }
        self.get(call.operand_id(0)?)
    }
}

fn classify(name: &str) -> Callee {
    let base = itanium_base_name(name);
    let kind = classify_base(base);
    Callee {
        name: name.to_string(),
        kind,
    }
}

fn classify_base(base: &str) -> CalleeKind {
    match parse_builtin(base) {
        Some(Builtin::Block(b)) => {
            return CalleeKind::BlockIo {
                kind: b.op,
                shape: [b.elem_bytes, b.width, b.height, b.count],
            }
        }
        Some(Builtin::Mma(mma)) => return CalleeKind::MatrixMad { k: mma.k },
        None => {}
    }
    match base {
        "get_group_id"
        | "get_num_groups"
        | "get_sub_group_id"
        | "get_num_sub_groups"
        | "get_enqueued_num_sub_groups"
        | "get_sub_group_size"
        | "get_max_sub_group_size"
        | "get_local_size"
        | "get_enqueued_local_size"
        | "get_global_size"
        | "get_global_offset"
        | "get_work_dim" => CalleeKind::UniformQuery,
        _ if base.starts_with("sub_group_broadcast")
            || base.starts_with("intel_sub_group_broadcast")
            || base.starts_with("sub_group_reduce_")
            || base == "sub_group_all"
            || base == "sub_group_any"
            || base.starts_with("sub_group_non_uniform_broadcast_first")
            || base.starts_with("sub_group_non_uniform_reduce_") =>
        {
            CalleeKind::UniformCollective
        }
        _ => CalleeKind::Unknown,
    }
}

/// How a built-in's value varies inside a subgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinUniformity {
    /// The same value in every invocation of the subgroup (all components).
    Uniform,
    /// Component 0 differs between invocations; components 1 and 2 are uniform when the
    /// work-group size in that dimension is known to be 1, divergent otherwise.
    DivergentX,
    /// Differs between invocations.
    Divergent,
}

/// The subgroup uniformity of a built-in.
pub fn builtin_uniformity(b: BuiltIn) -> BuiltinUniformity {
    use BuiltIn::*;
    match b {
        WorkgroupId
        | NumWorkgroups
        | SubgroupId
        | SubgroupSize
        | NumSubgroups
        | NumEnqueuedSubgroups
        | SubgroupMaxSize
        | WorkgroupSize
        | EnqueuedWorkgroupSize
        | GlobalSize
        | GlobalOffset
        | WorkDim => BuiltinUniformity::Uniform,
        GlobalInvocationId | LocalInvocationId => BuiltinUniformity::DivergentX,
        _ => BuiltinUniformity::Divergent,
    }
}

/// The function ids that are entry points.
pub fn entry_point_functions(m: &Module) -> Vec<Id> {
    m.section_insts(Section::EntryPoint)
        .filter(|(_, i)| i.is(Op::EntryPoint))
        .filter_map(|(_, i)| i.operand_id(1))
        .collect()
}

/// The function `FuncId` whose result id is `id`.
pub fn function_by_result(m: &Module) -> HashMap<Id, FuncId> {
    m.function_ids()
        .filter_map(|f| m.function_result(f).map(|r| (r, f)))
        .collect()
}

impl crate::cache::Analysis for Callees {
    const KIND: crate::cache::AnalysisSet = crate::cache::AnalysisSet::DECORATIONS;
    fn compute(m: &Module, analyses: &mut crate::cache::Analyses) -> Self {
        let dec = analyses.get::<Decorations>(m);
        Callees::build(m, &dec)
    }
    fn same_facts(&self, fresh: &Self) -> bool {
        self == fresh
    }
}
