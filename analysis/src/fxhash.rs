//! Hash maps keyed by ids, with `rustc-hash`'s fast non-cryptographic hasher (the one rustc
//! uses). Analyses hash only ids and handles made from the module, so hash-flooding
//! resistance (std's SipHash) buys nothing and costs time. Iteration order of these maps
//! never reaches output.

pub use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet, FxHasher};
