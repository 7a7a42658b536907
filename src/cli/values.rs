//! Validation of every flag's value: one-line messages naming the allowed
//! range, for clap's `value_parser`.

use spatial_query_lab::engine::spatial::{validate_cell_size, validate_radius, Kernel};
use spatial_query_lab::named::Named;
use spatial_query_lab::settings::schema;
use spatial_query_lab::settings::view::Geometry;
use spatial_query_lab::settings::view::NormalPrecision;
#[cfg(feature = "window")]
use spatial_query_lab::window::ui::UI_SCALE_RANGE;

pub(crate) fn parse_count(s: &str, max: u64, what: &str) -> Result<u64, String> {
    let v: i128 = s
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("expected a whole number of {what}"))?;
    if v < 1 || v > max as i128 {
        return Err(format!(
            "must be 1 to {}",
            spatial_query_lab::format::thousands(max)
        ));
    }
    Ok(v as u64)
}

/// `WIDTHxHEIGHT` in pixels, each 1 to 32767 (X11's largest window edge).
pub(crate) fn parse_window_size(s: &str) -> Result<(i32, i32), String> {
    let err =
        || format!("expected WIDTHxHEIGHT in pixels, each 1 to 32767, e.g. 1920x1080 (got {s})");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(err)?;
    let edge = |v: &str| {
        v.trim()
            .parse::<i32>()
            .ok()
            .filter(|v| (1..=32767).contains(v))
    };
    Ok((edge(w).ok_or_else(err)?, edge(h).ok_or_else(err)?))
}

/// The overlay's scale, a number from [`UI_SCALE_RANGE`]'s low to high end.
#[cfg(feature = "window")]
pub(crate) fn parse_ui_scale(s: &str) -> Result<f32, String> {
    let (lo, hi) = UI_SCALE_RANGE;
    match s.trim().parse::<f32>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected a number from {lo} to {hi}, e.g. 1.5 (got {s})"
        )),
    }
}

/// The overlay's scale in a build without the window (the overlay and its
/// range are window code): any number; the window mode refuses to start.
#[cfg(not(feature = "window"))]
pub(crate) fn parse_ui_scale(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .map_err(|_| format!("expected a number, e.g. 1.5 (got {s})"))
}

pub(crate) fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| "expected a whole number from 0 to 18446744073709551615".to_string())
}

pub(crate) fn parse_warmup(s: &str) -> Result<u64, String> {
    match s.trim().replace('_', "").parse::<u64>() {
        Ok(v) if v <= 1_000_000 => Ok(v),
        _ => Err("expected a whole number of frames from 0 to 1000000".to_string()),
    }
}

pub(crate) fn parse_units(s: &str) -> Result<usize, String> {
    schema::UNITS.parse_count(s).map(|v| v as usize)
}

pub(crate) fn parse_frames(s: &str) -> Result<u64, String> {
    parse_count(s, 1_000_000_000, "frames")
}

pub(crate) fn parse_threads(s: &str) -> Result<usize, String> {
    schema::THREADS.parse_count(s).map(|v| v as usize)
}

pub(crate) fn parse_float(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .map_err(|_| "expected a number".to_string())
}

pub(crate) fn parse_radius(s: &str) -> Result<f32, String> {
    validate_radius(parse_float(s)?)
}

pub(crate) fn parse_world(s: &str) -> Result<f32, String> {
    schema::WORLD.parse_number(s)
}

pub(crate) fn parse_speed(s: &str) -> Result<f32, String> {
    schema::SPEED.parse_number(s)
}

/// A lesson step, 1-based (one past the last step is the summary page;
/// the lesson's own count is checked when it is loaded).
pub(crate) fn parse_step(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=spatial_query_lab::teaching::lesson::file::MAX_STEPS + 1).contains(&n) => Ok(n),
        // The lesson's own count is checked once it is loaded.
        _ => Err(format!(
            "must be a step number: 1 for the first step (a lesson has at most {} steps and its summary), got \"{s}\"",
            spatial_query_lab::teaching::lesson::file::MAX_STEPS
        )),
    }
}

pub(crate) fn parse_separation(s: &str) -> Result<f32, String> {
    schema::SEPARATION.parse_number(s)
}

pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("must be a finite number of seconds > 0, got {v}")),
        Err(_) => Err("expected a number".to_string()),
    }
}

pub(crate) fn parse_cell(s: &str) -> Result<f32, String> {
    validate_cell_size(parse_float(s)?)
}

/// A kernel by name, or `best`: the widest this CPU runs
/// ([`Kernel::from_key_or_best`], as a scenario file's `kernel`).
pub(crate) fn parse_kernel(s: &str) -> Result<Kernel, String> {
    Kernel::from_key_or_best(s)
        .ok_or_else(|| format!("expected {}", Kernel::keys_text(Some("best"))))
}

/// A value of a named set by key or name ([`Named::parse`]); the error
/// lists the keys: `expected naive, grid or sorted-grid`.
pub(crate) fn parse_named<T: Named>(s: &str) -> Result<T, String> {
    T::parse(s).ok_or_else(|| format!("expected {}", T::keys_text(None)))
}

/// A cache model geometry or none: `machine`, `classroom` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CacheModelChoice(pub(crate) Option<Geometry>);

pub(crate) fn parse_cache_model(s: &str) -> Result<CacheModelChoice, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(CacheModelChoice(None));
    }
    Geometry::parse(s)
        .map(|g| CacheModelChoice(Some(g)))
        .ok_or_else(|| "expected machine, classroom or off".to_string())
}

pub(crate) fn parse_normal_bits(s: &str) -> Result<NormalPrecision, String> {
    s.trim()
        .parse()
        .ok()
        .and_then(NormalPrecision::from_bits)
        .ok_or_else(|| "expected 16 or 8".to_string())
}

pub(crate) fn parse_render_frames(s: &str) -> Result<u32, String> {
    parse_count(s, 10_000, "frames").map(|v| v as u32)
}

pub(crate) fn parse_render_warmup(s: &str) -> Result<u32, String> {
    match s.trim().replace('_', "").parse::<u32>() {
        Ok(v) if v <= 1_000 => Ok(v),
        _ => Err("expected a whole number of frames from 0 to 1000".to_string()),
    }
}

pub(crate) fn parse_reorder_every(s: &str) -> Result<u32, String> {
    schema::REORDER_EVERY.parse_count(s).map(|v| v as u32)
}

/// Counted frames of a lesson step: 1 to 1,000.
pub(crate) fn parse_lesson_frames(s: &str) -> Result<usize, String> {
    parse_count(s, 1_000, "frames").map(|v| v as usize)
}

/// Rounds of a measurement (`--rounds`): 1 to 50.
pub(crate) fn parse_rounds(s: &str) -> Result<usize, String> {
    parse_count(s, 50, "rounds").map(|v| v as usize)
}
