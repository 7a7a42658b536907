//! Lesson files: TOML a teacher can copy and edit.
//!
//! ```toml
//! name = "algorithms"                      # optional: the file's stem
//! title = "Naive, grid, sorted grid"
//! summary = "Why a grid answers 'who is near me?' with far less work."
//! frames = 8                               # counted frames per step and round (1 to 1000)
//! settle = 2                               # settling frames per step and round (0 to 100)
//! rounds = 5                               # rounds, the steps in turn (1 to 50)
//! units_from_cache = 4.0                   # optional (0.1 to 64): see `super::units`
//! max_units = 150000                       # optional: the most units that choice gives
//! cache_model = "machine"                  # optional: the model_* placeholders' caches:
//!                                          # "machine" (this one's) or "classroom"
//! conclusion = "Grid against Naive: {verdict(grid.query_ms, naive.query_ms)}."
//!
//! [settings]                               # every step starts from these
//! units = 10000                            # (the fields of a scenario file)
//!
//! [[steps]]
//! id = "naive"                             # letters, digits, '_' and '-'
//! title = "Naive: every pair"
//! settings = { strategy = "naive" }        # what this step changes
//! sweep = false                            # optional: a cell-size sweep (not on Naive)
//! working_set_sweep = false                # optional: a working-set sweep (not on Naive):
//!                                          # unit counts from this machine's caches
//! memory_view = false                      # optional: open the memory view
//! all_threads = false                      # optional: as many threads as cores
//! absent = "..."                           # optional: shown instead of `text`
//!                                          # where the step is skipped (a kernel
//!                                          # this CPU or build lacks, one thread
//!                                          # for all_threads, a guard)
//! text = "Naive tested {naive.candidates_per_unit} candidates per unit."
//! notes = "Point at the counter."           # optional: for the presenter, never projected
//! # optional: ask before showing the text (see `super::predict`)
//! predict = { question = "How many times faster?", answer = "{naive.query_ms / grid.query_ms}", unit = "x", choices = [2, 10, 100] }
//! # placeholders: {METRIC}, {STEP.METRIC}, {A / B}, {verdict(A, B)},
//! # {if A < B}...{elif A > B}...{else}...{end}, {if ran(STEP)}...{end}
//! # (see `super::text`)
//! ```
//!
//! Validated like scenarios ([`crate::settings::scenario`]): the first problem is
//! one line naming the file, the line, the field and what it takes. The
//! placeholders are checked too (a metric or step id that does not exist,
//! a step quoting a later step).

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::predict::Predict;
use super::text::Template;
use super::{Lesson, Step, DEFAULT_FRAMES, DEFAULT_ROUNDS, DEFAULT_SETTLE};
use crate::measure::Spec;
use crate::settings::scenario::{
    de_error, line_of, one_line_error, read_toml_file, Raw, Scenario, ScenarioError,
};
use crate::settings::view::Geometry;

/// Why a lesson could not be read; `Display` gives `FILE:LINE: FIELD: MESSAGE`
/// (the scenario files' error).
pub type LessonError = ScenarioError;

/// Largest lesson file read, bytes.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Most steps a lesson may have.
pub const MAX_STEPS: usize = 64;

/// The lesson's own fields and what each takes, for messages.
const FIELDS: [(&str, &str); 24] = [
    ("title", "text in quotes"),
    ("summary", "text in quotes"),
    ("conclusion", "text in quotes"),
    ("frames", "a whole number from 1 to 1000"),
    ("settle", "a whole number from 0 to 100"),
    ("rounds", "a whole number from 1 to 50"),
    ("units_from_cache", "a number from 0.1 to 64"),
    ("max_units", "a whole number from 10000 to 1000000"),
    ("cache_model", "\"machine\" or \"classroom\""),
    ("steps", "a list of [[steps]] tables"),
    ("id", "text in quotes: letters, digits, '_' and '-'"),
    ("text", "text in quotes"),
    ("sweep", "true or false"),
    ("working_set_sweep", "true or false"),
    ("memory_view", "true or false"),
    ("all_threads", "true or false"),
    ("absent", "text in quotes"),
    ("settings", "a table of scenario fields"),
    ("notes", "text in quotes"),
    ("predict", "a table: { question = \"...\", answer = \"{STEP.METRIC / STEP.METRIC}\", unit = \"x\", choices = [...] }"),
    ("question", "text in quotes"),
    ("answer", "one placeholder in quotes: \"{STEP.METRIC}\" or \"{STEP.METRIC / STEP.METRIC}\""),
    ("unit", "text in quotes (\"x\", \"ms\", or \"\")"),
    ("choices", "a list of 2 to 8 numbers"),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLesson {
    name: Option<Spanned<String>>,
    title: Spanned<String>,
    summary: Option<Spanned<String>>,
    conclusion: Option<Spanned<String>>,
    frames: Option<Spanned<i64>>,
    settle: Option<Spanned<i64>>,
    rounds: Option<Spanned<i64>>,
    units_from_cache: Option<Spanned<f64>>,
    max_units: Option<Spanned<i64>>,
    cache_model: Option<Spanned<String>>,
    settings: Option<Raw>,
    steps: Spanned<Vec<Spanned<RawStep>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    id: Spanned<String>,
    title: Spanned<String>,
    text: Spanned<String>,
    settings: Option<Raw>,
    sweep: Option<Spanned<bool>>,
    working_set_sweep: Option<Spanned<bool>>,
    memory_view: Option<Spanned<bool>>,
    all_threads: Option<Spanned<bool>>,
    absent: Option<Spanned<String>>,
    notes: Option<Spanned<String>>,
    predict: Option<Spanned<RawPredict>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPredict {
    question: Spanned<String>,
    answer: Spanned<String>,
    unit: Option<Spanned<String>>,
    choices: Option<Spanned<Vec<f64>>>,
}

/// `err` (a TOML error at `span` of `text`) with its field named
/// `predict.FIELD` when the error lies inside a step's `predict = { ... }`
/// table, as the checks after parsing name them.
fn in_predict(mut err: LessonError, text: &str, span: Option<Range<usize>>) -> LessonError {
    let inside = span.is_some_and(|s| {
        let at = s.start.min(text.len());
        let Some(line) = text.get(text[..at].rfind('\n').map_or(0, |i| i + 1)..at) else {
            return false;
        };
        line.trim_start()
            .strip_prefix("predict")
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    });
    if let Some(f) = err.field.as_mut().filter(|f| inside && *f != "predict") {
        *f = format!("predict.{f}");
    }
    err
}

impl Lesson {
    /// Reads and validates the lesson at `path` ([`Lesson::parse`]).
    ///
    /// # Errors
    /// A [`LessonError`] when the file cannot be read (missing, a folder,
    /// larger than [`MAX_FILE_BYTES`], not UTF-8) or does not validate.
    pub fn load(path: &Path) -> Result<Lesson, LessonError> {
        let (text, stem) = read_toml_file(path, MAX_FILE_BYTES, "a lesson file")?;
        Lesson::parse(&text, &path.display().to_string(), &stem)
    }

    /// Parses and validates the TOML `text` of the lesson file named `file`
    /// (used in messages); `stem` is its name when the text has none.
    /// Unknown fields are errors. Allocates the lesson. Never panics.
    ///
    /// # Errors
    /// The first problem as a [`LessonError`]: TOML syntax, an unknown
    /// field, a wrong type, a value out of range (the scenario fields'
    /// ranges for `settings`), a duplicate or malformed step id, no steps,
    /// or a placeholder that names no metric or no earlier step.
    pub fn parse(text: &str, file: &str, stem: &str) -> Result<Lesson, LessonError> {
        let src = Source { text, file };
        let raw: RawLesson = toml::from_str(text)
            .map_err(|e| in_predict(de_error(&e, text, file, &FIELDS), text, e.span()))?;
        let frames = src.whole("frames", &raw.frames, (1, 1000), DEFAULT_FRAMES)?;
        let settle = src.whole("settle", &raw.settle, (0, 100), DEFAULT_SETTLE)?;
        let rounds = src.whole("rounds", &raw.rounds, (1, 50), DEFAULT_ROUNDS)?;
        let units_cap = match &raw.max_units {
            None => None,
            Some(_) => Some(src.whole("max_units", &raw.max_units, (10_000, 1_000_000), 0)?),
        };
        let units_from_cache = src.units_from_cache(&raw.units_from_cache)?;
        let cache_model = src.cache_model(&raw.cache_model)?;
        let settings = src.scenario(raw.settings)?;
        src.check_step_count(&raw.steps)?;
        let mut ids: Vec<String> = Vec::new();
        let mut steps = Vec::new();
        for st in raw.steps.into_inner() {
            steps.push(src.step(st, &settings, &mut ids)?);
        }
        let known: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let conclusion = match &raw.conclusion {
            Some(c) => Template::parse(c, text, file, &known, None)?,
            None => Template::default(),
        };
        Ok(Lesson {
            name: raw
                .name
                .map(|n| n.into_inner())
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| stem.to_string()),
            title: raw.title.into_inner(),
            summary: raw.summary.map(|s| s.into_inner()).unwrap_or_default(),
            file: file.to_string(),
            settings,
            units_from_cache,
            units_cap,
            spec: Spec::new(settle, frames),
            rounds,
            steps,
            conclusion,
            cache_model,
        })
    }
}

/// The lesson file being parsed: its whole text (spans index it) and its
/// name for messages.
#[derive(Clone, Copy)]
struct Source<'a> {
    text: &'a str,
    file: &'a str,
}

impl Source<'_> {
    /// The one-line error at `span` naming `field`.
    fn error(&self, span: Option<Range<usize>>, field: &str, message: String) -> LessonError {
        one_line_error(self.text, self.file, span, Some(field.to_string()), message)
    }

    /// The whole-number field `name`: `default` when absent, else its value
    /// when within `lo..=hi`.
    fn whole(
        &self,
        name: &str,
        v: &Option<Spanned<i64>>,
        (lo, hi): (i64, i64),
        default: usize,
    ) -> Result<usize, LessonError> {
        match v {
            None => Ok(default),
            Some(v) if (lo..=hi).contains(v.get_ref()) => Ok(*v.get_ref() as usize),
            Some(v) => Err(self.error(
                Some(v.span()),
                name,
                format!(
                    "must be a whole number from {lo} to {hi}, got {}",
                    v.get_ref()
                ),
            )),
        }
    }

    /// The optional `units_from_cache`, a number from 0.1 to 64.
    fn units_from_cache(&self, v: &Option<Spanned<f64>>) -> Result<Option<f64>, LessonError> {
        match v {
            None => Ok(None),
            Some(v) if (0.1..=64.0).contains(v.get_ref()) => Ok(Some(*v.get_ref())),
            Some(v) => Err(self.error(
                Some(v.span()),
                "units_from_cache",
                format!("must be a number from 0.1 to 64, got {}", v.get_ref()),
            )),
        }
    }

    /// The optional `cache_model`: a geometry's key or name
    /// ([`Geometry`]); this machine's when absent.
    fn cache_model(&self, v: &Option<Spanned<String>>) -> Result<Geometry, LessonError> {
        use crate::named::Named;
        match v {
            None => Ok(Geometry::default()),
            Some(v) => Geometry::parse(v.get_ref()).ok_or_else(|| {
                self.error(
                    Some(v.span()),
                    "cache_model",
                    format!(
                        "must be {}, got \"{}\"",
                        Geometry::one_of(None),
                        v.get_ref()
                    ),
                )
            }),
        }
    }

    /// A `settings` table as a scenario; the default scenario when absent.
    fn scenario(&self, raw: Option<Raw>) -> Result<Scenario, LessonError> {
        match raw {
            Some(r) => Scenario::from_raw(r, self.text, self.file, ""),
            None => Ok(Scenario::default()),
        }
    }

    /// Checks that the lesson has from 1 to [`MAX_STEPS`] steps.
    fn check_step_count(&self, steps: &Spanned<Vec<Spanned<RawStep>>>) -> Result<(), LessonError> {
        if steps.get_ref().is_empty() {
            return Err(self.error(
                Some(steps.span()),
                "steps",
                "a lesson needs at least one [[steps]] table".to_string(),
            ));
        }
        if steps.get_ref().len() > MAX_STEPS {
            return Err(self.error(
                Some(steps.span()),
                "steps",
                format!(
                    "{} steps; a lesson has at most {MAX_STEPS}",
                    steps.get_ref().len()
                ),
            ));
        }
        Ok(())
    }

    /// One step over the lesson's `settings`; its id is appended to `ids`
    /// (the earlier steps' ids, which its text may quote).
    fn step(
        &self,
        st: Spanned<RawStep>,
        settings: &Scenario,
        ids: &mut Vec<String>,
    ) -> Result<Step, LessonError> {
        let line = line_of(self.text, st.span().start);
        let st = st.into_inner();
        let id = self.step_id(&st.id, ids)?;
        ids.push(id.clone());
        let known: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let template = Template::parse(&st.text, self.text, self.file, &known, Some(&id))?;
        let step_settings = self.scenario(st.settings)?;
        let effective = settings.overlay(&step_settings);
        self.check_sweep(&id, "sweep", st.sweep.as_ref(), &effective)?;
        self.check_sweep(
            &id,
            "working_set_sweep",
            st.working_set_sweep.as_ref(),
            &effective,
        )?;
        let predict = match st.predict {
            Some(p) => Some(self.predict(p.into_inner(), &known, &id)?),
            None => None,
        };
        let on = |b: &Option<Spanned<bool>>| b.as_ref().is_some_and(|b| *b.get_ref());
        if on(&st.sweep) && on(&st.working_set_sweep) {
            return Err(self.error(
                st.working_set_sweep.as_ref().map(Spanned::span),
                "working_set_sweep",
                format!("step \"{id}\" sets both sweep and working_set_sweep; a step measures one sweep: make two steps"),
            ));
        }
        Ok(Step {
            id,
            title: st.title.into_inner(),
            text: template,
            settings: step_settings,
            sweep: on(&st.sweep),
            working_set_sweep: on(&st.working_set_sweep),
            memory_view: st.memory_view.is_some_and(|b| *b.get_ref()),
            all_threads: st.all_threads.is_some_and(|b| *b.get_ref()),
            absent: st.absent.map(|a| a.into_inner()),
            notes: st.notes.map(|n| n.into_inner()).unwrap_or_default(),
            predict,
            line,
        })
    }

    /// Step `id`'s prediction ([`Predict::parse`]), its error at the span
    /// of the field at fault (`predict.answer`, ...).
    fn predict(
        &self,
        p: RawPredict,
        known: &HashSet<&str>,
        id: &str,
    ) -> Result<Predict, LessonError> {
        let unit = p.unit.as_ref().map_or("", |u| u.get_ref().as_str());
        let choices = p
            .choices
            .as_ref()
            .map_or(&[][..], |c| c.get_ref().as_slice());
        Predict::parse(
            p.question.get_ref(),
            p.answer.get_ref(),
            unit,
            choices,
            known,
            id,
        )
        .map_err(|(field, message)| {
            let span = match field {
                "question" => Some(p.question.span()),
                "choices" => p.choices.as_ref().map(Spanned::span),
                "unit" => p.unit.as_ref().map(Spanned::span),
                _ => Some(p.answer.span()),
            };
            self.error(span, &format!("predict.{field}"), message)
        })
    }

    /// The trimmed step id: letters, digits, '_' and '-', not a reserved
    /// word, and not one of the earlier steps' `ids`.
    fn step_id(&self, raw: &Spanned<String>, ids: &[String]) -> Result<String, LessonError> {
        let id = raw.get_ref().trim().to_string();
        let id_ok = !id.is_empty()
            && id != "machine"
            && id != "lesson"
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !id_ok {
            return Err(self.error(
                Some(raw.span()),
                "id",
                format!(
                    "must be letters, digits, '_' and '-' (not \"machine\" or \"lesson\"), got \"{}\"",
                    raw.get_ref()
                ),
            ));
        }
        if ids.contains(&id) {
            return Err(self.error(
                Some(raw.span()),
                "id",
                format!("\"{id}\" names two steps; each step's id must be its own"),
            ));
        }
        Ok(id)
    }

    /// Checks that step `id`, when it sets `field` (`sweep` or
    /// `working_set_sweep`) to true, does not run Naive under its effective
    /// scenario `effective` (Naive has no cells, and its cost grows with
    /// the square of the units, not with the working set).
    fn check_sweep(
        &self,
        id: &str,
        field: &str,
        sweep: Option<&Spanned<bool>>,
        effective: &Scenario,
    ) -> Result<(), LessonError> {
        let Some(sweep) = sweep.filter(|b| *b.get_ref()) else {
            return Ok(());
        };
        let mut eff = crate::engine::sim::Settings::default();
        effective.apply(&mut eff);
        if eff.strategy == crate::engine::spatial::Strategy::Naive {
            let what = if field == "sweep" {
                "sweeps the cell size, but its strategy is Naive, which has no cells"
            } else {
                "sweeps the working set, but its strategy is Naive, whose cost grows with the square of the units"
            };
            return Err(self.error(
                Some(sweep.span()),
                field,
                format!(
                    "step \"{id}\" {what}: set strategy = \"grid\" or \"sorted-grid\" in its settings"
                ),
            ));
        }
        Ok(())
    }
}
