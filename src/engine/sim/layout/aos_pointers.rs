//! Array of pointers to objects: one heap allocation per unit, in scattered
//! order, the way an object-oriented engine ends up storing its entities.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Objects, UnitObject, Units};

// code:begin layout-aos-pointers
/// One `Box<UnitObject>` per unit: unit `i` is `*units[i]`.
///
/// [`AosPointers::from_units`] allocates the objects in a shuffled order,
/// interleaved with other allocations of 16 to 1,024 bytes (kept alive, as a
/// game's other objects would be), so units that are neighbors in the world,
/// and even consecutive units, are far apart in memory. Reordering the units
/// permutes the pointers, not the objects: the scatter stays.
pub type AosPointers = Objects<Box<UnitObject>>;

impl AosPointers {
    /// Boxes every unit of `units`, allocated in an order shuffled by `seed`
    /// with one unrelated allocation after each, then lays the pointers out in
    /// unit order, and records where each object sits in a model heap of
    /// those allocations ([`Objects::heap_plan`]). Allocates `2 * len + 3`
    /// blocks.
    pub fn from_units(units: &Units, seed: u64) -> AosPointers {
        let n = units.len();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut boxed: Vec<Option<Box<UnitObject>>> = (0..n).map(|_| None).collect();
        let mut other = Vec::with_capacity(n);
        let mut heap_plan = Vec::with_capacity(n);
        let mut offset = 0u64;
        for &i in &order {
            let b = Box::new(UnitObject::new(units.get(i)));
            heap_plan.push((std::ptr::from_ref::<UnitObject>(&b) as usize, offset));
            boxed[i] = Some(b);
            let size = rng.gen_range(16..=1024);
            other.push(vec![0u8; size].into_boxed_slice());
            offset += malloc_chunk(std::mem::size_of::<UnitObject>()) + malloc_chunk(size);
        }
        heap_plan.sort_unstable();
        Objects {
            units: boxed
                .into_iter()
                .map(|b| b.expect("every unit was boxed"))
                .collect(),
            _interleaved: other,
            heap_plan,
        }
    }
}
// code:end layout-aos-pointers

/// The bytes a fresh glibc heap gives an allocation of `bytes`: the
/// request plus an 8-byte header, rounded up to 16 (the chunk the model
/// heap packs, `crate::measure::memory::address_map`).
pub fn malloc_chunk(bytes: usize) -> u64 {
    (bytes as u64 + 8).div_ceil(16) * 16
}
