//! A comparison's exports: a Markdown table (every phase with its range),
//! CSV with `bench`'s keys (one record type, the header its field names,
//! written by the `csv` crate), JSON, and the kept sweeps' curves as CSV.

use serde::Serialize;

use super::{working_set_text, Comparison, SweepCurve};
use crate::engine::sim::Settings;
use crate::measure::machine::Machine;
use crate::measure::row::{PhaseMs, Row};
use crate::measure::working_set_sweep::WsCurve;

/// "0.372 (0.360-0.373)": a median with its range, ms to the microsecond;
/// the range only when there is one to show.
fn with_range(median: f64, lo: f64, hi: f64) -> String {
    if lo < hi {
        format!("{median:.3} ({lo:.3}-{hi:.3})")
    } else {
        format!("{median:.3}")
    }
}

/// The lines under a table: what the ranges are, the frames a guard cut,
/// the rows measured apart.
fn notes(c: &Comparison) -> String {
    let rounds = c.rows.iter().map(|m| m.rounds.len()).max().unwrap_or(0);
    let mut s = if rounds >= 2 {
        format!("\nMedians of {rounds} round medians, with the smallest and largest round median in brackets; \"vs baseline\" is a verdict from the rounds of the whole step (a direction only where the two rows' rounds do not overlap).\n")
    } else {
        "\nMedians of one round's frames, with the fastest and slowest frame in brackets; one round gives a ratio, not a verdict.\n".to_string()
    };
    if c.rows.iter().any(crate::measure::Measurement::is_noisy) {
        s += &format!("\"(busy)\": that row's slowest counted frame took more than {}x its fastest; something else was using the machine, so its times are less certain.\n", crate::measure::spread::BUSY_SPREAD);
    }
    if !c.all_interleaved() {
        s += "Rows marked \"measured apart\" were not measured in the baseline's interleaved rounds (a lesson's sweep runs on its own, after its other steps), so they do not share the machine's drift; in the window, the compare panel's \"Measure all\" measures every row again together.\n";
    }
    for (i, m) in c.rows.iter().enumerate() {
        if let Some(cut) = m.cut_note() {
            s += &format!("- {}: {cut}\n", c.name(i));
        }
    }
    s
}

impl Comparison {
    /// Markdown table of the rows, headed by the machine and the settings
    /// every row shares: per row its name, the step's median with its range
    /// ([`crate::measure::Measurement::shown`]: the round medians' with two rounds or more),
    /// each phase the same way, candidates tested per neighbor, the working
    /// set against this machine's caches, the result bytes, rounds and
    /// frames, and the verdict against the baseline; "(busy)" where the
    /// frames' spread exceeds [`crate::measure::BUSY_SPREAD`]. Notes follow
    /// (what the ranges are, frames a guard cut), then the sweep curves as
    /// tables of cell / r against query ms with their range and candidates
    /// per neighbor.
    pub fn to_markdown(&self, machine: &Machine) -> String {
        format!("Measured on {}.\n\n", machine.summary()) + &self.table_markdown(machine)
    }

    /// [`Self::to_markdown`] without its first line (the machine), for a
    /// document that names the machine in its own heading.
    pub fn table_markdown(&self, machine: &Machine) -> String {
        let mut s = String::new();
        if !self.rows.is_empty() {
            s += &format!("Every row: {}.\n\n", self.common());
        }
        let curves_only =
            self.rows.is_empty() && !(self.curves.is_empty() && self.ws_curves.is_empty());
        if !curves_only {
            s += &self.rows_markdown(machine);
        }
        s + &self.curves_markdown(machine)
    }

    /// The rows' table and its notes, for [`Comparison::table_markdown`].
    fn rows_markdown(&self, machine: &Machine) -> String {
        let mut s = String::new();
        s += "| row | step ms | move ms | rebuild ms | query ms | apply ms | tested per hit | query reads | results | rounds x frames | vs baseline |\n";
        s += "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n";
        for (i, r) in self.rows.iter().enumerate() {
            let sh = r.shown();
            let cell = |p: crate::measure::Spread, med: f64| with_range(med, p.min, p.max);
            let p = sh.phases();
            let m = r.ms.phases();
            s += &format!(
                "| {} | {}{} | {} | {} | {} | {} | {:.1} | {} | {} | {} x {} | {} |\n",
                md_cell(&self.name(i)),
                cell(sh.total, r.ms.total.median),
                if r.is_noisy() { " (busy)" } else { "" },
                cell(p[0], m[0].median),
                cell(p[1], m[1].median),
                cell(p[2], m[2].median),
                cell(p[3], m[3].median),
                r.candidates_per_neighbor(),
                working_set_text(r, machine),
                crate::format::bytes(r.result_bytes as usize),
                r.rounds.len(),
                r.frames,
                md_cell(&self.versus(i))
            );
        }
        s += &notes(self);
        s
    }

    /// The cell-size and working-set curves of [`Comparison::table_markdown`].
    fn curves_markdown(&self, machine: &Machine) -> String {
        let mut s = String::new();
        for c in &self.curves {
            s += &format!(
                "\n{}\n\n| cell / r | query ms | range | tested per hit | rounds |\n|---:|---:|---:|---:|---:|\n",
                md_cell(&c.label)
            );
            for p in &c.points {
                s += &format!(
                    "| {:.2} | {:.3} | {:.3}-{:.3} | {:.2} | {} |\n",
                    p.cell_over_r,
                    p.query_ms,
                    p.low_ms,
                    p.high_ms,
                    p.candidates_per_neighbor,
                    p.rounds
                );
            }
        }
        for c in &self.ws_curves {
            s += &format!(
                "\n{}\n\n| units | working set | ns per unit | range | ns per test | range | rounds |\n|---:|---|---:|---:|---:|---:|---:|\n",
                md_cell(&c.label)
            );
            for p in &c.points {
                s += &format!(
                    "| {} | {}: {} | {:.1} | {:.1}-{:.1} | {:.2} | {:.2}-{:.2} | {} |\n",
                    crate::format::thousands(p.units as u64),
                    crate::format::size(p.working_set_bytes),
                    machine.fit(p.working_set_bytes),
                    p.ns_per_unit,
                    p.ns_per_unit_range.0,
                    p.ns_per_unit_range.1,
                    p.ns_per_candidate,
                    p.ns_per_candidate_range.0,
                    p.ns_per_candidate_range.1,
                    p.rounds_ns_per_unit.len()
                );
            }
            for (u, why) in &c.skipped {
                s += &format!(
                    "\n{} units not measured: {}.\n",
                    crate::format::thousands(*u as u64),
                    md_cell(why)
                );
            }
            if let Some(note) = &c.note {
                s += &format!("\n{}: {}.\n", md_cell(&c.label), md_cell(note));
            }
        }
        s
    }

    /// CSV of [`Comparison::table`]: a header line of `bench`'s keys (label,
    /// strategy, kernel, layout, reorder, pass, threads, units, workload,
    /// radius, cell size and ratio, rounds and frames, the step's and the
    /// phases' times in ms, counters, note, skipped, machine), then one
    /// line per row; fields with commas, quotes or line breaks quoted (RFC
    /// 4180), `\n` ending each line.
    pub fn to_csv(&self) -> String {
        rows_csv(&self.table())
    }

    /// CSV of every kept sweep's points: curve, cell / r, median query ms,
    /// its range, candidates per neighbor and rounds, one line per point.
    pub fn curves_csv(&self) -> String {
        curves_csv(&self.curves)
    }

    /// CSV of every working-set sweep's points: curve, units, working-set
    /// bytes, ns per unit and per distance test with their rounds' ranges,
    /// rounds, one line per point.
    pub fn ws_csv(&self) -> String {
        ws_csv(&self.ws_curves)
    }

    /// JSON: `{"rows": [...], "sweeps": [...]}` with [`Row`]s (each naming
    /// its machine and keeping its rounds) and the curves.
    ///
    /// # Errors
    /// If serde_json cannot encode a value (not expected: every field is a
    /// plain number, string or null).
    pub fn to_json(&self) -> Result<String, String> {
        #[derive(Serialize)]
        struct Doc<'a> {
            rows: Vec<Row>,
            sweeps: &'a [SweepCurve],
        }
        serde_json::to_string_pretty(&Doc {
            rows: self.table(),
            sweeps: &self.curves,
        })
        .map_err(|e| format!("could not encode the rows as JSON: {e}"))
    }
}

/// CSV of `rows` (see [`Comparison::to_csv`]): each row's label, its
/// settings columns from the settings table
/// ([`crate::settings::values::row_columns`], as their flags take them;
/// empty for an unset optional value), then its figures ([`CsvRow`]).
fn rows_csv(rows: &[Row]) -> String {
    /// Records of strings read back from CSV this module wrote.
    const OWN: &str = "CSV written here reads back";
    let figures = csv_text(rows.iter().map(CsvRow::of));
    let mut lines = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(figures.as_bytes())
        .into_records()
        .map(|r| r.expect(OWN));
    let columns = |s: &Settings| crate::settings::values::row_columns(s);
    let mut w = csv::Writer::from_writer(Vec::new());
    let head = lines.next().expect(OWN);
    let keys = columns(&Settings::default())
        .into_iter()
        .map(|(k, _)| k.to_string());
    let header: Vec<String> = std::iter::once("label".to_string())
        .chain(keys)
        .chain(head.iter().map(str::to_string))
        .collect();
    w.write_record(&header).expect(OWN);
    for (row, rest) in rows.iter().zip(lines) {
        let record: Vec<String> = std::iter::once(row.label.clone())
            .chain(columns(&row.settings).into_iter().map(|(_, v)| v.text))
            .chain(rest.iter().map(str::to_string))
            .collect();
        w.write_record(&record).expect(OWN);
    }
    String::from_utf8(w.into_inner().expect(OWN)).expect("CSV of UTF-8 fields is UTF-8")
}

/// CSV of the points of `curves` (see [`Comparison::curves_csv`]).
pub fn curves_csv(curves: &[SweepCurve]) -> String {
    csv_text(curves.iter().flat_map(|c| {
        c.points.iter().map(|p| CurveCsvRow {
            curve: &c.label,
            cell_over_r: format!("{:.4}", p.cell_over_r),
            median_query_ms: format!("{:.4}", p.query_ms),
            low_query_ms: format!("{:.4}", p.low_ms),
            high_query_ms: format!("{:.4}", p.high_ms),
            candidates_per_neighbor: format!("{:.4}", p.candidates_per_neighbor),
            rounds: p.rounds,
        })
    }))
}

/// CSV of the points of working-set `curves` (see [`Comparison::ws_csv`]).
pub fn ws_csv(curves: &[WsCurve]) -> String {
    csv_text(curves.iter().flat_map(|c| {
        c.points.iter().map(|p| WsCsvRow {
            curve: &c.label,
            units: p.units,
            working_set_bytes: p.working_set_bytes,
            ns_per_unit: format!("{:.4}", p.ns_per_unit),
            low_ns_per_unit: format!("{:.4}", p.ns_per_unit_range.0),
            high_ns_per_unit: format!("{:.4}", p.ns_per_unit_range.1),
            ns_per_candidate: format!("{:.4}", p.ns_per_candidate),
            low_ns_per_candidate: format!("{:.4}", p.ns_per_candidate_range.0),
            high_ns_per_candidate: format!("{:.4}", p.ns_per_candidate_range.1),
            rounds: p.rounds_ns_per_unit.len(),
        })
    }))
}

/// `records` as CSV under a header of `T`'s field names (written without
/// records too): RFC 4180 quoting (a field with a comma, a quote or a line
/// break quoted, quotes doubled), `\n` ending each line.
fn csv_text<T: Serialize + Default>(records: impl IntoIterator<Item = T>) -> String {
    /// A record of strings and numbers always serializes, into memory.
    const FLAT: &str = "a flat record of strings and numbers serializes into memory";
    let mut records = records.into_iter().peekable();
    let header_only = records.peek().is_none();
    let mut w = csv::Writer::from_writer(Vec::new());
    if header_only {
        w.serialize(T::default()).expect(FLAT);
    } else {
        records.try_for_each(|r| w.serialize(r)).expect(FLAT);
    }
    let mut bytes = w.into_inner().expect(FLAT);
    if header_only {
        // The header is the first line; the blank record's line is dropped.
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        bytes.truncate(end);
    }
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}

/// Milliseconds to the microsecond: the machine's noise is far above that.
fn ms(v: f64) -> String {
    format!("{v:.3}")
}

/// An optional number to 3 decimals, empty when absent.
fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v:.3}"))
}

/// One phase of an optional [`PhaseMs`], to the microsecond; empty when absent.
fn phase(v: Option<PhaseMs>, pick: fn(&PhaseMs) -> f64) -> String {
    v.map_or(String::new(), |p| ms(pick(&p)))
}

/// The figures of one line of [`Comparison::to_csv`], after its label and
/// settings columns: its columns in order, named as in the header
/// (`bench`'s keys; the time columns in ms to the microsecond, empty where
/// the row has none).
#[derive(Default, Serialize)]
struct CsvRow<'a> {
    /// Grid cell edge, world units, as Rust prints an `f32`; empty for Naive.
    cell_size: String,
    /// `cell_size / radius` to 3 decimals; empty for Naive.
    cell_over_r: String,
    /// Rounds measured.
    rounds: usize,
    /// Counted frames per round.
    frames: usize,
    /// Counted frames per round the plan asked for.
    planned_frames: usize,
    /// Median of the round medians, whole step.
    median_total_ms: String,
    /// Smallest round median, whole step.
    round_min_total_ms: String,
    /// Largest round median, whole step.
    round_max_total_ms: String,
    /// Fastest counted frame, whole step.
    min_total_ms: String,
    /// Slowest counted frame, whole step.
    max_total_ms: String,
    /// Median of the round medians, move phase.
    median_move_ms: String,
    /// Median of the round medians, rebuild phase.
    median_rebuild_ms: String,
    /// Median of the round medians, query phase.
    median_query_ms: String,
    /// Smallest round median, query phase.
    round_min_query_ms: String,
    /// Largest round median, query phase.
    round_max_query_ms: String,
    /// Median of the round medians, apply phase.
    median_apply_ms: String,
    /// Candidates tested in the last frame.
    candidates: u64,
    /// Neighbor pairs found in the last frame.
    neighbors: u64,
    /// Candidates per neighbor to 3 decimals; empty when skipped.
    candidates_per_neighbor: String,
    /// Bytes of query results the last frame wrote.
    result_bytes: u64,
    /// Bytes the query phase reads; empty when skipped.
    working_set_bytes: Option<u64>,
    /// Counted frames spread over refreshes.
    sliced_frames: usize,
    /// Counted frames stepped on a worker thread.
    worker_frames: usize,
    /// Each round's whole-step median, in the order measured, space-separated.
    round_median_total_ms: String,
    /// How the measurement differs from the plan's; empty when it does not.
    note: Option<&'a str>,
    /// Why the row was not run; empty when it was.
    skipped: Option<&'a str>,
    /// [`crate::measure::machine::Machine::summary`].
    machine: String,
}

impl<'a> CsvRow<'a> {
    /// The CSV line of `r`.
    fn of(r: &'a Row) -> CsvRow<'a> {
        let rounds: Vec<String> = r.rounds.iter().map(|x| ms(x.median_ms.total)).collect();
        CsvRow {
            cell_size: r.cell_size.map_or(String::new(), |c| c.to_string()),
            cell_over_r: opt(r.cell_over_r),
            rounds: r.rounds.len(),
            frames: r.frames,
            planned_frames: r.planned_frames,
            median_total_ms: phase(r.median_ms, |p| p.total),
            round_min_total_ms: phase(r.round_min_ms, |p| p.total),
            round_max_total_ms: phase(r.round_max_ms, |p| p.total),
            min_total_ms: phase(r.min_ms, |p| p.total),
            max_total_ms: phase(r.max_ms, |p| p.total),
            median_move_ms: phase(r.median_ms, |p| p.move_),
            median_rebuild_ms: phase(r.median_ms, |p| p.rebuild),
            median_query_ms: phase(r.median_ms, |p| p.query),
            round_min_query_ms: phase(r.round_min_ms, |p| p.query),
            round_max_query_ms: phase(r.round_max_ms, |p| p.query),
            median_apply_ms: phase(r.median_ms, |p| p.apply),
            candidates: r.candidates,
            neighbors: r.neighbors,
            candidates_per_neighbor: opt(r.candidates_per_neighbor),
            result_bytes: r.result_bytes,
            working_set_bytes: r.working_set_bytes,
            sliced_frames: r.sliced_frames,
            worker_frames: r.worker_frames,
            round_median_total_ms: rounds.join(" "),
            note: r.note.as_deref(),
            skipped: r.skipped.as_deref(),
            machine: r.machine.summary(),
        }
    }
}

/// One line of [`curves_csv`]: a point of a kept sweep, its numbers to 4
/// decimals.
#[derive(Default, Serialize)]
struct CurveCsvRow<'a> {
    /// The curve's label.
    curve: &'a str,
    /// Cell edge / query radius.
    cell_over_r: String,
    /// Median query ms.
    median_query_ms: String,
    /// Smallest round median of the query, ms.
    low_query_ms: String,
    /// Largest round median of the query, ms.
    high_query_ms: String,
    /// Distance tests per neighbor found.
    candidates_per_neighbor: String,
    /// Rounds measured.
    rounds: usize,
}

/// One line of [`ws_csv`]: a point of a working-set sweep, its times to 4
/// decimals.
#[derive(Default, Serialize)]
struct WsCsvRow<'a> {
    /// The curve's label.
    curve: &'a str,
    /// Units.
    units: usize,
    /// The query's working set, bytes.
    working_set_bytes: u64,
    /// Median query ns per unit.
    ns_per_unit: String,
    /// Smallest round median, ns per unit.
    low_ns_per_unit: String,
    /// Largest round median, ns per unit.
    high_ns_per_unit: String,
    /// Median query ns per distance test.
    ns_per_candidate: String,
    /// Smallest round median, ns per test.
    low_ns_per_candidate: String,
    /// Largest round median, ns per test.
    high_ns_per_candidate: String,
    /// Rounds measured.
    rounds: usize,
}

/// `t` for a Markdown table cell: `|` escaped, line breaks as spaces.
pub fn md_cell(t: &str) -> String {
    t.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::{curves_csv, rows_csv};
    use crate::engine::sim::{Layout, Pass, Reorder, Settings, Workload};
    use crate::engine::spatial::{Kernel, Strategy};
    use crate::measure::compare::{CurvePoint, SweepCurve};
    use crate::measure::machine::Machine;
    use crate::measure::recorder::Round;
    use crate::measure::row::{PhaseMs, Row};

    /// Per-phase milliseconds `base`, `base + 0.1`, ... (move first),
    /// the total their sum.
    fn phases(base: f64) -> PhaseMs {
        PhaseMs {
            move_: base,
            rebuild: base + 0.1,
            query: base + 0.2,
            apply: base + 0.3,
            total: 4.0 * base + 0.6,
        }
    }

    /// A machine whose summary holds a comma and quotes.
    fn machine() -> Machine {
        Machine {
            cpu: "Test \"CPU\"".to_string(),
            cores: 3,
            caches: Vec::new(),
        }
    }

    /// A measured row over two rounds, its label, note and numbers chosen
    /// to need quoting and every number format the CSV writes.
    fn measured() -> Row {
        let round = |t: f64| Round {
            median_ms: PhaseMs {
                total: t,
                ..phases(0.25)
            },
            candidates: 90,
            neighbors: 7,
        };
        Row {
            label: "SortedGrid, \"fast\"\nsecond line".to_string(),
            settings: Settings {
                strategy: Strategy::SortedGrid,
                kernel: Kernel::Scalar,
                threads: 2,
                units: 12_345,
                workload: Workload::Clustered,
                reorder: Reorder::Morton,
                layout: Layout::HotCold,
                pass: Pass::Collect,
                radius: 0.1,
                ..Settings::default()
            },
            cell_size: Some(12.345_678),
            cell_over_r: Some(123.456_78),
            settle_frames: 2,
            frames: 3,
            planned_frames: 5,
            median_ms: Some(phases(1.000_4)),
            min_ms: Some(phases(0.5)),
            max_ms: Some(phases(2.000_5)),
            round_min_ms: Some(phases(0.9)),
            round_max_ms: Some(phases(1.123_456)),
            rounds: vec![round(1.5), round(0.012_345)],
            candidates: 1_000_000,
            neighbors: 77,
            candidates_per_neighbor: Some(12_987.012_987),
            result_bytes: 4096,
            allocations: Some(0),
            working_set_bytes: Some(65_536),
            l1d_misses_per_query: None,
            llc_misses_per_query: Some(0.5),
            model: None,
            ns_per_unit: None,
            ns_per_candidate: None,
            deaths: 1,
            spawns: 1,
            sliced_frames: 1,
            worker_frames: 2,
            note: Some("measured over 3 frame(s), not 5: cut, \"slow\"".to_string()),
            skipped: None,
            estimated_total_ms: None,
            estimated_by: None,
            threads_refused: None,
            machine: machine(),
        }
    }

    /// A skipped Naive row: every optional field absent, no kernel.
    fn skipped() -> Row {
        Row {
            label: "Naive\r".to_string(),
            settings: Settings {
                strategy: Strategy::Naive,
                kernel: Kernel::Scalar,
                threads: 1,
                units: 100_000,
                workload: Workload::Uniform,
                reorder: Reorder::Off,
                layout: Layout::Aos,
                pass: Pass::Fused,
                radius: 10.0,
                ..Settings::default()
            },
            cell_size: None,
            cell_over_r: None,
            settle_frames: 0,
            frames: 0,
            planned_frames: 0,
            median_ms: None,
            min_ms: None,
            max_ms: None,
            round_min_ms: None,
            round_max_ms: None,
            rounds: Vec::new(),
            candidates: 0,
            neighbors: 0,
            candidates_per_neighbor: None,
            result_bytes: 0,
            allocations: None,
            working_set_bytes: None,
            l1d_misses_per_query: None,
            llc_misses_per_query: None,
            model: None,
            ns_per_unit: None,
            ns_per_candidate: None,
            deaths: 0,
            spawns: 0,
            sliced_frames: 0,
            worker_frames: 0,
            note: None,
            skipped: Some(
                "estimated 61.0 s per frame (naive model; limit 60.0 s): not run".to_string(),
            ),
            estimated_total_ms: Some(61_000.0),
            estimated_by: Some("naive model".to_string()),
            threads_refused: None,
            machine: Machine {
                cpu: "Plain".to_string(),
                cores: 1,
                caches: Vec::new(),
            },
        }
    }

    /// The header, every number format (integers, f32 as Rust prints them,
    /// milliseconds to 3 decimals, the rounds' medians space-separated),
    /// empty fields for absent values, and RFC 4180 quoting (commas,
    /// quotes doubled, line breaks) with `\n` ending each line; the header
    /// without rows.
    #[test]
    fn rows_csv_has_its_header_numbers_and_quoting() {
        let csv = rows_csv(&[measured(), skipped()]);
        // The settings columns come from the settings table, in its order;
        // checked exactly here for these two rows' settings.
        let table =
            |s: &Settings, part: fn(&(&'static str, crate::settings::values::Value)) -> String| {
                crate::settings::values::row_columns(s)
                    .iter()
                    .map(part)
                    .collect::<Vec<_>>()
                    .join(",")
            };
        let keys = table(&Settings::default(), |(k, _)| k.to_string());
        let values = |r: &Row| table(&r.settings, |(_, v)| v.text.clone());
        assert!(
            keys.starts_with("units,workload,seed,world,radius,"),
            "{keys}"
        );
        assert!(
            keys.contains(",strategy,threads,kernel,layout,reorder,"),
            "{keys}"
        );
        assert!(values(&measured()).starts_with("12345,clustered,42,,0.1,"));
        assert!(values(&skipped()).contains(",naive,1,none,aos,off,"));
        let want = [
            format!("label,{keys},cell_size,cell_over_r,rounds,frames,planned_frames,median_total_ms,\
             round_min_total_ms,round_max_total_ms,min_total_ms,max_total_ms,\
             median_move_ms,median_rebuild_ms,median_query_ms,round_min_query_ms,\
             round_max_query_ms,median_apply_ms,candidates,neighbors,\
             candidates_per_neighbor,result_bytes,working_set_bytes,sliced_frames,\
             worker_frames,round_median_total_ms,note,skipped,machine\n"),
            format!("\"SortedGrid, \"\"fast\"\"\nsecond line\",{},12.345678,123.457,2,3,5,4.602,4.200,5.094,\
             2.600,8.602,1.000,1.100,1.200,1.100,1.323,1.300,1000000,77,12987.013,\
             4096,65536,1,2,1.500 0.012,\
             \"measured over 3 frame(s), not 5: cut, \"\"slow\"\"\",,\
             \"Test \"\"CPU\"\", 3 cores, caches unknown\"\n", values(&measured())),
            format!("\"Naive\r\",{},,,0,0,0,,,,,,,,,,,,\
             0,0,,0,,0,0,,,estimated 61.0 s per frame (naive model; limit 60.0 s): not run,\
             \"Plain, 1 core, caches unknown\"\n", values(&skipped())),
        ]
        .concat();
        assert_eq!(csv, want);
        let header = &want[..=want.find('\n').unwrap()];
        assert_eq!(rows_csv(&[]), header, "no rows: the header alone");
    }

    /// One line per point (none for a curve without points), 4 decimals,
    /// the label quoted where it holds a comma; the header without curves.
    #[test]
    fn curves_csv_has_its_header_numbers_and_quoting() {
        let curves = [
            SweepCurve {
                label: "sweep: Grid / SoA, 1,000 units".to_string(),
                points: vec![
                    CurvePoint {
                        cell_over_r: 0.5,
                        query_ms: 1.234_56,
                        low_ms: 1.0,
                        high_ms: 2.000_05,
                        candidates_per_neighbor: 3.333_333,
                        rounds: 5,
                    },
                    CurvePoint {
                        cell_over_r: 2.0,
                        query_ms: 0.000_04,
                        low_ms: 0.0,
                        high_ms: 10.0,
                        candidates_per_neighbor: 12.0,
                        rounds: 1,
                    },
                ],
            },
            SweepCurve {
                label: "plain".to_string(),
                points: vec![CurvePoint {
                    cell_over_r: 1.25,
                    query_ms: 7.0,
                    low_ms: 6.5,
                    high_ms: 7.5,
                    candidates_per_neighbor: 2.5,
                    rounds: 3,
                }],
            },
            SweepCurve {
                label: "no points, \"none\"".to_string(),
                points: Vec::new(),
            },
        ];
        let csv = curves_csv(&curves);
        let want = [
            "curve,cell_over_r,median_query_ms,low_query_ms,high_query_ms,\
             candidates_per_neighbor,rounds\n",
            "\"sweep: Grid / SoA, 1,000 units\",0.5000,1.2346,1.0000,2.0000,3.3333,5\n",
            "\"sweep: Grid / SoA, 1,000 units\",2.0000,0.0000,0.0000,10.0000,12.0000,1\n",
            "plain,1.2500,7.0000,6.5000,7.5000,2.5000,3\n",
        ]
        .concat();
        assert_eq!(csv, want);
        let header = &want[..=want.find('\n').unwrap()];
        assert_eq!(curves_csv(&[]), header, "no curves: the header alone");
    }
}
