//! The one counting sort of the project — count, exclusive prefix sum,
//! stable scatter — shared by the CSR grid's rebuild
//! ([`super::SortedGrid`]) and the units' reorder ([`crate::engine::sim::Reorderer`]).
//! O(items + keys), no comparisons, no allocation. [`par_scatter`] is the
//! multi-threaded scatter of the grid's rebuild (per-thread cursors,
//! disjoint writes).

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

/// Turns per-thread counts into per-thread scatter cursors, in place:
/// `hist[t][c + 1]` (units of thread `t` in key `c`) becomes `hist[t][c]` =
/// `offsets[c]` + the units of threads `< t` in key `c`. `offsets` are the
/// exclusive offsets of [`prefix_sum`] over the summed counts.
///
/// # Panics
/// If a `hist[t]` is shorter than `offsets`.
pub fn thread_cursors(offsets: &[u32], hist: &mut [Vec<u32>]) {
    let keys = offsets.len().saturating_sub(1);
    for c in 0..keys {
        let mut at = offsets[c];
        for h in hist.iter_mut() {
            let n = h[c + 1];
            h[c] = at;
            at += n;
        }
    }
}

/// The per-unit inputs of [`par_scatter`], indexed by unit.
#[derive(Clone, Copy, Debug)]
pub struct Sources<'a> {
    /// x coordinates, world units.
    pub x: &'a [f32],
    /// z coordinates, world units.
    pub z: &'a [f32],
    /// Teams, when the index keeps them.
    pub team: Option<&'a [u8]>,
}

/// The sorted outputs of [`par_scatter`], indexed by slot; `team` is empty
/// when [`Sources::team`] is `None`.
#[derive(Debug)]
pub struct Columns<'a> {
    /// x of the unit in each slot.
    pub x: &'a mut [f32],
    /// z of the unit in each slot.
    pub z: &'a mut [f32],
    /// Index of the unit in each slot.
    pub ids: &'a mut [u32],
    /// Team of the unit in each slot (or empty).
    pub team: &'a mut [u32],
    /// Slot of each unit (indexed by unit, one per key), `skip` for units
    /// left out: the inverse of `ids`.
    pub slot_of: &'a mut [u32],
}

/// Raw column pointers shared by the scatter threads.
struct Dst {
    x: *mut f32,
    z: *mut f32,
    ids: *mut u32,
    team: *mut u32,
    len: usize,
}

// SAFETY: the threads of `par_scatter` write through these pointers only at
// slots no other thread writes (see there); the columns outlive the scope.
unsafe impl Sync for Dst {}

/// Stable parallel scatter of units into key (cell) order: the units of
/// `keys` are split into consecutive ranges of `size` (range `t` on thread
/// `t` of the rayon pool it is called in; one range runs on the calling
/// thread), and unit `i` of range `t`
/// with key `k != skip` goes to slot `cursors[t][k]`, which then advances.
/// With cursors from [`thread_cursors`], every slot is written exactly once
/// and the units of one key keep their input order, so the result is
/// identical for every thread count. Copies x, z, the unit index and (when
/// given) the team into `out`, and records each unit's slot in
/// `out.slot_of` (`skip` for the units left out). Allocates nothing.
///
/// # Panics
/// If the sources differ in length from `keys`, there are fewer cursor
/// arrays than ranges, or a slot falls outside `out` (cursors that do not
/// match the keys).
pub fn par_scatter(
    keys: &[u32],
    skip: u32,
    cursors: &mut [Vec<u32>],
    size: usize,
    src: Sources<'_>,
    out: Columns<'_>,
) {
    use rayon::prelude::*;
    let n = keys.len();
    assert!(src.x.len() == n && src.z.len() == n, "one position per key");
    let len = out.x.len();
    assert!(
        out.z.len() == len && out.ids.len() == len,
        "output columns of equal length"
    );
    if let Some(t) = src.team {
        assert!(
            t.len() == n && out.team.len() == len,
            "one team per key and slot"
        );
    }
    assert_eq!(out.slot_of.len(), n, "one slot per key");
    let size = size.max(1);
    assert!(
        cursors.len() >= n.div_ceil(size),
        "one cursor array per range"
    );
    let dst = Dst {
        x: out.x.as_mut_ptr(),
        z: out.z.as_mut_ptr(),
        ids: out.ids.as_mut_ptr(),
        team: out.team.as_mut_ptr(),
        len,
    };
    let dst = &dst;
    let part = |(t, (cursor, slot_of)): (usize, (&mut Vec<u32>, &mut [u32]))| {
        // Two loops, so the team test is not repeated per unit.
        match src.team {
            Some(team) => {
                scatter_range(keys, skip, t * size, cursor, slot_of, src, dst, |at, i| {
                    // SAFETY: as in `scatter_range`; `team` has `len` slots
                    // (checked above) and `i < n`.
                    unsafe { *dst.team.add(at) = team[i] as u32 }
                })
            }
            None => scatter_range(keys, skip, t * size, cursor, slot_of, src, dst, |_, _| {}),
        }
    };
    let ranges = n.div_ceil(size);
    if ranges > 1 {
        cursors[..ranges]
            .par_iter_mut()
            .zip(out.slot_of.par_chunks_mut(size))
            .enumerate()
            .for_each(part)
    } else {
        cursors[..ranges]
            .iter_mut()
            .zip(out.slot_of.chunks_mut(size))
            .enumerate()
            .for_each(part)
    }
}

/// One range of [`par_scatter`]: units `first..first + slot_of.len()`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn scatter_range(
    keys: &[u32],
    skip: u32,
    first: usize,
    cursor: &mut [u32],
    slot_of: &mut [u32],
    src: Sources<'_>,
    dst: &Dst,
    mut extra: impl FnMut(usize, usize),
) {
    for (i, slot_i) in (first..).zip(slot_of.iter_mut()) {
        let k = keys[i];
        if k == skip {
            *slot_i = skip;
            continue;
        }
        let slot = &mut cursor[k as usize];
        let at = *slot as usize;
        *slot_i = *slot;
        *slot += 1;
        assert!(at < dst.len, "scatter slot out of range");
        // SAFETY: `at < len` was just checked, so the writes are in bounds
        // of the columns. Slot `at` is written by this range only: the
        // cursors of different ranges cover disjoint slots of each key
        // (`thread_cursors`), and one range advances its own cursor after
        // each write.
        unsafe {
            *dst.x.add(at) = src.x[i];
            *dst.z.add(at) = src.z[i];
            *dst.ids.add(at) = i as u32;
        }
        extra(at, i);
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
