//! `spatial-query-lab lesson [NAME|FILE]`: a lesson run headless through
//! the measurement engine (each step on a fresh simulation, as `bench`,
//! the steps in interleaved rounds), then each step's text with this
//! machine's numbers, the lesson's table and, with `--chart`, its chart.

use std::io::Write;
use std::process::ExitCode;

use spatial_query_lab::measure::machine::Machine;
use spatial_query_lab::teaching::lesson::run::measure_all;
use spatial_query_lab::teaching::lesson::text::plain;
use spatial_query_lab::teaching::lesson::{bundled, export, Lesson, LessonOptions, LessonRun};

use super::{LessonArgs, TableFormat};
use spatial_query_lab::platform::stdout as output;
use spatial_query_lab::try_print;

/// Runs `lesson` with the flags `a`; returns the exit code (2 for a lesson
/// that cannot be found or read, with one line saying why).
pub(crate) fn run(a: LessonArgs) -> ExitCode {
    let Some(which) = &a.lesson else {
        return print_bundled();
    };
    let lesson = match open(which, a.chart.as_deref()) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let machine = Machine::current();
    let mut run = start(lesson, &a, machine);
    print_questions(&run);
    measure_with_progress(&mut run);
    if let Err(code) = print_steps(&run, a.format == TableFormat::Md, a.notes, machine) {
        return code;
    }
    // The table comes first: a chart that fails to write loses no numbers.
    let code = print_table(&run, a.format, machine);
    match &a.chart {
        Some(path) if code == ExitCode::SUCCESS => write_lesson_chart(&run, machine, &a, path)
            .err()
            .unwrap_or(code),
        _ => code,
    }
}

/// Prints the bundled lessons in teaching order, one line each, and how to
/// run a lesson file of one's own.
fn print_bundled() -> ExitCode {
    let mut list =
        String::from("Bundled lessons (spatial-query-lab lesson NAME), in teaching order:\n");
    for l in bundled::all().unwrap_or_default() {
        list.push_str(&format!("  {:<13} {}\n", l.name, l.title));
    }
    list.push_str("A lesson file of your own: spatial-query-lab lesson FILE.toml (copy one from assets/lessons/).\n");
    try_print!(output::print(&list));
    ExitCode::SUCCESS
}

/// The lesson `which` names (bundled or a file), once the `--chart` path,
/// if any, is one that can be written.
///
/// # Errors
/// Exit status 2 after one line on stderr saying why.
fn open(which: &str, chart: Option<&std::path::Path>) -> Result<Lesson, ExitCode> {
    let lesson = match bundled::resolve(which) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: lesson: {e}");
            return Err(ExitCode::from(2));
        }
    };
    // A chart file that cannot be written is said before minutes of measuring.
    if let Some(path) = chart {
        if let Err(e) = chart_path_ok(path) {
            eprintln!("error: lesson: --chart {e}");
            return Err(ExitCode::from(2));
        }
    }
    Ok(lesson)
}

/// The run of `lesson` with the flags' caps, after saying on stderr the
/// machine, the unit choice (if capped) and the plan: steps, rounds and
/// counted frames.
fn start(lesson: Lesson, a: &LessonArgs, machine: &Machine) -> LessonRun {
    let _ = writeln!(std::io::stderr(), "lesson: machine: {}", machine.summary());
    let options = LessonOptions {
        max_units: a.max_units,
        frames: a.frames,
        rounds: a.rounds,
    };
    let run = LessonRun::new(lesson, options);
    if let Some(c) = run.unit_choice() {
        let _ = writeln!(std::io::stderr(), "lesson: {}", c.why);
    }
    let ws_steps = (0..run.len()).filter(|&k| run.span(k).is_some()).count();
    let ws_counts = run.plan_entries().len() - run.row_steps().len();
    let cell_sweeps = (0..run.len()).filter(|&k| run.step(k).sweep).count();
    let _ = writeln!(
        std::io::stderr(),
        "lesson: {} step(s) in {} interleaved round(s) of {} counted frame(s) each, every visit on a fresh simulation{}{}",
        run.len(),
        run.rounds(),
        run.spec().frames,
        if ws_steps > 0 {
            format!("; the {ws_steps} working-set sweep step(s) are {ws_counts} unit counts in those rounds")
        } else {
            String::new()
        },
        if cell_sweeps > 0 {
            "; each cell-size sweep step after them, its 13 cell sizes in interleaved rounds of its own"
        } else {
            ""
        }
    );
    run
}

/// Prints each prediction step's question on stderr before the
/// measurement (a class can answer while it runs; the answers follow with
/// the steps' texts).
fn print_questions(run: &LessonRun) {
    for k in 0..run.len() {
        let Some(p) = &run.step(k).predict else {
            continue;
        };
        let choices: Vec<String> = p.choices.iter().map(|&c| p.guess_text(c)).collect();
        let _ = writeln!(
            std::io::stderr(),
            "lesson: predict (step {} of {}, {}): {}{}",
            k + 1,
            run.len(),
            run.step(k).title,
            p.question,
            if choices.is_empty() {
                String::new()
            } else {
                format!(" [{}]", choices.join(" / "))
            }
        );
    }
}

/// Measures every step of `run`, with one progress line (percent done and
/// what is measured) on stderr per visit.
fn measure_with_progress(run: &mut LessonRun) {
    let mut last = None;
    measure_all(run, |done, now| {
        // One line per visit, not per frame.
        if now != last {
            if let Some(what) = &now {
                let _ = writeln!(std::io::stderr(), "  {:3.0}% {what}", done * 100.0);
            }
            last = now;
        }
    });
}

/// Prints each step's text (as Markdown after the head on stdout when `md`,
/// else plain on stderr), with its presenter notes when `notes`, and a line
/// on stderr saying whether it was measured.
///
/// # Errors
/// The exit status of a failed write (see [`output::print`]).
fn print_steps(run: &LessonRun, md: bool, notes: bool, machine: &Machine) -> Result<(), ExitCode> {
    if md {
        output::print(&export::markdown_head(run, machine)).map_err(ExitCode::from)?;
    }
    for k in 0..run.len() {
        let step = run.step(k);
        if md {
            output::print(&export::markdown_step(run, k)).map_err(ExitCode::from)?;
            if notes {
                output::print(&export::markdown_notes(run, k)).map_err(ExitCode::from)?;
            }
        } else {
            if let (Some(p), Some(answer)) = (&step.predict, run.answer(k)) {
                let _ = writeln!(std::io::stderr(), "    Predict: {}", p.question);
                let _ = writeln!(std::io::stderr(), "    Answer: {}", p.reveal(None, &answer));
            }
            let _ = writeln!(std::io::stderr(), "    {}", plain(&run.text(k)));
            if notes && !step.notes.trim().is_empty() {
                let lines: Vec<&str> = step.notes.trim().lines().collect();
                let _ = writeln!(
                    std::io::stderr(),
                    "    Notes: {}",
                    lines.join("\n           ")
                );
            }
        }
        let _ = writeln!(
            std::io::stderr(),
            "  step {}/{} {}: {}",
            k + 1,
            run.len(),
            step.id,
            run.skipped(k)
                .map_or_else(|| "measured".to_string(), |w| format!("not measured: {w}"))
        );
    }
    Ok(())
}

/// Writes the lesson's chart to `path` at the flags' scale and says so on
/// stderr.
///
/// # Errors
/// Exit status 1 after one line on stderr when the file cannot be written.
fn write_lesson_chart(
    run: &LessonRun,
    machine: &Machine,
    a: &LessonArgs,
    path: &std::path::Path,
) -> Result<(), ExitCode> {
    let chart = run.chart(machine, a.chart_scale.into());
    match write_chart(&chart, path) {
        Ok(()) => {
            let _ = writeln!(
                std::io::stderr(),
                "lesson: chart written to {}",
                path.display()
            );
            Ok(())
        }
        Err(e) => {
            eprintln!("error: lesson: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// Prints the lesson's table in `format` (the Markdown tail, CSV after the
/// conclusion on stderr, or JSON); exit status 1 when the JSON cannot be
/// made.
fn print_table(run: &LessonRun, format: TableFormat, machine: &Machine) -> ExitCode {
    match format {
        TableFormat::Md => try_print!(output::print(&export::markdown_tail(run, machine))),
        TableFormat::Csv => {
            let _ = writeln!(std::io::stderr(), "    {}", plain(&run.conclusion()));
            try_print!(output::print(&export::to_csv(run)));
        }
        TableFormat::Json => match export::to_json(run) {
            Ok(j) => try_print!(output::println(&j)),
            Err(e) => {
                eprintln!("error: lesson: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}

/// Checks that `path` names an SVG or PNG file (not a folder) in a folder
/// that exists.
fn chart_path_ok(path: &std::path::Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{}: is a folder, not a file", path.display()));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("svg" | "png")) {
        return Err(format!(
            "{}: the chart is written as FILE.svg or FILE.png",
            path.display()
        ));
    }
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(format!(
            "{}: the folder {} does not exist",
            path.display(),
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// Writes `chart` to `path` ([`spatial_query_lab::teaching::chart::write`]); the
/// browser build has no files.
fn write_chart(
    chart: &spatial_query_lab::teaching::chart::Chart,
    path: &std::path::Path,
) -> Result<(), String> {
    #[cfg(not(target_arch = "wasm32"))]
    return spatial_query_lab::teaching::chart::write(chart, path);
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (chart, path);
        Err("charts are not written in this build".to_string())
    }
}
