//! A working-set sweep: the same work measured at unit counts whose query
//! working set runs from inside the L1d cache to beyond the last-level
//! cache, drawn as cost per unit (and per candidate test) against
//! working-set bytes. It is the picture every course on caches draws, with
//! a step at each cache level (U. Drepper, "What Every Programmer Should
//! Know About Memory", 2007, figs. 3.10 to 3.15; I. Ostrovsky, "Gallery of
//! Processor Cache Effects", example 3).
//!
//! The unit counts come from this machine's cache sizes ([`unit_counts`]).
//! Every count is one variant of a [`Plan`](super::Plan) ([`variants`]; several sweeps
//! may share one plan, so their rounds interleave), and [`WsCurve::of`]
//! turns the plan's measurements into a curve with the rounds' range.

use serde::Serialize;

use super::verdict::{judge, Direction, MIN_ROUNDS};
use super::{Measurement, Outcome, Variant};
use crate::engine::sim::{Layout, Reorder, Settings, Simulation};
use crate::format::{size, thousands};
use crate::measure::machine::Machine;
use crate::measure::memory::working_set;
use crate::settings::scenario::MAX_UNITS;

/// The smallest working set of a sweep, as a share of the L1d cache: well
/// inside it, so the first point costs what the arithmetic costs.
pub const FROM_L1D: f64 = 0.5;
/// The largest working set of a sweep, as a multiple of the last-level
/// cache: far enough beyond it that most reads come from memory.
pub const TO_LLC: f64 = 4.0;
/// A sweep has at least this many unit counts (and one per doubling where
/// the span is wider).
pub const MIN_POINTS: usize = 8;
/// The fewest units a sweep starts from (a grid of fewer has too few
/// neighbors per unit to stand for the work).
pub const MIN_UNITS: usize = 64;
/// A curve "rises" at the first point whose cost per unit is at least this
/// many times its smallest working set's, beyond the noise ([`WsCurve::rise`]).
pub const RISE: f64 = 1.5;
/// Settling frames per unit count of the window's sweep (as the `caches`
/// lesson's file sets).
pub const SETTLE: usize = 2;
/// Counted frames per unit count and round of the window's sweep.
pub const FRAMES: usize = 3;
/// Rounds of the window's sweep: every unit count once per round.
pub const ROUNDS: usize = 3;

/// Units of the simulation that measures the working-set bytes per unit.
pub const PROBE_UNITS: usize = 20_000;
/// L1d and last-level sizes assumed where this machine reports none, bytes
/// (the classroom geometry of [`crate::measure::memory::cache_model::CLASSROOM`]).
const UNKNOWN_CACHES: (u64, u64) = (32 << 10, 8 << 20);

/// Measured working-set bytes per unit of `settings`' work (its layout,
/// order, strategy, workload, radius): one step of [`PROBE_UNITS`] units
/// on one thread, and [`working_set`] over the count. Allocates a
/// simulation (a few MB) and frees it.
pub fn bytes_per_unit(settings: &Settings) -> f64 {
    let s = Settings {
        units: PROBE_UNITS,
        threads: 1,
        ..settings.clone()
    };
    let mut sim = Simulation::new(&s);
    sim.step(1.0 / 60.0, &s);
    working_set(&sim).total() as f64 / PROBE_UNITS as f64
}

/// The unit counts of a sweep, and why its span is what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Ascending, at least two (one where `max_units` allows only one).
    pub units: Vec<usize>,
    /// The working-set bytes per unit the counts were chosen from.
    pub bytes_per_unit: f64,
    /// The working set the sweep aimed for at its top, bytes.
    pub target_bytes: u64,
    /// Where a limit kept the top below the target, or the caches are
    /// unknown: one sentence saying so.
    pub note: Option<String>,
}

/// Rounds `x` to two significant digits (1,234 to 1,200; 67 to 67).
fn two_digits(x: f64) -> usize {
    if x < 100.0 {
        return x.round().max(1.0) as usize;
    }
    let step = 10f64.powf(x.log10().floor() - 1.0);
    ((x / step).round() * step) as usize
}

/// The unit counts of a working-set sweep of work that takes
/// `bytes_per_unit` of working set per unit on `machine`: geometric from a
/// working set of [`FROM_L1D`] times the L1d cache to [`TO_LLC`] times the
/// last-level cache, each rounded to two significant digits, at least
/// [`MIN_POINTS`] of them and one per doubling where the span is wider; at
/// least [`MIN_UNITS`] and at most `max_units` (and [`MAX_UNITS`]), the
/// note saying where the cap keeps the top below the target. Unknown
/// caches are taken as 32 KiB and 8 MiB, said in the note. Allocates the
/// list.
pub fn unit_counts(bytes_per_unit: f64, machine: &Machine, max_units: Option<usize>) -> Span {
    let bpu = bytes_per_unit.max(1.0);
    let known = machine.levels();
    let (l1d, llc, unknown) = match (machine.l1d(), known.last()) {
        (Some(l1), Some(&(_, llc))) => (l1, llc, false),
        _ => (UNKNOWN_CACHES.0, UNKNOWN_CACHES.1, true),
    };
    let target_bytes = (TO_LLC * llc as f64) as u64;
    let cap = max_units.unwrap_or(MAX_UNITS).clamp(1, MAX_UNITS);
    let lo = ((FROM_L1D * l1d as f64 / bpu) as usize)
        .max(MIN_UNITS)
        .min(cap);
    let want_hi = (target_bytes as f64 / bpu).ceil() as usize;
    let hi = want_hi.min(cap).max(lo);
    let doublings = (hi as f64 / lo as f64).log2();
    let n = (doublings.ceil() as usize + 1).max(MIN_POINTS);
    let mut units: Vec<usize> = (0..n)
        .map(|i| {
            let u = lo as f64 * (hi as f64 / lo as f64).powf(i as f64 / (n - 1) as f64);
            two_digits(u).clamp(1, cap)
        })
        .collect();
    units[0] = lo;
    if let Some(last) = units.last_mut() {
        *last = hi;
    }
    units.dedup();
    let reached = hi as f64 * bpu;
    let llc_name = machine.llc_text();
    let note = if unknown {
        Some(format!(
            "this machine's caches are unknown, so the sweep assumes an L1d of {} and a last-level cache of {}",
            size(UNKNOWN_CACHES.0),
            size(UNKNOWN_CACHES.1)
        ))
    } else if hi < want_hi {
        let what = if cap == MAX_UNITS {
            format!("the {}-unit limit", thousands(MAX_UNITS as u64))
        } else {
            format!("the cap of {} units", thousands(cap as u64))
        };
        Some(format!(
            "{what} keeps the largest working set at about {} = {}x this machine's {llc_name}, short of the {}x aimed for (which would take {} units)",
            size(reached as u64),
            crate::measure::verdict::ratio_text(reached / llc as f64),
            TO_LLC,
            thousands(want_hi as u64)
        ))
    } else {
        None
    };
    Span {
        units,
        bytes_per_unit: bpu,
        target_bytes,
        note,
    }
}

/// The variants of a sweep of `base` over `units`, labeled
/// "`label`, N units", in the order of `units`.
pub fn variants(label: &str, base: &Settings, units: &[usize]) -> Vec<Variant> {
    units
        .iter()
        .map(|&u| {
            Variant::new(
                format!("{label}, {} units", thousands(u as u64)),
                Settings {
                    units: u,
                    ..base.clone()
                },
            )
        })
        .collect()
}

/// Where a curve rises ([`WsCurve::rise`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rise<'a> {
    /// At this point.
    At(&'a WsPoint),
    /// Nowhere: no point costs [`RISE`] times the first beyond the noise.
    Flat,
    /// The rounds are fewer than [`MIN_ROUNDS`] (or there is no point):
    /// no rise can be told from noise.
    TooFewRounds,
}

/// The plan of the window's sweep of `base` over `span`'s unit counts
/// ([`variants`] labeled `label`): [`ROUNDS`] rounds of [`SETTLE`] then
/// [`FRAMES`] frames, with the compare panel's guards (a count whose frame
/// would take over a minute is skipped, a slow one measured over fewer
/// frames) and `bench`'s naive predictor.
pub fn plan(label: &str, base: &Settings, span: &Span) -> super::Plan {
    super::Plan::new(
        variants(label, base, &span.units),
        super::Spec::new(SETTLE, FRAMES),
        crate::measure::Guards::INTERACTIVE,
    )
    .with_predictor(crate::measure::predict::naive_predictor(
        base.seed,
        base.workload,
    ))
    .with_rounds(ROUNDS)
}

/// One measured unit count of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WsPoint {
    /// Units.
    pub units: usize,
    /// The query's working set after the last counted frame, bytes
    /// ([`working_set`]).
    pub working_set_bytes: u64,
    /// Query phase ns per unit: the median of the round medians.
    pub ns_per_unit: f64,
    /// The smallest and largest round median, ns per unit.
    pub ns_per_unit_range: (f64, f64),
    /// Query phase ns per candidate test: the median of the round medians.
    pub ns_per_candidate: f64,
    /// The smallest and largest round median, ns per candidate test.
    pub ns_per_candidate_range: (f64, f64),
    /// Each round's ns per unit, in the order measured (for verdicts).
    pub rounds_ns_per_unit: Vec<f64>,
    /// Each round's ns per candidate test, in the order measured.
    pub rounds_ns_per_candidate: Vec<f64>,
}

impl WsPoint {
    /// The point of measurement `m` (its query phase over its units and
    /// candidates).
    pub fn of(m: &Measurement) -> WsPoint {
        let units = m.settings.units.max(1) as f64;
        let per_unit: Vec<f64> = m
            .rounds
            .iter()
            .map(|r| r.median_ms.query * 1e6 / units)
            .collect();
        let per_candidate: Vec<f64> = m
            .rounds
            .iter()
            .map(|r| r.median_ms.query * 1e6 / r.candidates.max(1) as f64)
            .collect();
        let spread = |v: &[f64]| {
            let s = crate::measure::Spread::of(&mut v.to_vec());
            (s.median, (s.min, s.max))
        };
        let (ns_per_unit, ns_per_unit_range) = spread(&per_unit);
        let (ns_per_candidate, ns_per_candidate_range) = spread(&per_candidate);
        WsPoint {
            units: m.settings.units,
            working_set_bytes: m.working_set.total(),
            ns_per_unit,
            ns_per_unit_range,
            ns_per_candidate,
            ns_per_candidate_range,
            rounds_ns_per_unit: per_unit,
            rounds_ns_per_candidate: per_candidate,
        }
    }
}

/// A finished working-set sweep: its points ascending by units, what was
/// skipped and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WsCurve {
    /// What was swept ("SoA, spawn order").
    pub label: String,
    /// The layout swept.
    #[serde(skip)]
    pub layout: Layout,
    /// The memory order swept.
    #[serde(skip)]
    pub reorder: Reorder,
    /// The measured counts, ascending.
    pub points: Vec<WsPoint>,
    /// Counts not measured: (units, why).
    pub skipped: Vec<(usize, String)>,
    /// Why the span stops where it does, when a limit or unknown caches
    /// set it ([`Span::note`]).
    pub note: Option<String>,
    /// The outcomes it came from, ascending by units (for tables and rows).
    #[serde(skip)]
    pub outcomes: Vec<Outcome>,
}

impl WsCurve {
    /// The curve of the outcomes of one sweep's variants (in any order),
    /// labeled `label`, with `note` from its [`Span`]. The layout and order
    /// are the first outcome's (Grid / SoA where there is none).
    pub fn of<'a>(
        label: &str,
        outcomes: impl IntoIterator<Item = &'a Outcome>,
        note: Option<String>,
    ) -> WsCurve {
        let mut points = Vec::new();
        let mut skipped = Vec::new();
        let mut work = None;
        let mut kept: Vec<Outcome> = outcomes.into_iter().cloned().collect();
        kept.sort_by_key(|o| o.settings().units);
        for o in &kept {
            work.get_or_insert_with(|| o.settings().clone());
            match o {
                Outcome::Measured(m) => points.push(WsPoint::of(m)),
                Outcome::Skipped(s) => skipped.push((s.settings.units, s.why.clone())),
            }
        }
        points.sort_by_key(|p| p.units);
        skipped.sort_by_key(|s| s.0);
        let work = work.unwrap_or_default();
        WsCurve {
            label: label.to_string(),
            layout: work.layout,
            reorder: work.reorder,
            points,
            skipped,
            note,
            outcomes: kept,
        }
    }

    /// The point with the smallest working set.
    pub fn first(&self) -> Option<&WsPoint> {
        self.points.first()
    }

    /// The point with the largest working set.
    pub fn last(&self) -> Option<&WsPoint> {
        self.points.last()
    }

    /// Where the curve rises: the first point whose median ns per unit is
    /// at least [`RISE`] times the first point's and whose every round is
    /// slower than every round of the first ([`judge`]).
    pub fn rise(&self) -> Rise<'_> {
        let Some(first) = self.first() else {
            return Rise::TooFewRounds;
        };
        if first.rounds_ns_per_unit.len() < MIN_ROUNDS {
            return Rise::TooFewRounds;
        }
        let at = self.points.iter().skip(1).find(|p| {
            p.ns_per_unit >= RISE * first.ns_per_unit
                && judge(&first.rounds_ns_per_unit, &p.rounds_ns_per_unit, false)
                    .is_some_and(|j| j.verdict == Direction::AFaster)
        });
        at.map_or(Rise::Flat, Rise::At)
    }

    /// The largest point's ns per unit over the smallest's (medians);
    /// `None` with fewer than two points.
    pub fn growth(&self) -> Option<f64> {
        match (self.first(), self.last()) {
            (Some(a), Some(b)) if self.points.len() >= 2 && a.ns_per_unit > 0.0 => {
                Some(b.ns_per_unit / a.ns_per_unit)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epyc() -> Machine {
        Machine::from_sysctl(
            Some("AMD EPYC"),
            [Some("49152"), Some("1048576"), Some("33554432")],
            2,
        )
    }

    #[test]
    fn counts_span_l1d_to_four_llc_geometrically() {
        let m = epyc();
        let s = unit_counts(78.0, &m, None);
        assert!(s.units.len() >= MIN_POINTS, "{:?}", s.units);
        assert!(s.units.windows(2).all(|w| w[0] < w[1]), "{:?}", s.units);
        let lo = s.units[0] as f64 * 78.0;
        assert!(lo <= 49152.0 * FROM_L1D + 78.0, "{lo}");
        // 4 x 32 MiB at 78 B/unit is 1.72M units: the limit caps it.
        assert_eq!(*s.units.last().unwrap(), MAX_UNITS);
        let note = s.note.expect("the cap is stated");
        assert!(note.contains("1,000,000-unit limit"), "{note}");
        assert!(note.contains("2.3x"), "{note}");
        // Successive counts grow by at most a little over 2x (one per doubling).
        assert!(
            s.units.windows(2).all(|w| w[1] as f64 / w[0] as f64 <= 2.2),
            "{:?}",
            s.units
        );
    }

    #[test]
    fn a_small_cache_reaches_four_times_it() {
        let m = Machine::from_sysctl(Some("x"), [Some("32768"), Some("262144"), None], 1);
        let s = unit_counts(50.0, &m, None);
        assert_eq!(s.note, None);
        let top = *s.units.last().unwrap() as f64 * 50.0;
        assert!(top >= 4.0 * 262144.0, "{top}");
        assert!(s.units.len() >= MIN_POINTS);
        assert_eq!(s.units[0], 327);
    }

    #[test]
    fn caps_and_unknown_caches_are_said() {
        let m = epyc();
        let s = unit_counts(22.0, &m, Some(5_000));
        assert_eq!(*s.units.last().unwrap(), 5_000);
        assert!(s.note.unwrap().contains("the cap of 5,000 units"));
        let none = Machine::from_sysctl(None, [None, None, None], 1);
        let s = unit_counts(22.0, &none, None);
        assert!(s.note.unwrap().contains("caches are unknown"));
        assert!(s.units.len() >= MIN_POINTS);
        // A cap below the smallest count leaves one point, never a panic.
        let s = unit_counts(22.0, &m, Some(10));
        assert_eq!(s.units, vec![10]);
    }

    fn point(units: usize, rounds: &[f64]) -> WsPoint {
        let s = crate::measure::Spread::of(&mut rounds.to_vec());
        WsPoint {
            units,
            working_set_bytes: units as u64 * 20,
            ns_per_unit: s.median,
            ns_per_unit_range: (s.min, s.max),
            ns_per_candidate: s.median / 40.0,
            ns_per_candidate_range: (s.min / 40.0, s.max / 40.0),
            rounds_ns_per_unit: rounds.to_vec(),
            rounds_ns_per_candidate: rounds.iter().map(|r| r / 40.0).collect(),
        }
    }

    fn curve(points: Vec<WsPoint>) -> WsCurve {
        WsCurve {
            label: "c".into(),
            layout: Layout::Soa,
            reorder: Reorder::Off,
            points,
            skipped: Vec::new(),
            note: None,
            outcomes: Vec::new(),
        }
    }

    #[test]
    fn the_rise_is_the_first_point_at_one_and_a_half_times_beyond_the_noise() {
        let c = curve(vec![
            point(100, &[100.0, 102.0, 104.0]),
            point(200, &[120.0, 125.0, 130.0]),
            // 1.5x by the median, but a round overlaps the first's: noise.
            point(400, &[103.0, 160.0, 170.0]),
            point(800, &[150.0, 156.0, 158.0]),
            point(1600, &[400.0, 410.0, 420.0]),
        ]);
        assert_eq!(c.rise(), Rise::At(&c.points[3]));
        assert!((c.growth().unwrap() - 410.0 / 102.0).abs() < 1e-12);
        let flat = curve(vec![
            point(100, &[100.0, 102.0, 104.0]),
            point(200, &[110.0, 140.0, 149.0]),
        ]);
        assert_eq!(flat.rise(), Rise::Flat);
        let one = curve(vec![point(100, &[100.0]), point(200, &[900.0])]);
        assert_eq!(one.rise(), Rise::TooFewRounds);
        assert_eq!(curve(Vec::new()).rise(), Rise::TooFewRounds);
        assert_eq!(curve(Vec::new()).growth(), None);
    }

    #[test]
    fn two_significant_digits() {
        assert_eq!(two_digits(1234.0), 1200);
        assert_eq!(two_digits(67.4), 67);
        assert_eq!(two_digits(155_555.0), 160_000);
        assert_eq!(two_digits(0.2), 1);
    }
}
