//! The headless benchmark's bookkeeping (timings themselves are never asserted).

use spatial_query_lab::bench::{bench_settings, measure, measure_after, to_markdown, BenchConfig};
use spatial_query_lab::sim::{Layout, Reorder};
use spatial_query_lab::spatial::{Kernel, Strategy};

/// A slow combination that fast-forwards untimed frames with the CSR grid ends
/// on the same frame, with the same neighbor count, as a full run.
#[test]
fn fast_forwarded_naive_run_ends_on_the_same_frame_as_a_full_run() {
    let cfg = BenchConfig::default();
    let naive = bench_settings(
        Strategy::Naive,
        Kernel::Scalar,
        1,
        2_000,
        Reorder::Cells,
        Layout::AosPointers,
        &cfg,
    );
    let grid = bench_settings(
        Strategy::Grid,
        Kernel::best(),
        1,
        2_000,
        Reorder::Cells,
        Layout::Soa,
        &cfg,
    );
    let (_, a) = measure_after(&naive, 5, 1, 2); // 8 frames, the last 3 naive
    let (_, b) = measure(&grid, 6, 2); // 8 frames
    assert!(b.query.neighbors > 0);
    assert_eq!(a.query.neighbors, b.query.neighbors);
    // Without the fast-forward the frame differs, and so (here) does the count.
    let (_, c) = measure(&naive, 1, 2);
    assert_ne!(
        c.query.neighbors, b.query.neighbors,
        "the world should change between frame 3 and 8"
    );
}

#[test]
fn markdown_lists_each_measured_row() {
    let cfg = BenchConfig {
        units: vec![3_000],
        frames: 1,
        warmup: 0,
        strategies: vec![Strategy::Naive],
        kernels: vec![Kernel::Scalar],
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
        md.contains("| 3000 | cells | soa | naive | scalar | 1 |"),
        "{md}"
    );
}

/// The progress lines on stderr name the unit order, so rows that differ
/// only in it (`--reorder off,cells`) no longer look like duplicates.
#[test]
fn progress_lines_tell_every_row_apart() {
    let cfg = BenchConfig {
        units: vec![1_500],
        frames: 1,
        warmup: 0,
        strategies: vec![Strategy::Grid],
        kernels: vec![Kernel::Scalar],
        reorders: vec![Reorder::Off, Reorder::Cells],
        threads: vec![1, 2],
        ..BenchConfig::default()
    };
    let mut lines = Vec::new();
    let rows = spatial_query_lab::bench::run(&cfg, |r| lines.push(r.progress_line()));
    assert_eq!(rows.len(), 4);
    let heads: std::collections::HashSet<&str> =
        lines.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(heads.len(), 4, "{lines:#?}");
    assert!(
        lines[0].contains("1,500 units, order off, soa, grid scalar x1"),
        "{}",
        lines[0]
    );
    assert!(
        lines.iter().any(|l| l.contains("order cells")),
        "{lines:#?}"
    );
}
