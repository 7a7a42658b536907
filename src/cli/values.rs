//! Validation of every flag's value: one-line messages naming the allowed
//! range, for clap's `value_parser`.

use spatial_query_lab::named::Named;
use spatial_query_lab::settings::rows::TABLE;
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

pub(crate) fn parse_units(s: &str) -> Result<usize, String> {
    TABLE.units.parse_count(s).map(|v| v as usize)
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

/// A value of a named set by key or name ([`Named::parse`]); the error
/// lists the keys: `expected naive, grid or sorted-grid`.
pub(crate) fn parse_named<T: Named>(s: &str) -> Result<T, String> {
    T::parse(s).ok_or_else(|| format!("expected {}", T::keys_text(None)))
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

/// Counted frames of a lesson step: 1 to 1,000.
pub(crate) fn parse_lesson_frames(s: &str) -> Result<usize, String> {
    parse_count(s, 1_000, "frames").map(|v| v as usize)
}

/// A spawn seed, within the `seed` row's range (the same as in files).
pub(crate) fn parse_seed(s: &str) -> Result<u64, String> {
    TABLE.seed.parse_count(s)
}

/// Window refreshes before the program ends (`--frames`): 1 to 1,000,000,000.
pub(crate) fn parse_frames(s: &str) -> Result<u64, String> {
    parse_count(s, 1_000_000_000, "frames")
}

/// Rounds of a measurement (`--rounds`): 1 to 50, as `bench` takes them.
pub(crate) fn parse_rounds(s: &str) -> Result<usize, String> {
    spatial_query_lab::bench::cli::parse_rounds(s)
}
