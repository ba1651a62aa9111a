//! The launch the `sim` fuzz target (and `tests/tests/fuzz_regressions.rs`, replaying its
//! findings) gives a module: its first entry point from 8 selector bytes — work-group size,
//! groups, subgroup size, scalar values, buffer seed — with a 4 KiB buffer for every global
//! pointer parameter, 1 KiB of local memory for every Workgroup pointer, under a small step
//! budget. Bounded by construction: any module and bytes give a run well under a second.

use spvopt_ir::spirv::Op;
use spvopt_ir::Module;

use crate::{Arg, Launch};

/// Step budget per subgroup: keeps every input well under a second.
pub const MAX_STEPS: u64 = 20_000;

/// A launch of `m`'s first entry point from the 8 selector bytes, or `None` when it has no
/// entry point or a parameter type we do not feed.
pub fn launch_for(m: &Module, sel: &[u8; 8]) -> Option<Launch> {
    let (_, ep) = m.section_insts(spvopt_ir::Section::EntryPoint).next()?;
    let func_id = ep.operand_id(1)?;
    let name = spvopt_ir::grammar::decode_string(&ep.operands()[2..])?.to_string();
    let f = m.function_with_id(func_id)?;
    let mut args = Vec::new();
    let mut seed = u64::from(sel[7]) | 1;
    for &p in &m.function(f).header {
        let param = m.inst(p);
        if !param.is(Op::FunctionParameter) {
            continue;
        }
        let ty = m.def_inst(param.result_type()?)?;
        args.push(match ty.op()? {
            Op::TypePointer if ty.operand_word(0) == Some(4) => Arg::Local(1024),
            Op::TypePointer => {
                seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
                Arg::Buffer {
                    bytes: (0..4096u64)
                        .map(|i| (seed.wrapping_mul(i + 1) >> 56) as u8)
                        .collect(),
                    ty: None,
                    ulp: None,
                }
            }
            Op::TypeInt | Op::TypeFloat => {
                let width = ty.operand_word(0)?;
                let kind = if ty.is(Op::TypeFloat) { "f" } else { "u" };
                let ty_name = format!("{kind}{width}");
                let value = u64::from(sel[args.len() % 4]);
                let bytes = value.to_le_bytes()[..(width as usize / 8).clamp(1, 8)].to_vec();
                Arg::Scalar { ty: ty_name, bytes }
            }
            _ => return None,
        });
    }
    let local = [u64::from(sel[4] % 4 + 1) * 8, 1, 1];
    let groups = u64::from(sel[5] % 3 + 1);
    let mut launch = Launch::new(&name, [local[0] * groups, 1, 1], local, args);
    launch.subgroup_size = Some(if sel[6] & 1 == 0 { 8 } else { 16 });
    launch.max_steps = MAX_STEPS;
    Some(launch)
}
