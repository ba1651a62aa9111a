//! 2D block IO: `OpSubgroup2DBlockLoadINTEL`, `OpSubgroup2DBlockLoadTransformINTEL`,
//! `OpSubgroup2DBlockLoadTransposeINTEL`, `OpSubgroup2DBlockStoreINTEL` and
//! `OpSubgroup2DBlockPrefetchINTEL` of `SPV_INTEL_2d_block_io` (rev 1, 2025-01-07), as the
//! extension's "Mapping Block Data to Invocations", "Out-of-Bounds Behavior" and "Restrictions"
//! sections define them.
//!
//! Model, in the spec's order:
//! 1. Block `b` (0-based, `b < Block Count`) covers block columns `x + b * Block Width ..` of rows
//!    `y ..` of the 2D region: blocks are "loaded in row-major order, with the next block beginning
//!    immediately after the previous block". Element (row `r`, column `c`) of the region is at
//!    `base + r * Memory Pitch + c * Element Size` and is in bounds iff `0 <= r < Memory Height`,
//!    `0 <= c` and all its bytes lie below `Memory Width` bytes (an element straddling the width is
//!    out of bounds). Out-of-bounds elements load as zero without touching memory and are dropped
//!    by stores.
//! 2. Padding: Load / LoadTransform / Store pad Block Width to the next power of two;
//!    LoadTranspose pads Block Height to the next power of two; LoadTransform pads Block Height to
//!    a multiple of 4 (1-byte elements) or 2 (2-byte). Padded elements load as zero; a store
//!    ignores them.
//! 3. LoadTransform packs 4 (1-byte) or 2 (2-byte) consecutive rows of a column into a 32-bit
//!    value, lower rows in lower bits (VNNI). LoadTranspose turns column `i` into row `i`.
//! 4. The resulting block (`rows` x `columns`, columns a power of two) is dealt to invocations,
//!    row by row. Let a *unit* be a dword (`4 / value bytes` values; a qword for 8-byte values)
//!    and a *chunk* `SG` units (one 64-byte GRF on SIMD16):
//!    * `columns < SG` (spec scenario 2): the block read row-major is dealt round-robin
//!      (invocation `i` slot `s` holds flat element `s * SG + i`): "first row to the first set of
//!      invocations, next row to the next set".
//!    * `SG <= columns <= chunk` (scenarios 1 and 3): invocation `i` holds columns
//!      `i * columns/SG ..` (consecutive) of every row.
//!    * `columns > chunk` (**wide rows**; only reachable with transpose, transform of 2-byte
//!      data wider than 16 columns, or 8-byte elements): the spec's scenario 3 text would give
//!      invocation `i` consecutive columns, but hardware lays a row over consecutive registers
//!      and invocation `i` owns unit `i` of each, so invocation `i` holds units `i`, `i + SG`,
//!      `i + 2 SG`, ... of every row (columns `k * chunk + i * unit + j`). The simulator
//!      implements this register layout, which Triton's kernels (validated on PVC) rely on,
//!      e.g. `read_transpose_32b_32r8x1c` on SIMD16 gives invocation `i` columns `i` and
//!      `i + 16`. Every example of the spec has rows of at most one chunk, where the two
//!      readings agree. (sim/README.md, "2D block layout", has the reasoning.)
//!      [`BlockLayout::Spec`] (launch `"block_layout": "spec"`) selects the literal reading.
//! 5. Block Count > 1: an invocation's data is the concatenation of its data for each block,
//!    block 0 first. The spec says nothing more. (IGC rewrites some multi-block loads of blocks
//!    smaller than a register into one wider block, which deals columns differently; that is a
//!    property of IGC's lowering, not of the spec, and the simulator does not model it.)
//!
//! Slots that get no row (only possible when `columns < SG` and the rows run out) load as zero.
//! Every "behavior is undefined unless" of the Restrictions section is checked and reported as
//! [`SimError::Block2d`] / [`SimError::Subgroup`]. Loads and stores report the 64-byte lines
//! they touch; prefetches touch no memory and only report the lines they cover.

use crate::error::{Block2dLimit, SimError};
use crate::memory::{normalize_lines, push_lines, Memory};
use crate::subgroup::Subgroup;

/// Cap on the padded data of one instruction (all blocks), a simulator resource limit.
pub const MAX_BLOCK_BYTES: u64 = 1 << 20;
/// Largest Memory Width (bytes) and Memory Height (rows): 2^24.
pub const MAX_MEMORY_EXTENT: i64 = 1 << 24;
/// Smallest Memory Width in bytes.
pub const MIN_MEMORY_WIDTH: i64 = 64;
/// Required alignment of the base address (a cache line).
pub const BASE_ALIGNMENT: u64 = 64;
/// Memory Pitch must be a multiple of this many bytes.
pub const PITCH_MULTIPLE: i64 = 8;

/// The five 2D block instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Block2dOp {
    Load,
    LoadTransform,
    LoadTranspose,
    Store,
    Prefetch,
}

impl Block2dOp {
    /// The SPIR-V opcode name.
    pub fn name(self) -> &'static str {
        match self {
            Block2dOp::Load => "OpSubgroup2DBlockLoadINTEL",
            Block2dOp::LoadTransform => "OpSubgroup2DBlockLoadTransformINTEL",
            Block2dOp::LoadTranspose => "OpSubgroup2DBlockLoadTransposeINTEL",
            Block2dOp::Store => "OpSubgroup2DBlockStoreINTEL",
            Block2dOp::Prefetch => "OpSubgroup2DBlockPrefetchINTEL",
        }
    }
}

/// Which of the three loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoadKind {
    Plain,
    Transform,
    Transpose,
}

impl From<LoadKind> for Block2dOp {
    fn from(kind: LoadKind) -> Block2dOp {
        match kind {
            LoadKind::Plain => Block2dOp::Load,
            LoadKind::Transform => Block2dOp::LoadTransform,
            LoadKind::Transpose => Block2dOp::LoadTranspose,
        }
    }
}

/// How rows wider than `subgroup size` dwords (qwords for 8-byte values) are dealt to
/// invocations (module docs, step 4). Rows up to that width are dealt identically by both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlockLayout {
    /// Invocation `i` holds dword (qword) `i` of each subgroup-size-dword chunk of a row: the
    /// GRF layout of the hardware, which compiled kernels (Triton) rely on. The default.
    #[default]
    Hardware,
    /// The spec's scenario 3 read literally for every width: invocation `i` holds columns
    /// `i * columns/SG ..` (consecutive).
    Spec,
}

impl BlockLayout {
    /// Parses `"hardware"` / `"spec"`.
    pub fn parse(s: &str) -> Option<BlockLayout> {
        match s {
            "hardware" => Some(BlockLayout::Hardware),
            "spec" => Some(BlockLayout::Spec),
            _ => None,
        }
    }
}

/// The operands of a 2D block instruction, already evaluated (they are subgroup-uniform).
///
/// Memory Width / Height / Pitch and the coordinate are integers of 32 or 64 bits in SPIR-V; the
/// interpreter passes them sign-extended, so a negative width is reported, not wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Block2dParams {
    /// Element Size in bytes.
    pub element_size: u32,
    /// Block Width in elements.
    pub block_width: u32,
    /// Block Height in rows.
    pub block_height: u32,
    /// Block Count.
    pub block_count: u32,
    /// Src / Dst Base Pointer.
    pub base: u64,
    /// Memory Width in bytes.
    pub memory_width: i64,
    /// Memory Height in rows.
    pub memory_height: i64,
    /// Memory Pitch in bytes.
    pub memory_pitch: i64,
    /// Coordinate component 0: elements to skip from the start of a row.
    pub x: i64,
    /// Coordinate component 1: rows to skip from the base.
    pub y: i64,
    /// How wide rows are dealt (not an operand: a simulator setting, default hardware).
    pub mapping: BlockLayout,
    /// Alignment (bytes) the base address needs: [`BASE_ALIGNMENT`] in the extension; a
    /// device may need less (Xe3P: 4 bytes; launch `"block_base_alignment"`).
    pub base_alignment: u64,
}

/// How one instruction's block is shaped and dealt to invocations (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block2dLayout {
    pub op: Block2dOp,
    /// Block Width after padding (Load/Transform/Store/Prefetch: next power of two).
    pub padded_width: u32,
    /// Block Height after padding (Transpose: next power of two; Transform: multiple of 4 or 2).
    pub padded_height: u32,
    /// Rows of the block as dealt to invocations (after transform / transpose).
    pub rows: u32,
    /// Columns of the block as dealt to invocations (a power of two).
    pub columns: u32,
    /// Bytes of one dealt value (4 for LoadTransform, else Element Size).
    pub value_bytes: u32,
    /// Values each invocation holds per block.
    pub values_per_block: u32,
    /// Bytes of the per-invocation destination (loads) or source (stores) over all blocks;
    /// 0 for prefetches, which have none.
    pub bytes_per_invocation: usize,
    /// Subgroup size the layout was computed for.
    pub subgroup_size: u32,
    /// How wide rows are dealt.
    pub mapping: BlockLayout,
}

impl Block2dLayout {
    /// Values of one dword (one qword for 8-byte values): the unit an invocation owns in each
    /// register-wide chunk of a wide row.
    pub fn values_per_unit(&self) -> u32 {
        (4 / self.value_bytes).max(1)
    }

    /// Whether a dealt row is wider than `subgroup size` units (dwords, qwords for 8-byte
    /// values), where the hardware register layout (dword-interleaved) replaces the spec's
    /// scenario 3 (consecutive elements per invocation).
    pub fn wide_rows(&self) -> bool {
        self.mapping == BlockLayout::Hardware
            && self.columns > self.subgroup_size * self.values_per_unit()
    }

    /// The (row, column) of the dealt block that invocation `inv` holds in value slot `slot`
    /// (`slot < values_per_block`), or `None` for a slot that gets no row.
    pub fn position(&self, inv: u32, slot: u32) -> Option<(u32, u32)> {
        let sg = self.subgroup_size;
        let unit = self.values_per_unit();
        if self.wide_rows() {
            // wide rows: the row is split into chunks of `sg * unit` values (one register of
            // dwords, or qwords for 8-byte values) and invocation `i` holds unit `i` of each
            // chunk, chunk by chunk (the hardware GRF layout; see the module docs)
            let per_row = self.columns / sg;
            let t = slot % per_row;
            Some((
                slot / per_row,
                (t / unit) * sg * unit + inv * unit + t % unit,
            ))
        } else if self.columns >= sg {
            let per_row = self.columns / sg;
            Some((slot / per_row, inv * per_row + slot % per_row))
        } else {
            let flat = slot as u64 * sg as u64 + inv as u64;
            let row = flat / self.columns as u64;
            (row < self.rows as u64).then_some((row as u32, (flat % self.columns as u64) as u32))
        }
    }
}

/// Result of a 2D block load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block2dLoad {
    /// Destination bytes per invocation, `layout.bytes_per_invocation` each.
    pub data: Vec<Vec<u8>>,
    /// Sorted, distinct 64-byte lines read from memory.
    pub lines: Vec<u64>,
    /// In-bounds bytes read from memory.
    pub bytes: u64,
}

/// Memory footprint of a 2D block store or prefetch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Block2dAccess {
    /// Sorted, distinct 64-byte lines written (store) or covered (prefetch).
    pub lines: Vec<u64>,
    /// In-bounds bytes written (store) or covered (prefetch).
    pub bytes: u64,
}

fn limit(op: Block2dOp, limit: Block2dLimit) -> SimError {
    SimError::Block2d {
        op: op.name(),
        limit,
    }
}

/// Checks every restriction of the spec for `op` and computes its layout.
pub fn layout(op: Block2dOp, p: &Block2dParams, sg: Subgroup) -> Result<Block2dLayout, SimError> {
    let err = |l| limit(op, l);
    let es = p.element_size;
    if !matches!(es, 1 | 2 | 4 | 8) {
        return Err(err(Block2dLimit::ElementSize { element_size: es }));
    }
    if p.block_width == 0 || p.block_height == 0 || p.block_count == 0 {
        return Err(err(Block2dLimit::ZeroBlockDimension {
            block_width: p.block_width,
            block_height: p.block_height,
            block_count: p.block_count,
        }));
    }
    let multiple = match es {
        1 => 4,
        2 => 2,
        _ => 1,
    };
    if p.block_width % multiple != 0 {
        return Err(err(Block2dLimit::BlockWidthMultiple {
            block_width: p.block_width,
            element_size: es,
            multiple,
        }));
    }
    if op == Block2dOp::LoadTransform && es > 2 {
        return Err(err(Block2dLimit::TransformElementSize { element_size: es }));
    }
    sg.require_full_power_of_two(op.name())?;
    let align = if p.base_alignment == 0 {
        BASE_ALIGNMENT
    } else {
        p.base_alignment
    };
    if p.base % align != 0 {
        return Err(err(Block2dLimit::BaseAlignment {
            base: p.base,
            alignment: align,
        }));
    }
    if !(MIN_MEMORY_WIDTH..=MAX_MEMORY_EXTENT).contains(&p.memory_width) {
        return Err(err(Block2dLimit::MemoryWidth {
            memory_width: p.memory_width,
        }));
    }
    if !(1..=MAX_MEMORY_EXTENT).contains(&p.memory_height) {
        return Err(err(Block2dLimit::MemoryHeight {
            memory_height: p.memory_height,
        }));
    }
    if p.memory_pitch < p.memory_width {
        return Err(err(Block2dLimit::PitchBelowWidth {
            memory_pitch: p.memory_pitch,
            memory_width: p.memory_width,
        }));
    }
    if p.memory_pitch % PITCH_MULTIPLE != 0 {
        return Err(err(Block2dLimit::PitchMultiple {
            memory_pitch: p.memory_pitch,
        }));
    }
    if p.x.rem_euclid(multiple as i64) != 0 {
        return Err(err(Block2dLimit::CoordinateX {
            x: p.x,
            element_size: es,
            multiple,
        }));
    }

    // Bound the unpadded block first: afterwards every dimension is below 2^20 and no product
    // below can overflow.
    let raw_bytes =
        p.block_width as u128 * p.block_height as u128 * p.block_count as u128 * es as u128;
    let too_large = |bytes: u128| {
        err(Block2dLimit::TooLarge {
            bytes: bytes.min(u64::MAX as u128) as u64,
        })
    };
    if raw_bytes > MAX_BLOCK_BYTES as u128 {
        return Err(too_large(raw_bytes));
    }
    let w = p.block_width as u64;
    let h = p.block_height as u64;
    let (padded_width, padded_height, rows, columns, value_bytes) = match op {
        Block2dOp::Load | Block2dOp::Store | Block2dOp::Prefetch => {
            (w.next_power_of_two(), h, h, w.next_power_of_two(), es)
        }
        Block2dOp::LoadTransform => {
            let pack = 4 / es as u64;
            let ph = h.div_ceil(pack) * pack;
            (
                w.next_power_of_two(),
                ph,
                ph / pack,
                w.next_power_of_two(),
                4,
            )
        }
        Block2dOp::LoadTranspose => {
            let ph = h.next_power_of_two();
            (w, ph, w, ph, es)
        }
    };
    let sgs = sg.size as u64;
    let values_per_block = if columns >= sgs {
        rows * (columns / sgs)
    } else {
        (rows * columns).div_ceil(sgs)
    };
    // padded data, including the zero slots of invocations that get no row
    let padded_bytes =
        (rows * columns).max(values_per_block * sgs) * value_bytes as u64 * p.block_count as u64;
    if padded_bytes > MAX_BLOCK_BYTES {
        return Err(too_large(padded_bytes as u128));
    }
    let bytes_per_invocation = if op == Block2dOp::Prefetch {
        0
    } else {
        (values_per_block * value_bytes as u64 * p.block_count as u64) as usize
    };
    // every quantity is bounded by MAX_BLOCK_BYTES, so the narrowing casts are exact
    Ok(Block2dLayout {
        op,
        padded_width: padded_width as u32,
        padded_height: padded_height as u32,
        rows: rows as u32,
        columns: columns as u32,
        value_bytes,
        values_per_block: values_per_block as u32,
        bytes_per_invocation,
        subgroup_size: sg.size,
        mapping: p.mapping,
    })
}

/// Size in bytes of the per-invocation Dst (loads) or Src (stores) data; 0 for prefetches.
pub fn bytes_per_invocation(
    op: Block2dOp,
    p: &Block2dParams,
    sg: Subgroup,
) -> Result<usize, SimError> {
    Ok(layout(op, p, sg)?.bytes_per_invocation)
}

/// Checks the per-invocation (Function storage) Dst / Src pointer: UB unless "aligned to a
/// multiple of the Element Size". Prefetches have no such pointer.
pub fn check_invocation_pointer(
    op: Block2dOp,
    p: &Block2dParams,
    addr: u64,
) -> Result<(), SimError> {
    if op == Block2dOp::Prefetch {
        return Ok(());
    }
    let es = p.element_size as u64;
    if es != 0 && addr % es != 0 {
        return Err(limit(
            op,
            Block2dLimit::InvocationPointerAlignment {
                addr,
                element_size: p.element_size,
            },
        ));
    }
    Ok(())
}

/// One run of in-bounds elements of one block row.
#[derive(Debug, Clone, Copy)]
struct Segment {
    block: u32,
    /// Row within the block.
    row: u32,
    /// First block column (pre-padding) of the run.
    col: u32,
    /// Number of elements.
    len: u32,
    /// Address of the first element.
    addr: u64,
}

/// Calls `f` for every in-bounds run of elements, block by block, row by row.
fn for_each_segment(
    p: &Block2dParams,
    mut f: impl FnMut(Segment) -> Result<(), SimError>,
) -> Result<(), SimError> {
    let es = p.element_size as i128;
    let w = p.block_width as i128;
    let elems_per_row = p.memory_width as i128 / es;
    for block in 0..p.block_count {
        let x0 = p.x as i128 + block as i128 * w;
        let lo = (-x0).max(0);
        let hi = (elems_per_row - x0).min(w);
        if lo >= hi {
            continue;
        }
        for row in 0..p.block_height {
            let my = p.y as i128 + row as i128;
            if my < 0 || my >= p.memory_height as i128 {
                continue;
            }
            let addr = p.base as i128 + my * p.memory_pitch as i128 + (x0 + lo) * es;
            let addr = u64::try_from(addr).map_err(|_| SimError::Unmapped {
                addr: u64::MAX,
                size: ((hi - lo) * es) as u64,
            })?;
            f(Segment {
                block,
                row,
                col: lo as u32,
                len: (hi - lo) as u32,
                addr,
            })?;
        }
    }
    Ok(())
}

/// Executes one of the three 2D block loads for a whole subgroup.
pub fn load(
    mem: &Memory,
    kind: LoadKind,
    p: &Block2dParams,
    sg: Subgroup,
) -> Result<Block2dLoad, SimError> {
    let op = Block2dOp::from(kind);
    let lay = layout(op, p, sg)?;
    let es = p.element_size as usize;
    let w = p.block_width as usize;
    let h = p.block_height as usize;
    let block_bytes = w * h * es;
    // raw (unpadded, untransformed) blocks, zero where out of bounds
    let mut raw = vec![0u8; block_bytes * p.block_count as usize];
    let mut lines = Vec::new();
    let mut bytes = 0u64;
    for_each_segment(p, |s| {
        let start = s.block as usize * block_bytes + (s.row as usize * w + s.col as usize) * es;
        let len = s.len as usize * es;
        mem.read(s.addr, &mut raw[start..start + len])?;
        push_lines(&mut lines, s.addr, len as u64);
        bytes += len as u64;
        Ok(())
    })?;
    normalize_lines(&mut lines);

    let vb = lay.value_bytes as usize;
    let mut data = vec![vec![0u8; lay.bytes_per_invocation]; sg.len()];
    for block in 0..p.block_count as usize {
        let src = &raw[block * block_bytes..(block + 1) * block_bytes];
        let element = |r: usize, c: usize| -> u64 {
            if r >= h || c >= w {
                return 0;
            }
            let at = (r * w + c) * es;
            let mut v = [0u8; 8];
            v[..es].copy_from_slice(&src[at..at + es]);
            u64::from_le_bytes(v)
        };
        let value = |r: usize, c: usize| -> u64 {
            match kind {
                LoadKind::Plain => element(r, c),
                LoadKind::Transpose => element(c, r),
                LoadKind::Transform => {
                    let pack = 4 / es;
                    (0..pack).fold(0u64, |acc, j| {
                        acc | element(r * pack + j, c) << (8 * es * j)
                    })
                }
            }
        };
        for (inv, out) in data.iter_mut().enumerate() {
            for slot in 0..lay.values_per_block {
                if let Some((r, c)) = lay.position(inv as u32, slot) {
                    let v = value(r as usize, c as usize).to_le_bytes();
                    let at = (block * lay.values_per_block as usize + slot as usize) * vb;
                    out[at..at + vb].copy_from_slice(&v[..vb]);
                }
            }
        }
    }
    Ok(Block2dLoad { data, lines, bytes })
}

/// Executes `OpSubgroup2DBlockStoreINTEL` for a whole subgroup: `src[i]` is invocation `i`'s
/// Src data (`bytes_per_invocation` bytes, laid out like a plain load's destination).
pub fn store<D: AsRef<[u8]>>(
    mem: &mut Memory,
    p: &Block2dParams,
    sg: Subgroup,
    src: &[D],
) -> Result<Block2dAccess, SimError> {
    let op = Block2dOp::Store;
    let lay = layout(op, p, sg)?;
    if src.len() != sg.len() {
        return Err(SimError::InvocationCount {
            what: op.name(),
            expected: sg.len(),
            got: src.len(),
        });
    }
    for (invocation, d) in src.iter().enumerate() {
        if d.as_ref().len() != lay.bytes_per_invocation {
            return Err(SimError::DataSize {
                what: op.name(),
                invocation,
                expected: lay.bytes_per_invocation,
                got: d.as_ref().len(),
            });
        }
    }
    let es = p.element_size as usize;
    let w = p.block_width as usize;
    let h = p.block_height as usize;
    let block_bytes = w * h * es;
    // gather the unpadded blocks back from the invocations; padding is ignored
    let mut raw = vec![0u8; block_bytes * p.block_count as usize];
    for block in 0..p.block_count as usize {
        for (inv, d) in src.iter().enumerate() {
            let d = d.as_ref();
            for slot in 0..lay.values_per_block {
                let Some((r, c)) = lay.position(inv as u32, slot) else {
                    continue;
                };
                let (r, c) = (r as usize, c as usize);
                if r >= h || c >= w {
                    continue;
                }
                let from = (block * lay.values_per_block as usize + slot as usize) * es;
                let to = block * block_bytes + (r * w + c) * es;
                raw[to..to + es].copy_from_slice(&d[from..from + es]);
            }
        }
    }
    // check every segment first so a faulting store writes nothing
    let mut segments = Vec::new();
    for_each_segment(p, |s| {
        mem.check(s.addr, s.len as u64 * es as u64)?;
        segments.push(s);
        Ok(())
    })?;
    let mut lines = Vec::new();
    let mut bytes = 0u64;
    for s in segments {
        let start = s.block as usize * block_bytes + (s.row as usize * w + s.col as usize) * es;
        let len = s.len as usize * es;
        mem.write(s.addr, &raw[start..start + len])?;
        push_lines(&mut lines, s.addr, len as u64);
        bytes += len as u64;
    }
    normalize_lines(&mut lines);
    Ok(Block2dAccess { lines, bytes })
}

/// Executes `OpSubgroup2DBlockPrefetchINTEL`: checks the operands, touches no memory, and
/// reports the in-bounds lines the prefetch covers.
pub fn prefetch(p: &Block2dParams, sg: Subgroup) -> Result<Block2dAccess, SimError> {
    let op = Block2dOp::Prefetch;
    layout(op, p, sg)?;
    let es = p.element_size as u64;
    let mut lines = Vec::new();
    let mut bytes = 0u64;
    for_each_segment(p, |s| {
        push_lines(&mut lines, s.addr, s.len as u64 * es);
        bytes += s.len as u64 * es;
        Ok(())
    })?;
    normalize_lines(&mut lines);
    Ok(Block2dAccess { lines, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(es: u32, w: u32, h: u32, c: u32) -> Block2dParams {
        Block2dParams {
            element_size: es,
            block_width: w,
            block_height: h,
            block_count: c,
            base: 0x1_0000,
            memory_width: 64,
            memory_height: 64,
            memory_pitch: 64,
            x: 0,
            y: 0,
            mapping: BlockLayout::Hardware,
            base_alignment: BASE_ALIGNMENT,
        }
    }

    #[test]
    fn layouts_match_the_opencl_register_footprints() {
        // cl_intel_subgroup_2d_block_io per-work-item sizes for SG16 (intel-targets.md §1.2)
        let sg = Subgroup::full(16);
        let size = |op, es, w, h, c| bytes_per_invocation(op, &params(es, w, h, c), sg).unwrap();
        use Block2dOp::*;
        assert_eq!(size(Load, 1, 32, 8, 1), 8 * 2); // 8b_8r32x1c -> 8 ushort
        assert_eq!(size(Load, 2, 16, 8, 2), 8 * 2 * 2); // 16b_8r16x2c -> 16 ushort
        assert_eq!(size(Load, 4, 8, 8, 2), 4 * 2 * 4); // 32b_8r8x2c -> ceil(8/2)*2 uint
        assert_eq!(size(Load, 4, 8, 1, 1), 4); // 32b_1r8x1c -> 1 uint, upper lanes unassigned
        assert_eq!(size(Load, 4, 16, 8, 1), 8 * 4); // 32b_8r16x1c -> 8 uint
        assert_eq!(size(LoadTransform, 2, 16, 16, 2), 8 * 2 * 4); // H/2*B uint
        assert_eq!(size(LoadTransform, 1, 16, 32, 4), 8 * 4 * 4); // 8*B uint
        assert_eq!(size(LoadTranspose, 4, 8, 16, 1), 8 * 4); // 8 uint
        assert_eq!(size(LoadTranspose, 4, 8, 32, 1), 16 * 4); // 16 uint
        assert_eq!(size(Store, 2, 16, 8, 1), 8 * 2);
        assert_eq!(size(Prefetch, 2, 16, 8, 1), 0);
    }

    #[test]
    fn position_covers_each_element_once() {
        for (op, es, w, h, sg) in [
            (Block2dOp::Load, 4, 8, 4, 16),
            (Block2dOp::Load, 2, 32, 3, 16),
            (Block2dOp::Load, 1, 4, 5, 8),
            (Block2dOp::LoadTransform, 1, 12, 7, 16),
            (Block2dOp::LoadTranspose, 4, 3, 5, 4),
        ] {
            let lay = layout(op, &params(es, w, h, 1), Subgroup::full(sg)).unwrap();
            let mut seen = vec![0u32; (lay.rows * lay.columns) as usize];
            for inv in 0..sg {
                for slot in 0..lay.values_per_block {
                    if let Some((r, c)) = lay.position(inv, slot) {
                        seen[(r * lay.columns + c) as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{op:?} {seen:?}");
        }
    }
}
