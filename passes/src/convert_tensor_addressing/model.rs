//! The data the access paths share: a matrix type's lowered form, how element addresses are
//! formed (tensor layout and view, strided, or joint_matrix's checked), load or store, the path
//! an access took, and the tensor clamp modes.

use spvopt_analysis::tensor_layout::{TensorLayoutState, TensorViewState};
use spvopt_ir::Id;

use super::distribution::{Distribution, MatrixUse};

/// Tensor clamp modes.
pub mod clamp {
    pub const UNDEFINED: u32 = 0;
    pub const CONSTANT: u32 = 1;
    pub const CLAMP_TO_EDGE: u32 = 2;
    pub const REPEAT: u32 = 3;
    pub const REPEAT_MIRRORED: u32 = 4;
}

/// The lowered form of one matrix type.
#[derive(Clone, Copy, Debug)]
pub struct Matrix {
    pub dist: Distribution,
    pub use_: MatrixUse,
    /// Component type and its size in bytes.
    pub component: Id,
    pub bytes: u32,
    pub is_float: bool,
    /// The per-invocation type (vector of `slots` components, or the component type).
    pub lowered: Id,
}

/// A view operand.
pub struct View {
    pub value: Id,
    pub state: Option<TensorViewState>,
    pub dims: u32,
    pub has_dims: bool,
    pub perm: Vec<u32>,
}

/// How element addresses are formed.
pub enum Addressing {
    Tensor {
        layout: Id,
        state: Option<Box<TensorLayoutState>>,
        dims: u32,
        clamp: u32,
        view: Option<View>,
    },
    Strided {
        column_major: bool,
        stride: Id,
    },
    /// DPC++ joint_matrix's checked load/store: strided from `Pointer`, element (r, c) being
    /// the big matrix's (`x` + r, `y` + c), touched only inside `height` x `width` (unsigned,
    /// zero-extended; out of bounds a load gives 0, a store drops the element).
    Checked {
        column_major: bool,
        stride: Id,
        x: Id,
        y: Id,
        height: Id,
        width: Id,
    },
}

/// Load or store.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `object` gives the elements a clipped load keeps.
    /// `ty` is the result's (original, cooperative-matrix) type, replaced later with the rest.
    Load {
        result: Id,
        ty: Id,
        object: Id,
    },
    Store {
        object: Id,
    },
}

/// Which path an access took.
pub enum Path {
    Block,
    RuntimeChecked,
    Fallback(String),
}

/// Memory operands of a load/store.
pub(super) struct MemoryOperands {
    /// The mask for the per-element accesses: Volatile and Nontemporal carry over.
    pub element_mask: u32,
    /// The `Aligned` literal.
    pub aligned: Option<u32>,
    /// Words consumed.
    pub words: usize,
}

pub(crate) fn memory_operands(ops: &[u32]) -> MemoryOperands {
    let Some(&mask) = ops.first() else {
        return MemoryOperands {
            element_mask: 0,
            aligned: None,
            words: 0,
        };
    };
    let aligned = (mask & 0x2 != 0).then(|| ops.get(1).copied()).flatten();
    let mut n = 1;
    for bit in [0x2u32, 0x8, 0x10, 0x10000, 0x20000] {
        if mask & bit != 0 {
            n += 1;
        }
    }
    MemoryOperands {
        element_mask: mask & (0x1 | 0x4),
        aligned,
        words: n,
    }
}
