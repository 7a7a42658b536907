//! Structure of arrays: one dense array per hot field (today's engine).

use super::{check_permutation, gather, Hot, Layout, PermuteScratch, Region, Steer, UnitLayout};
use crate::engine::spatial::{Points, Positions};

/// Unit state, structure of arrays: unit `i` is `(x[i], z[i], vx[i], vz[i],
/// danger[i], team[i], enemies[i], id[i])`. All arrays have the same length.
/// Index `i` changes when the units are reordered or removed; `id[i]` does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    /// Position x, world units, in `[0, L)`.
    pub x: Vec<f32>,
    /// Position z, world units, in `[0, L)`.
    pub z: Vec<f32>,
    /// Velocity x, world units per second.
    pub vx: Vec<f32>,
    /// Velocity z, world units per second.
    pub vz: Vec<f32>,
    /// See [`Hot::danger`], seconds.
    pub danger: Vec<f32>,
    /// Team, 0 or 1.
    pub team: Vec<u8>,
    /// Units of the other team within the query radius after the last frame (saturating).
    pub enemies: Vec<u16>,
    /// Stable identity (slot of [`crate::engine::sim::Handles`]), carried along by reordering.
    pub id: Vec<u32>,
}

impl Units {
    /// Number of units.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Position view for the spatial index.
    pub fn points(&self) -> Points<'_> {
        Points::new(&self.x, &self.z)
    }

    /// Unit `i` as one record.
    pub fn get(&self, i: usize) -> Hot {
        Hot {
            x: self.x[i],
            z: self.z[i],
            vx: self.vx[i],
            vz: self.vz[i],
            danger: self.danger[i],
            id: self.id[i],
            enemies: self.enemies[i],
            team: self.team[i],
        }
    }

    /// Empty arrays with room for `n` units.
    pub fn with_capacity(n: usize) -> Units {
        Units {
            x: Vec::with_capacity(n),
            z: Vec::with_capacity(n),
            vx: Vec::with_capacity(n),
            vz: Vec::with_capacity(n),
            danger: Vec::with_capacity(n),
            team: Vec::with_capacity(n),
            enemies: Vec::with_capacity(n),
            id: Vec::with_capacity(n),
        }
    }
}

// code:begin layout-soa
impl Positions for Units {
    #[inline]
    fn len(&self) -> usize {
        self.x.len()
    }

    #[inline]
    fn pos(&self, i: usize) -> (f32, f32) {
        (self.x[i], self.z[i])
    }

    #[inline]
    fn soa(&self) -> Option<Points<'_>> {
        Some(self.points())
    }
}
// code:end layout-soa

impl UnitLayout for Units {
    fn layout(&self) -> Layout {
        Layout::Soa
    }

    #[inline]
    fn hot(&self, i: usize) -> Hot {
        self.get(i)
    }

    #[inline]
    fn motion(&self, i: usize) -> (f32, f32, f32) {
        (self.vx[i], self.vz[i], self.danger[i])
    }

    #[inline]
    fn team(&self, i: usize) -> u8 {
        self.team[i]
    }

    fn teams(&self) -> Option<&[u8]> {
        Some(&self.team)
    }

    fn motion_columns(&mut self) -> Option<super::MotionColumns<'_>> {
        Some((
            &mut self.vx,
            &mut self.vz,
            &mut self.danger,
            &mut self.enemies,
        ))
    }

    fn move_units(&mut self, world: f32, dt: f32) {
        match crate::engine::spatial::pool_threads() {
            1 => crate::engine::sim::move_units(self, world, dt),
            t => crate::engine::sim::move_units_parallel(self, world, dt, t),
        }
    }

    fn write_steer(&mut self, steer: &[Steer]) {
        assert_eq!(steer.len(), self.len(), "one steer per unit");
        type Fields<'a> = ((&'a mut f32, &'a mut f32), (&'a mut f32, &'a mut u16));
        let write = |(((vx, vz), (d, e)), s): (Fields<'_>, &Steer)| {
            *vx = s.vx;
            *vz = s.vz;
            *d = s.danger;
            *e = s.enemies;
        };
        self.vx
            .iter_mut()
            .zip(self.vz.iter_mut())
            .zip(self.danger.iter_mut().zip(self.enemies.iter_mut()))
            .zip(steer.iter())
            .for_each(write);
    }

    fn permute(&mut self, perm: &[u32], s: &mut PermuteScratch) {
        assert_eq!(perm.len(), self.len(), "permutation length");
        check_permutation(perm, &mut s.visited);
        gather(&mut self.x, perm, &mut s.f32s);
        gather(&mut self.z, perm, &mut s.f32s);
        gather(&mut self.vx, perm, &mut s.f32s);
        gather(&mut self.vz, perm, &mut s.f32s);
        gather(&mut self.danger, perm, &mut s.f32s);
        gather(&mut self.id, perm, &mut s.u32s);
        gather(&mut self.enemies, perm, &mut s.u16s);
        gather(&mut self.team, perm, &mut s.u8s);
    }

    fn swap_remove(&mut self, i: usize) -> Hot {
        Hot {
            x: self.x.swap_remove(i),
            z: self.z.swap_remove(i),
            vx: self.vx.swap_remove(i),
            vz: self.vz.swap_remove(i),
            danger: self.danger.swap_remove(i),
            id: self.id.swap_remove(i),
            enemies: self.enemies.swap_remove(i),
            team: self.team.swap_remove(i),
        }
    }

    fn push(&mut self, h: Hot) {
        self.x.push(h.x);
        self.z.push(h.z);
        self.vx.push(h.vx);
        self.vz.push(h.vz);
        self.danger.push(h.danger);
        self.id.push(h.id);
        self.enemies.push(h.enemies);
        self.team.push(h.team);
    }

    fn to_units(&self) -> Units {
        self.clone()
    }

    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        out.push((std::ptr::from_ref(&self.x[i]) as usize, 4));
        out.push((std::ptr::from_ref(&self.z[i]) as usize, 4));
    }

    fn team_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        out.push((std::ptr::from_ref(&self.team[i]) as usize, 1));
    }

    fn regions(&self) -> Vec<Region> {
        soa_regions(self)
    }

    fn bytes_per_unit(&self) -> usize {
        4 * 5 + 1 + 2 + 4
    }

    fn bytes_read_per_candidate(&self) -> usize {
        8
    }
}

/// One region per array of `u`, positions first.
pub(crate) fn soa_regions(u: &Units) -> Vec<Region> {
    fn r<T>(name: &'static str, v: &[T]) -> Region {
        Region {
            name,
            start: v.as_ptr() as usize,
            bytes: std::mem::size_of_val(v),
        }
    }
    vec![
        r("x", &u.x),
        r("z", &u.z),
        r("vx", &u.vx),
        r("vz", &u.vz),
        r("danger", &u.danger),
        r("id", &u.id),
        r("enemies", &u.enemies),
        r("team", &u.team),
    ]
}

/// One range of [`gather_payload`]: the `perm` entries, then the output
/// chunks of vx, vz, danger, id, and (enemies, team), as rayon's `zip` nests them.
type PayloadChunk<'a> = (
    (
        (((&'a [u32], &'a mut [f32]), &'a mut [f32]), &'a mut [f32]),
        &'a mut [u32],
    ),
    (&'a mut [u16], &'a mut [u8]),
);

/// Shortest run of consecutive old slots that [`gather_payload`] copies as
/// slices (six `memcpy` calls) rather than entry by entry.
const MIN_RUN: usize = 16;

/// The SoA arrays that travel with a unit besides its position, permuted by
/// [`gather_payload`]: `[vx, vz, danger]`, then id, enemies and team.
///
/// Applies `perm` (`new[s] = old[perm[s]]`, one entry per unit) to every
/// array in one pass over `perm`, split into `threads` times four ranges
/// run with rayon (call from inside the pool), writing into the arrays of
/// `scratch` and swapping them in. One read of `perm` for all six arrays
/// instead of one per array; runs of at least [`MIN_RUN`] consecutive old
/// slots are copied as slices. Allocates only while `scratch` grows.
///
/// # Panics
/// If an array's length differs from `perm`'s or `perm` indexes past it.
pub(crate) fn gather_payload(
    f32s: [&mut Vec<f32>; 3],
    id: &mut Vec<u32>,
    enemies: &mut Vec<u16>,
    team: &mut Vec<u8>,
    perm: &[u32],
    scratch: &mut Units,
    threads: usize,
) {
    use rayon::prelude::*;
    let n = perm.len();
    let [vx, vz, danger] = f32s;
    for v in [&*vx, &*vz, &*danger] {
        assert_eq!(v.len(), n, "one value per unit");
    }
    assert!(id.len() == n && enemies.len() == n && team.len() == n);
    let s = scratch;
    size_payload(s, n);
    let (svx, svz, sd, sid, se, st) = (
        &vx[..],
        &vz[..],
        &danger[..],
        &id[..],
        &enemies[..],
        &team[..],
    );
    let size = n.div_ceil(threads.max(1) * 4).max(1);
    // Runs of consecutive old slots (`perm[j + i] = perm[j] + i`) are
    // copied whole, at memmove speed: after the merge rebuild most units
    // shift by a few slots as one run, and only the movers are gathered.
    let part = |(((((p, ox), oz), od), oi), (oe, ot)): PayloadChunk<'_>| {
        let mut j = 0;
        while j < p.len() {
            let k = p[j] as usize;
            let run = 1 + p[j + 1..]
                .iter()
                .zip(k as u32 + 1..)
                .take_while(|(&q, want)| q == *want)
                .count();
            if run >= MIN_RUN {
                let (o, i) = (j..j + run, k..k + run);
                ox[o.clone()].copy_from_slice(&svx[i.clone()]);
                oz[o.clone()].copy_from_slice(&svz[i.clone()]);
                od[o.clone()].copy_from_slice(&sd[i.clone()]);
                oi[o.clone()].copy_from_slice(&sid[i.clone()]);
                oe[o.clone()].copy_from_slice(&se[i.clone()]);
                ot[o].copy_from_slice(&st[i]);
            } else {
                for (j, &k) in (j..j + run).zip(&p[j..j + run]) {
                    let k = k as usize;
                    ox[j] = svx[k];
                    oz[j] = svz[k];
                    od[j] = sd[k];
                    oi[j] = sid[k];
                    oe[j] = se[k];
                    ot[j] = st[k];
                }
            }
            j += run;
        }
    };
    if threads <= 1 {
        part((
            (
                (((perm, &mut s.vx[..]), &mut s.vz[..]), &mut s.danger[..]),
                &mut s.id[..],
            ),
            (&mut s.enemies[..], &mut s.team[..]),
        ));
    } else {
        perm.par_chunks(size)
            .zip(s.vx.par_chunks_mut(size))
            .zip(s.vz.par_chunks_mut(size))
            .zip(s.danger.par_chunks_mut(size))
            .zip(s.id.par_chunks_mut(size))
            .zip(
                s.enemies
                    .par_chunks_mut(size)
                    .zip(s.team.par_chunks_mut(size)),
            )
            .for_each(part);
    }
    swap_payload([vx, vz, danger], id, enemies, team, s);
}

/// Gives the payload columns of `scratch` (vx, vz, danger, id, enemies,
/// team) `n` entries each. Every entry is written before it is read, so
/// nothing is cleared: a steady state neither allocates nor zero-fills them
/// (which cost more than the gather itself at 1,000,000 units).
pub(crate) fn size_payload(scratch: &mut Units, n: usize) {
    let s = scratch;
    for v in [&mut s.vx, &mut s.vz, &mut s.danger] {
        v.resize(n, 0.0);
    }
    s.id.resize(n, 0);
    s.enemies.resize(n, 0);
    s.team.resize(n, 0);
}

/// Swaps the payload columns of `scratch`, written in the units' new order,
/// with the units' own (`[vx, vz, danger]`, id, enemies, team). No copy.
pub(crate) fn swap_payload(
    [vx, vz, danger]: [&mut Vec<f32>; 3],
    id: &mut Vec<u32>,
    enemies: &mut Vec<u16>,
    team: &mut Vec<u8>,
    scratch: &mut Units,
) {
    let s = scratch;
    std::mem::swap(vx, &mut s.vx);
    std::mem::swap(vz, &mut s.vz);
    std::mem::swap(danger, &mut s.danger);
    std::mem::swap(id, &mut s.id);
    std::mem::swap(enemies, &mut s.enemies);
    std::mem::swap(team, &mut s.team);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs shorter and longer than [`MIN_RUN`], a run at the very end,
    /// single movers and a reversed stretch: every array ends exactly as
    /// the entry-by-entry gather leaves it, on 1 and 3 threads.
    #[test]
    fn gather_payload_copies_runs_like_the_entry_gather() {
        let n = 200usize;
        // Old slots: 0..40 shifted by 2 (one run), two movers, a reversed
        // stretch, short runs of 3, and a run of 50 that ends the array.
        let mut perm: Vec<u32> = (2..42).collect();
        perm.extend([0, 1]);
        perm.extend((42..60).rev());
        for k in (60..150).step_by(3) {
            perm.extend([k + 2, k, k + 1]);
        }
        perm.extend(150..200);
        assert_eq!(perm.len(), n);
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "a permutation");
        let vx: Vec<f32> = (0..n).map(|k| k as f32 * 0.5).collect();
        let id: Vec<u32> = (0..n as u32).map(|k| k * 7 + 1).collect();
        let enemies: Vec<u16> = (0..n as u16).map(|k| k * 3).collect();
        let team: Vec<u8> = (0..n).map(|k| (k % 5) as u8).collect();
        fn want<T: Copy>(perm: &[u32], v: &[T]) -> Vec<T> {
            perm.iter().map(|&k| v[k as usize]).collect()
        }
        let minus: Vec<f32> = vx.iter().map(|v| -v).collect();
        // One thread runs without rayon (wasm32-wasip1 has no threads).
        let counts: &[usize] = if cfg!(target_arch = "wasm32") {
            &[1]
        } else {
            &[1, 3]
        };
        for &threads in counts {
            let (mut a, mut b, mut c) = (vx.clone(), minus.clone(), vx.clone());
            let (mut i, mut e, mut t) = (id.clone(), enemies.clone(), team.clone());
            let mut scratch = Units::default();
            let mut run = || {
                let f32s = [&mut a, &mut b, &mut c];
                gather_payload(f32s, &mut i, &mut e, &mut t, &perm, &mut scratch, threads)
            };
            if threads > 1 {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(run);
            } else {
                run();
            }
            assert_eq!(a, want(&perm, &vx), "{threads} thread(s)");
            assert_eq!(b, want(&perm, &minus));
            assert_eq!(c, want(&perm, &vx));
            assert_eq!(i, want(&perm, &id));
            assert_eq!(e, want(&perm, &enemies));
            assert_eq!(t, want(&perm, &team));
        }
    }
}
