//! Drawing a [`Chart`] with plotters, as SVG text or PNG bytes: the title,
//! grouped bars (a label under every group, the value over every bar, a
//! whisker for its range, log or linear axis with 1-2-5 ticks) or curves
//! over a log2 cell / r axis in one or two panels, a legend, and the
//! caption. The font is egui's Ubuntu Light, registered once, so nothing
//! depends on the system's fonts.

use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Bars, Body, Chart, Curves, Series, XAxis};

/// The font family every text uses.
const FONT: &str = "sans-serif";

/// Series colors, in turn.
const COLORS: [RGBColor; 6] = [
    RGBColor(52, 101, 196),
    RGBColor(230, 126, 34),
    RGBColor(46, 150, 84),
    RGBColor(155, 89, 182),
    RGBColor(200, 60, 60),
    RGBColor(90, 90, 90),
];

/// Registers the font with plotters (once per process).
fn font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font compiled into egui's crate;
        // a failure would only mean no text, which the tests catch.
        let _ = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

/// `chart` as an SVG document of `size` pixels.
///
/// # Errors
/// What plotters reported, in one line.
pub fn svg(chart: &Chart, size: (u32, u32)) -> Result<String, String> {
    font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&root, chart, size)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// `chart` as PNG bytes of `size` pixels (RGB, 8 bits).
///
/// # Errors
/// What plotters or the PNG encoder reported, in one line.
pub fn png(chart: &Chart, size: (u32, u32)) -> Result<Vec<u8>, String> {
    font();
    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw(&root, chart, size)?;
        root.present().map_err(|e| e.to_string())?;
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, size.0, size.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&rgb).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Text sizes for a canvas `height` pixels tall (1080 is the reference).
struct Sizes {
    title: f64,
    text: f64,
    small: f64,
}

impl Sizes {
    fn of(height: u32) -> Sizes {
        let k = f64::from(height) / 1080.0;
        Sizes {
            title: 48.0 * k,
            text: 28.0 * k,
            small: 26.0 * k,
        }
    }
}

fn style(size: f64, color: &RGBColor, pos: Pos) -> TextStyle<'_> {
    TextStyle::from((FONT, size).into_font())
        .color(color)
        .pos(pos)
}

/// The point `p` (absolute backend pixels, as [`ChartContext::backend_coord`]
/// gives them) relative to `area`'s upper-left corner, where `area.draw` puts it.
fn at<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: (i32, i32)) -> (i32, i32) {
    let (x0, y0) = area.get_base_pixel();
    (p.0 - x0, p.1 - y0)
}

/// Text for a PNG: plotters' glyph placement drops the left bearing, which
/// eats the space after a slash; a comma reads as well.
fn plain(t: &str) -> String {
    t.replace(" / ", ", ")
}

/// A whisker from `lo` to `hi` at `x` (chart coordinates), `cap` pixels wide.
fn whisker<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x: f64,
    lo: f64,
    hi: f64,
    cap: i32,
    color: RGBColor,
) -> Result<(), String>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    let (a, b) = (chart.backend_coord(&(x, lo)), chart.backend_coord(&(x, hi)));
    let area = chart.plotting_area().strip_coord_spec();
    let (a, b) = (at(&area, a), at(&area, b));
    let style = color.stroke_width(2);
    for path in [
        vec![a, b],
        vec![(a.0 - cap, a.1), (a.0 + cap, a.1)],
        vec![(b.0 - cap, b.1), (b.0 + cap, b.1)],
    ] {
        area.draw(&PathElement::new(path, style))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Title, body and caption on `root`.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
    size: (u32, u32),
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let sz = Sizes::of(size.1);
    root.fill(&WHITE).map_err(e)?;
    let title_h = (sz.title * 1.8) as u32;
    // Caption lines wrapped to the width (a character is about half the
    // text size wide).
    let chars = ((f64::from(size.0) - sz.small * 4.0) / (sz.small * 0.5)).max(20.0) as usize;
    let caption: Vec<String> = chart
        .caption
        .iter()
        .flat_map(|l| wrap(&plain(l), chars))
        .collect();
    let caption_h = (sz.small * 1.5 * caption.len() as f64 + sz.small) as u32;
    let (top, rest) = root.split_vertically(title_h);
    let (body, bottom) = rest.split_vertically(size.1.saturating_sub(title_h + caption_h));
    top.draw(&Text::new(
        plain(&chart.title),
        ((size.0 / 2) as i32, (title_h / 2) as i32),
        style(sz.title, &BLACK, Pos::new(HPos::Center, VPos::Center)),
    ))
    .map_err(e)?;
    for (i, line) in caption.iter().enumerate() {
        let y = (sz.small * 0.5 + sz.small * 1.5 * i as f64) as i32;
        bottom
            .draw(&Text::new(
                line.clone(),
                ((sz.small * 2.0) as i32, y),
                style(
                    sz.small,
                    &RGBColor(60, 60, 60),
                    Pos::new(HPos::Left, VPos::Top),
                ),
            ))
            .map_err(e)?;
    }
    match &chart.body {
        Body::Bars(b) => bars(&body, b, &sz),
        Body::Curves(c) => curves(&body, c, &sz),
    }
}

/// Ticks for an axis from `lo` to `hi`: 1-2-5 values on a log axis (only
/// the powers of ten when they are many), a 1-2-5 step on a linear one.
pub fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    if log {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let mults: &[f64] = if b - a > 5 { &[1.0] } else { &[1.0, 2.0, 5.0] };
        let mut out = Vec::new();
        for k in a..=b {
            for m in mults {
                let v = m * 10f64.powi(k);
                if v >= lo * 0.999 && v <= hi * 1.001 {
                    out.push(v);
                }
            }
        }
        return out;
    }
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut out = Vec::new();
    let mut v = (lo / step).ceil() * step;
    while v <= hi * 1.000_001 {
        out.push(v);
        v += step;
    }
    out
}

/// The largest of 1, 2 and 5 times a power of ten at most `v` (`v` > 0).
pub fn floor_125(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * p)
        .find(|x| *x <= v * 1.000_001)
        .unwrap_or(p)
}

/// A number for a tick or a bar: three significant digits, no trailing zeros.
pub fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_string();
    }
    let d = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.d$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `text` broken into lines of at most `chars` characters, at spaces or
/// after a slash.
pub fn wrap(text: &str, chars: usize) -> Vec<String> {
    let chars = chars.max(4);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_inclusive([' ', '/']) {
        if !line.is_empty() && line.chars().count() + word.trim_end().chars().count() > chars {
            lines.push(line.trim_end().to_string());
            line.clear();
        }
        line += word;
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// The chart context every body draws on: both axes linear in chart
/// coordinates (a log axis is drawn as the log10 of its values).
type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The color of the grid lines.
const GRID: RGBColor = RGBColor(225, 225, 225);

/// A value axis from `y0` to `y1`, log or linear.
struct ValueAxis {
    log: bool,
    y0: f64,
    y1: f64,
}

impl ValueAxis {
    /// `v` in chart coordinates: its log10 on a log axis (never below `y0`).
    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(self.y0).log10()
        } else {
            v
        }
    }

    /// The axis' extent in chart coordinates.
    fn range(&self) -> std::ops::Range<f64> {
        self.t(self.y0)..self.t(self.y1)
    }
}

/// The smallest positive value of `values` (at most the largest) and the
/// largest (at least 1e-9).
fn span(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let hi = values.clone().fold(0.0f64, f64::max).max(1e-9);
    let lo = values
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min)
        .min(hi);
    (lo, hi)
}

/// A chart on `area` over `x` and `axis`, with the margins every body
/// shares: `top` text sizes above the plot, `x_labels` pixels under it.
fn chart_on<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x: std::ops::Range<f64>,
    axis: &ValueAxis,
    top: f64,
    x_labels: u32,
    sz: &Sizes,
) -> Result<Chart2d<'a, DB>, String> {
    ChartBuilder::on(area)
        .margin_left((sz.text * 1.0) as u32)
        .margin_right((sz.text * 1.5) as u32)
        .margin_top((sz.text * top) as u32)
        .x_label_area_size(x_labels)
        .y_label_area_size((sz.text * 4.5) as u32)
        .build_cartesian_2d(x, axis.range())
        .map_err(|e| e.to_string())
}

/// The axis lines and names of `chart`: `y_label` (marked on a log axis)
/// and `x_label` when given; no mesh and no tick labels (drawn apart).
fn axes<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    y_label: &str,
    log: bool,
    x_label: Option<&String>,
    sz: &Sizes,
) -> Result<(), String> {
    let mut mesh = chart.configure_mesh();
    mesh.disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .y_desc(format!(
            "{y_label}{}",
            if log { " (log scale)" } else { "" }
        ))
        .axis_desc_style((FONT, sz.text));
    if let Some(l) = x_label {
        mesh.x_desc(l.clone());
    }
    mesh.draw().map_err(|e| e.to_string())
}

/// The value axis' ticks: at each, a grid line across `x` (chart
/// coordinates) and its number left of the axis.
fn value_ticks<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut Chart2d<'_, DB>,
    axis: &ValueAxis,
    x: (f64, f64),
    sz: &Sizes,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for v in ticks(axis.y0, axis.y1, axis.log) {
        let y = axis.t(v);
        chart
            .draw_series(LineSeries::new([(x.0, y), (x.1, y)], GRID.stroke_width(1)))
            .map_err(e)?;
        let (px, py) = at(area, chart.backend_coord(&(x.0, y)));
        area.draw(&Text::new(
            number(v),
            (px - (sz.small * 0.4) as i32, py),
            style(sz.small, &BLACK, Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The legend of `chart`'s series at `position`, in text of `size`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart2d<'a, DB>,
    position: SeriesLabelPosition,
    size: f64,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .label_font((FONT, size))
        .draw()
        .map_err(|e| e.to_string())
}

/// Grouped bars on `area`.
fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    b: &Bars,
    sz: &Sizes,
) -> Result<(), String> {
    let axis = bar_axis(b);
    let n = b.groups.len().max(1);
    let lines = label_lines(area, b, sz);
    let x = (-0.5, n as f64 - 0.5);
    let below = (sz.text * 1.35 * lines as f64 + sz.text) as u32;
    let mut chart = chart_on(area, x.0..x.1, &axis, 0.5, below, sz)?;
    axes(&mut chart, &b.y_label, axis.log, None, sz)?;
    value_ticks(area, &mut chart, &axis, x, sz)?;
    for s in 0..b.series.len() {
        bar_series(area, &mut chart, b, s, &axis, sz)?;
    }
    group_labels(area, &chart, b, &axis, lines, sz)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, sz.text)
}

/// The value axis of `b`: on a log one, from the 1-2-5 value below two
/// thirds of the smallest value, so the shortest bar still shows; the top
/// leaves room for the values written over the bars.
fn bar_axis(b: &Bars) -> ValueAxis {
    let values = b
        .groups
        .iter()
        .flat_map(|g| g.values.iter().flatten())
        .flat_map(|v| [v.value, v.low, v.high]);
    let log = b.scale.is_log(values.clone());
    let (lo, hi) = span(values);
    let (y0, y1) = if log {
        (floor_125(lo / 1.5), hi * 3.0)
    } else {
        (0.0, hi * 1.18)
    };
    ValueAxis { log, y0, y1 }
}

/// As many label lines as the longest group label of `b` needs on
/// `area`, from 1 to 3.
fn label_lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, b: &Bars, sz: &Sizes) -> usize {
    let n = b.groups.len().max(1);
    let chars_guess = (f64::from(area.dim_in_pixel().0) / n as f64 / (sz.text * 0.5)) as usize;
    b.groups
        .iter()
        .map(|g| wrap(&plain(&g.label), chars_guess).len())
        .max()
        .unwrap_or(1)
        .clamp(1, 3)
}

/// Series `s` of `b`: a bar in every group that has a value for it, its
/// legend entry, and each bar's whisker and value over it.
fn bar_series<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut Chart2d<'_, DB>,
    b: &Bars,
    s: usize,
    axis: &ValueAxis,
    sz: &Sizes,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let width = 0.8 / b.series.len().max(1) as f64;
    let color = COLORS[s % COLORS.len()];
    let x = |i: usize| i as f64 - 0.4 + width * (s as f64 + 0.5);
    let value = |g: &super::BarGroup| g.values.get(s).copied().flatten();
    let rects: Vec<_> = b
        .groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| value(g).map(|v| (i, v)))
        .map(|(i, v)| {
            Rectangle::new(
                [
                    (x(i) - width * 0.45, axis.t(axis.y0)),
                    (x(i) + width * 0.45, axis.t(v.value)),
                ],
                color.filled(),
            )
        })
        .collect();
    chart
        .draw_series(rects)
        .map_err(e)?
        .label(plain(&b.series[s]))
        .legend(move |(px, py)| Rectangle::new([(px, py - 8), (px + 22, py + 8)], color.filled()));
    for (i, g) in b.groups.iter().enumerate() {
        let Some(v) = value(g) else {
            continue;
        };
        if v.high > v.low {
            whisker(chart, x(i), axis.t(v.low), axis.t(v.high), 10, BLACK)?;
        }
        let (px, py) = at(
            area,
            chart.backend_coord(&(x(i), axis.t(v.high.max(v.value)))),
        );
        area.draw(&Text::new(
            number(v.value),
            (px, py - (sz.small * 0.4) as i32),
            style(sz.small, &BLACK, Pos::new(HPos::Center, VPos::Bottom)),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The label under every group of `b`, wrapped to the group's width, in
/// at most `lines` lines.
fn group_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart2d<'_, DB>,
    b: &Bars,
    axis: &ValueAxis,
    lines: usize,
    sz: &Sizes,
) -> Result<(), String> {
    let n = b.groups.len().max(1);
    let y0 = axis.t(axis.y0);
    let (left, _) = at(area, chart.backend_coord(&(-0.5, y0)));
    let (right, bottom) = at(area, chart.backend_coord(&(n as f64 - 0.5, y0)));
    let group_px = f64::from(right - left) / n as f64;
    let chars = (group_px / (sz.text * 0.5)) as usize;
    for (i, g) in b.groups.iter().enumerate() {
        let (px, _) = at(area, chart.backend_coord(&(i as f64, y0)));
        for (k, line) in wrap(&plain(&g.label), chars).iter().take(lines).enumerate() {
            area.draw(&Text::new(
                line.clone(),
                (px, bottom + (sz.text * (0.5 + 1.25 * k as f64)) as i32),
                style(sz.text, &BLACK, Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Curves over log2 x in one or two panels on `area`.
fn curves<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &Curves,
    sz: &Sizes,
) -> Result<(), String> {
    let xs = c
        .upper
        .1
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .filter(|x| *x > 0.0);
    let (xlo, xhi) = xs.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let (xlo, xhi) = if xlo.is_finite() {
        (xlo, xhi)
    } else {
        (0.25, 4.0)
    };
    let x = (xlo.log2() - 0.15, xhi.log2() + 0.15);
    match &c.lower {
        Some(lower) => {
            let h = area.dim_in_pixel().1;
            let (a, b) = area.split_vertically((f64::from(h) * 0.62) as u32);
            panel(&a, x, &c.upper, None, c, true, sz)?;
            panel(&b, x, lower, Some(&c.x_label), c, false, sz)
        }
        None => panel(area, x, &c.upper, Some(&c.x_label), c, true, sz),
    }
}

/// One panel of curves: `x` is the log2 range of the x values; the x
/// labels only when `x_label` is given (the bottom panel); `c`'s markers in
/// every panel, their labels when `marker_labels` (the top panel).
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    x: (f64, f64),
    (y_label, series): &(String, Vec<Series>),
    x_label: Option<&String>,
    c: &Curves,
    marker_labels: bool,
    sz: &Sizes,
) -> Result<(), String> {
    let axis = curve_axis(series);
    let below = if x_label.is_some() {
        (sz.text * 3.0) as u32
    } else {
        (sz.text * 0.6) as u32
    };
    let mut chart = chart_on(area, x.0..x.1, &axis, 0.6, below, sz)?;
    axes(&mut chart, y_label, axis.log, x_label, sz)?;
    value_ticks(area, &mut chart, &axis, x, sz)?;
    x_ticks(area, &mut chart, x, &axis, x_label.is_some(), c.x_axis, sz)?;
    markers(area, &mut chart, x, &axis, &c.markers, marker_labels, sz)?;
    for (k, s) in series.iter().enumerate() {
        curve(&mut chart, k, s, &axis)?;
    }
    match c.x_axis {
        XAxis::CellOverR => legend(&mut chart, SeriesLabelPosition::UpperMiddle, sz.small),
        // Left of the middle, where a working-set curve is still low; once,
        // in the top panel.
        XAxis::Bytes if marker_labels => {
            legend(&mut chart, SeriesLabelPosition::MiddleLeft, sz.small)
        }
        XAxis::Bytes => Ok(()),
    }
}

/// The value axis of a panel's `series` (values and whisker ends): on a log
/// one, from the power of ten below the smallest value.
fn curve_axis(series: &[Series]) -> ValueAxis {
    let values = series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|p| [p.1, p.2, p.3]));
    let log = super::Scale::Auto.is_log(values.clone());
    let (lo, hi) = span(values);
    let (y0, y1) = if log {
        (10f64.powf(lo.log10().floor()), hi * 1.5)
    } else {
        (0.0, hi * 1.12)
    };
    ValueAxis { log, y0, y1 }
}

/// X ticks within `x` (log2): for cell / r at the powers of two, labeled
/// "N r"; for bytes at the powers of four, labeled as sizes; a grid line
/// in every panel, the label under the axis when `labels`.
fn x_ticks<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut Chart2d<'_, DB>,
    x: (f64, f64),
    axis: &ValueAxis,
    labels: bool,
    kind: XAxis,
    sz: &Sizes,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (y0, y1) = (axis.t(axis.y0), axis.t(axis.y1));
    let (step, first) = match kind {
        XAxis::CellOverR => (2.0, 2f64.powf(x.0.ceil())),
        XAxis::Bytes => (4.0, 4f64.powf((x.0 / 2.0).ceil())),
    };
    let text = |q: f64| match kind {
        XAxis::CellOverR => format!("{} r", number(q)),
        XAxis::Bytes => crate::format::size(q as u64),
    };
    let mut q = first;
    while q.log2() <= x.1 {
        let l = q.log2();
        chart
            .draw_series(LineSeries::new([(l, y0), (l, y1)], GRID.stroke_width(1)))
            .map_err(e)?;
        if labels {
            let (px, py) = at(area, chart.backend_coord(&(l, y0)));
            area.draw(&Text::new(
                text(q),
                (px, py + (sz.small * 0.4) as i32),
                style(sz.small, &BLACK, Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(e)?;
        }
        q *= step;
    }
    Ok(())
}

/// The vertical `marks` within `x` (log2): a dashed line across the panel
/// each, labeled just inside the top when `labels`.
fn markers<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut Chart2d<'_, DB>,
    x: (f64, f64),
    axis: &ValueAxis,
    marks: &[(f64, String)],
    labels: bool,
    sz: &Sizes,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (y0, y1) = (axis.t(axis.y0), axis.t(axis.y1));
    let color = RGBColor(200, 40, 40);
    for (v, label) in marks.iter().filter(|m| m.0 > 0.0) {
        let l = v.log2();
        if l < x.0 || l > x.1 {
            continue;
        }
        chart
            .draw_series(DashedLineSeries::new(
                [(l, y0), (l, y1)],
                8,
                6,
                color.stroke_width(2),
            ))
            .map_err(e)?;
        if labels {
            let (px, py) = at(area, chart.backend_coord(&(l, y1)));
            area.draw(&Text::new(
                label.clone(),
                (px + (sz.small * 0.3) as i32, py + (sz.small * 0.3) as i32),
                style(sz.small, &color, Pos::new(HPos::Left, VPos::Top)),
            ))
            .map_err(e)?;
        }
    }
    Ok(())
}

/// Curve `k` of a panel, `s`: its line (with its legend entry), a dot at
/// every point and the whisker of every point's range.
fn curve<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    k: usize,
    s: &Series,
    axis: &ValueAxis,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let color = COLORS[k % COLORS.len()];
    let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0.log2(), axis.t(p.1))).collect();
    chart
        .draw_series(LineSeries::new(pts.clone(), color.stroke_width(3)))
        .map_err(e)?
        .label(plain(&s.label))
        .legend(move |(px, py)| PathElement::new([(px, py), (px + 26, py)], color.stroke_width(3)));
    chart
        .draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled())))
        .map_err(e)?;
    for p in s.points.iter().filter(|p| p.3 > p.2) {
        whisker(chart, p.0.log2(), axis.t(p.2), axis.t(p.3), 6, color)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_1_2_5_and_cover_the_range() {
        assert_eq!(
            ticks(0.1, 60.0, true),
            [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        assert_eq!(ticks(0.0, 9.0, false), [0.0, 2.0, 4.0, 6.0, 8.0]);
        let many = ticks(1e-3, 1e5, true);
        assert_eq!(many.len(), 9, "only powers of ten over 8 decades: {many:?}");
        assert!(ticks(1.0, 1.0, false).is_empty());
    }

    #[test]
    fn the_log_floor_is_a_1_2_5_value_below() {
        assert_eq!(floor_125(1.13 / 1.5), 0.5);
        assert_eq!(floor_125(3.0), 2.0);
        assert_eq!(floor_125(70.0), 50.0);
        assert_eq!(floor_125(0.0), 1.0);
    }

    #[test]
    fn numbers_and_labels_read_well() {
        assert_eq!(number(97.94), "97.9");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(0.30000000000000004), "0.3");
        assert_eq!(number(1234.0), "1234");
        assert_eq!(
            wrap("AoS pointers / order off / 150,000 units", 14),
            ["AoS pointers /", "order off /", "150,000 units"]
        );
        assert_eq!(wrap("Grid", 3), ["Grid"]);
    }
}
