//! The structural check of [`super::verify`] done while loading ([`LoadChecks`]): the
//! definitions seen so far, and the instructions whose check has to wait for the whole module
//! (a short list of packed sites, or bit sets on a large module).

use spirv::Op;

use super::verifier::Verifier;
use super::{needs_kind_check, site_err, walk, Def, Site, NONE, UNDEFINED};
use crate::entity::EntitySet;
use crate::error::LoadError;
use crate::id::{BlockId, Id, InstId};
use crate::module::{Module, Section};

/// The structural check done while loading, in the loader's single walk: each instruction's
/// uses are checked against the definitions seen so far as it is placed; the few that need
/// the whole module (forward references, operand kinds of branches, calls, loads and stores)
/// are checked by [`LoadChecks::finish`]. Emission order is load order, so the first error
/// found is the one [`verify`] reports.
pub(crate) struct LoadChecks {
    defs: Vec<Def>,
    forward_pointers: Vec<u32>,
    /// The instructions [`LoadChecks::finish`] checks.
    waiting: Waiting,
}

/// The instructions waiting for [`LoadChecks::finish`]: a list of their sites in load order
/// while short (`true` for the whole check, `false` for the operand kinds only); past
/// [`WAITING_LIST_MAX`] entries, a bit per instruction in each of two sets, whose sites one
/// walk in emission order (which is load order) finds again at the end. A large module keeps
/// a fraction of a byte per instruction instead of 24 bytes per waiting one (most branches,
/// phis and names wait); a small one skips the walk.
enum Waiting {
    List(Vec<Recheck>),
    Bits {
        whole: EntitySet<InstId>,
        kinds: EntitySet<InstId>,
    },
}

/// Waiting instructions kept as a list (24 bytes each) before switching to bit sets.
const WAITING_LIST_MAX: usize = 4096;

impl Waiting {
    #[inline(always)]
    fn push(&mut self, site: Site, whole: bool) {
        match self {
            Waiting::List(list) if list.len() < WAITING_LIST_MAX => {
                list.push(Recheck::new(site, whole))
            }
            _ => self.push_past_list(site, whole),
        }
    }

    /// [`Waiting::push`] once the list is full (switching to the bit sets) or gone.
    #[inline(never)]
    fn push_past_list(&mut self, site: Site, whole: bool) {
        match self {
            Waiting::List(list) => {
                let (mut w, mut k) = (EntitySet::new(), EntitySet::new());
                for r in list.iter() {
                    if r.whole {
                        w.insert(r.inst);
                    } else {
                        k.insert(r.inst);
                    }
                }
                *self = Waiting::Bits { whole: w, kinds: k };
                self.push(site, whole);
            }
            Waiting::Bits { whole: w, kinds: k } => {
                if whole {
                    w.insert(site.inst);
                } else {
                    k.insert(site.inst);
                }
            }
        }
    }
}

impl LoadChecks {
    pub(crate) fn new(ids: usize, waiting_as_bits: bool) -> LoadChecks {
        LoadChecks {
            defs: Vec::with_capacity(ids),
            forward_pointers: Vec::new(),
            waiting: if waiting_as_bits {
                Waiting::Bits {
                    whole: EntitySet::new(),
                    kinds: EntitySet::new(),
                }
            } else {
                Waiting::List(Vec::new())
            },
        }
    }

    /// For an `OpLoad` / `OpStore` whose uses passed: whether its pointer operand is already
    /// known to have a pointer type, so that [`Verifier::check_operand_kinds`] (which checks
    /// only that for these two) has nothing left to find. A definition never changes once
    /// recorded, so what passes now passes at the end; anything else waits as before (this
    /// keeps the wait list of a large module short).
    #[inline]
    fn pointer_operand_ok_now(&self, m: &Module, inst: InstId, opcode: u16) -> bool {
        if opcode != Op::Load as u16 && opcode != Op::Store as u16 {
            return false;
        }
        let Some(p) = m.inst(inst).operand_id(0) else {
            return false;
        };
        let defined = |id: Id| self.defs.get(id.index()).is_some_and(|d| d.seq != NONE);
        if !defined(p) {
            return false;
        }
        let Some(ty) = m.def_inst(p).and_then(|d| d.result_type()) else {
            return false;
        };
        self.defs.get(ty.index()).is_some_and(|d| {
            d.seq != NONE
                && (d.op == Op::TypePointer as u16 || d.op == Op::TypeUntypedPointerKHR as u16)
        })
    }

    /// The definitions seen so far (for [`UseRule::ok`]).
    #[inline]
    pub(crate) fn defs(&self) -> &[Def] {
        &self.defs
    }

    /// `site.inst` (of `opcode`, defining `result`) has just been placed, and the loader found
    /// whether all its uses pass [`UseRule::ok`] (`uses_ok`, from its fused walk or from the
    /// use positions of its grammar walk): the instruction waits for [`LoadChecks::finish`]
    /// if they did not, or if its operand kinds need the whole module; then its result is
    /// recorded.
    #[inline(always)]
    pub(crate) fn record(
        &mut self,
        m: &Module,
        site: Site,
        opcode: u16,
        result: Option<Id>,
        forward_pointer: Option<u32>,
        uses_ok: bool,
    ) {
        if !uses_ok {
            self.waiting.push(site, true);
        } else if needs_kind_check(opcode) && !self.pointer_operand_ok_now(m, site.inst, opcode) {
            self.waiting.push(site, false);
        }
        if let Some(p) = forward_pointer {
            self.forward_pointers.push(p);
        }
        if let Some(r) = result {
            let i = r.word() as usize;
            if i >= self.defs.len() {
                self.defs.resize(i + 1, UNDEFINED);
            }
            self.defs[i] = Def::new(site.seq, site.scope, opcode);
        }
    }

    /// Checks what had to wait for the whole module.
    pub(crate) fn finish(mut self, m: &Module) -> Result<(), LoadError> {
        self.forward_pointers.sort_unstable();
        if self.defs.len() < m.id_capacity() {
            self.defs.resize(m.id_capacity(), UNDEFINED);
        }
        let mut v = Verifier {
            m,
            defs: self.defs,
            forward_pointers: self.forward_pointers,
            reachable: Vec::new(),
        };
        match self.waiting {
            Waiting::List(list) => {
                for r in list {
                    let (site, whole) = r.site();
                    if whole {
                        v.check_inst(site)?;
                    } else if m.inst(site.inst).is(Op::Phi) && v.phi_ok(site) {
                        // Its uses passed already; so do its parents.
                    } else {
                        v.check_operand_kinds(site)
                            .map_err(|kind| site_err(m, site, kind))?;
                    }
                }
                Ok(())
            }
            Waiting::Bits { whole, kinds } => walk(m, |site| {
                if whole.contains(site.inst) {
                    v.check_inst(site)
                } else if kinds.contains(site.inst) {
                    v.check_operand_kinds(site)
                        .map_err(|kind| site_err(m, site, kind))
                } else {
                    Ok(())
                }
            }),
        }
    }
}

/// A [`Site`] waiting for [`LoadChecks::finish`], packed (24 bytes instead of 40).
#[derive(Clone, Copy)]
struct Recheck {
    inst: InstId,
    /// Byte offset / 4.
    word: u32,
    seq: u32,
    scope: u32,
    block: Option<BlockId>,
    /// `Section as u8`, or `NO_SECTION`.
    section: u8,
    /// The whole check (`false`: the operand kinds only).
    whole: bool,
}

const NO_SECTION: u8 = u8::MAX;

impl Recheck {
    fn new(site: Site, whole: bool) -> Recheck {
        Recheck {
            inst: site.inst,
            word: (site.offset / 4) as u32,
            seq: site.seq,
            scope: site.scope,
            block: site.block,
            section: site.section.map_or(NO_SECTION, |s| s as u8),
            whole,
        }
    }

    fn site(self) -> (Site, bool) {
        (
            Site {
                inst: self.inst,
                offset: self.word as usize * 4,
                seq: self.seq,
                scope: self.scope,
                section: Section::ALL.get(usize::from(self.section)).copied(),
                block: self.block,
            },
            self.whole,
        )
    }
}
