//! Array of pointers to objects: one heap allocation per unit, in scattered
//! order, the way an object-oriented engine ends up storing its entities.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{
    permute_in_place, Hot, Layout, PermuteScratch, Region, Steer, UnitLayout, UnitObject, Units,
};
use crate::spatial::Positions;

/// One `Box<UnitObject>` per unit: unit `i` is `*units[i]`.
///
/// [`AosPointers::from_units`] allocates the objects in a shuffled order,
/// interleaved with other allocations of 16 to 1,024 bytes (kept alive in
/// `other`, as a game's other objects would be), so units that are neighbors
/// in the world, and even consecutive units, are far apart in memory.
/// Reordering the units permutes the pointers, not the objects: the scatter
/// stays.
#[derive(Debug, Default)]
pub struct AosPointers {
    /// Pointers to the units, in storage order.
    pub units: Vec<Box<UnitObject>>,
    /// The allocations interleaved with the units (never read).
    _interleaved: Vec<Box<[u8]>>,
}

impl AosPointers {
    /// Boxes every unit of `units`, allocated in an order shuffled by `seed`
    /// with one unrelated allocation after each, then lays the pointers out in
    /// unit order. Allocates `2 * len + 2` blocks.
    pub fn from_units(units: &Units, seed: u64) -> AosPointers {
        let n = units.len();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut boxed: Vec<Option<Box<UnitObject>>> = (0..n).map(|_| None).collect();
        let mut other = Vec::with_capacity(n);
        for &i in &order {
            boxed[i] = Some(Box::new(UnitObject::new(units.get(i))));
            let size = rng.gen_range(16..=1024);
            other.push(vec![0u8; size].into_boxed_slice());
        }
        AosPointers {
            units: boxed
                .into_iter()
                .map(|b| b.expect("every unit was boxed"))
                .collect(),
            _interleaved: other,
        }
    }
}

impl Positions for AosPointers {
    #[inline]
    fn len(&self) -> usize {
        self.units.len()
    }

    #[inline]
    fn pos(&self, i: usize) -> (f32, f32) {
        let h = &self.units[i].hot;
        (h.x, h.z)
    }
}

impl UnitLayout for AosPointers {
    fn layout(&self) -> Layout {
        Layout::AosPointers
    }

    #[inline]
    fn hot(&self, i: usize) -> Hot {
        self.units[i].hot
    }

    #[inline]
    fn motion(&self, i: usize) -> (f32, f32, f32) {
        let h = &self.units[i].hot;
        (h.vx, h.vz, h.danger)
    }

    #[inline]
    fn team(&self, i: usize) -> u8 {
        self.units[i].hot.team
    }

    fn move_units(&mut self, world: f32, dt: f32, pool: Option<&rayon::ThreadPool>) {
        let step = |u: &mut Box<UnitObject>| crate::sim::move_hot(&mut u.hot, world, dt);
        match pool {
            Some(p) if p.current_num_threads() > 1 => self.units.par_iter_mut().for_each(step),
            _ => self.units.iter_mut().for_each(step),
        }
    }

    fn write_steer(&mut self, steer: &[Steer]) {
        assert_eq!(steer.len(), self.units.len(), "one steer per unit");
        for (u, s) in self.units.iter_mut().zip(steer) {
            u.hot.vx = s.vx;
            u.hot.vz = s.vz;
            u.hot.danger = s.danger;
            u.hot.enemies = s.enemies;
        }
    }

    fn permute(&mut self, perm: &[u32], scratch: &mut PermuteScratch) {
        permute_in_place(&mut self.units, perm, &mut scratch.visited);
    }

    fn swap_remove(&mut self, i: usize) -> Hot {
        self.units.swap_remove(i).hot
    }

    fn push(&mut self, hot: Hot) {
        self.units.push(Box::new(UnitObject::new(hot)));
    }

    fn to_units(&self) -> Units {
        let mut u = Units::with_capacity(self.units.len());
        for o in &self.units {
            u.push(o.hot);
        }
        u
    }

    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        out.push((std::ptr::from_ref(&self.units[i]) as usize, 8));
        out.push((std::ptr::from_ref(&self.units[i].hot.x) as usize, 8));
    }

    fn regions(&self) -> Vec<Region> {
        let size = std::mem::size_of::<UnitObject>();
        let (lo, hi) = self.units.iter().fold((usize::MAX, 0), |(lo, hi), b| {
            let a = std::ptr::from_ref::<UnitObject>(b) as usize;
            (lo.min(a), hi.max(a + size))
        });
        let mut r = vec![Region {
            name: "pointers",
            start: self.units.as_ptr() as usize,
            bytes: std::mem::size_of_val(&self.units[..]),
        }];
        if hi > lo {
            r.push(Region {
                name: "objects (heap span)",
                start: lo,
                bytes: hi - lo,
            });
        }
        r
    }

    fn bytes_per_unit(&self) -> usize {
        std::mem::size_of::<UnitObject>() + std::mem::size_of::<usize>()
    }

    fn bytes_read_per_candidate(&self) -> usize {
        16
    }
}
