//! A lesson step's prediction in the lessons panel: the question, then a
//! number field or the choices, then the measured answer beside the guess;
//! and the summary page's list of every guess against its answer.
//!
//! Widgets only: they read a [`PredictPage`] and return
//! [`LessonAction`]s. The typed guess lives in egui's memory under the
//! step's id until it is answered.

use egui_macroquad::egui;

use super::colors::NOTICE_COLOR;
use super::lesson_action::LessonAction;
use crate::teaching::lesson::predict::parse_guess;
use crate::teaching::lesson::session::{PredictLine, PredictPage};

/// Color of the question's frame and heading.
pub const ASK: egui::Color32 = egui::Color32::from_rgb(240, 200, 90);

/// The prediction of step `step` (0-based): the question and, until it is
/// answered, the field or choices and "Show the answer"; then the reveal.
pub fn question(ui: &mut egui::Ui, step: usize, p: &PredictPage, acts: &mut Vec<LessonAction>) {
    egui::Frame::group(ui.style())
        .stroke(egui::Stroke::new(1.0, ASK))
        .show(ui, |ui| {
            ui.label(egui::RichText::new("Predict").strong().color(ASK));
            ui.add(egui::Label::new(egui::RichText::new(&p.question).strong()).wrap());
            match &p.reveal {
                None => ask(ui, step, p, acts),
                Some(r) => {
                    ui.add(egui::Label::new(r.as_str()).wrap()).on_hover_text(
                        "The measured answer's range is every round's: a ratio's is the smallest over the largest and the largest over the smallest, as the verdicts have it.",
                    );
                    if p.pending {
                        let when = if p.measuring {
                            "Measuring: the answer fills in when the lesson's measurement ends."
                        } else {
                            "The lesson's measurement did not finish: \"Measure again\" below measures it."
                        };
                        ui.label(egui::RichText::new(when).weak());
                    }
                }
            }
        });
}

/// The open question's inputs.
fn ask(ui: &mut egui::Ui, step: usize, p: &PredictPage, acts: &mut Vec<LessonAction>) {
    if p.choices.is_empty() {
        // Keyed by the question too: a half-typed guess stays with it.
        let id = egui::Id::new(("lesson guess", step, &p.question));
        let mut typed: String = ui.data(|d| d.get_temp(id)).unwrap_or_default();
        let guess = parse_guess(&typed, &p.unit);
        ui.horizontal_wrapped(|ui| {
            ui.label("Your guess:");
            let field = ui.add(
                egui::TextEdit::singleline(&mut typed)
                    .desired_width(80.0)
                    .hint_text(if p.unit == "x" { "e.g. 3" } else { "a number" }),
            );
            field.clone().on_hover_text(format!(
                "Type a number{} and press Enter.",
                if p.unit.is_empty() {
                    String::new()
                } else {
                    format!(" (in {})", unit_words(&p.unit))
                }
            ));
            if !p.unit.is_empty() {
                ui.label(&p.unit);
            }
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let answer = ui
                .add_enabled(guess.is_some(), egui::Button::new("Answer"))
                .on_hover_text("Lock in the guess and show the measured answer beside it.")
                .on_disabled_hover_text("Type a number first.");
            if let (Some(g), true) = (guess, answer.clicked() || entered) {
                acts.push(LessonAction::Guess(g));
            }
            ui.data_mut(|d| d.insert_temp(id, typed.clone()));
        });
        if !typed.trim().is_empty() && guess.is_none() {
            ui.label(egui::RichText::new("That is not a number.").color(NOTICE_COLOR));
        }
    } else {
        ui.horizontal_wrapped(|ui| {
            ui.label("Pick one:");
            for (value, text) in &p.choices {
                if ui
                    .button(text)
                    .on_hover_text("Lock in this guess and show the measured answer beside it.")
                    .clicked()
                {
                    acts.push(LessonAction::Guess(*value));
                }
            }
        });
    }
    if ui
        .button("Show the answer")
        .on_hover_text("Reveal the measured answer without a guess (Page Down does the same; the next Page Down moves on).")
        .clicked()
    {
        acts.push(LessonAction::Reveal);
    }
}

/// The summary page's list: every prediction's question and its answer
/// against the guess.
pub fn summary(ui: &mut egui::Ui, lines: &[PredictLine]) {
    if lines.is_empty() {
        return;
    }
    ui.label(egui::RichText::new("Predictions").strong().color(ASK));
    egui::Grid::new("lesson predictions")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for l in lines {
                ui.label(format!("Step {}", l.step));
                ui.vertical(|ui| {
                    ui.add(egui::Label::new(egui::RichText::new(&l.question).strong()).wrap());
                    ui.add(egui::Label::new(l.reveal.as_str()).wrap());
                });
                ui.end_row();
            }
        });
}

/// A unit for people: "x" is "times".
fn unit_words(unit: &str) -> &str {
    match unit {
        "x" => "times",
        u => u,
    }
}
