//! `include/spvopt.h` is what cbindgen generates from the sources (regenerate with
//! `SPVOPT_BLESS=1 cargo test -p spvopt-capi --test integration -- header::`).

use std::path::Path;

#[test]
fn header_matches_the_sources() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut generated);
    let path = dir.join("include/spvopt.h");
    if std::env::var_os("SPVOPT_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/spvopt.h is out of date: rerun with SPVOPT_BLESS=1"
    );
}
