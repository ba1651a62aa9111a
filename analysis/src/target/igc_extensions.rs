//! Which SPIR-V extensions Intel's compiler accepts a module declaring, per device: IGC's SPIR-V
//! reader fails a module that declares an extension missing from the device's table, used or
//! not ("input SPIR-V module uses unknown extension 'X'", or "uses extension 'X' which were
//! disabled by --spirv-ext option").
//!
//! Measured, not inferred: `igc_extensions_probe.py` (next to this file) compiles, for every
//! extension the grammar knows (195), one empty kernel declaring only that extension, with ocloc
//! for each device, and writes `igc_extensions/data.rs`; [`IGC_EXTENSIONS_SOURCE`] names the
//! compiler. The rows agree with IGC's own table, `IGC/AdaptorOCL/ocl_igc_interface/extensions/
//! SPIRVExtensions.td` (intel/intel-graphics-compiler @ 0053c47bff81; cited in
//! docs/notes/intel-targets.md §9) where that file gates an extension by platform (2D block IO
//! Xe-HPC and later; media block IO only dg2/mtl; the MMA extension not on mtl; bindless images
//! not on pvc/cri; float8, int4, fp16 atomic add only on cri). `legalize` (its `igc_extensions`
//! step) asks [`Target::igc_accepts_extension`]: targets without a measured column (`cpu`,
//! `generic`) answer `None` and keep every declaration.

use super::Target;

mod data;

/// The targets with a measured column, in the rows' order.
pub const DEVICES: [&str; 7] = ["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl"];

/// Which compiler the rows were measured with, and how.
pub const IGC_EXTENSIONS_SOURCE: &str = "measured 2026-12-02 with ocloc 26.27.039122 + IGC \
(libigc2) 2.40.14: one empty kernel declaring only the extension, per device \
(analysis/src/target/igc_extensions_probe.py)";

impl Target {
    /// Whether this device's IGC accepts a module declaring extension `name`: `None` when the
    /// target has no measured column or the extension was not measured (not in the grammar).
    pub fn igc_accepts_extension(&self, name: &str) -> Option<bool> {
        let col = DEVICES.iter().position(|&d| d == self.name)?;
        data::ROWS
            .binary_search_by_key(&name, |&(e, _)| e)
            .ok()
            .map(|i| data::ROWS[i].1[col])
    }

    /// The extensions this device's IGC accepts (every measured one for which
    /// [`Target::igc_accepts_extension`] is `Some(true)`); empty without a column.
    pub fn igc_accepted_extensions(&self) -> Vec<&'static str> {
        let Some(col) = DEVICES.iter().position(|&d| d == self.name) else {
            return Vec::new();
        };
        data::ROWS
            .iter()
            .filter(|(_, acc)| acc[col])
            .map(|&(e, _)| e)
            .collect()
    }
}

/// The `ocloc --version` the rows were measured with.
pub fn measured_with() -> &'static str {
    data::OCLOC_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_answer_what_was_measured() {
        assert!(data::ROWS.windows(2).all(|w| w[0].0 < w[1].0));
        let pvc = Target::by_name("pvc").unwrap();
        let dg2 = Target::by_name("dg2").unwrap();
        let mtl = Target::by_name("mtl").unwrap();
        assert_eq!(
            pvc.igc_accepts_extension("SPV_NV_cooperative_matrix2"),
            Some(false)
        );
        assert_eq!(
            pvc.igc_accepts_extension("SPV_INTEL_2d_block_io"),
            Some(true)
        );
        assert_eq!(
            dg2.igc_accepts_extension("SPV_INTEL_2d_block_io"),
            Some(false)
        );
        assert_eq!(
            mtl.igc_accepts_extension("SPV_INTEL_subgroup_matrix_multiply_accumulate"),
            Some(false)
        );
        assert_eq!(
            pvc.igc_accepts_extension("SPV_EXT_split_barrier"),
            Some(false)
        );
        assert_eq!(
            pvc.igc_accepts_extension("SPV_INTEL_split_barrier"),
            Some(true)
        );
        assert_eq!(
            Target::by_name("cpu")
                .unwrap()
                .igc_accepts_extension("SPV_INTEL_subgroups"),
            None
        );
        assert_eq!(measured_with(), "26.27.039122");
    }
}
