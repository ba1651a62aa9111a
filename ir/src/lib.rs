//! `spvopt-ir`: the SSA IR of spv-opt.
//!
//! Start reading at [`module`] (the IR), then [`loader`] and [`emitter`]; [`opcode_class`] for
//! what kind of operation an opcode is.
//!
//! - [`load_bytes`] / [`load_words`] read a SPIR-V binary (either byte order) into a [`Module`];
//!   [`Module::to_bytes`] writes it back. An unchanged module round-trips byte-identically,
//!   including instructions no pass understands (unknown opcodes are kept by word count).
//! - Ids are [`Id`]s; instructions live in an arena ([`InstId`]); module-level sections are
//!   lists in logical-layout order; function bodies are blocks of linked instructions, so
//!   insertion and removal are O(1).
//! - [`grammar`] knows which operand words are ids, literals and strings.
//! - [`opcode_class`] is the one table of opcode classes (pure, componentwise, atomic, …) every
//!   analysis and pass reads.
//! - [`Interner`] gives "the id of type/constant X", creating it when missing.
//! - [`DefUse`] is the def-use analysis.
//! - [`verify()`] checks the structural invariants passes rely on; every loaded module passes it.
//! - [`text`] (feature `spirv-tools`) assembles, disassembles and validates through SPIRV-Tools.

mod compact;
pub mod def_use;
pub mod emitter;
pub mod entity;
pub mod error;
mod global_order;
pub mod grammar;
pub mod id;
pub mod inst;
mod intern_table;
pub mod interning;
pub mod layout;
pub mod loader;
pub mod module;
pub mod opcode_class;
pub mod opcode_table;
#[cfg(feature = "spirv-tools")]
pub mod text;
pub mod verify;

pub use def_use::DefUse;
pub use error::{IdDesc, LoadError, LoadErrorKind};
pub use id::{BlockId, FuncId, Id, InstId};
pub use inst::{Inst, InstBuf};
pub use interning::Interner;
pub use layout::BlockInsts;
pub use loader::{load_bytes, load_bytes_owned, load_words};
pub use module::{BlockData, Function, Header, Module, Section};
pub use spirv;
pub use verify::verify;
