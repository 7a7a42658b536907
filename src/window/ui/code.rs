//! The "Code" tab of the lessons panel and the query inspector: the
//! crate's own source of what is being measured (the strategy's rebuild
//! and query, the kernel's lane operations for the ISA that runs, the
//! layout's unit read), cut at build time from the files compiled into
//! this binary ([`crate::teaching::code`]), with the file's path and line numbers.

use egui_macroquad::egui;

/// Draws the excerpts named `names` ([`crate::teaching::code::excerpt`]), each under
/// a collapsible heading with its path and first line; the first open.
/// `salt` keeps the headings of two places apart.
pub fn excerpts(ui: &mut egui::Ui, names: &[&'static str], salt: &str) {
    ui.label(
        egui::RichText::new(
            "The source of what runs under these settings, cut from this build's own files.",
        )
        .weak(),
    );
    for (i, name) in names.iter().enumerate() {
        let Some(e) = crate::teaching::code::excerpt(name) else {
            continue;
        };
        egui::CollapsingHeader::new(egui::RichText::new(e.title).strong())
            .id_salt((salt, *name))
            .default_open(i == 0)
            .show(ui, |ui| {
                ui.label(
                    egui::RichText::new(format!("{}:{}", e.path, e.first_line))
                        .monospace()
                        .weak(),
                )
                .on_hover_text("The file and line this excerpt starts at, in the repository.");
                egui::ScrollArea::both()
                    .id_salt((salt, *name, "text"))
                    .max_height(260.0)
                    .show(ui, |ui| {
                        ui.add(
                            egui::Label::new(
                                egui::RichText::new(crate::teaching::code::numbered(&e))
                                    .monospace()
                                    .size(11.0),
                            )
                            .extend(),
                        );
                    });
                if ui
                    .small_button("Copy")
                    .on_hover_text("Copy this excerpt with its path and line numbers.")
                    .clicked()
                {
                    ui.ctx().copy_text(format!(
                        "{}:{}\n{}",
                        e.path,
                        e.first_line,
                        crate::teaching::code::numbered(&e)
                    ));
                }
            });
    }
}
