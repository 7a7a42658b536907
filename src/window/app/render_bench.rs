//! `render-bench`: the unit pipeline timed in a real window (run it under
//! `xvfb-run` on a headless machine), for each unit count and vertex layout.
//!
//! Each combination draws the same scene the window opens with — the
//! uniform workload at its spawn positions, team colors, the default
//! camera framing the whole world, ground and grid lines — straight into
//! the window's framebuffer (one instanced draw of the meshes and one draw
//! of the impostor points per frame), and times
//! whole frames: from the start of drawing to the return of
//! `next_frame` (buffer swap). Under a software rasterizer that is the CPU
//! time of rasterizing; on a GPU it is bounded by the display's refresh.
//! Units are culled and drawn as meshes or impostors by the same per-unit
//! test as in the window ([`Lod`] with [`IMPOSTOR_PIXELS`]); the window's
//! grid culling is skipped, since the default camera sees every cell.

use crate::platform::clock::Instant;

use macroquad::camera::{set_camera, set_default_camera};
use macroquad::window::{clear_background, next_frame};

use crate::engine::sim::{Settings, Simulation};
use crate::window::render::{
    draw_world, load_unit_streams, pack_instances, ColorMode, Lod, Shape, UnitInstance,
    UnitRenderer, VertexLayout, IMPOSTOR_PIXELS,
};

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderBenchConfig {
    /// Unit counts, in order.
    pub units: Vec<usize>,
    /// Vertex layouts, in order, for every unit count.
    pub layouts: Vec<VertexLayout>,
    /// Timed frames per combination (the median is reported), at least 1.
    pub frames: u32,
    /// Untimed frames before them.
    pub warmup: u32,
    /// Spawn seed.
    pub seed: u64,
}

/// One measured combination, as printed (Markdown row or JSON object).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RenderRow {
    /// Units drawn.
    pub units: usize,
    /// [`VertexLayout::key`].
    pub vertex_layout: String,
    /// Median whole-frame time, milliseconds.
    pub render_ms: f64,
    /// Frames per second at that median.
    pub fps: f64,
    /// Instance bytes uploaded per frame: units drawn (meshes and
    /// impostors) times bytes per instance.
    pub instance_bytes: u64,
    /// Bytes of the mesh's per-vertex streams (indices not counted).
    pub vertex_bytes: u64,
    /// Units drawn as meshes.
    pub drawn: usize,
    /// Units drawn as impostors (one point each).
    pub impostors: usize,
    /// Units outside the view, not drawn.
    pub culled: usize,
    /// Timed frames.
    pub frames: u32,
}

/// Runs every combination of `cfg` inside the open macroquad window and
/// returns one row per combination, unit counts outer, layouts inner.
/// `progress` gets each row as it is measured.
///
/// # Errors
/// The unit mesh or the pipeline cannot be created (for example a GL
/// context without instanced drawing).
///
/// # Panics
/// If called outside a running macroquad window.
pub async fn run(
    cfg: &RenderBenchConfig,
    mut progress: impl FnMut(&RenderRow),
) -> Result<Vec<RenderRow>, String> {
    let mesh = load_unit_streams()?;
    let most = cfg.units.iter().copied().max().unwrap_or(1);
    let mut renderer =
        UnitRenderer::new(&mesh, most).map_err(|e| format!("render pipeline: {e}"))?;
    let mut instances: Vec<UnitInstance> = Vec::new();
    let (mut drawable, mut scratch) = (Vec::new(), Vec::new());
    let mut times = Vec::new();
    let mut rows = Vec::new();
    let scale = crate::window::ui::ViewOptions::default().unit_scale;
    for &units in &cfg.units {
        let settings = Settings {
            units,
            seed: cfg.seed,
            paused: true,
            ..Settings::default()
        };
        let mut sim = Simulation::new(&settings);
        sim.step(0.0, &settings);
        pack_instances(&sim, ColorMode::Team, None, scale, &mut instances);
        let world = sim.world;
        let camera = super::framed(world);
        let view_proj = camera.view_proj(super::aspect());
        let lod = Lod::new(
            view_proj,
            crate::window::render::camera::FOVY,
            macroquad::miniquad::window::screen_size(),
            renderer.model_len(),
            IMPOSTOR_PIXELS,
        );
        let counts = lod.partition(&instances, &mut drawable, &mut scratch);
        renderer.set_pixels_at_depth_1(lod.pixels_at_depth_1());
        let (meshes, quads) = drawable.split_at(counts.mesh);
        for &layout in &cfg.layouts {
            renderer.set_layout(layout);
            renderer.set_instance_codec(world, scale);
            times.clear();
            for frame in 0..cfg.warmup + cfg.frames.max(1) {
                let t = Instant::now();
                clear_background(super::BACKGROUND);
                set_camera(&camera.macroquad_camera(super::aspect()));
                draw_world(world, Some(settings.cell_size));
                renderer.draw_shape(None, view_proj, meshes, Shape::Mesh);
                renderer.draw_shape(None, view_proj, quads, Shape::Impostor);
                set_default_camera();
                next_frame().await;
                if frame >= cfg.warmup {
                    times.push(t.elapsed().as_secs_f64());
                }
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let row = RenderRow {
                units,
                vertex_layout: layout.key().to_string(),
                render_ms: median * 1e3,
                fps: 1.0 / median.max(1e-9),
                instance_bytes: (drawable.len() * layout.instance_bytes()) as u64,
                vertex_bytes: (renderer.vertex_count() * layout.vertex_bytes()) as u64,
                drawn: counts.mesh,
                impostors: counts.impostors,
                culled: counts.culled,
                frames: times.len() as u32,
            };
            progress(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The rows as a Markdown table (header, alignment row, one line per row).
pub fn to_markdown(rows: &[RenderRow]) -> String {
    let mut s = String::from(
        "| units | vertex_layout | render_ms | fps | instance_bytes | vertex_bytes | drawn | impostors | culled |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s += &format!(
            "| {} | {} | {:.2} | {:.1} | {} | {} | {} | {} | {} |\n",
            r.units,
            r.vertex_layout,
            r.render_ms,
            r.fps,
            r.instance_bytes,
            r.vertex_bytes,
            r.drawn,
            r.impostors,
            r.culled
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_has_one_line_per_row_with_every_column() {
        let row = RenderRow {
            units: 1000,
            vertex_layout: "compressed".into(),
            render_ms: 12.345,
            fps: 81.0,
            instance_bytes: 8000,
            vertex_bytes: 1296,
            drawn: 1000,
            impostors: 0,
            culled: 5,
            frames: 3,
        };
        let md = to_markdown(&[row.clone(), row]);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[2],
            "| 1000 | compressed | 12.35 | 81.0 | 8000 | 1296 | 1000 | 0 | 5 |"
        );
        assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
    }
}
