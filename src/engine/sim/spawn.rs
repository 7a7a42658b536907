//! Seeded spawning of the standard workloads (`docs/workloads.md`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::Units;

/// Average neighbors within the standard radius in the `uniform` workload.
pub const TARGET_NEIGHBORS: f32 = 16.0;
/// The standard query radius, world units.
pub const STANDARD_RADIUS: f32 = 10.0;
/// The standard unit speed, world units per second.
pub const STANDARD_SPEED: f32 = 5.0;

/// Initial positions of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Workload {
    /// Uniform random over the world: the common case.
    #[default]
    Uniform,
    /// 32 Gaussian clusters (centers uniform, sigma = L/40), clamped into the world.
    Clustered,
    /// 10% of units uniform in a disk of radius `3r * sqrt(N / 10,000)` at
    /// the center (3r at 10,000 units; the disk grows with N so every size
    /// has the same crowd density, about 110 neighbors per hotspot unit),
    /// 90% uniform.
    Hotspot,
    /// Two teams of N/2, each uniform in its own half of the world (team 0 at
    /// low x), heading toward the other within ±60°. A unit with more enemies
    /// than friends in range for [`super::DEATH_AFTER_S`] dies, and a
    /// reinforcement spawns at its team's edge, so the count stays N: churn
    /// (swap-and-pop removal, spawning, generational handles) every frame.
    Battle,
}

crate::named! { Workload, display = key, {
    Uniform => "uniform", "uniform";
    Clustered => "clustered", "clustered";
    Hotspot => "hotspot", "hotspot";
    Battle => "battle", "battle";
} }

/// World edge `L` (world units) for `n` units so that a unit has on average
/// [`TARGET_NEIGHBORS`] neighbors within radius `r` when uniform:
/// `L = sqrt(n * pi * r^2 / 16)` (`docs/workloads.md`). At least `r`.
pub fn world_size(n: usize, r: f32) -> f32 {
    ((n as f32 * std::f32::consts::PI * r * r / TARGET_NEIGHBORS).sqrt()).max(r)
}

/// Spawns `n` units of `workload` in `[0, world)^2` from `seed`.
///
/// Draw order (fixed, so the same seed gives the same units on every
/// machine, ChaCha8): all positions, then all headings (speed
/// [`STANDARD_SPEED`]), then all teams (0 or 1). `battle` instead gives units
/// `0..n/2` team 0 in the low-x half and the rest team 1 in the high-x half,
/// and draws headings toward the enemy within ±60°. `radius` is the `r` of the
/// hotspot disk (`3r * sqrt(n / 10,000)`, at most half the world). Allocates
/// the SoA arrays.
pub fn spawn(n: usize, world: f32, radius: f32, workload: Workload, seed: u64) -> Units {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n);
    let mut z = Vec::with_capacity(n);
    let max = world * (1.0 - f32::EPSILON);
    match workload {
        Workload::Uniform => {
            for _ in 0..n {
                x.push(rng.gen_range(0.0..world));
                z.push(rng.gen_range(0.0..world));
            }
        }
        Workload::Clustered => {
            let centers: Vec<(f32, f32)> = (0..32)
                .map(|_| (rng.gen_range(0.0..world), rng.gen_range(0.0..world)))
                .collect();
            let normal = Normal::new(0.0f32, world / 40.0).expect("sigma is finite and positive");
            for _ in 0..n {
                let (cx, cz) = centers[rng.gen_range(0..centers.len())];
                x.push((cx + normal.sample(&mut rng)).clamp(0.0, max));
                z.push((cz + normal.sample(&mut rng)).clamp(0.0, max));
            }
        }
        Workload::Hotspot => {
            let hot = n / 10;
            let c = world * 0.5;
            let disk = (3.0 * radius * (n as f32 / 10_000.0).sqrt()).min(c);
            for i in 0..n {
                if i < hot {
                    // Uniform in a disk: radius ~ sqrt(u).
                    let a = rng.gen_range(0.0..std::f32::consts::TAU);
                    let d = disk * rng.gen_range(0.0f32..1.0).sqrt();
                    x.push((c + d * a.cos()).clamp(0.0, max));
                    z.push((c + d * a.sin()).clamp(0.0, max));
                } else {
                    x.push(rng.gen_range(0.0..world));
                    z.push(rng.gen_range(0.0..world));
                }
            }
        }
        Workload::Battle => {
            let half = world * 0.5;
            for i in 0..n {
                let lo = if i < n / 2 { 0.0 } else { half };
                x.push(rng.gen_range(lo..lo + half).min(max));
                z.push(rng.gen_range(0.0..world));
            }
        }
    }
    let mut vx = Vec::with_capacity(n);
    let mut vz = Vec::with_capacity(n);
    let battle = workload == Workload::Battle;
    for i in 0..n {
        let a = if battle {
            let toward = if i < n / 2 { 0.0 } else { std::f32::consts::PI };
            toward + rng.gen_range(-std::f32::consts::FRAC_PI_3..std::f32::consts::FRAC_PI_3)
        } else {
            rng.gen_range(0.0..std::f32::consts::TAU)
        };
        vx.push(STANDARD_SPEED * a.cos());
        vz.push(STANDARD_SPEED * a.sin());
    }
    let team = if battle {
        (0..n).map(|i| (i >= n / 2) as u8).collect()
    } else {
        (0..n).map(|_| rng.gen_range(0..2u8)).collect()
    };
    Units {
        x,
        z,
        vx,
        vz,
        team,
        danger: vec![0.0; n],
        enemies: vec![0; n],
        id: (0..n as u32).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotspot_disk_grows_with_the_unit_count() {
        // docs/workloads.md: radius 3r * sqrt(N / 10,000), so the crowd
        // density (and ~110 neighbors per hotspot unit) is the same at every size.
        for (n, disk) in [(10_000usize, 30.0f32), (1_000_000, 300.0)] {
            let world = world_size(n, STANDARD_RADIUS);
            let u = spawn(n, world, STANDARD_RADIUS, Workload::Hotspot, 42);
            let c = world * 0.5;
            let far = (0..n / 10)
                .map(|i| ((u.x[i] - c).powi(2) + (u.z[i] - c).powi(2)).sqrt())
                .fold(0.0f32, f32::max);
            assert!(
                far <= disk * 1.0001 && far > disk * 0.99,
                "{n}: {far} vs {disk}"
            );
            let density = (n / 10) as f32 / (std::f32::consts::PI * disk * disk);
            let neighbors = density * std::f32::consts::PI * STANDARD_RADIUS.powi(2);
            assert!((neighbors - 111.1).abs() < 0.5, "{n}: {neighbors}");
        }
    }
}
