//! The unit count of a lesson that must not fit in the cache: chosen so
//! that the AoS layout's working set is a given multiple of this machine's
//! last-level cache, where the unit limit allows.

use crate::engine::sim::{Layout, Settings, Simulation};
use crate::format::{size, thousands};
use crate::measure::machine::Machine;
use crate::measure::memory::working_set;
use crate::settings::scenario::MAX_UNITS;

/// Units of the simulation that measures the AoS bytes per unit.
pub const PROBE_UNITS: usize = 20_000;

/// A unit count chosen from the cache, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitChoice {
    /// The count.
    pub units: usize,
    /// One or two sentences: the cache, the bytes per unit, the target and
    /// whether the limit allowed it.
    pub why: String,
    /// AoS working-set bytes per unit, measured on [`PROBE_UNITS`] units.
    pub bytes_per_unit: f64,
    /// The last-level cache, bytes (`None`: unknown).
    pub llc: Option<u64>,
}

/// Measured AoS working-set bytes per unit of `settings`' work (its
/// strategy, workload, radius): one step of [`PROBE_UNITS`] units in the
/// AoS layout on one thread, and [`working_set`] over the count. Allocates
/// a simulation (about 10 MB) and frees it.
pub fn aos_bytes_per_unit(settings: &Settings) -> f64 {
    let s = Settings {
        units: PROBE_UNITS,
        layout: Layout::Aos,
        threads: 1,
        ..settings.clone()
    };
    let mut sim = Simulation::new(&s);
    sim.step(1.0 / 60.0, &s);
    working_set(&sim).total() as f64 / PROBE_UNITS as f64
}

/// A cap on the chosen count and why it is there, for the explanation
/// ("the lesson's cap, which keeps each step short").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cap<'a> {
    /// The most units.
    pub units: usize,
    /// What sets it, as it reads after the count ("the lesson's cap").
    pub what: &'a str,
}

/// The units for an AoS working set of `factor` times `machine`'s
/// last-level cache, rounded up to a multiple of 10,000, at most
/// [`MAX_UNITS`] and `cap`, for the work of `settings`
/// ([`aos_bytes_per_unit`]). With the cache unknown: 200,000 units, said so.
pub fn choose(
    factor: f64,
    settings: &Settings,
    machine: &Machine,
    cap: Option<Cap<'_>>,
) -> UnitChoice {
    let bpu = aos_bytes_per_unit(settings).max(1.0);
    choose_with(factor, machine, bpu, cap)
}

/// [`choose`] with the bytes per unit given (tests).
pub fn choose_with(
    factor: f64,
    machine: &Machine,
    bytes_per_unit: f64,
    cap: Option<Cap<'_>>,
) -> UnitChoice {
    let (cap, cap_what) = match cap {
        Some(c) if c.units < MAX_UNITS => (Some(c.units), c.what),
        _ => (None, "the limit"),
    };
    let llc = machine.l3().or(machine.l2()).or(machine.l1d());
    let per = format!(
        "the AoS working set is {:.0} bytes per unit, measured on {} units",
        bytes_per_unit,
        thousands(PROBE_UNITS as u64)
    );
    let Some(llc) = llc else {
        return UnitChoice {
            units: cap.unwrap_or(200_000).min(200_000),
            why: format!("this machine's caches are unknown, so 200,000 units; {per}"),
            bytes_per_unit,
            llc: None,
        };
    };
    let want = (factor * llc as f64 / bytes_per_unit).ceil();
    let want = ((want / 10_000.0).ceil() * 10_000.0).max(10_000.0) as usize;
    let limit = MAX_UNITS.min(cap.unwrap_or(MAX_UNITS));
    let units = want.min(limit);
    let llc_name = machine.llc_text();
    let reached = units as f64 * bytes_per_unit / llc as f64;
    let why = if units == want {
        format!(
            "{} units: {per}, so their working set is about {} = {:.1}x this machine's {llc_name}",
            thousands(units as u64),
            size((units as f64 * bytes_per_unit) as u64),
            reached
        )
    } else {
        format!(
            "{} units, {cap_what}: {factor}x this machine's {llc_name} would need {} units ({per}); at {} units the AoS working set is {}x the cache{}",
            thousands(units as u64),
            thousands(want as u64),
            thousands(units as u64),
            crate::teaching::lesson::text::ratio_text(reached),
            if reached < 1.0 {
                ": it fits, so cache effects show less than on a machine with a smaller cache"
            } else {
                ""
            }
        )
    };
    UnitChoice {
        units,
        why,
        bytes_per_unit,
        llc: Some(llc),
    }
}
