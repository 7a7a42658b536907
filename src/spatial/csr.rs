//! The one counting sort of the project — count, exclusive prefix sum,
//! stable scatter — shared by the CSR grid's rebuild
//! ([`super::SortedGrid`]) and the units' reorder ([`crate::sim::Reorderer`]).
//! O(items + keys), no comparisons, no allocation.

/// Turns per-key counts stored one slot late (`offsets[k + 1]` = items with
/// key `k`, `offsets[0]` = 0) into exclusive start offsets in place:
/// `offsets[k]` = first slot of key `k`, the last entry = the total, which is
/// returned.
///
/// # Panics
/// In debug builds, if the total overflows `u32`.
#[inline]
pub fn prefix_sum(offsets: &mut [u32]) -> u32 {
    let mut sum = 0u32;
    for o in offsets.iter_mut() {
        sum += *o;
        *o = sum;
    }
    sum
}

/// Stable scatter: walks `keys` in order and, for every item `i` whose key
/// `k` is not `skip`, calls `place(cursor[k], i)` and advances `cursor[k]`,
/// so the items of one key keep their input order. `cursor` starts as the
/// exclusive offsets of [`prefix_sum`] and ends as the end offsets.
///
/// # Panics
/// If a key other than `skip` is out of range of `cursor`.
#[inline]
pub fn scatter(keys: &[u32], skip: u32, cursor: &mut [u32], mut place: impl FnMut(usize, usize)) {
    for (i, &k) in keys.iter().enumerate() {
        if k != skip {
            let slot = &mut cursor[k as usize];
            place(*slot as usize, i);
            *slot += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_sort_is_stable_and_skips_the_skip_key() {
        let keys = [2u32, 0, 2, 9, 1, 0];
        let mut offsets = vec![0u32; 4];
        for &k in keys.iter().filter(|&&k| k != 9) {
            offsets[k as usize + 1] += 1;
        }
        assert_eq!(prefix_sum(&mut offsets), 5);
        assert_eq!(offsets, vec![0, 2, 3, 5]);
        let mut cursor = offsets[..3].to_vec();
        let mut out = vec![usize::MAX; 5];
        scatter(&keys, 9, &mut cursor, |slot, i| out[slot] = i);
        assert_eq!(
            out,
            vec![1, 5, 4, 0, 2],
            "key order, input order within a key"
        );
        assert_eq!(cursor, offsets[1..].to_vec());
    }
}
