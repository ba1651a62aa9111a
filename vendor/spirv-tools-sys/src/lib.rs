#![allow(unsafe_code)]

#[cfg(not(any(feature = "use-installed-tools", feature = "use-compiled-tools")))]
compile_error!("Enable at least one of `use-compiled-tools` or `use-installed-tools` features");

pub mod assembler;
pub mod diagnostics;
pub mod shared;
pub mod val;
