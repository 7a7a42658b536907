//! Verdicts: what the rounds of two measurements say about which one is
//! lower, in words that cannot claim more than the rounds show.
//!
//! The rule ([`judge`]): `a` is lower than `b` only when every round of `a`
//! is below every round of `b` (the rounds' ranges separate), and likewise
//! the other way; otherwise the two are "within this machine's noise". With
//! `n` rounds on each side, ranges that separate by chance when nothing
//! differs (every ordering of the 2n round medians equally likely) have a
//! probability of `2 / C(2n, n)`: 0.1 with 3 rounds, 0.029 with 4, 0.008
//! with 5 (the Mann-Whitney U test at U = 0, two-sided; Mann & Whitney,
//! Ann. Math. Statist. 18, 1947). Fewer than [`MIN_ROUNDS`] rounds on
//! either side give no verdict at all.
//!
//! The ratio quoted is `median(a) / median(b)`, its range the extremes
//! `min(a) / max(b)` to `max(a) / min(b)`: the range excludes 1 exactly when
//! the rounds separate, so a quoted range and its verdict always agree.

use serde::Serialize;

use crate::format::thousands;

/// Fewest rounds on each side for a verdict on a measured time.
pub const MIN_ROUNDS: usize = 3;

/// Exact counts that differ by at most this fraction are "the same" (a few
/// candidates in tens of thousands): a direction is not worth a sentence.
pub const EXACT_SAME: f64 = 1e-3;

/// Which of two values is lower, as the rounds show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// `a` is lower (faster, fewer) in every round than `b` in any.
    AFaster,
    /// `b` is lower in every round than `a` in any.
    BFaster,
    /// The rounds overlap (or are too few): no direction is claimed.
    WithinNoise,
}

/// Why a judgement came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The rounds' ranges separate.
    Separated,
    /// The rounds' ranges overlap.
    Overlap,
    /// The same value in every round on both sides (a count that does not
    /// vary), or counts within [`EXACT_SAME`] of each other: equal.
    Equal,
    /// Fewer than [`MIN_ROUNDS`] rounds on a side: no verdict.
    TooFewRounds,
}

/// How the values compared are worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// Times: faster / slower.
    Time,
    /// Counts and means: fewer / more.
    Count,
}

/// Two sets of round values judged against each other.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// `median(a) / median(b)`.
    pub ratio: f64,
    /// `min(a) / max(b)`.
    pub low: f64,
    /// `max(a) / min(b)`.
    pub high: f64,
    /// The direction the rounds support.
    pub verdict: Direction,
    /// Why.
    pub basis: Basis,
    /// Rounds of `a`.
    pub rounds_a: usize,
    /// Rounds of `b`.
    pub rounds_b: usize,
    /// Chance of ranges this separated when nothing differs (two-sided),
    /// when they separate: `2 / C(na + nb, na)`.
    pub p: Option<f64>,
}

/// The median of `v` (not empty).
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    super::spread::median(&mut s)
}

/// `C(n, k)` as a float.
fn choose(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The chance that `na` and `nb` rounds of two equal things come out with
/// separate ranges, in either direction: `2 / C(na + nb, na)` (at most 1).
pub fn separation_chance(na: usize, nb: usize) -> f64 {
    (2.0 / choose(na + nb, na)).min(1.0)
}

/// Judges the round values `a` against `b` (times in ms, counts, means:
/// lower is "faster"). `exact` says the values are counts that the same
/// frames reproduce exactly (candidates, neighbors): those need no minimum
/// of rounds when neither side varies. `None` when a side is empty, a value
/// is not finite, or a ratio would divide by zero (`b`'s smallest is 0 while
/// `a` is not all zero). Allocates a copy of each side.
pub fn judge(a: &[f64], b: &[f64], exact: bool) -> Option<Judgement> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|v| !v.is_finite() || *v < 0.0) {
        return None;
    }
    let lo = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (amin, amax, bmin, bmax) = (lo(a), hi(a), lo(b), hi(b));
    let (ma, mb) = (median(a), median(b));
    let fixed = amin == amax && bmin == bmax;
    // Exact counts within a thousandth of each other: the same, for people.
    let close = exact && fixed && (amin - bmin).abs() <= EXACT_SAME * amin.max(bmin);
    if fixed && amin == bmin || close {
        let r = if bmin > 0.0 { amin / bmin } else { 1.0 };
        return Some(Judgement {
            ratio: r,
            low: r,
            high: r,
            verdict: Direction::WithinNoise,
            basis: Basis::Equal,
            rounds_a: a.len(),
            rounds_b: b.len(),
            p: None,
        });
    }
    if bmin <= 0.0 || mb <= 0.0 {
        return None;
    }
    let (ratio, low, high) = (ma / mb, amin / bmax, amax / bmin);
    let (na, nb) = (a.len(), b.len());
    let enough = (exact && fixed) || (na >= MIN_ROUNDS && nb >= MIN_ROUNDS);
    let (verdict, basis) = if !enough {
        (Direction::WithinNoise, Basis::TooFewRounds)
    } else if high < 1.0 {
        (Direction::AFaster, Basis::Separated)
    } else if low > 1.0 {
        (Direction::BFaster, Basis::Separated)
    } else {
        (Direction::WithinNoise, Basis::Overlap)
    };
    let p = (basis == Basis::Separated && !(exact && fixed)).then(|| separation_chance(na, nb));
    Some(Judgement {
        ratio,
        low,
        high,
        verdict,
        basis,
        rounds_a: na,
        rounds_b: nb,
        p,
    })
}

/// A ratio for people: no decimals from 10 on ("58"), one from 1.5 ("2.4"),
/// two below ("1.03", "0.91"), three within 1% of 1 ("1.002"), so that a
/// ratio other than 1 never reads "1.00"; thousands separated.
pub fn ratio_text(x: f64) -> String {
    fixed(x, decimals(x))
}

/// The decimals [`ratio_text`] writes `x` with.
fn decimals(x: f64) -> usize {
    if x >= 10.0 {
        0
    } else if x >= 1.5 {
        1
    } else if x != 1.0 && (x - 1.0).abs() < 0.01 {
        3
    } else {
        2
    }
}

/// `x` with `d` decimals, thousands separated when whole; "∞" when not finite.
fn fixed(x: f64, d: usize) -> String {
    if !x.is_finite() {
        "∞".to_string()
    } else if d == 0 {
        thousands(x.round() as u64)
    } else {
        format!("{x:.d$}")
    }
}

/// "3.9–4.8x", "1.36–1.80x", "1.96–2.04x": a range of ratios, both ends
/// with the decimals the finer of them needs, and more (up to 3) while the
/// two ends would read the same.
pub fn range_text(lo: f64, hi: f64) -> String {
    let mut d = decimals(lo).max(decimals(hi));
    while d < 3 && lo != hi && fixed(lo, d) == fixed(hi, d) {
        d += 1;
    }
    format!("{}–{}x", fixed(lo, d), fixed(hi, d))
}

impl Judgement {
    /// How many times lower `a` is (`1 / ratio`), and its range.
    fn lower_by(&self) -> (f64, f64, f64) {
        (1.0 / self.ratio, 1.0 / self.high, 1.0 / self.low)
    }

    /// The judgement as a phrase that fits after "a was" or a colon:
    /// "4.3x faster (3.9–4.8x)", "1.3x slower (1.2–1.4x)", "no faster or
    /// slower beyond this machine's noise (0.91–1.20x the other's time)", "1.1x, from 1 round:
    /// too few to tell from noise"; with [`Words::Count`] "2.9x fewer", "1.7x
    /// more", "the same". The range is that of the verdict's direction.
    pub fn phrase(&self, words: Words) -> String {
        let (lower, more) = match words {
            Words::Time => ("faster", "slower"),
            Words::Count => ("fewer", "more"),
        };
        let exact = self.p.is_none() && self.basis == Basis::Separated;
        let said = |x: f64, word: &str, lo: f64, hi: f64| {
            if exact {
                format!("{}x {word}", ratio_text(x))
            } else {
                format!("{}x {word} ({})", ratio_text(x), range_text(lo, hi))
            }
        };
        match (self.verdict, self.basis) {
            (_, Basis::Equal) if self.ratio == 1.0 => "the same".to_string(),
            (_, Basis::Equal) => "the same to within 0.1%".to_string(),
            (Direction::AFaster, _) if self.ratio == 0.0 => format!("none against some ({lower})"),
            (Direction::AFaster, _) => {
                let (x, lo, hi) = self.lower_by();
                said(x, lower, lo, hi)
            }
            (Direction::BFaster, _) => said(self.ratio, more, self.low, self.high),
            (Direction::WithinNoise, Basis::TooFewRounds) => format!(
                "{}x, from {} round{}: too few to tell from noise",
                ratio_text(self.ratio),
                self.rounds_a.min(self.rounds_b),
                if self.rounds_a.min(self.rounds_b) == 1 {
                    ""
                } else {
                    "s"
                }
            ),
            (Direction::WithinNoise, _) => format!(
                "no {lower} or {more} beyond this machine's noise ({} the other's {})",
                range_text(self.low, self.high),
                match words {
                    Words::Time => "time",
                    Words::Count => "count",
                }
            ),
        }
    }
}

/// One comparison a text states, for the JSON exports: which steps (or
/// rows), which metric, and the judgement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The first value's owner (a step id, a row's name).
    pub a: String,
    /// The second value's owner.
    pub b: String,
    /// The metric compared (`query_ms`).
    pub metric: String,
    /// `median(a) / median(b)`.
    pub ratio: f64,
    /// `min(a) / max(b)`.
    pub low: f64,
    /// `max(a) / min(b)`.
    pub high: f64,
    /// `a-faster`, `b-faster` or `within-noise`.
    pub verdict: Direction,
    /// Why: `separated`, `overlap`, `equal` or `too-few-rounds`.
    pub basis: Basis,
    /// Rounds of each side.
    pub rounds: (usize, usize),
    /// Chance of a separation this clear when nothing differs, when the
    /// rounds separate.
    pub p: Option<f64>,
    /// The rounds of the two sides were measured interleaved (in one plan).
    pub interleaved: bool,
}

impl Verdict {
    /// The verdict of `j` on `a` against `b` for `metric`.
    pub fn new(a: &str, b: &str, metric: &str, j: &Judgement, interleaved: bool) -> Verdict {
        Verdict {
            a: a.to_string(),
            b: b.to_string(),
            metric: metric.to_string(),
            ratio: j.ratio,
            low: j.low,
            high: j.high,
            verdict: j.verdict,
            basis: j.basis,
            rounds: (j.rounds_a, j.rounds_b),
            p: j.p,
            interleaved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_rounds_give_a_direction_and_overlapping_ones_none() {
        let j = judge(
            &[1.0, 1.1, 0.9, 1.05, 0.95],
            &[4.0, 4.4, 4.2, 3.9, 4.1],
            false,
        )
        .unwrap();
        assert_eq!((j.verdict, j.basis), (Direction::AFaster, Basis::Separated));
        assert!((j.ratio - 1.0 / 4.1).abs() < 1e-12);
        assert!(j.high < 1.0 && j.low < j.ratio && j.ratio < j.high);
        assert!((j.p.unwrap() - 2.0 / 252.0).abs() < 1e-12);
        assert_eq!(j.phrase(Words::Time), "4.1x faster (3.5–4.9x)");
        let k = judge(&[4.0, 4.4, 4.2], &[1.0, 1.1, 0.9], false).unwrap();
        assert_eq!(k.verdict, Direction::BFaster);
        assert_eq!(k.phrase(Words::Time), "4.2x slower (3.6–4.9x)");
        assert!((k.p.unwrap() - 0.1).abs() < 1e-12, "3 rounds each: 2/20");
        // One round of b inside a's range: no direction, whatever the medians.
        let o = judge(&[1.0, 1.2, 1.4], &[1.3, 1.5, 1.7], false).unwrap();
        assert_eq!(
            (o.verdict, o.basis),
            (Direction::WithinNoise, Basis::Overlap)
        );
        assert!(o.low < 1.0 && o.high > 1.0);
        assert_eq!(
            o.phrase(Words::Time),
            "no faster or slower beyond this machine's noise (0.59–1.08x the other's time)"
        );
    }

    #[test]
    fn too_few_rounds_give_no_verdict_and_exact_counts_need_one() {
        let j = judge(&[1.0], &[100.0], false).unwrap();
        assert_eq!(
            (j.verdict, j.basis),
            (Direction::WithinNoise, Basis::TooFewRounds)
        );
        assert_eq!(
            j.phrase(Words::Time),
            "0.01x, from 1 round: too few to tell from noise"
        );
        let c = judge(&[400.0], &[1_160.0], true).unwrap();
        assert_eq!(c.verdict, Direction::AFaster);
        assert_eq!(c.p, None, "an exact count is not a chance");
        assert_eq!(c.phrase(Words::Count), "2.9x fewer");
        let same = judge(&[7.0, 7.0], &[7.0], true).unwrap();
        assert_eq!(
            (same.verdict, same.basis),
            (Direction::WithinNoise, Basis::Equal)
        );
        assert_eq!(same.phrase(Words::Count), "the same");
    }

    #[test]
    fn nothing_to_judge_without_values_or_with_a_zero_divisor() {
        assert_eq!(judge(&[], &[1.0], false), None);
        assert_eq!(judge(&[1.0], &[0.0, 0.0, 0.0], false), None);
        assert_eq!(judge(&[f64::NAN], &[1.0], false), None);
        let zeros = judge(&[0.0, 0.0, 0.0], &[0.0, 0.0, 0.0], false).unwrap();
        assert_eq!(zeros.basis, Basis::Equal);
    }

    #[test]
    fn the_quoted_range_excludes_one_exactly_when_a_direction_is_claimed() {
        // Every pair of small round sets: the verdict and the range agree.
        let sets: Vec<Vec<f64>> = vec![
            vec![1.0, 2.0, 3.0],
            vec![2.5, 2.6, 2.7],
            vec![3.5, 4.0, 4.5],
            vec![0.5, 0.6, 0.9],
            vec![3.0, 3.0, 3.0],
        ];
        for a in &sets {
            for b in &sets {
                let j = judge(a, b, false).unwrap();
                let excludes = j.high < 1.0 || j.low > 1.0;
                assert_eq!(excludes, j.verdict != Direction::WithinNoise, "{a:?} {b:?}");
            }
        }
    }
}
