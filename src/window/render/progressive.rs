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
//!
//! The targets are at most as large as the GL context allows
//! ([`GlLimits::target_size`]): a window larger than that is drawn from a
//! target at the limit, stretched on the clamped edge. Targets that the
//! context still cannot make (incomplete framebuffers, e.g. out of memory)
//! are retried at half the size, down to 1x1.

use crate::platform::clock::Instant;

use glam::Mat4;
use macroquad::camera::{set_camera, set_default_camera, Camera3D};
use macroquad::color::{Color, WHITE};
use macroquad::math::vec2;
use macroquad::miniquad::{gl, PassAction};
use macroquad::texture::{
    draw_texture_ex, render_target_ex, DrawTextureParams, FilterMode, RenderTarget,
    RenderTargetParams,
};
use macroquad::window::{clear_background, get_internal_gl, screen_height, screen_width};

use super::gl_limits::GlLimits;
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

/// Offscreen front and back targets (color and depth) made for a window of
/// `window` pixels, at most [`GlLimits::target_size`] (smaller when that
/// could not be made); `pair` is `None` when not even 1x1 could be made.
struct Targets {
    pair: Option<(RenderTarget, RenderTarget)>,
    window: (u32, u32),
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
    /// A note about the window exceeding the GPU's limits was printed.
    noted: bool,
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
            noted: false,
        }
    }
}

impl ProgressiveScene {
    /// Why the units cannot be drawn, if they cannot: not even a 1x1
    /// offscreen target could be made for this window (the picture then
    /// shows the background only). `None` before the first picture too.
    pub fn cannot_draw(&self) -> Option<&'static str> {
        self.targets.as_ref().filter(|t| t.pair.is_none()).map(|_| {
            "no offscreen render target could be made for this window, so the units are not drawn"
        })
    }

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
        if let Some(back) = self.back() {
            set_camera(&Camera3D {
                render_target: Some(back.clone()),
                ..camera
            });
            clear_background(background);
            ground();
        }
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
        let t0 = Instant::now();
        let pass = self.back().map(|b| b.render_pass.raw_miniquad_id());
        if pass.is_none() {
            // No target could be made: the picture is empty and complete
            // (the overlay still shows; `ensure_targets` said why on stderr).
            self.drawn = self.drawable.len();
        }
        while let Some(pass) = pass {
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
        if let Some((front, back)) = self.targets.as_mut().and_then(|t| t.pair.as_mut()) {
            std::mem::swap(front, back);
            self.has_front = true;
        }
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
        self.present_dimmed(WHITE);
    }

    /// [`ProgressiveScene::present`] with the picture multiplied by `tint`
    /// (a quiet measurement dims it).
    pub fn present_dimmed(&self, tint: Color) {
        set_default_camera();
        let front = self.targets.as_ref().and_then(|t| t.pair.as_ref());
        if let (true, Some((front, _))) = (self.has_front, front) {
            draw_texture_ex(
                &front.texture,
                0.0,
                0.0,
                tint,
                DrawTextureParams {
                    dest_size: Some(vec2(screen_width(), screen_height())),
                    flip_y: true,
                    ..Default::default()
                },
            );
        }
    }

    /// The target being drawn, if any could be made.
    fn back(&self) -> Option<&RenderTarget> {
        self.targets.as_ref()?.pair.as_ref().map(|(_, back)| back)
    }

    /// Makes the targets for the window's size in pixels, within the GL
    /// limits; returns true when they were (re)made (the front then shows
    /// nothing until the next complete picture). Says once on stderr when
    /// the window is larger than the GPU can draw or its targets are smaller
    /// than the window.
    fn ensure_targets(&mut self) -> bool {
        let (w, h) = macroquad::miniquad::window::screen_size();
        let window = (w.max(1.0) as u32, h.max(1.0) as u32);
        if self.targets.as_ref().is_some_and(|t| t.window == window) {
            return false;
        }
        // The old pair is released before the new one is made.
        self.targets = None;
        self.has_front = false;
        let limits = GlLimits::current();
        let mut size = limits.target_size(window);
        let pair = loop {
            if let Some(pair) = make_pair(size) {
                break Some(pair);
            }
            if size == (1, 1) {
                break None;
            }
            size = (size.0.div_ceil(2), size.1.div_ceil(2));
        };
        if !self.noted {
            if let Some(note) = limits.target_note(window, pair.as_ref().map(|_| size)) {
                eprintln!("{note}");
                self.noted = true;
            }
        }
        self.targets = Some(Targets { pair, window });
        true
    }
}

/// A front and back target of `size` pixels, or `None` when the context
/// cannot make them (a framebuffer around them is incomplete).
fn make_pair(size: (u32, u32)) -> Option<(RenderTarget, RenderTarget)> {
    let front = make_target(size)?;
    let back = make_target(size)?;
    Some((front, back))
}

/// One color and depth target of `size` pixels, if its framebuffer is complete.
fn make_target(size: (u32, u32)) -> Option<RenderTarget> {
    let t = render_target_ex(
        size.0,
        size.1,
        RenderTargetParams {
            sample_count: 1,
            depth: true,
        },
    );
    t.texture.set_filter(FilterMode::Nearest);
    // SAFETY: macroquad main thread, inside the window (the callers' documented
    // precondition); the borrow ends with this statement.
    let ctx = unsafe { get_internal_gl() }.quad_context;
    ctx.begin_pass(Some(t.render_pass.raw_miniquad_id()), PassAction::Nothing);
    // SAFETY: the context is current (as above) and `begin_pass` has just
    // bound the target's framebuffer; the query only reads its state.
    let status = unsafe { gl::glCheckFramebufferStatus(gl::GL_FRAMEBUFFER) };
    ctx.end_render_pass();
    (status == gl::GL_FRAMEBUFFER_COMPLETE).then_some(t)
}
