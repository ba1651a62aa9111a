//! Module edits both payload passes need: the imported declarations of the payload builtins
//! (reused when the module already imports the name with the same type), the cache-control
//! decorations of 2D block base pointers, and small emission helpers.

use spirv::{Capability, Decoration, Op};
use spvopt_analysis::block_payload::{parse_payload_builtin, PayloadBuiltin};
use spvopt_ir::grammar::encode_string;
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::builtin_mangling::{linkages, LINKAGE_IMPORT};
use crate::edit::capabilities::ensure_capability;

/// `Decoration CacheControlLoadINTEL` (SPV_INTEL_cache_controls).
pub(crate) const CACHE_CONTROL_LOAD: u32 = 6442;

/// The payload builtins the module imports: (function id, builtin, name).
pub(crate) fn imported_payload_builtins(m: &Module) -> Vec<(Id, PayloadBuiltin, String)> {
    linkages(m)
        .into_iter()
        .filter(|l| l.import)
        .filter_map(|l| parse_payload_builtin(&l.name).map(|b| (l.target, b, l.name)))
        .collect()
}

/// Per id, the `CacheControlLoadINTEL` decorations on it: (cache level, control).
pub(crate) fn load_cache_controls(m: &Module) -> std::collections::HashMap<Id, Vec<(u32, u32)>> {
    let mut out: std::collections::HashMap<Id, Vec<(u32, u32)>> = Default::default();
    for (_, inst) in m.section_insts(Section::Annotation) {
        if inst.is(Op::Decorate) && inst.operand_word(1) == Some(CACHE_CONTROL_LOAD) {
            if let (Some(t), Some(l), Some(c)) = (
                inst.operand_id(0),
                inst.operand_word(2),
                inst.operand_word(3),
            ) {
                out.entry(t).or_default().push((l, c));
            }
        }
    }
    out
}

/// Imported function declarations added (or found) by one run of a pass.
#[derive(Default)]
pub(crate) struct Imports {
    /// (name, function type) → function id.
    known: Vec<(String, Id, Id)>,
    /// Declarations to add: (id, return type, function type, parameter types, name).
    new: Vec<(Id, Id, Id, Vec<Id>, String)>,
}

impl Imports {
    /// The function to call for builtin `name` with return type `ret` and parameter types
    /// `params`: an existing import of that name and type, else a new declaration (added to
    /// the module by [`Imports::finish`]).
    pub(crate) fn function(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        name: &str,
        ret: Id,
        params: &[Id],
    ) -> Id {
        let fn_ty = types.function_type(m, ret, params);
        if self.known.is_empty() && self.new.is_empty() {
            for l in linkages(m).into_iter().filter(|l| l.import) {
                let ty = m
                    .def_inst(l.target)
                    .filter(|d| d.is(Op::Function))
                    .and_then(|d| d.operand_id(1));
                if let Some(ty) = ty {
                    self.known.push((l.name, ty, l.target));
                }
            }
        }
        if let Some(&(_, _, f)) = self.known.iter().find(|(n, t, _)| n == name && *t == fn_ty) {
            return f;
        }
        let f = m.fresh_id();
        self.known.push((name.to_string(), fn_ty, f));
        self.new
            .push((f, ret, fn_ty, params.to_vec(), name.to_string()));
        f
    }

    /// Adds the new declarations (before the first function definition) with their
    /// `LinkageAttributes … Import`, and the `Linkage` capability. Returns how many were added.
    pub(crate) fn finish(self, m: &mut Module) -> u64 {
        let first_definition = m
            .function_ids()
            .position(|f| !m.function(f).blocks.is_empty())
            .unwrap_or(m.functions.len());
        let n = self.new.len() as u64;
        for (k, (id, ret, fn_ty, params, name)) in self.new.into_iter().enumerate() {
            let def = Inst::new(Op::Function, Some(ret), Some(id), &[0, fn_ty.word()]);
            let ps = params
                .iter()
                .map(|&t| {
                    let p = m.fresh_id();
                    Inst::new(Op::FunctionParameter, Some(t), Some(p), &[])
                })
                .collect();
            m.insert_function_at(first_definition + k, def, ps);
            let mut words = vec![id.word(), Decoration::LinkageAttributes as u32];
            words.extend(encode_string(&name));
            words.push(LINKAGE_IMPORT);
            m.push_to_section(
                Section::Annotation,
                Inst::new(Op::Decorate, None, None, &words),
            );
        }
        if n > 0 {
            ensure_capability(m, Capability::Linkage);
        }
        n
    }
}

/// Inserts `op` with result type `ty` and operand words `ops` before `at`; returns the result.
pub(crate) fn emit(m: &mut Module, at: InstId, op: Op, ty: Id, ops: &[u32]) -> Id {
    let r = m.fresh_id();
    m.insert_before(at, Inst::new(op, Some(ty), Some(r), ops));
    r
}

/// The 32-bit integer `v - 1` (`v + 1` when `plus` is set) before `at`: a constant when `v` is
/// one.
pub(crate) fn minus_or_plus_one(
    m: &mut Module,
    types: &mut Interner,
    at: InstId,
    v: Id,
    plus: bool,
) -> Id {
    let u32_ty = types.int(m, 32);
    if let Some(c) = m.const_int_value(v) {
        let c = c as u32;
        return types.u32_const(
            m,
            if plus {
                c.wrapping_add(1)
            } else {
                c.wrapping_sub(1)
            },
        );
    }
    let one = types.u32_const(m, 1);
    let op = if plus { Op::IAdd } else { Op::ISub };
    emit(m, at, op, u32_ty, &[v.word(), one.word()])
}
