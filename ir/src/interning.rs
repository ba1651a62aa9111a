//! Interning of types and constants: "the id of `u32`", "the id of constant u32 4".
//!
//! Like spirv-opt's TypeManager/ConstantManager, but minimal: a hash map from an instruction's
//! opcode and operand words (result type included for constants) to its result id. The table is
//! part of the [`Module`] (`InternTable`), so it is built once and kept across passes instead of
//! once per pass: it is brought up to date on each use by scanning only what was appended to the
//! global section since (the section grows at its end), and forgotten when the section is
//! edited otherwise (an instruction inserted, removed, replaced, the section reordered, ids
//! renumbered). A hit is checked against the words of the instruction it names, so an entry made
//! stale by an in-place edit is never returned. [`Interner`] is the handle passes use; new types
//! and constants are appended to the global section, after everything they use.

use smallvec::SmallVec;
use spirv::Op;

use crate::id::Id;
use crate::inst::Inst;
pub use crate::intern_table::is_internable;
use crate::intern_table::{InternTable, Key};
use crate::module::{Module, Section};

/// The handle passes intern types and constants through; the table itself lives in the
/// module (see the module docs), so any number of handles see the same one.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    _handle: (),
}

impl InternTable {
    /// Scans what was appended to the global section since the last use.
    fn sync(&mut self, m: &Module) {
        let list = m.section(Section::Global);
        if self.scanned > list.len() {
            self.invalidate();
        }
        for &i in &list[self.scanned..] {
            let inst = m.inst(i);
            if is_internable(inst.op()) {
                if let Some(r) = inst.result_id() {
                    // Decorated duplicates (e.g. two identical structs) keep the first.
                    self.map.entry(key_of(inst)).or_insert(r);
                }
            }
        }
        self.scanned = list.len();
    }

    /// The id the table has for `key`, if its instruction still has exactly these words.
    fn get(&self, m: &Module, key: &Key) -> Option<Id> {
        let id = *self.map.get(key)?;
        let inst = m.def_inst(id)?;
        (inst.opcode() == key.0 && key_of(inst) == *key).then_some(id)
    }
}

fn key_from(op: Op, result_type: Option<Id>, operands: &[u32]) -> Key {
    let mut k: SmallVec<[u32; 6]> = SmallVec::new();
    if let Some(t) = result_type {
        k.push(t.word());
    }
    k.extend_from_slice(operands);
    (op as u16, k)
}

fn key_of(inst: &Inst) -> Key {
    // Types: operands after the result id. Constants: result type plus operands.
    let mut k: SmallVec<[u32; 6]> = SmallVec::new();
    if let Some(t) = inst.result_type() {
        k.push(t.word());
    }
    k.extend_from_slice(inst.operands());
    (inst.opcode(), k)
}

impl Interner {
    /// The id of the type or constant `op` with the given (result type and) operands, created
    /// at the end of the global section when missing.
    pub fn intern(
        &mut self,
        m: &mut Module,
        op: Op,
        result_type: Option<Id>,
        operands: &[u32],
    ) -> Id {
        let mut table = std::mem::take(&mut m.interned);
        table.sync(m);
        let key = key_from(op, result_type, operands);
        let id = match table.get(m, &key) {
            Some(id) => id,
            None => {
                let id = m.fresh_id();
                m.push_to_section(
                    Section::Global,
                    Inst::new(op, result_type, Some(id), operands),
                );
                table.map.insert(key, id);
                table.scanned += 1;
                id
            }
        };
        m.interned = table;
        id
    }

    /// Looks up without creating (the module is not changed, so the table is not brought up
    /// to date: what was appended since its last use is searched in order).
    pub fn find(
        &mut self,
        m: &Module,
        op: Op,
        result_type: Option<Id>,
        operands: &[u32],
    ) -> Option<Id> {
        let key = key_from(op, result_type, operands);
        let table = &m.interned;
        let list = m.section(Section::Global);
        // The scanned part through the table, the rest (appended since, or everything after
        // an invalidation) by a scan in order: the first equal declaration, as a fresh table.
        let scanned = if table.scanned <= list.len() {
            table.scanned
        } else {
            0
        };
        if scanned > 0 {
            if let Some(id) = table.get(m, &key) {
                return Some(id);
            }
        }
        list[scanned..].iter().find_map(|&i| {
            let inst = m.inst(i);
            (inst.opcode() == key.0 && is_internable(inst.op()) && key_of(inst) == key)
                .then(|| inst.result_id())
                .flatten()
        })
    }

    /// `OpTypeVoid`.
    pub fn void(&mut self, m: &mut Module) -> Id {
        self.intern(m, Op::TypeVoid, None, &[])
    }
    /// `OpTypeBool`.
    pub fn bool(&mut self, m: &mut Module) -> Id {
        self.intern(m, Op::TypeBool, None, &[])
    }
    /// Integer type (OpenCL kernels use signedness 0).
    pub fn int(&mut self, m: &mut Module, width: u32) -> Id {
        self.intern(m, Op::TypeInt, None, &[width, 0])
    }
    /// Float type of `width` bits.
    pub fn float(&mut self, m: &mut Module, width: u32) -> Id {
        self.intern(m, Op::TypeFloat, None, &[width])
    }
    /// Vector of `n` `elem`s.
    pub fn vector(&mut self, m: &mut Module, elem: Id, n: u32) -> Id {
        self.intern(m, Op::TypeVector, None, &[elem.word(), n])
    }
    /// Pointer to `pointee` in `storage`.
    pub fn pointer(&mut self, m: &mut Module, storage: spirv::StorageClass, pointee: Id) -> Id {
        self.intern(m, Op::TypePointer, None, &[storage as u32, pointee.word()])
    }
    /// Array of `elem` with the length constant `length_const` (an id, not a number).
    pub fn array(&mut self, m: &mut Module, elem: Id, length_const: Id) -> Id {
        self.intern(m, Op::TypeArray, None, &[elem.word(), length_const.word()])
    }
    /// `OpTypeFunction` returning `ret` with `params`.
    pub fn function_type(&mut self, m: &mut Module, ret: Id, params: &[Id]) -> Id {
        let mut ops: Vec<u32> = vec![ret.word()];
        ops.extend(params.iter().map(|p| p.word()));
        self.intern(m, Op::TypeFunction, None, &ops)
    }
    /// Integer constant of type `ty` (32- or 64-bit).
    pub fn int_const(&mut self, m: &mut Module, ty: Id, value: u64) -> Id {
        let words = m.literal_words_of_type(ty).unwrap_or(1);
        if words >= 2 {
            self.intern(
                m,
                Op::Constant,
                Some(ty),
                &[value as u32, (value >> 32) as u32],
            )
        } else {
            self.intern(m, Op::Constant, Some(ty), &[value as u32])
        }
    }
    /// The constant u32 `value` (interning the type too).
    pub fn u32_const(&mut self, m: &mut Module, value: u32) -> Id {
        let t = self.int(m, 32);
        self.intern(m, Op::Constant, Some(t), &[value])
    }
    /// The constant u64 `value`.
    pub fn u64_const(&mut self, m: &mut Module, value: u64) -> Id {
        let t = self.int(m, 64);
        self.int_const(m, t, value)
    }
    /// The constant f32 `value` (its bits; -0.0 and NaN payloads kept apart).
    pub fn f32_const(&mut self, m: &mut Module, value: f32) -> Id {
        let t = self.float(m, 32);
        self.intern(m, Op::Constant, Some(t), &[value.to_bits()])
    }
    /// `OpConstantTrue` / `OpConstantFalse`.
    pub fn bool_const(&mut self, m: &mut Module, value: bool) -> Id {
        let t = self.bool(m);
        self.intern(
            m,
            if value {
                Op::ConstantTrue
            } else {
                Op::ConstantFalse
            },
            Some(t),
            &[],
        )
    }
    /// `OpConstantComposite` of type `ty` from constant `parts`.
    pub fn composite_const(&mut self, m: &mut Module, ty: Id, parts: &[Id]) -> Id {
        let ops: Vec<u32> = parts.iter().map(|p| p.word()).collect();
        self.intern(m, Op::ConstantComposite, Some(ty), &ops)
    }
    /// `OpConstantNull` of type `ty`.
    pub fn null_const(&mut self, m: &mut Module, ty: Id) -> Id {
        self.intern(m, Op::ConstantNull, Some(ty), &[])
    }
}

impl Module {
    /// The value of an integer `OpConstant` (zero-extended; 32 or 64 bits).
    pub fn const_int_value(&self, id: Id) -> Option<u64> {
        let inst = self.def_inst(id)?;
        match inst.op()? {
            Op::Constant => {
                let ty = self.def_inst(inst.result_type()?)?;
                if !ty.is(Op::TypeInt) {
                    return None;
                }
                let w = inst.operands();
                match w.len() {
                    1 => Some(w[0] as u64),
                    2 => Some(w[0] as u64 | (w[1] as u64) << 32),
                    _ => None,
                }
            }
            Op::ConstantNull => {
                let ty = self.def_inst(inst.result_type()?)?;
                ty.is(Op::TypeInt).then_some(0)
            }
            _ => None,
        }
    }
}
