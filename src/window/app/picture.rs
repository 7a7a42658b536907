//! The picture: a picture of the last step is begun, its instances packed
//! within a budget per refresh ([`Picture::pack`]), then drawn (in slices
//! when slow) by the [`crate::window::render::ProgressiveScene`]; the unit
//! mesh is switched here ([`Picture::switch_mesh`]).

use crate::platform::clock::Instant;

use macroquad::prelude::{clear_background, set_default_camera, Color};

use super::{aspect, App, BACKGROUND};
use crate::engine::sim::Simulation;
use crate::window::render::mesh::asset_dirs;
use crate::window::render::{
    draw_query_circle, draw_searched_cells, draw_world, ground_lift, load_unit_kind, visible_units,
    CellHeatmap, ColorMode, Highlight, Lod, NormalPrecision, OrbitCamera, Packer, ProgressiveScene,
    UnitMeshKind, UnitRenderer, IMPOSTOR_PIXELS,
};
use crate::window::ui::stats::{FrameStats, PhaseSample};

/// Seconds of instance packing per refresh ([`Picture::pack`]).
const PACK_BUDGET_S: f64 = 0.05;
/// A step call longer than this (seconds) leaves the picture's start to the
/// next refresh: packing a million instances takes 40 to 400 ms depending on
/// the layout, and one refresh should not pay for both.
const PICTURE_AFTER_STEP_S: f64 = 0.05;
/// Units packed between two looks at the clock.
const PACK_CHUNK: usize = 16_384;

/// The selected unit's query circle: its center and radius, world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct QueryCircle {
    /// The center's x.
    pub x: f32,
    /// The center's z.
    pub z: f32,
    /// The query radius.
    pub radius: f32,
}

/// A picture begun by [`App::begin_picture`] whose instances are still
/// being packed ([`Picture::pack`]), with the view it was begun for.
pub(super) struct Packing {
    pub(super) packer: Packer,
    /// The next index of [`PicturePacing::visible`] to pack.
    pub(super) next: usize,
    pub(super) camera: OrbitCamera,
    pub(super) aspect: f32,
    pub(super) view_proj: glam::Mat4,
    pub(super) lod: Lod,
    /// Grid lines at this cell size, if shown.
    pub(super) grid: Option<f32>,
    /// The selected unit's query circle.
    pub(super) circle: Option<QueryCircle>,
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

/// The picture: the renderer of the unit mesh, the progressive scene that
/// draws it, which picture comes next, and the cell occupancy drawn on the
/// ground.
pub(super) struct Picture {
    /// Draws the units (meshes and impostors).
    pub renderer: UnitRenderer,
    /// The picture being drawn, in slices when slow, and the last complete one.
    pub scene: ProgressiveScene,
    /// Which picture to draw next and how far it is.
    pub pacing: PicturePacing,
    /// The units per cell of the last step, when the view shows them.
    heatmap: CellHeatmap,
    /// The unit mesh `renderer` was built for.
    mesh_kind: UnitMeshKind,
}

impl Picture {
    /// Nothing drawn yet with `renderer`, built for the mesh `kind`.
    pub fn new(renderer: UnitRenderer, kind: UnitMeshKind) -> Self {
        Picture {
            renderer,
            scene: ProgressiveScene::default(),
            pacing: PicturePacing::new(),
            heatmap: CellHeatmap::default(),
            mesh_kind: kind,
        }
    }

    /// Packs the instances of the picture begun by [`App::begin_picture`]
    /// for up to `budget_s` seconds (about; [`PACK_BUDGET_S`] per refresh),
    /// reading the units of `sim` (world edge `world`, world units), then,
    /// once every visible unit is packed, hands the picture to the scene,
    /// with the cell occupancy on the ground when `heatmap`. A million
    /// units through AoS pointers take about 180 ms to pack, so they are
    /// packed over a few refreshes; the simulation does not step
    /// meanwhile, so every part reads the same units.
    pub fn pack(&mut self, sim: &Simulation, world: f32, heatmap: bool, budget_s: f64) {
        let Some(mut p) = self.pacing.packing.take() else {
            return;
        };
        let t = Instant::now();
        let n = sim.len();
        while p.next < self.pacing.visible.len() {
            let end = (p.next + PACK_CHUNK).min(self.pacing.visible.len());
            let units = self.pacing.visible[p.next..end]
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i < n);
            p.packer.pack(sim, units, self.scene.instances_mut());
            p.next = end;
            if t.elapsed().as_secs_f64() > budget_s && p.next < self.pacing.visible.len() {
                self.pacing.packing = Some(p);
                return;
            }
        }
        if heatmap {
            self.heatmap.update(sim);
        }
        let occupancy = heatmap.then_some(&self.heatmap);
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
                if let Some(c) = circle {
                    draw_query_circle(c.x, c.z, c.radius);
                }
            },
        );
    }

    /// Replaces the renderer with one for the unit mesh `kind` (loaded from
    /// `assets/` when it is not the built-in one; a missing or broken file
    /// draws the built-in tank and leaves a warning in `stats`). If the
    /// new renderer cannot be built, the old one stays, with the reason.
    /// Returns the mesh drawn now.
    pub fn switch_mesh(&mut self, kind: UnitMeshKind, stats: &mut FrameStats) -> UnitMeshKind {
        let (mesh, warning) = load_unit_kind(kind, &asset_dirs());
        match UnitRenderer::new(&mesh, self.renderer.instance_capacity()) {
            Ok(new) => {
                std::mem::replace(&mut self.renderer, new).delete();
                self.mesh_kind = kind;
                record_mesh(stats, &self.renderer, warning);
            }
            Err(e) => {
                stats.mesh_warning = Some(format!("mesh {}: {e}", kind.key()));
            }
        }
        self.mesh_kind
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
        if self.quiet.is_running() {
            // The scene waits for the quiet measurement: no step, no picture.
            return;
        }
        if self.picture.pacing.packing.is_some() {
            // A picture being packed: the simulation waits for it (the
            // screenshot's last frame packs the rest at once).
            self.pack_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
        } else if self.picture.scene.is_idle() {
            // A new picture after each complete frame, and of the new units
            // at once after a spawn (a sliced frame completes only after
            // several refreshes). After a long step the picture begins at
            // the next refresh, so no refresh pays for both.
            let t = Instant::now();
            let picture = match self.picture.pacing.deferred_picture.take() {
                // Not while a worker has the simulation: the stand-in has no units.
                Some(of_step) if self.stepping.worker.is_some() => {
                    self.picture.pacing.deferred_picture = Some(of_step);
                    None
                }
                Some(of_step) => Some(of_step),
                None => {
                    let done = self.step();
                    let wanted = self.picture.pacing.needs_picture || done;
                    if !wanted || self.stepping.worker.is_some() {
                        // A spawn's picture waits for the worker (a completed
                        // frame never leaves the simulation with one).
                        None
                    } else if t.elapsed().as_secs_f64() > PICTURE_AFTER_STEP_S {
                        self.picture.pacing.needs_picture = false;
                        self.picture.pacing.deferred_picture = Some(done);
                        None
                    } else {
                        self.picture.pacing.needs_picture = false;
                        Some(done)
                    }
                }
            };
            if let Some(of_step) = picture {
                self.picture.pacing.picture_of_step = of_step;
                self.begin_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
            }
        }
    }

    /// Begins the picture of the last step: ground, grid lines, the cell
    /// occupancy heat map, the selected unit's query circle and searched
    /// cells (inspected once per step), and one instance per unit.
    pub(super) fn begin_picture(&mut self, pack_budget_s: f64) {
        self.stats.render_s = 0.0;
        let mesh = self.view.settings.mesh;
        if mesh != self.picture.mesh_kind {
            self.view.settings.mesh = self.picture.switch_mesh(mesh, &mut self.stats);
        }
        let v = &self.view.settings;
        let renderer = &mut self.picture.renderer;
        renderer.set_layout(v.vertex_layout);
        renderer.set_normal_precision(v.normal_bits);
        renderer.set_error_view(v.color == ColorMode::NormalError);
        renderer.set_instance_codec(self.stepping.world, self.view.unit_scale);
        let selected = self.picking.inspect(&self.sim, self.settings.radius);
        let inspection = &self.picking.inspection;
        let highlight = selected.map(|i| Highlight {
            selected: i,
            candidates: &inspection.candidates,
            neighbors: &inspection.neighbors,
        });
        // Only the units of the grid cells under the view are packed; the
        // per-unit test of the LOD then culls the rest precisely.
        let view_proj = self.camera.view_proj(aspect());
        let lod = Lod::new(
            view_proj,
            crate::window::render::camera::FOVY,
            macroquad::miniquad::window::screen_size(),
            self.picture.renderer.model_len(),
            IMPOSTOR_PIXELS,
        );
        let reach = self.picture.renderer.model_len() * self.view.unit_scale * 1.5;
        let pacing = &mut self.picture.pacing;
        match lod.ground_box(reach, reach) {
            Some(bounds) => visible_units(&self.sim, bounds, &mut pacing.visible),
            None => pacing.visible.clear(),
        }
        pacing.grid_culled = self.sim.len() - pacing.visible.len();
        self.picture.scene.instances_mut().clear();
        let grid = self.view.show_grid.then(|| {
            self.stats
                .step
                .grid
                .map_or(self.settings.cell_size, |g| g.cell)
        });
        let circle = selected.map(|i| {
            let (x, z) = self.sim.store().pos(i);
            QueryCircle {
                x,
                z,
                radius: self.settings.radius,
            }
        });
        self.picture.pacing.packing = Some(Packing {
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
            block: inspection.block,
        });
        self.pack_picture(pack_budget_s);
    }

    /// Packs the picture in progress for up to `budget_s` seconds
    /// ([`Picture::pack`]).
    pub(super) fn pack_picture(&mut self, budget_s: f64) {
        let heatmap = self.view.settings.heatmap;
        self.picture
            .pack(&self.sim, self.stepping.world, heatmap, budget_s);
    }

    /// Draws as much of the picture as the budget allows (all of it on the
    /// last frame, for the screenshot) and shows the last complete one.
    pub(super) fn draw(&mut self, budget_s: f64) {
        let Picture {
            renderer,
            scene,
            pacing,
            ..
        } = &mut self.picture;
        if self.quiet.is_running() {
            // The last picture, dimmed, is all that is drawn while a quiet
            // measurement runs: one textured quad, no units.
            set_default_camera();
            clear_background(BACKGROUND);
            scene.present_dimmed(DIMMED);
            return;
        }
        let t = Instant::now();
        let done = scene.advance(renderer, budget_s, self.clock.is_last());
        set_default_camera();
        clear_background(BACKGROUND);
        scene.present();
        self.stats.render_s += t.elapsed().as_secs_f64();
        if done {
            self.stats.picture = scene.last_picture();
            self.stats.picture.lod.culled += pacing.grid_culled;
            pacing.picture_done = true;
            self.stats.uploaded_bytes = renderer.take_uploaded_bytes();
            self.stats.vertex_layout = renderer.layout();
            self.stats.mesh_bytes = renderer.mesh_bytes();
        }
    }

    /// Adds the step whose picture was just finished to the timings graph:
    /// one sample per step, its phases and the time its picture took to
    /// draw. A picture of a step of other settings than the current ones
    /// (begun before a change, or deferred across one) goes into the graph
    /// but not into the means.
    pub(super) fn record_picture(&mut self, now: f64) {
        let pacing = &mut self.picture.pacing;
        if !(std::mem::take(&mut pacing.picture_done) && pacing.picture_of_step) {
            return;
        }
        let old_work = !self.stats.is_current(&self.settings);
        self.stats
            .history
            .record(PhaseSample::of(now, &self.stats.step, self.stats.render_s));
        if std::mem::take(&mut pacing.restart_after_picture) || old_work {
            self.stats.history.restart();
        }
    }
}
