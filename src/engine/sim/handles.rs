//! Generational handles: how anything outside the simulation refers to a unit
//! whose storage index changes (reorder, swap-and-pop) and which may die.

/// A reference to one unit: its slot and the slot's generation when the unit
/// was created. A handle to a dead unit never resolves again, even after its
/// slot is reused by a new unit (the generation differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    /// Slot, also the unit's stable id ([`crate::engine::sim::layout::Hot::id`]).
    pub slot: u32,
    /// Generation of the slot this handle was made for (64 bits: see
    /// [`Handles`] for why it never wraps).
    pub generation: u64,
}

/// Marks a free slot's storage index.
const FREE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    generation: u64,
    index: u32,
}

/// The slot map from handles to storage indices: one slot per live unit
/// (`index` = where the unit is stored), free slots reused last-in first-out
/// with their generation bumped at each death.
///
/// Generations never wrap, so a stale handle never resolves to another unit:
/// they are 64-bit, a slot whose generation reaches `u64::MAX` is retired
/// when its unit dies (never reused; a new slot is made instead), and
/// [`Handles::reset`] panics rather than reuse a generation (after 2^64 - 1
/// deaths of one slot or respawns: 584 years at one per nanosecond).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handles {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Generation of slots created from now on: above every generation ever
    /// issued, so a handle from before [`Handles::reset`] never resolves.
    epoch: u64,
    /// Slots retired at the last generation (never reused).
    retired: usize,
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
            retired: 0,
        }
    }

    /// Storage index of the unit `h` refers to, or `None` when that unit is
    /// dead (or `h` was never issued). The index is the one last recorded
    /// ([`Handles::moved`]); with [`crate::engine::sim::Reorder::Resident`] the
    /// units move without it, so the simulation's `resolve` treats it as a
    /// hint.
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
    ///
    /// # Panics
    /// When no such generation is left: some generation ever issued is
    /// `u64::MAX` (2^64 - 1 respawns, or deaths of one slot, since the
    /// table was made; not reachable in practice).
    pub fn reset(&mut self, n: usize) {
        let top = self
            .slots
            .iter()
            .map(|s| s.generation)
            .max()
            .unwrap_or(0)
            .max(self.epoch);
        let epoch = top
            .checked_add(1)
            .expect("2^64 - 1 generations issued: every generation is taken");
        self.slots.clear();
        self.slots.extend((0..n as u32).map(|i| Slot {
            generation: epoch,
            index: i,
        }));
        self.free.clear();
        self.retired = 0;
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
    /// A slot whose generation is `u64::MAX` is retired instead: it is never
    /// reused, so its generation never wraps.
    pub fn remove(&mut self, slot: u32) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            if s.index != FREE {
                s.index = FREE;
                match s.generation.checked_add(1) {
                    Some(next) => {
                        s.generation = next;
                        self.free.push(slot);
                    }
                    None => self.retired += 1,
                }
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
    /// that died (the same simulation in any [`crate::engine::sim::Reorder`] gives
    /// its units the same ids). O(k log k); no allocation.
    pub fn order_recent_free(&mut self, k: usize) {
        let from = self.free.len().saturating_sub(k);
        self.free[from..].sort_unstable_by(|a, b| b.cmp(a));
    }

    /// Number of live units.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len() - self.retired
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

    #[test]
    fn a_slot_reused_past_2_pow_32_keeps_counting_instead_of_wrapping() {
        let mut h = Handles::identity(1);
        let first = h.handle(0).unwrap();
        h.slots[0].generation = u32::MAX as u64;
        let at_u32_max = h.handle(0).unwrap();
        h.remove(0);
        assert_eq!(h.insert(0), 0);
        let next = h.handle(0).unwrap();
        assert_eq!(next.generation, 1u64 << 32, "no wrap to 0");
        assert_eq!(h.resolve(first), None, "generation 0 stays dead");
        assert_eq!(h.resolve(at_u32_max), None);
        assert_eq!(h.resolve(next), Some(0));
    }

    #[test]
    fn a_slot_at_the_last_generation_is_retired_not_wrapped() {
        let mut h = Handles::identity(2);
        h.slots[1].generation = u64::MAX;
        let last = h.handle(1).unwrap();
        h.remove(1);
        assert_eq!(h.resolve(last), None);
        // The retired slot is not reused: the new unit gets a new slot.
        let slot = h.insert(1);
        assert_eq!(slot, 2);
        assert_eq!(h.resolve(last), None);
        assert_eq!(h.handle(1), None, "slot 1 stays free for good");
        assert_eq!(h.live(), 2);
        let old = Handle {
            slot: 1,
            generation: 0,
        };
        assert_eq!(h.resolve(old), None);
    }

    #[test]
    fn reset_issues_a_generation_above_every_one_before_it_at_the_wrap() {
        let mut h = Handles::identity(3);
        h.epoch = u64::MAX - 1;
        let before = Handle {
            slot: 0,
            generation: 0,
        };
        h.reset(3);
        let after = h.handle(0).unwrap();
        assert_eq!(after.generation, u64::MAX, "epoch + 1, not a wrap to 0");
        assert_eq!(h.resolve(before), None);
        assert_eq!(h.resolve(after), Some(0));
    }

    #[test]
    #[should_panic(expected = "every generation is taken")]
    fn reset_refuses_to_reuse_a_generation_once_all_are_taken() {
        let mut h = Handles::identity(1);
        h.epoch = u64::MAX;
        h.reset(1);
    }
}
