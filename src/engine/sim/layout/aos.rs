//! Array of structures: one fat unit struct per unit, held in place in one
//! contiguous `Vec` ([`Aos`]) or behind a pointer ([`super::AosPointers`]).
//! Both are [`Objects`]; only how a slot holds its object differs.

use std::borrow::BorrowMut;

use rayon::prelude::*;

use super::{
    permute_in_place, Hot, Layout, PermuteScratch, Region, Steer, UnitLayout, UnitObject, Units,
};
use crate::engine::spatial::Positions;

/// How an AoS layout holds one unit object: in place, or behind a `Box`.
pub trait ObjectSlot: BorrowMut<UnitObject> + Send + Sync {
    /// True when the object sits behind a pointer (a read costs the pointer too).
    const BOXED: bool;

    /// A slot holding `o` (allocates when boxed).
    fn hold(o: UnitObject) -> Self;
}

impl ObjectSlot for UnitObject {
    const BOXED: bool = false;

    fn hold(o: UnitObject) -> Self {
        o
    }
}

impl ObjectSlot for Box<UnitObject> {
    const BOXED: bool = true;

    fn hold(o: UnitObject) -> Self {
        Box::new(o)
    }
}

/// One [`UnitObject`] (328 bytes) per unit: unit `i` is `units[i]`, in place
/// (`T = UnitObject`) or behind a pointer (`T = Box<UnitObject>`).
#[derive(Clone, Debug, Default)]
pub struct Objects<T> {
    /// The units in storage order.
    pub units: Vec<T>,
    /// Allocations interleaved with boxed units to scatter them (never read).
    pub(crate) _interleaved: Vec<Box<[u8]>>,
    /// Each boxed object's address as allocated and its chunk's offset in
    /// a model heap that packs the allocations in their order (the cache
    /// model's placement, `crate::measure::memory::address_map`), sorted by
    /// address; empty for objects held in place.
    pub heap_plan: Vec<(usize, u64)>,
}

/// The name of the region [`Objects::regions`] gives for the boxed
/// objects: the span from the lowest to the highest, other allocations
/// between them included.
pub const OBJECTS_SPAN: &str = "objects (heap span)";

// code:begin layout-aos
/// One contiguous `Vec` of the 328-byte unit structs.
pub type Aos = Objects<UnitObject>;

impl Aos {
    /// Stores `units` with cold data from [`super::Cold::for_unit`].
    pub fn from_units(units: &Units) -> Aos {
        Aos {
            units: (0..units.len())
                .map(|i| UnitObject::new(units.get(i)))
                .collect(),
            _interleaved: Vec::new(),
            heap_plan: Vec::new(),
        }
    }
}

impl<T: ObjectSlot> Positions for Objects<T> {
    #[inline]
    fn len(&self) -> usize {
        self.units.len()
    }

    #[inline]
    fn pos(&self, i: usize) -> (f32, f32) {
        let h = &self.units[i].borrow().hot;
        (h.x, h.z)
    }
}
// code:end layout-aos

impl<T: ObjectSlot> UnitLayout for Objects<T> {
    fn layout(&self) -> Layout {
        if T::BOXED {
            Layout::AosPointers
        } else {
            Layout::Aos
        }
    }

    #[inline]
    fn hot(&self, i: usize) -> Hot {
        self.units[i].borrow().hot
    }

    #[inline]
    fn motion(&self, i: usize) -> (f32, f32, f32) {
        let h = &self.units[i].borrow().hot;
        (h.vx, h.vz, h.danger)
    }

    #[inline]
    fn team(&self, i: usize) -> u8 {
        self.units[i].borrow().hot.team
    }

    fn move_units(&mut self, world: f32, dt: f32) {
        let step = |u: &mut T| crate::engine::sim::move_hot(&mut u.borrow_mut().hot, world, dt);
        if crate::engine::spatial::pool_threads() > 1 {
            self.units.par_iter_mut().for_each(step)
        } else {
            self.units.iter_mut().for_each(step)
        }
    }

    fn write_steer(&mut self, steer: &[Steer]) {
        assert_eq!(steer.len(), self.units.len(), "one steer per unit");
        for (u, s) in self.units.iter_mut().zip(steer) {
            let h = &mut u.borrow_mut().hot;
            h.vx = s.vx;
            h.vz = s.vz;
            h.danger = s.danger;
            h.enemies = s.enemies;
        }
    }

    fn permute(&mut self, perm: &[u32], scratch: &mut PermuteScratch) {
        permute_in_place(&mut self.units, perm, &mut scratch.visited);
    }

    fn swap_remove(&mut self, i: usize) -> Hot {
        self.units.swap_remove(i).borrow().hot
    }

    fn push(&mut self, hot: Hot) {
        self.units.push(T::hold(UnitObject::new(hot)));
    }

    fn to_units(&self) -> Units {
        let mut u = Units::with_capacity(self.units.len());
        for o in &self.units {
            u.push(o.borrow().hot);
        }
        u
    }

    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        if T::BOXED {
            // The pointer in the Vec (4 bytes on 32-bit targets), then the
            // object it points to.
            out.push((
                std::ptr::from_ref(&self.units[i]) as usize,
                std::mem::size_of::<T>(),
            ));
        }
        out.push((
            std::ptr::from_ref(&self.units[i].borrow().hot.x) as usize,
            8,
        ));
    }

    fn team_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        // Through the same pointer as the position (read there).
        out.push((
            std::ptr::from_ref(&self.units[i].borrow().hot.team) as usize,
            1,
        ));
    }

    fn regions(&self) -> Vec<Region> {
        let array = Region {
            name: if T::BOXED { "pointers" } else { "units" },
            start: self.units.as_ptr() as usize,
            bytes: std::mem::size_of_val(&self.units[..]),
        };
        if !T::BOXED {
            return vec![array];
        }
        let size = std::mem::size_of::<UnitObject>();
        let (lo, hi) = self.units.iter().fold((usize::MAX, 0), |(lo, hi), b| {
            let a = std::ptr::from_ref::<UnitObject>(b.borrow()) as usize;
            (lo.min(a), hi.max(a + size))
        });
        let mut r = vec![array];
        if hi > lo {
            r.push(Region {
                name: OBJECTS_SPAN,
                start: lo,
                bytes: hi - lo,
            });
        }
        r
    }

    fn bytes_per_unit(&self) -> usize {
        std::mem::size_of::<UnitObject>() + std::mem::size_of::<T>() * T::BOXED as usize
    }

    fn bytes_read_per_candidate(&self) -> usize {
        8 + if T::BOXED {
            std::mem::size_of::<T>()
        } else {
            0
        }
    }
}
