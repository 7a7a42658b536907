//! The units' picture, drawn in slices when it is too slow for one frame.
//!
//! Under a software rasterizer 200,000 units take about half a second to
//! draw; drawn in one go, every window refresh waits for them, and input and
//! the overlay with it. [`ProgressiveScene`] draws the scene into an offscreen
//! target ("back") a slice of instances per refresh, within a time budget,
//! while the screen shows the last complete picture ("front"); a finished
//! back becomes the front. When the whole picture fits the budget, it is
//! begun, finished and shown in the same refresh, so small scenes look
//! exactly as if drawn directly.
//!
//! One picture is one snapshot: the instances, the camera and the ground are
//! those of the refresh that began it. The caller steps the simulation when
//! [`ProgressiveScene::is_idle`] says a new picture can begin, so the picture
//! shown is never more than one step behind the simulation.

use std::time::Instant;

use glam::Mat4;
use macroquad::camera::{set_camera, set_default_camera, Camera3D};
use macroquad::color::{Color, WHITE};
use macroquad::math::vec2;
use macroquad::texture::{
    draw_texture_ex, render_target_ex, DrawTextureParams, FilterMode, RenderTarget,
    RenderTargetParams,
};
use macroquad::window::{clear_background, get_internal_gl, screen_height, screen_width};

use super::lod::{Lod, LodCounts};
use super::{Shape, UnitInstance, UnitRenderer};

/// CPU seconds of unit drawing per window refresh; a picture that needs more
/// is drawn in slices over several refreshes ([`ProgressiveScene`]), so input
/// and the overlay stay responsive whatever the unit count.
pub const RENDER_BUDGET_S: f64 = 0.045;

/// Fewest instances per slice, so the per-draw overhead stays small.
pub const MIN_SLICE: usize = 4_096;

/// How the last complete picture was made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PictureStats {
    /// Instances in the picture.
    pub instances: usize,
    /// Window refreshes it took to draw (1 = drawn in one go).
    pub refreshes: u32,
    /// Seconds from its start to its completion.
    pub seconds: f64,
    /// CPU seconds spent in its draw calls.
    pub draw_seconds: f64,
    /// Units drawn as meshes, as impostors, and culled ([`Lod`]).
    pub lod: LodCounts,
}

/// Offscreen front and back targets (color and depth), with their size in pixels.
struct Targets {
    front: RenderTarget,
    back: RenderTarget,
    size: (u32, u32),
}

/// The units' picture, drawn within a time budget per refresh; see the module docs.
pub struct ProgressiveScene {
    targets: Option<Targets>,
    instances: Vec<UnitInstance>,
    /// The picture's units to draw: meshes first, then impostors.
    drawable: Vec<UnitInstance>,
    /// Scratch of [`Lod::partition`].
    impostors: Vec<UnitInstance>,
    lod: LodCounts,
    view_proj: Mat4,
    drawn: usize,
    building: bool,
    has_front: bool,
    /// Smoothed CPU seconds per instance of the draw calls.
    per_instance_s: f64,
    started: Option<Instant>,
    refreshes: u32,
    draw_seconds: f64,
    last: PictureStats,
}

impl Default for ProgressiveScene {
    fn default() -> Self {
        ProgressiveScene {
            targets: None,
            instances: Vec::new(),
            drawable: Vec::new(),
            impostors: Vec::new(),
            lod: LodCounts::default(),
            view_proj: Mat4::IDENTITY,
            drawn: 0,
            building: false,
            has_front: false,
            // About what a software rasterizer needs; the first slices correct it.
            per_instance_s: 2e-6,
            started: None,
            refreshes: 0,
            draw_seconds: 0.0,
            last: PictureStats::default(),
        }
    }
}

impl ProgressiveScene {
    /// True when no picture is being drawn: fill [`instances_mut`](Self::instances_mut)
    /// and call [`begin`](Self::begin).
    pub fn is_idle(&self) -> bool {
        !self.building
    }

    /// The instances of the next picture (fill before [`begin`](Self::begin);
    /// the buffer is kept, so steady state does not allocate).
    pub fn instances_mut(&mut self) -> &mut Vec<UnitInstance> {
        &mut self.instances
    }

    /// How the last complete picture was made.
    pub fn last_picture(&self) -> PictureStats {
        self.last
    }

    /// Begins a picture of [`instances_mut`](Self::instances_mut) seen
    /// through `camera` (its render target is replaced by the back target)
    /// and `view_proj` (the same view for the instanced units): sorts the
    /// units by `lod` (culled ones dropped, meshes, then impostors), clears
    /// the back target to `background`, then runs `ground` (macroquad 3D
    /// drawing: the world, grid lines, the query circle) into it.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn begin(
        &mut self,
        camera: Camera3D,
        view_proj: Mat4,
        background: Color,
        lod: &Lod,
        ground: impl FnOnce(),
    ) {
        self.lod = lod.partition(&self.instances, &mut self.drawable, &mut self.impostors);
        self.ensure_targets();
        let back = &self.targets.as_ref().expect("ensured").back;
        set_camera(&Camera3D {
            render_target: Some(back.clone()),
            ..camera
        });
        clear_background(background);
        ground();
        self.view_proj = view_proj;
        self.drawn = 0;
        self.building = true;
        self.started = Some(Instant::now());
        self.refreshes = 0;
        self.draw_seconds = 0.0;
    }

    /// Draws slices of the picture being built until `budget_s` seconds of
    /// draw calls are spent (the whole rest when `finish` is true, e.g. for a
    /// screenshot). Returns true when the picture was completed and is now
    /// the one shown. Does nothing when idle.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn advance(&mut self, renderer: &mut UnitRenderer, budget_s: f64, finish: bool) -> bool {
        if !self.building {
            return false;
        }
        if self.ensure_targets() {
            // Resized: the picture being built is gone; the caller begins anew.
            self.building = false;
            return false;
        }
        self.refreshes += 1;
        let pass = self
            .targets
            .as_ref()
            .expect("ensured")
            .back
            .render_pass
            .raw_miniquad_id();
        let t0 = Instant::now();
        loop {
            let left = self.drawable.len() - self.drawn;
            if left == 0 {
                break;
            }
            let spent = t0.elapsed().as_secs_f64();
            if !finish && spent >= budget_s {
                break;
            }
            let fit = ((budget_s - spent) / self.per_instance_s) as usize;
            let n = if finish {
                left
            } else {
                fit.max(MIN_SLICE).min(left)
            };
            let (start, end) = (self.drawn, self.drawn + n);
            let t = Instant::now();
            // The part of the slice before the impostors, then the rest.
            let split = self.lod.mesh.clamp(start, end);
            let (meshes, quads) = self.drawable[start..end].split_at(split - start);
            renderer.draw_shape(Some(pass), self.view_proj, meshes, Shape::Mesh);
            renderer.draw_shape(Some(pass), self.view_proj, quads, Shape::Impostor);
            let dt = t.elapsed().as_secs_f64();
            if n >= MIN_SLICE {
                let sample = dt / n as f64;
                self.per_instance_s = 0.7 * self.per_instance_s + 0.3 * sample;
            }
            self.drawn += n;
        }
        // Draw whatever macroquad queued for the back target (an empty picture's ground).
        // SAFETY: macroquad main thread, inside the window; the borrow ends with
        // this statement.
        unsafe { get_internal_gl() }.flush();
        self.draw_seconds += t0.elapsed().as_secs_f64();
        if self.drawn < self.drawable.len() {
            return false;
        }
        let targets = self.targets.as_mut().expect("begin created the targets");
        std::mem::swap(&mut targets.front, &mut targets.back);
        self.has_front = true;
        self.building = false;
        self.last = PictureStats {
            instances: self.instances.len(),
            refreshes: self.refreshes,
            seconds: self.started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
            draw_seconds: self.draw_seconds,
            lod: self.lod,
        };
        true
    }

    /// Shows the last complete picture on the whole screen (default camera);
    /// draw the overlay after it. Shows nothing before the first picture.
    pub fn present(&self) {
        set_default_camera();
        if let (true, Some(t)) = (self.has_front, &self.targets) {
            draw_texture_ex(
                &t.front.texture,
                0.0,
                0.0,
                WHITE,
                DrawTextureParams {
                    dest_size: Some(vec2(screen_width(), screen_height())),
                    flip_y: true,
                    ..Default::default()
                },
            );
        }
    }

    /// Makes the targets match the window's size in pixels; returns true when
    /// they were (re)created (the front then shows nothing until the next
    /// complete picture).
    fn ensure_targets(&mut self) -> bool {
        let (w, h) = macroquad::miniquad::window::screen_size();
        let size = (w.max(1.0) as u32, h.max(1.0) as u32);
        if self.targets.as_ref().is_some_and(|t| t.size == size) {
            return false;
        }
        let make = || {
            let t = render_target_ex(
                size.0,
                size.1,
                RenderTargetParams {
                    sample_count: 1,
                    depth: true,
                },
            );
            t.texture.set_filter(FilterMode::Nearest);
            t
        };
        self.targets = Some(Targets {
            front: make(),
            back: make(),
            size,
        });
        self.has_front = false;
        true
    }
}
