//! Movement: every unit moves by `v * dt` and bounces off the world border.

use rayon::prelude::*;

use super::{Hot, Units};

/// Moves every unit by `v * dt` and reflects it off the world border so it
/// stays in `[0, world)`; the velocity component is flipped to point inward.
pub fn move_units(u: &mut Units, world: f32, dt: f32) {
    move_axis(&mut u.x, &mut u.vx, world, dt);
    move_axis(&mut u.z, &mut u.vz, world, dt);
}

/// [`move_units`] split into `threads` contiguous ranges run with rayon (call
/// from inside the pool); the result is the same.
pub fn move_units_parallel(u: &mut Units, world: f32, dt: f32, threads: usize) {
    let size = u.len().div_ceil(threads.max(1)).max(1);
    for (p, v) in [(&mut u.x, &mut u.vx), (&mut u.z, &mut u.vz)] {
        p.par_chunks_mut(size)
            .zip(v.par_chunks_mut(size))
            .for_each(|(p, v)| move_axis(p, v, world, dt));
    }
}

/// One axis of [`move_units`], written branch-free so it vectorizes.
fn move_axis(p: &mut [f32], v: &mut [f32], world: f32, dt: f32) {
    for (p, v) in p.iter_mut().zip(v.iter_mut()) {
        move_coord(p, v, world, dt);
    }
}

/// [`move_units`] for one unit record (the AoS layouts): the same operations,
/// so every layout moves its units to bit-identical positions.
#[inline]
pub fn move_hot(h: &mut Hot, world: f32, dt: f32) {
    move_coord(&mut h.x, &mut h.vx, world, dt);
    move_coord(&mut h.z, &mut h.vz, world, dt);
}

/// One coordinate and its velocity: `p += v * dt`, reflected off `0` and
/// `world`, then clamped into `[0, world)`.
#[inline(always)]
fn move_coord(p: &mut f32, v: &mut f32, world: f32, dt: f32) {
    let max = world * (1.0 - f32::EPSILON);
    let q = *p + *v * dt;
    let low = q < 0.0;
    let high = q >= world;
    let reflected = if low {
        -q
    } else if high {
        2.0 * world - q
    } else {
        q
    };
    *v = if low {
        v.abs()
    } else if high {
        -v.abs()
    } else {
        *v
    };
    *p = reflected.clamp(0.0, max);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{spawn, Workload};

    #[test]
    fn units_bounce_off_both_borders_and_stay_inside() {
        let mut u = Units {
            x: vec![1.0, 99.0, 50.0],
            z: vec![50.0, 50.0, 0.5],
            vx: vec![-120.0, 120.0, 0.0],
            vz: vec![0.0, 0.0, -60.0],
            team: vec![0; 3],
            danger: vec![0.0; 3],
            enemies: vec![0; 3],
            id: vec![0, 1, 2],
        };
        move_units(&mut u, 100.0, 1.0 / 60.0);
        assert_eq!(u.x, vec![1.0, 99.0, 50.0]);
        assert_eq!(u.vx, vec![120.0, -120.0, 0.0]);
        assert_eq!(u.z[2], 0.5);
        assert_eq!(u.vz[2], 60.0);
        // A unit landing exactly on the far border is kept inside [0, L).
        let mut v = Units {
            x: vec![99.0],
            z: vec![1.0],
            vx: vec![60.0],
            vz: vec![0.0],
            team: vec![0],
            danger: vec![0.0],
            enemies: vec![0],
            id: vec![0],
        };
        move_units(&mut v, 100.0, 1.0 / 60.0);
        assert!(v.x[0] < 100.0 && v.x[0] >= 0.0, "x = {}", v.x[0]);
        assert!(v.vx[0] < 0.0);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", ignore = "no threads on wasm32-wasip1")]
    fn parallel_move_equals_sequential() {
        let a0 = spawn(10_001, 300.0, 10.0, Workload::Uniform, 3);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (mut a, mut b) = (a0.clone(), a0);
        for _ in 0..50 {
            move_units(&mut a, 300.0, 0.5);
            pool.install(|| move_units_parallel(&mut b, 300.0, 0.5, 3));
        }
        assert_eq!(a, b);
        assert!(a.x.iter().chain(&a.z).all(|&v| (0.0..300.0).contains(&v)));
    }
}
