//! Predict, then measure: a lesson step may ask the class a question
//! before it shows what was measured ("How many times faster will SoA's
//! query be?"), take a guess, and then reveal the measured answer beside
//! it with the measurement engine's range ("you guessed 2x; measured 4.3x
//! (3.9–4.8x): above your guess").
//!
//! In a lesson file:
//!
//! ```toml
//! predict = { question = "How many times faster is the grid?", answer = "{naive.query_ms / grid.query_ms}", unit = "x", choices = [2, 10, 100] }
//! ```
//!
//! `answer` is one placeholder, `{REF}` or `{REF / REF}` ([`super::text`]'s
//! references: this step's metrics and earlier steps'); `unit` is written
//! after the numbers ("x" for a ratio, "ms", "" for none); `choices`, when
//! given, are the numbers the class picks from (2 to 8 of them), else the
//! guess is typed. The step's own text stays hidden until the guess is
//! given or skipped, so the page does not answer its own question.

use std::collections::HashSet;

use super::text::{self, Context, Kind, Ref, Rounds};
use crate::measure::verdict::{judge, range_text, ratio_text, Basis, Direction, MIN_ROUNDS};

/// Most choices a prediction offers.
pub const MAX_CHOICES: usize = 8;

/// A step's question and the placeholder that answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Predict {
    /// The question, plain text.
    pub question: String,
    /// The answer's placeholder as written, braces included.
    pub answer: String,
    /// Written after every number of the answer and the guess ("x").
    pub unit: String,
    /// The numbers offered, in the file's order; empty: a typed number.
    pub choices: Vec<f64>,
    /// The answer's reference (the numerator of a ratio).
    a: Ref,
    /// The ratio's denominator, if the answer is a ratio.
    b: Option<Ref>,
}

/// The measured answer to a prediction.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A side is not measured yet.
    Pending,
    /// A side did not run here (a kernel this CPU lacks, a guard).
    NotRun,
    /// Both sides ran, but no ratio can be taken: the denominator measured
    /// 0 (below the clock's resolution) or a value is not a number.
    Incomparable,
    /// Measured.
    Measured(Measured),
}

/// A measured answer: its value and the range its rounds span.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The median (of a ratio: the medians' ratio).
    pub value: f64,
    /// The smallest the rounds allow (a ratio: `min(a) / max(b)`).
    pub low: f64,
    /// The largest the rounds allow (a ratio: `max(a) / min(b)`).
    pub high: f64,
    /// Rounds behind the smaller side.
    pub rounds: usize,
    /// A ratio whose range holds 1: no difference beyond the noise.
    pub within_noise: bool,
    /// Too few rounds of a timing to tell it from noise (fewer than the
    /// verdicts' [`MIN_ROUNDS`]); never set for exact counts.
    pub too_few: bool,
    /// As shown: "4.3x (3.9–4.8x)", "2.9x", "12.5 ms (12.1–13.0)".
    pub shown: String,
}

/// A guess against its measured answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grade {
    /// Inside the measured range.
    Inside,
    /// The measured range lies wholly above the guess.
    Above,
    /// The measured range lies wholly below the guess.
    Below,
}

impl Predict {
    /// Parses a step's prediction: `question` (non-empty), `answer` (one
    /// placeholder naming metrics of step `this` or the `known` earlier
    /// ones), `unit`, `choices` (2 to [`MAX_CHOICES`] finite numbers > 0
    /// for a ratio, finite for others, no repeats; empty for a typed guess).
    ///
    /// # Errors
    /// The field at fault and what is wrong with it, for the lesson file's
    /// one-line message: `("answer", "…")`.
    pub fn parse(
        question: &str,
        answer: &str,
        unit: &str,
        choices: &[f64],
        known: &HashSet<&str>,
        this: &str,
    ) -> Result<Predict, (&'static str, String)> {
        if question.trim().is_empty() {
            return Err(("question", "the question is empty".to_string()));
        }
        if answer.contains(['(', '?']) || answer.trim_start().starts_with("{if") {
            return Err((
                "answer",
                format!("{answer}: an answer is one metric or the ratio of two; verdict(...) and {{if ...}} belong in the step's text"),
            ));
        }
        let body = answer
            .trim()
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .filter(|b| !b.contains(['{', '}']))
            .ok_or_else(|| {
                (
                    "answer",
                    format!("must be one placeholder, {{STEP.METRIC}} or {{STEP.METRIC / STEP.METRIC}}, got \"{answer}\""),
                )
            })?;
        let refer = |r: &str| {
            text::metrics::parse_ref(r, known, Some(this))
                .map_err(|m| ("answer", format!("{answer}: {m}")))
        };
        let (a, b) = match body.split_once('/') {
            Some((x, y)) => (refer(x)?, Some(refer(y)?)),
            None => (refer(body)?, None),
        };
        if std::iter::once(&a)
            .chain(b.as_ref())
            .any(|r| r.kind() == Kind::Words)
        {
            return Err((
                "answer",
                format!("{answer}: an answer is a number; that metric is words"),
            ));
        }
        if let Some(b) = &b {
            if a == *b {
                return Err((
                    "answer",
                    format!("{answer}: a metric over itself is always 1"),
                ));
            }
            if a.kind() != b.kind() {
                return Err((
                    "answer",
                    format!("{answer}: a ratio compares like with like; these two metrics are measured in different units"),
                ));
            }
            if !matches!(unit.trim(), "" | "x") {
                return Err((
                    "unit",
                    format!("a ratio's unit is \"x\" (or none), got \"{}\"", unit.trim()),
                ));
            }
        }
        if !choices.is_empty() {
            let ratio = b.is_some();
            if choices.len() < 2 || choices.len() > MAX_CHOICES {
                return Err((
                    "choices",
                    format!("give from 2 to {MAX_CHOICES} numbers, or none for a typed guess"),
                ));
            }
            if let Some(c) = choices
                .iter()
                .find(|c| !c.is_finite() || (ratio && **c <= 0.0))
            {
                return Err((
                    "choices",
                    format!("{c} is not a number the answer can be (a ratio's choices are > 0)"),
                ));
            }
            for (i, c) in choices.iter().enumerate() {
                if choices[..i].contains(c) {
                    return Err(("choices", format!("{c} is offered twice")));
                }
            }
        }
        Ok(Predict {
            question: question.trim().to_string(),
            answer: answer.trim().to_string(),
            unit: unit.trim().to_string(),
            choices: choices.to_vec(),
            a,
            b,
        })
    }

    /// The references the answer reads, in order.
    pub fn refs(&self) -> Vec<Ref> {
        std::iter::once(self.a.clone())
            .chain(self.b.clone())
            .collect()
    }

    /// True when the answer is a ratio of two references.
    pub fn is_ratio(&self) -> bool {
        self.b.is_some()
    }

    /// The answer from what `cx` has measured so far. A ratio's range and
    /// noise come from [`judge`] on the two sides' rounds (the verdicts'
    /// rule); a single value's range is its rounds' smallest and largest.
    /// Allocates the shown text.
    pub fn answer(&self, cx: &Context<'_>) -> Answer {
        let values = |r: &Ref| match cx.rounds(r) {
            Rounds::Pending => Err(Answer::Pending),
            Rounds::NotRun => Err(Answer::NotRun),
            Rounds::Values { values, exact, .. } => Ok((values, exact)),
        };
        let (va, ea) = match values(&self.a) {
            Ok(v) => v,
            Err(a) => return a,
        };
        let m = match &self.b {
            Some(b) => {
                let (vb, eb) = match values(b) {
                    Ok(v) => v,
                    Err(a) => return a,
                };
                let Some(j) = judge(&va, &vb, ea && eb) else {
                    return Answer::Incomparable;
                };
                let fixed = j.low == j.high || (j.p.is_none() && j.basis == Basis::Separated);
                let too_few = j.basis == Basis::TooFewRounds;
                let within_noise = j.verdict == Direction::WithinNoise && !too_few;
                let ratio = self.with_unit(&ratio_text(j.ratio));
                let shown = if fixed {
                    ratio
                } else {
                    format!("{ratio} ({})", self.range(j.low, j.high))
                };
                Measured {
                    value: j.ratio,
                    low: j.low,
                    high: j.high,
                    rounds: j.rounds_a.min(j.rounds_b),
                    within_noise,
                    too_few,
                    shown,
                }
            }
            None => {
                let mut sorted = va.clone();
                sorted.sort_by(f64::total_cmp);
                let value = crate::measure::spread::median(&mut sorted);
                let (low, high) = (sorted[0], sorted[sorted.len() - 1]);
                let kind = self.a.kind();
                let num = |x: f64| text::number_text(x, kind);
                let shown = if low == high {
                    self.with_unit(&num(value))
                } else {
                    format!(
                        "{} ({}–{})",
                        self.with_unit(&num(value)),
                        num(low),
                        num(high)
                    )
                };
                Measured {
                    value,
                    low,
                    high,
                    rounds: va.len(),
                    within_noise: false,
                    too_few: !ea && va.len() < MIN_ROUNDS,
                    shown,
                }
            }
        };
        Answer::Measured(m)
    }

    /// A range of a ratio with the unit: "3.9–4.8x" ([`range_text`]'s
    /// digits) or "3.9–4.8 ms".
    fn range(&self, lo: f64, hi: f64) -> String {
        let r = range_text(lo, hi);
        let r = r.strip_suffix('x').unwrap_or(&r);
        self.with_unit(r)
    }

    /// `number` with the unit: "4.3x", "12 ms", "12" without one.
    fn with_unit(&self, number: &str) -> String {
        match self.unit.as_str() {
            "" => number.to_string(),
            "x" | "%" => format!("{number}{}", self.unit),
            u => format!("{number} {u}"),
        }
    }

    /// A guess written as the answer is: "2x", "12 ms".
    pub fn guess_text(&self, guess: f64) -> String {
        // As typed: "2", "2.5", "0.25" (at most 3 decimals).
        let n = if guess.fract() == 0.0 && guess.abs() < 1e15 {
            crate::format::thousands(guess.abs() as u64)
        } else {
            let t = format!("{:.3}", guess.abs());
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let n = if guess < 0.0 { format!("-{n}") } else { n };
        self.with_unit(&n)
    }

    /// The choice nearest to the measured value (by ratio for a ratio's
    /// choices, by difference otherwise); `None` without choices.
    pub fn nearest_choice(&self, m: &Measured) -> Option<f64> {
        let dist = |c: f64| {
            if self.is_ratio() && c > 0.0 && m.value > 0.0 {
                (c / m.value).ln().abs()
            } else {
                (c - m.value).abs()
            }
        };
        self.choices
            .iter()
            .copied()
            .min_by(|x, y| dist(*x).total_cmp(&dist(*y)))
    }

    /// The reveal: "you guessed 2x; measured 4.3x (3.9–4.8x): the measured
    /// range is above your guess" (or "… inside the measured range", "…
    /// below your guess"; a ratio whose range holds 1 adds "no difference
    /// beyond this machine's noise"), then the choice nearest the value
    /// ("(nearest choice: 3x)", or "; your guess was the nearest choice"
    /// when it was); without a guess "measured 4.3x
    /// (3.9–4.8x)". Timings from fewer than [`MIN_ROUNDS`] rounds are
    /// shown but not graded ("too few to tell from noise, so not graded"):
    /// no direction is claimed that the rounds cannot support. Pending,
    /// not-run and incomparable answers say so. Allocates the text.
    pub fn reveal(&self, guess: Option<f64>, answer: &Answer) -> String {
        let you = guess.map(|g| format!("you guessed {}; ", self.guess_text(g)));
        let you = you.unwrap_or_default();
        let m = match answer {
            Answer::Pending => return format!("{you}not measured yet"),
            Answer::NotRun => return format!("{you}not measured here (see the step)"),
            Answer::Incomparable => {
                return format!(
                    "{you}no ratio here: a side measured 0 (below this clock's resolution) or no number"
                )
            }
            Answer::Measured(m) => m,
        };
        let mut out = format!("{you}measured {}", m.shown);
        if m.too_few {
            // No direction from rounds that cannot be told from noise.
            out += &format!(
                ", from {}: too few to tell from noise, so not graded",
                crate::format::counted(m.rounds, "round")
            );
            return out;
        }
        if m.within_noise {
            out += ", no difference beyond this machine's noise";
        }
        if let Some(g) = guess {
            let fixed = m.low == m.high;
            out += match (grade(g, m), fixed) {
                (Grade::Inside, false) => ": your guess is inside the measured range",
                (Grade::Inside, true) => ": within 5% of your guess",
                (Grade::Above, false) => ": the measured range is above your guess",
                (Grade::Above, true) => ": above your guess",
                (Grade::Below, false) => ": the measured range is below your guess",
                (Grade::Below, true) => ": below your guess",
            };
            if let (Some(c), false) = (self.nearest_choice(m), self.choices.is_empty()) {
                // A guess that was the nearest choice says so, instead of
                // naming itself as the choice to have made.
                if c == g {
                    out += "; your guess was the nearest choice";
                } else {
                    out += &format!(" (nearest choice: {})", self.guess_text(c));
                }
            }
        }
        out
    }
}

/// Where `guess` falls against the measured range of `m`; a value that
/// does not vary (a count) counts as inside within 5% of the guess.
pub fn grade(guess: f64, m: &Measured) -> Grade {
    let slack = if m.low == m.high {
        0.05 * m.value.abs()
    } else {
        0.0
    };
    if guess < m.low - slack {
        Grade::Above
    } else if guess > m.high + slack {
        Grade::Below
    } else {
        Grade::Inside
    }
}

/// What the class did with a prediction step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Guess {
    /// A number (typed or picked).
    Number(f64),
    /// Revealed without a guess (Page Down, "Show the answer").
    Skipped,
}

impl Guess {
    /// The number guessed, if one was.
    pub fn number(self) -> Option<f64> {
        match self {
            Guess::Number(x) => Some(x),
            Guess::Skipped => None,
        }
    }
}

/// Reads a typed guess: a number, optionally with the unit or an "x"
/// after it ("4", "4.5x", "12 ms", "1,200"); `None` when it is not one
/// finite number.
pub fn parse_guess(typed: &str, unit: &str) -> Option<f64> {
    let t = typed.trim();
    let t = t.strip_suffix(unit.trim()).unwrap_or(t).trim();
    let t = t.strip_suffix(['x', 'X', '×']).unwrap_or(t).trim();
    let t: String = t.chars().filter(|c| *c != ',' && *c != '_').collect();
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> HashSet<&'static str> {
        ["a", "b"].into_iter().collect()
    }

    #[test]
    fn an_answer_is_one_placeholder_of_numbers() {
        let p = Predict::parse("q?", "{a.query_ms / b.query_ms}", "x", &[], &known(), "b").unwrap();
        assert!(p.is_ratio());
        assert_eq!(p.refs().len(), 2);
        let p = Predict::parse("q?", " {query_ms} ", "ms", &[], &known(), "b").unwrap();
        assert!(!p.is_ratio());
        for bad in [
            "a.query_ms",
            "{a.query_ms} and {b.query_ms}",
            "{nope.query_ms}",
            "{a.no_such}",
            "{machine.cpu}",
        ] {
            let e = Predict::parse("q?", bad, "", &[], &known(), "b").unwrap_err();
            assert_eq!(e.0, "answer", "{bad}: {e:?}");
        }
        assert_eq!(
            Predict::parse(" ", "{query_ms}", "", &[], &known(), "b")
                .unwrap_err()
                .0,
            "question"
        );
    }

    #[test]
    fn choices_are_two_to_eight_distinct_numbers() {
        let p = |c: &[f64]| Predict::parse("q", "{a.query_ms / b.query_ms}", "x", c, &known(), "b");
        assert!(p(&[1.0, 2.0, 4.0]).is_ok());
        assert_eq!(p(&[2.0]).unwrap_err().0, "choices");
        assert_eq!(p(&[2.0, 2.0]).unwrap_err().0, "choices");
        assert_eq!(p(&[0.0, 2.0]).unwrap_err().0, "choices");
        assert_eq!(p(&[1.0; 9]).unwrap_err().0, "choices");
    }

    #[test]
    fn a_guess_is_graded_against_the_measured_range() {
        let m = Measured {
            value: 4.3,
            low: 3.9,
            high: 4.8,
            rounds: 5,
            within_noise: false,
            too_few: false,
            shown: "4.3x (3.9–4.8x)".into(),
        };
        assert_eq!(grade(2.0, &m), Grade::Above);
        assert_eq!(grade(4.0, &m), Grade::Inside);
        assert_eq!(grade(9.0, &m), Grade::Below);
        let count = Measured {
            value: 10.7,
            low: 10.7,
            high: 10.7,
            ..m.clone()
        };
        assert_eq!(grade(11.0, &count), Grade::Inside, "within 5%");
        assert_eq!(grade(12.0, &count), Grade::Below);
        let p = Predict::parse(
            "q",
            "{a.query_ms / b.query_ms}",
            "x",
            &[1.0, 3.0, 10.0],
            &known(),
            "b",
        )
        .unwrap();
        let said = p.reveal(Some(2.0), &Answer::Measured(m.clone()));
        assert_eq!(
            said,
            "you guessed 2x; measured 4.3x (3.9–4.8x): the measured range is above your guess (nearest choice: 3x)"
        );
        // A guess that is the nearest choice is not offered as the choice
        // to have made, whether the range lies beside it or holds it.
        assert_eq!(
            p.reveal(Some(3.0), &Answer::Measured(m.clone())),
            "you guessed 3x; measured 4.3x (3.9–4.8x): the measured range is above your guess; your guess was the nearest choice"
        );
        let holds = Measured {
            value: 3.1,
            low: 2.8,
            high: 3.4,
            shown: "3.1x (2.8–3.4x)".into(),
            ..m.clone()
        };
        assert_eq!(
            p.reveal(Some(3.0), &Answer::Measured(holds)),
            "you guessed 3x; measured 3.1x (2.8–3.4x): your guess is inside the measured range; your guess was the nearest choice"
        );
        assert_eq!(
            p.reveal(None, &Answer::Measured(m)),
            "measured 4.3x (3.9–4.8x)"
        );
        assert_eq!(
            p.reveal(Some(2.0), &Answer::Pending),
            "you guessed 2x; not measured yet"
        );
    }

    #[test]
    fn typed_guesses_take_units_and_separators() {
        assert_eq!(parse_guess("4", "x"), Some(4.0));
        assert_eq!(parse_guess(" 4.5x ", "x"), Some(4.5));
        assert_eq!(parse_guess("12 ms", "ms"), Some(12.0));
        assert_eq!(parse_guess("1,200", ""), Some(1200.0));
        assert_eq!(parse_guess("four", "x"), None);
        assert_eq!(parse_guess("inf", "x"), None);
        assert_eq!(parse_guess("", "x"), None);
    }
}
