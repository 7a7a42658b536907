//! The WebAssembly SIMD128 kernels: 4 lanes. SIMD128 has no masked load or
//! compress: the last partial vector of a range is read lane by lane, and
//! matching ids are packed with one `i8x16.swizzle` and a 16-entry table of
//! byte indices ([`super::lanes::Simd128Lanes`]). The steps are the generic
//! ones of [`super::driver`].
//!
//! WebAssembly has no run-time feature detection (an engine without SIMD128
//! refuses the whole module when it loads it), so this module exists only in
//! a build with `-C target-feature=+simd128`, and there
//! [`super::Kernel::Simd128`] is always available.

use super::lanes::Simd128Lanes;

isa_kernels!("simd128", Simd128Lanes, "SIMD128");

#[cfg(test)]
mod tests {
    use super::super::lanes::Simd128Lanes;
    use super::super::{driver, scalar, FusedQuery, KernelQuery, Near};
    use rand::{Rng, SeedableRng};

    /// The swizzle compaction appends exactly the ids the scalar kernel
    /// appends, in the same order, and the fused kernel returns the same
    /// aggregates, on seeded spans of every tail length, with an excluded id
    /// and NaN positions.
    #[test]
    fn simd128_collect_and_fused_match_scalar() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for len in 0..40usize {
            let x: Vec<f32> = (0..len)
                .map(|i| {
                    if i % 13 == 5 {
                        f32::NAN
                    } else {
                        rng.gen_range(-4.0..4.0)
                    }
                })
                .collect();
            let z: Vec<f32> = (0..len).map(|_| rng.gen_range(-4.0..4.0)).collect();
            let ids: Vec<u32> = (0..len as u32).map(|i| i * 3 + 1).collect();
            let team: Vec<u32> = (0..len as u32).map(|i| i % 3).collect();
            let q = KernelQuery {
                cx: 0.5,
                cz: -0.25,
                r2: 6.0,
                exclude: 4,
            };
            let ranges = [(0, len as u32 / 2), (len as u32 / 3, len as u32)];
            let mut want = Vec::new();
            scalar::run_ranges(&x, &z, &ids, &ranges, &q, &mut want);
            let mut got = Vec::new();
            // SAFETY: SIMD128 is enabled in this build (the module exists
            // only then); the slices have equal lengths and the ranges lie
            // within them.
            unsafe { driver::collect::<Simd128Lanes>(&x, &z, &ids, &ranges, &q, &mut got) };
            assert_eq!(got, want, "collect, {len} entries");

            let qs = [
                FusedQuery::new(q, 1),
                FusedQuery::new(KernelQuery { exclude: 1, ..q }, 2),
            ];
            let (mut want, mut got) = ([Near::default(); 2], [Near::default(); 2]);
            scalar::run_fused(&x, &z, &ids, &team, &ranges, &qs, &mut want);
            // SAFETY: as above; two queries, two outputs, positions within
            // FIXED_RANGE.
            unsafe { driver::fused::<Simd128Lanes>(&x, &z, &ids, &team, &ranges, &qs, &mut got) };
            assert_eq!(got, want, "fused, {len} entries");
        }
    }
}
