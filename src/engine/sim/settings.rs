//! Everything a user can set for the engine ([`Settings`], written from
//! the one settings table's engine rows: `crate::settings::table`) and what
//! a spawn depends on ([`SpawnKey`]).

use super::{world_size, Layout, Pass, Reorder, Workload, STANDARD_RADIUS};
use crate::engine::spatial::{Kernel, Strategy};

/// Writes [`Settings`] and its defaults from the settings table's engine
/// rows (the view rows are the window's).
macro_rules! engine_settings {
    (
        engine {$(
            $key:ident : $ty:ty $([$opt:ident])? = $kind:ident {
                flag: $flag:literal,
                default: $default:tt,
                range: $range:tt,
                unit: $unit:literal,
                slider: $slider:tt,
                help: $help:literal,
                on: [$($surface:ident),*],
                bench: $bench:tt,
            }
        )*}
        view { $($view:tt)* }
    ) => {
        /// Everything a user can set for the engine; the overlay and the
        /// command line edit a copy and the simulation reads it each step.
        /// One field per engine row of the settings table, with its help
        /// sentence; the ranges are the table's. `world` is `None` for the
        /// standard density of `docs/workloads.md` ([`world_size`]`(units,
        /// STANDARD_RADIUS)`; a value that is not finite and positive counts
        /// as `None`); `kernel` is replaced by Scalar where the CPU lacks it;
        /// `cell_size` follows `radius` while `cell_follows_radius` is set.
        /// Changing `units`, `workload`, `seed` or `world` respawns; changing
        /// `layout` re-stores the same units.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Settings {
            $(
                #[doc = $help]
                pub $key: engine_settings!(@ty $ty $([$opt])?),
            )*
            /// Keep `cell_size` equal to `radius` whenever the radius changes
            /// (the overlay's "= r" toggle); read by the budget rules
            /// (`settings::budget::settle`), not by the step.
            pub cell_follows_radius: bool,
        }

        impl Default for Settings {
            fn default() -> Self {
                Settings {
                    $($key: engine_settings!(@default $default),)*
                    cell_follows_radius: true,
                }
            }
        }
    };
    (@ty $ty:ty) => { $ty };
    (@ty $ty:ty [optional]) => { Option<$ty> };
    (@default ($e:expr)) => { $e };
    (@default ($e:expr, $text:literal)) => { $e };
}

crate::settings_table!(engine_settings);

impl Settings {
    /// The world edge L (world units) these settings spawn: `world` when it
    /// is finite and positive, else the standard density's
    /// [`world_size`]`(units, STANDARD_RADIUS)`.
    pub fn world_edge(&self) -> f32 {
        match self.world {
            Some(w) if w.is_finite() && w > 0.0 => w,
            _ => world_size(self.units, STANDARD_RADIUS),
        }
    }

    /// True when the query runs the distance-test kernel: always for
    /// SortedGrid; for Naive only through a layout with dense position
    /// arrays (SoA, hot/cold), which its scan hands to the kernel; never for
    /// Grid, which reads each candidate through the layout with the scalar
    /// test. Where it is false the kernel setting changes nothing.
    pub fn uses_kernel(&self) -> bool {
        match self.strategy {
            Strategy::SortedGrid => true,
            Strategy::Naive => matches!(self.layout, Layout::Soa | Layout::HotCold),
            Strategy::Grid => false,
        }
    }

    /// The kernel's key (`scalar`, `avx2`, ...) where the query runs one,
    /// `none` where it does not ([`Settings::uses_kernel`]).
    pub fn kernel_key(&self) -> &'static str {
        if self.uses_kernel() {
            self.kernel.key()
        } else {
            "none"
        }
    }

    /// What a spawn depends on: unit count, workload, seed and world edge
    /// (its bits). Two settings with the same key spawn the same units.
    pub fn spawn_key(&self) -> SpawnKey {
        (
            self.units,
            self.workload,
            self.seed,
            self.world_edge().to_bits(),
        )
    }

    /// True when `other` asks the engine for the same work per frame: same
    /// units, workload, seed, world, strategy, kernel, threads, radius, cell size,
    /// unit order, layout and pass. Speed, separation and pause change where units go, not
    /// what a frame computes, so timings averaged across them stay comparable.
    pub fn same_work(&self, other: &Settings) -> bool {
        (
            self.units,
            self.workload,
            self.seed,
            self.strategy,
            self.kernel,
            self.threads,
            self.reorder,
            self.reorder_every,
            self.layout,
            self.pass,
        ) == (
            other.units,
            other.workload,
            other.seed,
            other.strategy,
            other.kernel,
            other.threads,
            other.reorder,
            other.reorder_every,
            other.layout,
            other.pass,
        ) && self.radius.to_bits() == other.radius.to_bits()
            && self.world_edge().to_bits() == other.world_edge().to_bits()
            && self.cell_size.to_bits() == other.cell_size.to_bits()
    }
}

/// What a spawn depends on ([`Settings::spawn_key`]): unit count, workload,
/// seed and the bits of the world edge.
pub type SpawnKey = (usize, Workload, u64, u32);
