//! The memory view: the current layout's unit storage and the index's own
//! storage drawn as strips of 64-byte cache lines, with the lines one query
//! touches lit, and the distinct lines per query.

use egui_macroquad::egui;

use crate::format::thousands;
use crate::measure::memory::modeled::Modeled;
use crate::measure::memory::{LineCounts, RegionStrip};
use crate::settings::view::Geometry;

/// What the memory view shows, computed by the frame loop after a step
/// (only while the view is open).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryView {
    /// Layout name.
    pub layout: &'static str,
    /// Strategy name.
    pub strategy: &'static str,
    /// Stable id of the unit whose query is drawn, and whether it is the
    /// selected unit (else a sampled one).
    pub unit: (u32, bool),
    /// The units' storage, one strip per array.
    pub unit_strips: Vec<RegionStrip>,
    /// The index's storage, one strip per array.
    pub index_strips: Vec<RegionStrip>,
    /// Lines of the drawn query.
    pub drawn: LineCounts,
    /// Mean lines over sampled queries of the frame, and how many.
    pub mean: (LineCounts, usize),
    /// Bytes the query loop reads per candidate from the units' storage.
    pub unit_bytes_per_candidate: usize,
    /// Bytes the query loop reads per candidate from the index's storage.
    pub index_bytes_per_candidate: usize,
    /// Bytes of unit storage per unit (all arrays, cold data included).
    pub bytes_per_unit: usize,
    /// The cache model of the query phase and the frame it was made at
    /// (`None`: pending).
    pub modeled: Option<(Modeled, u64)>,
}

/// Frames between two cache models of unchanged settings (the units move;
/// the model reads the whole storage once).
pub const MODEL_EVERY: u64 = 120;

/// Buckets per row of a strip, and the strip's pixel width.
pub const STRIP_WIDTH: usize = 320;
/// Rows per strip at most.
pub const STRIP_ROWS: usize = 4;

/// Width of the memory view's window, points.
pub const WIDTH: f32 = STRIP_WIDTH as f32 + 20.0;

/// Shows the memory view window while `open`: where the user leaves it, or
/// in `place` (the lessons' docked column), its content scrolling there.
pub fn show(
    ctx: &egui::Context,
    open: &mut bool,
    geometry: &mut Geometry,
    v: &MemoryView,
    place: Option<egui::Rect>,
) {
    match place {
        None => {
            egui::Window::new("Memory view")
                .open(open)
                .default_pos([ctx.screen_rect().width() - 370.0, 10.0])
                .default_width(WIDTH)
                .resizable(false)
                .show(ctx, |ui| body(ui, v, geometry));
        }
        Some(r) => {
            // Another id: a docked window does not keep the free one's place.
            egui::Window::new("Memory view")
                .id(egui::Id::new("memory view docked"))
                .open(open)
                .fixed_pos(r.min)
                .default_width(r.width().min(WIDTH))
                .max_height((r.height() - 40.0).max(60.0))
                .resizable(false)
                .show(ctx, |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("memory view scroll")
                        .show(ui, |ui| body(ui, v, geometry));
                });
        }
    }
}

fn body(ui: &mut egui::Ui, v: &MemoryView, geometry: &mut Geometry) {
    ui.label(format!(
        "{} layout, {}: query of unit #{} ({})",
        v.layout,
        v.strategy,
        v.unit.0,
        if v.unit.1 { "selected" } else { "sampled; click a unit to pick one" }
    ))
    .on_hover_text("Each strip is one array of memory, 64-byte cache lines left to right, top to bottom; a lit mark is a line the query reads. Scattered marks: one miss per candidate. A tight cluster: the candidates share lines.");
    egui::Grid::new("memory_counts").striped(true).show(ui, |ui| {
        ui.label("");
        ui.label("unit storage");
        ui.label("index storage");
        ui.label("candidates");
        ui.end_row();
        ui.label("this query (lines)");
        ui.label(format!("{:.0}", v.drawn.unit));
        ui.label(format!("{:.0}", v.drawn.index));
        ui.label(format!("{:.0}", v.drawn.candidates));
        ui.end_row();
        ui.label(format!("mean of {} (lines)", v.mean.1))
            .on_hover_text("Mean over queries sampled evenly over the units of the last step.");
        ui.label(format!("{:.1}", v.mean.0.unit));
        ui.label(format!("{:.1}", v.mean.0.index));
        ui.label(format!("{:.1}", v.mean.0.candidates));
        ui.end_row();
        ui.label("bytes read / candidate")
            .on_hover_text("What the query loop needs per candidate: 8 bytes of position (plus an 8-byte pointer behind a Box) from the units; the index's id (Grid) or its packed x, z, id (SortedGrid).");
        ui.label(v.unit_bytes_per_candidate.to_string());
        ui.label(v.index_bytes_per_candidate.to_string());
        ui.label("");
        ui.end_row();
    });
    modeled(ui, v.modeled.as_ref());
    geometry_row(ui, geometry);
    let fetched = 64.0 * (v.drawn.unit + v.drawn.index);
    let used =
        v.drawn.candidates * (v.unit_bytes_per_candidate + v.index_bytes_per_candidate) as f64;
    ui.label(format!(
        "storage: {} bytes per unit; this query used {:.0}% of the bytes its cache lines brought in",
        v.bytes_per_unit,
        if fetched > 0.0 { (100.0 * used / fetched).min(100.0) } else { 0.0 }
    ))
    .on_hover_text("Used = candidates x bytes read per candidate; brought in = distinct lines x 64 bytes. A fat struct brings a whole line for one 8-byte position; SoA in cell order packs the candidates' x (and z) into a few shared lines.");
    strips(
        ui,
        "units",
        &v.unit_strips,
        egui::Color32::from_rgb(255, 220, 60),
    );
    strips(
        ui,
        "index",
        &v.index_strips,
        egui::Color32::from_rgb(90, 200, 255),
    );
}

fn strips(ui: &mut egui::Ui, what: &str, strips: &[RegionStrip], lit: egui::Color32) {
    if strips.is_empty() {
        ui.label(format!("{what}: none (the naive scan has no index)"));
        return;
    }
    for s in strips {
        let lines = s.bytes.div_ceil(64);
        let per = if s.lines_per_bucket == 1 {
            "1 line per mark".to_string()
        } else {
            format!("{} lines per mark", thousands(s.lines_per_bucket as u64))
        };
        ui.label(format!(
            "{what} · {}: {}, {per}",
            s.name,
            crate::format::bytes(s.bytes)
        ))
        .on_hover_text(format!(
            "{} cache lines of 64 bytes, drawn left to right, top to bottom; a lit mark: the query read at least one of its lines.",
            thousands(lines as u64)
        ));
        let rows = s.touched.len().div_ceil(STRIP_WIDTH).max(1);
        let row_h = 6.0;
        let (rect, _) = ui.allocate_exact_size(
            egui::vec2(STRIP_WIDTH as f32, rows as f32 * row_h),
            egui::Sense::hover(),
        );
        let p = ui.painter_at(rect);
        p.rect_filled(rect, 0.0, egui::Color32::from_gray(40));
        for (k, _) in s.touched.iter().enumerate().filter(|(_, &t)| t) {
            let (row, col) = (k / STRIP_WIDTH, k % STRIP_WIDTH);
            let min = rect.min + egui::vec2(col as f32, row as f32 * row_h);
            p.rect_filled(
                egui::Rect::from_min_size(min, egui::vec2(1.5, row_h - 1.0)),
                0.0,
                lit,
            );
        }
    }
}

/// The cache model's geometry: this machine's caches or the classroom's.
fn geometry_row(ui: &mut egui::Ui, geometry: &mut Geometry) {
    ui.horizontal(|ui| {
        ui.label("model the caches of")
            .on_hover_text(crate::settings::rows::TABLE.cache_model.help);
        ui.selectable_value(geometry, Geometry::Machine, "this machine")
            .on_hover_text("The L1d, L2 and last-level sizes, ways and line size this machine reports (the classroom ones where it reports none).");
        ui.selectable_value(geometry, Geometry::Classroom, "classroom")
            .on_hover_text("L1d 32 KiB 8-way, L2 512 KiB 8-way, last level 8 MiB 16-way, 64-byte lines: the same counts on every machine of a class (--cache-model classroom).");
    });
    if geometry.falls_back() {
        ui.label(
            egui::RichText::new(
                "This machine reports no caches here (the browser): the classroom's are modeled.",
            )
            .weak(),
        );
    }
}

/// The cache model's counts per query, labeled modeled, or "pending".
fn modeled(ui: &mut egui::Ui, m: Option<&(Modeled, u64)>) {
    let Some((m, frame)) = m else {
        ui.label("modeled cache misses: pending");
        return;
    };
    let names = ["L1d", "L2", "L3"];
    let misses: Vec<String> = m
        .misses
        .iter()
        .zip(names)
        .map(|(x, n)| format!("{n} {x:.1}"))
        .collect();
    let sizes: Vec<String> = m
        .levels
        .iter()
        .zip(names)
        .map(|(l, n)| format!("{n} {} {}-way", crate::format::bytes(l.bytes), l.ways))
        .collect();
    // The frame is named: a lesson's text quotes the model of its step's
    // measured frame, which the units have moved on from since.
    let bytes_in = crate::format::counted(m.bytes_in_per_candidate.round() as usize, "byte");
    ui.label(format!(
        "modeled misses / query in frame {frame}: {}; {bytes_in} brought in / candidate",
        misses.join(", "),
    ))
    .on_hover_text(format!(
        "A cache model, not hardware counters: {} consecutive queries of frame {frame} (after {} warm-up ones) through an LRU model of {} ({} geometry). The same settings give the same counts on every machine, thread count and kernel; it is made again when the settings change and every {} frames.",
        m.queries,
        m.sample.warmup,
        sizes.join(", "),
        m.geometry.key(),
        MODEL_EVERY,
    ));
}
