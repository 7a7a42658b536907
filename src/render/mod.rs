//! The render pipeline: quantized unit meshes drawn with one instanced draw
//! call on top of macroquad's 3D drawing.
//!
//! - [`mesh`]: the embedded OBJ unit, flat normals, quantized into an SNORM16
//!   position stream and an octahedral SNORM16 normal stream
//!   ([`crate::compress::mesh`]).
//! - [`pipeline`]: [`UnitRenderer`], the raw miniquad pipeline with split
//!   streams (positions 8 B, normals 4 B per vertex; [`UnitInstance`] 20 B per
//!   instance) and the GLSL `#version 100` shaders in `shaders/`.
//! - [`egui_host`]: egui in the window, fed so that no drag is lost at low
//!   frame rates.
//! - [`camera`]: [`OrbitCamera`], one view for macroquad's lines and our units.
//! - [`world`]: the ground plane, border and grid.
//! - [`units`]: instances from the simulation (team colors, the selected
//!   unit and its neighbors) and the query circle.
//! - [`screenshot`]: the framebuffer to a PNG.
//!
//! A frame: `clear_background` (clears color and depth), `set_camera(&camera.macroquad_camera(aspect))`,
//! [`draw_world`], then [`UnitRenderer::draw`] with `camera.view_proj(aspect)`
//! (it flushes macroquad's queue first, so depth testing sees the ground).
//!
//! Only this module, `ui`, `app` and the binary touch the window.

pub mod camera;
pub mod egui_host;
pub mod mesh;
pub mod pipeline;
pub mod screenshot;
pub mod units;
pub mod world;

pub use camera::{CameraInput, OrbitCamera};
pub use egui_host::EguiHost;
pub use mesh::{load_obj_mesh, load_unit_mesh};
pub use pipeline::{UnitInstance, UnitRenderer};
pub use screenshot::save_screenshot;
pub use units::{draw_query_circle, pack_instances};
pub use world::draw_world;
