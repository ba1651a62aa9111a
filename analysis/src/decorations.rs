//! The decorations the analyses read, gathered in one pass over the annotation section.
//!
//! Only what analyses need is kept: `BuiltIn`, `LinkageAttributes` (name and import/export),
//! `FuncParamAttr` (NoAlias, NoCapture, NoWrite, …), `Restrict`/`Aliased`, `SpecId`,
//! `ArrayStride` and member `Offset`s. Decoration groups (`OpGroupDecorate`) are followed.
//! Everything is keyed by target id in hash maps: the annotation section is small compared to
//! function bodies, so this costs one linear scan and memory proportional to the decorations.
//! Malformed decorations (missing operands, unterminated strings) are skipped.

use std::rc::Rc;

use crate::fxhash::FxHashMap as HashMap;

use spirv::{Decoration, Op};
use spvopt_ir::grammar::decode_string;
use spvopt_ir::{Id, Module, Section};

/// `LinkageAttributes` of an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linkage {
    /// The linkage name.
    pub name: String,
    /// `true` for `Import`, `false` for `Export` (and `LinkOnceODR`).
    pub import: bool,
}

/// Decorations of interest, per target id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decorations {
    builtin: HashMap<Id, u32>,
    /// Shared: a decoration group's `LinkageAttributes` applies to every id of its
    /// `OpGroupDecorate`s, one decoded name for all (a copy per target let a 99 KB module with
    /// a 50,000-byte name on 4,000 targets hold 200 MB).
    linkage: HashMap<Id, Rc<Linkage>>,
    /// `FuncParamAttr` values (bit `1 << attr`).
    param_attrs: HashMap<Id, u32>,
    restrict: HashMap<Id, ()>,
    spec_id: HashMap<Id, u32>,
    array_stride: HashMap<Id, u32>,
    member_offsets: HashMap<(Id, u32), u32>,
    /// `Alignment` (bytes) of pointers, the largest when decorated twice.
    alignment: HashMap<Id, u32>,
}

impl Decorations {
    /// Reads the decorations of `m`.
    pub fn build(m: &Module) -> Decorations {
        let mut d = Decorations::default();
        // Each `LinkageAttributes` decoded once (group decorations apply to many ids).
        let mut decoded = HashMap::default();
        // Decoration groups: group id -> its decorations (instruction indices).
        let mut groups: HashMap<Id, Vec<spvopt_ir::InstId>> = HashMap::default();
        for &i in m.section(Section::Annotation) {
            let inst = m.inst(i);
            if inst.is(Op::Decorate) {
                if let Some(g) = inst.operand_id(0) {
                    if m.def_inst(g).is_some_and(|x| x.is(Op::DecorationGroup)) {
                        groups.entry(g).or_default().push(i);
                        continue;
                    }
                }
                d.add_decorate(m, i, None, &mut decoded);
            } else if inst.is(Op::MemberDecorate) {
                let ops = inst.operands();
                if let (Some(t), Some(&member), Some(&dec), Some(&val)) =
                    (inst.operand_id(0), ops.get(1), ops.get(2), ops.get(3))
                {
                    if dec == Decoration::Offset as u32 {
                        d.member_offsets.insert((t, member), val);
                    }
                }
            }
        }
        for &i in m.section(Section::Annotation) {
            let inst = m.inst(i);
            if inst.is(Op::GroupDecorate) {
                let Some(g) = inst.operand_id(0) else {
                    continue;
                };
                let Some(decs) = groups.get(&g) else { continue };
                for &target in &inst.operands()[1..] {
                    let Some(t) = Id::new(target) else { continue };
                    for &dec in decs {
                        d.add_decorate(m, dec, Some(t), &mut decoded);
                    }
                }
            }
        }
        d
    }

    fn add_decorate(
        &mut self,
        m: &Module,
        i: spvopt_ir::InstId,
        target: Option<Id>,
        decoded: &mut HashMap<spvopt_ir::InstId, Option<Rc<Linkage>>>,
    ) {
        let inst = m.inst(i);
        let ops = inst.operands();
        let Some(t) = target.or_else(|| inst.operand_id(0)) else {
            return;
        };
        let Some(&dec) = ops.get(1) else { return };
        let arg = ops.get(2).copied();
        match Decoration::from_u32(dec) {
            Some(Decoration::BuiltIn) => {
                if let Some(b) = arg {
                    self.builtin.insert(t, b);
                }
            }
            Some(Decoration::LinkageAttributes) => {
                let linkage = decoded.entry(i).or_insert_with(|| {
                    let rest = &ops[2.min(ops.len())..];
                    let name = decode_string(rest)?;
                    let words = name.len() / 4 + 1;
                    let ty = rest.get(words).copied().unwrap_or(0);
                    Some(Rc::new(Linkage {
                        name: name.to_string(),
                        import: ty == spirv::LinkageType::Import as u32,
                    }))
                });
                if let Some(l) = linkage {
                    self.linkage.insert(t, Rc::clone(l));
                }
            }
            Some(Decoration::FuncParamAttr) => {
                if let Some(a) = arg {
                    if a < 32 {
                        *self.param_attrs.entry(t).or_default() |= 1 << a;
                    }
                }
            }
            Some(Decoration::Restrict) => {
                self.restrict.insert(t, ());
            }
            Some(Decoration::SpecId) => {
                if let Some(s) = arg {
                    self.spec_id.insert(t, s);
                }
            }
            Some(Decoration::ArrayStride) => {
                if let Some(s) = arg {
                    self.array_stride.insert(t, s);
                }
            }
            Some(Decoration::Alignment) => {
                if let Some(a) = arg {
                    let e = self.alignment.entry(t).or_default();
                    *e = (*e).max(a);
                }
            }
            _ => {}
        }
    }

    /// The `Alignment` decoration of pointer `id` (bytes), if any: the pointer is a multiple of it.
    pub fn alignment(&self, id: Id) -> Option<u32> {
        self.alignment.get(&id).copied()
    }

    /// The `BuiltIn` of `id`, as its enumerant number.
    pub fn builtin(&self, id: Id) -> Option<u32> {
        self.builtin.get(&id).copied()
    }

    /// The `LinkageAttributes` of `id`.
    pub fn linkage(&self, id: Id) -> Option<&Linkage> {
        self.linkage.get(&id).map(|l| &**l)
    }

    /// Whether `id` (a function parameter) carries `FuncParamAttr attr`.
    pub fn has_param_attr(&self, id: Id, attr: spirv::FunctionParameterAttribute) -> bool {
        let bit = attr as u32;
        bit < 32
            && self
                .param_attrs
                .get(&id)
                .is_some_and(|&bits| bits & (1 << bit) != 0)
    }

    /// Whether `id` is decorated `Restrict` or `FuncParamAttr NoAlias`.
    pub fn is_noalias(&self, id: Id) -> bool {
        self.restrict.contains_key(&id)
            || self.has_param_attr(id, spirv::FunctionParameterAttribute::NoAlias)
    }

    /// The `SpecId` of a spec constant.
    pub fn spec_id(&self, id: Id) -> Option<u32> {
        self.spec_id.get(&id).copied()
    }

    /// The `ArrayStride` of an array or pointer type.
    pub fn array_stride(&self, ty: Id) -> Option<u32> {
        self.array_stride.get(&ty).copied()
    }

    /// The `Offset` of member `member` of struct type `ty`.
    pub fn member_offset(&self, ty: Id, member: u32) -> Option<u32> {
        self.member_offsets.get(&(ty, member)).copied()
    }
}

impl crate::cache::Analysis for Decorations {
    const KIND: crate::cache::AnalysisSet = crate::cache::AnalysisSet::DECORATIONS;
    fn compute(m: &Module, _: &mut crate::cache::Analyses) -> Self {
        Decorations::build(m)
    }
    fn same_facts(&self, fresh: &Self) -> bool {
        self == fresh
    }
}
