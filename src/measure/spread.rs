//! The statistics of a measurement: the median of the counted frames and
//! the spread around it (min and max), per phase.

use serde::Serialize;

use crate::engine::sim::StepStats;

/// Spread ratio (max / min of the total) above which a measurement is
/// flagged: the frames disagree by more than this, so the machine was busy
/// (other programs, a turbo clock dropping, the window's own drawing) or
/// the work changed while it ran.
pub const BUSY_SPREAD: f64 = 1.5;

/// Median, minimum and maximum of some frames' values (milliseconds where
/// used for times).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    /// Median: the middle value, or the mean of the two middle ones.
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (sorted in place); all zero when empty.
    /// NaN sorts last (`f64::total_cmp`).
    pub fn of(values: &mut [f64]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            0.5 * (values[n / 2 - 1] + values[n / 2])
        };
        Spread {
            median,
            min: values[0],
            max: values[n - 1],
        }
    }

    /// `max / min`: 1.0 when every frame took the same time; infinite when
    /// the minimum is 0 and the maximum is not; 1.0 when both are 0.
    pub fn ratio(&self) -> f64 {
        if self.max <= 0.0 {
            1.0
        } else if self.min <= 0.0 {
            f64::INFINITY
        } else {
            self.max / self.min
        }
    }
}

/// The median of `values` (sorted in place); 0 when empty.
pub fn median(values: &mut [f64]) -> f64 {
    Spread::of(values).median
}

/// Milliseconds per phase: one statistic of [`PhaseSpreads`], or one
/// round's medians.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseMs {
    /// Moving units.
    #[serde(rename = "move")]
    pub move_: f64,
    /// Rebuilding the index.
    pub rebuild: f64,
    /// All queries.
    pub query: f64,
    /// Applying the results.
    pub apply: f64,
    /// The whole step (the statistic of the per-frame sums, not the sum of
    /// the phases' statistics).
    pub total: f64,
}

impl PhaseMs {
    /// One statistic (`pick`: median, min or max) of every phase of `s`.
    pub fn of(s: &PhaseSpreads, pick: fn(&Spread) -> f64) -> PhaseMs {
        PhaseMs {
            move_: pick(&s.move_),
            rebuild: pick(&s.rebuild),
            query: pick(&s.query),
            apply: pick(&s.apply),
            total: pick(&s.total),
        }
    }

    /// The five values in the order move, rebuild, query, apply, total.
    pub fn values(&self) -> [f64; 5] {
        [self.move_, self.rebuild, self.query, self.apply, self.total]
    }
}

/// Names of the phases of [`PhaseSpreads`], in the order of
/// [`PhaseSpreads::phases`].
pub const PHASE_NAMES: [&str; 4] = ["move", "rebuild", "query", "apply"];

/// The spread of each phase of a step over the counted frames, milliseconds.
/// `total` is the spread of the per-frame sums (its median is not the sum of
/// the phases' medians).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseSpreads {
    /// Moving units (with `battle`'s deaths and spawns).
    #[serde(rename = "move")]
    pub move_: Spread,
    /// Rebuilding the index (with a reorder when one was due).
    pub rebuild: Spread,
    /// All queries.
    pub query: Spread,
    /// Applying the results.
    pub apply: Spread,
    /// The whole step.
    pub total: Spread,
}

impl PhaseSpreads {
    /// The four phases in the order of [`PHASE_NAMES`].
    pub fn phases(&self) -> [Spread; 4] {
        [self.move_, self.rebuild, self.query, self.apply]
    }

    /// The spread of some rounds' medians, phase by phase: the median of
    /// the round medians and their smallest and largest (all zero without
    /// rounds). Allocates a column per phase.
    pub fn of_rounds(rounds: &[PhaseMs]) -> PhaseSpreads {
        let col = |k: usize| {
            let mut v: Vec<f64> = rounds.iter().map(|r| r.values()[k]).collect();
            Spread::of(&mut v)
        };
        PhaseSpreads {
            move_: col(0),
            rebuild: col(1),
            query: col(2),
            apply: col(3),
            total: col(4),
        }
    }
}

/// The per-frame phase times of the counted frames, milliseconds, kept so
/// that the spreads can be taken at the end. Allocates room for `frames`
/// frames up front; [`PhaseColumns::push`] allocates nothing below that.
#[derive(Clone, Debug, Default)]
pub struct PhaseColumns {
    cols: [Vec<f64>; 5],
}

impl PhaseColumns {
    /// Columns with room for `frames` frames.
    pub fn with_capacity(frames: usize) -> Self {
        PhaseColumns {
            cols: std::array::from_fn(|_| Vec::with_capacity(frames)),
        }
    }

    /// Adds one step's phase times (seconds in `st`, kept as milliseconds).
    pub fn push(&mut self, st: &StepStats) {
        let ms = [
            st.move_s,
            st.rebuild_s,
            st.query_s,
            st.apply_s,
            st.total_s(),
        ];
        for (c, v) in self.cols.iter_mut().zip(ms) {
            c.push(v * 1e3);
        }
    }

    /// Frames pushed.
    pub fn len(&self) -> usize {
        self.cols[0].len()
    }

    /// True before the first frame.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The spreads of the frames pushed (all zero when none).
    pub fn spreads(&self) -> PhaseSpreads {
        let mut c = self.cols.clone();
        let [m, r, q, a, t] = &mut c;
        PhaseSpreads {
            move_: Spread::of(m),
            rebuild: Spread::of(r),
            query: Spread::of(q),
            apply: Spread::of(a),
            total: Spread::of(t),
        }
    }

    /// Adds every frame of `other` after these.
    pub fn append(&mut self, other: &PhaseColumns) {
        for (c, o) in self.cols.iter_mut().zip(&other.cols) {
            c.extend_from_slice(o);
        }
    }

    /// Forgets the frames pushed, keeping the capacity.
    pub fn clear(&mut self) {
        for c in &mut self.cols {
            c.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_odd_even_and_empty() {
        assert_eq!(Spread::of(&mut []), Spread::default());
        assert_eq!(
            Spread::of(&mut [3.0]),
            Spread {
                median: 3.0,
                min: 3.0,
                max: 3.0
            }
        );
        assert_eq!(
            Spread::of(&mut [5.0, 1.0, 3.0]),
            Spread {
                median: 3.0,
                min: 1.0,
                max: 5.0
            }
        );
        let s = Spread::of(&mut [4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
        assert_eq!(median(&mut [9.0, 1.0]), 5.0);
    }

    #[test]
    fn ratio_of_equal_busy_and_zero_frames() {
        let s = |min, max| Spread {
            median: min,
            min,
            max,
        };
        assert_eq!(s(2.0, 2.0).ratio(), 1.0);
        assert_eq!(s(2.0, 4.2).ratio(), 2.1);
        assert_eq!(s(0.0, 0.0).ratio(), 1.0);
        assert_eq!(s(0.0, 1.0).ratio(), f64::INFINITY);
    }

    #[test]
    fn columns_keep_the_total_of_each_frame_not_the_sum_of_medians() {
        let mut c = PhaseColumns::with_capacity(3);
        assert!(c.is_empty());
        // Frames whose slow phase differs: totals 3, 3 and 1 ms (median 3),
        // while the phases' medians (1 and 0 ms) sum to 1 ms.
        for (q, a) in [(0.003, 0.0), (0.0, 0.003), (0.001, 0.0)] {
            c.push(&StepStats {
                query_s: q,
                apply_s: a,
                ..Default::default()
            });
        }
        let s = c.spreads();
        assert_eq!(c.len(), 3);
        assert!((s.query.median - 1.0).abs() < 1e-9);
        assert_eq!(s.apply.median, 0.0);
        assert!((s.total.median - 3.0).abs() < 1e-9, "{s:?}");
        assert!((s.total.min - 1.0).abs() < 1e-9);
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.spreads(), PhaseSpreads::default());
    }
}
