//! The steering of one unit from its neighbor aggregates ([`steer_of`]),
//! written branch-free, and the in-place loop over SoA columns
//! ([`steer_columns`]) compiled for baseline x86_64 and, behind run-time
//! detection, for AVX2 and AVX-512, so the compiler turns it into vector
//! code (8 or 16 units per instruction: the square root and the two
//! divisions per unit made the scalar loop compute-bound, at ~6.7 ns per
//! unit on one core of an AMD EPYC VM). Vector `sqrt`, division,
//! multiplication and addition are correctly rounded like the scalar ones,
//! and Rust never contracts `a * b + c` into a fused multiply-add, so every
//! version gives the same bits.

use super::{Steer, STANDARD_SPEED};
use crate::engine::spatial::Near;

/// The steering of one unit from its neighbor aggregates `near` and its
/// velocity and danger time `(vx0, vz0, danger)`: see
/// [`super::steer::apply`]. `gain` = `separation * dt * STANDARD_SPEED / r /
/// 64` (world units per second per 1/64 world unit of summed offset), `dt`
/// in seconds.
///
/// Branch-free (every arm computed, then selected), so a loop over it
/// vectorizes; the values are those of the plain form: the velocity turns
/// by the push only when the push is not zero and the new speed is finite
/// and above `1e-6`.
#[inline(always)]
pub(super) fn steer_of(
    near: &Near,
    (vx0, vz0, danger): (f32, f32, f32),
    gain: f32,
    dt: f32,
) -> Steer {
    // The push away from the neighbors: sum_j (p_i - p_j) = -(offset sums).
    let (sx, sz) = (near.sx.wrapping_neg(), near.sz.wrapping_neg());
    let nvx = vx0 + sx as f32 * gain;
    let nvz = vz0 + sz as f32 * gain;
    let len = (nvx * nvx + nvz * nvz).sqrt();
    let turn = ((sx | sz) != 0) & (len > 1e-6) & len.is_finite();
    let (tvx, tvz) = (nvx / len * STANDARD_SPEED, nvz / len * STANDARD_SPEED);
    let v = if turn { (tvx, tvz) } else { (vx0, vz0) };
    with_velocity(near, v, danger, dt)
}

/// [`steer_of`] in its plain, branching form, for the loops that steer one
/// unit at a time between scattered reads (the collect pass, the AoS
/// layouts), where it is faster than computing every arm: the same bits
/// (a test holds them equal).
#[inline(always)]
pub(super) fn steer_one(
    near: &Near,
    (vx0, vz0, danger): (f32, f32, f32),
    gain: f32,
    dt: f32,
) -> Steer {
    let (sx, sz) = (near.sx.wrapping_neg(), near.sz.wrapping_neg());
    let (mut vx, mut vz) = (vx0, vz0);
    if sx != 0 || sz != 0 {
        let nvx = vx + sx as f32 * gain;
        let nvz = vz + sz as f32 * gain;
        let len = (nvx * nvx + nvz * nvz).sqrt();
        if len > 1e-6 && len.is_finite() {
            vx = nvx / len * STANDARD_SPEED;
            vz = nvz / len * STANDARD_SPEED;
        }
    }
    with_velocity(near, (vx, vz), danger, dt)
}

/// The steering record of a unit with new velocity `(vx, vz)`: its danger
/// time grows by `dt` while enemies outnumber friends among its neighbors
/// and resets to 0 otherwise; its enemy count saturates at `u16::MAX`.
/// Branch-free (a select), as [`steer_of`] needs.
#[inline(always)]
fn with_velocity(near: &Near, (vx, vz): (f32, f32), danger: f32, dt: f32) -> Steer {
    let friends = near.count.wrapping_sub(near.enemies);
    Steer {
        vx,
        vz,
        danger: if near.enemies > friends {
            danger + dt
        } else {
            0.0
        },
        enemies: near.enemies.min(u16::MAX as u32) as u16,
    }
}

/// Steers unit `k` in place for every `k < near.len()`: its velocity
/// `vx[k]`, `vz[k]`, danger time `danger[k]` and enemy count `enemies[k]`
/// become [`steer_of`]'s from `near[k]` (`gain`, `dt` as there). Uses the
/// widest vector instructions this CPU has; the results do not depend on
/// which. No allocation.
///
/// # Panics
/// If a column is shorter than `near`.
pub(super) fn steer_columns(
    near: &[Near],
    (vx, vz, danger, enemies): (&mut [f32], &mut [f32], &mut [f32], &mut [u16]),
    gain: f32,
    dt: f32,
) {
    // Equal lengths up front: no bounds check per unit.
    let n = near.len();
    let cols = (
        &mut vx[..n],
        &mut vz[..n],
        &mut danger[..n],
        &mut enemies[..n],
    );
    #[cfg(target_arch = "x86_64")]
    {
        // `is_x86_feature_detected!` caches its answer: one load each.
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq") {
            // SAFETY: AVX-512 F and DQ were detected; the body is safe code.
            return unsafe { steer_avx512(near, cols, gain, dt) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected; the body is safe code.
            return unsafe { steer_avx2(near, cols, gain, dt) };
        }
    }
    steer_generic(near, cols, gain, dt);
}

/// The in-place columns of [`steer_columns`], each as long as `near`.
type Columns<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32], &'a mut [u16]);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn steer_avx512(near: &[Near], cols: Columns<'_>, gain: f32, dt: f32) {
    steer_generic(near, cols, gain, dt)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn steer_avx2(near: &[Near], cols: Columns<'_>, gain: f32, dt: f32) {
    steer_generic(near, cols, gain, dt)
}

#[inline(always)]
fn steer_generic(near: &[Near], (vx, vz, danger, enemies): Columns<'_>, gain: f32, dt: f32) {
    let n = near.len();
    let (vx, vz, danger, enemies) = (
        &mut vx[..n],
        &mut vz[..n],
        &mut danger[..n],
        &mut enemies[..n],
    );
    for k in 0..n {
        let s = steer_of(&near[k], (vx[k], vz[k], danger[k]), gain, dt);
        (vx[k], vz[k], danger[k], enemies[k]) = (s.vx, s.vz, s.danger, s.enemies);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// What [`steer_of`] and every compiled version of [`steer_columns`]
    /// must equal, bit for bit.
    use super::steer_one as plain;

    /// Aggregates and velocities of every kind the steering meets: no
    /// neighbor, pushes that cancel the velocity (a zero speed), huge and
    /// extreme offset sums (`i64::MIN`, sums that round in f32), more
    /// than `u16::MAX` enemies, NaN and infinite velocities, and ordinary
    /// seeded ones.
    fn cases() -> Vec<(Near, (f32, f32, f32))> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(33);
        let mut out = vec![
            (Near::default(), (1.0, -2.0, 0.5)),
            (
                Near {
                    count: 3,
                    enemies: 2,
                    sx: 64,
                    sz: 0,
                },
                (1.0, 0.0, 0.25),
            ),
            (
                Near {
                    count: 1,
                    enemies: 0,
                    sx: i64::MIN,
                    sz: i64::MAX,
                },
                (0.0, 0.0, 0.0),
            ),
            (
                Near {
                    count: 9,
                    enemies: 5,
                    sx: (1 << 40) + 1,
                    sz: -(1 << 35) - 3,
                },
                (2.0, 2.0, 1.0),
            ),
            (
                Near {
                    count: 200_000,
                    enemies: 150_000,
                    sx: 5,
                    sz: -7,
                },
                (0.0, 5.0, 3.0),
            ),
            (
                Near {
                    count: 2,
                    enemies: 1,
                    sx: 1,
                    sz: 1,
                },
                (f32::NAN, 1.0, 0.0),
            ),
            (
                Near {
                    count: 2,
                    enemies: 1,
                    sx: 1,
                    sz: 1,
                },
                (f32::INFINITY, 1.0, 0.0),
            ),
            (
                Near {
                    count: 4,
                    enemies: 2,
                    sx: 0,
                    sz: 0,
                },
                (3.0, 4.0, 2.0),
            ),
        ];
        for _ in 0..1000 {
            let count = rng.gen_range(0..40u32);
            let near = Near {
                count,
                enemies: rng.gen_range(0..=count),
                sx: rng.gen_range(-30_000..30_000),
                sz: rng.gen_range(-30_000..30_000),
            };
            let v = (
                rng.gen_range(-5.0..5.0f32),
                rng.gen_range(-5.0..5.0f32),
                rng.gen_range(0.0..10.0f32),
            );
            out.push((near, v));
        }
        out
    }

    fn bits(s: &Steer) -> (u32, u32, u32, u16) {
        (
            s.vx.to_bits(),
            s.vz.to_bits(),
            s.danger.to_bits(),
            s.enemies,
        )
    }

    /// `steer_of` and every version of the column loop this CPU can run
    /// (the same body compiled for baseline, AVX2 and AVX-512) give the
    /// plain form's bits for every case, a cancelled push (a velocity
    /// exactly against the push, zero speed) included.
    #[test]
    fn every_version_steers_like_the_plain_form() {
        let (gain, dt) = (0.01, 1.0 / 60.0);
        let mut cases = cases();
        // A push that exactly cancels the velocity: the speed is 0, the
        // velocity is kept.
        cases.push((
            Near {
                count: 1,
                enemies: 0,
                sx: -100,
                sz: 0,
            },
            (-1.0, 0.0, 0.0),
        ));
        let want: Vec<_> = cases
            .iter()
            .map(|(n, v)| bits(&plain(n, *v, gain, dt)))
            .collect();
        for ((n, v), w) in cases.iter().zip(&want) {
            assert_eq!(bits(&steer_of(n, *v, gain, dt)), *w, "{n:?} {v:?}");
        }
        let near: Vec<Near> = cases.iter().map(|c| c.0).collect();
        let run = |f: &dyn Fn(&[Near], Columns<'_>)| {
            let mut vx: Vec<f32> = cases.iter().map(|c| c.1 .0).collect();
            let mut vz: Vec<f32> = cases.iter().map(|c| c.1 .1).collect();
            let mut danger: Vec<f32> = cases.iter().map(|c| c.1 .2).collect();
            let mut enemies = vec![0u16; cases.len()];
            f(&near, (&mut vx, &mut vz, &mut danger, &mut enemies));
            (0..cases.len())
                .map(|k| {
                    (
                        vx[k].to_bits(),
                        vz[k].to_bits(),
                        danger[k].to_bits(),
                        enemies[k],
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(&|n, c| steer_generic(n, c, gain, dt)), want, "baseline");
        assert_eq!(run(&|n, c| steer_columns(n, c, gain, dt)), want, "best");
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 was detected.
                let got = run(&|n, c| unsafe { steer_avx2(n, c, gain, dt) });
                assert_eq!(got, want, "avx2");
            }
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq") {
                // SAFETY: AVX-512 F and DQ were detected.
                let got = run(&|n, c| unsafe { steer_avx512(n, c, gain, dt) });
                assert_eq!(got, want, "avx512");
            }
        }
    }
}
