//! A lesson's exports, for the command line and the window's panel: its
//! texts and table as Markdown, its table as CSV, and JSON with every
//! step's text and row (`bench`'s keys).

use serde::Serialize;

use super::predict::Answer;
use super::text::plain;
use super::{LessonRun, StepResult};
use crate::measure::compare::SweepCurve;
use crate::measure::machine::Machine;
use crate::measure::verdict::Verdict;
use crate::measure::working_set_sweep::WsCurve;
use crate::measure::Row;
use crate::teaching::chart::{comparison_bars, sweep_curves, working_set_curves, Chart, Scale};

/// `t` for a Markdown heading, which ends at its line: line breaks as spaces.
fn one_line(t: &str) -> String {
    t.replace(['\n', '\r'], " ")
}

/// The heading of the Markdown document: title, summary, machine.
pub fn markdown_head(run: &LessonRun, machine: &Machine) -> String {
    let l = run.lesson();
    let mut s = format!(
        "# {}\n\n{}\n\nMeasured on {}.\n\n",
        one_line(&l.title),
        l.summary,
        machine.summary()
    );
    if let Some(c) = run.unit_choice() {
        s += &format!("Units: {}.\n\n", c.why);
    }
    s
}

/// Step `k` as Markdown: its heading and its filled text (and why it was
/// not measured, if it was not).
pub fn markdown_step(run: &LessonRun, k: usize) -> String {
    let mut s = format!("## {}. {}\n\n", k + 1, one_line(&run.step(k).title));
    if let (Some(p), Some(a)) = (&run.step(k).predict, run.answer(k)) {
        s += &format!(
            "**Predict:** {}\n\n**Answer:** {}\n\n",
            one_line(&p.question),
            p.reveal(None, &a)
        );
    }
    s += &format!("{}\n\n", plain(&run.text(k)));
    if let Some(why) = run.skipped(k) {
        s += &format!("*Not measured: {why}.*\n\n");
    }
    let cut = run
        .result(k)
        .and_then(StepResult::outcome)
        .and_then(|o| o.measured().and_then(|m| m.cut_note()));
    if let Some(cut) = cut {
        s += &format!("*Measured over {cut}.*\n\n");
    }
    s
}

/// Step `k`'s presenter notes as a Markdown quote ("> **Presenter
/// notes:** …", every line quoted), for a presenter's crib sheet; empty
/// when the step has none. Allocates.
pub fn markdown_notes(run: &LessonRun, k: usize) -> String {
    let notes = run.step(k).notes.trim();
    if notes.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = notes.lines().map(|l| format!("> {}", l.trim())).collect();
    format!("> **Presenter notes:**\n{}\n\n", quoted.join("\n>\n"))
}

/// The end of the Markdown document: the filled conclusion and the table
/// (the compare panel's, [`crate::measure::compare::Comparison::table_markdown`];
/// the machine is named once, in [`markdown_head`]).
pub fn markdown_tail(run: &LessonRun, machine: &Machine) -> String {
    let c = run.comparison();
    let how = if c.rows().is_empty() && !c.ws_curves().is_empty() {
        "Each working-set sweep's table gives every unit count's query ns per unit and per distance test, the median of the round medians with the smallest and largest round's; the texts' verdicts compare rounds."
    } else {
        "The table compares whole steps (\"vs baseline\": the first step's, a verdict from the rounds); every phase has its rounds' range; the texts quote the phase they name."
    };
    format!(
        "## What it showed\n\n{}\n\n{how}\n\n{}",
        plain(&run.conclusion()),
        c.table_markdown(machine)
    )
}

/// The whole lesson as one Markdown document.
pub fn to_markdown(run: &LessonRun, machine: &Machine) -> String {
    let mut s = markdown_head(run, machine);
    for k in 0..run.len() {
        s += &markdown_step(run, k);
    }
    s + &markdown_tail(run, machine)
}

/// The lesson's table as CSV: its working-set sweeps' points when it has
/// any ([`crate::measure::compare::Comparison::ws_csv`]), else its cell-size
/// sweeps' curves (cell / r, median query ms with its range, candidates per
/// neighbor) when it has sweeps, else its steps' rows ([`crate::measure::compare::Comparison::to_csv`]).
pub fn to_csv(run: &LessonRun) -> String {
    let c = run.comparison();
    if !c.ws_curves().is_empty() {
        c.ws_csv()
    } else if c.curves().is_empty() {
        c.to_csv()
    } else {
        c.curves_csv()
    }
}

/// The lesson as JSON: name, title, the machine, the unit choice, the
/// rounds, each step's id, title, filled text and index into `rows`, the
/// conclusion, `rows` ([`Row`], `bench`'s keys, each with its `rounds`; a
/// sweep step's fastest cell size; a working-set sweep step's unit counts,
/// indexed by its `sweep_rows`; a step that could not run as a skipped
/// row), the sweep curves, the working-set sweeps' curves, and `verdicts`: one entry per comparison the
/// texts state ([`LessonRun::verdicts`]: `a`, `b`, `metric`, `ratio`, `low`,
/// `high`, `verdict` as `a-faster`, `b-faster` or `within-noise`).
///
/// # Errors
/// If serde_json cannot encode a value (not expected).
pub fn to_json(run: &LessonRun) -> Result<String, String> {
    #[derive(Serialize)]
    struct StepDoc {
        id: String,
        title: String,
        text: String,
        row: Option<usize>,
        /// A working-set sweep step's rows, one per unit count, ascending.
        sweep_rows: Vec<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        predict: Option<PredictDoc>,
    }
    /// A prediction step's question and its measured answer.
    #[derive(Serialize)]
    struct PredictDoc {
        question: String,
        answer: String,
        unit: String,
        choices: Vec<f64>,
        /// The answer as shown ("4.3x (3.9–4.8x)"); null until measured.
        measured: Option<String>,
        value: Option<f64>,
        low: Option<f64>,
        high: Option<f64>,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        lesson: &'a str,
        title: &'a str,
        machine: &'a Machine,
        units_chosen: Option<usize>,
        units_why: Option<&'a str>,
        rounds: usize,
        frames_per_round: usize,
        steps: Vec<StepDoc>,
        conclusion: String,
        rows: Vec<Row>,
        sweeps: Vec<SweepCurve>,
        working_set_sweeps: Vec<WsCurve>,
        verdicts: Vec<Verdict>,
    }
    let mut rows = Vec::new();
    let mut steps = Vec::new();
    for k in 0..run.len() {
        let step = run.step(k);
        let row = run.result(k).and_then(StepResult::outcome).map(|o| {
            let mut r = Row::of(&o);
            r.label.clone_from(&step.title);
            if r.model.is_none() {
                r.model = run.model(k).cloned();
            }
            rows.push(r);
            rows.len() - 1
        });
        let mut sweep_rows = Vec::new();
        if let Some(StepResult::WorkingSet(c)) = run.result(k) {
            for o in &c.outcomes {
                let mut r = Row::of(o);
                r.label = format!(
                    "{}, {} units",
                    step.title,
                    crate::format::thousands(o.settings().units as u64)
                );
                rows.push(r);
                sweep_rows.push(rows.len() - 1);
            }
        }
        steps.push(StepDoc {
            id: step.id.clone(),
            title: step.title.clone(),
            text: plain(&run.text(k)),
            row,
            sweep_rows,
            predict: step.predict.as_ref().map(|p| {
                let m = match run.answer(k) {
                    Some(Answer::Measured(m)) => Some(m),
                    _ => None,
                };
                PredictDoc {
                    question: p.question.clone(),
                    answer: p.answer.clone(),
                    unit: p.unit.clone(),
                    choices: p.choices.clone(),
                    measured: m.as_ref().map(|m| m.shown.clone()),
                    value: m.as_ref().map(|m| m.value),
                    low: m.as_ref().map(|m| m.low),
                    high: m.as_ref().map(|m| m.high),
                }
            }),
        });
    }
    let doc = Doc {
        lesson: &run.lesson().name,
        title: &run.lesson().title,
        machine: Machine::current(),
        units_chosen: run.unit_choice().map(|c| c.units),
        units_why: run.unit_choice().map(|c| c.why.as_str()),
        rounds: run.rounds(),
        frames_per_round: run.spec().frames,
        steps,
        conclusion: plain(&run.conclusion()),
        rows,
        sweeps: run.comparison().curves().to_vec(),
        working_set_sweeps: run.comparison().ws_curves().to_vec(),
        verdicts: run.verdicts(),
    };
    serde_json::to_string_pretty(&doc)
        .map_err(|e| format!("could not encode the lesson as JSON: {e}"))
}

impl LessonRun {
    /// The chart of this run: its working-set sweeps' curves when it has
    /// any, else its cell-size sweeps' curves, else its steps' bars; titled
    /// with the lesson's title, captioned with `machine`. Allocates the
    /// chart.
    pub fn chart(&self, machine: &Machine, scale: Scale) -> Chart {
        let c = self.comparison();
        let title = &self.lesson().title;
        if !c.ws_curves().is_empty() {
            working_set_curves(c.ws_curves(), machine, title)
        } else if !c.curves().is_empty() {
            sweep_curves(c.curves(), machine, title)
        } else {
            comparison_bars(&c, machine, title, scale)
        }
    }
}
