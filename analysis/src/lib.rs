//! `spvopt-analysis`: analyses over the IR that passes share, their cache, and device targets.

pub mod cache;
pub mod target;

pub use cache::{Analyses, Analysis, AnalysisSet};
pub use target::Target;
