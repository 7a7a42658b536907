//! Scenario files: presets of the engine's settings as TOML (`assets/scenarios/`).
//!
//! A scenario names the units (count, workload, seed, world), the query
//! (radius, cell size), the motion (speed, separation, paused), the engine
//! (strategy, kernel, threads, layout, unit order and its period, pass)
//! and the window's view (color mode, vertex layout, normal bits, unit
//! mesh, heat map): every setting the overlay has, under the names and
//! spellings of the command-line flags (`reorder_every` for
//! `--reorder-every`). Every field is optional; a missing one keeps the
//! current value. [`Scenario::parse`] checks every field against its range
//! ([`crate::settings::rows`]) or its names and reports the first problem as a
//! [`ScenarioError`] naming the file, the line, the field and the allowed
//! values. The window and `bench` load a scenario with `--scenario FILE`;
//! flags given next to it override its values.
//!
//! ```toml
//! name = "battle"
//! description = "Two teams closing on each other"
//! workload = "battle"
//! units = 20000
//! seed = 42
//! radius = 10.0
//! ```

pub mod bundled;
mod fields;

pub use crate::settings::file_error::ScenarioError;
pub(crate) use crate::settings::file_error::{line_of, one_line_error};
use crate::settings::kind::Source;
pub(crate) use fields::Raw;
pub use fields::{Given, Scenario, ScenarioView, FIELDS};

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::engine::sim::Settings;

/// Most units a scenario (and the command line) may ask for.
pub use crate::settings::rows::MAX_UNITS;
/// Largest file [`Scenario::load`] reads, bytes: a scenario is a few lines.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The field a serde message names (`unknown field `x``, `missing field `x``).
fn field_in(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_string())
}

/// A value's text for a one-line message: its first line, at most 40
/// characters (then `...`).
fn short(v: &str) -> String {
    let first = v.trim().lines().next().unwrap_or("");
    match first.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &first[..i]),
        None if first.len() < v.trim().len() => format!("{first}..."),
        None => first.to_string(),
    }
}

/// The key whose value holds byte `at` of `text`: the key before the last
/// `=` ahead of `at` on its line (after any `{` or `,` of an inline table),
/// or the line's own key (the table header `[key]`, or a duplicate key's
/// place) when the line has no `=` before `at`.
fn key_text(text: &str, at: usize) -> Option<&str> {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[start..at];
    let key = match before.rfind('=') {
        Some(eq) => {
            let head = &before[..eq];
            let from = head.rfind(['{', ',']).map_or(0, |i| i + 1);
            &head[from..]
        }
        None => {
            let line = &text[start..];
            let line = &line[..line.find('\n').unwrap_or(line.len())];
            line.split('=').next()?
        }
    };
    let key = key.trim().trim_matches(['[', ']']).trim();
    Some(key.trim_matches('"'))
}

/// What field `name` takes, as text: its range, its names, or its kind of
/// value ([`fields`]).
pub(crate) fn expected(name: &str) -> String {
    fields::field_expected(name).unwrap_or_default()
}

/// The text of the TOML file at `path` and its stem, read whole: at most
/// `max_bytes` (`what` names the kind of file in that message).
///
/// # Errors
/// One line naming the file: it cannot be read, is not a file, is larger
/// than `max_bytes`, or is not UTF-8.
pub(crate) fn read_toml_file(
    path: &Path,
    max_bytes: u64,
    what: &str,
) -> Result<(String, String), ScenarioError> {
    let file = path.display().to_string();
    let fail = |message: String| one_line_error("", &file, None, None, message);
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(fail("not a file".to_string()));
    }
    if meta.len() > max_bytes {
        return Err(fail(format!(
            "{} bytes; {what} is at most {max_bytes} bytes",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((text, stem))
}

/// The one-line error of a TOML syntax or type error `e` in `text` (the
/// file named `file`): an unknown or missing field named as such, a value of
/// the wrong type as "must be EXPECTED, got VALUE" for a scenario field or
/// one of `extra` (field, what it takes: a lesson's own fields), else toml's
/// own words with the line.
pub(crate) fn de_error(
    e: &toml::de::Error,
    text: &str,
    file: &str,
    extra: &[(&'static str, &'static str)],
) -> ScenarioError {
    let error = |span: Option<Range<usize>>, field: Option<String>, message: String| {
        one_line_error(text, file, span, field, message)
    };
    let message = e.message().trim().to_string();
    let span = e.span();
    if message.starts_with("unknown field") || message.starts_with("missing field") {
        return error(span, field_in(&message), message);
    }
    // A value of the wrong type (or out of TOML's own range): say which
    // field and what it takes, not the deserializer's words.
    let wrong_value = message.starts_with("invalid type")
        || message.starts_with("invalid value")
        || message.contains("overflow");
    let key = span.as_ref().and_then(|s| {
        let k = key_text(text, s.start)?;
        FIELDS
            .iter()
            .find(|f| **f == k)
            .map(|f| (*f, expected(f)))
            .or_else(|| {
                extra
                    .iter()
                    .find(|(f, _)| *f == k)
                    .map(|(f, x)| (*f, x.to_string()))
            })
    });
    match key {
        Some((key, takes)) if wrong_value => {
            let got = span
                .as_ref()
                .and_then(|s| text.get(s.clone()))
                .map(short)
                .unwrap_or_default();
            error(
                span,
                Some(key.to_string()),
                format!("must be {takes}, got {got}"),
            )
        }
        // Syntax (a duplicate key, a missing value): toml's words.
        key => error(span, key.map(|k| k.0.to_string()), message),
    }
}

impl Scenario {
    /// Reads and validates the scenario at `path` ([`Scenario::parse`]).
    /// Reads at most [`MAX_FILE_BYTES`].
    ///
    /// # Errors
    /// A [`ScenarioError`] when the file cannot be read (missing, a folder,
    /// too large, not UTF-8) or does not parse or validate.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let (text, stem) = read_toml_file(path, MAX_FILE_BYTES, "a scenario file")?;
        Scenario::parse(&text, &path.display().to_string(), &stem)
    }

    /// Parses and validates the TOML `text` of the file named `file` (used
    /// only in messages); `stem` is the name when the text has none.
    /// Unknown fields are errors (a typo must not be ignored silently).
    /// Allocates the strings. Never panics.
    ///
    /// # Errors
    /// The first problem as a [`ScenarioError`]: a TOML syntax error, an
    /// unknown field, a value of the wrong type, or a value outside its
    /// range ([`crate::settings::rows`]), with the line and the allowed values.
    pub fn parse(text: &str, file: &str, stem: &str) -> Result<Scenario, ScenarioError> {
        let raw: Raw = toml::from_str(text).map_err(|e| de_error(&e, text, file, &[]))?;
        Scenario::from_raw(raw, text, file, stem)
    }

    /// Validates `raw`, read from `text` (the whole file named `file`; spans
    /// index it), into a scenario named `stem` when it has no name.
    ///
    /// # Errors
    /// A value outside its range or names, as [`Scenario::parse`].
    pub(crate) fn from_raw(
        raw: Raw,
        text: &str,
        file: &str,
        stem: &str,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::read_fields(&raw, &Source { text, file }, stem)
    }

    /// Writes the scenario's engine values into `s`, keeping the others
    /// (the view values are the window's, [`Scenario::view`]). The world
    /// becomes the scenario's (or the standard density's when it names
    /// none), and the cell size follows the radius unless the scenario
    /// names one. A kernel this CPU cannot run becomes Scalar, as
    /// `--kernel` does in the window ([`Scenario::kernel_note`] says so).
    /// Allocates nothing.
    pub fn apply(&self, s: &mut Settings) {
        self.apply_set(s);
        s.world = self.world;
        s.cell_follows_radius = self.cell_size.is_none();
        s.cell_size = self.cell_size.unwrap_or(s.radius);
        if let Some(v) = self.kernel {
            s.kernel = v.or_scalar();
        }
    }

    /// Writes only the values this scenario names into `s` (flags over a
    /// lesson step's settings): a cell size stops following the radius; a
    /// radius alone moves a following cell with it; a kernel this CPU
    /// lacks becomes Scalar, as in [`Scenario::apply`].
    pub fn apply_named(&self, s: &mut Settings) {
        self.apply_set(s);
        if self.world.is_some() {
            s.world = self.world;
        }
        if let Some(c) = self.cell_size {
            s.cell_size = c;
            s.cell_follows_radius = false;
        } else if s.cell_follows_radius {
            s.cell_size = s.radius;
        }
        if let Some(v) = self.kernel {
            s.kernel = v.or_scalar();
        }
    }

    /// `this CPU cannot run AVX-512; using Scalar` when the scenario names a
    /// kernel this CPU or build lacks ([`crate::engine::spatial::Kernel::absent_reason`], the words
    /// of `--kernel`'s note), else `None`.
    pub fn kernel_note(&self) -> Option<String> {
        let k = self.kernel?;
        Some(format!(
            "{}; using {}",
            k.absent_reason()?,
            k.or_scalar().name()
        ))
    }
}

/// Loads the scenario at `path` ([`Scenario::load`]) and applies it to
/// `settings` ([`Scenario::apply`]). On error `settings` is left exactly as
/// it was, so a running scenario keeps running.
///
/// # Errors
/// The [`ScenarioError`] of [`Scenario::load`].
pub fn load_into(path: &Path, settings: &mut Settings) -> Result<Scenario, ScenarioError> {
    let sc = Scenario::load(path)?;
    sc.apply(settings);
    Ok(sc)
}

/// The scenario files (`*.toml`) in the first of `dirs` that has a
/// `scenarios` folder, sorted by file name; empty when none has. Allocates
/// the paths.
pub fn list(dirs: &[PathBuf]) -> Vec<PathBuf> {
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(d.join("scenarios")) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        return files;
    }
    Vec::new()
}

#[cfg(test)]
mod tests;
