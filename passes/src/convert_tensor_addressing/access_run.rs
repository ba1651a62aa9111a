//! A run of consecutive cooperative-matrix loads/stores converted together: each is prepared
//! and given its path (2D block ops, checked at run time or proved, or the exact per-element
//! loop of `element_access`); loads of adjacent tiles go through `tile_group`.

use spirv::Op;
use spvopt_ir::{Id, Inst, Interner, Module};

use super::block_path::Decision;
use super::builder::Builder;
use super::element_access::{decide, emit_decided, load_lane, prepare, Access};
use super::error::ConvertError::{self, Malformed};
use super::model::{Direction, Path};
use super::tile_group;
use crate::edit::cfg::split_block_after;

/// Converts the single load/store `access` (in its block), giving its path.
pub fn convert_one(
    m: &mut Module,
    types: &mut Interner,
    lane_var: Id,
    access: Access,
) -> Result<Path, ConvertError> {
    let block = m.inst_block(access.at).ok_or(Malformed("not in a block"))?;
    let mut b = Builder {
        m,
        types,
        cur: block,
        before: None,
        truncated: Default::default(),
    };
    convert(&mut b, lane_var, &[access])?
        .pop()
        .ok_or(Malformed("no path"))
}

/// Converts the consecutive loads/stores `accesses` (nothing between them in their block).
/// Each gets its path; loads of adjacent tiles of one surface whose block ops are checked or
/// proved together are issued from one block (see `tile_group`), where
/// `fuse-block-loads` can merge them.
pub fn convert(
    b: &mut Builder,
    lane_var: Id,
    accesses: &[Access],
) -> Result<Vec<Path>, ConvertError> {
    let (Some(first), Some(last)) = (accesses.first(), accesses.last()) else {
        return Ok(Vec::new());
    };
    b.m.inst_block(first.at)
        .ok_or(Malformed("not in a block"))?;
    let split = split_block_after(b.m, last.at).ok_or(Malformed("not in a block"))?;
    for a in accesses {
        b.m.erase(a.at);
    }
    b.cur = split.before;
    let lane = load_lane(b, lane_var)?;
    let mut prepared = Vec::new();
    for a in accesses {
        prepared.push(prepare(b, a, lane)?);
    }
    let mut decisions: Vec<Decision> = Vec::new();
    for (a, p) in accesses.iter().zip(&prepared) {
        decisions.push(decide(b, a, p));
    }
    // A loop header cannot also head a selection: start the accesses in a block of their own.
    b.leave_loop_header(&split);
    let paths = match tile_group::plan(b, &prepared, &decisions) {
        Some(group) => tile_group::emit(b, &prepared, group, decisions, split.after)?,
        None => {
            let mut paths = Vec::new();
            let n = accesses.len();
            for (k, (p, d)) in prepared.iter().zip(decisions).enumerate() {
                let next = if k + 1 == n {
                    split.after
                } else {
                    let nb = b.new_block_after(b.cur);
                    crate::edit::cfg::move_block_before(b.m, nb, split.after);
                    nb
                };
                paths.push(emit_decided(b, p, d, next)?);
                b.cur = next;
            }
            paths
        }
    };
    for (a, p) in accesses.iter().zip(&prepared).rev() {
        if let Direction::Load { result, ty, .. } = a.dir {
            b.m.prepend_inst(
                split.after,
                Inst::new(Op::Load, Some(ty), Some(result), &[p.var.word()]),
            );
        }
    }
    Ok(paths)
}
