//! Binary loader: SPIR-V words (either byte order) into a [`Module`].
//!
//! One pass over the words. Each instruction's operands are walked with the grammar to check
//! its structure (word counts, strings, ids below the bound, known ext-inst sets), placed in its
//! logical-layout section or function block, and its definition recorded. The structural
//! invariants of [`crate::verify()`] (ids defined, in scope, in order, of the right kind) are
//! checked in the same walk as each instruction is placed (`verify::LoadChecks`); only forward
//! references and branch / call / load / store operand kinds wait for the end. The result and
//! the error are exactly `verify`'s (`ir/tests/verify_equivalence.rs`).
//! Nothing is allocated per operand: operand words are copied inline into the instruction.

use crate::error::{LoadError, LoadErrorKind};
use crate::grammar::{self, ExtSet, SlotKind, WalkContext};
use crate::id::{BlockId, FuncId, Id, InstId};
use crate::inst::{opcode_display, Inst};
use crate::module::{Function, Header, Module, Section};
use smallvec::SmallVec;

use crate::verify::{LoadChecks, Site, UseRule, GLOBAL};

mod desc;
use desc::{load_desc, LoadDesc};

const MAGIC: u32 = 0x0723_0203;

/// Largest id value we accept (exclusive). Per-id side tables are dense, so an id's value sets
/// their size; SPIR-V's universal limit on the id bound is 4,194,303, we allow 4× that.
pub const MAX_ID: u32 = 1 << 24;

/// Ids below this are accepted in any module.
pub const SMALL_MODULE_ID_LIMIT: u32 = 1 << 16;

/// The largest id (exclusive) accepted in a module of `words` words: dense per-id tables then
/// cost O(module size) whatever ids the module claims. Every defined id needs an instruction
/// of at least two words, so a module whose ids are numbered compactly stays far below it.
pub fn id_limit(words: usize) -> u32 {
    (words.min(MAX_ID as usize) as u32).max(SMALL_MODULE_ID_LIMIT)
}

/// Loads a module from bytes (little- or big-endian SPIR-V), taking them: they are freed as
/// soon as the words are copied out, before the loader's tables are allocated (on a large
/// module that lowers the peak memory by the module's size).
pub fn load_bytes_owned(bytes: Vec<u8>) -> Result<Module, LoadError> {
    let (words, big_endian) = words_of_bytes(&bytes)?;
    drop(bytes);
    let mut m = load_pool(words, CheckMode::WhileLoading)?;
    m.header.big_endian = big_endian;
    Ok(m)
}

/// Loads a module from bytes (little- or big-endian SPIR-V).
pub fn load_bytes(bytes: &[u8]) -> Result<Module, LoadError> {
    let (words, big_endian) = words_of_bytes(bytes)?;
    let mut m = load_pool(words, CheckMode::WhileLoading)?;
    m.header.big_endian = big_endian;
    Ok(m)
}

/// The words of a binary in host order, and whether it was big-endian; the header checks.
fn words_of_bytes(bytes: &[u8]) -> Result<(Vec<u32>, bool), LoadError> {
    if bytes.is_empty() {
        return Err(err(0, None, LoadErrorKind::Empty));
    }
    if bytes.len() < 20 {
        return Err(err(0, None, LoadErrorKind::TruncatedHeader(bytes.len())));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(err(
            bytes.len() & !3,
            None,
            LoadErrorKind::NotWholeWords(bytes.len()),
        ));
    }
    let first = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let big_endian = if first == MAGIC {
        false
    } else if first.swap_bytes() == MAGIC {
        true
    } else {
        return Err(err(0, None, LoadErrorKind::BadMagic(first)));
    };
    let words: Vec<u32> = if !big_endian && bytes.as_ptr().align_offset(4) == 0 {
        // SAFETY: the pointer is 4-aligned, the length is a whole number of words (checked
        // above), any bit pattern is a valid u32, and the host is little-endian (grammar.rs
        // refuses to compile otherwise), so the bytes are the words.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), bytes.len() / 4) }
            .to_vec()
    } else {
        bytes
            .chunks_exact(4)
            .map(|c| {
                let w = [c[0], c[1], c[2], c[3]];
                if big_endian {
                    u32::from_be_bytes(w)
                } else {
                    u32::from_le_bytes(w)
                }
            })
            .collect()
    };
    Ok((words, big_endian))
}

/// Loads a module from words in host order.
pub fn load_words(words: &[u32]) -> Result<Module, LoadError> {
    if words.is_empty() {
        return Err(err(0, None, LoadErrorKind::Empty));
    }
    if words.len() < 5 {
        return Err(err(
            0,
            None,
            LoadErrorKind::TruncatedHeader(words.len() * 4),
        ));
    }
    if words[0] != MAGIC {
        return Err(err(0, None, LoadErrorKind::BadMagic(words[0])));
    }
    load_pool(words.to_vec(), CheckMode::WhileLoading)
}

fn err(offset: usize, instruction: Option<String>, kind: LoadErrorKind) -> LoadError {
    LoadError {
        offset,
        instruction,
        kind,
    }
}

/// Where the loader is in the module.
enum Place {
    /// In module-level section (the last one seen).
    ModuleLevel(Section),
    /// Inside function `f`, before its first block.
    FunctionHeader(FuncId),
    /// Inside block `b` of function `f`.
    Block(FuncId, BlockId),
    /// Between functions.
    BetweenFunctions,
}

struct Loader {
    /// Number of words of the module.
    n_words: usize,
    m: Module,
    /// Ids at or above this are rejected ([`id_limit`]).
    id_limit: u32,
    /// Debug instructions waiting for the next function (or the end of the module).
    pending: Vec<InstId>,
    /// The structural invariants, checked as instructions are placed.
    checks: LoadChecks,
    /// The links table starts at the first function ([`crate::module::Links`]).
    links_started: bool,
}

/// How the loader checks the structural invariants.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CheckMode {
    /// As instructions are placed (what every public entry point does).
    WhileLoading,
    /// The same, the waiting instructions kept as bit sets from the start.
    WhileLoadingAsBits,
    /// With [`crate::verify::verify_reference`] over the loaded module (the reference the
    /// first is tested against).
    AfterLoading,
}

/// Loads like [`load_words`] but checks the structural invariants with a separate walk of
/// [`crate::verify::verify_reference`] (no fast paths) after loading: the reference the loader's in-place check is tested
/// against (`ir/tests/verify_equivalence.rs`). Not for production use.
#[doc(hidden)]
pub fn load_words_verify_after(words: &[u32]) -> Result<Module, LoadError> {
    if words.len() < 5 || words[0] != MAGIC {
        return load_words(words);
    }
    load_pool(words.to_vec(), CheckMode::AfterLoading)
}

/// Loads like [`load_words`], with the instructions that wait for the end of the structural
/// check kept as bit sets from the first one on (what a large module switches to), so that
/// the tests check that form on small modules too. Not for production use.
#[doc(hidden)]
pub fn load_words_waiting_as_bits(words: &[u32]) -> Result<Module, LoadError> {
    if words.len() < 5 || words[0] != MAGIC {
        return load_words(words);
    }
    load_pool(words.to_vec(), CheckMode::WhileLoadingAsBits)
}

/// Loads the module whose words (host order, magic checked, at least the header) are `words`:
/// they become the module's pool, each instruction's first word replaced by its head.
fn load_pool(words: Vec<u32>, mode: CheckMode) -> Result<Module, LoadError> {
    let header = Header {
        version: words[1],
        generator: words[2],
        bound: words[3],
        schema: words[4],
        big_endian: false,
    };
    let n_words = words.len();
    let mut m = Module::new(header.version);
    m.header = header;
    // Ids are bounded by the number of words in practice; do not trust the bound for sizing.
    let estimate = (n_words / 3).min(header.bound as usize) + 1;
    m.defs = crate::entity::SecondaryMap::with_capacity(estimate, None);
    m.defs.resize(1);
    m.recs.reserve(n_words / 4);
    m.links.reserve(n_words / 4);
    m.pool = words;
    let mut l = Loader {
        n_words,
        m,
        id_limit: id_limit(n_words),
        pending: Vec::new(),
        checks: LoadChecks::new(estimate, mode == CheckMode::WhileLoadingAsBits),
        links_started: false,
    };
    // Until the first function, instructions get no link (the table starts there).
    l.m.links.start_at(usize::MAX);
    l.run()?;
    if !l.links_started {
        let n = l.m.recs.len();
        l.m.links.start_at(n);
    }
    let Loader { mut m, checks, .. } = l;
    m.header.bound = header.bound;
    match mode {
        CheckMode::WhileLoading | CheckMode::WhileLoadingAsBits => checks.finish(&m)?,
        CheckMode::AfterLoading => crate::verify::verify_reference(&m)?,
    }
    Ok(m)
}

impl Loader {
    fn run(&mut self) -> Result<(), LoadError> {
        let n_words = self.n_words;
        let bound = self.m.header.bound;
        let mut pos = 5;
        let mut seq = 0u32;
        let mut place = Place::ModuleLevel(Section::Capability);
        while pos < n_words {
            let first = self.m.pool[pos];
            let wc = (first >> 16) as usize;
            let opcode = (first & 0xffff) as u16;
            let offset = pos * 4;
            let name = || Some(opcode_display(opcode).into_owned());
            if wc == 0 {
                return Err(err(offset, name(), LoadErrorKind::ZeroWordCount));
            }
            if pos + wc > n_words {
                return Err(err(
                    offset,
                    name(),
                    LoadErrorKind::PastEnd {
                        word_count: wc,
                        remaining: n_words - pos,
                    },
                ));
            }
            let desc = load_desc(opcode);
            // The first word becomes the head; the words stay where they are.
            self.m.pool[pos] = desc.head;
            if let Place::Block(f, b) = place {
                let tail_uses = match desc.plain_body {
                    true => desc.fit(&self.m.pool[pos + 1..pos + wc]),
                    false => None,
                };
                if let Some(tail_uses) = tail_uses {
                    // The common case, decided here without `place`: a body instruction
                    // whose operands fit the fast shape, appended to the current block.
                    self.load_in_block((f, b), pos, wc, seq, &desc, tail_uses)?;
                    seq += 1;
                    pos += wc;
                    continue;
                }
            }
            let inst = Inst::from_slice(&self.m.pool[pos..pos + wc]);
            // Plain-word operands (most instructions): each use word's range and its
            // definition checked in one loop, against where the instruction will sit if it
            // can be placed (a placement error wins over what the loop found, as before).
            let fit = desc.fit(&inst.words);
            let fused = fit.is_some();
            let mut walked_uses = SmallVec::new();
            let uses_ok = if let Some(tail_uses) = fit {
                let (scope, section) = self.site_ahead(&place, opcode, &desc);
                let rule = UseRule::new(scope, seq, section, opcode == spirv::Op::Phi as u16);
                self.check_fast(inst, &desc, tail_uses, rule, offset, bound)?
            } else {
                walked_uses = self.check_operands(inst, offset, bound)?;
                false
            };
            let result = inst.result_id();
            let forward_pointer = (opcode == spirv::Op::TypeForwardPointer as u16)
                .then(|| inst.operand_word(0))
                .flatten();
            self.check_not_defined(result, opcode, offset)?;
            if opcode == spirv::Op::Function as u16 && !self.links_started {
                // Instructions before the first function never sit in a block: no links.
                self.m.links.start_at(self.m.recs.len());
                self.links_started = true;
            }
            let i = self.m.alloc_pooled(pos as u32, wc as u32, result);
            self.place(i, opcode, &mut place, offset)?;
            // Where it went, as `verify` walks the module (emission order is load order).
            let function_scope = |f: FuncId| f.index() as u32;
            let (scope, section, block) = match place {
                Place::ModuleLevel(s) => (GLOBAL, Some(s), None),
                Place::FunctionHeader(_) if opcode == spirv::Op::Function as u16 => {
                    (GLOBAL, None, None)
                }
                Place::FunctionHeader(f) => (function_scope(f), None, None),
                Place::Block(f, b) => (function_scope(f), None, Some(b)),
                Place::BetweenFunctions if opcode == spirv::Op::FunctionEnd as u16 => {
                    ((self.m.functions.len() - 1) as u32, None, None)
                }
                Place::BetweenFunctions => (GLOBAL, None, None),
            };
            let site = Site {
                inst: i,
                offset,
                seq,
                scope,
                section,
                block,
            };
            let uses_ok = uses_ok || {
                // The walked instruction's uses, now that its place is known.
                let rule = UseRule::new(scope, seq, section, opcode == spirv::Op::Phi as u16);
                let defs = self.checks.defs();
                let words = &self.m.inst(i).words;
                !fused
                    && walked_uses
                        .iter()
                        .all(|&(k, is_type)| rule.ok(defs, words[usize::from(k)], is_type))
            };
            self.checks
                .record(&self.m, site, opcode, result, forward_pointer, uses_ok);
            seq += 1;
            pos += wc;
        }
        match place {
            Place::FunctionHeader(_) | Place::Block(..) => {
                return Err(err(n_words * 4, None, LoadErrorKind::UnterminatedFunction));
            }
            _ => {}
        }
        self.m.trailing = std::mem::take(&mut self.pending);
        Ok(())
    }

    /// Loads the instruction of `wc` words at `pos`, a plain body instruction (see
    /// [`LoadDesc::plain_body`]) whose operands fit its fast shape, into block `b` of
    /// function `f`: what the general path of [`Loader::run`] does for it, in the same order
    /// (the range errors, then a duplicate definition), without its placement match.
    #[inline]
    fn load_in_block(
        &mut self,
        (f, b): (FuncId, BlockId),
        pos: usize,
        wc: usize,
        seq: u32,
        desc: &LoadDesc,
        tail_uses: u32,
    ) -> Result<(), LoadError> {
        let offset = pos * 4;
        let scope = f.index() as u32;
        let opcode = (desc.head & 0xffff) as u16;
        let inst = Inst::from_slice(&self.m.pool[pos..pos + wc]);
        let rule = UseRule::new(scope, seq, None, opcode == spirv::Op::Phi as u16);
        let uses_ok = self.check_fast(inst, desc, tail_uses, rule, offset, self.m.header.bound)?;
        let result = inst.result_id();
        self.check_not_defined(result, opcode, offset)?;
        let i = self
            .m
            .alloc_pooled_at_block_end(b, pos as u32, wc as u32, result);
        let site = Site {
            inst: i,
            offset,
            seq,
            scope,
            section: None,
            block: Some(b),
        };
        self.checks
            .record(&self.m, site, opcode, result, None, uses_ok);
        Ok(())
    }

    /// The error for a `result` some earlier instruction already defines.
    #[inline]
    fn check_not_defined(
        &self,
        result: Option<Id>,
        opcode: u16,
        offset: usize,
    ) -> Result<(), LoadError> {
        match result {
            Some(r) if self.m.def(r).is_some() => Err(err(
                offset,
                Some(opcode_display(opcode).into_owned()),
                LoadErrorKind::DuplicateDefinition(r.word()),
            )),
            _ => Ok(()),
        }
    }

    /// Scope and section the instruction of `opcode` gets if `place` can take it (what the
    /// loop after placement computes, known ahead for the fused check).
    #[inline]
    fn site_ahead(&self, place: &Place, opcode: u16, desc: &LoadDesc) -> (u32, Option<Section>) {
        match *place {
            Place::ModuleLevel(_) if opcode == spirv::Op::Function as u16 => (GLOBAL, None),
            Place::ModuleLevel(cur) => {
                let section = match desc.section() {
                    Some(s) => s,
                    None if desc.known => Section::Global,
                    None => cur,
                };
                (GLOBAL, Some(section))
            }
            Place::BetweenFunctions => (GLOBAL, None),
            Place::FunctionHeader(f) | Place::Block(f, _) => (f.index() as u32, None),
        }
    }

    /// The fused check of an instruction whose operands fit its fast shape: every use word in
    /// range (else the error, exactly as [`Loader::check_operands`] reports it) and, in the
    /// same loop, whether every use passes `rule` (`Ok(false)` sends the instruction to the
    /// full check at the end). `tail_uses` marks further used ids after the fixed prefix (bit
    /// k: word `fixed + k`, from [`LoadDesc::fit`]). One comparison per word for the range;
    /// the error, if any, is found again by [`Loader::range_error`].
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn check_fast(
        &self,
        inst: &Inst,
        desc: &LoadDesc,
        tail_uses: u32,
        rule: UseRule,
        offset: usize,
        bound: u32,
    ) -> Result<bool, LoadError> {
        let words = &inst.words;
        // `w` in 1..min(bound, limit) as one comparison: `w - 1` wraps for 0.
        let span = bound.min(self.id_limit).saturating_sub(1);
        let in_range = |w: u32| w.wrapping_sub(1) < span;
        let defs = self.checks.defs();
        let has_type = inst.has_result_type();
        let mut all_ok = true;
        let mut all_in_range = true;
        let mut mask = desc.use_mask;
        if has_type && mask & 1 != 0 {
            let w = words[0];
            all_in_range &= in_range(w);
            all_ok &= rule.ok(defs, w, true);
            mask &= !1;
        }
        while mask != 0 {
            let w = words[mask.trailing_zeros() as usize];
            mask &= mask - 1;
            all_in_range &= in_range(w);
            all_ok &= rule.ok(defs, w, false);
        }
        if desc.tail == 1 {
            for &w in &words[usize::from(desc.fixed)..] {
                all_in_range &= in_range(w);
                all_ok &= rule.ok(defs, w, false);
            }
        }
        let mut tail_uses = tail_uses;
        while tail_uses != 0 {
            let w = words[usize::from(desc.fixed) + tail_uses.trailing_zeros() as usize];
            tail_uses &= tail_uses - 1;
            all_in_range &= in_range(w);
            all_ok &= rule.ok(defs, w, false);
        }
        if inst.has_result() {
            all_in_range &= in_range(words[usize::from(has_type)]);
        }
        if all_in_range {
            Ok(all_ok)
        } else {
            Err(self.range_error(inst, offset, bound))
        }
    }

    /// The error [`Loader::check_fast`] found: the one the grammar walk reports (the first id
    /// word out of range in operand order), so that an instruction's error does not depend on
    /// which path checked it.
    #[cold]
    #[inline(never)]
    fn range_error(&self, inst: &Inst, offset: usize, bound: u32) -> LoadError {
        match self.check_operands(inst, offset, bound) {
            Err(e) => e,
            // Not reached: a word out of range is one the walk finds too.
            Ok(_) => err(
                offset,
                Some(inst.name().into_owned()),
                LoadErrorKind::Operands("an id out of range".into()),
            ),
        }
    }

    /// The structural check of an instruction whose operands the fast shape does not cover:
    /// the grammar walk (word counts, strings, enumerants, known ext-inst sets) and every id
    /// word's range. Returns where the used ids are (word index, and whether it is the result
    /// type), so that their definitions are checked without a second walk.
    fn check_operands(
        &self,
        inst: &Inst,
        offset: usize,
        bound: u32,
    ) -> Result<SmallVec<[(u16, bool); 16]>, LoadError> {
        let name = || Some(inst.name().into_owned());
        let mut bad: Option<LoadErrorKind> = None;
        let limit = self.id_limit;
        let too_large = |id: u32| LoadErrorKind::IdTooLargeForSize {
            id,
            limit,
            words: self.n_words,
        };
        let words = &inst.words;
        let range = |w: u32| {
            if w == 0 {
                Some(LoadErrorKind::IdZero)
            } else if w >= bound {
                Some(LoadErrorKind::IdOutOfBound { id: w, bound })
            } else if w >= limit {
                Some(too_large(w))
            } else {
                None
            }
        };
        let mut uses = SmallVec::new();
        let walk = grammar::walk_operands(inst.opcode(), &inst.words, &self.m, |slot| {
            if bad.is_some() {
                return;
            }
            match slot.kind {
                SlotKind::Id | SlotKind::ResultType => {
                    bad = range(words[slot.index]);
                    uses.push((slot.index as u16, slot.kind == SlotKind::ResultType));
                }
                SlotKind::Result => bad = range(words[slot.index]),
                _ => {}
            }
        });
        if let Err(e) = walk {
            return Err(err(offset, name(), LoadErrorKind::Operands(e.to_string())));
        }
        if let Some(k) = bad {
            return Err(err(offset, name(), k));
        }
        Ok(uses)
    }

    /// Places the allocated (unplaced) instruction `i` of `opcode`, updating `place`.
    fn place(
        &mut self,
        i: InstId,
        opcode: u16,
        place: &mut Place,
        offset: usize,
    ) -> Result<(), LoadError> {
        use spirv::Op;
        let name = || Some(opcode_display(opcode).into_owned());
        // Raw opcode comparisons: `Op::from_u32` is a large match and this runs per instruction.
        let known = grammar::inst_desc(opcode).is_some();
        let is = |o: Op| opcode == o as u16;
        let is_debug_line = is(Op::Line) || is(Op::NoLine);
        let is_debug_ext = is(Op::ExtInst)
            && self
                .m
                .inst(i)
                .operand_id(0)
                .and_then(|s| self.m.ext_set(s))
                .is_some_and(ExtSet::is_debug_or_non_semantic);
        match *place {
            Place::ModuleLevel(cur) => {
                if is(Op::Function) {
                    return self.start_function(i, place);
                }
                let section = match Section::of_opcode(opcode) {
                    Some(s) => s,
                    None if crate::module::is_function_body_only(opcode) => {
                        return Err(err(offset, name(), LoadErrorKind::OutsideFunction));
                    }
                    // Types, constants, variables, OpUndef, OpLine, module-level OpExtInst.
                    None if known => Section::Global,
                    // Unknown opcode: stays in the current section.
                    None => cur,
                };
                if section < cur {
                    return Err(err(
                        offset,
                        name(),
                        LoadErrorKind::OutOfOrder(format!(
                            "a {section:?}-section instruction after the {cur:?} section"
                        )),
                    ));
                }
                if is(Op::ExtInstImport) {
                    let inst = self.m.inst(i);
                    let set_name = grammar::decode_string(inst.operands()).unwrap_or("");
                    let Some(set) = ExtSet::from_name(set_name) else {
                        return Err(err(
                            offset,
                            name(),
                            LoadErrorKind::UnknownExtInstSet(set_name.to_string()),
                        ));
                    };
                    if let Some(r) = inst.result_id() {
                        self.m.register_ext_set(r, set);
                    }
                }
                *place = Place::ModuleLevel(section);
                self.m.sections[section as usize].push(i);
                Ok(())
            }
            Place::BetweenFunctions => {
                if is(Op::Function) {
                    return self.start_function(i, place);
                }
                if is_debug_line || is_debug_ext || !known {
                    self.pending.push(i);
                    return Ok(());
                }
                Err(err(
                    offset,
                    name(),
                    LoadErrorKind::OutOfOrder(
                        "a module-level instruction after the functions".into(),
                    ),
                ))
            }
            Place::FunctionHeader(f) => match opcode {
                o if o == Op::Label as u16 => self.start_block(i, f, place),
                o if o == Op::FunctionEnd as u16 => self.end_function(i, f, place),
                o if o == Op::Function as u16 => {
                    Err(err(offset, name(), LoadErrorKind::NestedFunction))
                }
                o if o == Op::FunctionParameter as u16 || !known => {
                    self.m.functions[f].header.push(i);
                    Ok(())
                }
                _ if is_debug_line || is_debug_ext => {
                    self.m.functions[f].header.push(i);
                    Ok(())
                }
                _ => Err(err(offset, name(), LoadErrorKind::OutsideBlock)),
            },
            Place::Block(f, b) => match opcode {
                o if o == Op::Label as u16 => self.start_block(i, f, place),
                o if o == Op::FunctionEnd as u16 => self.end_function(i, f, place),
                o if o == Op::Function as u16 => {
                    Err(err(offset, name(), LoadErrorKind::NestedFunction))
                }
                o if o == Op::FunctionParameter as u16 => Err(err(
                    offset,
                    name(),
                    LoadErrorKind::OutOfOrder("OpFunctionParameter inside a block".into()),
                )),
                _ if known && Section::of_opcode(opcode).is_some() => Err(err(
                    offset,
                    name(),
                    LoadErrorKind::OutOfOrder(
                        "a module-level instruction inside a function".into(),
                    ),
                )),
                _ => {
                    self.m.link_at_end(b, i);
                    Ok(())
                }
            },
        }
    }

    fn start_function(&mut self, def: InstId, place: &mut Place) -> Result<(), LoadError> {
        let f = FuncId::from_index(self.m.functions.len());
        self.m.functions.push(Function {
            prefix: std::mem::take(&mut self.pending),
            def,
            header: Vec::new(),
            blocks: Vec::new(),
            // Replaced by the real OpFunctionEnd; the loader errors if none comes.
            end: def,
        });
        *place = Place::FunctionHeader(f);
        Ok(())
    }

    fn start_block(
        &mut self,
        label: InstId,
        f: FuncId,
        place: &mut Place,
    ) -> Result<(), LoadError> {
        let b = self.m.append_block_labelled(f, label);
        *place = Place::Block(f, b);
        Ok(())
    }

    fn end_function(&mut self, end: InstId, f: FuncId, place: &mut Place) -> Result<(), LoadError> {
        self.m.functions[f].end = end;
        *place = Place::BetweenFunctions;
        Ok(())
    }
}

impl WalkContext for Loader {
    fn ext_set(&self, set: Id) -> Option<ExtSet> {
        self.m.ext_set(set)
    }
    fn literal_words_of_value(&self, value: Id) -> Option<u32> {
        self.m.literal_words_of_value(value)
    }
}
