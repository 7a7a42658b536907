//! An orbit camera over the square world on the x/z plane.
//!
//! The eye sits on a sphere around `target`: at `yaw` around +Y and `pitch`
//! above the ground, `distance` world units away. One projection serves both
//! macroquad's own 3D drawing ([`OrbitCamera::macroquad_camera`]) and the
//! instanced units ([`OrbitCamera::view_proj`]), so lines and units line up.

use glam::{Mat4, Vec2, Vec3};
use macroquad::camera::{Camera3D, Projection};

/// Vertical field of view, radians (45°).
pub const FOVY: f32 = std::f32::consts::FRAC_PI_4;
/// Lowest allowed pitch, radians (5°).
pub const MIN_PITCH: f32 = 5.0 * std::f32::consts::PI / 180.0;
/// Highest allowed pitch, radians (89°; 90° would make the up vector degenerate).
pub const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;
/// Closest allowed distance to the target, world units.
pub const MIN_DISTANCE: f32 = 2.0;
/// Farthest allowed distance to the target, world units: frames the largest
/// world a scenario may ask for (1,000,000 units wide).
pub const MAX_DISTANCE: f32 = 3.0e6;
/// Largest allowed |coordinate| of the target, world units.
const MAX_TARGET: f32 = 2.0e6;
/// Distance factor of one wheel notch (zoom in; the inverse zooms out).
pub const ZOOM_PER_NOTCH: f32 = 0.88;
/// Wheel notches per second that a held zoom key (Z in, X out) applies:
/// about 2.8x closer or farther per second.
pub const ZOOM_KEY_NOTCHES_PER_S: f32 = 8.0;
/// Most wheel notches one frame applies, either way: more than the whole
/// distance range takes (ln(MAX_DISTANCE / MIN_DISTANCE) / ln(1 / 0.88),
/// about 111), so no real frame's notches are cut short, while an absurd
/// value cannot overflow `powf` (an infinite distance would be dropped,
/// not clamped).
const MAX_NOTCHES_PER_FRAME: f32 = 200.0;

/// Yaw of the default 3/4 view, radians: the eye is south-east of the center
/// (+x, +z side), so world +x runs to the right and +z toward the viewer.
const DEFAULT_YAW: f32 = 65.0 * std::f32::consts::PI / 180.0;
/// Pitch of the default 3/4 view, radians.
const DEFAULT_PITCH: f32 = 50.0 * std::f32::consts::PI / 180.0;

/// One frame of camera input, routed by the window loop (mouse drags that
/// started on the overlay and keys while a text field has focus are left out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CameraInput {
    /// Mouse movement while orbiting (left drag), pixels: x right, y down.
    pub orbit_drag: Vec2,
    /// Mouse movement while panning (right or middle drag), pixels.
    pub pan_drag: Vec2,
    /// Wheel notches this frame, positive = zoom in.
    pub wheel: f32,
    /// Held pan keys: x = right - left, y = forward - back.
    pub pan_keys: Vec2,
    /// Held orbit keys: +1 = E (counter-clockwise from above), -1 = Q.
    pub orbit_keys: f32,
    /// Held zoom keys: +1 = Z (in), -1 = X (out).
    pub zoom_keys: f32,
    /// Frame time, seconds.
    pub dt: f32,
}

/// Orbit camera: looks at `target` from `distance` away, at `yaw` around +Y
/// and `pitch` above the x/z plane.
///
/// The eye is `target + distance * (cos(pitch) cos(yaw), sin(pitch),
/// cos(pitch) sin(yaw))`; up is +Y. Right-handed, OpenGL clip space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Point looked at, world units (kept on or near the ground, y = 0).
    pub target: Vec3,
    /// Angle of the eye around +Y, radians, measured from +X toward +Z.
    pub yaw: f32,
    /// Elevation of the eye above the ground plane, radians, in
    /// ([`MIN_PITCH`], [`MAX_PITCH`]).
    pub pitch: f32,
    /// Eye-to-target distance, world units, in ([`MIN_DISTANCE`], [`MAX_DISTANCE`]).
    pub distance: f32,
}

impl OrbitCamera {
    /// A 3/4 view of the square world `[0, L] x [0, L]` (`L = world_size`,
    /// world units) with the whole world in view at any aspect ratio >= 1.
    /// A non-finite or non-positive size is treated as 1.
    pub fn looking_at_world(world_size: f32) -> Self {
        let mut camera = Self {
            target: Vec3::ZERO,
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: 10.0,
        };
        camera.frame_world(world_size);
        camera
    }

    /// Re-fits the view to the world `[0, L] x [0, L]` (`L = world_size`,
    /// world units) for any viewport with aspect ratio >= 1, keeping the
    /// current yaw and pitch; see [`frame_world_for_aspect`](Self::frame_world_for_aspect).
    /// Call when the world size changes.
    pub fn frame_world(&mut self, world_size: f32) {
        self.frame_world_for_aspect(world_size, 1.0);
    }

    /// Re-fits the view to the world `[0, L] x [0, L]` (`L = world_size`,
    /// world units) for viewports of width / height >= `aspect`, keeping the
    /// current yaw and pitch: the target moves so the world is centered
    /// vertically on screen, and the distance is the smallest that shows all
    /// four corners (plus a small margin). A non-finite or non-positive size is
    /// treated as 1, an aspect that is not finite and positive as 1.
    pub fn frame_world_for_aspect(&mut self, world_size: f32, aspect: f32) {
        let size = if world_size.is_finite() && world_size > 0.0 {
            world_size
        } else {
            1.0
        };
        let aspect = sane_aspect(aspect);
        self.sanitize(&Self {
            target: Vec3::ZERO,
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: 10.0,
        });
        let corners = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(size, 0.0, 0.0),
            Vec3::new(size, 0.0, size),
            Vec3::new(0.0, 0.0, size),
        ];
        self.target = Vec3::new(0.5 * size, 0.0, 0.5 * size);
        // Perspective makes the near half of the world look bigger: slide the
        // target away from the eye until the projected world is centered
        // vertically. A few rounds converge to well under a pixel.
        for _ in 0..6 {
            self.distance = self.fit_distance(&corners, aspect);
            let m = self.view_proj(aspect);
            let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
            for &c in &corners {
                let clip = m * c.extend(1.0);
                let y = clip.y / clip.w;
                lo = lo.min(y);
                hi = hi.max(y);
            }
            let middle = 0.5 * (lo + hi);
            if !middle.is_finite() {
                break;
            }
            let world_per_ndc = self.distance * (0.5 * FOVY).tan();
            let (_, forward) = self.ground_axes();
            self.target += forward * middle * world_per_ndc / self.pitch.sin().max(0.2);
        }
        self.distance = self.fit_distance(&corners, aspect);
        let fallback = Self::looking_at_center(size);
        self.sanitize(&fallback);
    }

    /// Re-fits the view so that the world `[0, L] x [0, L]` (`L = world_size`,
    /// world units) sits inside `region` (its min and max corner, y down) of a
    /// window of `window` size (any unit, e.g. logical pixels, as long as both
    /// agree), keeping the current yaw and pitch: the world's picture is
    /// centered in the region and fills it up to a 6% margin. The projection
    /// stays the whole window's ([`view_proj`](Self::view_proj) with its aspect);
    /// only the target and the distance move. A region that is empty, not
    /// finite or outside the window is replaced by the whole window. See
    /// [`view_region`] for the region beside the overlay.
    pub fn frame_world_in_region(&mut self, world_size: f32, window: Vec2, region: (Vec2, Vec2)) {
        let window = if window.is_finite() {
            window.max(Vec2::ONE)
        } else {
            Vec2::ONE
        };
        let (lo, hi) = (region.0.max(Vec2::ZERO), region.1.min(window));
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && (hi - lo).min_element() >= 1.0 {
            (lo, hi)
        } else {
            (Vec2::ZERO, window)
        };
        let aspect = window.x / window.y;
        let size = if world_size.is_finite() && world_size > 0.0 {
            world_size
        } else {
            1.0
        };
        // A first guess: the world fitted to a view of the region's shape.
        let extent = hi - lo;
        self.frame_world_for_aspect(size, extent.x / extent.y * window.y / extent.y);
        let before = *self;
        let corners = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(size, 0.0, 0.0),
            Vec3::new(size, 0.0, size),
            Vec3::new(0.0, 0.0, size),
        ];
        // The region in normalized device coordinates (y up).
        let ndc_lo = Vec2::new(2.0 * lo.x / window.x - 1.0, 1.0 - 2.0 * hi.y / window.y);
        let ndc_hi = Vec2::new(2.0 * hi.x / window.x - 1.0, 1.0 - 2.0 * lo.y / window.y);
        let want_mid = 0.5 * (ndc_lo + ndc_hi);
        let want_size = ndc_hi - ndc_lo;
        let tan_half = (0.5 * FOVY).tan();
        // Move the target to center the picture and scale the distance to
        // fit it; perspective makes both approximate, so a few rounds.
        for _ in 0..24 {
            let m = self.view_proj(aspect);
            let (mut p_lo, mut p_hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
            for &c in &corners {
                let clip = m * c.extend(1.0);
                let p = Vec2::new(clip.x, clip.y) / clip.w;
                p_lo = p_lo.min(p);
                p_hi = p_hi.max(p);
            }
            if !(p_lo.is_finite() && p_hi.is_finite()) {
                break;
            }
            let mid = 0.5 * (p_lo + p_hi);
            let fill = ((p_hi - p_lo) / want_size).max_element();
            let (right, forward) = self.ground_axes();
            let shift = want_mid - mid;
            self.target -= right * shift.x * self.distance * tan_half * aspect;
            self.target +=
                forward * -shift.y * self.distance * tan_half / self.pitch.sin().max(0.2);
            self.distance = (self.distance * fill * 1.06).clamp(MIN_DISTANCE, MAX_DISTANCE);
        }
        self.sanitize(&before);
    }

    /// Moves the target so that the ground point `p` is seen at the center
    /// of `region` (min and max corner, y down) of a window of `window`
    /// size, keeping yaw, pitch and distance: a followed unit stays in the
    /// part of the window the panels leave free. A few rounds of the same
    /// shift as [`OrbitCamera::frame_world_in_region`] (perspective makes one
    /// approximate); a region that is empty or not finite means the whole
    /// window, where `p` becomes the target.
    pub fn center_in_region(&mut self, p: Vec3, window: Vec2, region: (Vec2, Vec2)) {
        self.target = p;
        let window = if window.is_finite() {
            window.max(Vec2::ONE)
        } else {
            return;
        };
        let (lo, hi) = (region.0.max(Vec2::ZERO), region.1.min(window));
        if !(lo.is_finite() && hi.is_finite()) || (hi - lo).min_element() < 1.0 {
            return;
        }
        let aspect = window.x / window.y;
        let mid = 0.5 * (lo + hi);
        let want = Vec2::new(2.0 * mid.x / window.x - 1.0, 1.0 - 2.0 * mid.y / window.y);
        let tan_half = (0.5 * FOVY).tan();
        let before = *self;
        for _ in 0..8 {
            let clip = self.view_proj(aspect) * p.extend(1.0);
            if clip.w <= 0.0 {
                break;
            }
            let at = Vec2::new(clip.x, clip.y) / clip.w;
            let shift = want - at;
            let (right, forward) = self.ground_axes();
            self.target -= right * shift.x * self.distance * tan_half * aspect;
            self.target +=
                forward * -shift.y * self.distance * tan_half / self.pitch.sin().max(0.2);
        }
        self.sanitize(&before);
    }

    /// The default orientation centered on the world, used when fitting fails.
    fn looking_at_center(size: f32) -> Self {
        Self {
            target: Vec3::new(0.5 * size, 0.0, 0.5 * size),
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: (2.0 * size).clamp(MIN_DISTANCE, MAX_DISTANCE),
        }
    }

    /// The smallest distance from the current target at which every point of
    /// `points` projects inside a viewport of width / height `aspect` with
    /// [`FOVY`], plus a 6% margin, clamped to the allowed range.
    fn fit_distance(&self, points: &[Vec3], aspect: f32) -> f32 {
        let forward = -self.eye_direction();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(forward);
        let tan_half = (0.5 * FOVY).tan();
        let mut needed: f32 = 0.0;
        for &p in points {
            let rel = p - self.target;
            // Camera axes; the point is at (distance + depth) from the eye
            // along the view axis.
            let (x, y, depth) = (rel.dot(right), rel.dot(up), rel.dot(forward));
            needed = needed.max(x.abs() / (tan_half * aspect) - depth);
            needed = needed.max(y.abs() / tan_half - depth);
        }
        (needed * 1.06).clamp(MIN_DISTANCE, MAX_DISTANCE)
    }

    /// Unit vector from the target toward the eye.
    fn eye_direction(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * cy, sp, cp * sy)
    }

    /// Eye position, world units.
    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.eye_direction()
    }

    /// Near and far clip distances, world units: the near plane scales with the
    /// distance (1%, at least 0.02) to keep depth precision, the far plane
    /// (20x the distance, at least 30,000) reaches past the framed world
    /// from any orbit.
    pub fn clip_planes(&self) -> (f32, f32) {
        let near = (self.distance * 0.01).max(0.02);
        let far = (self.distance * 20.0).max(30_000.0);
        (near, far)
    }

    /// Applies one frame of camera input (already routed: the caller leaves
    /// out whatever the overlay owns).
    ///
    /// `orbit_drag` turns the camera by 0.006 radians per pixel (x: yaw,
    /// y: pitch); `pan_drag` grabs the ground so it follows the cursor;
    /// `wheel` zooms by [`ZOOM_PER_NOTCH`] per notch, every notch of the frame
    /// (so n notches in one frame zoom as n frames of one notch);
    /// `pan_keys` (x: right, y: forward, each -1..1) moves the target at 0.8
    /// distances per second, `orbit_keys` turns at 1.5 radians per second and
    /// `zoom_keys` (-1..1) zooms as [`ZOOM_KEY_NOTCHES_PER_S`] notches per
    /// second, all scaled by `dt` seconds (clamped to 0..0.1). `screen_height` is in
    /// pixels. Afterwards pitch is clamped to ([`MIN_PITCH`], [`MAX_PITCH`]),
    /// distance to ([`MIN_DISTANCE`], [`MAX_DISTANCE`]), and a non-finite
    /// field is restored to its previous value.
    pub fn apply_input(&mut self, input: &CameraInput, screen_height: f32) {
        let before = *self;
        let dt = finite_or(input.dt, 0.0).clamp(0.0, 0.1);
        // World units per pixel at the target (vertical screen extent).
        let world_per_pixel =
            2.0 * self.distance * (0.5 * FOVY).tan() / finite_or(screen_height, 1.0).max(1.0);
        let finite = |v: Vec2| Vec2::new(finite_or(v.x, 0.0), finite_or(v.y, 0.0));

        let orbit = finite(input.orbit_drag);
        self.yaw += orbit.x * 0.006;
        self.pitch += orbit.y * 0.006;
        let pan = finite(input.pan_drag);
        if pan != Vec2::ZERO {
            let (right, forward) = self.ground_axes();
            let along = pan.y * world_per_pixel / self.pitch.sin().max(0.2);
            self.target += -right * pan.x * world_per_pixel + forward * along;
        }
        let wheel =
            finite_or(input.wheel, 0.0).clamp(-MAX_NOTCHES_PER_FRAME, MAX_NOTCHES_PER_FRAME);
        if wheel != 0.0 {
            self.distance *= ZOOM_PER_NOTCH.powf(wheel);
        }
        let keys = finite(input.pan_keys).clamp(Vec2::NEG_ONE, Vec2::ONE);
        if keys != Vec2::ZERO {
            let (right, forward) = self.ground_axes();
            let pan = keys.normalize() * 0.8 * self.distance * dt;
            self.target += right * pan.x + forward * pan.y;
        }
        self.yaw += finite_or(input.orbit_keys, 0.0).clamp(-1.0, 1.0) * 1.5 * dt;
        let zoom = finite_or(input.zoom_keys, 0.0).clamp(-1.0, 1.0);
        if zoom != 0.0 {
            self.distance *= ZOOM_PER_NOTCH.powf(zoom * ZOOM_KEY_NOTCHES_PER_S * dt);
        }

        self.sanitize(&before);
    }

    /// Normalized device coordinates (x right, y up, each -1..1) of the
    /// screen position `at` in a window of `size`, both in the same unit
    /// (logical points, or physical pixels: the result does not depend on
    /// the display's scale factor as long as they agree; macroquad's
    /// `mouse_position` and `screen_width`/`screen_height` are both logical).
    pub fn screen_to_ndc(at: Vec2, size: Vec2) -> Vec2 {
        let size = size.max(Vec2::ONE);
        Vec2::new(2.0 * at.x / size.x - 1.0, 1.0 - 2.0 * at.y / size.y)
    }

    /// The point on the ground plane (y = 0) under a screen position given in
    /// normalized device coordinates (x right, y up, each -1..1), or `None`
    /// when the ray through it misses the ground (parallel or non-finite).
    /// `aspect` is width / height. Unprojects the near and far points of the
    /// pixel with the inverse of [`view_proj`](Self::view_proj) and
    /// intersects the segment's line with y = 0.
    pub fn ground_point(&self, aspect: f32, ndc: Vec2) -> Option<Vec3> {
        let inv = self.view_proj(aspect).inverse();
        let unproject = |z: f32| {
            let p = inv * glam::Vec4::new(ndc.x, ndc.y, z, 1.0);
            p.truncate() / p.w
        };
        let (a, b) = (unproject(-1.0), unproject(1.0));
        if (a.y - b.y).abs() < 1e-6 {
            return None;
        }
        let t = a.y / (a.y - b.y);
        let hit = a + (b - a) * t;
        hit.is_finite().then_some(hit)
    }

    /// Screen-right and screen-forward directions projected on the ground,
    /// unit length.
    fn ground_axes(&self) -> (Vec3, Vec3) {
        let (sy, cy) = self.yaw.sin_cos();
        let forward = Vec3::new(-cy, 0.0, -sy);
        let right = forward.cross(Vec3::Y);
        (right, forward)
    }

    /// Restores non-finite fields from `fallback`, wraps yaw to [-π, π] and
    /// clamps pitch, distance and target.
    fn sanitize(&mut self, fallback: &Self) {
        if !self.target.is_finite() {
            self.target = fallback.target;
        }
        if !self.yaw.is_finite() {
            self.yaw = fallback.yaw;
        }
        if !self.pitch.is_finite() {
            self.pitch = fallback.pitch;
        }
        if !self.distance.is_finite() {
            self.distance = fallback.distance;
        }
        if self.yaw.abs() > std::f32::consts::PI {
            let pi = std::f32::consts::PI;
            self.yaw = (self.yaw + pi).rem_euclid(std::f32::consts::TAU) - pi;
        }
        self.pitch = finite_or(self.pitch, DEFAULT_PITCH).clamp(MIN_PITCH, MAX_PITCH);
        self.distance = finite_or(self.distance, 10.0).clamp(MIN_DISTANCE, MAX_DISTANCE);
        self.target = self
            .target
            .clamp(Vec3::splat(-MAX_TARGET), Vec3::splat(MAX_TARGET));
    }

    /// The same view as a macroquad camera, for `set_camera` before drawing
    /// the world with macroquad's 3D functions. `aspect` is width / height
    /// (non-finite or non-positive is treated as 1).
    pub fn macroquad_camera(&self, aspect: f32) -> Camera3D {
        let (z_near, z_far) = self.clip_planes();
        Camera3D {
            position: self.eye(),
            target: self.target,
            up: Vec3::Y,
            fovy: FOVY,
            aspect: Some(sane_aspect(aspect)),
            projection: Projection::Perspective,
            render_target: None,
            viewport: None,
            z_near,
            z_far,
        }
    }

    /// World-to-clip matrix (column-major, right-handed, OpenGL depth -1..1):
    /// `perspective_rh_gl(FOVY, aspect, near, far) * look_at_rh(eye, target, +Y)`,
    /// the same product macroquad's `Camera3D` computes, so both agree.
    /// `aspect` is width / height (non-finite or non-positive is treated as 1).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.clip_planes();
        Mat4::perspective_rh_gl(FOVY, sane_aspect(aspect), near, far)
            * Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }
}

/// The part of a window of `window` size (any unit, y down) where the world
/// should be framed when an overlay panel covers `panel` (its min and max
/// corner, same unit): the wider of the full-height strips left and right of
/// the panel, or the whole window when there is no panel or the wider strip
/// is narrower than 30% of the window (a panel that covers most of it).
/// Returns (min corner, max corner).
pub fn view_region(window: Vec2, panel: Option<(Vec2, Vec2)>) -> (Vec2, Vec2) {
    let whole = (Vec2::ZERO, window);
    let Some((p_lo, p_hi)) = panel.filter(|(a, b)| a.is_finite() && b.is_finite()) else {
        return whole;
    };
    let left = p_lo.x.clamp(0.0, window.x);
    let right = window.x - p_hi.x.clamp(0.0, window.x);
    if left.max(right) < 0.3 * window.x {
        whole
    } else if right >= left {
        (Vec2::new(window.x - right, 0.0), window)
    } else {
        (Vec2::ZERO, Vec2::new(left, window.y))
    }
}

fn sane_aspect(aspect: f32) -> f32 {
    if aspect.is_finite() && aspect > 0.0 {
        aspect
    } else {
        1.0
    }
}

fn finite_or(v: f32, fallback: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picking_lands_on_the_unit_under_the_cursor_at_every_display_scale() {
        // A 1280 x 800 point window shown at scale 1, 1.5 and 2: the cursor
        // over a unit is at its projected point; positions and window size
        // come in the same unit (points or pixels), so the ground point under
        // the cursor is the unit's position at every scale.
        let world = 443.0;
        let logical = Vec2::new(1280.0, 800.0);
        let aspect = logical.x / logical.y;
        let mut cam = OrbitCamera::looking_at_world(world);
        cam.frame_world_for_aspect(world, aspect);
        let vp = cam.view_proj(aspect);
        let units = [(10.0, 10.0), (221.5, 221.5), (400.0, 37.0), (5.0, 430.0)];
        for scale in [1.0f32, 1.5, 2.0] {
            for &(x, z) in &units {
                let clip = vp * glam::Vec4::new(x, 0.0, z, 1.0);
                let ndc = clip.truncate().truncate() / clip.w;
                // The cursor in points, then in the display's pixels.
                let points = Vec2::new(
                    (ndc.x + 1.0) * 0.5 * logical.x,
                    (1.0 - ndc.y) * 0.5 * logical.y,
                );
                for (at, size) in [(points, logical), (points * scale, logical * scale)] {
                    let hit = cam
                        .ground_point(aspect, OrbitCamera::screen_to_ndc(at, size))
                        .expect("the ray hits the ground");
                    let err = Vec2::new(hit.x - x, hit.z - z).length();
                    assert!(
                        err < 0.01,
                        "scale {scale}: unit ({x}, {z}) picked at {hit} ({err})"
                    );
                }
                if scale > 1.0 {
                    // Mixing pixels with points lands elsewhere: the bug this guards.
                    let hit = cam
                        .ground_point(aspect, OrbitCamera::screen_to_ndc(points * scale, logical))
                        .map_or(f32::INFINITY, |h| Vec2::new(h.x - x, h.z - z).length());
                    assert!(hit > 1.0, "scale {scale}: mixed units still hit ({x}, {z})");
                }
            }
        }
    }

    #[test]
    fn framed_world_corners_are_in_view() {
        for size in [100.0, 443.0, 10_000.0] {
            let camera = OrbitCamera::looking_at_world(size);
            let m = camera.view_proj(1280.0 / 800.0);
            for corner in [(0.0, 0.0), (size, 0.0), (size, size), (0.0, size)] {
                let clip = m * glam::Vec4::new(corner.0, 0.0, corner.1, 1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(clip.w > 0.0);
                assert!(
                    ndc.abs().max_element() <= 1.0,
                    "{size}: {corner:?} -> {ndc}"
                );
            }
        }
    }

    #[test]
    fn fit_for_aspect_is_tight_and_complete() {
        let aspect = 1280.0 / 800.0;
        let mut camera = OrbitCamera::looking_at_world(443.0);
        camera.frame_world_for_aspect(443.0, aspect);
        let m = camera.view_proj(aspect);
        let mut extent: f32 = 0.0;
        for corner in [(0.0, 0.0), (443.0, 0.0), (443.0, 443.0), (0.0, 443.0)] {
            let clip = m * glam::Vec4::new(corner.0, 0.0, corner.1, 1.0);
            let ndc = clip.truncate() / clip.w;
            assert!(
                ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                "{corner:?} -> {ndc}"
            );
            extent = extent.max(ndc.x.abs()).max(ndc.y.abs());
        }
        assert!(extent > 0.85, "world fills only {extent} of the view");
    }

    /// The world's corners in window coordinates (y down) of `window`.
    fn corners_on_screen(cam: &OrbitCamera, size: f32, window: Vec2) -> Vec<Vec2> {
        let m = cam.view_proj(window.x / window.y);
        [(0.0, 0.0), (size, 0.0), (size, size), (0.0, size)]
            .iter()
            .map(|&(x, z)| {
                let clip = m * glam::Vec4::new(x, 0.0, z, 1.0);
                assert!(clip.w > 0.0, "corner behind the eye");
                let ndc = Vec2::new(clip.x, clip.y) / clip.w;
                Vec2::new(
                    (ndc.x + 1.0) * 0.5 * window.x,
                    (1.0 - ndc.y) * 0.5 * window.y,
                )
            })
            .collect()
    }

    #[test]
    fn the_world_is_framed_beside_the_panel_and_fills_that_part() {
        // The overlay panel at the left (10..380 points wide, full height).
        for (window, panel_right) in [
            (Vec2::new(1280.0, 800.0), 380.0),
            (Vec2::new(1024.0, 768.0), 380.0),
            (Vec2::new(1920.0, 1080.0), 560.0),
            (Vec2::new(800.0, 1200.0), 380.0),
        ] {
            let panel = (
                Vec2::new(10.0, 10.0),
                Vec2::new(panel_right, window.y - 10.0),
            );
            let region = view_region(window, Some(panel));
            assert_eq!(region, (Vec2::new(panel_right, 0.0), window));
            for size in [100.0, 443.0, 10_000.0] {
                let mut cam = OrbitCamera::looking_at_world(size);
                cam.frame_world_in_region(size, window, region);
                let pts = corners_on_screen(&cam, size, window);
                let lo = pts.iter().fold(Vec2::INFINITY, |a, &p| a.min(p));
                let hi = pts.iter().fold(Vec2::NEG_INFINITY, |a, &p| a.max(p));
                let what = format!("{window} panel to {panel_right}, world {size}: {lo}..{hi}");
                assert!(lo.x >= panel_right - 0.5, "covered by the panel: {what}");
                assert!(
                    hi.x <= window.x + 0.5 && lo.y >= -0.5 && hi.y <= window.y + 0.5,
                    "off screen: {what}"
                );
                let mid = 0.5 * (lo + hi);
                let want = 0.5 * (region.0 + region.1);
                assert!(
                    (mid - want).abs().max_element() < 2.0,
                    "not centered: {what}"
                );
                let fill = ((hi - lo) / (region.1 - region.0)).max_element();
                assert!(fill > 0.9, "fills only {fill}: {what}");
            }
        }
    }

    #[test]
    fn no_panel_or_a_panel_covering_most_of_the_window_frames_the_whole_window() {
        let window = Vec2::new(1280.0, 800.0);
        assert_eq!(view_region(window, None), (Vec2::ZERO, window));
        let wide = (Vec2::ZERO, Vec2::new(1000.0, 800.0));
        assert_eq!(view_region(window, Some(wide)), (Vec2::ZERO, window));
        let nan = (Vec2::ZERO, Vec2::new(f32::NAN, 800.0));
        assert_eq!(view_region(window, Some(nan)), (Vec2::ZERO, window));
        // A panel at the right: the strip at its left.
        let right = (Vec2::new(900.0, 0.0), Vec2::new(1270.0, 800.0));
        assert_eq!(
            view_region(window, Some(right)),
            (Vec2::ZERO, Vec2::new(900.0, 800.0))
        );
        // The whole window as the region is the plain fit, centered.
        let mut a = OrbitCamera::looking_at_world(443.0);
        a.frame_world_in_region(443.0, window, (Vec2::ZERO, window));
        let pts = corners_on_screen(&a, 443.0, window);
        let lo = pts.iter().fold(Vec2::INFINITY, |a, &p| a.min(p));
        let hi = pts.iter().fold(Vec2::NEG_INFINITY, |a, &p| a.max(p));
        assert!((0.5 * (lo + hi) - 0.5 * window).abs().max_element() < 2.0);
        // A degenerate region falls back to the whole window, never NaN.
        let mut b = OrbitCamera::looking_at_world(443.0);
        b.frame_world_in_region(443.0, window, (Vec2::splat(f32::NAN), Vec2::ZERO));
        assert!(b.target.is_finite() && b.distance.is_finite());
    }

    #[test]
    fn every_notch_of_a_frame_zooms_one_step() {
        // Ten notches in one slow frame zoom as ten frames of one notch (a
        // clamp of 5 notches per frame dropped the rest).
        let start = OrbitCamera::looking_at_world(443.0);
        let notch = |wheel: f32| CameraInput {
            wheel,
            ..Default::default()
        };
        for n in [1, 5, 10, 40] {
            for sign in [1.0, -1.0] {
                let mut one_frame = start;
                one_frame.apply_input(&notch(sign * n as f32), 800.0);
                let mut frames = start;
                for _ in 0..n {
                    frames.apply_input(&notch(sign), 800.0);
                }
                let expected = start.distance * ZOOM_PER_NOTCH.powi(n * sign as i32);
                for (d, what) in [
                    (one_frame.distance, "one frame"),
                    (frames.distance, "frames"),
                ] {
                    assert!(
                        (d / expected - 1.0).abs() < 1e-4,
                        "{n} notches ({sign}) in {what}: {d}, expected {expected}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_held_zoom_key_zooms_as_the_wheel_does_per_second() {
        // Z held for one second in ten frames zooms in as ZOOM_KEY_NOTCHES_PER_S
        // notches; X as many out; both at once, or nothing held, not at all.
        let start = OrbitCamera::looking_at_world(443.0);
        for (keys, notches) in [
            (1.0, ZOOM_KEY_NOTCHES_PER_S),
            (-1.0, -ZOOM_KEY_NOTCHES_PER_S),
            (0.0, 0.0),
        ] {
            let mut cam = start;
            let held = CameraInput {
                zoom_keys: keys,
                dt: 0.1,
                ..Default::default()
            };
            for _ in 0..10 {
                cam.apply_input(&held, 800.0);
            }
            let expected = start.distance * ZOOM_PER_NOTCH.powf(notches);
            assert!(
                (cam.distance / expected - 1.0).abs() < 1e-4,
                "zoom keys {keys}: {}, expected {expected}",
                cam.distance
            );
        }
        // A non-finite or out-of-range value zooms at most at the full rate.
        let mut cam = start;
        let wild = CameraInput {
            zoom_keys: f32::INFINITY,
            dt: 0.1,
            ..Default::default()
        };
        cam.apply_input(&wild, 800.0);
        assert_eq!(
            cam.distance, start.distance,
            "a non-finite key state is ignored"
        );
        let mut cam = start;
        cam.apply_input(
            &CameraInput {
                zoom_keys: 50.0,
                ..wild
            },
            800.0,
        );
        let full = start.distance * ZOOM_PER_NOTCH.powf(ZOOM_KEY_NOTCHES_PER_S * 0.1);
        assert!((cam.distance / full - 1.0).abs() < 1e-4, "{}", cam.distance);
    }

    #[test]
    fn sanitize_restores_nan() {
        let good = OrbitCamera::looking_at_world(100.0);
        let mut bad = good;
        bad.yaw = f32::NAN;
        bad.distance = f32::INFINITY;
        bad.target.x = f32::NAN;
        bad.sanitize(&good);
        assert_eq!(bad, good);
    }
}
