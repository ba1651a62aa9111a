//! `OpFSigmoidINTEL` (SPV_INTEL_sigmoid, an opcode the LLVM/SPIR-V translator keeps internal:
//! `spvopt_ir::grammar::internal`): `1 / (1 + e^-x)` per component of a half, bfloat16 or
//! float scalar or vector, computed in f64 and rounded once to the result's format (IGC's
//! `math.sigm` is an approximation; spv-sim's results are the exact function, compared with
//! the ulp tolerance of `spv-sim compare`).

use crate::components::vcomp;
use crate::error::SimError;
use crate::machine::{lanes, Machine, Sg};
use crate::program::DInst;
use crate::values::{f_get, f_put, rd, wr};

impl Machine<'_> {
    /// Executes `OpFSigmoidINTEL` for the invocations of `mask`.
    pub(crate) fn sigmoid(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let x = *inst
            .w
            .first()
            .ok_or_else(|| SimError::Module("OpFSigmoidINTEL without an operand".into()))?;
        let (c, n) = vcomp(self.p, inst.ty)?;
        if c.kind != crate::components::Kind::Float {
            return Err(SimError::Module(
                "OpFSigmoidINTEL of a non-float result type".into(),
            ));
        }
        let mut out = vec![0u8; n * c.bytes];
        for lane in lanes(mask) {
            let v = self.val(sg, x, lane).to_vec();
            for i in 0..n {
                let a = f_get(rd(&v, c.bytes, i), c.fw());
                wr(
                    &mut out,
                    c.bytes,
                    i,
                    f_put(1.0 / (1.0 + (-a).exp()), c.fw()),
                );
            }
            self.set(sg, inst.res, lane, &out);
        }
        Ok(())
    }
}
