//! Lesson texts with placeholders filled from what the steps measured.
//!
//! A placeholder is one of
//! - `{REF}`: a value; `{REF / REF}`: a ratio of two;
//! - `{verdict(REF, REF)}`: what the two references' rounds say about
//!   which is lower ([`crate::measure::verdict`]), as a phrase: "4.3x
//!   faster (3.9–4.8x)", "1.3x slower (1.2–1.4x)", "no faster or slower
//!   beyond this machine's noise (0.91–1.20x the other's time)" (for counts: fewer, more, the
//!   same);
//! - a conditional block, `{if REF < REF}…{elif REF > REF}…{else}…{end}`:
//!   `<` holds when the rounds show the first lower than the second, `>`
//!   when higher, `~` when neither (within noise, or too few rounds); the
//!   first branch that holds is shown, else the `else` branch, else
//!   nothing. Blocks nest, and hold placeholders. While a side is not
//!   measured the block shows [`PENDING`]; where a side did not run, nothing.
//!   `{if ran(STEP)}` holds when step `STEP` runs on this build and machine
//!   (known before it is measured), so a text can say in other words what
//!   a step that cannot run here would have shown: `{if ran(avx2)}…{else}…{end}`.
//!
//! `REF` is
//! - `STEP.METRIC`: a metric of the step with id `STEP` ([`METRICS`]);
//! - `METRIC`: the same metric of the step whose text it is;
//! - `machine.cpu`, `machine.cores`, `machine.llc` (the last-level cache:
//!   "L3 (32 MiB)");
//! - `lesson.units` (the count chosen from the cache), `lesson.units_why`,
//!   `lesson.rounds` and `lesson.frames` (counted frames per step and round).
//!
//! A claim of direction ("faster", "fewer", "speedup", ...) belongs in a
//! verdict or a conditional block, never in plain text beside a number
//! that could contradict it ([`super::claims`] checks the bundled lessons).
//!
//! `{{` and `}}` are literal braces. A value not measured yet is shown as
//! [`PENDING`]; one of a step that could not run as [`NOT_RUN`]. Numbers
//! are formatted by their kind ([`Kind`]), a ratio with two significant
//! digits (`58`, `3.4`).

pub mod metrics;
mod parse;

use std::collections::HashSet;
use std::fmt::Write as _;

use toml::Spanned;

use crate::format::{length, size, thousands};
use crate::measure::verdict::{judge, Direction, Verdict, Words};
use crate::settings::scenario::{line_of, ScenarioError};

pub use metrics::{metric, step_metric, Context, Ref, Rounds, Value, METRICS, NORMAL_DIRECTIONS};

/// Shown for a value not measured yet.
pub const PENDING: &str = "…";
/// Shown for a value of a step that did not run (the reason is the step's).
pub const NOT_RUN: &str = "(not run)";

/// How a metric's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Milliseconds: 3 significant digits, at most 3 decimals.
    Ms,
    /// Nanoseconds (per unit, per candidate test): written as milliseconds
    /// are; a time, so its verdicts say faster and slower.
    Ns,
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

/// How a condition compares its two references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `<`: the first is lower (faster, fewer) beyond the noise.
    Lower,
    /// `>`: the first is higher beyond the noise.
    Higher,
    /// `~`: neither is lower beyond the noise.
    Same,
}

impl Op {
    /// True when the verdict `d` is the one this operator asks for.
    fn holds(self, d: Direction) -> bool {
        matches!(
            (self, d),
            (Op::Lower, Direction::AFaster)
                | (Op::Higher, Direction::BFaster)
                | (Op::Same, Direction::WithinNoise)
        )
    }
}

/// The condition of a conditional branch, as written and as parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    /// As written, trimmed.
    pub expr: String,
    /// What it tests.
    pub test: Test,
}

/// What a condition tests.
#[derive(Clone, Debug, PartialEq)]
pub enum Test {
    /// `A < B`, `A > B` or `A ~ B`, where `A` may carry a factor (`A * 2 >
    /// B`: A's values doubled, so the branch holds when B is more than
    /// twice A beyond the noise).
    Compare {
        /// The first reference.
        a: Ref,
        /// The factor on the first reference's values (1 without one).
        factor: f64,
        /// The comparison.
        op: Op,
        /// The second reference.
        b: Ref,
    },
    /// `ran(STEP)`: the step runs on this build and machine (its kernel
    /// exists here, its threads can start, no guard skipped it), so a text
    /// can say something else where it cannot.
    Ran(String),
}

/// One part of a template.
#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    /// `{a}` or `{a / b}`, as written.
    Value(String, Ref, Option<Ref>),
    /// `{verdict(a, b)}`, as written.
    Verdict(String, Ref, Ref),
    /// `{if …}…{elif …}…{else}…{end}`.
    If {
        branches: Vec<(Cond, Template)>,
        otherwise: Option<Template>,
    },
}

/// A text with placeholders, parsed and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

/// One piece of a rendered text.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Plain text, shown whatever was measured.
    Text(String),
    /// Text of a conditional branch, shown because its condition held.
    Backed {
        /// The text.
        text: String,
        /// The condition that held (`grid.query_ms < naive.query_ms`, or
        /// `else` after conditions that did not).
        by: String,
    },
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
            Piece::Text(t) | Piece::Backed { text: t, .. } => s += t,
            Piece::Value { shown, .. } => s += shown,
        }
    }
    s
}

/// The verdicts among `pieces` (each verdict placeholder's), in order.
pub fn verdicts_in(pieces: &[Piece]) -> impl Iterator<Item = &Verdict> + '_ {
    pieces.iter().filter_map(|p| match p {
        Piece::Value {
            value: Value::Verdict(v),
            ..
        } => Some(v.as_ref()),
        _ => None,
    })
}

/// What a condition's references say now.
enum Decision {
    /// A side is not measured yet.
    Pending,
    /// A side did not run, or the two cannot be compared.
    Nothing,
    /// The verdict.
    Judged(Verdict),
}

impl Template {
    /// Parses the text `v` of a lesson file (whose whole text is `text`,
    /// named `file`), checking every placeholder against the metrics and
    /// the step ids `known`; `this` is the id of the step it belongs to.
    ///
    /// # Errors
    /// One line naming the file, the placeholder's line and the `text`
    /// field: an unclosed `{`, a lone `}`, a metric or step that does not
    /// exist, a ratio or comparison of words, a condition without its
    /// operator, an `{if}` without its `{end}` or an `{end}` without its `{if}`.
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
        let src = parse::Source {
            body,
            text,
            file,
            field: if this.is_some() { "text" } else { "conclusion" },
            first_line: line_of(text, span.start) + skip,
            raw: (raw, span.start),
            known,
            this,
        };
        let toks = src.tokens()?;
        let mut i = 0;
        let t = src.parts(&toks, &mut i, 0)?;
        Ok(t)
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
        let mut out = Vec::new();
        self.render_into(cx, None, &mut out);
        out
    }

    /// Renders into `out`; `by` is the condition that holds for this part
    /// of the text, if it is a branch.
    fn render_into(&self, cx: &Context<'_>, by: Option<&str>, out: &mut Vec<Piece>) {
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push(match by {
                    Some(c) => Piece::Backed {
                        text: t.clone(),
                        by: c.to_string(),
                    },
                    None => Piece::Text(t.clone()),
                }),
                Part::Value(expr, a, b) => {
                    let va = cx.value(a);
                    let (value, k) = match b {
                        None => (va, a.kind()),
                        Some(b) => (ratio(va, cx.value(b)), Kind::Mean),
                    };
                    let shown = match (&value, b) {
                        (Value::Number(x), Some(_)) => ratio_text(*x),
                        (v, _) => show(v, k),
                    };
                    out.push(Piece::Value {
                        expr: expr.clone(),
                        value,
                        shown,
                    });
                }
                Part::Verdict(expr, a, b) => {
                    let (value, shown) = match decide(cx, a, b) {
                        Decision::Pending => (Value::Pending, PENDING.to_string()),
                        Decision::Nothing => (Value::NotRun, NOT_RUN.to_string()),
                        Decision::Judged(v) => {
                            let words = if matches!(a.kind(), Kind::Ms | Kind::Ns) {
                                Words::Time
                            } else {
                                Words::Count
                            };
                            let shown = phrase(&v, words);
                            (Value::Verdict(Box::new(v)), shown)
                        }
                    };
                    out.push(Piece::Value {
                        expr: expr.clone(),
                        value,
                        shown,
                    });
                }
                Part::If {
                    branches,
                    otherwise,
                } => render_block(cx, branches, otherwise.as_ref(), out),
            }
        }
    }

    /// Every verdict the template states, with the values of `cx`: each
    /// verdict placeholder's and each condition's (of every branch, taken
    /// or not), in text order, repeats dropped.
    pub fn verdicts(&self, cx: &Context<'_>, out: &mut Vec<Verdict>) {
        for (a, factor, b) in self.comparisons() {
            if let Decision::Judged(mut v) = decide_scaled(cx, &a, factor, &b) {
                if factor != 1.0 {
                    // A scaled condition: "avx2.query_ms * 2 > sse.query_ms".
                    v.a = format!("{} * {factor}", v.a);
                }
                let same = |w: &Verdict| (&w.a, &w.b, &w.metric) == (&v.a, &v.b, &v.metric);
                if !out.iter().any(same) {
                    out.push(v);
                }
            }
        }
    }

    /// Every reference the template names (values, ratios, verdicts and
    /// conditions, nested ones too), in text order, repeats kept.
    pub fn refs(&self) -> Vec<Ref> {
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                Part::Text(_) => {}
                Part::Value(_, a, b) => out.extend(std::iter::once(a.clone()).chain(b.clone())),
                Part::Verdict(_, a, b) => out.extend([a.clone(), b.clone()]),
                Part::If {
                    branches,
                    otherwise,
                } => {
                    for (c, t) in branches {
                        if let Test::Compare { a, b, .. } = &c.test {
                            out.extend([a.clone(), b.clone()]);
                        }
                        out.extend(t.refs());
                    }
                    if let Some(t) = otherwise {
                        out.extend(t.refs());
                    }
                }
            }
        }
        out
    }

    /// The pairs of references the template compares (verdicts and
    /// conditions, nested ones too), in text order.
    pub fn compared(&self) -> Vec<(Ref, Ref)> {
        self.comparisons()
            .into_iter()
            .map(|(a, _, b)| (a, b))
            .collect()
    }

    /// [`Template::compared`] with each condition's factor on its first
    /// reference (1 for verdicts and unscaled conditions).
    fn comparisons(&self) -> Vec<(Ref, f64, Ref)> {
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                Part::Verdict(_, a, b) => out.push((a.clone(), 1.0, b.clone())),
                Part::If {
                    branches,
                    otherwise,
                } => {
                    for (c, t) in branches {
                        if let Test::Compare { a, factor, b, .. } = &c.test {
                            out.push((a.clone(), *factor, b.clone()));
                        }
                        out.extend(t.comparisons());
                    }
                    if let Some(t) = otherwise {
                        out.extend(t.comparisons());
                    }
                }
                Part::Text(_) | Part::Value(..) => {}
            }
        }
        out
    }
}

/// The verdict phrase of `v` ([`crate::measure::verdict::Judgement::phrase`]).
fn phrase(v: &Verdict, words: Words) -> String {
    let j = crate::measure::verdict::Judgement {
        ratio: v.ratio,
        low: v.low,
        high: v.high,
        verdict: v.verdict,
        basis: v.basis,
        rounds_a: v.rounds.0,
        rounds_b: v.rounds.1,
        p: v.p,
    };
    j.phrase(words)
}

/// Judges references `a` against `b` from their rounds.
fn decide(cx: &Context<'_>, a: &Ref, b: &Ref) -> Decision {
    decide_scaled(cx, a, 1.0, b)
}

/// Judges `factor` times reference `a` against `b` from their rounds.
fn decide_scaled(cx: &Context<'_>, a: &Ref, factor: f64, b: &Ref) -> Decision {
    let (ra, rb) = (cx.rounds(a), cx.rounds(b));
    let (va, ea, ga, vb, eb, gb) = match (ra, rb) {
        (Rounds::Pending, _) | (_, Rounds::Pending) => return Decision::Pending,
        (
            Rounds::Values {
                values: va,
                exact: ea,
                group: ga,
            },
            Rounds::Values {
                values: vb,
                exact: eb,
                group: gb,
            },
        ) => (
            va.iter().map(|v| v * factor).collect::<Vec<f64>>(),
            ea,
            ga,
            vb,
            eb,
            gb,
        ),
        _ => return Decision::Nothing,
    };
    let Some(j) = judge(&va, &vb, ea && eb) else {
        return Decision::Nothing;
    };
    let (oa, metric) = a.names();
    let (ob, _) = b.names();
    Decision::Judged(Verdict::new(&oa, &ob, &metric, &j, ga == gb))
}

/// Renders the first branch whose condition holds (or `otherwise`); one
/// [`PENDING`] while a condition waits for a measurement; nothing when a
/// condition cannot be judged.
fn render_block(
    cx: &Context<'_>,
    branches: &[(Cond, Template)],
    otherwise: Option<&Template>,
    out: &mut Vec<Piece>,
) {
    for (c, t) in branches {
        let (a, factor, op, b) = match &c.test {
            Test::Compare { a, factor, op, b } => (a, *factor, *op, b),
            Test::Ran(step) if cx.ran(step) => {
                t.render_into(cx, Some(&c.expr), out);
                return;
            }
            Test::Ran(_) => continue,
        };
        match decide_scaled(cx, a, factor, b) {
            Decision::Pending => {
                out.push(Piece::Value {
                    expr: format!("if {}", c.expr),
                    value: Value::Pending,
                    shown: PENDING.to_string(),
                });
                return;
            }
            Decision::Nothing => return,
            Decision::Judged(v) if op.holds(v.verdict) => {
                t.render_into(cx, Some(&c.expr), out);
                return;
            }
            Decision::Judged(_) => {}
        }
    }
    if let Some(t) = otherwise {
        t.render_into(cx, Some("else"), out);
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

/// A ratio as the verdicts write one ([`crate::measure::verdict::ratio_text`]:
/// `58`, `3.4`, `1.03`, `0.52`); [`NOT_RUN`] when not finite.
pub fn ratio_text(x: f64) -> String {
    if !x.is_finite() {
        return NOT_RUN.to_string();
    }
    crate::measure::verdict::ratio_text(x)
}

/// `v` written as its kind says.
pub fn show(v: &Value, k: Kind) -> String {
    match v {
        Value::Pending => PENDING.to_string(),
        Value::NotRun => NOT_RUN.to_string(),
        Value::Words(w) => w.clone(),
        Value::Verdict(v) => phrase(v, Words::Time),
        Value::Number(x) => number_text(*x, k),
    }
}

/// A number written as kind `k` says.
pub fn number_text(x: f64, k: Kind) -> String {
    match k {
        Kind::Ms | Kind::Ns | Kind::Degrees => {
            let a = x.abs();
            if a >= 100.0 {
                thousands(x.round() as u64)
            } else if a >= 10.0 {
                format!("{x:.1}")
            } else if a >= 1.0 || k != Kind::Degrees {
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
