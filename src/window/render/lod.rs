//! Per-unit culling and level of detail: which units are outside the view
//! (not drawn), which project to fewer than [`IMPOSTOR_PIXELS`] pixels
//! (drawn as an impostor: one point, 1 vertex, instead of the mesh;
//! [`super::impostor`]) and
//! which get the full mesh.
//!
//! The projected size of a unit is its model length times its scale,
//! divided by its depth (the clip-space `w` of its center, which is the
//! view-space distance along the view axis for a perspective projection)
//! and multiplied by the pixels per world unit at depth 1:
//! `(viewport height / 2) / tan(fovy / 2)` (the standard pinhole projection,
//! as `glam::Mat4::perspective_rh_gl` builds it).

use glam::{Mat4, Vec4};

use super::instances::UnitInstance;

/// Units whose projected length is below this many pixels are drawn as an
/// impostor.
pub const IMPOSTOR_PIXELS: f32 = 4.0;

/// What a unit gets this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Outside the view frustum (or behind the camera): not drawn.
    Culled,
    /// Smaller than [`IMPOSTOR_PIXELS`]: one point.
    Impostor,
    /// The full mesh.
    Mesh,
}

/// Counts of one partition ([`Lod::partition`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LodCounts {
    /// Units drawn with the mesh.
    pub mesh: usize,
    /// Units drawn as impostors.
    pub impostors: usize,
    /// Units not drawn.
    pub culled: usize,
}

/// The culling and level-of-detail test for one view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lod {
    view_proj: Mat4,
    /// Pixels per world unit at depth 1.
    px_at_1: f32,
    /// Viewport (width, height), pixels.
    viewport: (f32, f32),
    /// Model length (its longest side, model units) at scale 1.
    model_len: f32,
    /// Projected length below which a unit is an impostor, pixels.
    threshold: f32,
}

impl Lod {
    /// The test for a camera with `view_proj` (world to clip, OpenGL
    /// conventions), vertical field of view `fovy` (radians), drawing into
    /// a viewport of `viewport` pixels (width, height), for a model whose
    /// longest side is `model_len` model units. `threshold` is the impostor
    /// size in pixels (normally [`IMPOSTOR_PIXELS`]; 0 never uses impostors,
    /// infinity always).
    pub fn new(
        view_proj: Mat4,
        fovy: f32,
        viewport: (f32, f32),
        model_len: f32,
        threshold: f32,
    ) -> Lod {
        let tan = (0.5 * fovy).tan();
        let px_at_1 = if tan > 0.0 && tan.is_finite() {
            0.5 * viewport.1.max(1.0) / tan
        } else {
            0.0
        };
        Lod {
            view_proj,
            px_at_1,
            viewport: (viewport.0.max(1.0), viewport.1.max(1.0)),
            model_len,
            threshold,
        }
    }

    /// Pixels per world unit at depth 1: `(viewport height / 2) / tan(fovy / 2)`.
    pub fn pixels_at_depth_1(&self) -> f32 {
        self.px_at_1
    }

    /// A box `[x0, x1, z0, z1]` (world units) on the ground that contains
    /// every point of the slab `0 <= y <= height` inside the view frustum,
    /// widened by `margin` on each side (a unit's reach from its center), or
    /// `None` when the slab is wholly outside the view. The frustum's 8
    /// corners come from the inverse of the view-projection; the box bounds
    /// where its 12 edges cross the slab's two planes and the corners inside
    /// the slab. With a far plane far beyond the world, the box is then
    /// clipped to the world by the grid.
    pub fn ground_box(&self, height: f32, margin: f32) -> Option<[f32; 4]> {
        let inv = self.view_proj.inverse();
        let corner = |k: usize| {
            let ndc = Vec4::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
                1.0,
            );
            let p = inv * ndc;
            p.truncate() / p.w
        };
        let c: [glam::Vec3; 8] = std::array::from_fn(corner);
        let mut lo = glam::Vec2::splat(f32::INFINITY);
        let mut hi = glam::Vec2::splat(f32::NEG_INFINITY);
        let mut add = |p: glam::Vec3| {
            if p.is_finite() {
                lo = lo.min(glam::Vec2::new(p.x, p.z));
                hi = hi.max(glam::Vec2::new(p.x, p.z));
            }
        };
        for &p in &c {
            if (0.0..=height).contains(&p.y) {
                add(p);
            }
        }
        // Edges join corners differing in one bit of their index.
        for a in 0..8 {
            for bit in [1, 2, 4] {
                let b = a ^ bit;
                if b < a {
                    continue;
                }
                let (p, q) = (c[a], c[b]);
                for plane in [0.0, height] {
                    let d = q.y - p.y;
                    if d.abs() > f32::EPSILON {
                        let t = (plane - p.y) / d;
                        if (0.0..=1.0).contains(&t) {
                            add(p + (q - p) * t);
                        }
                    }
                }
            }
        }
        (lo.x <= hi.x).then_some([lo.x - margin, hi.x + margin, lo.y - margin, hi.y + margin])
    }

    /// Projected length in pixels of a unit of `scale` centered at `(x, z)`
    /// (world units, on the ground), or `None` when it is behind the camera
    /// or wholly outside the view (its bounding circle off every edge).
    pub fn projected_px(&self, x: f32, z: f32, scale: f32) -> Option<f32> {
        let c: Vec4 = self.view_proj * Vec4::new(x, 0.0, z, 1.0);
        if c.w.is_nan() || c.w <= 1e-6 {
            return None;
        }
        let px = self.model_len * scale * self.px_at_1 / c.w;
        // The unit's half length in normalized device coordinates, per axis.
        let mx = px / self.viewport.0;
        let my = px / self.viewport.1;
        let (nx, ny) = (c.x / c.w, c.y / c.w);
        if nx.abs() > 1.0 + mx || ny.abs() > 1.0 + my || !px.is_finite() {
            return None;
        }
        Some(px)
    }

    /// What the unit `inst` gets.
    pub fn classify(&self, inst: &UnitInstance) -> Detail {
        match self.projected_px(inst.x, inst.z, inst.scale) {
            None => Detail::Culled,
            Some(px) if px < self.threshold => Detail::Impostor,
            Some(_) => Detail::Mesh,
        }
    }

    /// Fills `out` (cleared first) with the units of `src` to draw, the
    /// meshes first, then the impostors, each in `src` order; `impostors`
    /// is scratch. Returns the counts (`out[..mesh]` are meshes). Allocates
    /// only while the buffers grow.
    pub fn partition(
        &self,
        src: &[UnitInstance],
        out: &mut Vec<UnitInstance>,
        impostors: &mut Vec<UnitInstance>,
    ) -> LodCounts {
        out.clear();
        impostors.clear();
        let mut culled = 0;
        for inst in src {
            match self.classify(inst) {
                Detail::Mesh => out.push(*inst),
                Detail::Impostor => impostors.push(*inst),
                Detail::Culled => culled += 1,
            }
        }
        let counts = LodCounts {
            mesh: out.len(),
            impostors: impostors.len(),
            culled,
        };
        out.extend_from_slice(impostors);
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    const FOVY: f32 = std::f32::consts::FRAC_PI_4;

    /// A camera 100 units above the origin looking straight down (+Z up on screen).
    fn top_down(viewport: (f32, f32)) -> Lod {
        let proj = Mat4::perspective_rh_gl(FOVY, viewport.0 / viewport.1, 0.1, 1000.0);
        let view = Mat4::look_at_rh(Vec3::new(0.0, 100.0, 0.0), Vec3::ZERO, Vec3::NEG_Z);
        Lod::new(proj * view, FOVY, viewport, 1.6, IMPOSTOR_PIXELS)
    }

    fn unit(x: f32, z: f32, scale: f32) -> UnitInstance {
        UnitInstance {
            x,
            z,
            heading: 0.0,
            scale,
            color: [0; 4],
        }
    }

    #[test]
    fn projected_size_follows_the_pinhole_formula() {
        let lod = top_down((800.0, 600.0));
        // Depth 100: 1.6 * 2 world units * (300 / tan(22.5°)) / 100.
        let want = 1.6 * 2.0 * (300.0 / (0.5 * FOVY).tan()) / 100.0;
        let got = lod.projected_px(0.0, 0.0, 2.0).unwrap();
        assert!((got - want).abs() < 1e-3 * want, "{got} vs {want}");
    }

    #[test]
    fn the_impostor_threshold_splits_by_projected_size() {
        let lod = top_down((800.0, 600.0));
        // px = 1.6 * s * 724.26 / 100: 4 px at s = 0.345.
        let at = IMPOSTOR_PIXELS * 100.0 / (1.6 * (300.0 / (0.5 * FOVY).tan()));
        assert_eq!(lod.classify(&unit(0.0, 0.0, at * 0.99)), Detail::Impostor);
        assert_eq!(lod.classify(&unit(0.0, 0.0, at * 1.01)), Detail::Mesh);
        let never = Lod::new(lod.view_proj, FOVY, (800.0, 600.0), 1.6, 0.0);
        assert_eq!(never.classify(&unit(0.0, 0.0, 1e-3)), Detail::Mesh);
    }

    #[test]
    fn units_outside_the_view_or_behind_the_camera_are_culled() {
        let lod = top_down((800.0, 600.0));
        // Half the visible height at depth 100: 100 * tan(22.5°) = 41.4.
        assert_eq!(lod.classify(&unit(0.0, 41.0, 1.0)), Detail::Mesh);
        assert_eq!(lod.classify(&unit(0.0, 60.0, 1.0)), Detail::Culled);
        // Just outside the edge, but its body reaches into the view.
        assert_eq!(lod.classify(&unit(0.0, 42.0, 1.0)), Detail::Mesh);
        assert_eq!(lod.classify(&unit(1e9, 0.0, 1.0)), Detail::Culled);
        assert_eq!(lod.classify(&unit(f32::NAN, 0.0, 1.0)), Detail::Culled);
        // A camera looking along +X from the origin: units behind it are culled.
        let proj = Mat4::perspective_rh_gl(FOVY, 1.0, 0.1, 1000.0);
        let view = Mat4::look_at_rh(Vec3::new(0.0, 1.0, 0.0), Vec3::new(10.0, 1.0, 0.0), Vec3::Y);
        let side = Lod::new(proj * view, FOVY, (600.0, 600.0), 1.6, IMPOSTOR_PIXELS);
        assert_eq!(side.classify(&unit(-5.0, 0.0, 1.0)), Detail::Culled);
        assert_ne!(side.classify(&unit(5.0, 0.0, 1.0)), Detail::Culled);
    }

    #[test]
    fn the_ground_box_holds_every_visible_point_and_not_much_more() {
        let lod = top_down((800.0, 600.0));
        // Top-down from 100 units: the view's ground is 100 tan(22.5°) = 41.4
        // half-high and 4/3 of that half-wide; a slab up to y = 1 reaches a
        // little further (closer to the camera).
        let b = lod.ground_box(1.0, 0.0).expect("the ground is in view");
        let (hz, hx) = (
            100.0 * (0.5 * FOVY).tan(),
            100.0 * (0.5 * FOVY).tan() * 4.0 / 3.0,
        );
        assert!(
            b[0] <= -hx && b[1] >= hx && b[2] <= -hz && b[3] >= hz,
            "{b:?}"
        );
        assert!(b[1] < hx * 1.05 && b[3] < hz * 1.05, "{b:?}");
        // Every unit the LOD test keeps is inside the box (with the margin).
        let m = 1.6;
        let b = lod.ground_box(1.0, m).unwrap();
        for k in 0..2_000 {
            let (x, z) = ((k % 50) as f32 * 2.0 - 50.0, (k / 50) as f32 * 2.0 - 40.0);
            if lod.classify(&unit(x, z, 1.0)) != Detail::Culled {
                assert!(
                    b[0] <= x && x <= b[1] && b[2] <= z && z <= b[3],
                    "({x}, {z}) outside {b:?}"
                );
            }
        }
        // Looking up at the sky: no ground in view.
        let proj = Mat4::perspective_rh_gl(FOVY, 1.0, 0.1, 1000.0);
        let view = Mat4::look_at_rh(
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::new(0.0, 100.0, 1.0),
            Vec3::Y,
        );
        let sky = Lod::new(proj * view, FOVY, (600.0, 600.0), 1.6, IMPOSTOR_PIXELS);
        assert_eq!(sky.ground_box(1.0, 0.0), None);
    }

    #[test]
    fn partition_puts_meshes_first_and_counts_everything() {
        let lod = top_down((800.0, 600.0));
        let src = [
            unit(0.0, 0.0, 0.1),
            unit(1.0, 0.0, 2.0),
            unit(500.0, 0.0, 2.0),
            unit(2.0, 0.0, 0.1),
            unit(3.0, 0.0, 3.0),
        ];
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        let c = lod.partition(&src, &mut out, &mut scratch);
        assert_eq!(
            c,
            LodCounts {
                mesh: 2,
                impostors: 2,
                culled: 1
            }
        );
        let xs: Vec<f32> = out.iter().map(|u| u.x).collect();
        assert_eq!(xs, [1.0, 3.0, 0.0, 2.0]);
    }
}
