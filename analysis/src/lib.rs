//! `spvopt-analysis`: analyses over the IR that passes share, their cache, and device targets.
//!
//! Each analysis lives in its own file and implements [`Analysis`], so passes get it from the
//! cache: `analyses.get::<Loops>(&module)`.
//! - [`cfg::Cfg`]: successors, predecessors, reverse post-order.
//! - [`dominators::Dominators`], [`post_dominators::PostDominators`]: the trees, O(1) queries.
//! - [`loops::Loops`]: natural loops (with or without `OpLoopMerge`), nesting, blocks.
//! - [`induction::Induction`]: induction variables, loop variance, affine forms (`32*i + %5`).
//! - [`kernel_facts::KernelFacts`]: per entry point and per function (through the call graph)
//!   subgroup size, work-group size, subgroups per work-group: `Known(v) | Conflicting | Unknown`.
//! - [`uniformity::Uniformity`]: which values are the same in every invocation of a subgroup.
//! - [`constants::Constants`]: constant folding of block shapes, MMA K, spec constants and
//!   tensor layout/view state.
//! - [`provenance::Provenance`]: the root and byte offset of every pointer, escapes, `NoAlias`.
//! - [`alias::Alias`]: 2D block footprints and may-alias queries (`may_write_read_region`);
//!   [`alias::BlockGeometry`]: the footprints and their relations alone (no uniformity), for
//!   passes that look for candidates before asking for alias and uniformity, computed over the
//!   [`value_slice::ValueSlice`] of the block operations (induction and provenance of the
//!   values they read, not of the whole module).
//! - [`decorations::Decorations`], [`builtins::Callees`]: decorations, and the imported
//!   functions named and classified (cached like the rest: no analysis rebuilds them).
//! - [`call_graph::CallGraph`]: the static call graph (petgraph), strongly connected
//!   components, callers-first order.
//! - [`print::annotate`]: a module listing annotated with any of the above; [`dot::dot`]: the
//!   CFG, dominator trees or loops as a Graphviz graph.
//!
//! Helpers shared by several analyses and passes: [`block_io`] (the one model of a 2D block
//! operation and an MMA, native or builtin call), [`builtin_names`] (the one parser of the
//! 2D block / MMA builtin names), [`types`],
//! [`affine`], [`known_bits`], [`tensor_layout`], [`operands`], [`fxhash`]. Opcode classes come
//! from `spvopt_ir::opcode_class`.
//!
//! Start reading at [`cache`] (how analyses are computed and kept), then [`cfg`](mod@cfg) and
//! [`loops`] for small analyses and [`uniformity`] for a data-flow one.

pub mod affine;
pub mod alias;
pub mod block_io;
mod block_kind;
pub mod block_payload;
pub mod builtin_names;
pub mod builtins;
pub mod cache;
pub mod call_graph;
pub mod cfg;
pub mod constants;
pub mod decorations;
mod dom_tree;
pub mod dominators;
pub mod dot;
pub mod fxhash;
pub mod induction;
pub mod kernel_facts;
pub mod known_bits;
pub mod lane_map;
pub mod loops;
pub mod operands;
pub mod post_dominators;
pub mod print;
pub mod provenance;
pub mod target;
pub mod tensor_layout;
pub mod types;
pub mod uniformity;
pub mod value_slice;

pub use alias::{Alias, BlockGeometry};
pub use cache::{Analyses, Analysis, AnalysisSet};
pub use cfg::Cfg;
pub use constants::Constants;
pub use dominators::Dominators;
pub use induction::Induction;
pub use kernel_facts::{Fact, KernelFacts};
pub use loops::{LoopId, Loops};
pub use post_dominators::PostDominators;
pub use print::{annotate, AnnotateError};
pub use provenance::Provenance;
pub use target::Target;
pub use uniformity::Uniformity;
