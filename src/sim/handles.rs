//! Generational handles: how anything outside the simulation refers to a unit
//! whose storage index changes (reorder, swap-and-pop) and which may die.

/// A reference to one unit: its slot and the slot's generation when the unit
/// was created. A handle to a dead unit never resolves again, even after its
/// slot is reused by a new unit (the generation differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    /// Slot, also the unit's stable id ([`crate::sim::layout::Hot::id`]).
    pub slot: u32,
    /// Generation of the slot this handle was made for.
    pub generation: u32,
}

/// Marks a free slot's storage index.
const FREE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    generation: u32,
    index: u32,
}

/// The slot map from handles to storage indices: one slot per live unit
/// (`index` = where the unit is stored), free slots reused last-in first-out
/// with their generation bumped at each death. Generations wrap after 2^32
/// deaths of one slot (a handle could then alias; not reachable in practice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handles {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Generation of slots created from now on: above every generation ever
    /// issued, so a handle from before [`Handles::reset`] never resolves.
    epoch: u32,
}

impl Handles {
    /// Slots `0..n` for units stored at `0..n` (a fresh spawn), generation 0.
    pub fn identity(n: usize) -> Handles {
        Handles {
            slots: (0..n as u32)
                .map(|i| Slot {
                    generation: 0,
                    index: i,
                })
                .collect(),
            free: Vec::new(),
            epoch: 0,
        }
    }

    /// Storage index of the unit `h` refers to, or `None` when that unit is
    /// dead (or `h` was never issued).
    pub fn resolve(&self, h: Handle) -> Option<usize> {
        self.slots
            .get(h.slot as usize)
            .filter(|s| s.generation == h.generation && s.index != FREE)
            .map(|s| s.index as usize)
    }

    /// The current handle of the live unit with id `slot`.
    pub fn handle(&self, slot: u32) -> Option<Handle> {
        self.slots
            .get(slot as usize)
            .filter(|s| s.index != FREE)
            .map(|s| Handle {
                slot,
                generation: s.generation,
            })
    }

    /// Slots `0..n` for units stored at `0..n` after a respawn, with a
    /// generation no handle issued before has: every old handle stops
    /// resolving, even for a slot number that exists again.
    pub fn reset(&mut self, n: usize) {
        let top = self
            .slots
            .iter()
            .map(|s| s.generation)
            .max()
            .unwrap_or(0)
            .max(self.epoch);
        let epoch = top.wrapping_add(1);
        self.slots.clear();
        self.slots.extend((0..n as u32).map(|i| Slot {
            generation: epoch,
            index: i,
        }));
        self.free.clear();
        self.epoch = epoch;
    }

    /// A slot for a new unit that will be stored at `index`; returns its id.
    /// Allocates only while the slot table grows.
    pub fn insert(&mut self, index: usize) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize].index = index as u32;
                slot
            }
            None => {
                self.slots.push(Slot {
                    generation: self.epoch,
                    index: index as u32,
                });
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees `slot` (its unit died): every handle to it stops resolving.
    pub fn remove(&mut self, slot: u32) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            if s.index != FREE {
                s.index = FREE;
                s.generation = s.generation.wrapping_add(1);
                self.free.push(slot);
            }
        }
    }

    /// Records that the unit with id `slot` is now stored at `index`.
    pub fn moved(&mut self, slot: u32, index: usize) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            s.index = index as u32;
        }
    }

    /// Orders the last `k` freed slots so that the next inserts reuse them
    /// lowest slot first, whatever order they were freed in: the ids given
    /// to new units then do not depend on the memory order of the units
    /// that died (the same simulation in any [`crate::sim::Reorder`] gives
    /// its units the same ids). O(k log k); no allocation.
    pub fn order_recent_free(&mut self, k: usize) {
        let from = self.free.len().saturating_sub(k);
        self.free[from..].sort_unstable_by(|a, b| b.cmp(a));
    }

    /// Number of live units.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_handle_never_resolves_even_after_its_slot_is_reused() {
        let mut h = Handles::identity(3);
        let old = h.handle(1).unwrap();
        assert_eq!(h.resolve(old), Some(1));
        h.remove(1);
        assert_eq!(h.resolve(old), None);
        let slot = h.insert(2);
        assert_eq!(slot, 1, "the freed slot is reused");
        let new = h.handle(1).unwrap();
        assert_ne!(new, old);
        assert_eq!(h.resolve(new), Some(2));
        assert_eq!(h.resolve(old), None, "the old generation stays dead");
        assert_eq!(h.live(), 3);
        assert_eq!(
            h.resolve(Handle {
                slot: 99,
                generation: 0
            }),
            None
        );
    }
}
