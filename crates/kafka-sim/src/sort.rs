//! Stable sorting through one copy of the standard library's sort.
//!
//! `slice::sort_by` is generic over the element and the comparison, so every
//! call site with its own element type or closure gets its own copy of the
//! whole driftsort (about 4 KB of wasm each: the page had some thirty). Here
//! the standard sort runs once, on indices, with the comparison behind a
//! `dyn` reference; the elements are then put in that order. The result is
//! exactly `sort_by`'s: a stable sort has only one possible output.

use std::cmp::Ordering;

/// `v.sort_by(cmp)`, stable.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut idx: Vec<usize> = (0..v.len()).collect();
    sort_indices(&mut idx, &mut |a, b| cmp(&v[a], &v[b]));
    // Position i takes the element at idx[i]: follow each cycle of the
    // permutation once, marking the positions done.
    for i in 0..v.len() {
        let mut cur = i;
        while idx[cur] != usize::MAX {
            let next = idx[cur];
            idx[cur] = usize::MAX;
            if next == i {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

/// `v.sort()`, stable.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, |a, b| a.cmp(b));
}

/// `v.sort_by_key(key)`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

#[inline(never)]
fn sort_indices(idx: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    idx.sort_by(|a, b| cmp(*a, *b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_what_the_standard_stable_sort_gives() {
        let mut x: u64 = 7;
        for n in [0usize, 1, 2, 3, 5, 17, 100, 1000] {
            let v: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 7, i) // many equal keys: stability shows
                })
                .collect();
            let mut a = v.clone();
            let mut b = v.clone();
            a.sort_by_key(|p| p.0);
            sort_by_key(&mut b, |p| p.0);
            assert_eq!(a, b, "n = {n}");
            let mut c = v.clone();
            let mut d = v;
            c.sort();
            sort(&mut d);
            assert_eq!(c, d);
        }
        let mut s = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort_by(&mut s, |a, b| b.cmp(a));
        assert_eq!(s, ["c", "b", "a", "a"]);
    }
}
