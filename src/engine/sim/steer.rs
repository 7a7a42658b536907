//! Applying one frame's query results: separation steering, enemy counts
//! and danger time ([`apply`]).

use rayon::prelude::*;

use super::steer_kernel::{steer_columns, steer_one};
use super::{Steer, UnitLayout, STANDARD_SPEED};
use crate::engine::spatial::{fixed, pool_threads, ChunkResults, Near, QueryResults};

/// Per-frame buffers of [`apply`], kept across frames so steady-state frames
/// do not allocate: in the collect pass, one fixed-point `[x, z, team]`
/// record per unit, packed through the layout in one sequential pass (AoS on
/// purpose: a neighbor's three values then arrive in one cache line and one
/// bounds check); one [`Steer`] per unit, computed in parallel while the
/// units are only read, then written back through the layout (except the
/// fused pass on a layout with steering columns, which steers in place).
#[derive(Clone, Debug, Default)]
pub struct ApplyScratch {
    packed: Vec<[i32; 3]>,
    steer: Vec<Steer>,
}

/// The results of one frame's per-unit pass, as [`apply`] consumes them.
#[derive(Clone, Copy, Debug)]
pub enum Found<'a> {
    /// Neighbor lists (the collect pass).
    Lists(&'a QueryResults),
    /// One [`Near`] per unit (the fused pass).
    Near(&'a [Near]),
}

/// Applies one frame's results: separation steering, enemy counts and
/// danger time. Reads every unit once through the layout `l` (its own
/// velocity and danger; in the collect pass also the packed records of
/// `scratch`, to look up each listed neighbor) and writes back through it.
///
/// Separation steers unit `i` away from the centroid of its neighbors: the
/// push is `sum_j (p_i - p_j) = n * (p_i - centroid)`, summed on positions
/// rounded to 1/64 world unit ([`fixed`]) in integers ([`Near`]), so the
/// result is exact and the same in any order of the neighbors (every layout,
/// strategy, kernel, pass and thread count gives bit-identical simulations).
/// The velocity turns by `push / r * separation * dt` (relative to
/// [`STANDARD_SPEED`]) and is rescaled to [`STANDARD_SPEED`]. `enemies[i]`
/// becomes the number of neighbors of the other team (saturating at
/// `u16::MAX`); `danger[i]` grows by `dt` while enemies outnumber friends
/// among the neighbors and resets to 0 otherwise. Runs on the threads of the
/// pool it is called in ([`crate::engine::spatial::pool_threads`]).
/// Allocates only while `scratch` grows.
///
/// # Panics
/// If `found` lists an index `>= l.len()` or has aggregates for a different
/// number of units.
pub fn apply<L: UnitLayout>(
    l: &mut L,
    found: Found<'_>,
    r: f32,
    dt: f32,
    separation: f32,
    scratch: &mut ApplyScratch,
) {
    let n = l.len();
    let inv_r = if r > 0.0 && r.is_finite() {
        1.0 / r
    } else {
        0.0
    };
    let gain =
        separation * dt * STANDARD_SPEED * inv_r / crate::engine::spatial::kernels::FIXED_SCALE;
    // Every entry is overwritten below, so only a new unit count resizes; no
    // clearing pass per frame.
    scratch.steer.resize(n, Steer::default());
    let units = &*l;
    match found {
        Found::Lists(res) => {
            if n == 0 || res.chunks.is_empty() {
                return;
            }
            scratch.packed.clear();
            scratch.packed.extend((0..n).map(|i| {
                let (x, z) = units.pos(i);
                [fixed(x), fixed(z), units.team(i) as i32]
            }));
            let packed = &scratch.packed[..];
            let steer_chunk = |out: &mut [Steer], chunk: &ChunkResults| {
                for (k, w) in chunk.offsets.windows(2).enumerate() {
                    let i = chunk.start + k;
                    let [xi, zi, ti] = packed[i];
                    let ids = &chunk.ids[w[0] as usize..w[1] as usize];
                    let mut near = Near {
                        count: ids.len() as u32,
                        ..Near::default()
                    };
                    for &j in ids {
                        let [xj, zj, tj] = packed[j as usize];
                        near.sx += xj as i64 - xi as i64;
                        near.sz += zj as i64 - zi as i64;
                        near.enemies += (tj != ti) as u32;
                    }
                    out[k] = steer_one(&near, units.motion(i), gain, dt);
                }
            };
            // Result chunks have a uniform size (QueryResults::prepare), so
            // the steer buffer splits into the same disjoint ranges.
            let size = (res.chunks[0].end - res.chunks[0].start).max(1);
            if res.chunks.len() > 1 {
                scratch
                    .steer
                    .par_chunks_mut(size)
                    .zip(res.chunks.par_iter())
                    .for_each(|(out, c)| steer_chunk(out, c))
            } else {
                scratch
                    .steer
                    .chunks_mut(size)
                    .zip(res.chunks.iter())
                    .for_each(|(out, c)| steer_chunk(out, c))
            }
        }
        Found::Near(near) => {
            if n == 0 || near.is_empty() {
                return;
            }
            assert_eq!(near.len(), n, "one aggregate per unit");
            if let Some((vx, vz, danger, enemies)) = l.motion_columns() {
                // SoA: steer every unit in place, in parallel, one pass
                // (vectorized: `steer_columns`).
                let steer_in_place = |((((vx, vz), danger), enemies), near): SteerChunk<'_>| {
                    steer_columns(near, (vx, vz, danger, enemies), gain, dt)
                };
                let c = STEER_CHUNK;
                if pool_threads() > 1 {
                    vx.par_chunks_mut(c)
                        .zip(vz.par_chunks_mut(c))
                        .zip(danger.par_chunks_mut(c))
                        .zip(enemies.par_chunks_mut(c))
                        .zip(near.par_chunks(c))
                        .for_each(steer_in_place)
                } else {
                    steer_in_place(((((vx, vz), danger), enemies), near))
                }
                return;
            }
            let units = &*l;
            let steer_chunk = |(k, (out, near)): (usize, (&mut [Steer], &[Near]))| {
                let first = k * STEER_CHUNK;
                for (j, (s, a)) in out.iter_mut().zip(near).enumerate() {
                    *s = steer_one(a, units.motion(first + j), gain, dt);
                }
            };
            if pool_threads() > 1 {
                scratch
                    .steer
                    .par_chunks_mut(STEER_CHUNK)
                    .zip(near.par_chunks(STEER_CHUNK))
                    .enumerate()
                    .for_each(steer_chunk)
            } else {
                steer_chunk((0, (&mut scratch.steer[..], near)))
            }
        }
    }
    l.write_steer(&scratch.steer);
}

/// Units per parallel task of the fused apply.
const STEER_CHUNK: usize = 16_384;

/// One task of the in-place fused apply: chunks of vx, vz, danger and
/// enemies (zipped as rayon zips them) and the units' aggregates.
type SteerChunk<'a> = (
    (
        ((&'a mut [f32], &'a mut [f32]), &'a mut [f32]),
        &'a mut [u16],
    ),
    &'a [Near],
);
