//! Array of structures: one contiguous `Vec` of fat unit structs.

use rayon::prelude::*;

use super::{
    permute_in_place, Hot, Layout, PermuteScratch, Region, Steer, UnitLayout, UnitObject, Units,
};
use crate::spatial::Positions;

/// One [`UnitObject`] (328 bytes) per unit in one `Vec`: unit `i` is `units[i]`.
#[derive(Clone, Debug, Default)]
pub struct Aos {
    /// The units in storage order.
    pub units: Vec<UnitObject>,
}

impl Aos {
    /// Stores `units` with cold data from [`super::Cold::for_unit`].
    pub fn from_units(units: &Units) -> Aos {
        Aos {
            units: (0..units.len())
                .map(|i| UnitObject::new(units.get(i)))
                .collect(),
        }
    }
}

impl Positions for Aos {
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

impl UnitLayout for Aos {
    fn layout(&self) -> Layout {
        Layout::Aos
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
        let step = |u: &mut UnitObject| crate::sim::move_hot(&mut u.hot, world, dt);
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
        self.units.push(UnitObject::new(hot));
    }

    fn to_units(&self) -> Units {
        let mut u = Units::with_capacity(self.units.len());
        for o in &self.units {
            u.push(o.hot);
        }
        u
    }

    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        out.push((std::ptr::from_ref(&self.units[i].hot.x) as usize, 8));
    }

    fn regions(&self) -> Vec<Region> {
        vec![Region {
            name: "units",
            start: self.units.as_ptr() as usize,
            bytes: std::mem::size_of_val(&self.units[..]),
        }]
    }

    fn bytes_per_unit(&self) -> usize {
        std::mem::size_of::<UnitObject>()
    }

    fn bytes_read_per_candidate(&self) -> usize {
        8
    }
}
