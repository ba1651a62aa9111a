//! Where the bytes of a value come from: follows one byte of an SSA value back through the
//! instructions that only move data (bitcasts, vector shuffles, composite extract / insert /
//! construct, copies) to the load that read it, a zero constant, an undefined value, or a
//! masked load (`phi(load, 0)` after a branch on a condition, `select(c, load, 0)`: Triton's
//! masked loads; `OpPredicatedLoadINTEL` with a zero default: Triton's since 2026).
//!
//! The answer is the same for every invocation (the instructions are), so the caller traces
//! once per byte and evaluates addresses per invocation with the lane map.

use spirv::Op;
use spvopt_analysis::cfg::{block_of_label, Cfg};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::types::size_of;
use spvopt_analysis::Dominators;
use spvopt_ir::opcode_class::OP_PREDICATED_LOAD_INTEL;
use spvopt_ir::{FuncId, Id, Inst, InstId, Module};

/// The origin of one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteSource {
    /// Byte `byte` of the value `load` read.
    Load { load: InstId, byte: u32 },
    /// Byte `byte` of the value `load` read when `cond` is `polarity` (and each condition of
    /// `also` has its polarity: masks nested over several branches), else 0.
    Masked {
        load: InstId,
        byte: u32,
        cond: Id,
        polarity: bool,
        also: [Option<(Id, bool)>; 2],
    },
    /// A byte of a zero constant.
    Zero,
    /// A byte of an undefined value (any value is correct).
    Undef,
}

impl ByteSource {
    /// The source `j` bytes further into the same loaded value (`None` for a zero or an
    /// undefined byte, which have no position).
    pub fn shifted(self, j: u32) -> Option<ByteSource> {
        match self {
            ByteSource::Load { load, byte } => Some(ByteSource::Load {
                load,
                byte: byte + j,
            }),
            ByteSource::Masked {
                load,
                byte,
                cond,
                polarity,
                also,
            } => Some(ByteSource::Masked {
                load,
                byte: byte + j,
                cond,
                polarity,
                also,
            }),
            ByteSource::Zero | ByteSource::Undef => None,
        }
    }
}

/// Why a byte could not be traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Untraceable(pub Id);

/// The tracer of one function.
pub struct Tracer<'a> {
    pub m: &'a Module,
    pub dec: &'a Decorations,
    pub cfg: &'a Cfg,
    pub dom: &'a Dominators,
    pub func: FuncId,
}

/// Longest chain of data moves followed.
const MAX_STEPS: usize = 256;

/// One step of a trace.
#[derive(Clone, Copy)]
enum Step {
    /// The byte is byte `.1` of value `.0`: follow it.
    Next(Id, u32),
    /// The answer.
    Done(Result<ByteSource, Untraceable>),
}

impl Tracer<'_> {
    fn size(&self, id: Id) -> Option<u32> {
        let ty = self.m.type_of(id)?;
        size_of(self.m, self.dec, ty).and_then(|s| u32::try_from(s).ok())
    }

    fn type_size(&self, ty: Id) -> Option<u32> {
        // A zero size (a hostile module's empty struct) would divide by zero below.
        size_of(self.m, self.dec, ty)
            .and_then(|s| u32::try_from(s).ok())
            .filter(|&s| s > 0)
    }

    /// The component type and count of a vector type.
    fn vector(&self, ty: Id) -> Option<(Id, u32)> {
        let t = self.m.def_inst(ty)?;
        t.is(Op::TypeVector)
            .then(|| Some((t.operand_id(0)?, t.operand_word(1)?)))
            .flatten()
    }

    /// Where byte `byte` of `id` comes from.
    pub fn trace(&self, mut id: Id, mut byte: u32) -> Result<ByteSource, Untraceable> {
        for _ in 0..MAX_STEPS {
            match self.step(id, byte) {
                Step::Next(next, b) => (id, byte) = (next, b),
                Step::Done(answer) => return answer,
            }
        }
        Err(Untraceable(id))
    }

    /// One step of [`Tracer::trace`]: the answer for byte `byte` of `id`, or the value and
    /// byte it is a copy of.
    fn step(&self, id: Id, byte: u32) -> Step {
        let fail = Step::Done(Err(Untraceable(id)));
        let Some(d) = self.m.def(id) else {
            return fail;
        };
        let inst = self.m.inst(d);
        let Some(op) = inst.op() else {
            if inst.opcode() == OP_PREDICATED_LOAD_INTEL {
                return Step::Done(self.predicated_load(id, d, byte));
            }
            return fail;
        };
        let next = match op {
            Op::Load => return Step::Done(Ok(ByteSource::Load { load: d, byte })),
            Op::Undef => return Step::Done(Ok(ByteSource::Undef)),
            Op::ConstantNull => return Step::Done(Ok(ByteSource::Zero)),
            Op::Constant => {
                let w = inst.operands().get(byte as usize / 4).copied().unwrap_or(0);
                if (w >> (8 * (byte % 4))) & 0xff == 0 {
                    return Step::Done(Ok(ByteSource::Zero));
                }
                None
            }
            Op::ConstantComposite => self.constant_component(inst, byte),
            Op::Bitcast | Op::CopyObject => inst
                .operand_id(0)
                .filter(|&src| self.size(src) == self.size(id))
                .map(|src| (src, byte)),
            Op::CompositeExtract => self.extracted(inst, byte),
            Op::CompositeInsert => self.inserted(inst, byte),
            Op::CompositeConstruct => self.constructed(inst, byte),
            Op::VectorShuffle => return self.shuffled(inst, byte).unwrap_or(fail),
            Op::Phi => return Step::Done(self.masked_phi(id, d, byte)),
            Op::Select => return Step::Done(self.masked_select(id, inst, byte)),
            _ => None,
        };
        match next {
            Some((next, b)) => Step::Next(next, b),
            None => fail,
        }
    }

    /// `OpPredicatedLoadINTEL %T %r %ptr %pred %default` (instruction `d`, result `id`): a
    /// masked load when the default is zero (Triton's masked loads since 2026).
    fn predicated_load(&self, id: Id, d: InstId, byte: u32) -> Result<ByteSource, Untraceable> {
        let inst = self.m.inst(d);
        let (Some(cond), Some(default)) = (inst.operand_id(1), inst.operand_id(2)) else {
            return Err(Untraceable(id));
        };
        let zero = matches!(
            self.trace(default, byte),
            Ok(ByteSource::Zero) | Ok(ByteSource::Undef)
        );
        if !zero {
            return Err(Untraceable(id));
        }
        Ok(ByteSource::Masked {
            load: d,
            byte,
            cond,
            polarity: true,
            also: [None, None],
        })
    }

    /// Byte `byte` of a vector `OpConstantComposite`: the constituent and byte it is.
    fn constant_component(&self, inst: &Inst, byte: u32) -> Option<(Id, u32)> {
        let (comp, _) = self.vector(inst.result_type()?)?;
        let cs = self.type_size(comp)?;
        let part = inst.operand_id((byte / cs) as usize)?;
        Some((part, byte % cs))
    }

    /// Byte `byte` of a one-index `OpCompositeExtract` of a vector: the byte of the vector.
    fn extracted(&self, inst: &Inst, byte: u32) -> Option<(Id, u32)> {
        let src = inst.operand_id(0)?;
        let (comp, _) = self.m.type_of(src).and_then(|t| self.vector(t))?;
        let (Some(cs), Some(k), None) = (
            self.type_size(comp),
            inst.operand_word(1),
            inst.operand_word(2),
        ) else {
            return None;
        };
        // Selectors are the module's words: checked, never wrapped.
        let b = k.checked_mul(cs).and_then(|o| o.checked_add(byte))?;
        Some((src, b))
    }

    /// Byte `byte` of a one-index `OpCompositeInsert`: of the inserted object or of the
    /// composite.
    fn inserted(&self, inst: &Inst, byte: u32) -> Option<(Id, u32)> {
        let (Some(obj), Some(comp), Some(k), None) = (
            inst.operand_id(0),
            inst.operand_id(1),
            inst.operand_word(2),
            inst.operand_word(3),
        ) else {
            return None;
        };
        let cs = self.size(obj).filter(|&s| s > 0)?;
        if byte / cs == k {
            Some((obj, byte % cs))
        } else {
            Some((comp, byte))
        }
    }

    /// Byte `byte` of an `OpCompositeConstruct`: the constituent and byte it is.
    fn constructed(&self, inst: &Inst, byte: u32) -> Option<(Id, u32)> {
        let mut at = 0u32;
        for &w in inst.operands() {
            let part = Id::new(w)?;
            let s = self.size(part)?;
            let end = at.checked_add(s)?;
            if byte < end {
                return Some((part, byte - at));
            }
            at = end;
        }
        None
    }

    /// Byte `byte` of an `OpVectorShuffle`: the byte of the vector it selects, or undefined
    /// (selector `0xFFFFFFFF`); `None` when not traced.
    fn shuffled(&self, inst: &Inst, byte: u32) -> Option<Step> {
        let (v1, v2) = (inst.operand_id(0)?, inst.operand_id(1)?);
        let (comp, n1) = self.vector(self.m.type_of(v1)?)?;
        let cs = self.type_size(comp)?;
        let sel = inst.operand_word(2 + (byte / cs) as usize)?;
        if sel == u32::MAX {
            return Some(Step::Done(Ok(ByteSource::Undef)));
        }
        let n2 = self
            .m
            .type_of(v2)
            .and_then(|t| self.vector(t))
            .map_or(0, |(_, n)| n);
        // A selector past both vectors (invalid SPIR-V a hostile module may hold) is not
        // traced.
        let (src, k) = if sel < n1 {
            (v1, sel)
        } else if sel - n1 < n2 {
            (v2, sel - n1)
        } else {
            return None;
        };
        let b = k.checked_mul(cs).and_then(|o| o.checked_add(byte % cs))?;
        Some(Step::Next(src, b))
    }

    /// `select(c, load, 0)` or `select(c, 0, load)` (result `id`): the load's byte masked by
    /// `c` (or `!c`).
    fn masked_select(&self, id: Id, inst: &Inst, byte: u32) -> Result<ByteSource, Untraceable> {
        let (Some(c), Some(a), Some(b)) =
            (inst.operand_id(0), inst.operand_id(1), inst.operand_id(2))
        else {
            return Err(Untraceable(id));
        };
        let (ta, tb) = (self.trace(a, byte)?, self.trace(b, byte)?);
        let (load, byte, polarity) = match (ta, tb) {
            (ByteSource::Load { load, byte }, ByteSource::Zero) => (load, byte, true),
            (ByteSource::Zero, ByteSource::Load { load, byte }) => (load, byte, false),
            _ => return Err(Untraceable(id)),
        };
        Ok(ByteSource::Masked {
            load,
            byte,
            cond: c,
            polarity,
            also: [None, None],
        })
    }

    /// `phi(v from L, 0 from P)` where `P` ends with `br c, L, here` (or `br c, here, L`)
    /// and `L` branches to here: the load's value when the branch went to `L`, else 0. More
    /// generally (what LLVM's jump threading makes of `if (a) { if (b) v = load; }`): every
    /// incoming value that is not zero is the same masked or plain load `v`, and every zero
    /// comes from a block `Z` ending in `br c, here, C` (or `br c, C, here`) whose other
    /// successor `C` is entered only from `Z` and dominates every block a `v` comes from: the
    /// phi is `v` exactly when every such branch went on, so its mask is their conditions and
    /// `v`'s (at most three in all).
    fn masked_phi(&self, id: Id, phi: InstId, byte: u32) -> Result<ByteSource, Untraceable> {
        let fail = Err(Untraceable(id));
        let inst = self.m.inst(phi);
        let ops = inst.operands();
        let Some(here) = self.m.inst_block(phi) else {
            return fail;
        };
        let mut value: Option<ByteSource> = None;
        let mut value_from = Vec::new();
        let mut zero_from = Vec::new();
        for pair in ops.chunks(2) {
            let (Some(v), Some(label)) = (Id::new(pair[0]), Id::new(pair[1])) else {
                return fail;
            };
            let Some(b) = block_of_label(self.m, label, self.func) else {
                return fail;
            };
            match self.trace(v, byte)? {
                ByteSource::Zero => zero_from.push(b),
                src @ (ByteSource::Load { .. } | ByteSource::Masked { .. }) => {
                    if value.is_some_and(|x| x != src) {
                        return fail;
                    }
                    value = Some(src);
                    value_from.push(b);
                }
                _ => return fail,
            }
        }
        let (Some(src), false) = (value, zero_from.is_empty()) else {
            return fail;
        };
        let h_label = self.m.block_label(here);
        let mut conds: Vec<(Id, bool)> = Vec::new();
        for &z in &zero_from {
            let Some(t) = self.m.block_terminator(z) else {
                return fail;
            };
            let term = self.m.inst(t);
            if !term.is(Op::BranchConditional) {
                return fail;
            }
            let (Some(c), Some(t1), Some(t2)) =
                (term.operand_id(0), term.operand_id(1), term.operand_id(2))
            else {
                return fail;
            };
            let (polarity, cont) = if t2 == h_label && t1 != h_label {
                (true, t1)
            } else if t1 == h_label && t2 != h_label {
                (false, t2)
            } else {
                return fail;
            };
            let Some(cb) = block_of_label(self.m, cont, self.func) else {
                return fail;
            };
            // Reaching a block a value comes from means this branch went on.
            if self.cfg.preds(cb) != [z] || !value_from.iter().all(|&v| self.dom.dominates(cb, v)) {
                return fail;
            }
            if !conds.contains(&(c, polarity)) {
                conds.push((c, polarity));
            }
        }
        let (load, byte, mut all) = match src {
            ByteSource::Load { load, byte } => (load, byte, Vec::new()),
            ByteSource::Masked {
                load,
                byte,
                cond,
                polarity,
                also,
            } => {
                let mut v = vec![(cond, polarity)];
                v.extend(also.iter().flatten().copied());
                (load, byte, v)
            }
            _ => return fail,
        };
        for c in conds {
            if !all.contains(&c) {
                all.push(c);
            }
        }
        if all.len() > 3 {
            return fail;
        }
        Ok(ByteSource::Masked {
            load,
            byte,
            cond: all[0].0,
            polarity: all[0].1,
            also: [all.get(1).copied(), all.get(2).copied()],
        })
    }
}
