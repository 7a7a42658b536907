//! The lessons panel: the list of lessons, then one step at a time (its
//! title, its text with the numbers just measured on this machine, the
//! measurement's progress, a notice when the settings differ from the
//! step's), and at the end the lesson's chart, its conclusion and the
//! exports.
//!
//! Widgets only: it reads a plain [`LessonPanel`] (filled by the frame
//! loop, `crate::window::app`) and returns [`LessonAction`]s.

use egui_macroquad::egui;

use super::colors::NOTICE_COLOR;
pub use super::lesson_action::LessonAction;
pub use crate::teaching::lesson::session::LessonPage;
use crate::teaching::lesson::text::{Piece, Value, NOT_RUN, PENDING};

/// The id of the lesson chart's plot (what "save chart" writes).
pub const LESSON_CHART: &str = "lesson chart";

/// Color of a value measured on this machine in a step's text.
const MEASURED: egui::Color32 = egui::Color32::from_rgb(140, 220, 140);

/// Everything the panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LessonPanel {
    /// The lessons offered: (name, title, number of steps).
    pub lessons: Vec<(String, String, usize)>,
    /// The lesson being followed, if any.
    pub page: Option<LessonPage>,
    /// A lesson that could not be loaded, and why.
    pub error: Option<String>,
}

impl LessonPanel {
    /// True while the step shown asks a question not answered yet: the
    /// overlay then hides the numbers that would answer it (the timings,
    /// the step's sweep).
    pub fn asking(&self) -> bool {
        self.page
            .as_ref()
            .and_then(|p| p.predict.as_ref())
            .is_some_and(|q| q.guess.is_none())
    }
}

/// The "Lessons" button for the overlay's first row (key F2).
pub fn button(ui: &mut egui::Ui, open: &mut bool) {
    ui.toggle_value(open, "Lessons")
        .on_hover_text("Guided lessons (F2): each step sets the engine, says what to watch, measures on this machine and quotes the numbers; the chart at the end. Page Down / Page Up step through them (a presenter's clicker sends these keys).");
}

/// The first-launch hint at the top of the overlay: one line and a button
/// that opens the lessons.
pub fn hint(ui: &mut egui::Ui, open: &mut bool) {
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new("New here? Press F2 for guided lessons:").color(MEASURED));
        if ui
            .button("Open lessons")
            .on_hover_text("Nine lessons: algorithms, SIMD lanes, data layouts, memory order, cell size, results as data, threads, vertex data, churn. Each measures on this machine as it goes (F2).")
            .clicked()
        {
            *open = true;
        }
    });
}

/// The lessons window, open while `open`; returns the actions clicked and
/// the chart's rectangle in points (for "save chart"), when drawn.
pub fn window(
    ctx: &egui::Context,
    open: &mut bool,
    panel: &LessonPanel,
    place: egui::Rect,
) -> (Vec<LessonAction>, Option<egui::Rect>) {
    let mut acts = Vec::new();
    let mut chart = None;
    // Docked in the right column (`place`, below the memory view when it is
    // open: the two never cover each other); the content scrolls when the
    // column is short (a projector at 1024x768 with a large UI scale).
    let width = place.width().max(200.0);
    let max_height = (place.height() - 40.0).max(80.0);
    // egui keeps a window's height from the frame it was first laid out
    // and scrolls longer content inside it: the window is asked for the
    // height its page's content had last frame (up to `max_height`), and a
    // new id for each page and state (measuring, measured) lets it shrink.
    let id = egui::Id::new((
        "lessons window",
        panel.page.as_ref().map(|p| {
            (
                p.step,
                p.steps,
                p.measuring.is_some(),
                p.measured,
                p.predict.as_ref().map(|q| q.guess.is_some()),
                p.title.clone(),
            )
        }),
    ));
    let content_id = id.with("content height");
    let wanted: f32 = ctx.data(|d| d.get_temp(content_id)).unwrap_or(0.0);
    egui::Window::new("Lessons")
        .id(id)
        .open(open)
        // Above the panel, whose window id follows the screen's height (a
        // new id comes out on top): the lesson is what the class follows.
        .order(egui::Order::Foreground)
        .fixed_pos(place.min)
        .default_width(width)
        .min_height(wanted.min(max_height))
        .max_height(max_height)
        .resizable(false)
        .show(ctx, |ui| {
            let out = egui::ScrollArea::vertical()
                .id_salt("lesson page")
                .show(ui, |ui| {
                    ui.set_max_width(width);
                    if let Some(e) = &panel.error {
                        ui.add(egui::Label::new(egui::RichText::new(e).color(NOTICE_COLOR)).wrap());
                    }
                    match &panel.page {
                        None => list(ui, panel, &mut acts),
                        Some(p) if p.step >= p.steps => {
                            chart = summary(ui, p, &mut acts);
                        }
                        Some(p) => step(ui, p, &mut acts),
                    }
                });
            let h = out.content_size.y;
            if (h - wanted).abs() > 0.5 {
                ctx.data_mut(|d| d.insert_temp(content_id, h));
                ctx.request_repaint();
            }
        });
    (acts, chart)
}

/// The list of lessons, one button each.
fn list(ui: &mut egui::Ui, panel: &LessonPanel, acts: &mut Vec<LessonAction>) {
    ui.label("Pick a lesson. Each step sets the engine, measures it on this machine and explains what the numbers show.");
    for (i, (name, title, steps)) in panel.lessons.iter().enumerate() {
        let text = format!("{}. {title}", i + 1);
        if ui
            .button(text)
            .on_hover_text(format!(
                "{steps} steps; also on the command line: spatial-query-lab lesson {name}"
            ))
            .clicked()
        {
            acts.push(LessonAction::Open(i));
        }
    }
}

/// A step: its heading, text, measurement and navigation.
fn step(ui: &mut egui::Ui, p: &LessonPage, acts: &mut Vec<LessonAction>) {
    ui.label(egui::RichText::new(&p.title).strong().size(16.0));
    ui.label(
        egui::RichText::new(format!(
            "Step {} of {}: {}",
            p.step + 1,
            p.steps,
            p.step_title
        ))
        .strong(),
    );
    let tab = egui::Id::new("lesson code tab");
    let mut code: bool = ui.data(|d| d.get_temp(tab)).unwrap_or(false);
    ui.horizontal(|ui| {
        ui.selectable_value(&mut code, false, "Step")
            .on_hover_text("The step's text and numbers.");
        ui.selectable_value(&mut code, true, "Code")
            .on_hover_text("The source of what this step measures: the strategy's rebuild and query, the kernel for this CPU, the layout's unit read, from this build's own files.");
    });
    ui.data_mut(|d| d.insert_temp(tab, code));
    if code {
        super::code::excerpts(ui, &p.code, "lesson");
        nav(ui, p, acts);
        return;
    }
    ui.add_space(4.0);
    if let Some(q) = &p.predict {
        super::predict::question(ui, p.step, q, acts);
        ui.add_space(4.0);
    }
    pieces(ui, &p.text);
    ui.add_space(4.0);
    if !p.differs.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.label(
                egui::RichText::new(format!(
                    "Your settings differ from this step's ({}): its numbers are not measured on what is on screen.",
                    p.differs.join(", ")
                ))
                .color(NOTICE_COLOR),
            );
            if ui
                .button("Restore step settings")
                .on_hover_text("Put the step's settings back and measure again.")
                .clicked()
            {
                acts.push(LessonAction::Restore);
            }
        });
    }
    measuring(ui, p, acts);
    match (&p.measuring, &p.skipped) {
        (Some(_), _) => {}
        (None, Some(why)) => {
            ui.label(egui::RichText::new(format!("Not measured: {why}.")).color(NOTICE_COLOR));
        }
        _ => {}
    }
    if let Some(cut) = &p.cut {
        ui.label(egui::RichText::new(format!("Measured over {cut}.")).color(NOTICE_COLOR))
            .on_hover_text("A frame of this step took longer than the measurement's guard allows, so fewer frames were counted per round than the lesson asks for.");
    }
    nav(ui, p, acts);
}

/// The lesson's measurement in progress: its bar, what it measures now,
/// why the scene is paused, and Cancel; else how the lesson was measured.
fn measuring(ui: &mut egui::Ui, p: &LessonPage, acts: &mut Vec<LessonAction>) {
    match &p.measuring {
        Some((progress, what)) => {
            ui.add(
                egui::ProgressBar::new(*progress as f32)
                    .desired_width(ui.available_width().min(360.0))
                    .text(if what.is_empty() {
                        "measuring the lesson…".to_string()
                    } else {
                        format!("measuring: {what}")
                    }),
            );
            ui.horizontal_wrapped(|ui| {
                ui.label(egui::RichText::new("The scene is paused so drawing does not compete; every step is measured on a fresh simulation, as `lesson` does headless.").weak());
                if ui
                    .button("Cancel")
                    .on_hover_text("Stop measuring; the numbers stay pending.")
                    .clicked()
                {
                    acts.push(LessonAction::Cancel);
                }
            });
        }
        None => {
            ui.label(egui::RichText::new(format!("Measured in {}.", p.how)).weak())
                .on_hover_text("Every step once per round, the steps in turn, so that the comparisons share the machine's drift. A sentence that states a direction is shown only when the rounds of the two sides do not overlap.");
        }
    }
}

/// Back, next, measure again, restart, lessons.
fn nav(ui: &mut egui::Ui, p: &LessonPage, acts: &mut Vec<LessonAction>) {
    ui.separator();
    ui.horizontal(|ui| {
        if ui
            .add_enabled(p.step > 0, egui::Button::new("⏴ Back"))
            .on_hover_text("Previous step (Page Up).")
            .clicked()
        {
            acts.push(LessonAction::Back);
        }
        let asking = p.predict.as_ref().is_some_and(|q| q.guess.is_none());
        let (next, tip) = if asking {
            ("Show answer ⏵", "Reveal the measured answer without a guess (Page Down); the next Page Down moves on.")
        } else if p.step + 1 >= p.steps {
            ("Summary ⏵", "The lesson's summary (Page Down).")
        } else {
            ("Next ⏵", "Next step (Page Down).")
        };
        if p.step < p.steps
            && ui
                .button(next)
                .on_hover_text(tip)
                .clicked()
        {
            acts.push(LessonAction::Next);
        }
        if ui
            .add_enabled(p.measuring.is_none(), egui::Button::new("Measure again"))
            .on_hover_text("Measure the whole lesson again: every step, in interleaved rounds, with the scene paused.")
            .clicked()
        {
            acts.push(LessonAction::Measure);
        }
        if ui
            .button("Restart")
            .on_hover_text("Forget this lesson's measurements and start at step 1.")
            .clicked()
        {
            acts.push(LessonAction::Restart);
        }
        if ui
            .button("All lessons")
            .on_hover_text("Back to the list of lessons.")
            .clicked()
        {
            acts.push(LessonAction::List);
        }
    });
}

/// The summary page: conclusion, chart, exports.
fn summary(ui: &mut egui::Ui, p: &LessonPage, acts: &mut Vec<LessonAction>) -> Option<egui::Rect> {
    ui.label(egui::RichText::new(&p.title).strong().size(16.0));
    ui.label(egui::RichText::new("What it showed").strong());
    pieces(ui, &p.text);
    super::predict::summary(ui, &p.predictions);
    measuring(ui, p, acts);
    let mut rect = None;
    if !p.chart.ws_curves().is_empty() {
        ui.label("Working-set sweeps: query ns per unit against the working set; red lines: this machine's caches");
        rect = Some(super::compare::ws_curves_plot(
            ui,
            &p.chart,
            crate::measure::machine::Machine::current(),
            LESSON_CHART,
        ));
    } else if !p.chart.curves().is_empty() {
        ui.label("Cell-size sweeps: median query ms against cell / r");
        rect = Some(super::compare::curves_plot(ui, &p.chart, LESSON_CHART));
    } else if !p.chart.rows().is_empty() {
        rect = Some(super::compare::bar_chart(
            ui,
            &p.chart,
            LESSON_CHART,
            crate::teaching::chart::Scale::Auto,
        ));
    }
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Copy Markdown")
            .on_hover_text("Copy the lesson's texts, numbers and table (with this machine's name) to the clipboard (F6).")
            .clicked()
        {
            acts.push(LessonAction::CopyMarkdown);
        }
        for (label, act, tip) in [
            ("Save CSV", LessonAction::SaveCsv, "Write spatial-query-lab-lesson-NNN.csv in the current folder (in the browser: a download): one line per step with bench's keys and every round's range (a lesson with sweeps: one line per cell size, with its range and candidates per neighbor). F7."),
            ("Save JSON", LessonAction::SaveJson, "Write spatial-query-lab-lesson-NNN.json in the current folder (in the browser: a download): the texts, the rows with bench's keys and their rounds, the sweeps and every verdict the texts state. F8."),
            ("Save chart", LessonAction::SaveChart, if crate::platform::browser::IN_BROWSER {
                "Download the chart above as spatial-query-lab-chart.png, at the size it has on screen. F9."
            } else {
                "Write the lesson's chart as spatial-query-lab-chart-NNN.png (1920x1080) and .svg in the current folder: titled, a label and a value on every bar, whiskers from the rounds, the machine and date in the caption (the same chart as `lesson NAME --chart FILE`). F9."
            }),
        ] {
            if ui
                .button(label)
                .on_hover_text(tip)
                .clicked()
            {
                acts.push(act);
            }
        }
    });
    nav(ui, p, acts);
    rect
}

/// A filled text: measured values stand out; pending and not-run values
/// say so when hovered.
fn pieces(ui: &mut egui::Ui, text: &[Piece]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 0.0;
        for p in text {
            match p {
                Piece::Text(t) => {
                    ui.label(t.as_str());
                }
                Piece::Backed { text, by } => {
                    ui.label(text.as_str()).on_hover_text(format!(
                        "Shown because the rounds support it: {{if {by}}}"
                    ));
                }
                Piece::Value { expr, value, shown } => {
                    let (rich, tip) = match value {
                        Value::Pending => (
                            egui::RichText::new(PENDING).weak(),
                            format!("{{{expr}}}: not measured yet"),
                        ),
                        Value::NotRun => (
                            egui::RichText::new(NOT_RUN).color(NOTICE_COLOR),
                            format!("{{{expr}}}: its step did not run here (see that step)"),
                        ),
                        Value::Verdict(v) => (
                            egui::RichText::new(shown.as_str()).color(MEASURED).strong(),
                            format!(
                                "{{{expr}}}: a verdict from {} and {} rounds{}: a direction only where the two sides' rounds do not overlap",
                                v.rounds.0,
                                v.rounds.1,
                                if v.interleaved { ", measured in turn" } else { ", measured apart" }
                            ),
                        ),
                        _ => (
                            egui::RichText::new(shown.as_str()).color(MEASURED).strong(),
                            format!("{{{expr}}}: measured on this machine just now"),
                        ),
                    };
                    ui.label(rich).on_hover_text(tip);
                }
            }
        }
    });
}
