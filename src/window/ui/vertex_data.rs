//! The vertex-data rows of the overlay: the vertex layout, normal
//! precision and mesh switches, and what the layout costs in bytes per
//! vertex, per instance and per picture.

use egui_macroquad::egui;

use crate::settings::rows::TABLE;

use crate::format::thousands;
use crate::window::render::{NormalPrecision, UnitMeshKind, VertexLayout};
use crate::window::ui::stats::FrameStats;

use super::view_options::ViewOptions;

/// The vertex-data lesson: the layout switch (key B) and what each layout
/// costs in bytes, from the last complete picture.
pub(crate) fn vertex_rows(ui: &mut egui::Ui, view: &mut ViewOptions, st: &FrameStats) {
    layout_switches(ui, view);
    normal_error_rows(ui, view, st);
    let rows = byte_rows(st);
    drawn_row(ui, st);
    byte_grid(ui, &rows);
}

/// One row of the bytes grid: its name, its value and its hover text.
type ByteRow = (&'static str, String, &'static str);

/// The three switches on one line: vertex layout (key B), normal precision
/// (key N, only for the compressed layout) and unit mesh (key U).
fn layout_switches(ui: &mut egui::Ui, view: &mut ViewOptions) {
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("vertex_layout")
            .selected_text(format!("vertices: {}", view.settings.vertex_layout.key()))
            .show_ui(ui, |ui| {
                for l in VertexLayout::ALL {
                    ui.selectable_value(&mut view.settings.vertex_layout, l, l.key());
                }
            })
            .response
            .on_hover_text(format!("{} Key B. compressed: two streams per vertex, an SNORM16 position in the mesh's bounding box (8 B) and an octahedral SNORM16 normal (4 B), and 8 bytes per unit (x and z as 16-bit fixed point over the world, heading in 15 bits, RGB565 color). uncompressed: one interleaved f32 stream (position, normal, padding: 32 B) and 20 bytes per unit (four f32 and RGBA8). The picture is the same up to quantization.", TABLE.vertex_layout.help));
        let compressed = view.settings.vertex_layout == VertexLayout::Compressed;
        ui.add_enabled_ui(compressed, |ui| {
            egui::ComboBox::from_id_salt("normal_precision")
                .selected_text(format!("normals: {}-bit", view.settings.normal_bits.bits()))
                .show_ui(ui, |ui| {
                    for p in NormalPrecision::ALL {
                        ui.selectable_value(
                            &mut view.settings.normal_bits,
                            p,
                            format!("{}-bit", p.bits()),
                        );
                    }
                })
                .response
                .on_hover_text(format!("{} Key N. 8 bits: every normal within 1 degree; 16 bits: within 0.01 degree. See it with colors: normal error (V), close up.", TABLE.normal_bits.help))
                .on_disabled_hover_text("The uncompressed layout keeps exact f32 normals.");
        });
        egui::ComboBox::from_id_salt("unit_mesh")
            .selected_text(format!("mesh: {}", view.settings.mesh.key()))
            .show_ui(ui, |ui| {
                for k in UnitMeshKind::ALL {
                    ui.selectable_value(&mut view.settings.mesh, k, k.key());
                }
            })
            .response
            .on_hover_text(format!("{} Key U. The tank has 36 flat triangles; infantry and vehicle a few hundred, smooth parts sharing vertices, read with tobj and quantized when chosen.", TABLE.mesh.help));
    });
}

/// The mesh's load warning, if any, and the normal error of the chosen
/// precision (degrees, max and mean over the mesh's vertices).
fn normal_error_rows(ui: &mut egui::Ui, view: &ViewOptions, st: &FrameStats) {
    if let Some(w) = &st.mesh_warning {
        ui.colored_label(egui::Color32::LIGHT_RED, w.as_str());
    }
    let err = st.normal_errors[(view.settings.normal_bits == NormalPrecision::Oct8) as usize];
    let text = if view.settings.vertex_layout == VertexLayout::Compressed {
        format!(
            "normal error ({}-bit): max {:.4}°, mean {:.4}° over {} vertices",
            view.settings.normal_bits.bits(),
            err.0,
            err.1,
            st.mesh_vertices
        )
    } else {
        format!(
            "normal error: none (f32 normals), {} vertices",
            st.mesh_vertices
        )
    };
    ui.label(text)
    .on_hover_text("Angle between each vertex's exact normal and the one decoded from its octahedral code at this precision, over the mesh's vertices. The tests bound it: below 0.01 degree at 16 bits, below 1 degree at 8 bits.");
}

/// The bytes grid's six rows for the layout the last picture used: per
/// vertex, per instance, mesh on GPU, instances, uploaded and GPU time.
fn byte_rows(st: &FrameStats) -> [ByteRow; 6] {
    use crate::format::bytes;
    let shown = st.vertex_layout;
    let streams = shown
        .vertex_stream_bytes()
        .iter()
        .map(|b| format!("{b} B"))
        .collect::<Vec<_>>()
        .join(" + ");
    let units = st.units as u64;
    let per_instance = shown.instance_bytes() as u64;
    [
        (
            "per vertex",
            if shown.vertex_stream_bytes().len() > 1 {
                format!("{streams} = {} B", shown.vertex_bytes())
            } else {
                streams
            },
            "Bytes per vertex of each per-vertex stream of the layout the last picture used.",
        ),
        (
            "per instance",
            format!("{per_instance} B"),
            "Bytes per unit in the instance stream.",
        ),
        (
            "mesh on GPU",
            bytes(st.mesh_bytes),
            "The unit mesh's vertex streams plus its 16-bit index buffer (indices included), uploaded once.",
        ),
        (
            "instances",
            bytes((units * per_instance) as usize),
            "Units times bytes per instance: the instance data of one picture.",
        ),
        (
            "uploaded",
            bytes(st.uploaded_bytes as usize),
            "Instance bytes sent to the GPU to draw the last complete picture (every unit, every frame).",
        ),
        (
            "GPU time",
            "unavailable".to_string(),
            "GPU-side draw time needs a GL timer query; miniquad 0.4 does not expose its result, so only the CPU side (render, above) is measured. Under a software rasterizer the CPU time is the whole cost.",
        ),
    ]
}

/// How the last picture drew its units: meshes, impostors and culled.
fn drawn_row(ui: &mut egui::Ui, st: &FrameStats) {
    let lod = st.picture.lod;
    ui.label(format!(
        "drawn: {} meshes, {} impostors, {} culled",
        thousands(lod.mesh as u64),
        thousands(lod.impostors as u64),
        thousands(lod.culled as u64)
    ))
    .on_hover_text(format!("Per unit, from the camera of the last picture: units outside the view are culled (not drawn); units whose projected length is under {} pixels are drawn as an impostor, one point at the top of the mesh's box (1 vertex instead of {}) of about the unit's projected size, in whole pixels chosen by coverage, decoded from the same instance stream; the rest get the mesh.", crate::window::render::IMPOSTOR_PIXELS, st.mesh_vertices));
}

/// The bytes grid, two figures per row.
fn byte_grid(ui: &mut egui::Ui, rows: &[ByteRow]) {
    // Two figures per row, so the lesson costs three lines of the overlay.
    egui::Grid::new("vertex_bytes")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            for pair in rows.chunks(2) {
                for (name, value, tip) in pair {
                    ui.label(*name).on_hover_text(*tip);
                    ui.monospace(format!("{value:>11}"));
                }
                ui.end_row();
            }
        });
}
