//! Small queries about SPIR-V types that several analyses share: integer widths, vector
//! component counts, pointer storage classes and pointees, and byte sizes of data types.
//!
//! Sizes follow the OpenCL C data layout that Kernel modules use: scalars are their width in
//! bytes, a vector of 3 occupies the size of a vector of 4, arrays are length × element size
//! (or `ArrayStride` when decorated), structs use their member `Offset`s when every member has
//! one and otherwise the natural alignment of each member. Anything else (runtime arrays,
//! opaque types, missing definitions) has no size, so callers treat it as unknown.

use spirv::Op;
use spvopt_ir::{Id, Module};

use crate::decorations::Decorations;
use crate::operands::op_of;

/// Bit width of the integer type `ty`.
pub fn int_width(m: &Module, ty: Id) -> Option<u32> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypeInt) {
        t.operand_word(0)
    } else {
        None
    }
}

/// Whether `ty` is `OpTypeBool`.
pub fn is_bool(m: &Module, ty: Id) -> bool {
    m.def_inst(ty).is_some_and(|t| t.is(Op::TypeBool))
}

/// `(component type, count)` of the vector type `ty`.
pub fn vector_of(m: &Module, ty: Id) -> Option<(Id, u32)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypeVector) {
        Some((t.operand_id(0)?, t.operand_word(1)?))
    } else {
        None
    }
}

/// The width of the integer type `ty`, or of the components of the integer vector type `ty`,
/// with the component count (1 for scalars).
pub fn int_or_int_vector(m: &Module, ty: Id) -> Option<(u32, u32)> {
    if let Some(w) = int_width(m, ty) {
        return Some((w, 1));
    }
    let (c, n) = vector_of(m, ty)?;
    Some((int_width(m, c)?, n))
}

/// `(storage class, pointee type)` of the pointer type `ty`.
pub fn pointer_of(m: &Module, ty: Id) -> Option<(u32, Id)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypePointer) {
        Some((t.operand_word(0)?, t.operand_id(1)?))
    } else {
        None
    }
}

/// Whether `ty` is a pointer type.
pub fn is_pointer(m: &Module, ty: Id) -> bool {
    m.def_inst(ty).is_some_and(|t| t.is(Op::TypePointer))
}

/// Size in bytes of a pointer in this module's addressing model.
pub fn pointer_size(m: &Module) -> u64 {
    use spvopt_ir::Section;
    for (_, inst) in m.section_insts(Section::MemoryModel) {
        if inst.operand_word(0) == Some(spirv::AddressingModel::Physical32 as u32) {
            return 4;
        }
    }
    8
}

/// Byte size and alignment of the data type `ty`.
pub fn size_align_of(m: &Module, dec: &Decorations, ty: Id) -> Option<(u64, u64)> {
    size_align_depth(m, dec, ty, 0)
}

/// Byte size of the data type `ty`.
pub fn size_of(m: &Module, dec: &Decorations, ty: Id) -> Option<u64> {
    size_align_of(m, dec, ty).map(|(s, _)| s)
}

fn size_align_depth(m: &Module, dec: &Decorations, ty: Id, depth: u32) -> Option<(u64, u64)> {
    if depth > 16 {
        return None;
    }
    let t = m.def_inst(ty)?;
    match op_of(t)? {
        Op::TypeInt | Op::TypeFloat => {
            let bytes = u64::from(t.operand_word(0)?).div_ceil(8).max(1);
            Some((bytes, bytes))
        }
        Op::TypeBool => Some((1, 1)),
        Op::TypePointer => {
            let s = pointer_size(m);
            Some((s, s))
        }
        Op::TypeVector => {
            let (es, _) = size_align_depth(m, dec, t.operand_id(0)?, depth + 1)?;
            let n = u64::from(t.operand_word(1)?);
            let slots = if n == 3 { 4 } else { n };
            let s = es.checked_mul(slots)?;
            // OpenCL aligns vectors to their size (for power-of-two sizes).
            let align = if s.is_power_of_two() { s } else { es };
            Some((s, align))
        }
        Op::TypeArray => {
            let (es, ea) = size_align_depth(m, dec, t.operand_id(0)?, depth + 1)?;
            let len = m.const_int_value(t.operand_id(1)?)?;
            let stride = dec.array_stride(ty).map_or(es, u64::from);
            Some((stride.checked_mul(len)?, ea))
        }
        Op::TypeStruct => {
            let members = t.operands();
            let mut offset = 0u64;
            let mut align = 1u64;
            let mut end = 0u64;
            for (k, &mty) in members.iter().enumerate() {
                let (s, a) = size_align_depth(m, dec, Id::new(mty)?, depth + 1)?;
                let off = match dec.member_offset(ty, k as u32) {
                    Some(o) => u64::from(o),
                    None => offset.div_ceil(a).checked_mul(a)?,
                };
                offset = off.checked_add(s)?;
                end = end.max(offset);
                align = align.max(a);
            }
            Some((end.div_ceil(align).checked_mul(align)?, align))
        }
        _ => None,
    }
}

/// Byte offset of member `k` of struct type `ty`.
pub fn member_offset(m: &Module, dec: &Decorations, ty: Id, k: u32) -> Option<u64> {
    if let Some(o) = dec.member_offset(ty, k) {
        return Some(u64::from(o));
    }
    let t = m.def_inst(ty)?;
    if !t.is(Op::TypeStruct) {
        return None;
    }
    let mut offset = 0u64;
    for (j, &mty) in t.operands().iter().enumerate() {
        let (s, a) = size_align_of(m, dec, Id::new(mty)?)?;
        let off = offset.div_ceil(a).checked_mul(a)?;
        if j as u32 == k {
            return Some(off);
        }
        offset = off.checked_add(s)?;
    }
    None
}
