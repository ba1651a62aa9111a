//! spvopt-passes
