//! The lessons panel: the list of lessons, then one step at a time (its
//! title, its text with the numbers just measured on this machine, the
//! measurement's progress, a notice when the settings differ from the
//! step's), and at the end the lesson's chart, its conclusion and the
//! exports.
//!
//! Widgets only: it reads a plain [`LessonPanel`] (filled by the frame
//! loop, `crate::app`) and returns [`LessonAction`]s.

use egui_macroquad::egui;

use super::overlay::NOTICE_COLOR;
pub use crate::lesson::session::LessonPage;
use crate::lesson::text::{Piece, Value, NOT_RUN, PENDING};

/// The id of the lesson chart's plot (what "save chart" writes).
pub const LESSON_CHART: &str = "lesson chart";

/// Color of a value measured on this machine in a step's text.
const MEASURED: egui::Color32 = egui::Color32::from_rgb(140, 220, 140);

/// What the lessons panel asks the frame loop to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonAction {
    /// Start lesson `i` of the list at its first step.
    Open(usize),
    /// Go to the next step (or the summary after the last).
    Next,
    /// Go to the previous step.
    Back,
    /// Forget the measurements and start again at the first step.
    Restart,
    /// Measure the current step again.
    Measure,
    /// Put the step's settings back (after the user changed them).
    Restore,
    /// Back to the list of lessons.
    List,
    /// Copy the lesson's texts and table as Markdown to the clipboard.
    CopyMarkdown,
    /// Save the lesson's table as CSV in the current folder.
    SaveCsv,
    /// Save the lesson as JSON in the current folder.
    SaveJson,
    /// Save the chart alone as a PNG in the current folder.
    SaveChart,
}

/// Everything the panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LessonPanel {
    /// The lessons offered: (name, title, number of steps).
    pub lessons: Vec<(String, String, usize)>,
    /// The lesson being followed, if any.
    pub page: Option<LessonPage>,
    /// A lesson that could not be loaded, and why.
    pub error: Option<String>,
    /// Whether saving files is possible here (not in a browser).
    pub can_save: bool,
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
) -> (Vec<LessonAction>, Option<egui::Rect>) {
    let mut acts = Vec::new();
    let mut chart = None;
    // Bottom right: the memory view and the sweep window open at the top
    // right, the panel at the left. Never taller than the screen: the
    // content scrolls (a projector at 1024x768 with a large UI scale).
    let screen = ctx.screen_rect();
    let width = 440.0f32.min(screen.width() - 20.0).max(200.0);
    egui::Window::new("Lessons")
        .open(open)
        // Above the panel, whose window id follows the screen's height (a
        // new id comes out on top), and above the memory view: the lesson
        // is what the class follows.
        .order(egui::Order::Foreground)
        .pivot(egui::Align2::RIGHT_BOTTOM)
        .default_pos([screen.right() - 10.0, screen.bottom() - 10.0])
        .default_width(width)
        .max_height(screen.height() - 60.0)
        .resizable(false)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("lesson page")
                .show(ui, |ui| {
                    ui.set_max_width(width);
                    if let Some(e) = &panel.error {
                        ui.add(egui::Label::new(egui::RichText::new(e).color(NOTICE_COLOR)).wrap());
                    }
                    match &panel.page {
                        None => list(ui, panel, &mut acts),
                        Some(p) if p.step >= p.steps => {
                            chart = summary(ui, p, panel.can_save, &mut acts);
                        }
                        Some(p) => step(ui, p, &mut acts),
                    }
                });
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
    ui.add_space(4.0);
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
    match (p.measuring, &p.skipped) {
        (Some(progress), _) => {
            ui.add(
                egui::ProgressBar::new(progress as f32)
                    .desired_width(300.0)
                    .text("measuring on this machine…"),
            );
        }
        (None, Some(why)) => {
            ui.label(egui::RichText::new(format!("Not measured: {why}.")).color(NOTICE_COLOR));
        }
        _ => {}
    }
    nav(ui, p, acts);
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
        let next = if p.step + 1 >= p.steps {
            "Summary ⏵"
        } else {
            "Next ⏵"
        };
        if p.step < p.steps
            && ui
                .button(next)
                .on_hover_text("Next step (Page Down); it measures as it opens.")
                .clicked()
        {
            acts.push(LessonAction::Next);
        }
        if p.step < p.steps
            && ui
                .add_enabled(p.measuring.is_none(), egui::Button::new("Measure again"))
                .on_hover_text("Measure this step again with its settings.")
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
fn summary(
    ui: &mut egui::Ui,
    p: &LessonPage,
    can_save: bool,
    acts: &mut Vec<LessonAction>,
) -> Option<egui::Rect> {
    ui.label(egui::RichText::new(&p.title).strong().size(16.0));
    ui.label(egui::RichText::new("What it showed").strong());
    pieces(ui, &p.text);
    let mut rect = None;
    if !p.chart.rows().is_empty() {
        rect = Some(log_chart(ui, &p.chart));
    }
    if !p.chart.curves().is_empty() {
        ui.label("Cell-size sweeps: median query ms against cell / r");
        super::compare::curves_plot(ui, &p.chart, "lesson sweeps");
    }
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Copy Markdown")
            .on_hover_text("Copy the lesson's texts, numbers and table (with this machine's name) to the clipboard.")
            .clicked()
        {
            acts.push(LessonAction::CopyMarkdown);
        }
        for (label, act, tip) in [
            ("Save CSV", LessonAction::SaveCsv, "Write spatial-query-lab-lesson-NNN.csv in the current folder: one line per step, bench's keys."),
            ("Save JSON", LessonAction::SaveJson, "Write spatial-query-lab-lesson-NNN.json in the current folder: the texts, the rows with bench's keys and the sweeps."),
            ("Save chart PNG", LessonAction::SaveChart, "Write the chart alone as spatial-query-lab-chart-NNN.png in the current folder."),
        ] {
            if ui
                .add_enabled(can_save, egui::Button::new(label))
                .on_hover_text(tip)
                .on_disabled_hover_text("No file system here (browser): use Copy Markdown.")
                .clicked()
            {
                acts.push(act);
            }
        }
    });
    nav(ui, p, acts);
    rect
}

/// Each step's median step and query time as bars on a log scale (the
/// steps of a lesson differ by up to 1,000x: on a linear scale the fast
/// ones vanish); returns the rectangle of the plot and its caption.
fn log_chart(ui: &mut egui::Ui, c: &crate::measure::compare::Comparison) -> egui::Rect {
    use egui_plot::{Bar, BarChart, Legend};
    let rows = c.rows();
    let n = rows.len();
    let smallest = rows
        .iter()
        .flat_map(|m| [m.ms.total.median, m.ms.query.median])
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    // Bars start at the power of ten below the smallest value.
    let floor = if smallest.is_finite() {
        10f64.powf(smallest.log10().floor())
    } else {
        1.0
    };
    let height = |ms: f64| (ms.max(floor) / floor).log10();
    let series = |name: &str, offset: f64, pick: fn(&crate::measure::Measurement) -> f64| {
        let bars: Vec<Bar> = rows
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Bar::new(i as f64 + offset, height(pick(m)))
                    .width(0.35)
                    .name(format!("{}: {name} {:.3} ms", c.name(i), pick(m)))
            })
            .collect();
        BarChart::new(bars).name(name)
    };
    let labels: Vec<String> = (0..n).map(|i| c.name(i)).collect();
    ui.scope(|ui| {
        ui.label("Median step and query time per step (log scale), measured here");
        super::plot::bars(LESSON_CHART, 200.0, labels)
            .legend(Legend::default())
            .y_axis_label("ms (log)")
            .y_axis_formatter(move |m, _| {
                let v = floor * 10f64.powf(m.value);
                // Two significant digits at every mark egui places.
                let digits = (1 - v.log10().floor() as i32).max(0) as usize;
                format!("{v:.digits$}")
            })
            .show(ui, |pl| {
                pl.bar_chart(
                    series("step", -0.18, |m| m.ms.total.median)
                        .color(egui::Color32::from_rgb(90, 150, 255)),
                );
                pl.bar_chart(
                    series("query", 0.18, |m| m.ms.query.median)
                        .color(super::timings::PHASE_COLORS[2]),
                );
            });
    })
    .response
    .rect
}

/// A filled text: measured values stand out; pending and not-run values
/// say so when hovered.
fn pieces(ui: &mut egui::Ui, text: &[Piece]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 0.0;
        for p in text {
            match p {
                Piece::Text(t) | Piece::Backed { text: t, .. } => {
                    ui.label(t.as_str());
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
