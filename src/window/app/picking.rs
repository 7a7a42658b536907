//! Picking and the query inspector: the selected unit, the pointer's
//! routing, a click waiting for the simulation (a worker may have it), and
//! the selected unit's query of the last step drawn in the picture.

use glam::Vec3;

use super::pointer::PointerRouter;
use super::selection::Selection;
use super::App;
use crate::engine::sim::inspect::Inspection;
use crate::engine::sim::Simulation;
use crate::engine::spatial::{Kernel, Query};
use crate::window::ui::stats::SelectedUnit;

/// Distance from a click to the farthest unit it may pick, world units.
const PICK_RADIUS: f32 = 8.0;

/// A click on the scene not yet picked: it is picked when the simulation
/// is in this thread (at once, or once a worker gives it back).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) enum PendingClick {
    /// No click waits.
    #[default]
    None,
    /// A click on the ground at this point, world units: it selects the
    /// nearest unit within [`PICK_RADIUS`], or deselects.
    Ground(Vec3),
    /// A click that missed the ground (above the horizon): it deselects.
    MissedGround,
}

/// The selected unit and how it is picked and inspected.
#[derive(Default)]
pub(super) struct Picking {
    /// The selected unit, and whether the camera follows it.
    pub selection: Selection,
    /// Routes the mouse to the overlay or the scene (clicks, drags, wheel).
    pub pointer: PointerRouter,
    /// Storage indices a pick's query found (kept for its buffer).
    buf: Vec<u32>,
    /// A click not yet picked.
    click: PendingClick,
    /// `--select`'s unit, selected once the worker has spawned the units.
    pub select_at_start: Option<u32>,
    /// The selected unit's query of the last picture (its candidates,
    /// neighbors and searched cells).
    pub inspection: Inspection,
    /// The storage index `inspection` was made for.
    pub inspected: Option<usize>,
}

impl Picking {
    /// Keeps a click whose ground point is `ground` (`None`: it missed the
    /// ground) to be picked when the simulation is here.
    pub fn click(&mut self, ground: Option<Vec3>) {
        self.click = match ground {
            Some(p) => PendingClick::Ground(p),
            None => PendingClick::MissedGround,
        };
    }

    /// Picks the waiting click, if any, in `sim` (queried with `kernel`):
    /// selects the unit nearest to its ground point, or deselects.
    pub fn pick_clicked(&mut self, sim: &Simulation, kernel: Kernel) {
        let picked = match std::mem::take(&mut self.click) {
            PendingClick::None => return,
            PendingClick::MissedGround => None,
            PendingClick::Ground(hit) => self.pick(sim, kernel, hit),
        };
        let picked = picked.map(|i| (i, sim.handle_of(i)));
        self.selection.select_at(picked);
    }

    /// The storage index of the unit of `sim` nearest to the ground point
    /// `hit` (world units), within [`PICK_RADIUS`], found with the
    /// simulation's own spatial index (queried with `kernel`).
    fn pick(&mut self, sim: &Simulation, kernel: Kernel, hit: Vec3) -> Option<usize> {
        self.buf.clear();
        sim.query(
            &Query::new(hit.x, hit.z, PICK_RADIUS),
            kernel,
            &mut self.buf,
        );
        let store = sim.store();
        let d = |k: usize| {
            let (x, z) = store.pos(k);
            (x - hit.x).powi(2) + (z - hit.z).powi(2)
        };
        self.buf
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| j < store.len())
            .min_by(|&i, &j| d(i).total_cmp(&d(j)))
    }

    /// Inspects the selected unit's query in `sim` at radius `r` (world
    /// units) for the picture, or clears the inspection when none is
    /// selected; returns the selected unit's storage index.
    pub fn inspect(&mut self, sim: &Simulation, r: f32) -> Option<usize> {
        let selected = self.selection.index();
        match selected {
            Some(i) => self.inspection.fill(sim, i, r),
            None => self.inspection.clear(),
        }
        self.inspected = selected;
        selected
    }

    /// The selected unit's line for the overlay, if a unit is selected and
    /// stored in `sim`.
    pub fn selected_unit(&self, sim: &Simulation) -> Option<SelectedUnit> {
        let i = self.selection.index().filter(|&i| i < sim.len())?;
        Some(SelectedUnit {
            id: sim.store().hot(i).id,
            neighbors: sim.neighbor_count(i),
            enemies: sim.store().hot(i).enemies,
            follow: self.selection.follows(),
            inspected: (self.inspected == Some(i)).then_some((
                self.inspection.candidates.len(),
                self.inspection.neighbors.len(),
            )),
        })
    }
}

impl App {
    /// Picks the waiting click ([`Picking::pick_clicked`]), unless a
    /// worker has the simulation (then it waits).
    pub(super) fn pick_clicked(&mut self) {
        if self.stepping.worker.is_some() {
            return;
        }
        self.picking.pick_clicked(&self.sim, self.settings.kernel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::Settings;

    fn small() -> Simulation {
        let s = Settings {
            units: 200,
            threads: 1,
            ..Settings::default()
        };
        let mut sim = Simulation::new(&s);
        sim.step(0.0, &s);
        sim
    }

    #[test]
    fn a_click_picks_the_nearest_unit_and_a_miss_deselects() {
        let sim = small();
        let kernel = Settings::default().kernel;
        let mut p = Picking::default();
        let (x, z) = sim.store().pos(7);
        p.click(Some(Vec3::new(x, 0.0, z)));
        p.pick_clicked(&sim, kernel);
        assert_eq!(p.selection.index(), Some(7));
        // Nothing waits: the selection stays.
        p.pick_clicked(&sim, kernel);
        assert_eq!(p.selection.index(), Some(7));
        p.click(None);
        p.pick_clicked(&sim, kernel);
        assert_eq!(p.selection.index(), None);
    }
}
