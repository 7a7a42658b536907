//! Lessons: ordered steps a class follows, each setting the engine and the
//! view, saying what to watch, measuring through the measurement engine
//! ([`crate::measure`]) and quoting what it measured on this machine.
//!
//! A lesson is a TOML file ([`mod@file`]; the bundled ones in `assets/lessons/`
//! are compiled in, [`bundled`], so the browser build has them too). Its
//! texts hold placeholders (`{grid.query_ms}`) filled from the measurements
//! ([`text`]). [`LessonRun`] is the state of one pass through a lesson: the
//! settings of each step, the results measured so far, the rendered texts and
//! the chart's rows. The window's lessons panel steps it on the live
//! simulation; `spatial-query-lab lesson` runs it headless ([`run`]).

pub mod bundled;
pub mod claims;
pub mod export;
pub mod file;
pub mod predict;
pub mod run;
pub mod session;
pub mod text;
pub mod units;

use crate::engine::sim::Settings;
use crate::engine::spatial::Strategy;
use crate::measure::compare::Comparison;
use crate::measure::memory::modeled::Modeled;
use crate::measure::model_task::ModelTask;
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::measure::verdict::Verdict;
use crate::measure::working_set_sweep::{self as ws, Span, WsCurve};
use crate::measure::{Outcome, Plan, Spec, Variant};
use crate::settings::budget::Budget;
use crate::settings::scenario::{Scenario, ScenarioView};
use crate::settings::view::Geometry;

pub use file::LessonError;
pub use text::{Piece, Template};
pub use units::UnitChoice;

/// Settling frames of a step unless the lesson says otherwise.
pub const DEFAULT_SETTLE: usize = 2;
/// Counted frames of a step unless the lesson says otherwise.
pub const DEFAULT_FRAMES: usize = 8;
/// Rounds of a lesson's measurement unless the lesson says otherwise: every
/// step once per round, the steps in turn ([`LessonRun::plan`]); with 5
/// rounds two equal steps come out separated by chance 0.8% of the time.
pub const DEFAULT_ROUNDS: usize = 5;

/// One step of a lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Short name other steps' placeholders use (`{grid.query_ms}`).
    pub id: String,
    /// Heading shown above the text.
    pub title: String,
    /// What to watch and what the numbers say, with placeholders.
    pub text: Template,
    /// The settings this step changes from the lesson's (every field
    /// optional, as in a scenario).
    pub settings: Scenario,
    /// The step measures a cell-size sweep (the standard ratios) instead of
    /// one row.
    pub sweep: bool,
    /// The step measures a working-set sweep (its unit counts chosen from
    /// this machine's caches, [`crate::measure::working_set_sweep`]) instead
    /// of one row; its counts are variants of the lesson's plan, so they
    /// interleave with the other steps' rounds.
    pub working_set_sweep: bool,
    /// The window opens the memory view for this step.
    pub memory_view: bool,
    /// Shown instead of `text` where the step cannot run here (a kernel
    /// this CPU lacks): what it would show elsewhere.
    pub absent: Option<String>,
    /// The step runs on as many threads as this machine has cores
    /// ([`crate::measure::machine::Machine::cores`]), whatever `settings` says.
    pub all_threads: bool,
    /// What the presenter says, never projected: printed where the window
    /// was started and shown in the browser's presenter view (empty: none).
    pub notes: String,
    /// A question the class answers before the step's text and numbers
    /// show ([`predict`]).
    pub predict: Option<predict::Predict>,
    /// 1-based line of the step's `[[steps]]` table in its file.
    pub line: usize,
}

/// A validated lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    /// Short name (`algorithms`), as `spatial-query-lab lesson NAME` takes it.
    pub name: String,
    /// Title for people.
    pub title: String,
    /// One or two sentences: what the lesson shows.
    pub summary: String,
    /// The file it came from, as named in messages.
    pub file: String,
    /// Settings every step starts from (over the engine's defaults).
    pub settings: Scenario,
    /// Choose the unit count so that the AoS working set is this many
    /// times the last-level cache ([`units`]); `None` keeps the lesson's.
    pub units_from_cache: Option<f64>,
    /// The most units that choice may give (the file's `max_units`), so
    /// that every step stays short on a machine with a large cache.
    pub units_cap: Option<usize>,
    /// Settling and counted frames of every step (per round).
    pub spec: Spec,
    /// Rounds of the measurement (at least 1; [`DEFAULT_ROUNDS`]).
    pub rounds: usize,
    /// The steps, in order (at least one).
    pub steps: Vec<Step>,
    /// Closing text shown with the chart, with placeholders.
    pub conclusion: Template,
    /// The cache geometry of the `model_*` placeholders (the file's
    /// `cache_model`; this machine's unless it says `classroom`).
    pub cache_model: Geometry,
}

/// What a step measured.
// A lesson holds one result per step (tens): the row's size costs nothing
// worth a box; the sweep is boxed because it is several kilobytes.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum StepResult {
    /// One row: measured, or skipped with the reason.
    Row(Outcome),
    /// A cell-size sweep (finished or stopped).
    Sweep(Box<CellSweep>),
    /// A working-set sweep: its curve and the outcomes it came from.
    WorkingSet(Box<WsCurve>),
}

impl StepResult {
    /// The step's row: the outcome, or the sweep's fastest cell size.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            StepResult::Row(o) => Some(o.clone()),
            StepResult::Sweep(sw) => {
                let best = sw.best()?;
                sw.measurements()
                    .filter(|m| m.cell_size == Some(best.cell_size))
                    .min_by(|a, b| a.ms.query.median.total_cmp(&b.ms.query.median))
                    .cloned()
                    .map(Outcome::Measured)
            }
            StepResult::WorkingSet(_) => None,
        }
    }
}

/// Limits a caller puts on a run (the tests and quick demos): at most
/// `max_units` units per step, `frames` counted frames per step and round,
/// `rounds` rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LessonOptions {
    /// Cap on every step's unit count.
    pub max_units: Option<usize>,
    /// Counted frames per step and round instead of the lesson's.
    pub frames: Option<usize>,
    /// Rounds instead of the lesson's.
    pub rounds: Option<usize>,
}

/// One pass through a lesson: its steps' settings and what each measured.
#[derive(Clone, Debug)]
pub struct LessonRun {
    lesson: Lesson,
    units: Option<UnitChoice>,
    /// Per step: the unit counts of its working-set sweep, if it is one.
    spans: Vec<Option<Span>>,
    /// Per step: the cache model of its query phase, once made.
    models: Vec<Option<Modeled>>,
    options: LessonOptions,
    results: Vec<Option<StepResult>>,
}

impl LessonRun {
    /// Why step `k` has no measurement, if it has a result without one.
    pub fn skipped(&self, k: usize) -> Option<String> {
        match self.result(k)? {
            StepResult::Row(Outcome::Skipped(s)) => Some(s.why.clone()),
            StepResult::Sweep(sw) if sw.points().is_empty() => {
                Some("the sweep measured no cell size".to_string())
            }
            StepResult::WorkingSet(c) if c.points.is_empty() => Some(match c.skipped.first() {
                Some((_, why)) => format!("the sweep measured no unit count ({why})"),
                None => "the sweep measured no unit count".to_string(),
            }),
            _ => None,
        }
    }

    /// A run of `lesson` with nothing measured yet. When the lesson chooses
    /// its unit count from the cache, the choice is made now (it spawns a
    /// small simulation to measure the AoS bytes per unit).
    pub fn new(lesson: Lesson, options: LessonOptions) -> Self {
        let units = lesson.units_from_cache.map(|factor| {
            let mut base = Settings::default();
            lesson.settings.apply(&mut base);
            let caps = [
                options.max_units.map(|u| units::Cap {
                    units: u,
                    what: "the cap asked for",
                }),
                lesson.units_cap.map(|u| units::Cap {
                    units: u,
                    what: "the lesson's cap, which keeps each step short",
                }),
            ];
            let cap = caps.into_iter().flatten().min_by_key(|c| c.units);
            units::choose(
                factor,
                &base,
                crate::measure::machine::Machine::current(),
                cap,
            )
        });
        let mut run = LessonRun {
            results: vec![None; lesson.steps.len()],
            spans: vec![None; lesson.steps.len()],
            models: vec![None; lesson.steps.len()],
            lesson,
            units,
            options,
        };
        // The working set per unit depends on the step's layout and order.
        for k in 0..run.len() {
            if run.lesson.steps[k].working_set_sweep {
                let bpu = ws::bytes_per_unit(&run.settings(k));
                run.spans[k] = Some(ws::unit_counts(
                    bpu,
                    crate::measure::machine::Machine::current(),
                    options.max_units,
                ));
            }
        }
        run
    }

    /// The unit counts of step `k`'s working-set sweep, if it is one.
    pub fn span(&self, k: usize) -> Option<&Span> {
        self.spans.get(k).and_then(Option::as_ref)
    }

    /// The lesson.
    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// The unit count chosen from the cache, if the lesson chooses one.
    pub fn unit_choice(&self) -> Option<&UnitChoice> {
        self.units.as_ref()
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.lesson.steps.len()
    }

    /// Always false: a lesson has at least one step.
    pub fn is_empty(&self) -> bool {
        self.lesson.steps.is_empty()
    }

    /// The step with index `k`. Panics if `k >= len()`.
    pub fn step(&self, k: usize) -> &Step {
        &self.lesson.steps[k]
    }

    /// The scenario of step `k`: the lesson's settings with the step's over them.
    fn scenario(&self, k: usize) -> Scenario {
        self.lesson.settings.overlay(&self.lesson.steps[k].settings)
    }

    /// The full settings of step `k` over the engine's defaults: the
    /// lesson's, then the step's, then the chosen unit count (unless the
    /// step names its own), then all cores for an `all_threads` step, then
    /// the caller's cap. A kernel this CPU lacks
    /// stays as named (the step is then skipped; [`LessonRun::plan`]).
    pub fn settings(&self, k: usize) -> Settings {
        let sc = self.scenario(k);
        let mut s = Settings::default();
        sc.apply(&mut s);
        if let Some(kernel) = sc.kernel {
            s.kernel = kernel;
        }
        if let (Some(c), None) = (&self.units, self.lesson.steps[k].settings.units) {
            s.units = c.units;
        }
        if self.lesson.steps[k].all_threads {
            s.threads = crate::measure::machine::Machine::current().cores.max(1);
        }
        if let Some(cap) = self.options.max_units {
            s.units = s.units.min(cap.max(1));
        }
        s
    }

    /// The view values of step `k` (the lesson's with the step's over them).
    pub fn view(&self, k: usize) -> ScenarioView {
        self.scenario(k).view
    }

    /// Settling and counted frames of every step (the caller's frames if set).
    pub fn spec(&self) -> Spec {
        match self.options.frames {
            Some(f) => Spec::new(self.lesson.spec.settle, f.max(1)),
            None => self.lesson.spec,
        }
    }

    /// Why step `k` cannot run on this build and machine, or `None`: a
    /// kernel this CPU or build lacks ([`Kernel::absent_reason`] names
    /// which), or an `all_threads` step where there is only one thread
    /// (the browser build has no threads; a one-core machine), which would
    /// only repeat a one-thread step under another name.
    ///
    /// [`Kernel::absent_reason`]: crate::engine::spatial::Kernel::absent_reason
    pub fn cannot_run(&self, k: usize) -> Option<String> {
        let s = self.settings(k);
        if s.uses_kernel() {
            if let Some(why) = s.kernel.absent_reason() {
                return Some(why);
            }
        }
        if self.lesson.steps[k].all_threads && s.threads <= 1 {
            return Some(if crate::platform::browser::IN_BROWSER {
                "the browser build runs on one thread (its WebAssembly has no threads), so every core is one core here; the desktop build runs this step".to_string()
            } else {
                "this machine offers this program one core, so every core is one thread here"
                    .to_string()
            });
        }
        None
    }

    /// Rounds of the measurement (the caller's if set).
    pub fn rounds(&self) -> usize {
        self.options.rounds.unwrap_or(self.lesson.rounds).max(1)
    }

    /// The steps measured as rows (not sweeps of either kind), in order.
    pub fn row_steps(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&k| !self.lesson.steps[k].sweep && !self.lesson.steps[k].working_set_sweep)
            .collect()
    }

    /// What each variant of [`LessonRun::plan`] measures, in the plan's
    /// order: `(step, None)` for a row step, `(step, Some(i))` for the
    /// `i`-th unit count of a working-set sweep step; the row steps first.
    pub fn plan_entries(&self) -> Vec<(usize, Option<usize>)> {
        let mut out: Vec<(usize, Option<usize>)> =
            self.row_steps().into_iter().map(|k| (k, None)).collect();
        for k in 0..self.len() {
            if let Some(span) = self.span(k) {
                out.extend((0..span.units.len()).map(|i| (k, Some(i))));
            }
        }
        out
    }

    /// The plan measuring every row step ([`LessonRun::row_steps`], one
    /// variant each, labeled with the step's title) and every unit count of
    /// every working-set sweep step ([`LessonRun::plan_entries`]), each
    /// marked skipped when its step [`LessonRun::cannot_run`], in
    /// [`LessonRun::rounds`] rounds that visit them in turn, so that every
    /// comparison between them rests on interleaved rounds; with the compare
    /// panel's guards and `bench`'s naive predictor, so a naive step whose
    /// frame would take over a minute is skipped with the estimate, not run
    /// for hours.
    pub fn plan(&self) -> Plan {
        let variants: Vec<Variant> = self
            .plan_entries()
            .into_iter()
            .map(|(k, point)| {
                let title = &self.lesson.steps[k].title;
                let mut v = match (point, self.span(k)) {
                    (Some(i), Some(span)) => {
                        ws::variants(title, &self.settings(k), &span.units[i..=i]).remove(0)
                    }
                    _ => Variant::new(title.clone(), self.settings(k)),
                };
                v.skip = self.cannot_run(k);
                v
            })
            .collect();
        let base = self.settings(0);
        Plan::new(variants, self.spec(), crate::measure::Guards::INTERACTIVE)
            .with_predictor(crate::measure::predict::naive_predictor(
                base.seed,
                base.workload,
            ))
            .with_rounds(self.rounds())
    }

    /// The cell-size sweep of step `k` (the standard ratios, the step's
    /// frames and rounds, the engine's default budget), if it is a sweep step.
    pub fn sweep(&self, k: usize) -> Option<CellSweep> {
        self.lesson.steps[k].sweep.then(|| {
            CellSweep::new(
                &self.settings(k),
                &crate::measure::sweep::standard_ratios(),
                self.spec().frames,
                &Budget::default(),
            )
            .with_rounds(self.rounds())
        })
    }

    /// True when a text of the lesson quotes a `model_*` metric.
    pub fn needs_model(&self) -> bool {
        let l = &self.lesson;
        l.steps
            .iter()
            .map(|s| &s.text)
            .chain(std::iter::once(&l.conclusion))
            .flat_map(Template::refs)
            .chain(
                l.steps
                    .iter()
                    .filter_map(|s| s.predict.as_ref())
                    .flat_map(predict::Predict::refs),
            )
            .any(|r| matches!(r, text::Ref::Step(_, m) if text::METRICS[m].0.starts_with("model_")))
    }

    /// The row steps whose query the cache model models (those that can
    /// run here), in order; none when no text quotes the model.
    pub fn model_steps(&self) -> Vec<usize> {
        if !self.needs_model() {
            return Vec::new();
        }
        self.row_steps()
            .into_iter()
            .filter(|&k| self.cannot_run(k).is_none())
            .collect()
    }

    /// What measures the whole lesson, in order: the plan of its row steps
    /// and working-set sweeps (when it has any), the cache model of its row
    /// steps (when a text quotes it), then each sweep step's sweep.
    /// [`LessonRun::record_tasks`] takes them back.
    pub fn tasks(&self) -> Vec<Task> {
        let mut out = Vec::new();
        if !self.plan_entries().is_empty() {
            out.push(Task::Plan(self.plan()));
        }
        let modeled = self.model_steps();
        if !modeled.is_empty() {
            let items = modeled.iter().map(|&k| self.settings(k)).collect();
            out.push(Task::Model(ModelTask::new(items, self.lesson.cache_model)));
        }
        out.extend((0..self.len()).filter_map(|k| self.sweep(k).map(Task::Sweep)));
        out
    }

    /// Keeps what [`LessonRun::tasks`]' measurements found: each row step's
    /// outcome (all its rounds), each working-set sweep step's curve and
    /// each sweep step's sweep. A task not done (stopped) leaves its steps
    /// pending.
    pub fn record_tasks(&mut self, tasks: &[Task]) {
        let entries = self.plan_entries();
        let sweeps: Vec<usize> = (0..self.len())
            .filter(|&k| self.lesson.steps[k].sweep)
            .collect();
        let mut sweeps = sweeps.into_iter();
        for t in tasks {
            match t {
                Task::Plan(p) if p.is_done() && p.stopped().is_none() => {
                    let mut curves: Vec<Vec<&Outcome>> = vec![Vec::new(); self.len()];
                    for (v, &(k, point)) in entries.iter().enumerate() {
                        match (p.outcome_of(v), point) {
                            (Some(o), None) => self.record(k, StepResult::Row(o.clone())),
                            (Some(o), Some(_)) => curves[k].push(o),
                            (None, _) => {}
                        }
                    }
                    for (k, outcomes) in curves.into_iter().enumerate() {
                        if outcomes.is_empty() {
                            continue;
                        }
                        let note = self.span(k).and_then(|s| s.note.clone());
                        let curve = WsCurve::of(&self.lesson.steps[k].title, outcomes, note);
                        self.record(k, StepResult::WorkingSet(Box::new(curve)));
                    }
                }
                Task::Plan(_) => {}
                Task::Model(m) if m.is_done() && m.stopped().is_none() => {
                    for (i, k) in self.model_steps().into_iter().enumerate() {
                        if let Some(model) = m.result(i) {
                            self.models[k] = Some(model.clone());
                        }
                    }
                }
                Task::Model(_) => {}
                Task::Sweep(sw) => {
                    let Some(k) = sweeps.next() else { continue };
                    if sw.is_done() {
                        self.record(k, StepResult::Sweep(Box::new(sw.clone())));
                    }
                }
            }
        }
    }

    /// Every comparison the lesson's texts and conclusion state, judged from
    /// the results so far (see [`text::Template::verdicts`]), repeats
    /// dropped; then, for each sweep step, its fastest cell size against
    /// every other one (what `sweep_best_cells` quotes: `a` "grid at 1.00
    /// r", `b` "grid at 1.26 r", metric `query_ms`).
    pub fn verdicts(&self) -> Vec<Verdict> {
        let cx = text::Context::of(self);
        let mut out = Vec::new();
        for (k, step) in self.lesson.steps.iter().enumerate() {
            if step.absent.is_some() && self.cannot_run(k).is_some() {
                continue;
            }
            step.text.verdicts(&cx, &mut out);
        }
        self.lesson.conclusion.verdicts(&cx, &mut out);
        for (step, r) in self.lesson.steps.iter().zip(&self.results) {
            let Some(StepResult::Sweep(sw)) = r else {
                continue;
            };
            let Some(best) = sw.best() else { continue };
            let at = |q: f32| format!("{} at {} r", step.id, crate::format::length(q));
            for p in sw.points().iter().filter(|p| p.cell_size != best.cell_size) {
                if let Some(j) =
                    crate::measure::verdict::judge(&best.query_rounds, &p.query_rounds, false)
                {
                    out.push(Verdict::new(
                        &at(best.ratio),
                        &at(p.ratio),
                        "query_ms",
                        &j,
                        true,
                    ));
                }
            }
        }
        out
    }

    /// Keeps what step `k` measured (replacing an earlier result).
    pub fn record(&mut self, k: usize, result: StepResult) {
        if let Some(slot) = self.results.get_mut(k) {
            *slot = Some(result);
        }
    }

    /// Forgets every result and model (restart).
    pub fn clear(&mut self) {
        self.results.iter_mut().for_each(|r| *r = None);
        self.models.iter_mut().for_each(|m| *m = None);
    }

    /// Keeps the cache model of step `k`'s query (replacing an earlier one).
    pub fn record_model(&mut self, k: usize, model: Modeled) {
        if let Some(slot) = self.models.get_mut(k) {
            *slot = Some(model);
        }
    }

    /// The cache model of step `k`'s query, once made.
    pub fn model(&self, k: usize) -> Option<&Modeled> {
        self.models.get(k).and_then(Option::as_ref)
    }

    /// What step `k` measured, if it has.
    pub fn result(&self, k: usize) -> Option<&StepResult> {
        self.results.get(k).and_then(Option::as_ref)
    }

    /// True when every step has a result.
    pub fn is_complete(&self) -> bool {
        self.results.iter().all(Option::is_some)
    }

    /// The text of step `k` with its placeholders filled from the results
    /// so far (a value not measured yet is pending). Where the step cannot
    /// run here, or a guard skipped it, its `absent` text instead, or no
    /// text (the panel says why it was not measured): a text written for
    /// numbers has none to show then.
    pub fn text(&self, k: usize) -> Vec<Piece> {
        let step = &self.lesson.steps[k];
        let ran = self.cannot_run(k).is_none() && self.skipped(k).is_none();
        match (&step.absent, ran) {
            (_, true) => step.text.render(&text::Context::of(self)),
            (Some(a), false) => vec![Piece::Text(a.clone())],
            (None, false) => Vec::new(),
        }
    }

    /// The measured answer to step `k`'s prediction, if it asks one
    /// ([`predict::Predict::answer`]).
    pub fn answer(&self, k: usize) -> Option<predict::Answer> {
        let p = self.lesson.steps.get(k)?.predict.as_ref()?;
        Some(p.answer(&text::Context::of(self)))
    }

    /// Step `k`'s query time as the lesson measured it, through the same
    /// rule as a prediction's answer ([`predict::Predict::answer`]): "0.52 ms
    /// (0.50–0.55)" over its rounds. For an embed's one number. `None` for a
    /// step that has no query time here (it cannot run, or a sweep step);
    /// [`predict::Answer::Pending`] until it is measured. Allocates.
    pub fn query_time(&self, k: usize) -> Option<predict::Answer> {
        let id = self.lesson.steps.get(k)?.id.as_str();
        if self.cannot_run(k).is_some() {
            return None;
        }
        let known: std::collections::HashSet<&str> = [id].into_iter().collect();
        let q = predict::Predict::parse("query", "{query_ms}", "ms", &[], &known, id).ok()?;
        match q.answer(&text::Context::of(self)) {
            a @ (predict::Answer::Pending | predict::Answer::Measured(_)) => Some(a),
            predict::Answer::NotRun | predict::Answer::Incomparable => None,
        }
    }

    /// The conclusion with its placeholders filled.
    pub fn conclusion(&self) -> Vec<Piece> {
        self.lesson.conclusion.render(&text::Context::of(self))
    }

    /// The chart's rows: each measured row step's row in step order,
    /// labeled with the step's title and measured together (one group),
    /// then each sweep's curve and its fastest cell size; the first row is
    /// the baseline.
    pub fn comparison(&self) -> Comparison {
        let mut c = Comparison::default();
        // The row steps were measured in one plan: one group, interleaved.
        let mut rows = Vec::new();
        for (k, (step, r)) in self.lesson.steps.iter().zip(&self.results).enumerate() {
            if let Some(StepResult::Row(Outcome::Measured(m))) = r {
                let mut m = m.clone();
                m.label = step.title.clone();
                m.model = self.model(k).cloned();
                rows.push(m);
            }
        }
        if !rows.is_empty() {
            c.add_group(rows);
        }
        for r in self.results.iter().flatten() {
            if let StepResult::WorkingSet(curve) = r {
                c.add_ws_curve((**curve).clone());
            }
        }
        for r in self.results.iter().flatten() {
            if let StepResult::Sweep(sw) = r {
                c.add_sweep(sw);
            }
        }
        c
    }

    /// The settings of step `k` that `live` does not have ([`differences`]
    /// against [`LessonRun::settings`]). Empty when they agree.
    pub fn differences(&self, k: usize, live: &Settings) -> Vec<&'static str> {
        let step = &self.lesson.steps[k];
        let mut out = differences(&self.settings(k), live, step.sweep);
        if step.working_set_sweep {
            // The sweep sets the unit count.
            out.retain(|d| *d != "units");
        }
        out
    }
}

/// The engine settings of `want` that `live` does not have, by their
/// scenario field names (`strategy`, `units`, ...): those a measurement
/// depends on. The kernel is compared as this CPU runs it, and not for
/// Grid (which uses none); the cell size not for Naive, nor in a sweep
/// step (`sweep`: the sweep sets it). Empty when they agree.
pub fn differences(want: &Settings, live: &Settings, sweep: bool) -> Vec<&'static str> {
    let s = want;
    let mut out = Vec::new();
    let mut check = |name: &'static str, differs: bool| {
        if differs {
            out.push(name);
        }
    };
    check("units", s.units != live.units);
    check("workload", s.workload != live.workload);
    check("strategy", s.strategy != live.strategy);
    check(
        "kernel",
        s.strategy != Strategy::Grid && s.kernel.or_scalar() != live.kernel.or_scalar(),
    );
    check("threads", s.threads != live.threads);
    check("layout", s.layout != live.layout);
    check("reorder", s.reorder != live.reorder);
    check("pass", s.pass != live.pass);
    check("radius", s.radius != live.radius);
    check(
        "cell_size",
        !sweep && s.strategy != Strategy::Naive && s.cell_size != live.cell_size,
    );
    out
}

#[cfg(test)]
mod tests;
