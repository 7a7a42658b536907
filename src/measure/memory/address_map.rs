//! Model addresses: each real address the query phase reads, moved to a
//! place that is the same on every machine, so a cache model fed with them
//! counts the same misses everywhere ([`super::modeled`]).
//!
//! Arrays (one allocation each: the SoA columns, the AoS `Vec`, the CSR
//! grid's arrays) keep their bytes' order and are placed one after another
//! in the order given, each starting on a 4 KiB page. Separately allocated
//! blocks (the boxed objects of AoS pointers, the per-cell buffers of the
//! uniform grid) are packed one after another as a fresh heap packs them,
//! in the order they were allocated where the layout recorded it (AoS
//! pointers' shuffled order, with its interleaved allocations), else in an
//! order of the storage (cell order for the grid's buffers): each block
//! takes its bytes plus an 8-byte header, rounded up to 16 bytes (glibc's
//! malloc chunk). Real heap addresses differ between runs and allocators,
//! which is why the model does not use them.

use crate::engine::sim::layout::malloc_chunk;

/// Alignment of each array's first byte in model space (a page).
const PAGE: u64 = 4096;

/// One real span of memory and where its first byte goes in model space.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    bytes: usize,
    base: u64,
}

/// The map from real addresses to model addresses of one simulation's
/// storage at one moment (built for one modeled query phase).
#[derive(Clone, Debug, Default)]
pub struct AddressMap {
    /// Arrays and blocks alike, sorted by real start.
    spans: Vec<Span>,
    /// The first model address after everything placed so far.
    next: u64,
}

impl AddressMap {
    /// An empty map whose model space starts at 1 MiB (any fixed page
    /// would do).
    pub fn new() -> AddressMap {
        AddressMap {
            spans: Vec::new(),
            next: 1 << 20,
        }
    }

    /// Places an array of `bytes` bytes at real address `start` after what
    /// is placed, on a new page. Call [`AddressMap::finish`] after the last.
    pub fn add_array(&mut self, start: usize, bytes: usize) {
        let base = self.next.div_ceil(PAGE) * PAGE;
        self.spans.push(Span { start, bytes, base });
        self.next = base + bytes as u64;
    }

    /// Places separately allocated blocks `(real start, bytes)` after what
    /// is placed, on a new page, packed in the order given as malloc chunks
    /// (the module's documentation).
    pub fn add_blocks(&mut self, blocks: &[(usize, usize)]) {
        let mut at = self.next.div_ceil(PAGE) * PAGE;
        for &(start, bytes) in blocks {
            // The header precedes the block: the block starts 8 bytes into
            // a 16-byte-aligned chunk, as malloc returns it.
            let base = at + 8;
            self.spans.push(Span { start, bytes, base });
            at += malloc_chunk(bytes);
        }
        self.next = at;
    }

    /// Places blocks of `bytes` bytes each whose model heap offsets are
    /// planned (`(real start, chunk offset)`, as
    /// [`crate::engine::sim::layout::Objects::heap_plan`]) after what is placed, on a
    /// new page; each block starts 8 bytes into its chunk.
    pub fn add_planned(&mut self, plan: &[(usize, u64)], bytes: usize) {
        let base = self.next.div_ceil(PAGE) * PAGE;
        let mut end = base;
        for &(start, offset) in plan {
            self.spans.push(Span {
                start,
                bytes,
                base: base + offset + 8,
            });
            end = end.max(base + offset + malloc_chunk(bytes));
        }
        self.next = end;
    }

    /// Makes the map ready for [`AddressMap::map`] (sorts its spans).
    pub fn finish(&mut self) {
        self.spans.sort_unstable_by_key(|s| s.start);
    }

    /// The model address of real address `a`, or `None` when `a` is in no
    /// placed span.
    pub fn map(&self, a: usize) -> Option<u64> {
        let k = self
            .spans
            .partition_point(|s| s.start <= a)
            .checked_sub(1)?;
        let s = self.spans[k];
        (a < s.start + s.bytes.max(1)).then(|| s.base + (a - s.start) as u64)
    }

    /// Every placed span as `(model address, bytes)`, in model order (to
    /// touch them all, as the phases before the query do).
    pub fn model_spans(&self) -> Vec<(u64, usize)> {
        let mut v: Vec<(u64, usize)> = self.spans.iter().map(|s| (s.base, s.bytes)).collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_keep_their_offsets_and_start_on_pages_in_the_order_given() {
        let mut m = AddressMap::new();
        m.add_array(0x9000_0010, 100);
        m.add_array(0x1000_0000, 5000);
        m.finish();
        assert_eq!(m.map(0x9000_0010), Some(1 << 20));
        assert_eq!(m.map(0x9000_0010 + 99), Some((1 << 20) + 99));
        assert_eq!(m.map(0x9000_0010 + 100), None, "past the end");
        assert_eq!(m.map(0x1000_0000), Some((1 << 20) + 4096));
        assert_eq!(m.map(0x0fff_ffff), None, "before every span");
    }

    #[test]
    fn blocks_are_packed_as_chunks_in_the_order_given_or_at_their_planned_offsets() {
        let mut m = AddressMap::new();
        // In the order given, whatever their real order and gaps.
        m.add_blocks(&[(0x1000, 328), (0x7000, 328), (0x5_0000, 20)]);
        m.finish();
        let base = 1 << 20;
        assert_eq!(m.map(0x1000), Some(base + 8));
        assert_eq!(
            m.map(0x7000),
            Some(base + 336 + 8),
            "328 + 8 rounded to 336"
        );
        assert_eq!(m.map(0x5_0000 + 4), Some(base + 2 * 336 + 8 + 4));
        let mut p = AddressMap::new();
        p.add_planned(&[(0x9000, 2000), (0x2000, 0)], 328);
        p.finish();
        assert_eq!(p.map(0x2000 + 5), Some(base + 8 + 5));
        assert_eq!(
            p.map(0x9000),
            Some(base + 2000 + 8),
            "at its planned offset"
        );
        let two = AddressMap::default();
        assert_eq!(two.map(0x1000), None, "an empty map places nothing");
    }
}
