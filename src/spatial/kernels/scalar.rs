//! The scalar kernel: one entry at a time. Every SIMD kernel performs these
//! same steps per lane.

use super::{KernelQuery, Span};

/// Appends the ids of the entries of `span` within `q` to `out` (see
/// [`super::Kernel::run`] for the contract).
#[inline]
pub fn run(span: Span<'_>, q: &KernelQuery, out: &mut Vec<u32>) {
    for ((&x, &z), &id) in span.x.iter().zip(span.z).zip(span.ids) {
        let dx = x - q.cx;
        let dz = z - q.cz;
        let d2 = dx * dx + dz * dz;
        if d2 <= q.r2 && id != q.exclude {
            out.push(id);
        }
    }
}
