//! What the overlay shows about recent frames: [`FrameStats`], the per-phase
//! timing history with means over a time window ([`PhaseHistory`]) and the
//! frame rate over the last half second ([`FpsMeter`]). Plain data and pure
//! math, so the numbers are tested headless.

use crate::engine::sim::{Settings, StepStats};
use crate::measure::compare::Comparison;
use crate::measure::sweep::CellSweep;
use crate::window::render::PictureStats;

/// Frames kept for the timing graph.
pub const HISTORY: usize = 300;
/// Seconds of frames the per-phase means cover (fewer right after a change).
pub const MEAN_WINDOW_S: f64 = 1.0;
/// Seconds of frames the frame rate is measured over (at least one frame).
pub const FPS_WINDOW_S: f64 = 0.5;
/// The phases of a frame, in the order of [`PhaseSample::ms`].
pub const PHASES: [&str; 5] = ["move", "rebuild", "query", "apply", "render"];

/// One frame's phase times.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseSample {
    /// When the frame ended, seconds on the window's clock.
    pub t: f64,
    /// Milliseconds of each phase of [`PHASES`].
    pub ms: [f32; 5],
}

impl PhaseSample {
    /// The sample of one frame: the step's four phases and the render time.
    pub fn of(t: f64, step: &StepStats, render_s: f64) -> Self {
        let ms = |s: f64| (s * 1e3) as f32;
        PhaseSample {
            t,
            ms: [
                ms(step.move_s),
                ms(step.rebuild_s),
                ms(step.query_s),
                ms(step.apply_s),
                ms(render_s),
            ],
        }
    }
}

/// Mean phase times and what they cover.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseMeans {
    /// Mean milliseconds of each phase of [`PHASES`].
    pub ms: [f32; 5],
    /// Frames averaged.
    pub frames: usize,
    /// True when the window was cut short by a change of the work
    /// ([`PhaseHistory::restart`]).
    pub since_change: bool,
    /// Fastest and slowest engine time (move + rebuild + query + apply) of
    /// the frames averaged, ms.
    pub engine_range_ms: (f32, f32),
}

impl PhaseMeans {
    /// Sum of the four engine phases (move, rebuild, query, apply), ms.
    pub fn engine_ms(&self) -> f32 {
        self.ms[..4].iter().sum()
    }

    /// Which frames the means cover, for the overlay: "last frame", "mean of
    /// the last 57 frames (1.0 s)", "mean of 3 frames since the last change".
    pub fn describe(&self) -> String {
        match (self.frames, self.since_change) {
            (0, _) => "no frame yet".to_string(),
            (1, _) => "last frame".to_string(),
            (n, true) => format!("mean of {n} frames since the last change"),
            (n, false) => format!("mean of the last {n} frames ({MEAN_WINDOW_S:.1} s)"),
        }
    }
}

/// The last [`HISTORY`] frames' phase times (a ring buffer, no allocation
/// after creation) and the time of the last change of the work.
#[derive(Clone, Debug)]
pub struct PhaseHistory {
    samples: Vec<PhaseSample>,
    next: usize,
    filled: usize,
    /// Samples recorded since the last restart (capped at HISTORY).
    since_restart: usize,
}

impl Default for PhaseHistory {
    fn default() -> Self {
        PhaseHistory {
            samples: vec![PhaseSample::default(); HISTORY],
            next: 0,
            filled: 0,
            since_restart: 0,
        }
    }
}

impl PhaseHistory {
    /// Records one frame.
    pub fn record(&mut self, sample: PhaseSample) {
        self.samples[self.next] = sample;
        self.next = (self.next + 1) % HISTORY;
        self.filled = (self.filled + 1).min(HISTORY);
        self.since_restart = (self.since_restart + 1).min(HISTORY);
    }

    /// Marks a change of the work: later means cover only frames recorded
    /// after it. The graph keeps showing the older frames.
    pub fn restart(&mut self) {
        self.since_restart = 0;
    }

    /// Frames recorded since the last [`PhaseHistory::restart`] that are still in the history.
    pub fn frames_since_restart(&self) -> usize {
        self.since_restart
    }

    /// The recorded frames, oldest first.
    pub fn samples(&self) -> impl Iterator<Item = &PhaseSample> + '_ {
        (0..self.filled)
            .map(move |k| &self.samples[(self.next + HISTORY - self.filled + k) % HISTORY])
    }

    /// Means over the frames that ended within [`MEAN_WINDOW_S`] of the
    /// newest one and after the last restart; at less than one frame per
    /// window, the newest frame alone.
    pub fn means(&self) -> PhaseMeans {
        let usable = self.since_restart.min(self.filled);
        let mut m = PhaseMeans::default();
        let Some(newest) = self.back(0) else {
            return m;
        };
        if usable == 0 {
            return m;
        }
        for k in 0..usable {
            let s = self.back(k).expect("k < filled");
            if k > 0 && newest.t - s.t > MEAN_WINDOW_S {
                break;
            }
            for (acc, v) in m.ms.iter_mut().zip(s.ms) {
                *acc += v;
            }
            let engine: f32 = s.ms[..4].iter().sum();
            m.engine_range_ms = if m.frames == 0 {
                (engine, engine)
            } else {
                (
                    m.engine_range_ms.0.min(engine),
                    m.engine_range_ms.1.max(engine),
                )
            };
            m.frames += 1;
        }
        m.since_change = m.frames == usable && usable < self.filled && {
            // The window would have reached further back without the restart.
            let older = self.back(usable).expect("usable < filled");
            newest.t - older.t <= MEAN_WINDOW_S
        };
        m.ms = m.ms.map(|v| v / m.frames as f32);
        m
    }

    /// The frame `k` frames before the newest (0 = newest).
    fn back(&self, k: usize) -> Option<&PhaseSample> {
        (k < self.filled).then(|| &self.samples[(self.next + HISTORY - 1 - k) % HISTORY])
    }
}

/// Frames per second over the last [`FPS_WINDOW_S`] seconds: the frames
/// that ended in that window divided by the time they span; at less than two
/// frames per window, one over the last frame's duration.
#[derive(Clone, Debug)]
pub struct FpsMeter {
    times: [f64; 128],
    next: usize,
    filled: usize,
}

impl Default for FpsMeter {
    fn default() -> Self {
        FpsMeter {
            times: [0.0; 128],
            next: 0,
            filled: 0,
        }
    }
}

impl FpsMeter {
    /// Records that a frame ended at `t` seconds (a monotonic clock).
    pub fn tick(&mut self, t: f64) {
        self.times[self.next] = t;
        self.next = (self.next + 1) % self.times.len();
        self.filled = (self.filled + 1).min(self.times.len());
    }

    /// Frames per second, or `None` before the second frame.
    pub fn fps(&self) -> Option<f64> {
        let len = self.times.len();
        let at = |k: usize| self.times[(self.next + len - 1 - k) % len];
        if self.filled < 2 {
            return None;
        }
        let newest = at(0);
        let mut k = 1;
        while k + 1 < self.filled && newest - at(k + 1) <= FPS_WINDOW_S {
            k += 1;
        }
        let span = newest - at(k);
        (span > 0.0).then(|| k as f64 / span)
    }

    /// The longest time between two consecutive recorded frames, seconds,
    /// over the last 128 frames (`None` before the second frame): the
    /// refresh the window answered slowest.
    pub fn slowest(&self) -> Option<f64> {
        let len = self.times.len();
        let at = |k: usize| self.times[(self.next + len - 1 - k) % len];
        (1..self.filled)
            .map(|k| at(k - 1) - at(k))
            .max_by(f64::total_cmp)
    }
}

/// Frames per second as the overlay shows it: one decimal below 10 (so one
/// frame per second is "1.0", never "0"), whole numbers above; "-" when unknown.
pub fn format_fps(fps: Option<f64>) -> String {
    match fps {
        Some(f) if f.is_finite() && f < 9.95 => format!("{f:.1}"),
        Some(f) if f.is_finite() => format!("{f:.0}"),
        _ => "-".to_string(),
    }
}

/// The selected unit as the overlay shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectedUnit {
    /// Stable id.
    pub id: u32,
    /// Neighbors within the radius.
    pub neighbors: usize,
    /// Neighbors of the other team.
    pub enemies: u16,
    /// Whether the camera follows it.
    pub follow: bool,
    /// Its query of the last step as the inspector saw it: (candidates
    /// tested, neighbors found); `None` until the next step inspects it.
    pub inspected: Option<(usize, usize)>,
}

impl SelectedUnit {
    /// The inspector's line, "candidates tested: N, neighbors: M (M/N = x%)"
    /// with the numbers filled in, or `None` before the unit was inspected.
    pub fn inspection_line(&self) -> Option<String> {
        let (n, m) = self.inspected?;
        let share = if n == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * m as f64 / n as f64)
        };
        let (n, m) = (
            crate::format::thousands(n as u64),
            crate::format::thousands(m as u64),
        );
        Some(format!(
            "candidates tested: {n}, neighbors: {m} ({m}/{n} = {share})"
        ))
    }
}

/// What the overlay shows about the window and the last frames. Plain data,
/// filled by the frame loop.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// Engine phases and counters of the last complete step.
    pub step: StepStats,
    /// The settings of the last complete step: `step`, the result bytes and
    /// the cache counters describe them, and so do the means once they
    /// cover a frame. `None` before the first step. Values for settings
    /// that ask other work of the engine ([`Settings::same_work`]) are not
    /// shown: see [`FrameStats::is_current`].
    pub measured: Option<Settings>,
    /// CPU time spent drawing the last step's picture (all its slices and
    /// the refreshes that showed the previous one meanwhile), seconds.
    pub render_s: f64,
    /// How the last complete picture was drawn (in one refresh or in slices).
    pub picture: PictureStats,
    /// Frames per second ([`FpsMeter`]).
    pub fps: Option<f64>,
    /// The slowest of the last 128 refreshes, seconds ([`FpsMeter::slowest`]).
    pub slowest_s: Option<f64>,
    /// Recent frames' phase times, for the graph.
    pub history: PhaseHistory,
    /// Heap allocations made by the last simulation step.
    pub step_allocations: Option<u64>,
    /// Bytes of query results the last step wrote ([`crate::engine::sim::Pass::result_bytes`]).
    pub result_bytes: u64,
    /// Unit count.
    pub units: usize,
    /// World edge, world units.
    pub world: f32,
    /// Vertex layout of the last complete picture.
    pub vertex_layout: crate::window::render::VertexLayout,
    /// Instance bytes uploaded to draw the last complete picture.
    pub uploaded_bytes: u64,
    /// GPU bytes of the unit mesh in that layout (vertex streams and indices).
    pub mesh_bytes: usize,
    /// The mesh's normal error (max, mean; degrees) at 16 and at 8 bits.
    pub normal_errors: [(f32, f32); 2],
    /// Why the chosen unit mesh could not be loaded (the built-in one is drawn).
    pub mesh_warning: Option<String>,
    /// Vertices of the unit mesh.
    pub mesh_vertices: usize,
    /// Triangles of the unit mesh.
    pub mesh_triangles: usize,
    /// Estimated seconds of one whole naive frame's queries at the current
    /// settings (the cost model; `None` for the other strategies).
    pub naive_estimate_s: Option<f64>,
    /// Units queried so far and units in all, while a frame spread over
    /// refreshes ([`crate::engine::sim::Simulation::step_sliced`]) is in progress.
    pub slice_progress: Option<(usize, usize)>,
    /// Largest radius the pair budget allows at the current unit count, world units.
    pub radius_max: f32,
    /// Smallest cell size the grid and visit budgets allow now, world units.
    pub cell_min: f32,
    /// Messages that stay until dismissed (why a setting was changed).
    pub notices: Vec<String>,
    /// What the worker thread is preparing (spawning or storing the units)
    /// and for how long, while it works.
    pub preparing: Option<String>,
    /// The scenario files found in `assets/scenarios/`, by name (file stem).
    pub scenarios: Vec<String>,
    /// The loaded scenario: its name and description.
    pub scenario: Option<(String, String)>,
    /// Why the last scenario load failed (file, line, field, range); the
    /// running scenario keeps running.
    pub scenario_error: Option<String>,
    /// The selected unit.
    pub selected: Option<SelectedUnit>,
    /// Why the hardware cache counters are unavailable (`None` while they
    /// count, or before the first step).
    pub counters_unavailable: Option<String>,
    /// The last-level event the counters count (`""` when unavailable).
    pub llc_event: &'static str,
    /// The memory view's contents (only while it is open).
    pub memory: Option<crate::window::ui::memory_view::MemoryView>,
    /// Deaths and spawns per second of the `battle` workload ([`ChurnMeter`]).
    pub churn_per_s: (f64, f64),
    /// A passing message (for example: the selected unit died), shown until
    /// the time in seconds given next to it.
    pub status: Option<(String, f64)>,
    /// CPU cores available.
    pub cores: usize,
    /// Rows of the help window: keys (or mouse input) and what they do.
    pub help: Vec<(String, &'static str)>,
    /// The cell-size sweep, running or finished: a copy of the frame loop's,
    /// refreshed when it changes (once per step while it runs).
    pub sweep: Option<CellSweep>,
    /// The compare panel's rows and sweep curves (a copy of the frame
    /// loop's, refreshed when they change).
    pub comparison: Comparison,
    /// The compare measurement in progress: what it measures now and its
    /// progress, 0 to 1.
    pub measuring: Option<(String, f64)>,
    /// The quiet measurement in progress (a lesson's or the compare
    /// panel's), while the scene waits for it.
    pub quiet: Option<QuietStatus>,
    /// The last quiet measurement of exactly the work on screen (the
    /// compare panel's rows, the lesson's steps), for the headline: the
    /// same engine and estimator as the panels, so the two agree.
    pub measured_now: Option<MeasuredNow>,
    /// The lessons panel: the list, the page being followed.
    pub lessons: crate::window::ui::lesson::LessonPanel,
}

/// A quiet measurement in progress, as the overlay shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuietStatus {
    /// Fraction done, 0 to 1.
    pub progress: f64,
    /// What it measures now ("Grid / SoA, round 2 of 5").
    pub what: String,
    /// It is the lesson's (else the compare panel's).
    pub lesson: bool,
}

/// A measurement of the work on screen, for the headline.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredNow {
    /// Median of the round medians of the whole step, ms.
    pub median_ms: f64,
    /// Smallest and largest round median, ms.
    pub range_ms: (f64, f64),
    /// Rounds and counted frames per round.
    pub rounds: usize,
    /// Counted frames per round.
    pub frames: usize,
    /// Where it was measured ("compare panel", "lesson").
    pub source: &'static str,
}

impl FrameStats {
    /// Whether the last step's numbers describe `settings` (the same work:
    /// [`Settings::same_work`]); the overlay shows them as pending ("–")
    /// otherwise, never as zero or as another setting's values.
    pub fn is_current(&self, settings: &Settings) -> bool {
        self.measured
            .as_ref()
            .is_some_and(|m| m.same_work(settings))
    }

    /// Whether the phase means describe `settings`: the last step does and
    /// the means cover at least one frame since the work changed.
    pub fn means_current(&self, settings: &Settings) -> bool {
        self.is_current(settings) && self.means().frames > 0
    }

    /// The phase means of the recent frames since the last change of the
    /// work ([`PhaseHistory::means`]), derived from the history each time,
    /// so a restart is never shown with the means from before it.
    pub fn means(&self) -> PhaseMeans {
        self.history.means()
    }
}

/// Events per second over the last second: deaths and spawns of the
/// `battle` workload, from the steps that ended in that window.
#[derive(Clone, Debug, Default)]
pub struct ChurnMeter {
    /// `(time s, deaths, spawns)` of recent steps, oldest first.
    steps: std::collections::VecDeque<(f64, u32, u32)>,
}

impl ChurnMeter {
    /// Window of [`ChurnMeter::rates`], seconds.
    pub const WINDOW_S: f64 = 1.0;

    /// Records a step that ended at `t` seconds with its deaths and spawns.
    pub fn record(&mut self, t: f64, deaths: u32, spawns: u32) {
        self.steps.push_back((t, deaths, spawns));
        while self
            .steps
            .front()
            .is_some_and(|&(t0, ..)| t - t0 > Self::WINDOW_S)
        {
            self.steps.pop_front();
        }
    }

    /// Deaths and spawns per second over the last [`ChurnMeter::WINDOW_S`]
    /// (the sums over the window divided by the window).
    pub fn rates(&self) -> (f64, f64) {
        let (d, s) = self.steps.iter().fold((0u64, 0u64), |(d, s), &(_, a, b)| {
            (d + a as u64, s + b as u64)
        });
        (d as f64 / Self::WINDOW_S, s as f64 / Self::WINDOW_S)
    }

    /// Forgets everything (after a respawn).
    pub fn clear(&mut self) {
        self.steps.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64, v: f32) -> PhaseSample {
        PhaseSample { t, ms: [v; 5] }
    }

    #[test]
    fn the_inspection_line_gives_the_share_of_useful_tests() {
        let mut sel = SelectedUnit::default();
        assert_eq!(sel.inspection_line(), None);
        sel.inspected = Some((160, 20));
        assert_eq!(
            sel.inspection_line().as_deref(),
            Some("candidates tested: 160, neighbors: 20 (20/160 = 12.5%)")
        );
        sel.inspected = Some((10_000, 18));
        assert_eq!(
            sel.inspection_line().as_deref(),
            Some("candidates tested: 10,000, neighbors: 18 (18/10,000 = 0.2%)")
        );
        sel.inspected = Some((0, 0));
        assert_eq!(
            sel.inspection_line().as_deref(),
            Some("candidates tested: 0, neighbors: 0 (0/0 = -)")
        );
    }

    #[test]
    fn churn_rates_cover_the_last_second_only() {
        let mut m = ChurnMeter::default();
        assert_eq!(m.rates(), (0.0, 0.0));
        m.record(0.0, 50, 50);
        m.record(0.5, 3, 4);
        m.record(1.2, 2, 1);
        // The first step is more than a second old.
        assert_eq!(m.rates(), (5.0, 5.0));
        m.clear();
        assert_eq!(m.rates(), (0.0, 0.0));
    }

    #[test]
    fn one_frame_per_second_is_one_fps_not_zero() {
        let mut m = FpsMeter::default();
        assert_eq!(m.fps(), None);
        assert_eq!(format_fps(m.fps()), "-");
        for t in [10.0, 11.0, 12.0, 13.0] {
            m.tick(t);
        }
        assert_eq!(m.fps(), Some(1.0));
        assert_eq!(format_fps(m.fps()), "1.0");
        m.tick(15.0);
        assert_eq!(format_fps(m.fps()), "0.5");
    }

    #[test]
    fn sixty_fps_counts_the_frames_of_the_last_half_second() {
        let mut m = FpsMeter::default();
        for k in 0..200 {
            m.tick(k as f64 / 60.0);
        }
        let f = m.fps().unwrap();
        assert!((f - 60.0).abs() < 1e-6, "{f}");
        assert_eq!(format_fps(Some(f)), "60");
        // A sudden slow frame shows within the window, not after 60 frames.
        m.tick(199.0 / 60.0 + 0.5);
        assert!(m.fps().unwrap() < 3.0);
        assert_eq!(format_fps(Some(9.96)), "10");
        assert_eq!(format_fps(Some(9.94)), "9.9");
    }

    #[test]
    fn means_cover_the_last_second_of_frames() {
        let mut h = PhaseHistory::default();
        assert_eq!(h.means().frames, 0);
        // 30 slow frames at 8 Hz, then 2 s of fast ones at 16 Hz (times exact in binary).
        let mut t = 0.0;
        for _ in 0..30 {
            t += 0.125;
            h.record(sample(t, 100.0));
        }
        for _ in 0..32 {
            t += 0.0625;
            h.record(sample(t, 10.0));
        }
        let m = h.means();
        // The last second, both ends included: 17 fast frames, no slow one.
        assert_eq!(m.frames, 17, "{m:?}");
        assert!(!m.since_change);
        assert_eq!(m.ms, [10.0; 5]);
        assert_eq!(m.describe(), "mean of the last 17 frames (1.0 s)");
    }

    #[test]
    fn at_one_frame_per_second_a_change_shows_in_the_next_frame() {
        let mut h = PhaseHistory::default();
        for k in 0..10 {
            h.record(sample(k as f64, 500.0));
        }
        // One frame per second: the window holds the newest and the one before.
        assert_eq!(h.means().frames, 2);
        h.restart();
        assert_eq!(h.means().frames, 0);
        assert_eq!(h.means().describe(), "no frame yet");
        h.record(sample(10.0, 20.0));
        let m = h.means();
        assert_eq!(m.frames, 1);
        assert_eq!(m.ms[2], 20.0, "no mixing with the old setting");
        assert_eq!(m.describe(), "last frame");
        // The graph still has every frame.
        assert_eq!(h.samples().count(), 11);
        assert_eq!(h.samples().last().unwrap().t, 10.0);
    }

    #[test]
    fn a_change_cuts_the_window_short_and_says_so() {
        let mut h = PhaseHistory::default();
        for k in 0..8 {
            h.record(sample(k as f64 * 0.25, 40.0));
        }
        h.restart();
        h.record(sample(2.0, 20.0));
        h.record(sample(2.25, 30.0));
        let m = h.means();
        assert_eq!((m.frames, m.since_change), (2, true));
        assert_eq!(m.ms[0], 25.0);
        assert_eq!(m.describe(), "mean of 2 frames since the last change");
    }

    #[test]
    fn history_is_a_ring_of_the_newest_frames() {
        let mut h = PhaseHistory::default();
        for k in 0..(HISTORY + 7) {
            h.record(sample(k as f64 / 64.0, k as f32));
        }
        let ts: Vec<f32> = h.samples().map(|s| s.ms[0]).collect();
        assert_eq!(ts.len(), HISTORY);
        assert_eq!(ts[0], 7.0);
        assert_eq!(*ts.last().unwrap(), (HISTORY + 6) as f32);
        assert_eq!(
            h.means().frames,
            65,
            "1 s of frames at 64 Hz, both ends included"
        );
    }
}
