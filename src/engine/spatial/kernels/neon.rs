//! The NEON kernels (AArch64 AdvSIMD): 4 lanes. NEON has no masked load or
//! compress: the last partial vector of a range is read lane by lane into a
//! zeroed buffer, and matching ids are packed with one `tbl` and a 16-entry
//! table of byte indices ([`super::lanes::Neon`]). The steps are the generic
//! ones of [`super::driver`]. NEON is part of every AArch64 CPU the crate
//! targets; it is still detected at run time like the x86 kernels.

use super::lanes::NeonLanes;

isa_kernels!("neon", NeonLanes, "NEON");

#[cfg(test)]
mod tests {
    use super::super::lanes::{NeonLanes, NeonWalkLanes};
    use super::super::{driver, scalar, KernelQuery};
    use rand::{Rng, SeedableRng};

    /// Both NEON compactions (table and bit-mask walk) append exactly the
    /// ids the scalar kernel appends, in the same order, on seeded spans of
    /// every tail length, with an excluded id and NaN positions.
    #[test]
    fn table_and_walk_compaction_match_scalar() {
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
            let q = KernelQuery {
                cx: 0.5,
                cz: -0.25,
                r2: 6.0,
                exclude: 4,
            };
            let ranges = [(0, len as u32 / 2), (len as u32 / 3, len as u32)];
            let mut want = Vec::new();
            scalar::run_ranges(&x, &z, &ids, &ranges, &q, &mut want);
            let (mut table, mut walk) = (Vec::new(), Vec::new());
            // SAFETY: NEON is part of every AArch64 target this builds for;
            // the slices have equal lengths and the ranges lie within them.
            unsafe {
                driver::collect::<NeonLanes>(&x, &z, &ids, &ranges, &q, &mut table);
                driver::collect::<NeonWalkLanes>(&x, &z, &ids, &ranges, &q, &mut walk);
            }
            assert_eq!(table, want, "table, {len} entries");
            assert_eq!(walk, want, "walk, {len} entries");
        }
    }
}
