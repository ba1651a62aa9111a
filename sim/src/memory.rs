//! The simulated memory: one flat 64-bit address space holding every allocation of a launch
//! (global buffers, work-group local memory, private memory, constants).
//!
//! Allocations get distinct, never reused addresses with unmapped guard gaps between them, and
//! nothing is mapped below [`DEFAULT_FIRST_BASE`] (so address 0 and small offsets from it are
//! never valid). An access must lie entirely inside one allocation: one that straddles an
//! allocation's end, starts in a gap, or touches a freed allocation is an error
//! ([`SimError::OutOfBounds`], [`SimError::Unmapped`], [`SimError::NullAccess`]), never silently OK.
//! This is how the simulator reports "out-of-bounds buffer access" undefined behaviour (DESIGN §6).
//! Errors name the allocation an access left (for an access starting in a gap: the allocation it
//! follows within the guard distance, or precedes by less than a page).
//!
//! Lookup is a binary search over the allocations, which are kept sorted by base address (bases
//! only grow, so allocation appends), i.e. O(log n) per access with no hashing. Values are
//! little-endian, as on every device the SPIR-V kernels we simulate run on.

use crate::error::SimError;

/// Accesses below this address are reported as null-pointer accesses.
pub const NULL_PAGE: u64 = 0x1000;
/// Lowest address an allocation may get.
pub const DEFAULT_FIRST_BASE: u64 = 0x1_0000;
/// Unmapped bytes left after every allocation.
pub const DEFAULT_GUARD: u64 = 0x1_0000;
/// An access ending less than this many bytes before an allocation is reported against it.
const NEAR_BEFORE: u64 = 0x1000;
/// Default cap on the bytes of all live allocations together.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 8 << 30;
/// Alignment a driver gives a global buffer (a page); the 2D block IO base rule needs >= 64.
pub const DEFAULT_GLOBAL_ALIGN: u64 = 4096;

/// What an allocation is for; kept for error messages and for the interpreter's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllocKind {
    /// A kernel argument buffer (CrossWorkgroup), `arg` = argument index.
    Global { arg: usize },
    /// Work-group local memory (Workgroup storage) of work-group `group` (linear index).
    Local { group: usize },
    /// Private (Function / Private storage) memory of an invocation.
    Private,
    /// UniformConstant data (constant buffers, module-scope constant arrays).
    Constant,
}

/// Read-only view of an allocation's metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocInfo<'a> {
    pub base: u64,
    pub size: u64,
    pub kind: AllocKind,
    pub name: &'a str,
}

#[derive(Debug, Clone)]
struct Allocation {
    base: u64,
    kind: AllocKind,
    name: String,
    data: Vec<u8>,
}

impl Allocation {
    fn size(&self) -> u64 {
        self.data.len() as u64
    }

    fn info(&self) -> AllocInfo<'_> {
        AllocInfo {
            base: self.base,
            size: self.size(),
            kind: self.kind,
            name: &self.name,
        }
    }
}

/// The flat address space. See the module documentation.
#[derive(Debug, Clone)]
pub struct Memory {
    /// Live allocations sorted by `base`.
    allocs: Vec<Allocation>,
    /// `allocs[i].base`, kept dense for a cache-friendly binary search.
    bases: Vec<u64>,
    /// Lowest address the next allocation may start at (previous end + guard).
    next: u64,
    guard: u64,
    live_bytes: u64,
    max_total_bytes: u64,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

impl Memory {
    /// An empty address space with the default layout.
    pub fn new() -> Memory {
        Memory::with_layout(DEFAULT_FIRST_BASE, DEFAULT_GUARD)
    }

    /// An empty address space whose first allocation starts at or above `first_base` (raised to
    /// at least [`NULL_PAGE`]) and whose allocations are separated by at least `guard` (>= 1)
    /// unmapped bytes.
    pub fn with_layout(first_base: u64, guard: u64) -> Memory {
        Memory {
            allocs: Vec::new(),
            bases: Vec::new(),
            next: first_base.max(NULL_PAGE),
            guard: guard.max(1),
            live_bytes: 0,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
        }
    }

    /// Changes the cap on the bytes of all live allocations.
    pub fn set_max_total_bytes(&mut self, bytes: u64) {
        self.max_total_bytes = bytes;
    }

    /// Bytes held by live allocations.
    pub fn live_bytes(&self) -> u64 {
        self.live_bytes
    }

    /// Creates a zero-filled allocation of `size` bytes aligned to `align` (a power of two) and
    /// returns its base address, which also identifies it.
    pub fn alloc(
        &mut self,
        size: u64,
        align: u64,
        kind: AllocKind,
        name: impl Into<String>,
    ) -> Result<u64, SimError> {
        let fail = |reason| SimError::BadAlloc {
            size,
            align,
            reason,
        };
        if align == 0 || !align.is_power_of_two() {
            return Err(fail("alignment is not a power of two"));
        }
        let total = self
            .live_bytes
            .checked_add(size)
            .filter(|&t| t <= self.max_total_bytes)
            .ok_or(fail("simulated memory limit reached"))?;
        let len = usize::try_from(size).map_err(|_| fail("too large for this host"))?;
        let base = self
            .next
            .checked_add(align - 1)
            .map(|b| b & !(align - 1))
            .ok_or(fail("address space exhausted"))?;
        let next = base
            .checked_add(size)
            .and_then(|end| end.checked_add(self.guard))
            .ok_or(fail("address space exhausted"))?;
        self.bases.push(base);
        self.allocs.push(Allocation {
            base,
            kind,
            name: name.into(),
            data: vec![0; len],
        });
        self.next = next;
        self.live_bytes = total;
        Ok(base)
    }

    /// Creates an allocation holding a copy of `bytes`.
    pub fn alloc_init(
        &mut self,
        bytes: &[u8],
        align: u64,
        kind: AllocKind,
        name: impl Into<String>,
    ) -> Result<u64, SimError> {
        let base = self.alloc(bytes.len() as u64, align, kind, name)?;
        self.write(base, bytes)?;
        Ok(base)
    }

    /// Releases the allocation starting at `base`. Its addresses stay unmapped forever, so a
    /// later access through a dangling pointer is an error. Cheapest for the newest allocation.
    pub fn free(&mut self, base: u64) -> Result<(), SimError> {
        let idx = self.index_of_base(base)?;
        self.bases.remove(idx);
        let a = self.allocs.remove(idx);
        self.live_bytes -= a.size();
        Ok(())
    }

    /// Contents of the allocation starting at `base` (e.g. a result buffer after a launch).
    pub fn bytes_of(&self, base: u64) -> Result<&[u8], SimError> {
        let idx = self.index_of_base(base)?;
        Ok(&self.allocs[idx].data)
    }

    /// Mutable contents of the allocation starting at `base`.
    pub fn bytes_of_mut(&mut self, base: u64) -> Result<&mut [u8], SimError> {
        let idx = self.index_of_base(base)?;
        Ok(&mut self.allocs[idx].data)
    }

    /// The allocation containing `addr` (for an empty allocation: starting at `addr`).
    pub fn info(&self, addr: u64) -> Option<AllocInfo<'_>> {
        let idx = self.bases.partition_point(|&b| b <= addr);
        let a = self.allocs.get(idx.checked_sub(1)?)?;
        let off = addr - a.base;
        (off < a.size() || off == 0).then(|| a.info())
    }

    /// All live allocations in address order.
    pub fn allocations(&self) -> impl Iterator<Item = AllocInfo<'_>> + '_ {
        self.allocs.iter().map(Allocation::info)
    }

    /// Checks that `len` bytes at `addr` lie inside one allocation.
    #[inline]
    pub fn check(&self, addr: u64, len: u64) -> Result<(), SimError> {
        if len == 0 {
            return Ok(());
        }
        self.locate(addr, len).map(|_| ())
    }

    /// Borrows `len` bytes at `addr`.
    #[inline]
    pub fn slice(&self, addr: u64, len: usize) -> Result<&[u8], SimError> {
        if len == 0 {
            return Ok(&[]);
        }
        let (idx, off) = self.locate(addr, len as u64)?;
        Ok(&self.allocs[idx].data[off..off + len])
    }

    /// Mutably borrows `len` bytes at `addr`.
    #[inline]
    pub fn slice_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], SimError> {
        if len == 0 {
            return Ok(&mut []);
        }
        let (idx, off) = self.locate(addr, len as u64)?;
        Ok(&mut self.allocs[idx].data[off..off + len])
    }

    /// Copies `buf.len()` bytes at `addr` into `buf`.
    #[inline]
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), SimError> {
        buf.copy_from_slice(self.slice(addr, buf.len())?);
        Ok(())
    }

    /// Copies `data` to `addr`.
    #[inline]
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.slice_mut(addr, data.len())?.copy_from_slice(data);
        Ok(())
    }

    /// Reads `len` bytes at `addr` into a new vector.
    pub fn read_vec(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        Ok(self.slice(addr, len)?.to_vec())
    }

    /// Finds the allocation index and offset for a non-empty access, or explains the fault.
    #[inline]
    fn locate(&self, addr: u64, len: u64) -> Result<(usize, usize), SimError> {
        let idx = self.bases.partition_point(|&b| b <= addr);
        if idx > 0 {
            let a = &self.allocs[idx - 1];
            let off = addr - a.base;
            let size = a.size();
            if off < size && len <= size - off {
                // `off < size <= usize::MAX` because the data is a Vec.
                return Ok((idx - 1, off as usize));
            }
        }
        Err(self.fault(addr, len, idx))
    }

    /// Builds the error for an access that `locate` refused; `idx` = first allocation above `addr`.
    #[cold]
    fn fault(&self, addr: u64, len: u64, idx: usize) -> SimError {
        if addr < NULL_PAGE {
            return SimError::NullAccess { addr, size: len };
        }
        let out_of = |a: &Allocation| SimError::OutOfBounds {
            addr,
            size: len,
            name: a.name.clone(),
            base: a.base,
            len: a.size(),
        };
        if let Some(prev) = idx.checked_sub(1).and_then(|i| self.allocs.get(i)) {
            if addr - prev.base < prev.size().saturating_add(self.guard) {
                return out_of(prev);
            }
        }
        if let Some(next) = self.allocs.get(idx) {
            // an access ending in the page before an allocation (a negative index) names it
            if addr.saturating_add(len).saturating_add(NEAR_BEFORE) > next.base {
                return out_of(next);
            }
        }
        SimError::Unmapped { addr, size: len }
    }

    fn index_of_base(&self, base: u64) -> Result<usize, SimError> {
        self.bases
            .binary_search(&base)
            .map_err(|_| SimError::UnknownAllocation { base })
    }
}

macro_rules! typed_access {
    ($($read:ident $write:ident $ty:ty;)*) => {
        impl Memory {
            $(
                #[doc = concat!("Reads a little-endian `", stringify!($ty), "` at `addr`.")]
                #[inline]
                pub fn $read(&self, addr: u64) -> Result<$ty, SimError> {
                    let mut bytes = [0u8; std::mem::size_of::<$ty>()];
                    self.read(addr, &mut bytes)?;
                    Ok(<$ty>::from_le_bytes(bytes))
                }

                #[doc = concat!("Writes a little-endian `", stringify!($ty), "` to `addr`.")]
                #[inline]
                pub fn $write(&mut self, addr: u64, value: $ty) -> Result<(), SimError> {
                    self.write(addr, &value.to_le_bytes())
                }
            )*
        }
    };
}

typed_access! {
    read_u8 write_u8 u8;
    read_u16 write_u16 u16;
    read_u32 write_u32 u32;
    read_u64 write_u64 u64;
    read_i8 write_i8 i8;
    read_i16 write_i16 i16;
    read_i32 write_i32 i32;
    read_i64 write_i64 i64;
    read_f32 write_f32 f32;
    read_f64 write_f64 f64;
}

/// Checks `addr` is a multiple of `align` (a power of two; 0 and 1 accept everything).
#[inline]
pub fn check_aligned(addr: u64, align: u64, what: &'static str) -> Result<(), SimError> {
    if align > 1 && addr & (align - 1) != 0 {
        return Err(SimError::Misaligned { addr, align, what });
    }
    Ok(())
}

/// The 64-byte cache lines covering `len` bytes at `addr`, appended to `lines` (not deduplicated).
#[inline]
pub fn push_lines(lines: &mut Vec<u64>, addr: u64, len: u64) {
    if len == 0 {
        return;
    }
    let first = addr & !63;
    let last = addr.saturating_add(len - 1) & !63;
    let mut line = first;
    loop {
        lines.push(line);
        if line >= last {
            break;
        }
        line += 64;
    }
}

/// Sorts and deduplicates a list of cache-line addresses.
pub fn normalize_lines(lines: &mut Vec<u64>) {
    lines.sort_unstable();
    lines.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem_with(sizes: &[u64]) -> (Memory, Vec<u64>) {
        let mut m = Memory::new();
        let bases = sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                m.alloc(s, 64, AllocKind::Global { arg: i }, format!("buf{i}"))
                    .unwrap()
            })
            .collect();
        (m, bases)
    }

    #[test]
    fn distinct_aligned_bases_with_gaps() {
        let (m, b) = mem_with(&[10, 0, 100, 1]);
        for w in b.windows(2) {
            assert!(w[1] >= w[0] + DEFAULT_GUARD);
        }
        assert!(b.iter().all(|&x| x % 64 == 0 && x >= DEFAULT_FIRST_BASE));
        assert_eq!(m.allocations().count(), 4);
        assert_eq!(m.bytes_of(b[2]).unwrap(), &[0u8; 100][..]);
    }

    #[test]
    fn read_write_typed_little_endian() {
        let (mut m, b) = mem_with(&[16]);
        m.write_u32(b[0], 0x0403_0201).unwrap();
        m.write_f32(b[0] + 4, 1.5).unwrap();
        m.write_u64(b[0] + 8, u64::MAX - 1).unwrap();
        assert_eq!(&m.bytes_of(b[0]).unwrap()[..4], &[1, 2, 3, 4]);
        assert_eq!(m.read_u16(b[0] + 1).unwrap(), 0x0302);
        assert_eq!(m.read_f32(b[0] + 4).unwrap(), 1.5);
        assert_eq!(m.read_i64(b[0] + 8).unwrap(), -2);
        assert_eq!(m.read_u8(b[0] + 15).unwrap(), 0xff);
    }

    #[test]
    fn null_and_low_addresses_are_never_mapped() {
        let (m, _) = mem_with(&[8]);
        assert_eq!(
            m.read_u32(0),
            Err(SimError::NullAccess { addr: 0, size: 4 })
        );
        assert!(matches!(m.read_u8(8), Err(SimError::NullAccess { .. })));
        assert!(matches!(m.read_u8(0x2000), Err(SimError::Unmapped { .. })));
        assert!(m.check(0, 0).is_ok()); // an empty access touches nothing
    }

    #[test]
    fn straddling_and_past_end_accesses_fail() {
        let (m, b) = mem_with(&[16, 16]);
        assert!(m.read_u32(b[0] + 12).is_ok());
        let e = m.read_u32(b[0] + 13).unwrap_err();
        assert!(
            matches!(&e, SimError::OutOfBounds { name, .. } if name == "buf0"),
            "{e}"
        );
        // one past the end, in the guard gap: still names the allocation it left
        let e = m.read_u8(b[0] + 16).unwrap_err();
        assert!(matches!(&e, SimError::OutOfBounds { name, .. } if name == "buf0"));
        // just before the second allocation, reaching into it
        let e = m.read_u32(b[1] - 2).unwrap_err();
        assert!(matches!(&e, SimError::OutOfBounds { .. }));
        // a read spanning both allocations and the gap
        let mut big = vec![0u8; (b[1] - b[0] + 4) as usize];
        assert!(m.read(b[0], &mut big).is_err());
        // far away from everything
        assert!(matches!(
            m.read_u8(u64::MAX),
            Err(SimError::Unmapped { .. })
        ));
        assert!(matches!(
            m.read_u8(b[1] + 16 + 2 * DEFAULT_GUARD),
            Err(SimError::Unmapped { .. })
        ));
        let msg = m.read_u32(b[0] + 13).unwrap_err().to_string();
        assert!(!msg.contains('\n') && msg.contains("buf0"), "{msg}");
    }

    #[test]
    fn wrapping_access_fails() {
        let (m, _) = mem_with(&[16]);
        let mut buf = [0u8; 8];
        assert!(m.read(u64::MAX - 3, &mut buf).is_err());
    }

    #[test]
    fn empty_allocation_maps_nothing() {
        let (m, b) = mem_with(&[0]);
        assert!(matches!(m.read_u8(b[0]), Err(SimError::OutOfBounds { .. })));
        assert_eq!(m.bytes_of(b[0]).unwrap(), &[] as &[u8]);
        assert_eq!(m.info(b[0]).map(|i| i.size), Some(0));
    }

    #[test]
    fn free_unmaps_for_good() {
        let (mut m, b) = mem_with(&[16, 16]);
        m.free(b[1]).unwrap();
        assert!(m.read_u8(b[1]).is_err());
        assert_eq!(
            m.free(b[1]),
            Err(SimError::UnknownAllocation { base: b[1] })
        );
        let c = m.alloc(16, 64, AllocKind::Private, "p").unwrap();
        assert!(c > b[1]);
        assert_eq!(m.live_bytes(), 32);
        m.free(b[0]).unwrap();
        assert!(m.read_u8(c).is_ok());
        assert!(m.read_u8(b[0]).is_err());
    }

    #[test]
    fn alloc_errors() {
        let mut m = Memory::new();
        assert!(matches!(
            m.alloc(4, 3, AllocKind::Private, "x"),
            Err(SimError::BadAlloc { .. })
        ));
        m.set_max_total_bytes(100);
        assert!(m.alloc(64, 64, AllocKind::Private, "a").is_ok());
        assert!(matches!(
            m.alloc(64, 64, AllocKind::Private, "b"),
            Err(SimError::BadAlloc { .. })
        ));
        let mut m = Memory::with_layout(u64::MAX - 100, 1);
        m.set_max_total_bytes(u64::MAX);
        assert!(matches!(
            m.alloc(1000, 1, AllocKind::Constant, "c"),
            Err(SimError::BadAlloc { .. })
        ));
        assert!(matches!(
            m.alloc(10, 1 << 63, AllocKind::Constant, "d"),
            Err(SimError::BadAlloc { .. })
        ));
    }

    #[test]
    fn info_and_kinds() {
        let mut m = Memory::new();
        let g = m
            .alloc_init(&[1, 2, 3], 4096, AllocKind::Global { arg: 2 }, "A")
            .unwrap();
        let l = m.alloc(8, 8, AllocKind::Local { group: 7 }, "slm").unwrap();
        assert_eq!(g % 4096, 0);
        let i = m.info(g + 2).unwrap();
        assert_eq!(
            (i.base, i.size, i.kind, i.name),
            (g, 3, AllocKind::Global { arg: 2 }, "A")
        );
        assert_eq!(m.info(l).unwrap().kind, AllocKind::Local { group: 7 });
        assert!(m.info(g + 3).is_none());
        assert_eq!(m.read_vec(g, 3).unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn many_allocations_lookup() {
        let mut m = Memory::with_layout(DEFAULT_FIRST_BASE, 64);
        let bases: Vec<u64> = (0..1000)
            .map(|i| m.alloc(i % 7 + 1, 8, AllocKind::Private, "p").unwrap())
            .collect();
        for (i, &b) in bases.iter().enumerate() {
            m.write_u8(b, i as u8).unwrap();
        }
        for (i, &b) in bases.iter().enumerate() {
            assert_eq!(m.read_u8(b).unwrap(), i as u8);
            assert!(m.read_u8(b + (i as u64 % 7) + 1).is_err());
        }
    }

    #[test]
    fn alignment_and_lines() {
        assert!(check_aligned(64, 64, "x").is_ok());
        assert!(check_aligned(65, 1, "x").is_ok());
        assert_eq!(
            check_aligned(66, 4, "x"),
            Err(SimError::Misaligned {
                addr: 66,
                align: 4,
                what: "x"
            })
        );
        let mut l = Vec::new();
        push_lines(&mut l, 60, 8);
        push_lines(&mut l, 64, 64);
        push_lines(&mut l, 200, 0);
        normalize_lines(&mut l);
        assert_eq!(l, vec![0, 64]);
    }
}
