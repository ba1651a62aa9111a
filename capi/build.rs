//! Names the shared library by its ABI version on Linux: SONAME `libspvopt.so.N`, N =
//! `spvopt_abi_version()` (`src/abi_version.rs`). A program linked against it records that name,
//! so an incompatible later release (N+1) can be installed beside it; `capi/install.sh` installs
//! the library under that name with the `libspvopt.so` link for the linker.

include!("src/abi_version.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/abi_version.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libspvopt.so.{ABI_VERSION}");
    }
}
