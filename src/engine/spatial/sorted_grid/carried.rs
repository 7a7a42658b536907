//! Columns that travel with the units through the merge rebuild
//! ([`SortedGrid::rebuild_resident_carrying`]): the caller's other per-unit
//! arrays (velocities, ids, ...) copied by the same runs as the positions,
//! in the same pass, instead of gathered afterwards through the
//! permutation. Column types are erased to bytes (`bytemuck`), so one merge
//! serves any set of plain-data columns.
//!
//! [`SortedGrid::rebuild_resident_carrying`]: super::SortedGrid::rebuild_resident_carrying

use bytemuck::Pod;

/// Most columns one [`Carried`] holds.
pub const MAX_CARRIED: usize = 8;

/// Up to [`MAX_CARRIED`] columns, each read in the units' current order
/// (`src`) and written in the new one (`dst`, as long as `src`). Build it
/// with [`Carried::new`] and [`Carried::column`].
pub struct Carried<'a> {
    /// Columns in use.
    used: usize,
    /// Bytes per entry of each column.
    width: [usize; MAX_CARRIED],
    /// Entries of each column (`src[c].len() / width[c]`).
    len: usize,
    src: [&'a [u8]; MAX_CARRIED],
    dst: [&'a mut [u8]; MAX_CARRIED],
}

impl Default for Carried<'_> {
    fn default() -> Self {
        Carried::new()
    }
}

impl<'a> Carried<'a> {
    /// No column.
    pub fn new() -> Self {
        Carried {
            used: 0,
            width: [0; MAX_CARRIED],
            len: 0,
            src: [&[]; MAX_CARRIED],
            dst: std::array::from_fn(|_| Default::default()),
        }
    }

    /// Adds a column: `src` in the units' current order, `dst` to receive
    /// it in the new order.
    ///
    /// # Panics
    /// If `dst` and `src` differ in length, a column of another length was
    /// added before, the type has size 0, or [`MAX_CARRIED`] columns are
    /// already held.
    pub fn column<T: Pod>(mut self, src: &'a [T], dst: &'a mut [T]) -> Self {
        assert_eq!(
            src.len(),
            dst.len(),
            "a carried column and its output differ in length"
        );
        assert!(
            self.used == 0 || self.len == src.len(),
            "carried columns of unequal lengths"
        );
        assert!(
            self.used < MAX_CARRIED,
            "at most MAX_CARRIED carried columns"
        );
        let width = std::mem::size_of::<T>();
        assert!(width > 0, "carried entries have a size");
        let c = self.used;
        self.width[c] = width;
        self.src[c] = bytemuck::cast_slice(src);
        self.dst[c] = bytemuck::cast_slice_mut(dst);
        self.len = src.len();
        self.used += 1;
        self
    }

    /// Whether no column is held.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Entries per column (0 without columns).
    pub fn len(&self) -> usize {
        self.len
    }

    /// The outputs' first `k` entries and the rest, as two `Carried` that
    /// read the same sources. `len` stays the sources' length.
    pub(super) fn split_at(mut self, k: usize) -> (Carried<'a>, Carried<'a>) {
        let mut rest: [&'a mut [u8]; MAX_CARRIED] = std::array::from_fn(|_| Default::default());
        let cols = self.dst.iter_mut().zip(&mut rest).zip(self.width);
        for ((d, r), w) in cols.take(self.used) {
            (*d, *r) = std::mem::take(d).split_at_mut(k * w);
        }
        let right = Carried {
            used: self.used,
            width: self.width,
            len: self.len,
            src: self.src,
            dst: rest,
        };
        (self, right)
    }

    /// Copies entries `run` of every source to the outputs from entry `o`
    /// (of this part of the outputs). May also write up to 31 bytes after
    /// the copy within this part ([`copy_blocks`]): the merge writes its
    /// outputs in ascending order and fills them exactly, so a later copy
    /// overwrites them.
    #[inline]
    pub(super) fn copy_run(&mut self, run: std::ops::Range<usize>, o: usize) {
        for c in 0..self.used {
            let w = self.width[c];
            copy_blocks(
                self.dst[c],
                o * w,
                self.src[c],
                run.start * w,
                run.len() * w,
            );
        }
    }
}

/// Copies `src[a..a + n]` to `dst[o..o + n]` in blocks of [`BLOCK`] bytes,
/// inline, with the last block whole: up to `BLOCK - 1` bytes after the
/// copy are written too (with the source's following bytes) when both
/// slices have room for them; otherwise the copy is exact. A short run
/// costs a few vector moves instead of a `memcpy` call.
///
/// # Panics
/// If `src[a..a + n]` or `dst[o..o + n]` is out of bounds.
#[inline(always)]
pub(super) fn copy_blocks(dst: &mut [u8], o: usize, src: &[u8], a: usize, n: usize) {
    let whole = n.next_multiple_of(BLOCK);
    if o + whole <= dst.len() && a + whole <= src.len() {
        let (dst, src) = (&mut dst[o..o + whole], &src[a..a + whole]);
        for (d, s) in dst.chunks_exact_mut(BLOCK).zip(src.chunks_exact(BLOCK)) {
            d.copy_from_slice(s);
        }
    } else {
        dst[o..o + n].copy_from_slice(&src[a..a + n]);
    }
}

/// Bytes per block of [`copy_blocks`]: one AVX register.
pub(super) const BLOCK: usize = 32;

impl Carried<'_> {
    /// Copies entry `s` of every source to entry `o` of the outputs (a
    /// mover: one entry, copied without a `memcpy` call for the usual
    /// widths).
    #[inline]
    pub(super) fn put(&mut self, s: usize, o: usize) {
        for c in 0..self.used {
            let w = self.width[c];
            let (d, v) = (
                &mut self.dst[c][o * w..o * w + w],
                &self.src[c][s * w..s * w + w],
            );
            match w {
                1 => d[0] = v[0],
                2 => d[..2].copy_from_slice(&v[..2]),
                4 => d[..4].copy_from_slice(&v[..4]),
                8 => d[..8].copy_from_slice(&v[..8]),
                _ => d.copy_from_slice(v),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Carried;

    /// Runs and single entries copied into two halves of the outputs land
    /// where one copy into the whole would put them, for columns of 1, 2
    /// and 4 bytes.
    #[test]
    fn split_halves_copy_runs_like_the_whole() {
        let a: Vec<u32> = (0..20).map(|k| k * 7 + 1).collect();
        let b: Vec<u16> = (0..20).map(|k| k * 3).collect();
        let t: Vec<u8> = (0..20).map(|k| k as u8 ^ 0x5a).collect();
        let (mut da, mut db, mut dt) = (vec![0u32; 20], vec![0u16; 20], vec![0u8; 20]);
        let carried = Carried::new()
            .column(&a, &mut da)
            .column(&b, &mut db)
            .column(&t, &mut dt);
        assert_eq!(carried.len(), 20);
        let (mut left, mut right) = carried.split_at(8);
        // Output 0..8 from sources 12..20; output 8..20 from 0..12.
        left.copy_run(12..20, 0);
        right.copy_run(0..5, 0);
        right.put(5, 5);
        right.copy_run(6..12, 6);
        let order: Vec<usize> = (12..20).chain(0..12).collect();
        assert_eq!(da, order.iter().map(|&k| a[k]).collect::<Vec<_>>());
        assert_eq!(db, order.iter().map(|&k| b[k]).collect::<Vec<_>>());
        assert_eq!(dt, order.iter().map(|&k| t[k]).collect::<Vec<_>>());
    }

    #[test]
    #[should_panic(expected = "unequal lengths")]
    fn columns_of_unequal_length_are_refused() {
        let (a, b) = (vec![0u32; 3], vec![0u32; 4]);
        let (mut da, mut db) = (vec![0u32; 3], vec![0u32; 4]);
        let _ = Carried::new().column(&a, &mut da).column(&b, &mut db);
    }
}
