//! Writing SPIR-V words: instructions, strings, and a module's sections with types and
//! constants made once (spirv-val rejects a second `OpTypeInt 32 0`).

use std::collections::HashMap;

use spirv::{Capability, Op};

/// Appends one instruction.
pub fn inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    out.extend_from_slice(operands);
}

/// A literal string: UTF-8 bytes, NUL-terminated, padded to whole words.
pub fn string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The module-level sections being built.
#[derive(Default)]
pub struct Sections {
    pub bound: u32,
    pub capabilities: Vec<u32>,
    pub extensions: Vec<&'static str>,
    pub names: Vec<u32>,
    pub annotations: Vec<u32>,
    /// Types, constants and global variables, in definition order.
    pub globals: Vec<u32>,
    /// Imported function declarations (before the kernel).
    pub declarations: Vec<u32>,
    cache: HashMap<Vec<u32>, u32>,
}

impl Sections {
    pub fn new() -> Sections {
        Sections {
            bound: 1,
            ..Sections::default()
        }
    }

    pub fn id(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    pub fn cap(&mut self, c: Capability) {
        if !self.capabilities.contains(&(c as u32)) {
            self.capabilities.push(c as u32);
        }
    }

    pub fn ext(&mut self, e: &'static str) {
        if !self.extensions.contains(&e) {
            self.extensions.push(e);
        }
    }

    /// A type or constant `op` whose operands after the result id are `rest` (after the
    /// result type for constants: pass it first), made once.
    fn cached(&mut self, op: Op, result_type: Option<u32>, rest: &[u32]) -> u32 {
        let mut key = vec![op as u32];
        key.extend(result_type);
        key.extend_from_slice(rest);
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = self.id();
        let mut ops: Vec<u32> = result_type.into_iter().collect();
        ops.push(id);
        ops.extend_from_slice(rest);
        inst(&mut self.globals, op, &ops);
        self.cache.insert(key, id);
        id
    }

    pub fn void(&mut self) -> u32 {
        self.cached(Op::TypeVoid, None, &[])
    }
    pub fn bool_(&mut self) -> u32 {
        self.cached(Op::TypeBool, None, &[])
    }
    pub fn int(&mut self, bits: u32) -> u32 {
        match bits {
            8 => self.cap(Capability::Int8),
            16 => self.cap(Capability::Int16),
            64 => self.cap(Capability::Int64),
            _ => {}
        }
        self.cached(Op::TypeInt, None, &[bits, 0])
    }
    pub fn float(&mut self, bits: u32) -> u32 {
        if bits == 16 {
            self.cap(Capability::Float16);
        }
        self.cached(Op::TypeFloat, None, &[bits])
    }
    pub fn vector(&mut self, elem: u32, n: u32) -> u32 {
        if n == 1 {
            return elem;
        }
        if n > 4 {
            self.cap(Capability::Vector16);
        }
        self.cached(Op::TypeVector, None, &[elem, n])
    }
    pub fn array(&mut self, elem: u32, len: u32) -> u32 {
        let u32_ = self.int(32);
        let n = self.constant(u32_, u64::from(len), 32);
        self.cached(Op::TypeArray, None, &[elem, n])
    }
    pub fn pointer(&mut self, storage: spirv::StorageClass, pointee: u32) -> u32 {
        self.cached(Op::TypePointer, None, &[storage as u32, pointee])
    }
    pub fn function_type(&mut self, ret: u32, params: &[u32]) -> u32 {
        let mut ops = vec![ret];
        ops.extend_from_slice(params);
        self.cached(Op::TypeFunction, None, &ops)
    }
    /// A scalar integer or float constant of `bits` bits.
    pub fn constant(&mut self, ty: u32, value: u64, bits: u32) -> u32 {
        if bits == 64 {
            self.cached(
                Op::Constant,
                Some(ty),
                &[value as u32, (value >> 32) as u32],
            )
        } else {
            let mask = if bits == 32 {
                u32::MAX
            } else {
                (1u32 << bits) - 1
            };
            self.cached(Op::Constant, Some(ty), &[value as u32 & mask])
        }
    }
    /// A constant vector of constant `parts`.
    pub fn composite(&mut self, ty: u32, parts: &[u32]) -> u32 {
        self.cached(Op::ConstantComposite, Some(ty), parts)
    }
    pub fn null(&mut self, ty: u32) -> u32 {
        self.cached(Op::ConstantNull, Some(ty), &[])
    }

    pub fn name(&mut self, id: u32, name: &str) {
        let mut ops = vec![id];
        ops.extend(string(name));
        inst(&mut self.names, Op::Name, &ops);
    }
    pub fn decorate(&mut self, id: u32, decoration: spirv::Decoration, extra: &[u32]) {
        let mut ops = vec![id, decoration as u32];
        ops.extend_from_slice(extra);
        inst(&mut self.annotations, Op::Decorate, &ops);
    }
}
