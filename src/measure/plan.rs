//! A plan: a list of settings variants measured one after another, with
//! guards that keep every frame bounded. `bench`, the cell-size sweep and
//! the compare panel all measure through it.
//!
//! Like [`Recorder`], a plan has no clock and no simulation: the caller
//! steps with [`Plan::current`]'s settings and hands each completed step to
//! [`Plan::record`]. A headless caller gives each variant a fresh
//! simulation ([`super::run::run_fresh`]); the window keeps stepping its own
//! (units keep moving between variants, the picture stays live).
//!
//! The guards ([`Guards`]), before a variant's first frame and again after it:
//! - a variant whose frame is predicted ([`Predictor`]) to take more than
//!   `skip_above_s` is skipped, with a note saying the estimate and how it
//!   was made; one whose first frame took longer is dropped after it;
//! - one predicted (or first measured) above `fewer_above_s` is measured
//!   over `fewer_frames` counted frames after one settling frame instead of
//!   the plan's, and its measurement says so ([`Measurement::note`]).

use std::fmt;
use std::sync::Arc;

use super::recorder::{FrameRecord, Measurement, Recorder, Spec};
use super::spread::PhaseColumns;
use crate::engine::sim::Settings;
use crate::measure::memory::WorkingSet;

/// The frame-time limits of a plan, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guards {
    /// A variant whose frame would take longer is skipped.
    pub skip_above_s: f64,
    /// A variant whose frame would take longer is measured over
    /// `fewer_frames` counted frames after one settling frame.
    pub fewer_above_s: f64,
    /// Counted frames of a slow variant (at least 1).
    pub fewer_frames: usize,
}

impl Guards {
    /// No limit: every variant is measured over the plan's frames.
    pub const NONE: Guards = Guards {
        skip_above_s: f64::INFINITY,
        fewer_above_s: f64::INFINITY,
        fewer_frames: 1,
    };

    /// The guards of a measurement made while a window waits (the compare
    /// panel, the lessons, the working-set sweep): a first frame over
    /// 0.25 s measures 3 frames instead (a naive frame of 100,000 units
    /// takes seconds), one over 60 s is dropped.
    pub const INTERACTIVE: Guards = Guards {
        skip_above_s: 60.0,
        fewer_above_s: 0.25,
        fewer_frames: 3,
    };
}

/// A predicted frame time and how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Seconds per frame.
    pub seconds: f64,
    /// How it was made, for the note ("N² from the measured 10,000-unit run").
    pub how: String,
}

/// Predicts the frame time of some settings from the plan's outcomes so far
/// (or from a model); `None` when it cannot say.
pub type Predictor = Arc<dyn Fn(&Settings, &[Outcome]) -> Option<Estimate> + Send + Sync>;

/// One variant of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// What it is, for people.
    pub label: String,
    /// The settings measured.
    pub settings: Settings,
    /// Skip it without stepping, for this reason (a kernel this CPU cannot run).
    pub skip: Option<String>,
}

impl Variant {
    /// A variant to measure.
    pub fn new(label: impl Into<String>, settings: Settings) -> Self {
        Variant {
            label: label.into(),
            settings,
            skip: None,
        }
    }
}

/// A variant that was not measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// The variant's label.
    pub label: String,
    /// The variant's settings.
    pub settings: Settings,
    /// Why, in one line.
    pub why: String,
    /// The frame time that was predicted or measured, if any.
    pub estimate: Option<Estimate>,
    /// The OS error when the OS refused the variant's thread count.
    pub threads_refused: Option<String>,
}

/// What became of a variant.
// A plan holds one outcome per variant (tens), so the skipped variant's
// unused bytes cost nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Measured (perhaps over fewer frames: see its note).
    Measured(Measurement),
    /// Not measured.
    Skipped(Skipped),
}

impl Outcome {
    /// The measurement, if the variant was measured.
    pub fn measured(&self) -> Option<&Measurement> {
        match self {
            Outcome::Measured(m) => Some(m),
            Outcome::Skipped(_) => None,
        }
    }

    /// The variant's settings.
    pub fn settings(&self) -> &Settings {
        match self {
            Outcome::Measured(m) => &m.settings,
            Outcome::Skipped(s) => &s.settings,
        }
    }

    /// The variant's label.
    pub fn label(&self) -> &str {
        match self {
            Outcome::Measured(m) => &m.label,
            Outcome::Skipped(s) => &s.label,
        }
    }
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.label, self.why)
    }
}

/// What a plan keeps of one variant across its rounds.
#[derive(Clone, Debug, Default)]
struct VariantState {
    /// The frames of its visits when a guard shortened it in the first
    /// round, and the note saying why; `None`: the plan's frames.
    short: Option<(Spec, String)>,
    /// Skipped (marked, predicted or dropped): never visited again.
    skipped: bool,
    /// Its index in the outcomes, once its first visit ended.
    outcome: Option<usize>,
    /// Every counted frame of its visits so far.
    frames: PhaseColumns,
}

/// The plan's state: what it will measure, what it measured, what it skipped.
#[derive(Clone)]
pub struct Plan {
    variants: Vec<Variant>,
    spec: Spec,
    guards: Guards,
    predictor: Option<Predictor>,
    /// Rounds: every variant is visited once per round, in plan order.
    rounds: usize,
    /// The round being measured (0-based).
    round: usize,
    /// Index of the variant being measured.
    pos: usize,
    /// Visits begun so far (one per variant and round).
    visits: usize,
    /// Its recorder (`None` when done).
    current: Option<Recorder>,
    /// Untimed frames a fresh simulation steps before the current variant's
    /// next frame (so that a variant measured over fewer frames ends on the
    /// same frame as the others).
    fast_forward: usize,
    states: Vec<VariantState>,
    outcomes: Vec<Outcome>,
    /// Indices into `outcomes`, in the order they became final (skipped, or
    /// measured in every round).
    finals: Vec<usize>,
    stopped: Option<String>,
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("variants", &self.variants.len())
            .field("spec", &self.spec)
            .field("guards", &self.guards)
            .field("rounds", &self.rounds)
            .field("round", &self.round)
            .field("pos", &self.pos)
            .field("outcomes", &self.outcomes.len())
            .field("stopped", &self.stopped)
            .finish()
    }
}

impl Plan {
    /// A plan measuring `variants` in order, each over `spec`'s frames, in
    /// one round, with `guards` and no predictor (so only measured first
    /// frames trigger the guards until [`Plan::with_predictor`]). Allocates
    /// the outcomes' room.
    pub fn new(variants: Vec<Variant>, spec: Spec, guards: Guards) -> Self {
        let mut plan = Plan {
            outcomes: Vec::with_capacity(variants.len()),
            finals: Vec::with_capacity(variants.len()),
            states: vec![VariantState::default(); variants.len()],
            variants,
            spec,
            guards: Guards {
                fewer_frames: guards.fewer_frames.max(1),
                ..guards
            },
            predictor: None,
            rounds: 1,
            round: 0,
            pos: 0,
            visits: 0,
            current: None,
            fast_forward: 0,
            stopped: None,
        };
        plan.begin();
        plan
    }

    /// Sets the predictor of frame times and applies the guards to the
    /// first variant again. Call before the first step.
    pub fn with_predictor(mut self, predictor: Predictor) -> Self {
        self.predictor = Some(predictor);
        self.restart_if_untouched();
        self
    }

    /// Measures every variant in `rounds` rounds (at least 1): round after
    /// round, each visiting the variants in plan order (A B C A B C ...),
    /// so that the variants share the machine's drift. Each visit is a
    /// settling period and the counted frames; the guards act in the first
    /// round only (a variant they skip stays skipped, one they shorten keeps
    /// its shorter frames). A variant's outcome merges its rounds
    /// ([`Measurement::merge_round`]). Call before the first step.
    pub fn with_rounds(mut self, rounds: usize) -> Self {
        self.rounds = rounds.max(1);
        self
    }

    /// Begins again when nothing was recorded yet (the guards see a new
    /// predictor).
    fn restart_if_untouched(&mut self) {
        let untouched = self.current.as_ref().is_some_and(|r| r.seen() == 0)
            && self.round == 0
            && self.outcomes.iter().all(|o| o.measured().is_none());
        if untouched {
            self.outcomes.clear();
            self.finals.clear();
            self.states = vec![VariantState::default(); self.variants.len()];
            self.pos = 0;
            self.visits = 0;
            self.begin();
        }
    }

    /// The settings the next step must use; `None` when the plan is done.
    pub fn current(&self) -> Option<&Settings> {
        self.current.as_ref().map(Recorder::settings)
    }

    /// The recorder of the variant being measured.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.current.as_ref()
    }

    /// Index (into the variants) of the one being measured; `None` when done.
    pub fn position(&self) -> Option<usize> {
        self.current.as_ref().map(|_| self.pos)
    }

    /// A number that changes with every visit (each variant once per round);
    /// `None` when done. A headless driver gives every visit a fresh
    /// simulation.
    pub fn visit(&self) -> Option<usize> {
        self.current.as_ref().map(|_| self.visits)
    }

    /// The rounds the plan measures.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The round being measured (0-based); `rounds()` when done.
    pub fn round(&self) -> usize {
        if self.current.is_some() {
            self.round
        } else {
            self.rounds
        }
    }

    /// The variants, in plan order.
    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// The frames of each variant (before the guards).
    pub fn spec(&self) -> Spec {
        self.spec
    }

    /// The guards.
    pub fn guards(&self) -> Guards {
        self.guards
    }

    /// Takes the untimed frames a fresh simulation should step before its
    /// next recorded frame, so that the current variant ends on the same
    /// frame index as one measured over the plan's frames: 0 unless the
    /// guards shortened it. The window, whose simulation runs on, ignores it.
    pub fn take_fast_forward(&mut self) -> usize {
        std::mem::take(&mut self.fast_forward)
    }

    /// True when every variant is measured or skipped, or the plan was stopped.
    pub fn is_done(&self) -> bool {
        self.current.is_none()
    }

    /// Why the plan was stopped before its end, if it was.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Fraction done, 0 to 1 (1 when done or stopped).
    pub fn progress(&self) -> f64 {
        match &self.current {
            None => 1.0,
            Some(r) => {
                let n = self.variants.len().max(1) as f64;
                let done = self.round as f64 * n + self.pos as f64 + r.progress();
                done / (n * self.rounds as f64)
            }
        }
    }

    /// What became of each variant so far, in the order their first visit
    /// ended: a measurement merges the rounds measured so far.
    pub fn outcomes(&self) -> &[Outcome] {
        &self.outcomes
    }

    /// The outcomes that are final (skipped, or measured in every round),
    /// in the order they became so.
    pub fn finals(&self) -> impl Iterator<Item = &Outcome> + '_ {
        self.finals.iter().map(|&i| &self.outcomes[i])
    }

    /// The variant (an index into [`Plan::variants`]) of each final
    /// outcome, in the order [`Plan::finals`] lists them: the order they
    /// became final, in which a skipped variant comes before the measured
    /// ones whose rounds are still running. Allocates the list.
    pub fn final_variants(&self) -> Vec<usize> {
        let mut variant_of = vec![usize::MAX; self.outcomes.len()];
        for (i, st) in self.states.iter().enumerate() {
            if let Some(k) = st.outcome {
                variant_of[k] = i;
            }
        }
        self.finals.iter().map(|&k| variant_of[k]).collect()
    }

    /// How many outcomes are final.
    pub fn finals_len(&self) -> usize {
        self.finals.len()
    }

    /// The outcome of variant `i` (an index into [`Plan::variants`]), once
    /// its first visit ended or it was skipped.
    pub fn outcome_of(&self, i: usize) -> Option<&Outcome> {
        self.states.get(i)?.outcome.map(|k| &self.outcomes[k])
    }

    /// The measured outcomes so far.
    pub fn measurements(&self) -> impl Iterator<Item = &Measurement> + '_ {
        self.outcomes.iter().filter_map(Outcome::measured)
    }

    /// Takes a completed step made with [`Plan::current`]'s settings. After
    /// the variant's first frame of the first round the guards are checked
    /// against its time; after a visit's last frame, `working_set` is called
    /// (on the simulation as it is then), the round merged into the
    /// variant's outcome, and the next visit begins. Ignored when done.
    pub fn record(&mut self, frame: FrameRecord<'_>, working_set: impl FnOnce() -> WorkingSet) {
        let Some(rec) = self.current.as_mut() else {
            return;
        };
        let first = rec.seen() == 0 && self.round == 0;
        rec.record(frame);
        if first {
            let took = frame.step.total_s();
            if took > self.guards.skip_above_s {
                let rec = self.current.take().expect("a variant is being measured");
                self.skip(
                    rec,
                    format!(
                        "dropped: its first frame took {} (limit {})",
                        ms(took),
                        ms(self.guards.skip_above_s)
                    ),
                    Some(Estimate {
                        seconds: took,
                        how: "measured".to_string(),
                    }),
                    None,
                );
                return;
            }
            if took > self.guards.fewer_above_s {
                self.fewer(took, "its first frame took");
            }
        }
        let done = self.current.as_ref().is_some_and(Recorder::is_done);
        if done {
            let rec = self.current.take().expect("checked");
            let (m, cols) = rec.finish_round(working_set());
            self.end_visit(m, cols);
            self.pos += 1;
            self.begin();
        }
    }

    /// Merges a finished visit into its variant's outcome.
    fn end_visit(&mut self, m: Measurement, cols: PhaseColumns) {
        let last_round = self.round + 1 >= self.rounds;
        let st = &mut self.states[self.pos];
        match st.outcome {
            Some(i) => {
                if let Outcome::Measured(old) = &mut self.outcomes[i] {
                    old.merge_round(m, &cols, &mut st.frames);
                }
            }
            None => {
                st.frames = cols;
                st.outcome = Some(self.outcomes.len());
                self.outcomes.push(Outcome::Measured(m));
            }
        }
        if last_round {
            self.finals.push(st.outcome.expect("set above"));
        }
    }

    /// Skips the variant being measured (the OS refused its threads, or the
    /// caller cannot step it), with `why`, and begins the next. A variant
    /// measured in earlier rounds keeps those rounds, as final.
    pub fn skip_current(&mut self, why: String, threads_refused: Option<String>) {
        if let Some(rec) = self.current.take() {
            if let Some(i) = self.states[self.pos].outcome {
                self.states[self.pos].skipped = true;
                self.finals.push(i);
                self.pos += 1;
                self.begin();
                return;
            }
            self.skip(rec, why, None, threads_refused);
        }
    }

    /// Ends the plan now: the measurements so far stay (with the rounds
    /// they had), the visit in progress is dropped, and [`Plan::stopped`]
    /// says `why`.
    pub fn stop(&mut self, why: impl Into<String>) {
        if self.current.take().is_some() {
            self.stopped = Some(why.into());
        }
    }

    fn skip(
        &mut self,
        rec: Recorder,
        why: String,
        estimate: Option<Estimate>,
        threads_refused: Option<String>,
    ) {
        self.push_skipped(Skipped {
            label: rec.label().to_string(),
            settings: rec.settings().clone(),
            why,
            estimate,
            threads_refused,
        });
        self.pos += 1;
        self.begin();
    }

    /// Records the variant at `pos` as skipped (final).
    fn push_skipped(&mut self, s: Skipped) {
        let st = &mut self.states[self.pos];
        st.skipped = true;
        st.outcome = Some(self.outcomes.len());
        self.finals.push(self.outcomes.len());
        self.outcomes.push(Outcome::Skipped(s));
    }

    /// Shortens the current variant to the slow frames (if it has more and
    /// has not counted any yet), noting that `what` took `seconds`.
    fn fewer(&mut self, seconds: f64, what: &str) {
        let (guards, spec) = (self.guards, self.spec);
        let Some(rec) = self.current.as_mut() else {
            return;
        };
        // One settling frame: a frame already recorded is that one.
        let short = Spec::new(1, guards.fewer_frames);
        let seen = rec.seen();
        if rec.spec().frames <= short.frames || seen > short.settle {
            return;
        }
        let note = format!(
            "measured over {} frame(s), not {}: {what} {} (above {})",
            short.frames,
            spec.frames,
            ms(seconds),
            ms(guards.fewer_above_s)
        );
        *rec = Recorder::new(
            rec.label().to_string(),
            rec.settings().clone(),
            short,
            Some(note.clone()),
        )
        .planned(spec.frames)
        .settled(seen);
        self.states[self.pos].short = Some((short, note));
        self.fast_forward = spec.steps().saturating_sub(short.steps());
    }

    /// Starts the next visit at or after `pos` (in the first round skipping
    /// the variants marked or predicted too slow; in later rounds those
    /// skipped before), moving on to the next round after the last
    /// variant, or ends the plan after the last round.
    fn begin(&mut self) {
        self.fast_forward = 0;
        self.current = None;
        loop {
            if self.pos >= self.variants.len() && !self.next_round() {
                return;
            }
            let started = if self.round > 0 {
                self.revisit()
            } else {
                self.first_visit()
            };
            if started {
                return;
            }
            self.pos += 1;
        }
    }

    /// Moves on to the first variant of the next round; false (the plan
    /// ended, `round` at most `rounds`) after the last round or when every
    /// variant is skipped.
    fn next_round(&mut self) -> bool {
        self.round += 1;
        self.pos = 0;
        let any = self.states.iter().any(|s| !s.skipped);
        if self.round >= self.rounds || !any {
            self.round = self.round.min(self.rounds);
            return false;
        }
        true
    }

    /// In a later round, starts the variant at `pos` with the frames of its
    /// first visit (shortened, with its note, where a guard cut them); false
    /// when it was skipped.
    fn revisit(&mut self) -> bool {
        let v = &self.variants[self.pos];
        let st = &self.states[self.pos];
        if st.skipped {
            return false;
        }
        let (spec, note) = match &st.short {
            Some((short, note)) => (*short, Some(note.clone())),
            None => (self.spec, None),
        };
        self.current = Some(
            Recorder::new(v.label.clone(), v.settings.clone(), spec, note)
                .planned(self.spec.frames),
        );
        self.fast_forward = self.spec.steps().saturating_sub(spec.steps());
        self.visits += 1;
        true
    }

    /// In the first round, starts the variant at `pos` (on fewer frames when
    /// its estimate is above `fewer_above_s`), or records it as skipped and
    /// returns false when it is marked to skip or estimated above
    /// `skip_above_s` seconds per frame.
    fn first_visit(&mut self) -> bool {
        let v = &self.variants[self.pos];
        if let Some(why) = &v.skip {
            let s = Skipped {
                label: v.label.clone(),
                settings: v.settings.clone(),
                why: why.clone(),
                estimate: None,
                threads_refused: None,
            };
            self.push_skipped(s);
            return false;
        }
        let estimate = self
            .predictor
            .as_ref()
            .and_then(|p| p(&v.settings, &self.outcomes));
        if let Some(e) = estimate
            .as_ref()
            .filter(|e| e.seconds > self.guards.skip_above_s)
        {
            let s = Skipped {
                label: v.label.clone(),
                settings: v.settings.clone(),
                why: format!(
                    "estimated {} per frame ({}; limit {}): not run",
                    ms(e.seconds),
                    e.how,
                    ms(self.guards.skip_above_s)
                ),
                estimate: Some(e.clone()),
                threads_refused: None,
            };
            self.push_skipped(s);
            return false;
        }
        self.current = Some(Recorder::new(
            v.label.clone(),
            v.settings.clone(),
            self.spec,
            None,
        ));
        self.visits += 1;
        if let Some(e) = estimate.filter(|e| e.seconds > self.guards.fewer_above_s) {
            let what = format!("a frame was estimated ({}) to take", e.how);
            self.fewer(e.seconds, &what);
        }
        true
    }
}

/// A duration for notes: "850 ms", "2.4 s", "0.31 ms".
fn ms(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.1} s")
    } else if seconds >= 0.01 {
        format!("{:.0} ms", seconds * 1e3)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}
