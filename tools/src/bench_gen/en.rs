//! Enumerant values (SPIR-V specification, section 3) and `OpenCL.std` instruction numbers.

pub const CAP_ADDRESSES: u32 = 4;
pub const CAP_KERNEL: u32 = 6;
pub const CAP_INT64: u32 = 11;
pub const ADDRESSING_PHYSICAL64: u32 = 2;
pub const MEMORY_MODEL_OPENCL: u32 = 2;
pub const EXECUTION_MODEL_KERNEL: u32 = 6;
pub const SOURCE_OPENCL_C: u32 = 3;
pub const STORAGE_INPUT: u32 = 1;
pub const STORAGE_CROSS_WORKGROUP: u32 = 5;
pub const STORAGE_FUNCTION: u32 = 7;
pub const DECORATION_BUILT_IN: u32 = 11;
pub const DECORATION_CONSTANT: u32 = 22;
pub const DECORATION_FUNC_PARAM_ATTR: u32 = 38;
pub const DECORATION_FP_FAST_MATH_MODE: u32 = 40;
pub const BUILT_IN_GLOBAL_INVOCATION_ID: u32 = 28;
pub const PARAM_ATTR_NO_ALIAS: u32 = 4;
pub const PARAM_ATTR_NO_CAPTURE: u32 = 5;
pub const PARAM_ATTR_NO_WRITE: u32 = 6;
pub const FP_FAST_MATH_NOT_NAN_NOT_INF: u32 = 0x1 | 0x2;
pub const FUNCTION_CONTROL_NONE: u32 = 0;
pub const SELECTION_CONTROL_NONE: u32 = 0;
pub const LOOP_CONTROL_NONE: u32 = 0;
pub const LOOP_CONTROL_UNROLL: u32 = 1;
pub const MEMORY_ACCESS_ALIGNED: u32 = 2;

pub const CL_FABS: u32 = 23;
pub const CL_FMA: u32 = 26;
pub const CL_FMAX: u32 = 27;
pub const CL_FMIN: u32 = 28;
pub const CL_SQRT: u32 = 61;
pub const CL_U_MAX: u32 = 157;
pub const CL_U_MIN: u32 = 159;
