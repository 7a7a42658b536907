//! The cache model of a list of settings as one task of a [`Job`]: each
//! step models one item's query phase on a fresh simulation
//! ([`model_row`]), so a lesson's modeled misses are made on
//! the measuring thread, never in the window's refresh.
//!
//! [`Job`]: super::run::Job

use crate::engine::sim::Settings;
use crate::engine::sim::Simulation;
use crate::measure::memory::modeled::{model_key, model_queries, Modeled, QuerySample};
use crate::measure::BENCH_DT;
use crate::settings::view::Geometry;

/// Models the query phase of each of a list of settings, one per step.
#[derive(Clone, Debug)]
pub struct ModelTask {
    items: Vec<Settings>,
    geometry: Geometry,
    results: Vec<Option<Modeled>>,
    /// Models made so far, by their settings key (kernel and threads
    /// fixed): items that differ only there share one.
    done: Vec<(Settings, Modeled)>,
    at: usize,
    stopped: Option<String>,
}

impl ModelTask {
    /// A task modeling `items` in order with `geometry`.
    pub fn new(items: Vec<Settings>, geometry: Geometry) -> ModelTask {
        ModelTask {
            results: vec![None; items.len()],
            items,
            geometry,
            done: Vec::new(),
            at: 0,
            stopped: None,
        }
    }

    /// Models the next item (a fresh simulation of it after one frame:
    /// some milliseconds to a second at a million units); false when every
    /// item is done or the task stopped. An item the geometry cannot model
    /// keeps no result.
    pub fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        let s = &self.items[self.at];
        self.results[self.at] = model_row(s, self.geometry, &mut self.done);
        self.at += 1;
        !self.is_done()
    }

    /// True when every item is modeled or the task stopped.
    pub fn is_done(&self) -> bool {
        self.stopped.is_some() || self.at >= self.items.len()
    }

    /// Ends the task now, saying `why`; the items modeled keep their results.
    pub fn stop(&mut self, why: impl Into<String>) {
        self.stopped = Some(why.into());
    }

    /// Why it stopped, if it was stopped.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Fraction of the items modeled, 0 to 1.
    pub fn progress(&self) -> f64 {
        if self.items.is_empty() {
            1.0
        } else {
            self.at as f64 / self.items.len() as f64
        }
    }

    /// Items in all.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there is nothing to model.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// What is modeled now, for a progress line.
    pub fn now(&self) -> Option<String> {
        self.items.get(self.at).map(|s| {
            format!(
                "cache model of {} / {}, {} units",
                s.strategy.name(),
                s.layout.name(),
                crate::format::thousands(s.units as u64)
            )
        })
    }

    /// The geometry modeled.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The model of item `i`, if made.
    pub fn result(&self, i: usize) -> Option<&Modeled> {
        self.results.get(i).and_then(Option::as_ref)
    }
}

/// The cache model of the query phase of `s` with geometry `g`: a fresh
/// simulation of `s` after one frame, through [`model_queries`] with the
/// default sample. Kernel and thread count change no modeled read, so a
/// model already in `done` for the same other settings is reused (and a
/// new one kept there). `None` when the geometry cannot be modeled.
pub fn model_row(
    s: &Settings,
    g: Geometry,
    done: &mut Vec<(Settings, Modeled)>,
) -> Option<Modeled> {
    let key = model_key(s);
    if let Some((_, m)) = done.iter().find(|(k, m)| *k == key && m.geometry == g) {
        return Some(m.clone());
    }
    let mut sim = Simulation::new(&key);
    sim.step(BENCH_DT, &key);
    let m = model_queries(&sim, key.radius, g, QuerySample::default()).ok()?;
    done.push((key, m.clone()));
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::Layout;

    #[test]
    fn each_step_models_one_item_and_equal_work_is_modeled_once() {
        let base = Settings {
            units: 2_000,
            ..Settings::default()
        };
        let items = vec![
            Settings {
                layout: Layout::Aos,
                ..base.clone()
            },
            Settings {
                layout: Layout::Aos,
                threads: 2,
                ..base.clone()
            },
            Settings {
                layout: Layout::Soa,
                ..base.clone()
            },
        ];
        let mut t = ModelTask::new(items, Geometry::Classroom);
        assert_eq!(t.progress(), 0.0);
        assert!(t.now().unwrap().contains("AoS"));
        assert!(t.step());
        assert!(t.result(0).is_some() && t.result(1).is_none());
        assert!(t.step());
        assert!(!t.step());
        assert!(t.is_done() && t.progress() == 1.0 && !t.step());
        // Threads change no read: the same counts.
        assert_eq!(t.result(0), t.result(1));
        assert_ne!(t.result(0), t.result(2));
        assert_eq!(t.done.len(), 2, "equal work modeled once");
        let mut s = ModelTask::new(vec![base], Geometry::Machine);
        s.stop("cancelled");
        assert!(s.is_done() && !s.step() && s.result(0).is_none());
        assert_eq!(s.stopped(), Some("cancelled"));
    }
}
