//! `spatial-query-lab lesson [NAME|FILE]`: a lesson run headless through
//! the measurement engine (each step on a fresh simulation, as `bench`),
//! printing each step's text with this machine's numbers as soon as the
//! step is measured, then the lesson's table.

use std::io::Write;
use std::process::ExitCode;

use spatial_query_lab::lesson::run::measure_all;
use spatial_query_lab::lesson::text::plain;
use spatial_query_lab::lesson::{bundled, export, LessonOptions, LessonRun};
use spatial_query_lab::machine::Machine;

use super::{LessonArgs, TableFormat};

/// Runs `lesson` with the flags `a`; returns the exit code (2 for a lesson
/// that cannot be found or read, with one line saying why).
pub(crate) fn run(a: LessonArgs) -> ExitCode {
    let Some(which) = a.lesson else {
        println!("Bundled lessons (spatial-query-lab lesson NAME), in teaching order:");
        for l in bundled::all().unwrap_or_default() {
            println!("  {:<13} {}", l.name, l.title);
        }
        println!("A lesson file of your own: spatial-query-lab lesson FILE.toml (copy one from assets/lessons/).");
        return ExitCode::SUCCESS;
    };
    let lesson = match bundled::resolve(&which) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: lesson: {e}");
            return ExitCode::from(2);
        }
    };
    let machine = Machine::current();
    let _ = writeln!(std::io::stderr(), "lesson: machine: {}", machine.summary());
    let options = LessonOptions {
        max_units: a.max_units,
        frames: a.frames,
        rounds: a.rounds,
    };
    let mut run = LessonRun::new(lesson, options);
    if let Some(c) = run.unit_choice() {
        let _ = writeln!(std::io::stderr(), "lesson: {}", c.why);
    }
    let _ = writeln!(
        std::io::stderr(),
        "lesson: {} step(s) in {} interleaved round(s) of {} counted frame(s) each, every visit on a fresh simulation{}",
        run.len(),
        run.rounds(),
        run.spec().frames,
        if run.row_steps().len() < run.len() {
            "; sweep steps measure 13 cell sizes the same way"
        } else {
            ""
        }
    );
    let mut last = None;
    measure_all(&mut run, |done, now| {
        // One line per visit, not per frame.
        if now != last {
            if let Some(what) = &now {
                let _ = writeln!(std::io::stderr(), "  {:3.0}% {what}", done * 100.0);
            }
            last = now;
        }
    });
    let md = a.format == TableFormat::Md;
    if md {
        print!("{}", export::markdown_head(&run, machine));
    }
    for k in 0..run.len() {
        let step = run.step(k);
        if md {
            print!("{}", export::markdown_step(&run, k));
        } else {
            let _ = writeln!(std::io::stderr(), "    {}", plain(&run.text(k)));
        }
        let _ = writeln!(
            std::io::stderr(),
            "  step {}/{} {}: {}",
            k + 1,
            run.len(),
            step.id,
            export::skipped(&run, k)
                .map_or_else(|| "measured".to_string(), |w| format!("not measured: {w}"))
        );
    }
    match a.format {
        TableFormat::Md => print!("{}", export::markdown_tail(&run, machine)),
        TableFormat::Csv => {
            let _ = writeln!(std::io::stderr(), "    {}", plain(&run.conclusion()));
            print!("{}", run.comparison().to_csv());
        }
        TableFormat::Json => match export::to_json(&run) {
            Ok(j) => println!("{j}"),
            Err(e) => {
                eprintln!("error: lesson: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}
