//! Hot/cold splitting: the SoA hot arrays plus the cold records in their own
//! array, indexed by unit.

use super::soa::soa_regions;
use super::{
    permute_in_place, Cold, Hot, Layout, PermuteScratch, Region, Steer, UnitLayout, Units,
};
use crate::engine::spatial::{Points, Positions};

// code:begin layout-hot-cold
/// SoA hot arrays plus one [`Cold`] record per unit: `cold[i]` belongs to
/// unit `i`, and every operation that moves units moves both.
#[derive(Clone, Debug, Default)]
pub struct HotCold {
    /// The hot fields, SoA.
    pub hot: Units,
    /// The cold data, one record per unit (300 bytes each).
    pub cold: Vec<Cold>,
}

impl HotCold {
    /// Stores `units` with cold data from [`Cold::for_unit`].
    pub fn from_units(units: Units) -> HotCold {
        let cold = units.id.iter().map(|&id| Cold::for_unit(id)).collect();
        HotCold { hot: units, cold }
    }
}

impl Positions for HotCold {
    #[inline]
    fn len(&self) -> usize {
        self.hot.x.len()
    }

    #[inline]
    fn pos(&self, i: usize) -> (f32, f32) {
        (self.hot.x[i], self.hot.z[i])
    }

    #[inline]
    fn soa(&self) -> Option<Points<'_>> {
        Some(self.hot.points())
    }
}
// code:end layout-hot-cold

impl UnitLayout for HotCold {
    fn layout(&self) -> Layout {
        Layout::HotCold
    }

    #[inline]
    fn hot(&self, i: usize) -> Hot {
        self.hot.get(i)
    }

    #[inline]
    fn motion(&self, i: usize) -> (f32, f32, f32) {
        (self.hot.vx[i], self.hot.vz[i], self.hot.danger[i])
    }

    #[inline]
    fn team(&self, i: usize) -> u8 {
        self.hot.team[i]
    }

    fn teams(&self) -> Option<&[u8]> {
        Some(&self.hot.team)
    }

    fn motion_columns(&mut self) -> Option<super::MotionColumns<'_>> {
        self.hot.motion_columns()
    }

    fn move_units(&mut self, world: f32, dt: f32) {
        self.hot.move_units(world, dt);
    }

    fn write_steer(&mut self, steer: &[Steer]) {
        self.hot.write_steer(steer);
    }

    fn permute(&mut self, perm: &[u32], scratch: &mut PermuteScratch) {
        self.hot.permute(perm, scratch);
        permute_in_place(&mut self.cold, perm, &mut scratch.visited);
    }

    fn swap_remove(&mut self, i: usize) -> Hot {
        self.cold.swap_remove(i);
        self.hot.swap_remove(i)
    }

    fn push(&mut self, hot: Hot) {
        self.cold.push(Cold::for_unit(hot.id));
        self.hot.push(hot);
    }

    fn to_units(&self) -> Units {
        self.hot.clone()
    }

    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        self.hot.position_reads(i, out);
    }

    fn team_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        self.hot.team_reads(i, out);
    }

    fn regions(&self) -> Vec<Region> {
        let mut r = soa_regions(&self.hot);
        r.push(Region {
            name: "cold",
            start: self.cold.as_ptr() as usize,
            bytes: std::mem::size_of_val(&self.cold[..]),
        });
        r
    }

    fn bytes_per_unit(&self) -> usize {
        self.hot.bytes_per_unit() + std::mem::size_of::<Cold>()
    }

    fn bytes_read_per_candidate(&self) -> usize {
        8
    }
}
