//! The render pipeline: quantized unit meshes drawn with one instanced draw
//! call (and the units too small on screen as points, in one more) on top of
//! macroquad's 3D drawing.
//!
//! - [`mesh`]: the embedded OBJ tank (flat normals) and the meshes of
//!   `assets/` (smooth parts indexed), quantized into an SNORM16 position
//!   stream and an octahedral SNORM16 normal stream ([`crate::engine::compress::mesh`]).
//! - [`pipeline`]: [`UnitRenderer`], the raw miniquad pipeline in two vertex
//!   layouts: split streams (positions 8 B, normals 4 B per vertex;
//!   [`PackedInstance`] 8 B per instance) or one f32 stream (32 B per vertex;
//!   [`UnitInstance`] 20 B per instance), and the GLSL `#version 100` shaders
//!   in `shaders/`.
//! - [`instances`]: the packed instance codec and the vertex layout switch.
//! - [`lod`]: per-unit culling and the impostor test.
//! - [`egui_host`]: egui in the window, fed so that no drag is lost at low
//!   frame rates.
//! - [`impostor`]: the impostor point and its whole-pixel size by coverage.
//! - [`progressive`]: [`ProgressiveScene`], the picture drawn offscreen in
//!   slices within a time budget per refresh when it is too slow for one.
//! - [`camera`]: [`OrbitCamera`], one view for macroquad's lines and our units.
//! - [`world`]: the ground plane, border and grid.
//! - [`heatmap`]: [`CellHeatmap`], units per grid cell as one textured
//!   quad on the ground.
//! - [`units`]: instances from the simulation (colored by a [`ColorMode`]:
//!   team, neighbor heat, memory order or normal error; the selected unit's candidates and
//!   neighbors on top), the query circle and the searched cells.
//! - [`screenshot`]: the framebuffer to a PNG (refused when it came back
//!   one color).
//! - [`gl_limits`]: [`GlLimits`], the context's texture, renderbuffer and
//!   viewport limits, queried once; the offscreen targets are clamped to them.
//!
//! A picture: [`ProgressiveScene::begin`] sets `camera.macroquad_camera(aspect)`
//! on the back target, clears color and depth and runs [`draw_world`]; then
//! [`ProgressiveScene::advance`] draws the instances with
//! [`UnitRenderer::draw_shape`] (meshes, then impostor points) and `camera.view_proj(aspect)` (it flushes
//! macroquad's queue first, so depth testing sees the ground), and
//! [`ProgressiveScene::present`] shows the last complete picture.
//!
//! Only this module, `ui`, `app` and the binary touch the window.

pub mod camera;
pub mod egui_host;
pub mod gl_limits;
pub mod heatmap;
pub mod impostor;
pub mod instances;
pub mod lod;
pub mod mesh;
pub mod pipeline;
pub mod progressive;
pub mod screenshot;
pub mod units;
pub mod world;

pub use camera::{view_region, CameraInput, OrbitCamera};
pub use egui_host::{EguiHost, PassInput, UiClaims};
pub use gl_limits::GlLimits;
pub use heatmap::CellHeatmap;
pub use instances::UnitInstance;
pub use instances::{
    normal_errors, InstanceCodec, NormalErrors, NormalPrecision, PackedInstance, VertexLayout,
};
pub use lod::{Lod, LodCounts, IMPOSTOR_PIXELS};
pub use mesh::{
    load_obj_mesh, load_obj_streams, load_unit_kind, load_unit_mesh, load_unit_streams, UnitMesh,
    UnitMeshKind,
};
pub use pipeline::{Shape, UnitRenderer};
pub use progressive::{PictureStats, ProgressiveScene, RENDER_BUDGET_S};
pub use screenshot::{region_png, save_screenshot, screenshot_png};
pub use units::{
    draw_query_circle, draw_searched_cells, pack_instances, pack_visible, visible_units, ColorMode,
    Highlight, Packer,
};
pub use world::{draw_world, ground_lift};
