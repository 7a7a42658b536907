//! How units are stored: the four data layouts of the data-oriented design
//! lesson, behind one trait so move, rebuild, query and apply are written once
//! and monomorphized per layout.
//!
//! | layout | storage | what a position read costs |
//! |---|---|---|
//! | [`Layout::AosPointers`] | `Vec<Box<UnitObject>>`, objects allocated shuffled among other allocations | a pointer load, then a miss into a scattered 328-byte object |
//! | [`Layout::Aos`] | `Vec<UnitObject>` | one 8-byte read per 328-byte stride: a cache line per unit |
//! | [`Layout::Soa`] | one array per hot field ([`Units`]) | 4 bytes from each of two dense arrays |
//! | [`Layout::HotCold`] | [`Units`] + `Vec<Cold>` indexed by unit | as SoA; the cold records are never touched by a query |
//!
//! Every layout holds the same units in the same order, so every layout
//! returns identical neighbor sets and bit-identical simulations.

pub mod aos;
pub mod aos_pointers;
pub mod hot_cold;
pub mod soa;

pub use aos::{Aos, ObjectSlot, Objects, OBJECTS_SPAN};
pub use aos_pointers::{malloc_chunk, AosPointers};
pub use hot_cold::HotCold;
pub use soa::Units;

/// The steering columns of a SoA layout: velocity x and z (world units per
/// second), danger time (seconds) and enemies in range, one entry per unit.
pub type MotionColumns<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32], &'a mut [u16]);

use crate::engine::spatial::Positions;

/// The data layouts, as chosen in the overlay and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// One heap object per unit behind a `Box`, allocated in scattered order.
    AosPointers,
    /// One contiguous `Vec` of fat unit structs (array of structures).
    Aos,
    /// Each hot field in its own array (structure of arrays); no cold data.
    #[default]
    Soa,
    /// SoA hot arrays plus the cold records in a separate array.
    HotCold,
}

// Slowest first: the order of the lesson.
crate::named! { Layout, display = key, {
    AosPointers => "aos-pointers", "AoS pointers";
    Aos => "aos", "AoS";
    Soa => "soa", "SoA";
    HotCold => "hot-cold", "Hot/cold";
} }

impl Layout {
    /// Whether the fused apply steers this layout's units in place, in its
    /// own columns ([`UnitLayout::motion_columns`] is `Some`: SoA,
    /// hot/cold), instead of through a steering buffer copied back.
    pub fn steers_in_place(self) -> bool {
        matches!(self, Layout::Soa | Layout::HotCold)
    }

    /// One-line explanation for tooltips and the README.
    pub fn describe(self) -> &'static str {
        match self {
            Layout::AosPointers => "One heap object per unit (328 bytes: position, velocity, name, hit points, weapons, inventory, AI state) behind a Box, allocated shuffled among other allocations: every candidate costs a pointer load and a cache miss into a scattered object.",
            Layout::Aos => "One contiguous Vec of the same 328-byte structs: no pointer chase, but each position read still pulls a whole cache line of mostly cold data.",
            Layout::Soa => "Each hot field in its own dense array (today's engine): a query reads 4 bytes of x and 4 of z per candidate, 16 units per cache line.",
            Layout::HotCold => "SoA hot arrays plus the 300-byte cold records in a separate array indexed by unit: queries run as fast as SoA while the game keeps its cold data.",
        }
    }
}

/// The hot fields of one unit: what move, query and apply read and write.
/// Also the head of [`UnitObject`] (28 bytes, `#[repr(C)]`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hot {
    /// Position x, world units, in `[0, L)`.
    pub x: f32,
    /// Position z, world units, in `[0, L)`.
    pub z: f32,
    /// Velocity x, world units per second.
    pub vx: f32,
    /// Velocity z, world units per second.
    pub vz: f32,
    /// Seconds of simulated time the unit has had more enemies than friends
    /// in range (the `battle` workload's death rule); 0 otherwise.
    pub danger: f32,
    /// Stable identity: the unit's slot in [`crate::engine::sim::Handles`].
    pub id: u32,
    /// Units of the other team within the query radius after the last frame (saturating).
    pub enemies: u16,
    /// Team, 0 or 1.
    pub team: u8,
}

/// One weapon of a unit's cold data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Weapon {
    /// Weapon kind (game-defined).
    pub kind: u32,
    /// Rounds left.
    pub ammo: u32,
    /// Seconds until it can fire again.
    pub cooldown: f32,
    /// Range, world units.
    pub range: f32,
}

/// A unit's AI state (cold data).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AiState {
    /// State machine state (game-defined).
    pub state: u32,
    /// Target unit id.
    pub target: u32,
    /// Seconds in the current state.
    pub timer: f32,
    /// Planned path, world units.
    pub waypoints: [[f32; 2]; 8],
}

/// The data a game keeps per unit that the neighbor pass never reads
/// (300 bytes, `#[repr(C)]`): name, hit points, armor, weapons, inventory,
/// AI state. Filled with deterministic values from the unit's id
/// ([`Cold::for_unit`]); it exists to occupy memory the way it does in a game.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cold {
    /// Display name, NUL-padded ASCII.
    pub name: [u8; 24],
    /// Hit points.
    pub hit_points: f32,
    /// Armor.
    pub armor: f32,
    /// Weapons.
    pub weapons: [Weapon; 4],
    /// Item ids.
    pub inventory: [u32; 32],
    /// AI state.
    pub ai: AiState,
}

impl Cold {
    /// Deterministic cold data for unit `id` (no randomness, no allocation).
    pub fn for_unit(id: u32) -> Cold {
        let mut name = [0u8; 24];
        write_label(id, &mut name);
        let mut inventory = [0u32; 32];
        for (k, v) in inventory.iter_mut().enumerate() {
            *v = id.wrapping_mul(31).wrapping_add(k as u32);
        }
        Cold {
            name,
            hit_points: 100.0,
            armor: (id % 7) as f32,
            weapons: [Weapon {
                kind: id % 5,
                ammo: 30,
                cooldown: 0.0,
                range: 25.0,
            }; 4],
            inventory,
            ai: AiState {
                state: id % 3,
                target: u32::MAX,
                timer: 0.0,
                waypoints: [[0.0; 2]; 8],
            },
        }
    }
}

/// Writes `unit-<id>` as ASCII into `name` (NUL-padded), without allocating.
fn write_label(id: u32, name: &mut [u8; 24]) {
    name[..5].copy_from_slice(b"unit-");
    let mut digits = [0u8; 10];
    let (mut v, mut n) = (id, 0);
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for k in 0..n {
        name[5 + k] = digits[n - 1 - k];
    }
}

/// One unit as a game object: hot fields first, then the cold data
/// (328 bytes, `#[repr(C)]`). The element of [`Aos`] and the boxed object of
/// [`AosPointers`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitObject {
    /// Position, velocity, team and the other per-frame fields.
    pub hot: Hot,
    /// Everything the neighbor pass never reads.
    pub cold: Cold,
}

impl UnitObject {
    /// A unit with hot fields `hot` and [`Cold::for_unit`] cold data.
    pub fn new(hot: Hot) -> UnitObject {
        UnitObject {
            hot,
            cold: Cold::for_unit(hot.id),
        }
    }
}

/// What the apply step computes for one unit: its new velocity, danger time
/// and enemy count, written back through the layout in one pass
/// ([`UnitLayout::write_steer`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Steer {
    /// New velocity x, world units per second.
    pub vx: f32,
    /// New velocity z, world units per second.
    pub vz: f32,
    /// New [`Hot::danger`], seconds.
    pub danger: f32,
    /// New [`Hot::enemies`].
    pub enemies: u16,
}

/// A named range of memory that holds units: what the memory view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// What it holds (for example `"x"` or `"objects"`).
    pub name: &'static str,
    /// First byte's address.
    pub start: usize,
    /// Length, bytes.
    pub bytes: usize,
}

/// Scratch buffers for [`UnitLayout::permute`], kept across reorders so a
/// steady-state reorder allocates nothing.
#[derive(Debug, Default)]
pub struct PermuteScratch {
    pub(crate) f32s: Vec<f32>,
    pub(crate) u32s: Vec<u32>,
    pub(crate) u16s: Vec<u16>,
    pub(crate) u8s: Vec<u8>,
    pub(crate) visited: Vec<bool>,
    /// Scratch of [`soa::gather_payload`].
    pub(crate) payload: Units,
}

/// Permutes `v` in place so that `v[new] = old v[perm[new]]`, following the
/// permutation's cycles with swaps: works for any element type (boxes, fat
/// structs) without a second buffer. `visited` is scratch.
///
/// # Panics
/// If `perm` is not a permutation of `0..v.len()`.
pub fn permute_in_place<T>(v: &mut [T], perm: &[u32], visited: &mut Vec<bool>) {
    assert_eq!(v.len(), perm.len(), "permutation length");
    visited.clear();
    visited.resize(v.len(), false);
    for start in 0..v.len() {
        if visited[start] {
            continue;
        }
        let mut j = start;
        loop {
            visited[j] = true;
            let k = perm[j] as usize;
            if k == start {
                break;
            }
            assert!(!visited[k], "not a permutation");
            v.swap(j, k);
            j = k;
        }
    }
}

/// Checks that `perm` is a permutation of `0..perm.len()` (`visited` is scratch).
///
/// # Panics
/// If it is not.
pub(crate) fn check_permutation(perm: &[u32], visited: &mut Vec<bool>) {
    visited.clear();
    visited.resize(perm.len(), false);
    for &p in perm {
        let seen = visited
            .get_mut(p as usize)
            .expect("not a permutation: index out of range");
        assert!(!*seen, "not a permutation: {p} appears twice");
        *seen = true;
    }
}

/// `v = v[perm]` through `scratch` (swapped in, so no copy back).
pub(crate) fn gather<T: Copy>(v: &mut Vec<T>, perm: &[u32], scratch: &mut Vec<T>) {
    scratch.clear();
    scratch.extend(perm.iter().map(|&p| v[p as usize]));
    std::mem::swap(v, scratch);
}

/// One data layout of the units. The engine's hot loops are generic over it
/// (monomorphized), never calling through `dyn` per unit.
///
/// Unit `i` is the `i`-th unit in storage order; every layout holding the
/// same units holds them in the same order.
pub trait UnitLayout: Positions + Send + Sync {
    /// Which layout this is.
    fn layout(&self) -> Layout;

    /// The hot fields of unit `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    fn hot(&self, i: usize) -> Hot;

    /// Velocity x and z (world units per second) and danger time (seconds) of
    /// unit `i`: what the apply step reads of the unit itself.
    ///
    /// # Panics
    /// If `i >= len()`.
    fn motion(&self, i: usize) -> (f32, f32, f32);

    /// Team of unit `i` (the apply step's only read besides the position).
    ///
    /// # Panics
    /// If `i >= len()`.
    fn team(&self, i: usize) -> u8;

    /// Every unit's team as one dense array, when the layout stores it so
    /// (SoA, hot/cold); the fused pass gathers it otherwise.
    fn teams(&self) -> Option<&[u8]> {
        None
    }

    /// The steering columns `(vx, vz, danger, enemies)` as dense arrays
    /// (SoA, hot/cold), so the fused apply can steer every unit in place
    /// and in parallel; `None` for the layouts that store records.
    fn motion_columns(&mut self) -> Option<MotionColumns<'_>> {
        None
    }

    /// Moves every unit by `v * dt` and reflects it off the world border
    /// ([`crate::engine::sim::move_hot`] per unit; results identical in every
    /// layout), on the threads of the pool it is called in
    /// ([`crate::engine::spatial::pool_threads`]).
    fn move_units(&mut self, world: f32, dt: f32);

    /// Writes `steer[i]` into unit `i`'s velocity, danger and enemy count.
    ///
    /// # Panics
    /// If `steer.len() != len()`.
    fn write_steer(&mut self, steer: &[Steer]);

    /// Reorders the units so that new unit `k` is old unit `perm[k]`.
    ///
    /// # Panics
    /// If `perm` is not a permutation of `0..len()`.
    fn permute(&mut self, perm: &[u32], scratch: &mut PermuteScratch);

    /// Removes unit `i` by moving the last unit into its place (swap-and-pop)
    /// in every array of the layout; returns the removed unit's hot fields.
    ///
    /// # Panics
    /// If `i >= len()`.
    fn swap_remove(&mut self, i: usize) -> Hot;

    /// Appends a unit (cold data from [`Cold::for_unit`]).
    fn push(&mut self, hot: Hot);

    /// A SoA copy of the hot fields.
    fn to_units(&self) -> Units;

    /// Appends `(address, bytes)` of every read the query loop makes to get
    /// unit `i`'s position (a pointer, then the fields; or one read per array).
    fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>);

    /// Appends the read of unit `i`'s team, as `(address, bytes)` (the fused
    /// pass reads it for the center and every neighbor).
    ///
    /// # Panics
    /// If `i >= len()`.
    fn team_reads(&self, i: usize, out: &mut Vec<(usize, usize)>);

    /// The memory that holds the units, one region per array (the boxed
    /// objects of [`AosPointers`] as the span from the lowest to the highest
    /// object). Allocates the returned `Vec`.
    fn regions(&self) -> Vec<Region>;

    /// Bytes of storage per unit (all arrays of the layout, cold data included).
    fn bytes_per_unit(&self) -> usize;

    /// Bytes the query loop reads per candidate (what a cache line is
    /// fetched for): 8 bytes of position, plus the pointer behind a `Box` (8 bytes; 4 on 32-bit targets).
    fn bytes_read_per_candidate(&self) -> usize;
}

/// The units in one of the four layouts: what [`crate::engine::sim::Simulation`]
/// holds. Dispatch to the generic code with [`with_layout!`](crate::with_layout).
#[derive(Debug)]
pub enum UnitStore {
    /// See [`Layout::AosPointers`].
    AosPointers(AosPointers),
    /// See [`Layout::Aos`].
    Aos(Aos),
    /// See [`Layout::Soa`].
    Soa(Units),
    /// See [`Layout::HotCold`].
    HotCold(HotCold),
}

impl Default for UnitStore {
    fn default() -> Self {
        UnitStore::Soa(Units::default())
    }
}

/// Runs `$body` with `$l` bound to the concrete layout inside a
/// [`UnitStore`] (by reference or mutable
/// reference, as `$store` is), so the body is monomorphized per layout.
#[macro_export]
macro_rules! with_layout {
    ($store:expr, $l:ident => $body:expr) => {
        match $store {
            $crate::engine::sim::layout::UnitStore::AosPointers($l) => $body,
            $crate::engine::sim::layout::UnitStore::Aos($l) => $body,
            $crate::engine::sim::layout::UnitStore::Soa($l) => $body,
            $crate::engine::sim::layout::UnitStore::HotCold($l) => $body,
        }
    };
}

impl UnitStore {
    /// The units of `units` stored in `layout`; `seed` scatters the
    /// allocations of [`Layout::AosPointers`]. Allocates the storage.
    pub fn new(layout: Layout, units: Units, seed: u64) -> UnitStore {
        match layout {
            Layout::AosPointers => UnitStore::AosPointers(AosPointers::from_units(&units, seed)),
            Layout::Aos => UnitStore::Aos(Aos::from_units(&units)),
            Layout::Soa => UnitStore::Soa(units),
            Layout::HotCold => UnitStore::HotCold(HotCold::from_units(units)),
        }
    }

    /// The current layout.
    pub fn layout(&self) -> Layout {
        crate::with_layout!(self, l => l.layout())
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        crate::with_layout!(self, l => l.len())
    }

    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The hot fields of unit `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn hot(&self, i: usize) -> Hot {
        crate::with_layout!(self, l => l.hot(i))
    }

    /// Position `(x, z)` of unit `i`, world units.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn pos(&self, i: usize) -> (f32, f32) {
        crate::with_layout!(self, l => l.pos(i))
    }

    /// A SoA copy of the hot fields (allocates).
    pub fn to_units(&self) -> Units {
        crate::with_layout!(self, l => l.to_units())
    }

    /// Re-stores the same units, in the same order, in `layout` (no-op when
    /// it is already the layout). Cold data is regenerated from the ids.
    pub fn convert(&mut self, layout: Layout, seed: u64) {
        if self.layout() != layout {
            let units = match std::mem::take(self) {
                UnitStore::Soa(u) => u,
                UnitStore::HotCold(h) => h.hot,
                other => other.to_units(),
            };
            *self = UnitStore::new(layout, units, seed);
        }
    }

    /// See [`UnitLayout::position_reads`].
    pub fn position_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        crate::with_layout!(self, l => l.position_reads(i, out))
    }

    /// Appends the read of unit `i`'s team ([`UnitLayout::team_reads`]).
    pub fn team_reads(&self, i: usize, out: &mut Vec<(usize, usize)>) {
        crate::with_layout!(self, l => l.team_reads(i, out))
    }

    /// See [`UnitLayout::regions`].
    pub fn regions(&self) -> Vec<Region> {
        crate::with_layout!(self, l => l.regions())
    }

    /// See [`UnitLayout::bytes_per_unit`].
    pub fn bytes_per_unit(&self) -> usize {
        crate::with_layout!(self, l => l.bytes_per_unit())
    }

    /// See [`UnitLayout::bytes_read_per_candidate`].
    pub fn bytes_read_per_candidate(&self) -> usize {
        crate::with_layout!(self, l => l.bytes_read_per_candidate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_sizes_are_what_the_docs_say() {
        assert_eq!(std::mem::size_of::<Hot>(), 28);
        assert_eq!(std::mem::size_of::<Cold>(), 300);
        assert_eq!(std::mem::size_of::<UnitObject>(), 328);
    }

    #[test]
    fn permute_in_place_matches_a_gather() {
        let perm = [3u32, 0, 4, 1, 2, 5];
        let mut v: Vec<String> = (0..6).map(|k| k.to_string()).collect();
        let want: Vec<String> = perm.iter().map(|&p| p.to_string()).collect();
        permute_in_place(&mut v, &perm, &mut Vec::new());
        assert_eq!(v, want);
    }

    #[test]
    fn steers_in_place_where_the_layout_has_motion_columns() {
        for l in Layout::ALL {
            let units = crate::engine::sim::spawn::spawn(8, 50.0, 10.0, Default::default(), 1);
            let mut store = UnitStore::new(l, units, 1);
            let columns = crate::with_layout!(&mut store, u => u.motion_columns().is_some());
            assert_eq!(columns, l.steers_in_place(), "{l}");
        }
    }

    #[test]
    fn names_round_trip() {
        for l in Layout::ALL {
            assert_eq!(Layout::from_key(l.key()), Some(l));
            assert_eq!(Layout::from_key(l.name()), Some(l));
        }
        assert_eq!(Layout::from_key("soa-ish"), None);
        let c = Cold::for_unit(1234);
        assert_eq!(&c.name[..9], b"unit-1234");
    }
}
