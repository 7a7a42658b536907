//! The headless benchmark's bookkeeping (timings themselves are never asserted).

use spatial_query_lab::bench::{to_markdown, BenchConfig};
use spatial_query_lab::engine::sim::Reorder;
use spatial_query_lab::engine::spatial::{Kernel, Strategy};

#[test]
fn markdown_lists_each_measured_row() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![3_000],
            strategy: vec![Strategy::Naive],
            kernel: vec![Kernel::Scalar],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        ..BenchConfig::default()
    };
    let rows = spatial_query_lab::bench::run(&cfg, |_| {});
    assert_eq!(rows.len(), 1);
    assert!(
        rows[0].skipped.is_none(),
        "3,000 naive units run in well under 10 s"
    );
    let md = to_markdown(&rows);
    assert!(
        md.contains("| 3000 | resident | soa | fused | naive | scalar | 1 |"),
        "{md}"
    );
}

/// A run says each visit as it begins, in order, with the fraction done
/// rising from 0: rows finish only after their last round, so these lines
/// are what shows a long run moving.
#[test]
fn each_visit_is_said_as_it_begins() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_000],
            strategy: vec![Strategy::Grid, Strategy::SortedGrid],
            kernel: vec![Kernel::Scalar],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        rounds: 2,
        ..BenchConfig::default()
    };
    let mut visits: Vec<(f64, String)> = Vec::new();
    let rows = spatial_query_lab::bench::run_watched(
        &cfg,
        |_| {},
        |done, what| visits.push((done, what.to_string())),
    );
    assert_eq!(rows.len(), 2);
    let whats: Vec<&str> = visits.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(whats.len(), 4, "{whats:#?}");
    assert!(
        whats[0].contains("grid none") && whats[0].ends_with("round 1 of 2"),
        "{whats:#?}"
    );
    assert!(
        whats[1].contains("sorted-grid scalar") && whats[1].ends_with("round 1 of 2"),
        "{whats:#?}"
    );
    assert!(whats[3].ends_with("round 2 of 2"), "{whats:#?}");
    assert_eq!(visits[0].0, 0.0);
    assert!(
        visits.windows(2).all(|w| w[0].0 < w[1].0 && w[1].0 < 1.0),
        "{visits:?}"
    );
}

/// The progress lines on stderr name the unit order, so rows that differ
/// only in it (`--reorder off,cells`) no longer look like duplicates.
#[test]
fn progress_lines_tell_every_row_apart() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_500],
            strategy: vec![Strategy::Grid],
            kernel: vec![Kernel::Scalar],
            reorder: vec![Reorder::Off, Reorder::Cells],
            threads: vec![1, 2],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        ..BenchConfig::default()
    };
    let mut lines = Vec::new();
    let rows = spatial_query_lab::bench::run(&cfg, |r| lines.push(r.progress_line()));
    assert_eq!(rows.len(), 4);
    let heads: std::collections::HashSet<&str> =
        lines.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(heads.len(), 4, "{lines:#?}");
    assert!(
        lines[0].contains("1,500 units, order off, soa, fused, grid none x1"),
        "{}",
        lines[0]
    );
    assert!(
        lines.iter().any(|l| l.contains("order cells")),
        "{lines:#?}"
    );
}

/// `bench --cell-sizes` through the binary: one row per cell size and
/// kernel (SortedGrid runs a kernel), in the order given, each reporting the cell the grid used, and the
/// same neighbor total in every row (the cell size changes the work, never
/// the result).
#[test]
fn cell_sizes_flag_gives_one_row_per_cell_size_with_the_same_neighbors() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spatial-query-lab"))
        .args([
            "bench",
            "--units",
            "2000",
            "--strategies",
            "sorted-grid",
            "--cell-sizes",
            "5,10,20",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--format",
            "json",
        ])
        .output()
        .expect("run the binary");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("cell sizes [5.0, 10.0, 20.0]"), "{err}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("the output is a JSON array");
    let kernels = Kernel::native().len();
    assert_eq!(rows.len(), 3 * kernels, "{rows:#?}");
    let measured: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r.get("skipped").is_none()).collect();
    assert_eq!(measured.len(), 3 * Kernel::available().count(), "{rows:#?}");
    // Cell sizes outer, kernels inner; every row has the key, skipped or not.
    for (k, row) in rows.iter().enumerate() {
        let want = [5.0, 10.0, 20.0][k / kernels];
        assert_eq!(row["cell_size"].as_f64(), Some(want), "{row}");
        assert_eq!(row["strategy"], "sorted-grid");
    }
    let scalar: Vec<f64> = measured
        .iter()
        .filter(|r| r["kernel"] == "scalar")
        .map(|r| r["cell_size"].as_f64().unwrap())
        .collect();
    assert_eq!(scalar, [5.0, 10.0, 20.0]);
    let neighbors = measured[0]["neighbors"].as_u64().unwrap();
    assert!(neighbors > 0);
    for r in &measured {
        assert_eq!(r["neighbors"].as_u64(), Some(neighbors), "{r}");
        assert_eq!(r["frames"].as_u64(), Some(2), "{r}");
    }
    // Larger cells test more candidates for the same neighbors.
    let candidates: Vec<u64> = measured
        .iter()
        .filter(|r| r["kernel"] == "scalar")
        .map(|r| r["candidates"].as_u64().unwrap())
        .collect();
    assert!(
        candidates[0] < candidates[1] && candidates[1] < candidates[2],
        "{candidates:?}"
    );
}

/// Without `--cell-sizes` the cell is the radius and the key still appears;
/// Naive (no grid) runs once with `cell_size: null`; Markdown gets a column.
#[test]
fn cell_size_is_reported_in_json_and_markdown() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_500],
            strategy: vec![Strategy::Naive, Strategy::Grid],
            kernel: vec![Kernel::Scalar],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        ..BenchConfig::default()
    };
    let rows = spatial_query_lab::bench::run(&cfg, |_| {});
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].cell_size, None);
    assert_eq!(rows[1].cell_size, Some(10.0));
    let json = serde_json::to_value(&rows).unwrap();
    assert!(json[0]["cell_size"].is_null(), "{json}");
    assert_eq!(json[1]["cell_size"].as_f64(), Some(10.0));

    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            cell_size: vec![5.0, 20.0],
            ..cfg.lists.clone()
        },
        ..cfg
    };
    let mut lines = Vec::new();
    let rows = spatial_query_lab::bench::run(&cfg, |r| lines.push(r.progress_line()));
    let keys: Vec<(&str, Option<f32>)> = rows
        .iter()
        .map(|r| (r.settings.strategy.key(), r.cell_size))
        .collect();
    assert_eq!(
        keys,
        [("naive", None), ("grid", Some(5.0)), ("grid", Some(20.0))]
    );
    assert!(lines[2].contains("grid none x1, cell 20.00"), "{lines:#?}");
    let md = to_markdown(&rows);
    assert!(md.contains("| threads | cell | move ms |"), "{md}");
    assert!(
        md.contains("| 1500 | resident | soa | fused | naive | scalar | 1 | - |"),
        "{md}"
    );
    assert!(
        md.contains("| 1500 | resident | soa | fused | grid | – | 1 | 5.00 |"),
        "{md}"
    );
    assert!(
        md.contains("| 1500 | resident | soa | fused | grid | – | 1 | 20.00 |"),
        "{md}"
    );
}

/// Grid calls no kernel: one row per setting (kernel `none`, `–` in the
/// table), not one per kernel asked for, however many are; Naive through
/// AoS neither, through SoA one per kernel.
#[test]
fn strategies_without_a_kernel_are_measured_once_per_setting() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_000],
            strategy: vec![Strategy::Naive, Strategy::Grid],
            kernel: Kernel::native().to_vec(),
            layout: vec![
                spatial_query_lab::engine::sim::Layout::Aos,
                spatial_query_lab::engine::sim::Layout::Soa,
            ],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        ..BenchConfig::default()
    };
    let rows = spatial_query_lab::bench::run(&cfg, |_| {});
    let keys: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r.settings.layout.key(),
                r.settings.strategy.key(),
                r.kernel_key(),
            )
        })
        .collect();
    let mut want = vec![("aos", "naive", "none"), ("aos", "grid", "none")];
    want.extend(Kernel::native().iter().map(|k| ("soa", "naive", k.key())));
    want.push(("soa", "grid", "none"));
    assert_eq!(keys, want);
    for r in rows.iter().filter(|r| r.kernel().is_none()) {
        assert!(r.skipped.is_none(), "never skipped for a kernel: {r:?}");
    }
    let md = to_markdown(&rows);
    assert!(
        md.contains("| 1000 | resident | aos | fused | grid | – | 1 |"),
        "{md}"
    );
}

/// With rounds every row keeps each round's medians, its time is the
/// median of them with their range, and the speedups are verdicts; with
/// one round the table says its speedups are ratios only.
#[test]
fn rounds_make_the_speedups_verdicts() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_500],
            strategy: vec![Strategy::Naive, Strategy::SortedGrid],
            kernel: vec![Kernel::Scalar],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 2,
        warmup: 0,
        rounds: 3,
        ..BenchConfig::default()
    };
    let rows = spatial_query_lab::bench::run(&cfg, |_| {});
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r.rounds.len(), 3, "{r:?}");
        let lo = r.round_min_ms.unwrap().total;
        let hi = r.round_max_ms.unwrap().total;
        assert!(lo <= r.ms().total && r.ms().total <= hi);
        let n: Vec<u64> = r.rounds.iter().map(|x| x.neighbors).collect();
        assert!(
            n.iter().all(|&x| x == r.neighbors),
            "same frames every round"
        );
    }
    let json = serde_json::to_value(&rows).unwrap();
    assert_eq!(
        json[1]["rounds"].as_array().map(Vec::len),
        Some(3),
        "{json}"
    );
    let md = to_markdown(&rows);
    let line = md.lines().find(|l| l.contains("| sorted-grid |")).unwrap();
    let verdict = ["faster (", "slower (", "beyond this machine's noise ("];
    assert!(verdict.iter().any(|v| line.contains(v)), "{line}");
    assert!(md.contains("Times are medians of 3 round medians"), "{md}");
    let one = spatial_query_lab::bench::run(&BenchConfig { rounds: 1, ..cfg }, |_| {});
    let md = to_markdown(&one);
    assert!(md.contains("x (1 round) |"), "{md}");
    assert!(md.contains("the speedups are ratios, not verdicts"), "{md}");
}

/// Built without the window (`cargo test --no-default-features`), the
/// binary's window mode and `render-bench` answer with one line and exit
/// code 2 instead of opening anything.
#[cfg(not(feature = "window"))]
#[test]
fn without_the_window_feature_the_window_modes_say_so_in_one_line() {
    for args in [&[][..], &["render-bench"][..]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_spatial-query-lab"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            err.trim(),
            "this build has no window: built without the `window` feature (bench and lesson work)",
            "{args:?}"
        );
    }
}

/// Every measured row carries the cache model of its query phase; two runs
/// give identical counts, and in spawn order the layouts' modeled misses
/// follow the lines each reads (AoS pointers at least AoS in L1d; SoA
/// below AoS in L2, its positions fitting there).
#[test]
fn every_row_carries_the_same_cache_model_on_every_run() {
    use spatial_query_lab::engine::sim::Layout;
    use spatial_query_lab::settings::view::Geometry;
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![20_000],
            strategy: vec![Strategy::Grid],
            kernel: vec![Kernel::Scalar],
            reorder: vec![Reorder::Off],
            layout: vec![Layout::AosPointers, Layout::Aos, Layout::Soa],
            threads: vec![1, 2],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        cache_model: Some(Geometry::Classroom),
        ..BenchConfig::default()
    };
    let models = |rows: &[spatial_query_lab::bench::BenchRow]| {
        rows.iter()
            .map(|r| {
                let m = r.model.clone().expect("every measured row is modeled");
                ((r.settings.layout, r.settings.threads), m)
            })
            .collect::<std::collections::HashMap<_, _>>()
    };
    let first = models(&spatial_query_lab::bench::run(&cfg, |_| {}));
    let again = models(&spatial_query_lab::bench::run(&cfg, |_| {}));
    assert_eq!(first.len(), 6);
    assert_eq!(first, again, "the same counts on a second run");
    let at = |l: Layout, t: usize| &first[&(l, t)];
    let json = serde_json::to_value(at(Layout::Soa, 1)).unwrap();
    assert_eq!(json["geometry"], "classroom");
    assert_eq!(json["levels"][0]["bytes"], 32768);
    for l in [Layout::AosPointers, Layout::Aos, Layout::Soa] {
        assert_eq!(
            at(l, 1),
            at(l, 2),
            "{l:?}: thread count changes no modeled read"
        );
    }
    let (ptrs, aos, soa) = (
        at(Layout::AosPointers, 1),
        at(Layout::Aos, 1),
        at(Layout::Soa, 1),
    );
    assert!(ptrs.misses[0] >= aos.misses[0], "L1d: {ptrs:?} vs {aos:?}");
    assert!(soa.misses[1] < aos.misses[1], "L2: {soa:?} vs {aos:?}");
    let off = spatial_query_lab::bench::run(
        &BenchConfig {
            lists: spatial_query_lab::bench::BenchLists {
                threads: vec![1],
                layout: vec![Layout::Soa],
                ..cfg.lists.clone()
            },
            cache_model: None,
            ..cfg
        },
        |_| {},
    );
    assert!(off[0].model.is_none());
}

/// A working-set sweep's curve data: each row's query median per unit and
/// per candidate, beside its working set, for any list of unit counts.
#[test]
fn rows_carry_ns_per_unit_and_per_candidate_beside_the_working_set() {
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_000, 4_000],
            strategy: vec![Strategy::SortedGrid],
            kernel: vec![Kernel::Scalar],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 2,
        warmup: 0,
        cache_model: None,
        ..BenchConfig::default()
    };
    let rows = spatial_query_lab::bench::run(&cfg, |_| {});
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let q = r.median_ms.unwrap().query * 1e6;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(r.ns_per_unit.unwrap(), q / r.settings.units as f64),
            "{r:?}"
        );
        assert!(close(r.ns_per_candidate.unwrap(), q / r.candidates as f64));
        let json = serde_json::to_value(r).unwrap();
        assert!(json["ns_per_unit"].is_f64() && json["working_set_bytes"].is_u64());
    }
    assert!(rows[1].working_set_bytes > rows[0].working_set_bytes);
}

/// Rows come back in the order of the configuration's lists, a skipped row
/// among the measured ones of its unit count, although a skipped row is
/// final at once and a measured one only after its last round. Here the
/// skipped rows are those of a kernel no build runs everywhere (NEON on
/// x86_64, SSE elsewhere).
#[test]
fn a_skipped_row_keeps_its_place_in_the_table() {
    let Some(absent) = Kernel::ALL
        .into_iter()
        .find(|k| k.absent_reason().is_some())
    else {
        eprintln!("SKIPPED a_skipped_row_keeps_its_place_in_the_table: every kernel runs here");
        return;
    };
    let cfg = BenchConfig {
        lists: spatial_query_lab::bench::BenchLists {
            units: vec![1_000, 2_000],
            strategy: vec![Strategy::SortedGrid],
            kernel: vec![Kernel::Scalar, absent],
            ..spatial_query_lab::bench::BenchLists::default()
        },
        frames: 1,
        warmup: 0,
        rounds: 2,
        ..BenchConfig::default()
    };
    let mut finished = Vec::new();
    let rows = spatial_query_lab::bench::run(&cfg, |r| {
        finished.push((r.settings.units, r.kernel_key(), r.skipped.is_some()))
    });
    let got: Vec<(usize, &str, bool)> = rows
        .iter()
        .map(|r| (r.settings.units, r.kernel_key(), r.skipped.is_some()))
        .collect();
    assert_eq!(
        got,
        [
            (1_000, "scalar", false),
            (1_000, absent.key(), true),
            (2_000, "scalar", false),
            (2_000, absent.key(), true)
        ]
    );
    assert_ne!(
        finished, got,
        "the rows finished in another order than the table's (else this test shows nothing)"
    );
    let md = to_markdown(&rows);
    let first = md.lines().nth(2).unwrap_or_default();
    assert!(
        first.starts_with("| 1000 |") && first.contains("| scalar |"),
        "{md}"
    );
}
