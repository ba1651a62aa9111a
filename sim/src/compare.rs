//! Comparing the buffers two runs leave (`spv-sim compare`), element by element.
//!
//! Each buffer is read as elements of a type: the launch entry's `"type"` when it has one,
//! else the pointee of the kernel's parameter ([`param_elem_types`]: pointer to `half`,
//! `float`, `double`, `iN`, or vectors of them; a pointer to 8-bit integers — what Triton and
//! other LLVM front ends emit for every opaque pointer — says nothing and is compared as bytes).
//! A buffer is *identical* when its bytes are, *within N ulp* when it differs but every float
//! element is at most N units in the last place from the other run's (NaN = NaN of any
//! payload), and *different* otherwise. Integers and untyped bytes must be equal.

use spvopt_ir::spirv::Op;
use spvopt_ir::{Id, Module, Section};

use crate::numeric::{bf16_to_f32, f16_to_f32};
use crate::values::ulp_distance;

/// How the elements of a buffer are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    F32,
    F64,
    Int { bytes: u8, signed: bool },
}

impl Elem {
    /// A launch type name (`f16`, `bf16`, `f32`, `f64`, `i8`..`i64`, `u8`..`u64`).
    pub fn parse(name: &str) -> Option<Elem> {
        Some(match name {
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => {
                let signed = match name.as_bytes().first()? {
                    b'i' => true,
                    b'u' => false,
                    _ => return None,
                };
                let bytes = match &name[1..] {
                    "8" => 1,
                    "16" => 2,
                    "32" => 4,
                    "64" => 8,
                    _ => return None,
                };
                Elem::Int { bytes, signed }
            }
        })
    }

    pub fn name(self) -> String {
        match self {
            Elem::F16 => "f16".into(),
            Elem::Bf16 => "bf16".into(),
            Elem::F32 => "f32".into(),
            Elem::F64 => "f64".into(),
            Elem::Int { bytes, signed } => {
                format!("{}{}", if signed { 'i' } else { 'u' }, bytes as u32 * 8)
            }
        }
    }

    pub fn size(self) -> usize {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::F32 => 4,
            Elem::F64 => 8,
            Elem::Int { bytes, .. } => bytes as usize,
        }
    }

    pub fn is_float(self) -> bool {
        !matches!(self, Elem::Int { .. })
    }

    /// The element's value (integers exactly up to 2^53).
    fn value(self, bits: u64) -> f64 {
        match self {
            Elem::F16 => f16_to_f32(bits as u16) as f64,
            Elem::Bf16 => bf16_to_f32(bits as u16) as f64,
            Elem::F32 => f32::from_bits(bits as u32) as f64,
            Elem::F64 => f64::from_bits(bits),
            Elem::Int { bytes, signed } => {
                let shift = 64 - 8 * bytes as u32;
                if signed {
                    (((bits << shift) as i64) >> shift) as f64
                } else {
                    bits as f64
                }
            }
        }
    }

    fn show(self, bits: u64) -> String {
        let v = self.value(bits);
        match self {
            Elem::Int { .. } => format!("{v}"),
            // Enough digits to tell neighbouring values apart, and the bits.
            _ => format!("{v:e} ({bits:#0w$x})", w = 2 + 2 * self.size()),
        }
    }

    /// Units in the last place between two elements (floats only).
    fn ulps(self, a: u64, b: u64) -> u64 {
        match self {
            Elem::F16 => ulp_distance(a, b, 16),
            // bf16 is the upper half of an f32: same ordering.
            Elem::Bf16 => ulp_distance(a << 16, b << 16, 32),
            Elem::F32 => ulp_distance(a, b, 32),
            Elem::F64 => ulp_distance(a, b, 64),
            Elem::Int { .. } => u64::from(a != b),
        }
    }
}

/// The element type each parameter of entry point `kernel` points to (`None` for non-pointer
/// parameters, pointers to structs, untyped pointers, and pointers to 8-bit integers, which
/// LLVM front ends use for every pointer). Empty when there is no such entry point.
pub fn param_elem_types(m: &Module, kernel: &str) -> Vec<Option<Elem>> {
    let Some(func) = m.section_insts(Section::EntryPoint).find_map(|(_, inst)| {
        let ops = inst.operands();
        let name = spvopt_ir::grammar::decode_string(ops.get(2..)?)?;
        (name == kernel).then(|| ops[1])
    }) else {
        return Vec::new();
    };
    let Some(f) = Id::new(func).and_then(|id| m.function_with_id(id)) else {
        return Vec::new();
    };
    m.function(f)
        .header
        .iter()
        .map(|&i| m.inst(i))
        .filter(|inst| inst.is(Op::FunctionParameter))
        .map(|inst| {
            let ty = m.def_inst(inst.result_type()?)?;
            if !ty.is(Op::TypePointer) {
                return None;
            }
            let pointee = Id::new(*ty.operands().get(1)?)?;
            scalar_of(m, pointee, 0)
        })
        .collect()
}

/// The scalar element of `ty` (through vectors and arrays); 8-bit integers give `None`.
fn scalar_of(m: &Module, ty: Id, depth: u32) -> Option<Elem> {
    let inst = m.def_inst(ty)?;
    let ops = inst.operands();
    match inst.op()? {
        Op::TypeFloat => match *ops.first()? {
            // BFloat16KHR (encoding 0)
            16 if ops.get(1) == Some(&0) => Some(Elem::Bf16),
            16 => Some(Elem::F16),
            32 => Some(Elem::F32),
            64 => Some(Elem::F64),
            _ => None,
        },
        Op::TypeInt => {
            let bytes = match *ops.first()? {
                16 => 2,
                32 => 4,
                64 => 8,
                _ => return None, // 8-bit: LLVM's opaque pointers say nothing
            };
            Some(Elem::Int {
                bytes,
                signed: *ops.get(1)? == 1,
            })
        }
        Op::TypeVector | Op::TypeArray if depth < 8 => {
            scalar_of(m, Id::new(*ops.first()?)?, depth + 1)
        }
        _ => None,
    }
}

/// One differing element.
#[derive(Clone, Debug, PartialEq)]
pub struct ElemDiff {
    /// Element index in the buffer.
    pub index: usize,
    /// The element's position in the launch's `"shape"` (row-major), when it has one.
    pub position: Option<Vec<u64>>,
    pub a: String,
    pub b: String,
    /// Units in the last place (floats), or 1 for differing integers / bytes.
    pub ulp: u64,
    pub abs_error: f64,
}

/// What one buffer's comparison found.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferCmp {
    /// How the elements were read (`None`: as bytes).
    pub elem: Option<Elem>,
    pub elements: usize,
    /// Elements that are not bit-identical.
    pub differing: usize,
    /// Of those, the ones beyond the tolerance.
    pub beyond: usize,
    pub max_ulp: u64,
    pub max_abs_error: f64,
    /// The first differing elements beyond the tolerance (or, when all are within it, the
    /// first differing ones), at most the limit given.
    pub listed: Vec<ElemDiff>,
    /// Byte sizes when they differ.
    pub sizes: Option<(usize, usize)>,
}

/// The verdict on a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Identical,
    Within,
    Different,
}

impl BufferCmp {
    pub fn verdict(&self) -> Verdict {
        if self.sizes.is_some() || self.beyond > 0 {
            Verdict::Different
        } else if self.differing > 0 {
            Verdict::Within
        } else {
            Verdict::Identical
        }
    }
}

/// The position of element `index` in a row-major `shape`.
pub fn position(index: usize, shape: &[u64]) -> Option<Vec<u64>> {
    if shape.is_empty() {
        return None;
    }
    let mut rest = index as u64;
    let mut pos = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        let n = n.max(1);
        pos[d] = if d == 0 { rest } else { rest % n };
        rest /= n;
    }
    Some(pos)
}

/// Compares two buffers as elements of `elem` (bytes when `None`): floats may differ by
/// `tolerance_ulp`; integers and bytes must be equal. Lists at most `limit` elements.
pub fn compare_buffers(
    a: &[u8],
    b: &[u8],
    elem: Option<Elem>,
    tolerance_ulp: u64,
    shape: Option<&[u64]>,
    limit: usize,
) -> BufferCmp {
    let size = elem.map_or(1, Elem::size);
    let mut r = BufferCmp {
        elem,
        elements: a.len().max(b.len()).div_ceil(size),
        differing: 0,
        beyond: 0,
        max_ulp: 0,
        max_abs_error: 0.0,
        listed: Vec::new(),
        sizes: (a.len() != b.len()).then_some((a.len(), b.len())),
    };
    let mut within_listed = Vec::new();
    for (index, (p, q)) in a.chunks(size).zip(b.chunks(size)).enumerate() {
        if p == q {
            continue;
        }
        let word = |c: &[u8]| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        };
        let (pv, qv) = (word(p), word(q));
        let (ulp, abs_error, sa, sb) = match elem {
            Some(e) => {
                let (x, y) = (e.value(pv), e.value(qv));
                let err = if x.is_nan() && y.is_nan() {
                    0.0
                } else {
                    (x - y).abs()
                };
                (e.ulps(pv, qv), err, e.show(pv), e.show(qv))
            }
            None => (
                1,
                (pv as f64 - qv as f64).abs(),
                format!("{pv:#04x}"),
                format!("{qv:#04x}"),
            ),
        };
        r.differing += 1;
        r.max_ulp = r.max_ulp.max(ulp);
        if abs_error.is_nan() || abs_error > r.max_abs_error {
            r.max_abs_error = abs_error;
        }
        let float = elem.is_some_and(Elem::is_float);
        let within = float && ulp <= tolerance_ulp;
        let d = ElemDiff {
            index,
            position: shape.and_then(|s| position(index, s)),
            a: sa,
            b: sb,
            ulp,
            abs_error,
        };
        if within {
            if within_listed.len() < limit {
                within_listed.push(d);
            }
        } else {
            r.beyond += 1;
            if r.listed.len() < limit {
                r.listed.push(d);
            }
        }
    }
    if r.beyond == 0 {
        r.listed = within_listed;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn identical_within_and_different() {
        let a = f32s(&[1.0, 2.0, 3.0, 4.0]);
        let r = compare_buffers(&a, &a, Some(Elem::F32), 0, None, 10);
        assert_eq!(r.verdict(), Verdict::Identical);
        let mut b = f32s(&[1.0, 2.0, 3.0, 4.0]);
        b[4..8].copy_from_slice(&f32::from_bits(2.0f32.to_bits() + 2).to_le_bytes());
        let r = compare_buffers(&a, &b, Some(Elem::F32), 2, Some(&[2, 2]), 10);
        assert_eq!(r.verdict(), Verdict::Within);
        assert_eq!((r.differing, r.beyond, r.max_ulp), (1, 0, 2));
        assert_eq!(r.listed[0].position, Some(vec![0, 1]));
        let r = compare_buffers(&a, &b, Some(Elem::F32), 1, None, 10);
        assert_eq!(r.verdict(), Verdict::Different);
        assert_eq!(r.listed[0].index, 1);
        assert!(r.max_abs_error > 0.0 && r.max_abs_error < 1e-5);
        // integers never get a tolerance
        let r = compare_buffers(&a, &b, Elem::parse("u32"), 5, None, 10);
        assert_eq!(r.verdict(), Verdict::Different);
    }

    #[test]
    fn positions_are_row_major() {
        assert_eq!(position(7, &[3, 4]), Some(vec![1, 3]));
        assert_eq!(position(13, &[2, 2, 4]), Some(vec![1, 1, 1]));
        assert_eq!(position(5, &[]), None);
    }

    #[test]
    fn type_names_round_trip() {
        for n in ["f16", "bf16", "f32", "f64", "i8", "u16", "i32", "u64"] {
            assert_eq!(Elem::parse(n).map(Elem::name).as_deref(), Some(n));
        }
        assert_eq!(Elem::parse("f8"), None);
    }
}
