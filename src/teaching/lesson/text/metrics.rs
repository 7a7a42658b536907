//! What a lesson text's references name: the metrics of the steps, the
//! machine and the lesson ([`METRICS`], [`GLOBALS`]), their values in a run
//! ([`Context::value`]) and, for verdicts, their value in each round
//! ([`Context::rounds`]).

use std::collections::HashSet;

use super::Kind;
use crate::format::size;
use crate::measure::machine::Machine;
use crate::measure::memory::modeled::Modeled;
use crate::measure::sweep::CellSweep;
use crate::measure::verdict::{judge, Direction};
use crate::measure::working_set_sweep::{self as ws, WsCurve, WsPoint};
use crate::measure::{Measurement, Outcome};
use crate::settings::view::Geometry;
use crate::settings::view::{NormalPrecision, VertexLayout};
use crate::teaching::lesson::{LessonRun, StepResult};

/// Directions the normal error is taken over ([`NormalPrecision::sphere_error_deg`]).
pub const NORMAL_DIRECTIONS: usize = 4096;

/// Every metric a placeholder may name: (name, kind, what it is). Row
/// metrics come from the step's measurement (a sweep step's: its fastest
/// cell size); the vertex metrics from the step's vertex layout and normal
/// bits; the `sweep_` metrics only from a sweep step, the `ws_` metrics
/// only from a working-set sweep step; the `model_` ones from the cache
/// model of the step's query phase (the same on every run; the lesson's
/// `cache_model` geometry).
pub const METRICS: [(&str, Kind, &str); 51] = [
    ("query_ms", Kind::Ms, "median query phase (of the round medians), ms"),
    ("total_ms", Kind::Ms, "median whole step (of the round medians), ms"),
    ("move_ms", Kind::Ms, "median move phase (of the round medians), ms"),
    ("rebuild_ms", Kind::Ms, "median index rebuild (of the round medians), ms"),
    (
        "apply_ms",
        Kind::Ms,
        "median apply phase (steering from the results; of the round medians), ms",
    ),
    ("query_min_ms", Kind::Ms, "fastest counted query phase of any round, ms"),
    ("query_max_ms", Kind::Ms, "slowest counted query phase of any round, ms"),
    (
        "candidates_per_unit",
        Kind::Mean,
        "units run through the distance test per unit (last counted frame)",
    ),
    (
        "neighbors_per_unit",
        Kind::Mean,
        "neighbors found per unit (last counted frame)",
    ),
    (
        "candidates_per_neighbor",
        Kind::Mean,
        "distance tests per neighbor found",
    ),
    (
        "neighbors",
        Kind::Count,
        "neighbors found in the last counted frame, summed over the units (each pair counted from both sides)",
    ),
    (
        "candidates",
        Kind::Count,
        "distance tests in the last counted frame",
    ),
    ("units", Kind::Count, "unit count"),
    ("threads", Kind::Count, "threads that ran"),
    ("cell", Kind::Fixed2, "grid cell edge, world units"),
    ("cell_over_r", Kind::Fixed2, "cell edge / query radius"),
    (
        "result_bytes",
        Kind::Bytes,
        "bytes of query results written in the last counted frame",
    ),
    (
        "working_set",
        Kind::Bytes,
        "bytes the step reads: units, index, results",
    ),
    (
        "working_set_fit",
        Kind::Words,
        "where the working set sits in this machine's caches",
    ),
    ("frames", Kind::Count, "counted frames per round"),
    (
        "allocations",
        Kind::Count,
        "heap allocations over one round's counted frames, the most of any round (not run when they could not be counted)",
    ),
    (
        "deaths",
        Kind::Count,
        "units that died over the last round's counted frames (battle)",
    ),
    (
        "spawns",
        Kind::Count,
        "reinforcements spawned over the last round's counted frames (battle)",
    ),
    ("strategy", Kind::Words, "strategy name"),
    ("kernel", Kind::Words, "kernel name"),
    ("layout", Kind::Words, "unit layout name"),
    (
        "bytes_per_vertex",
        Kind::Count,
        "bytes per vertex of the step's vertex layout",
    ),
    (
        "bytes_per_instance",
        Kind::Count,
        "bytes per instance of the step's vertex layout",
    ),
    (
        "normal_error_max",
        Kind::Degrees,
        "largest octahedral normal error at the step's normal bits, degrees",
    ),
    (
        "normal_error_mean",
        Kind::Degrees,
        "mean octahedral normal error at the step's normal bits, degrees",
    ),
    (
        "sweep_best_cell_over_r",
        Kind::Fixed2,
        "cell / r of the sweep's fastest query",
    ),
    (
        "sweep_cpn_at_r",
        Kind::Mean,
        "distance tests per neighbor at cell = r (sweep)",
    ),
    (
        "sweep_cpn_at_max",
        Kind::Mean,
        "distance tests per neighbor at the sweep's largest cell",
    ),
    (
        "sweep_best_cells",
        Kind::Words,
        "the cell sizes (cell / r) whose query the fastest one does not beat beyond this machine's noise: \"1.00 r\" or \"0.79 r to 1.26 r\"",
    ),
    (
        "sweep_cpn_peak",
        Kind::Mean,
        "the most distance tests per neighbor at any cell size of the sweep",
    ),
    (
        "sweep_cpn_peak_at",
        Kind::Fixed2,
        "cell / r where the sweep tested the most per neighbor",
    ),
    (
        "ws_points",
        Kind::Count,
        "unit counts the working-set sweep measured",
    ),
    (
        "ws_span",
        Kind::Words,
        "the working sets the sweep spans and where they sit in this machine's caches (and the limit that stopped it short, if one did)",
    ),
    (
        "ws_first_working_set",
        Kind::Bytes,
        "the sweep's smallest working set",
    ),
    (
        "ws_last_working_set",
        Kind::Bytes,
        "the sweep's largest working set",
    ),
    (
        "ws_first_ns_per_unit",
        Kind::Ns,
        "query ns per unit at the sweep's smallest working set (median of the round medians)",
    ),
    (
        "ws_last_ns_per_unit",
        Kind::Ns,
        "query ns per unit at the sweep's largest working set",
    ),
    (
        "ws_first_ns_per_candidate",
        Kind::Ns,
        "query ns per distance test at the sweep's smallest working set",
    ),
    (
        "ws_last_ns_per_candidate",
        Kind::Ns,
        "query ns per distance test at the sweep's largest working set",
    ),
    (
        "ws_rise",
        Kind::Words,
        "the first working set whose median cost per unit is at least 1.5x the smallest's, every round above every round of the smallest (or that none is)",
    ),
    (
        "model_lines",
        Kind::Mean,
        "distinct cache lines a query reads or writes (cache model)",
    ),
    (
        "model_l1d_misses",
        Kind::Mean,
        "modeled L1d misses per query",
    ),
    (
        "model_l2_misses",
        Kind::Mean,
        "modeled L2 misses per query",
    ),
    (
        "model_llc_misses",
        Kind::Mean,
        "modeled last-level cache misses per query",
    ),
    (
        "model_bytes_per_candidate",
        Kind::Mean,
        "bytes the model brings into L1d per distance test",
    ),
    (
        "model_geometry",
        Kind::Words,
        "the caches the model simulates: this machine's or the classroom's, with their sizes",
    ),
];

/// The global references: (name, kind).
pub const GLOBALS: [(&str, Kind); 7] = [
    ("machine.cpu", Kind::Words),
    ("machine.cores", Kind::Count),
    ("machine.llc", Kind::Words),
    ("lesson.units", Kind::Count),
    ("lesson.units_why", Kind::Words),
    ("lesson.rounds", Kind::Count),
    ("lesson.frames", Kind::Count),
];

/// What a reference names.
#[derive(Clone, Debug, PartialEq)]
pub enum Ref {
    /// A metric (index into [`METRICS`]) of the step with this id.
    Step(String, usize),
    /// A global (index into [`GLOBALS`]: `machine.*`, `lesson.*`).
    Global(usize),
}

impl Ref {
    /// The kind of value it names.
    pub fn kind(&self) -> Kind {
        match self {
            Ref::Step(_, m) => METRICS[*m].1,
            Ref::Global(g) => GLOBALS[*g].1,
        }
    }

    /// Its owner and metric as the JSON exports name them: (`grid`,
    /// `query_ms`), (`machine`, `cores`).
    pub fn names(&self) -> (String, String) {
        match self {
            Ref::Step(id, m) => (id.clone(), METRICS[*m].0.to_string()),
            Ref::Global(g) => {
                let (owner, name) = GLOBALS[*g].0.split_once('.').unwrap_or(("", GLOBALS[*g].0));
                (owner.to_string(), name.to_string())
            }
        }
    }
}

/// A metric's index in [`METRICS`].
pub fn metric(name: &str) -> Option<usize> {
    METRICS.iter().position(|m| m.0 == name)
}

/// True for the metrics that differ from round to round (times); the
/// others are counts of the same frames, the same in every round.
pub fn varies(name: &str) -> bool {
    name.ends_with("_ms") || name.ends_with("_ns_per_unit") || name.ends_with("_ns_per_candidate")
}

/// Reference `r` of a text: `this` is the id of the step whose text it is
/// (`None` in the conclusion), `known` the ids of it and the steps before.
///
/// # Errors
/// What is wrong with it, for the lesson file's message.
pub fn parse_ref(r: &str, known: &HashSet<&str>, this: Option<&str>) -> Result<Ref, String> {
    let r = r.trim();
    if r.is_empty() {
        return Err("a reference is missing: write STEP.METRIC (or METRIC for this step's)".into());
    }
    if let Some(g) = GLOBALS.iter().position(|g| g.0 == r) {
        return Ok(Ref::Global(g));
    }
    let (step, name) = match r.split_once('.') {
        Some((s, m)) => (s.trim(), m.trim()),
        None => match this {
            Some(id) => (id, r),
            None => {
                return Err(format!(
                    "\"{r}\" needs a step: write STEP.{r} (the conclusion belongs to no step)"
                ))
            }
        },
    };
    if step == "machine" || step == "lesson" {
        let names: Vec<&str> = GLOBALS.iter().map(|g| g.0).collect();
        return Err(format!("\"{r}\" is not one of {}", names.join(", ")));
    }
    if !known.contains(step) {
        return Err(format!(
            "\"{step}\" is not the id of this step or an earlier one"
        ));
    }
    let m = metric(name).ok_or_else(|| {
        let names: Vec<&str> = METRICS.iter().map(|m| m.0).collect();
        format!("\"{name}\" is not a metric; one of {}", names.join(", "))
    })?;
    Ok(Ref::Step(step.to_string(), m))
}

/// A value as rendered.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number (already divided for a ratio).
    Number(f64),
    /// Words.
    Words(String),
    /// A verdict on two references' rounds ([`crate::measure::verdict`]).
    Verdict(Box<crate::measure::verdict::Verdict>),
    /// Not measured yet.
    Pending,
    /// The step did not run (or the metric does not apply to it).
    NotRun,
}

/// A reference's value in each round, for verdicts.
#[derive(Clone, Debug, PartialEq)]
pub enum Rounds {
    /// Not measured yet.
    Pending,
    /// The step did not run, or the metric has no number.
    NotRun,
    /// The values, one per round (one for a value that does not vary);
    /// `exact` for counts that the same frames reproduce exactly; `group`
    /// names the measurement that made them (references of one group were
    /// measured interleaved).
    Values {
        /// One per round.
        values: Vec<f64>,
        /// Counts, not times.
        exact: bool,
        /// The measurement: 0 for the lesson's row steps, 1 + k for the
        /// sweep of step k, `usize::MAX` for values measured by nothing.
        group: usize,
    },
}

/// What a template reads: the run's results and the machine.
pub struct Context<'a> {
    run: &'a LessonRun,
    machine: &'a Machine,
}

impl<'a> Context<'a> {
    /// The context of `run` on this machine.
    pub fn of(run: &'a LessonRun) -> Self {
        Context {
            run,
            machine: Machine::current(),
        }
    }

    /// The index of the step with id `id`.
    fn step(&self, id: &str) -> Option<usize> {
        self.run.lesson().steps.iter().position(|s| s.id == id)
    }

    /// Whether the step with id `id` runs here: not refused by
    /// [`LessonRun::cannot_run`] and, once measured, not skipped by a guard.
    pub fn ran(&self, id: &str) -> bool {
        let Some(k) = self.step(id) else {
            return false;
        };
        if self.run.cannot_run(k).is_some() {
            return false;
        }
        self.run.skipped(k).is_none()
    }

    /// The value of reference `r`.
    pub fn value(&self, r: &Ref) -> Value {
        match r {
            Ref::Global(g) => self.global(GLOBALS[*g].0),
            Ref::Step(id, m) => match self.step(id) {
                Some(k) => step_metric(self.run, k, METRICS[*m].0, self.machine),
                None => Value::NotRun,
            },
        }
    }

    /// The value of reference `r` in each round.
    pub fn rounds(&self, r: &Ref) -> Rounds {
        let (k, name) = match r {
            Ref::Step(id, m) => match self.step(id) {
                Some(k) => (k, METRICS[*m].0),
                None => return Rounds::NotRun,
            },
            Ref::Global(_) => {
                return match self.value(r) {
                    Value::Number(x) => Rounds::Values {
                        values: vec![x],
                        exact: true,
                        group: usize::MAX,
                    },
                    _ => Rounds::NotRun,
                }
            }
        };
        let group = match self.run.result(k) {
            Some(StepResult::Sweep(_)) => 1 + k,
            _ => 0,
        };
        if let (Some(metric), true) = (name.strip_prefix("ws_"), varies(name)) {
            return match self.run.result(k) {
                None => Rounds::Pending,
                Some(StepResult::WorkingSet(c)) => match ws_point_rounds(c, metric) {
                    Some(values) if !values.is_empty() => Rounds::Values {
                        values,
                        exact: false,
                        group,
                    },
                    _ => Rounds::NotRun,
                },
                Some(_) => Rounds::NotRun,
            };
        }
        let one = |v: Value| match v {
            Value::Number(x) => Rounds::Values {
                values: vec![x],
                exact: true,
                group,
            },
            Value::Pending => Rounds::Pending,
            _ => Rounds::NotRun,
        };
        if !varies(name)
            || name.starts_with("sweep_")
            || name == "query_min_ms"
            || name == "query_max_ms"
        {
            return one(step_metric(self.run, k, name, self.machine));
        }
        match self.run.result(k).map(StepResult::outcome) {
            None => Rounds::Pending,
            Some(Some(Outcome::Measured(m))) => {
                let values = round_values(&m, name);
                if values.is_empty() {
                    Rounds::NotRun
                } else {
                    Rounds::Values {
                        values,
                        exact: false,
                        group,
                    }
                }
            }
            Some(_) => Rounds::NotRun,
        }
    }

    fn global(&self, name: &str) -> Value {
        let m = self.machine;
        match name {
            "machine.cpu" => Value::Words(m.cpu.clone()),
            "machine.cores" => Value::Number(m.cores as f64),
            "machine.llc" => Value::Words(m.llc_text()),
            "lesson.units" => match self.run.unit_choice() {
                Some(c) => Value::Number(c.units as f64),
                None => Value::NotRun,
            },
            "lesson.units_why" => match self.run.unit_choice() {
                Some(c) => Value::Words(c.why.clone()),
                None => Value::NotRun,
            },
            "lesson.rounds" => Value::Number(self.run.rounds() as f64),
            "lesson.frames" => Value::Number(self.run.spec().frames as f64),
            _ => Value::NotRun,
        }
    }
}

/// Each round's value of time metric `name` of `m` (empty for a metric
/// that is not a phase time).
fn round_values(m: &Measurement, name: &str) -> Vec<f64> {
    let pick: fn(&crate::measure::spread::PhaseMs) -> f64 = match name {
        "query_ms" => |p| p.query,
        "total_ms" => |p| p.total,
        "move_ms" => |p| p.move_,
        "rebuild_ms" => |p| p.rebuild,
        "apply_ms" => |p| p.apply,
        _ => return Vec::new(),
    };
    m.rounds.iter().map(|r| pick(&r.median_ms)).collect()
}

/// The cell sizes (cell / r, ascending) of `sw` whose query the fastest
/// point's does not beat beyond the machine's noise (its rounds do not all
/// lie below theirs): the fastest itself and every point within noise of it.
pub fn best_cells(sw: &CellSweep) -> Vec<f32> {
    let Some(best) = sw.best() else {
        return Vec::new();
    };
    sw.points()
        .iter()
        .filter(|p| {
            p.cell_size == best.cell_size
                || judge(&best.query_rounds, &p.query_rounds, false)
                    .is_none_or(|j| j.verdict != Direction::AFaster)
        })
        .map(|p| p.ratio)
        .collect()
}

/// "1.00 r" or "0.79 r to 1.26 r": the range of `cells` (cell / r,
/// ascending, not empty).
pub fn cells_text(cells: &[f32]) -> String {
    let l = crate::format::length;
    match (cells.first(), cells.last()) {
        (Some(a), Some(b)) if a != b => format!("{} r to {} r", l(*a), l(*b)),
        (Some(a), _) => format!("{} r", l(*a)),
        _ => String::new(),
    }
}

/// Metric `name` of step `k` of `run`: from its view (vertex metrics), its
/// sweep (`sweep_*`) or its measurement.
pub fn step_metric(run: &LessonRun, k: usize, name: &str, machine: &Machine) -> Value {
    let view = run.view(k);
    let layout = view.vertex_layout.unwrap_or(VertexLayout::Compressed);
    let bits = view.normal_bits.unwrap_or(NormalPrecision::Oct16);
    match name {
        "bytes_per_vertex" => return Value::Number(layout.vertex_bytes() as f64),
        "bytes_per_instance" => return Value::Number(layout.instance_bytes() as f64),
        "normal_error_max" => return Value::Number(bits.sphere_error_deg(NORMAL_DIRECTIONS).0),
        "normal_error_mean" => return Value::Number(bits.sphere_error_deg(NORMAL_DIRECTIONS).1),
        _ => {}
    }
    let Some(result) = run.result(k) else {
        return Value::Pending;
    };
    if let Some(metric) = name.strip_prefix("model_") {
        return match run.model(k) {
            Some(m) => model_metric(m, metric),
            None if run.cannot_run(k).is_some() => Value::NotRun,
            None if result.outcome().is_some_and(|o| o.measured().is_none()) => Value::NotRun,
            None => Value::Pending,
        };
    }
    if let Some(metric) = name.strip_prefix("ws_") {
        return match result {
            StepResult::WorkingSet(c) => ws_metric(c, metric, machine),
            _ => Value::NotRun,
        };
    }
    if let Some(sweep_metric) = name.strip_prefix("sweep_") {
        let StepResult::Sweep(sw) = result else {
            return Value::NotRun;
        };
        let pts = sw.points();
        let at = |ratio: f32| {
            pts.iter()
                .min_by(|a, b| (a.ratio - ratio).abs().total_cmp(&(b.ratio - ratio).abs()))
        };
        let peak = pts.iter().max_by(|a, b| {
            a.candidates_per_neighbor
                .total_cmp(&b.candidates_per_neighbor)
        });
        let v = match sweep_metric {
            "best_cell_over_r" => sw.best().map(|p| p.ratio as f64),
            "cpn_at_r" => at(1.0).map(|p| p.candidates_per_neighbor),
            "cpn_at_max" => pts.last().map(|p| p.candidates_per_neighbor),
            "cpn_peak" => peak.map(|p| p.candidates_per_neighbor),
            "cpn_peak_at" => peak.map(|p| p.ratio as f64),
            "best_cells" => {
                let cells = best_cells(sw);
                return match cells.len() {
                    0 => Value::NotRun,
                    1 => Value::Words(cells_text(&cells)),
                    _ => Value::Words(format!(
                        "{} (each within this machine's noise of the fastest)",
                        cells_text(&cells)
                    )),
                };
            }
            _ => None,
        };
        return v.map_or(Value::NotRun, Value::Number);
    }
    match result.outcome() {
        Some(Outcome::Measured(m)) => measured(&m, name, machine),
        Some(Outcome::Skipped(_)) | None => Value::NotRun,
    }
}

/// Row metric `name` of measurement `m`.
fn measured(m: &Measurement, name: &str, machine: &Machine) -> Value {
    let units = m.settings.units.max(1) as f64;
    let n = |x: f64| Value::Number(x);
    match name {
        "query_ms" => n(m.ms.query.median),
        "total_ms" => n(m.ms.total.median),
        "move_ms" => n(m.ms.move_.median),
        "rebuild_ms" => n(m.ms.rebuild.median),
        "apply_ms" => n(m.ms.apply.median),
        "query_min_ms" => n(m.frame_ms.query.min),
        "query_max_ms" => n(m.frame_ms.query.max),
        "candidates_per_unit" => n(m.candidates as f64 / units),
        "neighbors_per_unit" => n(m.neighbors as f64 / units),
        "candidates_per_neighbor" => n(m.candidates_per_neighbor()),
        "neighbors" => n(m.neighbors as f64),
        "candidates" => n(m.candidates as f64),
        "units" => n(m.settings.units as f64),
        "threads" => n(m.threads as f64),
        "cell" => m.cell_size.map_or(Value::NotRun, |c| n(c as f64)),
        "cell_over_r" => m.cell_over_r().map_or(Value::NotRun, n),
        "result_bytes" => n(m.result_bytes as f64),
        "working_set" => n(m.working_set.total() as f64),
        "working_set_fit" => Value::Words(machine.fit(m.working_set.total())),
        "frames" => n(m.frames as f64),
        "allocations" => m.allocations.map_or(Value::NotRun, |a| n(a as f64)),
        "deaths" => n(m.deaths as f64),
        "spawns" => n(m.spawns as f64),
        "strategy" => Value::Words(m.settings.strategy.name().to_string()),
        "kernel" => Value::Words(m.settings.kernel.name().to_string()),
        "layout" => Value::Words(m.settings.layout.name().to_string()),
        _ => Value::NotRun,
    }
}

/// Each round's value of time metric `metric` (`ws_` stripped:
/// `first_ns_per_unit`, ...) of curve `c`; `None` for another metric or an
/// empty curve.
fn ws_point_rounds(c: &WsCurve, metric: &str) -> Option<Vec<f64>> {
    let (end, what) = metric.split_once('_')?;
    let p = match end {
        "first" => c.first()?,
        "last" => c.last()?,
        _ => return None,
    };
    match what {
        "ns_per_unit" => Some(p.rounds_ns_per_unit.clone()),
        "ns_per_candidate" => Some(p.rounds_ns_per_candidate.clone()),
        _ => None,
    }
}

/// Working-set sweep metric `metric` (`ws_` stripped) of curve `c`.
fn ws_metric(c: &WsCurve, metric: &str, machine: &Machine) -> Value {
    let n = Value::Number;
    let (Some(first), Some(last)) = (c.first(), c.last()) else {
        return Value::NotRun;
    };
    let at = |p: &WsPoint| {
        format!(
            "{} ({})",
            size(p.working_set_bytes),
            machine.fit(p.working_set_bytes)
        )
    };
    match metric {
        "points" => n(c.points.len() as f64),
        "span" => {
            let mut t = format!("from {} to {}", at(first), at(last));
            if let Some(note) = &c.note {
                t += &format!("; {note}");
            }
            Value::Words(t)
        }
        "first_working_set" => n(first.working_set_bytes as f64),
        "last_working_set" => n(last.working_set_bytes as f64),
        "first_ns_per_unit" => n(first.ns_per_unit),
        "last_ns_per_unit" => n(last.ns_per_unit),
        "first_ns_per_candidate" => n(first.ns_per_candidate),
        "last_ns_per_candidate" => n(last.ns_per_candidate),
        "rise" => match c.rise() {
            ws::Rise::At(p) => Value::Words(format!(
                "at {}: {}x, every round above every round at the smallest",
                at(p),
                super::ratio_text(p.ns_per_unit / first.ns_per_unit)
            )),
            ws::Rise::Flat => Value::Words(format!(
                "nowhere in the sweep, beyond this machine's noise (up to {})",
                size(last.working_set_bytes)
            )),
            ws::Rise::TooFewRounds => Value::Words(format!(
                "not placed, since fewer than {} rounds cannot tell it from noise",
                crate::measure::verdict::MIN_ROUNDS
            )),
        },
        _ => Value::NotRun,
    }
}

/// Cache-model metric `metric` (`model_` stripped) of `m`.
fn model_metric(m: &Modeled, metric: &str) -> Value {
    let level = |i: usize| m.misses.get(i).copied();
    let v = match metric {
        "lines" => Some(m.lines_touched),
        "l1d_misses" => level(0),
        "l2_misses" => level(1),
        "llc_misses" => m.misses.last().copied(),
        "bytes_per_candidate" => Some(m.bytes_in_per_candidate),
        "geometry" => {
            let levels: Vec<String> = m
                .levels
                .iter()
                .zip(["L1d", "L2", "L3"])
                .map(|(l, name)| format!("{name} {} {}-way", size(l.bytes as u64), l.ways))
                .collect();
            let whose = match m.geometry {
                g if g.falls_back() => "the classroom caches (this machine reports none)",
                Geometry::Machine => "this machine's caches",
                Geometry::Classroom => "the classroom caches",
            };
            return Value::Words(format!("{whose} ({})", levels.join(", ")));
        }
        _ => None,
    };
    v.map_or(Value::NotRun, Value::Number)
}
