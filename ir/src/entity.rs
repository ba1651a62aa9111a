//! Typed entity maps: tables indexed by a handle type instead of a raw `usize`, in the shape
//! of cranelift-entity (`PrimaryMap`, `SecondaryMap`, `EntitySet`).
//!
//! A `PrimaryMap<K, V>` allocates the handles (`push` returns the new `K`); a
//! `SecondaryMap<K, V>` attaches data to handles allocated elsewhere, grows on write and reads
//! its default for handles it has not seen; an `EntitySet<K>` is a dense bit set. Indexing a
//! map with the wrong kind of handle (a `BlockId` into an instruction table, an `Id` into a
//! table of functions) is a type error instead of a silent wrong answer. The maps dereference
//! to slices, so `len`, `iter` and positional indexing stay available.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, Index, IndexMut};

use crate::id::{BlockId, FuncId, Id, InstId};

/// A handle that is a dense index.
pub trait EntityRef: Copy {
    /// The handle of index `i`.
    fn new(i: usize) -> Self;
    /// The handle's index.
    fn index(self) -> usize;
}

macro_rules! entity_ref {
    ($($t:ty),*) => {$(
        impl EntityRef for $t {
            #[inline]
            fn new(i: usize) -> Self {
                <$t>::from_index(i)
            }
            #[inline]
            fn index(self) -> usize {
                <$t>::index(self)
            }
        }
    )*};
}
entity_ref!(InstId, BlockId, FuncId);

/// Ids index their tables by their number (index 0, never an id, is unused).
impl EntityRef for Id {
    #[inline]
    fn new(i: usize) -> Self {
        Id::new(i as u32).expect("id index 0 is not an id")
    }
    #[inline]
    fn index(self) -> usize {
        Id::index(self)
    }
}

/// A table that allocates its keys: the `n`-th value pushed has key `K::new(n)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimaryMap<K, V> {
    values: Vec<V>,
    key: PhantomData<fn(K) -> K>,
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        PrimaryMap {
            values: Vec::new(),
            key: PhantomData,
        }
    }

    /// An empty map with room for `n` values.
    pub fn with_capacity(n: usize) -> Self {
        PrimaryMap {
            values: Vec::with_capacity(n),
            key: PhantomData,
        }
    }

    /// Adds `v`; returns its key.
    #[inline]
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.values.len());
        self.values.push(v);
        k
    }

    /// The key the next `push` returns.
    pub fn next_key(&self) -> K {
        K::new(self.values.len())
    }

    /// The value of `k`, if allocated.
    #[inline]
    pub fn get(&self, k: K) -> Option<&V> {
        self.values.get(k.index())
    }

    /// Every key, in allocation order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        (0..self.values.len()).map(K::new)
    }

    /// Every key with its value.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = (K, &V)> {
        self.values.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Removes the value of `k`; the keys of later values shift down by one (as on a vector:
    /// for tables whose keys are positions, such as the module's functions).
    pub fn remove(&mut self, k: K) -> V {
        self.values.remove(k.index())
    }

    /// Reserves room for `n` more values.
    pub fn reserve(&mut self, n: usize) {
        self.values.reserve(n);
    }

    /// The values, mutably, as a vector (for reordering; keys are positions).
    pub fn as_mut_vec(&mut self) -> &mut Vec<V> {
        &mut self.values
    }
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> Index<K> for PrimaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        &self.values[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for PrimaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.values[k.index()]
    }
}

/// Positional indexing, as on the vector a map replaces (keys are positions).
impl<K: EntityRef, V> Index<usize> for PrimaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, i: usize) -> &V {
        &self.values[i]
    }
}

impl<K: EntityRef, V> IndexMut<usize> for PrimaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut V {
        &mut self.values[i]
    }
}

impl<'a, K, V> IntoIterator for &'a PrimaryMap<K, V> {
    type Item = &'a V;
    type IntoIter = std::slice::Iter<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.values.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut PrimaryMap<K, V> {
    type Item = &'a mut V;
    type IntoIter = std::slice::IterMut<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.values.iter_mut()
    }
}

impl<K, V> Deref for PrimaryMap<K, V> {
    type Target = [V];
    fn deref(&self) -> &[V] {
        &self.values
    }
}

impl<K, V> DerefMut for PrimaryMap<K, V> {
    fn deref_mut(&mut self) -> &mut [V] {
        &mut self.values
    }
}

impl<K: EntityRef, V> FromIterator<V> for PrimaryMap<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        PrimaryMap {
            values: iter.into_iter().collect(),
            key: PhantomData,
        }
    }
}

/// Data attached to keys allocated elsewhere: dense, grows on write, reads `default` for keys
/// it has not stored.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K, V: Clone> {
    values: Vec<V>,
    default: V,
    key: PhantomData<fn(K) -> K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty map reading `default` everywhere.
    pub fn with_default(default: V) -> Self {
        SecondaryMap {
            values: Vec::new(),
            default,
            key: PhantomData,
        }
    }

    /// An empty map reading `default` everywhere, with room for keys below `n`.
    pub fn with_capacity(n: usize, default: V) -> Self {
        SecondaryMap {
            values: Vec::with_capacity(n),
            default,
            key: PhantomData,
        }
    }

    /// The value of `k` (the default if never set).
    #[inline]
    pub fn get(&self, k: K) -> &V {
        self.values.get(k.index()).unwrap_or(&self.default)
    }

    /// Sets the value of `k`, growing the table as needed.
    #[inline]
    pub fn set(&mut self, k: K, v: V) {
        let i = k.index();
        if i >= self.values.len() {
            self.values.resize(i + 1, self.default.clone());
        }
        self.values[i] = v;
    }

    /// Makes the table hold `n` entries (new ones at the default; extra ones dropped).
    pub fn resize(&mut self, n: usize) {
        self.values.resize(n, self.default.clone());
    }

    /// One more than the highest index the table holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the table holds nothing.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The stored values by index (positions past the end read the default).
    pub fn as_slice(&self) -> &[V] {
        &self.values
    }
}

impl<K: EntityRef, V: Clone> Index<K> for SecondaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}

impl<K: EntityRef, V: Clone> IndexMut<K> for SecondaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.values.len() {
            self.values.resize(i + 1, self.default.clone());
        }
        &mut self.values[i]
    }
}

/// A dense set of keys (one bit each).
#[derive(Clone, Debug, Default)]
pub struct EntitySet<K> {
    bits: Vec<u64>,
    key: PhantomData<fn(K) -> K>,
}

impl<K: EntityRef> EntitySet<K> {
    /// An empty set.
    pub fn new() -> Self {
        EntitySet {
            bits: Vec::new(),
            key: PhantomData,
        }
    }

    /// An empty set with room for keys below `n`.
    pub fn with_capacity(n: usize) -> Self {
        EntitySet {
            bits: vec![0; n.div_ceil(64)],
            key: PhantomData,
        }
    }

    /// Adds `k`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, k: K) -> bool {
        let i = k.index();
        if i / 64 >= self.bits.len() {
            self.bits.resize(i / 64 + 1, 0);
        }
        let (w, b) = (&mut self.bits[i / 64], 1u64 << (i % 64));
        let new = *w & b == 0;
        *w |= b;
        new
    }

    /// Removes every key (keeping the memory).
    pub fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
    }

    /// Removes `k`.
    pub fn remove(&mut self, k: K) {
        let i = k.index();
        if let Some(w) = self.bits.get_mut(i / 64) {
            *w &= !(1u64 << (i % 64));
        }
    }

    /// Whether `k` is in the set.
    #[inline]
    pub fn contains(&self, k: K) -> bool {
        let i = k.index();
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primary_map_allocates_keys_in_order() {
        let mut m: PrimaryMap<BlockId, &str> = PrimaryMap::new();
        let a = m.push("a");
        let b = m.push("b");
        assert_eq!((a.index(), b.index()), (0, 1));
        assert_eq!(m[b], "b");
        assert_eq!(m.keys().collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn secondary_map_reads_default_and_grows_on_write() {
        let mut m: SecondaryMap<Id, Option<u8>> = SecondaryMap::with_default(None);
        let id = Id::new(40).unwrap();
        assert_eq!(m[id], None);
        m.set(id, Some(3));
        assert_eq!(m[id], Some(3));
        assert_eq!(m.len(), 41);
        m[Id::new(50).unwrap()] = Some(1);
        assert_eq!(m.len(), 51);
    }

    #[test]
    fn entity_set_inserts_once() {
        let mut s: EntitySet<InstId> = EntitySet::new();
        let i = InstId::from_index(130);
        assert!(!s.contains(i));
        assert!(s.insert(i));
        assert!(!s.insert(i));
        assert!(s.contains(i));
        s.remove(i);
        assert!(!s.contains(i));
    }
}
