//! Picture pacing: a picture of the last step is begun, its instances
//! packed within a budget per refresh, then drawn (in slices when slow) by
//! the [`crate::window::render::ProgressiveScene`]; the unit mesh is switched here.

use crate::platform::clock::Instant;

use macroquad::prelude::{clear_background, set_default_camera, Color};

use super::{aspect, App, BACKGROUND};
use crate::window::render::mesh::asset_dirs;
use crate::window::render::{
    draw_query_circle, draw_searched_cells, draw_world, ground_lift, load_unit_kind, visible_units,
    ColorMode, Highlight, Lod, NormalPrecision, OrbitCamera, Packer, UnitMeshKind, UnitRenderer,
    IMPOSTOR_PIXELS,
};
use crate::window::ui::stats::FrameStats;

/// Seconds of instance packing per refresh ([`App::pack_picture`]).
const PACK_BUDGET_S: f64 = 0.05;
/// A step call longer than this (seconds) leaves the picture's start to the
/// next refresh: packing a million instances takes 40 to 400 ms depending on
/// the layout, and one refresh should not pay for both.
const PICTURE_AFTER_STEP_S: f64 = 0.05;
/// Units packed between two looks at the clock.
const PACK_CHUNK: usize = 16_384;

/// A picture begun by [`App::begin_picture`] whose instances are still
/// being packed ([`App::pack_picture`]), with the view it was begun for.
pub(super) struct Packing {
    pub(super) packer: Packer,
    /// The next index of [`App`]'s visible units to pack.
    pub(super) next: usize,
    pub(super) camera: OrbitCamera,
    pub(super) aspect: f32,
    pub(super) view_proj: glam::Mat4,
    pub(super) lod: Lod,
    /// Grid lines at this cell size, if shown.
    pub(super) grid: Option<f32>,
    /// The selected unit's query circle: center x, z and radius.
    pub(super) circle: Option<(f32, f32, f32)>,
    /// The cells the selected unit's query searched.
    pub(super) block: Option<crate::engine::sim::inspect::SearchedBlock>,
}

/// Which picture the window draws next and how far it is: whether one is
/// wanted, begun but still being packed, or deferred to the next refresh.
#[derive(Default)]
pub(super) struct PicturePacing {
    /// Begin a picture after the next step even if it completes no frame
    /// (the units were spawned and none is drawn yet).
    pub(super) needs_picture: bool,
    /// The picture in progress shows a completed step (not only a spawn),
    /// so its timings go into the history.
    pub(super) picture_of_step: bool,
    /// A picture to begin at the next refresh (the step before it was
    /// long), and whether it shows a completed step.
    pub(super) deferred_picture: Option<bool>,
    /// The picture of the last step was completed in this frame.
    pub(super) picture_done: bool,
    /// The work changed while a picture was in progress: restart the means
    /// once its timings are recorded.
    pub(super) restart_after_picture: bool,
    /// The picture whose instances are being packed, if one is.
    pub(super) packing: Option<Packing>,
    /// Storage indices of the units in the grid cells under the view.
    pub(super) visible: Vec<u32>,
    /// Units of the picture being drawn left out with their grid cells.
    pub(super) grid_culled: usize,
}

impl PicturePacing {
    /// Nothing drawn yet: the first picture is wanted at once.
    pub(super) fn new() -> Self {
        PicturePacing {
            needs_picture: true,
            ..Default::default()
        }
    }
}

/// Puts the unit mesh of `renderer` into `stats`: its vertices,
/// triangles and normal errors, and why the chosen mesh could not be loaded
/// (`warning`), if it could not.
pub(super) fn record_mesh(
    stats: &mut FrameStats,
    renderer: &UnitRenderer,
    warning: Option<String>,
) {
    stats.mesh_warning = warning;
    stats.mesh_vertices = renderer.vertex_count();
    stats.mesh_triangles = renderer.index_count() / 3;
    stats.normal_errors = NormalPrecision::ALL.map(|p| {
        let e = renderer.normal_errors(p);
        (e.max, e.mean)
    });
}

/// How the last picture is tinted while a quiet measurement runs.
const DIMMED: Color = Color::new(0.4, 0.4, 0.45, 1.0);

impl App {
    /// Packs the picture in progress, or, when the scene is idle, steps the
    /// simulation and begins the next picture (`last`: the screenshot's
    /// frame, which packs everything at once).
    pub(super) fn next_picture(&mut self, last: bool) {
        if self.quiet.is_some() {
            // The scene waits for the quiet measurement: no step, no picture.
            return;
        }
        if self.pacing.packing.is_some() {
            // A picture being packed: the simulation waits for it (the
            // screenshot's last frame packs the rest at once).
            self.pack_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
        } else if self.scene.is_idle() {
            // A new picture after each complete frame, and of the new units
            // at once after a spawn (a sliced frame completes only after
            // several refreshes). After a long step the picture begins at
            // the next refresh, so no refresh pays for both.
            let t = Instant::now();
            let picture = match self.pacing.deferred_picture.take() {
                // Not while a worker has the simulation: the stand-in has no units.
                Some(of_step) if self.worker.is_some() => {
                    self.pacing.deferred_picture = Some(of_step);
                    None
                }
                Some(of_step) => Some(of_step),
                None => {
                    let done = self.step();
                    let wanted = self.pacing.needs_picture || done;
                    if !wanted || self.worker.is_some() {
                        // A spawn's picture waits for the worker (a completed
                        // frame never leaves the simulation with one).
                        None
                    } else if t.elapsed().as_secs_f64() > PICTURE_AFTER_STEP_S {
                        self.pacing.needs_picture = false;
                        self.pacing.deferred_picture = Some(done);
                        None
                    } else {
                        self.pacing.needs_picture = false;
                        Some(done)
                    }
                }
            };
            if let Some(of_step) = picture {
                self.pacing.picture_of_step = of_step;
                self.begin_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
            }
        }
    }

    /// Begins the picture of the last step: ground, grid lines, the cell
    /// occupancy heat map, the selected unit's query circle and searched
    /// cells (inspected once per step), and one instance per unit.
    pub(super) fn begin_picture(&mut self, pack_budget_s: f64) {
        self.stats.render_s = 0.0;
        if self.view.settings.mesh != self.mesh_kind {
            self.switch_mesh(self.view.settings.mesh);
        }
        self.renderer.set_layout(self.view.settings.vertex_layout);
        self.renderer
            .set_normal_precision(self.view.settings.normal_bits);
        self.renderer
            .set_error_view(self.view.settings.color == ColorMode::NormalError);
        self.renderer
            .set_instance_codec(self.world, self.view.unit_scale);
        let selected = self.selection.index();
        match selected {
            Some(i) => self.inspection.fill(&self.sim, i, self.settings.radius),
            None => self.inspection.clear(),
        }
        self.inspected = selected;
        let highlight = selected.map(|i| Highlight {
            selected: i,
            candidates: &self.inspection.candidates,
            neighbors: &self.inspection.neighbors,
        });
        // Only the units of the grid cells under the view are packed; the
        // per-unit test of the LOD then culls the rest precisely.
        let view_proj = self.camera.view_proj(aspect());
        let lod = Lod::new(
            view_proj,
            crate::window::render::camera::FOVY,
            macroquad::miniquad::window::screen_size(),
            self.renderer.model_len(),
            IMPOSTOR_PIXELS,
        );
        let reach = self.renderer.model_len() * self.view.unit_scale * 1.5;
        match lod.ground_box(reach, reach) {
            Some(bounds) => visible_units(&self.sim, bounds, &mut self.pacing.visible),
            None => self.pacing.visible.clear(),
        }
        self.pacing.grid_culled = self.sim.len() - self.pacing.visible.len();
        self.scene.instances_mut().clear();
        let grid = self.view.show_grid.then(|| {
            self.stats
                .step
                .grid
                .map_or(self.settings.cell_size, |g| g.cell)
        });
        let circle = selected.map(|i| {
            let (x, z) = self.sim.store().pos(i);
            (x, z, self.settings.radius)
        });
        self.pacing.packing = Some(Packing {
            packer: Packer::new(
                &self.sim,
                self.view.settings.color,
                highlight,
                self.view.unit_scale,
            ),
            next: 0,
            camera: self.camera,
            aspect: aspect(),
            view_proj,
            lod,
            grid,
            circle,
            block: self.inspection.block,
        });
        self.pack_picture(pack_budget_s);
    }

    /// Packs the instances of the picture begun by [`App::begin_picture`]
    /// for up to `budget_s` seconds (about; [`PACK_BUDGET_S`] per refresh), then, once every visible unit is packed,
    /// hands the picture to the scene. A million units through AoS pointers
    /// take about 180 ms to pack, so they are packed over a few refreshes;
    /// the simulation does not step meanwhile, so every part reads the same
    /// units.
    pub(super) fn pack_picture(&mut self, budget_s: f64) {
        let Some(mut p) = self.pacing.packing.take() else {
            return;
        };
        let t = Instant::now();
        let n = self.sim.len();
        while p.next < self.pacing.visible.len() {
            let end = (p.next + PACK_CHUNK).min(self.pacing.visible.len());
            let units = self.pacing.visible[p.next..end]
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i < n);
            p.packer.pack(&self.sim, units, self.scene.instances_mut());
            p.next = end;
            if t.elapsed().as_secs_f64() > budget_s && p.next < self.pacing.visible.len() {
                self.pacing.packing = Some(p);
                return;
            }
        }
        if self.view.settings.heatmap {
            self.heatmap.update(&self.sim);
        }
        let occupancy = self.view.settings.heatmap.then_some(&self.heatmap);
        let Packing {
            camera,
            aspect,
            view_proj,
            lod,
            grid,
            circle,
            block,
            ..
        } = p;
        let world = self.world;
        self.renderer.set_pixels_at_depth_1(lod.pixels_at_depth_1());
        self.scene.begin(
            camera.macroquad_camera(aspect),
            view_proj,
            BACKGROUND,
            &lod,
            || {
                draw_world(world, grid);
                if let Some(h) = occupancy {
                    h.draw(0.5 * ground_lift(world));
                }
                if let Some((geo, cells)) = block {
                    draw_searched_cells(&geo, cells);
                }
                if let Some((x, z, r)) = circle {
                    draw_query_circle(x, z, r);
                }
            },
        );
    }

    /// Draws as much of the picture as the budget allows (all of it on the
    /// last frame, for the screenshot) and shows the last complete one.
    pub(super) fn draw(&mut self, budget_s: f64) {
        if self.quiet.is_some() {
            // The last picture, dimmed, is all that is drawn while a quiet
            // measurement runs: one textured quad, no units.
            set_default_camera();
            clear_background(BACKGROUND);
            self.scene.present_dimmed(DIMMED);
            return;
        }
        let t = Instant::now();
        let finish = self.last_frame.is_some_and(|n| self.frame >= n);
        let done = self.scene.advance(&mut self.renderer, budget_s, finish);
        set_default_camera();
        clear_background(BACKGROUND);
        self.scene.present();
        self.stats.render_s += t.elapsed().as_secs_f64();
        if done {
            self.stats.picture = self.scene.last_picture();
            self.stats.picture.lod.culled += self.pacing.grid_culled;
            self.pacing.picture_done = true;
            self.stats.uploaded_bytes = self.renderer.take_uploaded_bytes();
            self.stats.vertex_layout = self.renderer.layout();
            self.stats.mesh_bytes = self.renderer.mesh_bytes();
        }
    }

    /// Replaces the renderer with one for the unit mesh `kind` (loaded from
    /// `assets/` when it is not the built-in one; a missing or broken file
    /// draws the built-in tank and leaves a warning in the overlay). If the
    /// new renderer cannot be built, the old one stays, with the reason.
    pub(super) fn switch_mesh(&mut self, kind: UnitMeshKind) {
        let (mesh, warning) = load_unit_kind(kind, &asset_dirs());
        match UnitRenderer::new(&mesh, self.renderer.instance_capacity()) {
            Ok(new) => {
                std::mem::replace(&mut self.renderer, new).delete();
                self.mesh_kind = kind;
                record_mesh(&mut self.stats, &self.renderer, warning);
            }
            Err(e) => {
                self.stats.mesh_warning = Some(format!("mesh {}: {e}", kind.key()));
                self.view.settings.mesh = self.mesh_kind;
            }
        }
    }
}
