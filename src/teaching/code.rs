//! The source excerpts behind the "Code" tab: the real lines of the
//! technique being measured, cut from the crate's own source files.
//!
//! # The marker convention
//! In a source file, a block a student should read is wrapped in two plain
//! comment lines (never in a doc comment or a string):
//!
//! ```text
//! // code:begin grid-query
//! pub fn query_in(...) { ... }
//! // code:end grid-query
//! ```
//!
//! The name is kebab-case and appears in exactly one `code:begin` and one
//! `code:end` line of the crate. Every marker is listed once in [`MARKERS`]
//! with a title for people and the file it lives in; the tests of this module
//! check both directions (every listed marker is present once, begin before
//! end, 5 to 80 lines; every marker in the listed files is listed).
//!
//! # Why the excerpt cannot drift
//! Each [`Marker`] holds its file through `include_str!`: the text shown is
//! the text of the very file compiled into this binary, cut at run time
//! between its markers. Editing the code edits the excerpt; renaming or
//! deleting a marker fails this module's tests. Nothing is read from disk at
//! run time, so the module works the same in the browser build (wasm32).
//!
//! # Reading order
//! [`for_settings`] names what a frame under some [`Settings`] runs, in the
//! order a student reads it: the strategy's rebuild, its query, the
//! distance-test kernel (where the strategy runs one), then how the layout
//! reads a unit's position.

use crate::engine::sim::{Layout, Settings};
use crate::engine::spatial::{Kernel, Strategy};

/// One excerpt of the crate's source, cut between the markers of one
/// [`Marker`] ([`excerpt`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Excerpt {
    /// The marker's name (`grid-query`).
    pub name: &'static str,
    /// What the excerpt shows, for people: "Uniform grid: the query of one unit".
    pub title: &'static str,
    /// Path of the file from the repository root: `src/engine/spatial/grid.rs`.
    pub path: &'static str,
    /// 1-based line, in that file, of the excerpt's first line (the line
    /// after `// code:begin NAME`).
    pub first_line: usize,
    /// The lines between the two markers, their common leading indentation
    /// removed (blank lines emptied), each ending in `\n`.
    pub text: String,
}

/// One marked block of the crate's source: its name, a title for people, and
/// the file that holds it (included in the binary with `include_str!`).
#[derive(Clone, Copy, Debug)]
pub struct Marker {
    /// The name of its `// code:begin NAME` and `// code:end NAME` lines.
    pub name: &'static str,
    /// What the block shows, for people.
    pub title: &'static str,
    /// Path of the file from the repository root (`src/...`).
    pub path: &'static str,
    /// The whole file, as compiled into this binary.
    source: &'static str,
}

/// A [`Marker`] of the file `$file` (relative to `src/`): its path and its
/// text come from the same literal, so they cannot disagree.
macro_rules! marker {
    ($name:literal, $title:literal, $file:literal) => {
        Marker {
            name: $name,
            title: $title,
            path: concat!("src/", $file),
            source: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/", $file)),
        }
    };
}

/// Every marked block of the crate, in reading order: strategies (rebuild,
/// then query), kernels (in the order of [`Kernel::ALL`]), layouts (in the
/// order of [`Layout::ALL`]).
pub const MARKERS: &[Marker] = &[
    marker!(
        "naive-scan",
        "Naive scan: every unit is a candidate (a kernel over SoA arrays, else the test through the layout)",
        "engine/spatial/naive.rs"
    ),
    marker!(
        "grid-rebuild",
        "Uniform grid: the per-frame rebuild, one list of units per cell",
        "engine/spatial/grid.rs"
    ),
    marker!(
        "grid-query",
        "Uniform grid: the query of one unit",
        "engine/spatial/grid.rs"
    ),
    marker!(
        "sorted-grid-rebuild",
        "Sorted grid: the counting-sort rebuild (count, prefix sum, scatter)",
        "engine/spatial/sorted_grid.rs"
    ),
    marker!(
        "sorted-grid-query",
        "Sorted grid: the fused query, cell by cell",
        "engine/spatial/sorted_grid/fused.rs"
    ),
    marker!(
        "sorted-grid-collect",
        "Sorted grid: the collect pass, each unit's ids from its block's rows",
        "engine/spatial/sorted_grid.rs"
    ),
    marker!(
        "test-through",
        "The distance test through the layout: one candidate at a time, scalar",
        "engine/spatial/naive.rs"
    ),
    marker!(
        "collect-loop",
        "The id-collecting kernel's loop: each vector of candidates against one query (any ISA)",
        "engine/spatial/kernels/driver.rs"
    ),
    marker!(
        "kernel-scalar",
        "Scalar kernel: the distance test, one lane",
        "engine/spatial/kernels/lanes/scalar.rs"
    ),
    marker!(
        "kernel-sse",
        "SSE kernel: the distance test, 4 lanes",
        "engine/spatial/kernels/lanes/sse.rs"
    ),
    marker!(
        "kernel-avx2",
        "AVX2 kernel: the distance test, 8 lanes",
        "engine/spatial/kernels/lanes/avx2.rs"
    ),
    marker!(
        "kernel-avx512",
        "AVX-512 kernel: the distance test, 16 lanes and mask registers",
        "engine/spatial/kernels/lanes/avx512.rs"
    ),
    marker!(
        "kernel-neon",
        "NEON kernel: the distance test, 4 lanes",
        "engine/spatial/kernels/lanes/neon.rs"
    ),
    marker!(
        "kernel-simd128",
        "SIMD128 kernel: the distance test, 4 lanes",
        "engine/spatial/kernels/lanes/simd128.rs"
    ),
    marker!(
        "fused-loop",
        "The fused kernel's loop: every vector of candidates against a block of queries (any ISA)",
        "engine/spatial/kernels/driver.rs"
    ),
    marker!(
        "layout-aos-pointers",
        "AoS behind pointers: one Box per unit, allocated scattered",
        "engine/sim/layout/aos_pointers.rs"
    ),
    marker!(
        "layout-aos",
        "AoS: a unit's position read from its 328-byte struct",
        "engine/sim/layout/aos.rs"
    ),
    marker!(
        "layout-soa",
        "SoA: a unit's position read from two dense arrays",
        "engine/sim/layout/soa.rs"
    ),
    marker!(
        "layout-hot-cold",
        "Hot/cold: SoA hot arrays, the cold records kept apart",
        "engine/sim/layout/hot_cold.rs"
    ),
];

impl Marker {
    /// This marker's excerpt: the lines between its `// code:begin` and the
    /// first `// code:end` after it, dedented ([`Excerpt`]). `None` when the
    /// file lacks either line or the end comes first. Allocates the text;
    /// never panics.
    pub fn excerpt(&self) -> Option<Excerpt> {
        let (first_line, text) = cut(self.source, self.name)?;
        Some(Excerpt {
            name: self.name,
            title: self.title,
            path: self.path,
            first_line,
            text,
        })
    }
}

/// The excerpt of the marker called `name` ([`Marker::excerpt`]); `None`
/// for a name not in [`MARKERS`] or a marker missing from its file.
/// Allocates the text; never panics.
pub fn excerpt(name: &str) -> Option<Excerpt> {
    MARKERS.iter().find(|m| m.name == name)?.excerpt()
}

/// The `(first_line, text)` of the block of `source` between the line
/// `// code:begin NAME` and the first `// code:end NAME` after it (each
/// compared trimmed, so at any indentation): `first_line` is the 1-based
/// line after the begin marker, `text` those lines with their common
/// leading whitespace removed, blank lines emptied, each ending in `\n`.
/// `None` when either marker is missing or the end comes first.
fn cut(source: &str, name: &str) -> Option<(usize, String)> {
    let is = |line: &str, tag: &str| {
        line.trim()
            .strip_prefix(tag)
            .and_then(|rest| rest.strip_prefix(' '))
            .is_some_and(|rest| rest.trim_end() == name)
    };
    let lines: Vec<&str> = source.lines().collect();
    let begin = lines.iter().position(|l| is(l, "// code:begin"))?;
    let len = lines[begin + 1..]
        .iter()
        .position(|l| is(l, "// code:end"))?;
    let body = &lines[begin + 1..begin + 1 + len];
    // Leading spaces and tabs, one byte each: every non-blank line starts
    // with at least `indent` of them, so `l[indent..]` is a char boundary.
    let lead = |l: &str| l.bytes().take_while(|b| matches!(b, b' ' | b'\t')).count();
    let indent = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| lead(l))
        .min()
        .unwrap_or(0);
    let mut text = String::with_capacity(body.iter().map(|l| l.len() + 1).sum());
    for l in body {
        if !l.trim().is_empty() {
            text.push_str(l[indent..].trim_end());
        }
        text.push('\n');
    }
    Some((begin + 2, text))
}

/// The marker name of kernel `k`'s distance test.
fn kernel_marker(k: Kernel) -> &'static str {
    match k {
        Kernel::Scalar => "kernel-scalar",
        Kernel::Sse => "kernel-sse",
        Kernel::Avx2 => "kernel-avx2",
        Kernel::Avx512 => "kernel-avx512",
        Kernel::Neon => "kernel-neon",
        Kernel::Simd128 => "kernel-simd128",
    }
}

/// The marker name of layout `l`'s unit read.
fn layout_marker(l: Layout) -> &'static str {
    match l {
        Layout::AosPointers => "layout-aos-pointers",
        Layout::Aos => "layout-aos",
        Layout::Soa => "layout-soa",
        Layout::HotCold => "layout-hot-cold",
    }
}

/// The names of the excerpts of what a frame under `s` runs, in reading
/// order, as `sim::step`'s query phase dispatches:
/// - the strategy's rebuild (`grid-rebuild`, `sorted-grid-rebuild`; none for
///   the naive scan, which builds nothing);
/// - its query: `naive-scan`, `grid-query`, and for the sorted grid the
///   fused pass's `sorted-grid-query` or the collect pass's
///   `sorted-grid-collect` (the naive scan and the grid run the same query
///   under either pass, the fused sums taken from its ids);
/// - where the query runs a kernel ([`Settings::uses_kernel`]) its loop
///   (`fused-loop` for the sorted grid's fused pass, else `collect-loop`)
///   and the lane operations of the kernel that actually runs
///   ([`Kernel::or_scalar`]: a kernel this CPU lacks shows as
///   `kernel-scalar`); where it runs none, `test-through` (the scalar test
///   reading each candidate through the layout);
/// - the layout's unit read (`layout-soa`, ...).
///
/// Four or five names, every one in [`MARKERS`]. Allocates the `Vec`;
/// never panics.
pub fn for_settings(s: &Settings) -> Vec<&'static str> {
    let fused_grid =
        s.strategy == Strategy::SortedGrid && s.pass == crate::engine::sim::Pass::Fused;
    let mut names = Vec::with_capacity(5);
    match s.strategy {
        Strategy::Naive => names.push("naive-scan"),
        Strategy::Grid => names.extend(["grid-rebuild", "grid-query"]),
        Strategy::SortedGrid if fused_grid => {
            names.extend(["sorted-grid-rebuild", "sorted-grid-query"])
        }
        Strategy::SortedGrid => names.extend(["sorted-grid-rebuild", "sorted-grid-collect"]),
    }
    if s.uses_kernel() {
        names.push(if fused_grid {
            "fused-loop"
        } else {
            "collect-loop"
        });
        names.push(kernel_marker(s.kernel.or_scalar()));
    } else {
        names.push("test-through");
    }
    names.push(layout_marker(s.layout));
    names
}

/// The text of `e` with the file's line numbers, right-aligned to the widest
/// and followed by ` | `: `  41 | let n = p.len();` (a blank line gives
/// `  41 |`). One output line per excerpt line, starting at
/// [`Excerpt::first_line`], each ending in `\n`. Allocates the string.
pub fn numbered(e: &Excerpt) -> String {
    use std::fmt::Write;
    let count = e.text.lines().count();
    let width = (e.first_line + count.saturating_sub(1)).to_string().len();
    let mut out = String::with_capacity(e.text.len() + count * (width + 4));
    for (k, line) in e.text.lines().enumerate() {
        let n = e.first_line + k;
        // Writing to a String cannot fail.
        let _ = if line.is_empty() {
            writeln!(out, "{n:>width$} |")
        } else {
            writeln!(out, "{n:>width$} | {line}")
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::Pass;

    /// The trimmed lines of `source` that are exactly `TAG NAME` for some
    /// name, with that name, in file order.
    fn tagged<'a>(source: &'a str, tag: &str) -> Vec<&'a str> {
        source
            .lines()
            .filter_map(|l| l.trim().strip_prefix(tag)?.strip_prefix(' '))
            .map(str::trim)
            .collect()
    }

    fn begin_tag() -> &'static str {
        "// code:begin"
    }

    fn end_tag() -> &'static str {
        "// code:end"
    }

    /// Every listed marker has exactly one begin and one end line in its
    /// file, the begin first, around 5 to 80 lines that are not all blank.
    #[test]
    fn every_marker_has_one_begin_before_one_end() {
        for m in MARKERS {
            let lines: Vec<&str> = m.source.lines().map(str::trim).collect();
            let begin = format!("{} {}", begin_tag(), m.name);
            let end = format!("{} {}", end_tag(), m.name);
            let b: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == begin).collect();
            let e: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == end).collect();
            assert_eq!(b.len(), 1, "{}: begin lines in {}: {b:?}", m.name, m.path);
            assert_eq!(e.len(), 1, "{}: end lines in {}: {e:?}", m.name, m.path);
            assert!(b[0] < e[0], "{}: end before begin in {}", m.name, m.path);
            let ex = m
                .excerpt()
                .unwrap_or_else(|| panic!("{}: no excerpt", m.name));
            let n = ex.text.lines().count();
            assert_eq!(n, e[0] - b[0] - 1, "{}", m.name);
            assert!((5..=80).contains(&n), "{}: {n} lines", m.name);
            assert!(ex.text.lines().any(|l| !l.trim().is_empty()), "{}", m.name);
            assert_eq!(excerpt(m.name), Some(ex), "{}", m.name);
        }
    }

    /// `first_line` is the file line of the excerpt's first line: the file's
    /// line `first_line` (1-based) and every following one match the text
    /// line by line once trimmed, and the line before is the begin marker.
    #[test]
    fn first_line_points_at_the_excerpt_start() {
        for m in MARKERS {
            let ex = m.excerpt().expect("marker present");
            let file: Vec<&str> = m.source.lines().collect();
            assert!(ex.first_line >= 2, "{}", m.name);
            assert_eq!(
                file[ex.first_line - 2].trim(),
                format!("{} {}", begin_tag(), m.name),
                "{}",
                m.name
            );
            let first = ex.text.lines().next().expect("non-empty");
            assert_eq!(file[ex.first_line - 1].trim(), first.trim(), "{}", m.name);
            for (k, line) in ex.text.lines().enumerate() {
                assert_eq!(
                    file[ex.first_line - 1 + k].trim(),
                    line.trim(),
                    "{} line {}",
                    m.name,
                    ex.first_line + k
                );
            }
        }
    }

    /// The text is dedented (some line starts in column 0), has no marker
    /// line inside it (markers do not nest or overlap) and no trailing blanks.
    #[test]
    fn excerpts_are_dedented_and_hold_no_marker() {
        for m in MARKERS {
            let ex = m.excerpt().expect("marker present");
            assert!(
                ex.text
                    .lines()
                    .any(|l| !l.is_empty() && !l.starts_with([' ', '\t'])),
                "{}: not dedented",
                m.name
            );
            for l in ex.text.lines() {
                assert!(!l.trim_start().starts_with("// code:"), "{}: {l}", m.name);
                assert_eq!(l, l.trim_end(), "{}", m.name);
            }
        }
    }

    #[test]
    fn marker_names_are_unique_kebab_case() {
        for (i, m) in MARKERS.iter().enumerate() {
            assert!(
                MARKERS[i + 1..].iter().all(|o| o.name != m.name),
                "{} listed twice",
                m.name
            );
            assert!(
                !m.name.is_empty()
                    && m.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                m.name
            );
            assert!(m.path.starts_with("src/") && m.path.ends_with(".rs"));
            assert!(!m.title.is_empty());
        }
    }

    /// Every begin and end line in the files the markers include belongs to
    /// a marker listed for that file.
    #[test]
    fn every_marker_in_the_listed_files_is_listed() {
        for m in MARKERS {
            for tag in [begin_tag(), end_tag()] {
                for name in tagged(m.source, tag) {
                    assert!(
                        MARKERS.iter().any(|o| o.name == name && o.path == m.path),
                        "{}: `{tag} {name}` is not in MARKERS",
                        m.path
                    );
                }
            }
        }
    }

    /// No file of the crate outside the listed ones holds a marker, and no
    /// marker name appears twice anywhere (native only: reads `src/`).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn no_marker_outside_the_listed_files() {
        fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("readable src") {
                let p = entry.expect("entry").path();
                if p.is_dir() {
                    walk(&p, files);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    files.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        walk(&root.join("src"), &mut files);
        let mut seen: Vec<(String, String)> = Vec::new();
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue; // a file mid-write by another tool
            };
            let rel = f
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            for tag in [begin_tag(), end_tag()] {
                for name in tagged(&text, tag) {
                    let key = format!("{tag} {name}");
                    assert!(
                        MARKERS.iter().any(|m| m.name == name && m.path == rel),
                        "{rel}: `{key}` is not in MARKERS for this file"
                    );
                    assert!(
                        !seen.iter().any(|(k, _)| *k == key),
                        "`{key}` appears twice ({rel})"
                    );
                    seen.push((key, rel.clone()));
                }
            }
        }
        assert_eq!(seen.len(), 2 * MARKERS.len());
    }

    /// Every setting that changes what is measured, each with every pass.
    fn all_settings() -> Vec<Settings> {
        let mut all = Vec::new();
        for strategy in Strategy::ALL {
            for kernel in Kernel::ALL {
                for layout in Layout::ALL {
                    for pass in Pass::ALL {
                        all.push(Settings {
                            strategy,
                            kernel,
                            layout,
                            pass,
                            ..Settings::default()
                        });
                    }
                }
            }
        }
        all
    }

    /// For every strategy x kernel x layout: every name resolves, none
    /// twice, the strategy's names come first, a kernel appears exactly
    /// where the query runs one (the one that runs), and the layout's last.
    #[test]
    fn for_settings_names_resolve_for_every_combination() {
        for s in all_settings() {
            let names = for_settings(&s);
            let ctx = format!("{:?} {:?} {:?}", s.strategy, s.kernel, s.layout);
            for (i, n) in names.iter().enumerate() {
                assert!(excerpt(n).is_some(), "{ctx}: {n} does not resolve");
                assert!(!names[i + 1..].contains(n), "{ctx}: {n} twice");
            }
            let kernels: Vec<&&str> = names.iter().filter(|n| n.starts_with("kernel-")).collect();
            if s.uses_kernel() {
                assert_eq!(kernels, [&kernel_marker(s.kernel.or_scalar())], "{ctx}");
                assert_eq!(names[names.len() - 2], kernel_marker(s.kernel.or_scalar()));
            } else {
                assert!(kernels.is_empty(), "{ctx}: {names:?}");
            }
            assert_eq!(names.last(), Some(&layout_marker(s.layout)), "{ctx}");
            let prefix = match s.strategy {
                Strategy::Naive => "naive-",
                Strategy::Grid => "grid-",
                Strategy::SortedGrid => "sorted-grid-",
            };
            assert!(names[0].starts_with(prefix), "{ctx}: {names:?}");
            assert!(names[0].ends_with("-rebuild") || names[0] == "naive-scan");
            // Every strategy's query reads candidates one way or the other:
            // a kernel's loop, or the scalar test through the layout.
            let reads = ["fused-loop", "collect-loop", "test-through"];
            assert_eq!(
                names.iter().filter(|n| reads.contains(n)).count(),
                1,
                "{ctx}: {names:?}"
            );
        }
    }

    /// The kernel and layout names are the settings' own keys
    /// (`--kernel avx2` shows `kernel-avx2`, `--layout hot-cold` shows
    /// `layout-hot-cold`), each a listed marker.
    #[test]
    fn marker_names_follow_the_setting_keys() {
        for k in Kernel::ALL {
            assert_eq!(kernel_marker(k), format!("kernel-{}", k.key()));
            assert!(MARKERS.iter().any(|m| m.name == kernel_marker(k)));
        }
        for l in Layout::ALL {
            assert_eq!(layout_marker(l), format!("layout-{}", l.key()));
            assert!(MARKERS.iter().any(|m| m.name == layout_marker(l)));
        }
    }

    #[test]
    fn naive_gives_the_naive_scan_and_no_rebuild() {
        for layout in Layout::ALL {
            let s = Settings {
                strategy: Strategy::Naive,
                kernel: Kernel::Scalar,
                layout,
                ..Settings::default()
            };
            let names = for_settings(&s);
            assert_eq!(names[0], "naive-scan", "{layout:?}");
            assert!(!names.iter().any(|n| n.ends_with("-rebuild")), "{names:?}");
        }
        // Through SoA the scan runs the kernel; through AoS it does not.
        let soa = Settings {
            strategy: Strategy::Naive,
            kernel: Kernel::Scalar,
            layout: Layout::Soa,
            ..Settings::default()
        };
        // The naive scan runs the id-collecting kernel under either pass.
        for pass in Pass::ALL {
            let soa = Settings {
                pass,
                ..soa.clone()
            };
            assert_eq!(
                for_settings(&soa),
                ["naive-scan", "collect-loop", "kernel-scalar", "layout-soa"]
            );
        }
        let aos = Settings {
            layout: Layout::Aos,
            ..soa
        };
        assert_eq!(
            for_settings(&aos),
            ["naive-scan", "test-through", "layout-aos"]
        );
    }

    /// SortedGrid with AVX2 shows the AVX2 kernel on a CPU that has it and
    /// the scalar one (what then runs) on a CPU that does not.
    #[test]
    fn sorted_grid_with_avx2_shows_the_kernel_that_runs() {
        let s = Settings {
            strategy: Strategy::SortedGrid,
            kernel: Kernel::Avx2,
            layout: Layout::Soa,
            ..Settings::default()
        };
        let want = if Kernel::Avx2.is_available() {
            "kernel-avx2"
        } else {
            "kernel-scalar"
        };
        assert_eq!(
            for_settings(&s),
            [
                "sorted-grid-rebuild",
                "sorted-grid-query",
                "fused-loop",
                want,
                "layout-soa"
            ]
        );
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
            assert_eq!(for_settings(&s)[3], "kernel-avx2");
        }
        // The collect pass: the per-unit query and the id-collecting loop.
        let collect = Settings {
            pass: Pass::Collect,
            ..s
        };
        assert_eq!(
            for_settings(&collect),
            [
                "sorted-grid-rebuild",
                "sorted-grid-collect",
                "collect-loop",
                want,
                "layout-soa"
            ]
        );
    }

    /// A kernel this CPU cannot run is shown as the scalar kernel, one it
    /// can as itself; the grid runs no kernel at all.
    #[test]
    fn kernels_shown_are_the_kernels_that_run() {
        for kernel in Kernel::ALL {
            let s = Settings {
                strategy: Strategy::SortedGrid,
                kernel,
                layout: Layout::HotCold,
                ..Settings::default()
            };
            let want = if kernel.is_available() {
                kernel_marker(kernel)
            } else {
                "kernel-scalar"
            };
            assert_eq!(for_settings(&s)[3], want, "{kernel:?}");
            let grid = Settings {
                strategy: Strategy::Grid,
                ..s
            };
            assert_eq!(
                for_settings(&grid),
                [
                    "grid-rebuild",
                    "grid-query",
                    "test-through",
                    "layout-hot-cold"
                ]
            );
        }
    }

    #[test]
    fn numbered_starts_with_the_first_line_number() {
        for m in MARKERS {
            let ex = m.excerpt().expect("marker present");
            let out = numbered(&ex);
            let first = out.lines().next().expect("non-empty");
            assert!(
                first
                    .trim_start()
                    .starts_with(&format!("{} |", ex.first_line)),
                "{}: {first}",
                m.name
            );
            assert_eq!(out.lines().count(), ex.text.lines().count());
            let bar = first.find(" |").expect("a bar");
            for (k, (l, t)) in out.lines().zip(ex.text.lines()).enumerate() {
                assert_eq!(l.find(" |"), Some(bar), "{}: aligned", m.name);
                assert_eq!(l[..bar].trim(), (ex.first_line + k).to_string());
                let rest = &l[bar + 2..];
                assert_eq!(rest.strip_prefix(' ').unwrap_or(rest), t, "{}", m.name);
            }
        }
    }

    #[test]
    fn numbered_right_aligns_to_the_widest_number() {
        let e = Excerpt {
            name: "demo",
            title: "Demo",
            path: "src/demo.rs",
            first_line: 98,
            text: "a\n\n  b\n".to_string(),
        };
        assert_eq!(numbered(&e), " 98 | a\n 99 |\n100 |   b\n");
    }

    #[test]
    fn cut_dedents_and_finds_the_right_block() {
        let src = concat!(
            "fn outer() {\n",
            "    // code:begin demo-other\n",
            "    x();\n",
            "    // code:end demo-other\n",
            "    // code:begin demo\n",
            "        if a {\n",
            "\n",
            "            b();   \n",
            "        }\n",
            "    // code:end demo\n",
            "}\n",
        );
        let (first, text) = cut(src, "demo").expect("present");
        assert_eq!(first, 6);
        assert_eq!(text, "if a {\n\n    b();\n}\n");
        assert_eq!(cut(src, "demo-other"), Some((3, "x();\n".to_string())));
        // A prefix of a name is not the name.
        assert_eq!(cut(src, "dem"), None);
        let reversed = "// code:end demo\nx\n// code:begin demo\n";
        assert_eq!(cut(reversed, "demo"), None);
        assert_eq!(cut("// code:begin demo\nx\n", "demo"), None);
        assert_eq!(cut("", "demo"), None);
    }

    #[test]
    fn unknown_names_have_no_excerpt() {
        assert_eq!(excerpt("no-such-marker"), None);
        assert_eq!(excerpt(""), None);
        assert!(excerpt("grid-query").is_some());
    }
}
