//! The crate's structure as ARCHITECTURE.md states it: every top-level
//! module is named in its module map, and imports go one way — a module
//! names only modules of its own layer or below, never one above, so the
//! module graph has no cycle between layers; within the teaching layer,
//! charts never name lessons. Reads the source as text (comment lines
//! skipped), so it needs no tool.

use std::path::{Path, PathBuf};

/// The layers, lowest first, each with its top-level modules. The binary
/// (`src/main.rs`, `src/cli/`) sits above them all.
const LAYERS: [&[&str]; 7] = [
    &["platform", "format", "named"],
    &["engine"],
    &["settings"],
    &["measure"],
    &["bench"],
    &["teaching"],
    &["window"],
];

/// Imports that the layers allow but the design does not: (file path
/// prefix under `src/`, path it must not name).
const FORBIDDEN: [(&str, &str); 2] = [
    ("teaching/chart", "teaching::lesson"),
    ("measure", "teaching::"),
];

/// The crates only the window may use.
const WINDOW_CRATES: [&str; 4] = ["macroquad", "egui", "miniquad", "egui_plot"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules `src/lib.rs` declares, in its order.
fn top_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// The layer of top-level module `m`.
fn layer(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

/// The lines of `text` that are not comments, numbered from 1.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
}

#[test]
fn every_top_level_module_has_a_layer_and_a_line_in_the_module_map() {
    let architecture =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let modules = top_modules();
    assert!(modules.len() >= 8, "{modules:?}");
    for m in &modules {
        assert!(
            layer(m).is_some(),
            "src/lib.rs declares {m}, which has no layer here"
        );
        assert!(
            architecture.contains(&format!("`{m}`")),
            "ARCHITECTURE.md's module map does not name `{m}`"
        );
    }
    for l in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(
            modules.iter().any(|m| m == l),
            "no module {l} any more: update LAYERS"
        );
    }
}

#[test]
fn imports_go_one_way() {
    let mut wrong = Vec::new();
    for top in top_modules() {
        let own = layer(&top).unwrap();
        let dir = src().join(&top);
        let files = if dir.is_dir() {
            rust_files(&dir)
        } else {
            vec![src().join(format!("{top}.rs"))]
        };
        for file in files {
            let rel = file
                .strip_prefix(src())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in code_lines(&text) {
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if layer(&name).is_some_and(|l| l > own) {
                        wrong.push(format!("{rel}:{n}: {top} names {name}, a layer above it"));
                    }
                }
                for (prefix, path) in FORBIDDEN {
                    if rel.starts_with(prefix) && line.contains(&format!("crate::{path}")) {
                        wrong.push(format!("{rel}:{n}: names crate::{path}"));
                    }
                }
                if top != "window" {
                    for c in WINDOW_CRATES {
                        if line.contains(&format!("{c}::")) && !line.contains(&format!("_{c}::")) {
                            wrong.push(format!("{rel}:{n}: {top} uses {c}, a window crate"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go the wrong way:\n{}",
        wrong.join("\n")
    );
}

/// No source file is longer than the project's limit (CONTRIBUTING.md).
#[test]
fn files_stay_under_800_lines() {
    let long: Vec<String> = rust_files(&src())
        .into_iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(&f).unwrap().lines().count();
            (n >= 800).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{long:?}");
}
