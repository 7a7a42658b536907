//! The command line, one binary: flags, scenario files, headless modes and
//! lessons, each run as a user would.

mod cli;
mod cli_lesson;
