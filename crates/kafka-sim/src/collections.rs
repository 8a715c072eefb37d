//! Ordered maps and sets kept as sorted vectors.
//!
//! The engine keeps its state ordered so that every run walks it in the same
//! order (deterministic traces). `std`'s `BTreeMap` / `BTreeSet` would do
//! that too; these sorted vectors are kept because they are faster here,
//! measured with the same code on both (a type alias swapped in, traces
//! identical), `cargo bench -p kafka-sim`, this 2-core machine:
//!
//! | benchmark | sorted vectors | `BTreeMap`/`BTreeSet` |
//! | --- | --- | --- |
//! | simulate 100k events | 422 ms | 547 ms |
//! | seek to a random step of 100k | 1.19 ms | 1.66 ms |
//! | step back from step 99,999 | 2.11 ms | 2.62 ms |
//! | 100 brokers, 3,000 partitions, 30,000 records (267k events) | 0.995 s | 1.166 s |
//!
//! The engine's maps are small to medium (brokers, partitions, members) and
//! mostly filled in key order, and a checkpoint clones the whole world: a
//! vector's lookups, appends and clones beat a tree's node allocations.
//! Iteration order, `insert`'s and `collect`'s "a later value wins", and the
//! JSON written are those of `BTreeMap` / `BTreeSet`, so swapping back is a
//! type alias (re-measure at larger scales: inserting into the middle of a
//! vector is O(n)).
//!
//! The simulation's event queue, which is popped from the front all the time,
//! stays a `std` `BTreeMap`.
//!
//! Maps that are only looked up by key (never walked in order) and hold
//! thousands of entries are a [`FastMap`]: a hash table with fixed keys.
//! Its clone is one allocation, where a tree's is one per node (a world is
//! cloned at every step the page shows inside an engine step).

use std::borrow::Borrow;
use std::fmt;
use std::ops::{Bound, Index, RangeBounds};

/// A hash map with a fast, fixed-key hash ([`FastHasher`]): for maps that
/// are only looked up by key, so its iteration order never shows.
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastBuild>;

/// Builds [`FastHasher`]s.
pub type FastBuild = std::hash::BuildHasherDefault<FastHasher>;

/// A fast hash (the multiply-rotate of rustc's `FxHasher`, eight bytes at a
/// time): keys are the simulation's own (file names, ids), never an
/// adversary's, so SipHash's protection buys nothing here.
#[derive(Default)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map ordered by key, stored as a sorted vector of entries.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

/// A [`SortedMap`] that remembers where its last lookup found its key, and
/// tries there first: for the large maps that one message looks up again and
/// again. A broker's partitions and logs are two: a follower's fetch reads
/// one partition's entries nine times in a row (recording the follower,
/// the ISR, the high watermark, the read). At 100 brokers and 10,000
/// partitions, each a binary search over some 300 entries, lookups were a
/// fifth of a run (`kafka-sim digest`); with the hint on these two maps the
/// run took 6.07 s of CPU against 6.25 s (least of three, `opt-level = "z"`).
/// Only these maps have it: a hint on every map cost the page 3.6 KB gzipped.
///
/// Reads through `Deref` (iteration, ranges) and changes through `DerefMut`
/// are the [`SortedMap`]'s; the hint is only ever a guess, checked against
/// the key before it is used, so a change that moves entries cannot mislead
/// it.
pub struct HintedMap<K, V> {
    map: SortedMap<K, V>,
    // Atomic so that a world stays `Send` and `Sync` (its brokers are
    // `Arc`s); relaxed loads and stores are plain ones.
    hint: std::sync::atomic::AtomicUsize,
}

impl<K, V> Default for HintedMap<K, V> {
    fn default() -> Self {
        HintedMap {
            map: SortedMap::new(),
            hint: Default::default(),
        }
    }
}

impl<K: Clone, V: Clone> Clone for HintedMap<K, V> {
    fn clone(&self) -> Self {
        HintedMap {
            map: self.map.clone(),
            hint: self.hint().into(),
        }
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for HintedMap<K, V> {
    fn eq(&self, o: &Self) -> bool {
        self.map == o.map
    }
}

impl<K, V> std::ops::Deref for HintedMap<K, V> {
    type Target = SortedMap<K, V>;
    fn deref(&self) -> &SortedMap<K, V> {
        &self.map
    }
}

impl<K, V> std::ops::DerefMut for HintedMap<K, V> {
    fn deref_mut(&mut self) -> &mut SortedMap<K, V> {
        &mut self.map
    }
}

impl<K, V> HintedMap<K, V> {
    fn hint(&self) -> usize {
        self.hint.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl<K: Ord, V> HintedMap<K, V> {
    /// The position of `key`: where the last lookup found its key if the
    /// key is there, else by binary search.
    fn find(&self, key: &K) -> Option<usize> {
        let h = self.hint();
        if self.map.entries.get(h).is_some_and(|(k, _)| k == key) {
            return Some(h);
        }
        let i = self.map.find(key).ok()?;
        self.hint.store(i, std::sync::atomic::Ordering::Relaxed);
        Some(i)
    }
    /// The value at `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        self.find(key).map(|i| &self.map.entries[i].1)
    }
    /// The value at `key`, changeable.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.find(key).map(|i| &mut self.map.entries[i].1)
    }
    /// Whether `key` has an entry.
    pub fn contains_key(&self, key: &K) -> bool {
        self.find(key).is_some()
    }
}

impl<K: Ord, V> Index<&K> for HintedMap<K, V> {
    type Output = V;
    fn index(&self, key: &K) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<'a, K, V> IntoIterator for &'a HintedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut HintedMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.iter_mut()
    }
}

/// A set ordered by value, stored as a sorted vector.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SortedSet<T> {
    items: Vec<T>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Index range `[start, end)` of the keys inside `range`, found by binary
/// search over `n` sorted keys; `below(i, q, or_equal)` says whether key `i`
/// is below `q` (or equal to it, when asked).
fn bounds<Q: ?Sized + Ord>(
    n: usize,
    range: &impl RangeBounds<Q>,
    below: impl Fn(usize, &Q, bool) -> bool,
) -> (usize, usize) {
    let point = |pred: &dyn Fn(usize) -> bool| {
        // First index for which pred is false (pred is true on a prefix).
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let start = match range.start_bound() {
        Bound::Included(s) => point(&|i| below(i, s, false)),
        Bound::Excluded(s) => point(&|i| below(i, s, true)),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(e) => point(&|i| below(i, e, true)),
        Bound::Excluded(e) => point(&|i| below(i, e, false)),
        Bound::Unbounded => n,
    };
    (start, end.max(start))
}

impl<K, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear()
    }
    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter(self.entries.iter())
    }
    /// The entries in key order, values changeable.
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        IterMut(self.entries.iter_mut())
    }
    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _)| k)
    }
    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v)| v)
    }
    /// The values in key order, changeable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
    /// Keeps the entries for which `f` is true, in order.
    pub fn retain(&mut self, mut f: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| f(k, v))
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    fn find<Q: ?Sized + Ord>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }
    /// The value at `key`.
    pub fn get<Q: ?Sized + Ord>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }
    /// The value at `key`, changeable.
    pub fn get_mut<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }
    /// The entries in key order, as a slice.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.entries
    }
    /// The entries before `key`, the value at `key` (to change) and the
    /// entries after it; `None` if `key` is absent.
    #[allow(clippy::type_complexity)]
    pub fn split_at_key_mut<Q: ?Sized + Ord>(
        &mut self,
        key: &Q,
    ) -> Option<(&[(K, V)], &mut V, &[(K, V)])>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        let (before, rest) = self.entries.split_at_mut(i);
        let (me, after) = rest.split_first_mut()?;
        Some((before, &mut me.1, after))
    }
    /// Whether `key` has an entry.
    pub fn contains_key<Q: ?Sized + Ord>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }
    /// Inserts or replaces; the old value comes back (the old key stays, as
    /// in `BTreeMap`).
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        // Keys often arrive in order: append without a search.
        if self.entries.last().is_none_or(|(k, _)| *k < key) {
            self.entries.push((key, value));
            return None;
        }
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }
    /// Removes `key`'s entry and returns its value.
    pub fn remove<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }
    /// Removes `key`'s entry and returns it.
    pub fn remove_entry<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.entries.remove(i))
    }
    /// The entry of `key`, present or not (as `BTreeMap::entry`).
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match self.find(&key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            Err(index) => Entry::Vacant(VacantEntry {
                map: self,
                index,
                key,
            }),
        }
    }
    /// The entries whose keys are inside `range`, in order.
    pub fn range<Q: ?Sized + Ord, R: RangeBounds<Q>>(&self, range: R) -> Iter<'_, K, V>
    where
        K: Borrow<Q>,
    {
        let (start, end) = bounds(self.entries.len(), &range, |i, q, or_equal| {
            let k: &Q = self.entries[i].0.borrow();
            k < q || (or_equal && k == q)
        });
        Iter(self.entries[start..end].iter())
    }
}

/// One entry of a [`SortedMap`], present or not.
pub enum Entry<'a, K, V> {
    /// The key is present.
    Occupied(OccupiedEntry<'a, K, V>),
    /// The key is absent.
    Vacant(VacantEntry<'a, K, V>),
}

/// A present entry.
pub struct OccupiedEntry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    index: usize,
}

/// An absent entry.
pub struct VacantEntry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    index: usize,
    key: K,
}

impl<'a, K, V> Entry<'a, K, V> {
    /// The value, inserting `default` if absent.
    pub fn or_insert(self, default: V) -> &'a mut V {
        self.or_insert_with(|| default)
    }
    /// The value, inserting `default()` if absent.
    pub fn or_insert_with(self, default: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => v.insert(default()),
        }
    }
    /// The value, inserting the default if absent.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
    /// The entry's key.
    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(o) => o.key(),
            Entry::Vacant(v) => &v.key,
        }
    }
}

impl<'a, K, V> OccupiedEntry<'a, K, V> {
    /// The entry's key.
    pub fn key(&self) -> &K {
        &self.map.entries[self.index].0
    }
    /// The value.
    pub fn get(&self) -> &V {
        &self.map.entries[self.index].1
    }
    /// The value, changeable.
    pub fn get_mut(&mut self) -> &mut V {
        &mut self.map.entries[self.index].1
    }
    /// The value, changeable, for as long as the map is borrowed.
    pub fn into_mut(self) -> &'a mut V {
        &mut self.map.entries[self.index].1
    }
    /// Replaces the value and returns the old one.
    pub fn insert(&mut self, value: V) -> V {
        std::mem::replace(self.get_mut(), value)
    }
    /// Removes the entry and returns its value.
    pub fn remove(self) -> V {
        self.map.entries.remove(self.index).1
    }
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    /// The key that would be inserted.
    pub fn key(&self) -> &K {
        &self.key
    }
    /// Inserts the value and returns it, changeable.
    pub fn insert(self, value: V) -> &'a mut V {
        self.map.entries.insert(self.index, (self.key, value));
        &mut self.map.entries[self.index].1
    }
}

/// Sorts `v` by key, stably, and keeps the last of equal keys: what inserting
/// them one by one would leave.
fn sorted_dedup_last<T>(mut v: Vec<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    v.sort_by(&cmp);
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        match out.last_mut() {
            Some(last) if cmp(last, &x).is_eq() => *last = x,
            _ => out.push(x),
        }
    }
    out
}

fn by_key<K: Ord, V>(a: &(K, V), b: &(K, V)) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
}

impl<K: Ord, V> SortedMap<K, V> {
    /// The map of `entries` in any order (the last of equal keys wins).
    /// Not generic over an iterator, so the sort is compiled once per
    /// key and value type, not once per place that collects a map.
    fn from_unsorted(entries: Vec<(K, V)>) -> Self {
        SortedMap {
            entries: sorted_dedup_last(entries, by_key::<K, V>),
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        SortedMap::from_unsorted(iter.into_iter().collect())
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Ord + Borrow<Q>, Q: ?Sized + Ord, V> Index<&Q> for SortedMap<K, V> {
    type Output = V;
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Borrowing iterator over a [`SortedMap`]'s entries, in key order.
#[derive(Clone)]
pub struct Iter<'a, K, V>(std::slice::Iter<'a, (K, V)>);

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}
impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

/// Mutably borrowing iterator over a [`SortedMap`]'s entries.
pub struct IterMut<'a, K, V>(std::slice::IterMut<'a, (K, V)>);

impl<'a, K, V> Iterator for IterMut<'a, K, V> {
    type Item = (&'a K, &'a mut V);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
impl<K, V> DoubleEndedIterator for IterMut<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&*k, v))
    }
}
impl<K, V> ExactSizeIterator for IterMut<'_, K, V> {}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
impl<'a, K, V> IntoIterator for &'a mut SortedMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}
impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<T> SortedSet<T> {
    /// An empty set.
    pub const fn new() -> Self {
        SortedSet { items: Vec::new() }
    }
    /// How many elements it holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Removes every element.
    pub fn clear(&mut self) {
        self.items.clear()
    }
    /// The elements in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    /// The smallest element.
    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }
    /// The largest element.
    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }
    /// Keeps only the elements `f` accepts.
    pub fn retain(&mut self, f: impl FnMut(&T) -> bool) {
        self.items.retain(f)
    }
}

impl<T: Ord> SortedSet<T> {
    fn find<Q: ?Sized + Ord>(&self, x: &Q) -> Result<usize, usize>
    where
        T: Borrow<Q>,
    {
        self.items.binary_search_by(|y| y.borrow().cmp(x))
    }
    /// Whether `x` is in the set.
    pub fn contains<Q: ?Sized + Ord>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.find(x).is_ok()
    }
    /// The element equal to `x`.
    pub fn get<Q: ?Sized + Ord>(&self, x: &Q) -> Option<&T>
    where
        T: Borrow<Q>,
    {
        self.find(x).ok().map(|i| &self.items[i])
    }
    /// True if `x` was not there yet (a present value is kept, as in
    /// `BTreeSet`).
    pub fn insert(&mut self, x: T) -> bool {
        if self.items.last().is_none_or(|y| *y < x) {
            self.items.push(x);
            return true;
        }
        match self.find(&x) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, x);
                true
            }
        }
    }
    /// Removes `x`; whether it was there.
    pub fn remove<Q: ?Sized + Ord>(&mut self, x: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.take(x).is_some()
    }
    /// Removes `x` and returns it.
    pub fn take<Q: ?Sized + Ord>(&mut self, x: &Q) -> Option<T>
    where
        T: Borrow<Q>,
    {
        self.find(x).ok().map(|i| self.items.remove(i))
    }
    /// The values inside `range`, in order.
    pub fn range<Q: ?Sized + Ord, R: RangeBounds<Q>>(&self, range: R) -> std::slice::Iter<'_, T>
    where
        T: Borrow<Q>,
    {
        let (start, end) = bounds(self.items.len(), &range, |i, q, or_equal| {
            let k: &Q = self.items[i].borrow();
            k < q || (or_equal && k == q)
        });
        self.items[start..end].iter()
    }
    /// Values in `self` and in `other`, in order.
    pub fn intersection<'a>(&'a self, other: &'a Self) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |x| other.contains(*x))
    }
    /// Whether every value of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        self.len() <= other.len() && self.iter().all(|x| other.contains(x))
    }
    /// Values in `self` but not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a Self) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |x| !other.contains(*x))
    }
}

impl<T: Ord> SortedSet<T> {
    /// The set of `items` in any order (see [`SortedMap::from_unsorted`]).
    fn from_unsorted(items: Vec<T>) -> Self {
        // For equal values BTreeSet keeps the first; equal values are
        // indistinguishable by Ord, which is all the engine compares by.
        SortedSet {
            items: sorted_dedup_last(items, T::cmp),
        }
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        SortedSet::from_unsorted(iter.into_iter().collect())
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for SortedSet<T> {
    fn from(a: [T; N]) -> Self {
        a.into_iter().collect()
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for x in iter {
            self.insert(x);
        }
    }
}

impl<'a, T: Ord + Copy + 'a> Extend<&'a T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        for x in iter {
            self.insert(*x);
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.items.iter()).finish()
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}
impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

mod serde_impls {
    use super::{SortedMap, SortedSet};
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
    use std::fmt;
    use std::marker::PhantomData;

    impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(self.len()))?;
            for (k, v) in self {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }

    impl<T: Serialize> Serialize for SortedSet<T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut q = s.serialize_seq(Some(self.len()))?;
            for x in self {
                q.serialize_element(x)?;
            }
            q.end()
        }
    }

    struct MapVisitor<K, V>(PhantomData<(K, V)>);

    impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Visitor<'de> for MapVisitor<K, V> {
        type Value = SortedMap<K, V>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut m = SortedMap::new();
            while let Some((k, v)) = a.next_entry()? {
                m.insert(k, v);
            }
            Ok(m)
        }
    }

    impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(MapVisitor(PhantomData))
        }
    }

    struct SetVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de> + Ord> Visitor<'de> for SetVisitor<T> {
        type Value = SortedSet<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut s = SortedSet::new();
            while let Some(x) = a.next_element()? {
                s.insert(x);
            }
            Ok(s)
        }
    }

    impl<'de, T: Deserialize<'de> + Ord> Deserialize<'de> for SortedSet<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_seq(SetVisitor(PhantomData))
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// A small seeded generator: `rnd(n)` is in `0..n`.
    fn lcg(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        }
    }

    /// A random walk of changes through `DerefMut` (which move entries under
    /// the hint) and lookups that repeat a key or move on, on a `BTreeMap`
    /// and a `HintedMap`: every lookup must agree, hint or not.
    #[test]
    fn a_hinted_map_reads_as_a_btreemap_after_entries_move() {
        let mut rnd = lcg(7);
        let mut a: BTreeMap<u64, u64> = BTreeMap::new();
        let mut h: HintedMap<u64, u64> = HintedMap::default();
        for k in 0..40 {
            a.insert(k * 3, k);
            h.insert(k * 3, k);
        }
        let mut hits = 0;
        for step in 0..20_000u64 {
            let k = rnd(150);
            match rnd(6) {
                0 => assert_eq!(a.insert(k, step), h.insert(k, step)),
                1 => assert_eq!(a.remove(&k), h.remove(&k)),
                2 => {
                    if let (Some(x), Some(y)) = (a.get_mut(&k), h.get_mut(&k)) {
                        *x += 1;
                        *y += 1;
                    }
                }
                _ => {}
            }
            // The same key again (the hint's case), then a neighbour.
            for q in [k, k, k + 1] {
                let hinted = h.map.entries.get(h.hint()).is_some_and(|e| e.0 == q);
                hits += usize::from(hinted);
                assert_eq!(a.get(&q), h.get(&q), "step {step}, key {q}");
                assert_eq!(a.contains_key(&q), h.contains_key(&q));
            }
            assert!(a.iter().eq(h.iter()));
        }
        // The hint was used, not only checked.
        assert!(hits > 10_000, "{hits}");
    }

    /// A random walk of inserts, removes, entries and range reads, on both a
    /// `BTreeMap` and a `SortedMap`: every read must agree.
    #[test]
    fn behaves_as_btreemap_and_btreeset() {
        let mut rnd = lcg(11);
        let mut a: BTreeMap<u64, u64> = BTreeMap::new();
        let mut b: SortedMap<u64, u64> = SortedMap::new();
        let mut sa: BTreeSet<u64> = BTreeSet::new();
        let mut sb: SortedSet<u64> = SortedSet::new();
        for step in 0..5000u64 {
            let k = rnd(200);
            match rnd(7) {
                0 | 1 => assert_eq!(a.insert(k, step), b.insert(k, step)),
                2 => assert_eq!(a.remove(&k), b.remove(&k)),
                3 => {
                    *a.entry(k).or_insert(0) += step;
                    *b.entry(k).or_insert(0) += step;
                }
                4 => {
                    a.retain(|k, _| k % 17 != step % 17);
                    b.retain(|k, _| k % 17 != step % 17);
                }
                5 => assert_eq!(sa.insert(k), sb.insert(k)),
                _ => assert_eq!(sa.remove(&k), sb.remove(&k)),
            }
            let hi = k + rnd(50);
            assert!(a.range(k..hi).eq(b.range(k..hi)));
            assert!(a.range(k..=hi).eq(b.range(k..=hi)));
            assert!(a.range(..k).eq(b.range(..k)));
            assert!(sa.range(k..).eq(sb.range(k..)));
            assert_eq!(a.get(&k), b.get(&k));
            assert_eq!(sa.contains(&k), sb.contains(&k));
        }
        assert!(a.iter().eq(b.iter()));
        assert!(sa.iter().eq(sb.iter()));
        // collect: a later value for the same key wins.
        let pairs = [(3, "x"), (1, "y"), (3, "z"), (2, "w"), (1, "v")];
        let c: BTreeMap<_, _> = pairs.into_iter().collect();
        let d: SortedMap<_, _> = pairs.into_iter().collect();
        assert!(c.iter().eq(d.iter()));
        assert!(SortedSet::from([5, 1, 5, 2])
            .iter()
            .eq(BTreeSet::from([5, 1, 5, 2]).iter()));
        let other: SortedSet<u64> = (0..100).step_by(3).collect();
        let other_std: BTreeSet<u64> = (0..100).step_by(3).collect();
        assert!(sb.difference(&other).eq(sa.difference(&other_std)));
        assert!(sb.intersection(&other).eq(sa.intersection(&other_std)));
        // The same JSON as the standard collections.
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let back: SortedMap<u64, u64> =
            serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, b);
        assert_eq!(
            serde_json::to_string(&sa).unwrap(),
            serde_json::to_string(&sb).unwrap()
        );
    }
}
