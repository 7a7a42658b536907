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
//! ([`crate::schema`]) or its names and reports the first problem as a
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

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::named::Named;
use crate::schema::Ranged;
use crate::sim::{Layout, Pass, Reorder, Settings, Workload};
use crate::spatial::{Kernel, Strategy};
use crate::view::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout};

/// Most units a scenario (and the command line) may ask for.
pub use crate::schema::MAX_UNITS;
/// Largest file [`Scenario::load`] reads, bytes: a scenario is a few lines.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// A validated scenario: every value within [`crate::schema`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scenario {
    /// Short name (the file's stem when the file has no `name`).
    pub name: String,
    /// One line for the overlay (empty when the file has none).
    pub description: String,
    /// Unit count.
    pub units: Option<usize>,
    /// Initial positions.
    pub workload: Option<Workload>,
    /// Spawn seed (TOML integers are signed 64-bit: 0 to `i64::MAX`).
    pub seed: Option<u64>,
    /// World edge L, world units (`None`: the standard density for the count).
    pub world: Option<f32>,
    /// Query radius, world units.
    pub radius: Option<f32>,
    /// Grid cell edge, world units (`None`: equal to the radius, and following it).
    pub cell_size: Option<f32>,
    /// Simulated seconds per real second.
    pub speed: Option<f32>,
    /// Separation steering strength.
    pub separation: Option<f32>,
    /// Spatial strategy.
    pub strategy: Option<Strategy>,
    /// Threads for the frame.
    pub threads: Option<usize>,
    /// Distance-test kernel as the file names it (`best` already resolved
    /// to this CPU's widest); it may be one this CPU cannot run: the window
    /// then runs Scalar ([`Scenario::apply`], [`Scenario::kernel_note`]),
    /// `bench` reports its rows as skipped.
    pub kernel: Option<Kernel>,
    /// How the units are stored.
    pub layout: Option<Layout>,
    /// Memory order of the units (the file's `reorder`).
    pub reorder: Option<Reorder>,
    /// Frames between reorders.
    pub reorder_every: Option<u32>,
    /// How query results reach the steering.
    pub pass: Option<Pass>,
    /// Units stay where they are (the index and queries still run).
    pub paused: Option<bool>,
    /// The window's view values; the engine ignores them.
    pub view: ScenarioView,
}

/// The window's view values a scenario may set, each `None` when the file
/// does not (the window keeps its current one). Plain values: the window
/// applies them to its view options; the engine and `bench` ignore them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScenarioView {
    /// How units are colored (`color`, as `--color`).
    pub color: Option<ColorMode>,
    /// Vertex layout of the units (`vertex_layout`, as `--vertex-layout`).
    pub vertex_layout: Option<VertexLayout>,
    /// Bits per component of the compressed normals (`normal_bits`: 16 or
    /// 8, as `--normal-bits`).
    pub normal_bits: Option<NormalPrecision>,
    /// The unit mesh (`mesh`, as `--mesh`).
    pub mesh: Option<UnitMeshKind>,
    /// Cell occupancy heat map on the ground (`heatmap`, as `--heatmap`).
    pub heatmap: Option<bool>,
}

/// Why a scenario could not be read: the file, the 1-based line (when the
/// problem has a place), the field (when one is at fault) and what is wrong.
/// `Display` gives the one-line message: `FILE:LINE: FIELD: MESSAGE`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line of the problem, if it has one.
    pub line: Option<usize>,
    /// The field at fault, if one is.
    pub field: Option<String>,
    /// What is wrong, and the allowed values.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// The fields of a scenario as TOML gives them, every value with its place
/// in the text (also a lesson's `settings` tables, `crate::lesson::file`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) units: Option<Spanned<i64>>,
    pub(crate) workload: Option<Spanned<String>>,
    pub(crate) seed: Option<Spanned<i64>>,
    pub(crate) world: Option<Spanned<f64>>,
    pub(crate) radius: Option<Spanned<f64>>,
    pub(crate) cell_size: Option<Spanned<f64>>,
    pub(crate) speed: Option<Spanned<f64>>,
    pub(crate) separation: Option<Spanned<f64>>,
    pub(crate) strategy: Option<Spanned<String>>,
    pub(crate) threads: Option<Spanned<i64>>,
    pub(crate) kernel: Option<Spanned<String>>,
    pub(crate) layout: Option<Spanned<String>>,
    pub(crate) reorder: Option<Spanned<String>>,
    pub(crate) reorder_every: Option<Spanned<i64>>,
    pub(crate) pass: Option<Spanned<String>>,
    pub(crate) paused: Option<Spanned<bool>>,
    pub(crate) color: Option<Spanned<String>>,
    pub(crate) vertex_layout: Option<Spanned<String>>,
    pub(crate) normal_bits: Option<Spanned<i64>>,
    pub(crate) mesh: Option<Spanned<String>>,
    pub(crate) heatmap: Option<Spanned<bool>>,
}

/// 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

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

/// Every field a scenario file may have.
pub const FIELDS: [&str; 23] = [
    "name",
    "description",
    "units",
    "workload",
    "seed",
    "world",
    "radius",
    "cell_size",
    "speed",
    "separation",
    "strategy",
    "threads",
    "kernel",
    "layout",
    "reorder",
    "reorder_every",
    "pass",
    "paused",
    "color",
    "vertex_layout",
    "normal_bits",
    "mesh",
    "heatmap",
];

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
/// value.
fn expected(name: &str) -> String {
    match name {
        "name" | "description" => "text in quotes".to_string(),
        "workload" => Workload::one_of(None),
        "strategy" => Strategy::one_of(None),
        "kernel" => Kernel::one_of(Some("best")),
        "layout" => Layout::one_of(None),
        "reorder" => Reorder::one_of(None),
        "pass" => Pass::one_of(None),
        "color" => ColorMode::one_of(None),
        "vertex_layout" => VertexLayout::one_of(None),
        "mesh" => UnitMeshKind::one_of(None),
        "normal_bits" => "16 or 8".to_string(),
        "paused" | "heatmap" => "true or false".to_string(),
        _ => Ranged::by_key(name).map_or_else(String::new, |r| r.expected()),
    }
}

/// The value of the named field `field` (`workload`, `strategy`, ...) read
/// with `parse`; an unknown name is an error listing the known ones.
fn named<T>(
    field: &str,
    v: &Option<Spanned<String>>,
    parse: impl Fn(&str) -> Option<T>,
    error: &impl Fn(Option<Range<usize>>, Option<String>, String) -> ScenarioError,
) -> Result<Option<T>, ScenarioError> {
    let Some(v) = v else { return Ok(None) };
    parse(v.get_ref()).map(Some).ok_or_else(|| {
        error(
            Some(v.span()),
            Some(field.to_string()),
            format!("must be {}, got \"{}\"", expected(field), v.get_ref()),
        )
    })
}

/// The smallest and largest value of numeric field `name` ([`crate::schema`]).
fn limits(name: &str) -> (f64, f64) {
    Ranged::by_key(name).map_or((0.0, 0.0), |r| (r.min, r.max))
}

/// The range and unit of numeric field `name` as text: `1 to 1000000 units`.
fn range_text(name: &str) -> String {
    Ranged::by_key(name).map_or_else(String::new, |r| r.range_text())
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

/// The one-line error of `file` (whose text is `text`) at byte range
/// `span`: its line, the field, and `message` with its white space
/// collapsed (a quoted key or a value may hold newlines).
pub(crate) fn one_line_error(
    text: &str,
    file: &str,
    span: Option<Range<usize>>,
    field: Option<String>,
    message: String,
) -> ScenarioError {
    ScenarioError {
        file: file.to_string(),
        line: span.map(|s| line_of(text, s.start)),
        field: field.map(|f| f.split_whitespace().collect::<Vec<_>>().join(" ")),
        message: message.split_whitespace().collect::<Vec<_>>().join(" "),
    }
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
    /// range ([`crate::schema`]), with the line and the allowed values.
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
        let error = |span: Option<Range<usize>>, field: Option<String>, message: String| {
            one_line_error(text, file, span, field, message)
        };
        let out_of_range = |name: &str, span: Range<usize>, got: String| {
            error(
                Some(span),
                Some(name.to_string()),
                format!("must be {}, got {got}", range_text(name)),
            )
        };
        let int = |name: &str, v: &Option<Spanned<i64>>| -> Result<Option<i64>, ScenarioError> {
            let Some(v) = v else { return Ok(None) };
            let (lo, hi) = limits(name);
            let x = *v.get_ref();
            if (x as f64) < lo || (x as f64) > hi {
                return Err(out_of_range(name, v.span(), x.to_string()));
            }
            Ok(Some(x))
        };
        let float = |name: &str, v: &Option<Spanned<f64>>| -> Result<Option<f32>, ScenarioError> {
            let Some(v) = v else { return Ok(None) };
            let (lo, hi) = limits(name);
            let x = *v.get_ref();
            if !(x.is_finite() && x >= lo && x <= hi) {
                return Err(out_of_range(name, v.span(), x.to_string()));
            }
            Ok(Some(x as f32))
        };
        let text_field = |v: &Option<Spanned<String>>| v.as_ref().map(|s| s.get_ref().clone());
        let flag = |v: &Option<Spanned<bool>>| v.as_ref().map(|b| *b.get_ref());
        let workload = named("workload", &raw.workload, Workload::from_key, &error)?;
        let strategy = named("strategy", &raw.strategy, Strategy::from_key, &error)?;
        let kernel = named("kernel", &raw.kernel, Kernel::from_key_or_best, &error)?;
        let layout = named("layout", &raw.layout, Layout::from_key, &error)?;
        let reorder = named("reorder", &raw.reorder, Reorder::from_key, &error)?;
        let pass = named("pass", &raw.pass, Pass::from_key, &error)?;
        let color = named("color", &raw.color, ColorMode::from_key, &error)?;
        let vertex_layout = named(
            "vertex_layout",
            &raw.vertex_layout,
            VertexLayout::from_key,
            &error,
        )?;
        let mesh = named("mesh", &raw.mesh, UnitMeshKind::from_key, &error)?;
        let normal_bits = match &raw.normal_bits {
            None => None,
            Some(v) => Some(NormalPrecision::from_bits(*v.get_ref()).ok_or_else(|| {
                error(
                    Some(v.span()),
                    Some("normal_bits".to_string()),
                    format!("must be {}, got {}", expected("normal_bits"), v.get_ref()),
                )
            })?),
        };
        Ok(Scenario {
            name: text_field(&raw.name)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| stem.to_string()),
            description: text_field(&raw.description).unwrap_or_default(),
            units: int("units", &raw.units)?.map(|v| v as usize),
            workload,
            seed: int("seed", &raw.seed)?.map(|v| v as u64),
            world: float("world", &raw.world)?,
            radius: float("radius", &raw.radius)?,
            cell_size: float("cell_size", &raw.cell_size)?,
            speed: float("speed", &raw.speed)?,
            separation: float("separation", &raw.separation)?,
            strategy,
            threads: int("threads", &raw.threads)?.map(|v| v as usize),
            kernel,
            layout,
            reorder,
            reorder_every: int("reorder_every", &raw.reorder_every)?.map(|v| v as u32),
            pass,
            paused: flag(&raw.paused),
            view: ScenarioView {
                color,
                vertex_layout,
                normal_bits,
                mesh,
                heatmap: flag(&raw.heatmap),
            },
        })
    }

    /// Writes the scenario's engine values into `s`, keeping the others
    /// (the view values are the window's, [`Scenario::view`]). The world
    /// becomes the scenario's (or the standard density's when it names
    /// none), and the cell size follows the radius unless the scenario
    /// names one. A kernel this CPU cannot run becomes Scalar, as
    /// `--kernel` does in the window ([`Scenario::kernel_note`] says so).
    /// Allocates nothing.
    pub fn apply(&self, s: &mut Settings) {
        if let Some(v) = self.units {
            s.units = v;
        }
        if let Some(v) = self.workload {
            s.workload = v;
        }
        if let Some(v) = self.seed {
            s.seed = v;
        }
        s.world = self.world;
        if let Some(v) = self.radius {
            s.radius = v;
        }
        s.cell_follows_radius = self.cell_size.is_none();
        s.cell_size = self.cell_size.unwrap_or(s.radius);
        if let Some(v) = self.speed {
            s.speed = v;
        }
        if let Some(v) = self.separation {
            s.separation = v;
        }
        if let Some(v) = self.strategy {
            s.strategy = v;
        }
        if let Some(v) = self.threads {
            s.threads = v;
        }
        if let Some(v) = self.kernel {
            s.kernel = v.or_scalar();
        }
        if let Some(v) = self.layout {
            s.layout = v;
        }
        if let Some(v) = self.reorder {
            s.reorder = v;
        }
        if let Some(v) = self.reorder_every {
            s.reorder_every = v;
        }
        if let Some(v) = self.pass {
            s.pass = v;
        }
        if let Some(v) = self.paused {
            s.paused = v;
        }
    }

    /// This scenario with every value `over` names put over its own (name
    /// and description too, when `over` has them): a lesson step's settings
    /// over the lesson's. Allocates the strings.
    pub fn overlay(&self, over: &Scenario) -> Scenario {
        Scenario {
            name: if over.name.is_empty() {
                self.name.clone()
            } else {
                over.name.clone()
            },
            description: if over.description.is_empty() {
                self.description.clone()
            } else {
                over.description.clone()
            },
            units: over.units.or(self.units),
            workload: over.workload.or(self.workload),
            seed: over.seed.or(self.seed),
            world: over.world.or(self.world),
            radius: over.radius.or(self.radius),
            cell_size: over.cell_size.or(self.cell_size),
            speed: over.speed.or(self.speed),
            separation: over.separation.or(self.separation),
            strategy: over.strategy.or(self.strategy),
            threads: over.threads.or(self.threads),
            kernel: over.kernel.or(self.kernel),
            layout: over.layout.or(self.layout),
            reorder: over.reorder.or(self.reorder),
            reorder_every: over.reorder_every.or(self.reorder_every),
            pass: over.pass.or(self.pass),
            paused: over.paused.or(self.paused),
            view: ScenarioView {
                color: over.view.color.or(self.view.color),
                vertex_layout: over.view.vertex_layout.or(self.view.vertex_layout),
                normal_bits: over.view.normal_bits.or(self.view.normal_bits),
                mesh: over.view.mesh.or(self.view.mesh),
                heatmap: over.view.heatmap.or(self.view.heatmap),
            },
        }
    }

    /// `this CPU cannot run AVX-512; using Scalar` when the scenario names a
    /// kernel this CPU or build lacks ([`Kernel::absent_reason`], the words
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
