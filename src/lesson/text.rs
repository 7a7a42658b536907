//! Lesson texts with placeholders filled from what the steps measured.
//!
//! A placeholder is `{REF}` or `{REF / REF}` (a ratio), where `REF` is
//! - `STEP.METRIC`: a metric of the step with id `STEP` ([`METRICS`]);
//! - `METRIC`: the same metric of the step whose text it is;
//! - `machine.cpu`, `machine.cores`, `machine.llc` (the last-level cache:
//!   "L3 (32 MiB)");
//! - `lesson.units` (the count chosen from the cache) and `lesson.units_why`.
//!
//! `{{` and `}}` are literal braces. A value not measured yet is shown as
//! [`PENDING`]; one of a step that could not run as [`NOT_RUN`]. Numbers
//! are formatted by their kind ([`Kind`]), a ratio with two significant
//! digits (`58`, `3.4`).

use std::collections::HashSet;
use std::fmt::Write as _;

use toml::Spanned;

use super::{LessonRun, StepResult};
use crate::format::{length, size, thousands};
use crate::machine::Machine;
use crate::measure::{Measurement, Outcome};
use crate::scenario::{line_of, one_line_error, ScenarioError};
use crate::view::{NormalPrecision, VertexLayout};

/// Shown for a value not measured yet.
pub const PENDING: &str = "…";
/// Shown for a value of a step that did not run (the reason is the step's).
pub const NOT_RUN: &str = "(not run)";
/// Directions the normal error is taken over ([`NormalPrecision::sphere_error_deg`]).
pub const NORMAL_DIRECTIONS: usize = 4096;

/// How a metric's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Milliseconds: 3 significant digits, at most 3 decimals.
    Ms,
    /// A whole count with thousands separators.
    Count,
    /// A per-unit or per-frame mean: whole from 100 up, else 1 decimal.
    Mean,
    /// Two decimals (cell / r).
    Fixed2,
    /// Degrees: 3 significant digits.
    Degrees,
    /// Bytes as a size (`32 MiB`).
    Bytes,
    /// Words (a name, a cache's fit).
    Words,
}

/// Every metric a placeholder may name: (name, kind, what it is). Row
/// metrics come from the step's measurement (a sweep step's: its fastest
/// cell size); the vertex metrics from the step's vertex layout and normal
/// bits; the `sweep_` metrics only from a sweep step.
pub const METRICS: [(&str, Kind, &str); 33] = [
    ("query_ms", Kind::Ms, "median query phase, ms"),
    ("total_ms", Kind::Ms, "median whole step, ms"),
    ("move_ms", Kind::Ms, "median move phase, ms"),
    ("rebuild_ms", Kind::Ms, "median index rebuild, ms"),
    (
        "apply_ms",
        Kind::Ms,
        "median apply phase (steering from the results), ms",
    ),
    ("query_min_ms", Kind::Ms, "fastest counted query phase, ms"),
    ("query_max_ms", Kind::Ms, "slowest counted query phase, ms"),
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
        "neighbor pairs found in the last counted frame",
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
    ("frames", Kind::Count, "counted frames"),
    (
        "allocations",
        Kind::Count,
        "heap allocations over the counted frames (not run when they could not be counted)",
    ),
    (
        "deaths",
        Kind::Count,
        "units that died over the counted frames (battle)",
    ),
    (
        "spawns",
        Kind::Count,
        "reinforcements spawned over the counted frames (battle)",
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
];

/// The global references: (name, kind).
const GLOBALS: [(&str, Kind); 5] = [
    ("machine.cpu", Kind::Words),
    ("machine.cores", Kind::Count),
    ("machine.llc", Kind::Words),
    ("lesson.units", Kind::Count),
    ("lesson.units_why", Kind::Words),
];

/// What a reference names.
#[derive(Clone, Debug, PartialEq)]
pub enum Ref {
    /// A metric (index into [`METRICS`]) of the step with this id.
    Step(String, usize),
    /// A global (index into the globals: `machine.*`, `lesson.*`).
    Global(usize),
}

/// One part of a template.
#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    /// `{a}` or `{a / b}`, as written.
    Value(String, Ref, Option<Ref>),
}

/// A text with placeholders, parsed and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

/// A value as rendered.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number (already divided for a ratio).
    Number(f64),
    /// Words.
    Words(String),
    /// Not measured yet.
    Pending,
    /// The step did not run (or the metric does not apply to it).
    NotRun,
}

/// One piece of a rendered text.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Plain text.
    Text(String),
    /// A filled placeholder: as written (`grid.query_ms`), the value, and
    /// the value as shown.
    Value {
        /// The placeholder's expression, trimmed.
        expr: String,
        /// The value.
        value: Value,
        /// As shown in the text.
        shown: String,
    },
}

/// The pieces joined into one string.
pub fn plain(pieces: &[Piece]) -> String {
    let mut s = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => s += t,
            Piece::Value { shown, .. } => s += shown,
        }
    }
    s
}

/// A metric's index in [`METRICS`].
pub fn metric(name: &str) -> Option<usize> {
    METRICS.iter().position(|m| m.0 == name)
}

/// Reference `r` of a text: `this` is the id of the step whose text it is
/// (`None` in the conclusion), `known` the ids of it and the steps before.
fn parse_ref(r: &str, known: &HashSet<&str>, this: Option<&str>) -> Result<Ref, String> {
    let r = r.trim();
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

impl Template {
    /// Parses the text `v` of a lesson file (whose whole text is `text`,
    /// named `file`), checking every placeholder against the metrics and
    /// the step ids `known`; `this` is the id of the step it belongs to.
    ///
    /// # Errors
    /// One line naming the file, the placeholder's line and the `text`
    /// field: an unclosed `{`, a lone `}`, a metric or step that does not
    /// exist, or a ratio of words.
    pub fn parse(
        v: &Spanned<String>,
        text: &str,
        file: &str,
        known: &HashSet<&str>,
        this: Option<&str>,
    ) -> Result<Template, ScenarioError> {
        let body = v.get_ref();
        let span = v.span();
        // A multi-line string drops the newline after its opening quotes.
        let raw = text.get(span.clone()).unwrap_or("");
        let skip = usize::from(raw.starts_with("\"\"\"\n") || raw.starts_with("'''\n"));
        let field = if this.is_some() { "text" } else { "conclusion" };
        let fail = |at: usize, message: String| {
            let line = line_of(text, span.start) + skip + body[..at].matches('\n').count();
            let mut e = one_line_error(text, file, None, Some(field.to_string()), message);
            e.line = Some(line);
            e
        };
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut i = 0;
        let b = body.as_bytes();
        while i < b.len() {
            match b[i] {
                b'{' if b.get(i + 1) == Some(&b'{') => {
                    lit.push('{');
                    i += 2;
                }
                b'}' if b.get(i + 1) == Some(&b'}') => {
                    lit.push('}');
                    i += 2;
                }
                b'}' => {
                    return Err(fail(
                        i,
                        "a '}' without its '{' (write }} for a brace)".into(),
                    ))
                }
                b'{' => {
                    let end = body[i..].find('}').map(|e| i + e).ok_or_else(|| {
                        fail(i, "a '{' without its '}' (write {{ for a brace)".into())
                    })?;
                    let expr = body[i + 1..end].trim().to_string();
                    let (a, b2) = match expr.split_once('/') {
                        Some((a, b2)) => (a, Some(b2)),
                        None => (expr.as_str(), None),
                    };
                    let ra = parse_ref(a, known, this)
                        .map_err(|m| fail(i, format!("{{{expr}}}: {m}")))?;
                    let rb = match b2 {
                        Some(b2) => Some(
                            parse_ref(b2, known, this)
                                .map_err(|m| fail(i, format!("{{{expr}}}: {m}")))?,
                        ),
                        None => None,
                    };
                    if rb.is_some()
                        && (kind(&ra) == Kind::Words || rb.as_ref().map(kind) == Some(Kind::Words))
                    {
                        return Err(fail(i, format!("{{{expr}}}: a ratio needs two numbers")));
                    }
                    if !lit.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Value(expr, ra, rb));
                    i = end + 1;
                }
                _ => {
                    let ch = body[i..].chars().next().expect("inside the text");
                    lit.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        Ok(Template { parts })
    }

    /// A template of plain text `s` (no placeholders; braces are literal).
    pub fn plain(s: &str) -> Template {
        Template {
            parts: vec![Part::Text(s.to_string())],
        }
    }

    /// True when the template has no text.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The template with its placeholders filled from `cx`.
    pub fn render(&self, cx: &Context<'_>) -> Vec<Piece> {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => Piece::Text(t.clone()),
                Part::Value(expr, a, b) => {
                    let va = cx.value(a);
                    let (value, k) = match b {
                        None => (va, kind(a)),
                        Some(b) => (ratio(va, cx.value(b)), Kind::Mean),
                    };
                    let shown = match (&value, b) {
                        (Value::Number(x), Some(_)) => ratio_text(*x),
                        (v, _) => show(v, k),
                    };
                    Piece::Value {
                        expr: expr.clone(),
                        value,
                        shown,
                    }
                }
            })
            .collect()
    }
}

/// The kind of reference `r`.
pub fn kind(r: &Ref) -> Kind {
    match r {
        Ref::Step(_, m) => METRICS[*m].1,
        Ref::Global(g) => GLOBALS[*g].1,
    }
}

/// `a / b`: pending or not-run when either is; not-run when `b` is 0.
fn ratio(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if y != 0.0 => Value::Number(x / y),
        (Value::Pending, _) | (_, Value::Pending) => Value::Pending,
        _ => Value::NotRun,
    }
}

/// A ratio with two significant digits: `58`, `3.4`, `0.52`.
pub fn ratio_text(x: f64) -> String {
    if !x.is_finite() {
        return NOT_RUN.to_string();
    }
    let a = x.abs();
    if a >= 10.0 {
        thousands(x.round() as u64)
    } else if a >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// `v` written as its kind says.
pub fn show(v: &Value, k: Kind) -> String {
    match v {
        Value::Pending => PENDING.to_string(),
        Value::NotRun => NOT_RUN.to_string(),
        Value::Words(w) => w.clone(),
        Value::Number(x) => number_text(*x, k),
    }
}

/// A number written as kind `k` says.
pub fn number_text(x: f64, k: Kind) -> String {
    match k {
        Kind::Ms | Kind::Degrees => {
            let a = x.abs();
            if a >= 100.0 {
                thousands(x.round() as u64)
            } else if a >= 10.0 {
                format!("{x:.1}")
            } else if a >= 1.0 || k == Kind::Ms {
                format!("{x:.2}")
            } else {
                format!("{x:.3}")
            }
        }
        Kind::Count => thousands(x.round().max(0.0) as u64),
        Kind::Mean => {
            if x.abs() >= 100.0 {
                thousands(x.round() as u64)
            } else {
                format!("{x:.1}")
            }
        }
        Kind::Fixed2 => length(x as f32),
        Kind::Bytes => size(x.max(0.0) as u64),
        Kind::Words => format!("{x}"),
    }
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

    /// The value of reference `r`.
    pub fn value(&self, r: &Ref) -> Value {
        match r {
            Ref::Global(g) => self.global(GLOBALS[*g].0),
            Ref::Step(id, m) => {
                let Some(k) = self.run.lesson().steps.iter().position(|s| &s.id == id) else {
                    return Value::NotRun;
                };
                step_metric(self.run, k, METRICS[*m].0, self.machine)
            }
        }
    }

    fn global(&self, name: &str) -> Value {
        let m = self.machine;
        match name {
            "machine.cpu" => Value::Words(m.cpu.clone()),
            "machine.cores" => Value::Number(m.cores as f64),
            "machine.llc" => Value::Words(llc_text(m)),
            "lesson.units" => match self.run.unit_choice() {
                Some(c) => Value::Number(c.units as f64),
                None => Value::NotRun,
            },
            "lesson.units_why" => match self.run.unit_choice() {
                Some(c) => Value::Words(c.why.clone()),
                None => Value::NotRun,
            },
            _ => Value::NotRun,
        }
    }
}

/// The machine's last-level cache as text: "L3 (32 MiB)", or "an unknown
/// last-level cache".
pub fn llc_text(m: &Machine) -> String {
    let caches = [("L3", m.l3()), ("L2", m.l2()), ("L1d", m.l1d())];
    match caches.iter().find(|c| c.1.is_some()) {
        Some((name, Some(b))) => format!("{name} ({})", size(*b)),
        _ => "an unknown last-level cache".to_string(),
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
    if let Some(sweep_metric) = name.strip_prefix("sweep_") {
        let StepResult::Sweep(sw) = result else {
            return Value::NotRun;
        };
        let pts = sw.points();
        let at = |ratio: f32| {
            pts.iter()
                .min_by(|a, b| (a.ratio - ratio).abs().total_cmp(&(b.ratio - ratio).abs()))
        };
        let v = match sweep_metric {
            "best_cell_over_r" => sw.best().map(|p| p.ratio as f64),
            "cpn_at_r" => at(1.0).map(|p| p.candidates_per_neighbor),
            "cpn_at_max" => pts.last().map(|p| p.candidates_per_neighbor),
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

/// The README's table of metrics (Markdown), generated so it cannot drift.
pub fn metrics_markdown() -> String {
    let mut s = String::from("| placeholder | what |\n|---|---|\n");
    for (name, _, what) in METRICS {
        let _ = writeln!(s, "| `{name}` | {what} |");
    }
    s
}

#[cfg(test)]
mod tests;
