// The ABI version of the C API: changes whenever a signature or a struct layout changes (new
// functions may be added without a change). One home for `spvopt_abi_version()` (lib.rs) and the
// shared library's SONAME `libspvopt.so.N` (build.rs; capi/install.sh reads it from here).
const ABI_VERSION: u32 = 1;
