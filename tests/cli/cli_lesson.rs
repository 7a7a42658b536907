//! `spatial-query-lab lesson`: bundled lessons and a teacher's
//! own file run headless, their texts quote what was measured, the JSON
//! uses `bench`'s keys, and a bad file is one line.

use std::process::Command;

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spatial-query-lab"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = exe().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The issue's check: the algorithms lesson's JSON rows, Grid's query
/// median below Naive's, the same neighbor totals, texts quoting them.
#[test]
fn the_algorithms_lesson_json_has_grid_faster_than_naive_on_the_same_neighbors() {
    let (code, out, err) = run(&[
        "lesson",
        "algorithms",
        "--format",
        "json",
        "--max-units",
        "3000",
        "--frames",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["lesson"], "algorithms");
    let rows = doc["rows"].as_array().unwrap();
    let by = |s: &str| rows.iter().find(|r| r["strategy"] == s).unwrap();
    let (naive, grid) = (by("naive"), by("grid"));
    for key in [
        "strategy",
        "kernel",
        "layout",
        "reorder",
        "pass",
        "threads",
        "units",
        "median_ms",
        "neighbors",
        "candidates",
        "machine",
    ] {
        assert!(!naive[key].is_null(), "rows have bench's key {key}");
    }
    let q = |r: &serde_json::Value| r["median_ms"]["query"].as_f64().unwrap();
    assert!(
        q(grid) < q(naive),
        "grid {} ms, naive {} ms",
        q(grid),
        q(naive)
    );
    assert_eq!(naive["neighbors"], grid["neighbors"]);
    assert!(naive["neighbors"].as_u64().unwrap() > 0);
    assert_eq!(naive["units"], 3000);
    // Each step's text and the row it quotes.
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    let grid_text = steps[1]["text"].as_str().unwrap();
    let cpu = grid["candidates"].as_f64().unwrap() / 3000.0;
    assert!(
        grid_text.contains(&format!("Grid tested {cpu:.1} candidates per unit")),
        "{grid_text}"
    );
    assert!(
        !grid_text.contains('{') && !grid_text.contains('…'),
        "{grid_text}"
    );
    assert!(err.starts_with("lesson: machine: "), "{err}");
}

/// The layouts lesson names this machine's last-level cache and the unit
/// count it chose, in its text and on stderr.
#[test]
fn the_layouts_lesson_names_the_cache_and_the_unit_count_it_chose() {
    let (code, out, err) = run(&["lesson", "layouts", "--max-units", "2000", "--frames", "2"]);
    assert_eq!(code, 0, "{err}");
    let machine = spatial_query_lab::measure::machine::Machine::current();
    let llc = machine.llc_text();
    assert!(err.contains(&llc) || machine.l3().is_none(), "{err}");
    assert!(out.contains("Why this many units: 2,000 units"), "{out}");
    assert!(out.contains(&llc), "{out}");
    assert!(out.starts_with("# Data layouts"), "{out}");
    assert!(
        out.contains("| row | step ms | move ms | rebuild ms | query ms | apply ms |"),
        "the table ends it"
    );
}

/// A teacher's own file runs as the bundled ones do (CSV here); a bad one
/// is one line naming file, line and field; an unknown name lists the
/// bundled ones; no name lists them.
#[test]
fn a_teachers_file_runs_and_a_bad_one_is_one_line() {
    let dir = std::env::temp_dir().join(format!("sql-cli-lesson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("mine.toml");
    std::fs::write(
        &good,
        "title = \"Mine\"\n[settings]\nunits = 1500\n[[steps]]\nid = \"g\"\ntitle = \"Grid\"\nsettings = { strategy = \"grid\" }\ntext = \"grid took {query_ms} ms\"\n",
    )
    .unwrap();
    let (code, out, err) = run(&[
        "lesson",
        good.to_str().unwrap(),
        "--format",
        "csv",
        "--frames",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    // The label, then the settings table's columns, in the table's order.
    assert!(
        out.starts_with("label,units,workload,seed,world,radius"),
        "{out}"
    );
    assert!(out.contains(",strategy,threads,kernel,"), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(err.contains("grid took ") && err.contains(" ms"), "{err}");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "title = \"Bad\"\n[settings]\nunits = 0\n[[steps]]\nid = \"g\"\ntitle = \"G\"\ntext = \"x\"\n").unwrap();
    let (code, out, err) = run(&["lesson", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("bad.toml:3: units: must be 1 to 1000000 units, got 0"),
        "{err}"
    );
    let (code, _, err) = run(&["lesson", "nosuch"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no bundled lesson \"nosuch\"; one of algorithms, simd"),
        "{err}"
    );
    let (code, out, _) = run(&["lesson"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.matches("\n  ").count(),
        spatial_query_lab::teaching::lesson::bundled::names().count(),
        "{out}"
    );
    let (code, _, err) = run(&["--lesson", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "the window refuses it before opening: {err}");
    assert!(err.starts_with("error: --lesson: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `--chart` path that cannot be written (wrong extension, a missing
/// folder, a folder itself) is one line and exit 2 before any measuring;
/// a good one is written after the table, which is printed in full.
#[test]
fn a_chart_path_is_checked_before_measuring_and_written_after_the_table() {
    let dir = std::env::temp_dir().join(format!("sql-cli-chart-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a-folder.svg")).unwrap();
    let cases = [
        (
            dir.join("chart.txt"),
            "the chart is written as FILE.svg or FILE.png",
        ),
        (dir.join("missing/chart.svg"), "does not exist"),
        (dir.join("a-folder.svg"), "is a folder, not a file"),
    ];
    for (path, says) in cases {
        let (code, out, err) = run(&["lesson", "simd", "--chart", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--chart") && err.contains(says), "{err}");
    }
    let good = dir.join("simd.svg");
    let (code, out, err) = run(&[
        "lesson",
        "simd",
        "--max-units",
        "1000",
        "--frames",
        "1",
        "--rounds",
        "1",
        "--chart",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| Scalar kernel |"), "{out}");
    assert!(std::fs::read_to_string(&good).unwrap().starts_with("<svg"));
    assert!(err.contains("chart written to"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file in the working folder named like a bundled lesson (or a
/// preset scenario) does not shadow it: the bare name runs the bundled lesson, `./NAME` reads the
/// file (here, its one-line error).
#[test]
fn a_bare_bundled_name_beats_a_file_of_that_name() {
    let dir = std::env::temp_dir().join(format!("sql-cli-shadow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("simd"), "not a lesson\n").unwrap();
    std::fs::write(dir.join("battle"), "not a scenario\n").unwrap();
    let preset = exe()
        .current_dir(&dir)
        .args([
            "bench",
            "--scenario",
            "battle",
            "--units",
            "500",
            "--frames",
            "1",
        ])
        .args([
            "--strategies",
            "grid",
            "--kernels",
            "scalar",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&preset.stderr);
    assert!(
        preset.status.success() && err.contains("scenario battle"),
        "{err}"
    );
    let quick = ["--max-units", "1000", "--frames", "1", "--rounds", "1"];
    let bare = exe()
        .current_dir(&dir)
        .args(["lesson", "simd"])
        .args(quick)
        .output()
        .unwrap();
    assert!(
        bare.status.success(),
        "{}",
        String::from_utf8_lossy(&bare.stderr)
    );
    assert!(String::from_utf8_lossy(&bare.stdout).contains("| Scalar kernel |"));
    let file = exe()
        .current_dir(&dir)
        .args(["lesson", "./simd"])
        .output()
        .unwrap();
    assert_eq!(file.status.code(), Some(2));
    let err = String::from_utf8_lossy(&file.stderr);
    assert!(err.starts_with("error: lesson: ./simd:1:"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `lesson caches --format json` at a cap: every working-set step's rows
/// are unit counts of its layout and order, ascending in working set from
/// below the L1d named in `machine`, each a `bench` row with
/// `ns_per_unit`; the cap is said in the texts.
#[test]
fn the_caches_lesson_json_sweeps_the_working_set_of_each_layout_and_order() {
    let (code, out, err) = run(&[
        "lesson",
        "caches",
        "--format",
        "json",
        "--max-units",
        "6000",
        "--frames",
        "1",
        "--rounds",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("working-set sweep step(s)"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let l1d = doc["machine"]["caches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["level"] == 1 && c["kind"] != "instruction")
        .map_or(32_768, |c| c["bytes"].as_u64().unwrap());
    let rows = doc["rows"].as_array().unwrap();
    let mut seen = Vec::new();
    for step in doc["steps"].as_array().unwrap() {
        let idx: Vec<usize> = step["sweep_rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        assert!(idx.len() >= 2, "{}", step["id"]);
        let of: Vec<&serde_json::Value> = idx.iter().map(|&i| &rows[i]).collect();
        let ws: Vec<u64> = of
            .iter()
            .map(|r| r["working_set_bytes"].as_u64().unwrap())
            .collect();
        assert!(ws.windows(2).all(|w| w[0] < w[1]), "{}: {ws:?}", step["id"]);
        assert!(ws[0] < l1d, "{}: starts inside the L1d: {ws:?}", step["id"]);
        assert!(of.iter().all(|r| r["units"].as_u64().unwrap() <= 6_000));
        assert!(of.iter().all(|r| r["ns_per_unit"].as_f64().unwrap() > 0.0));
        let (layout, reorder) = (of[0]["layout"].clone(), of[0]["reorder"].clone());
        assert!(of
            .iter()
            .all(|r| r["layout"] == layout && r["reorder"] == reorder));
        assert!(
            step["text"]
                .as_str()
                .unwrap()
                .contains("the cap of 6,000 units"),
            "{}",
            step["text"]
        );
        seen.push(format!("{layout}/{reorder}"));
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "\"aos\"/\"cells\"",
            "\"aos\"/\"off\"",
            "\"soa\"/\"cells\"",
            "\"soa\"/\"off\""
        ]
    );
    let curves = doc["working_set_sweeps"].as_array().unwrap();
    assert_eq!(curves.len(), 4);
}

/// The window's `--lesson` help names every bundled lesson.
#[test]
fn the_lesson_flag_help_names_every_bundled_lesson() {
    let (code, help, _) = run(&["--help"]);
    assert_eq!(code, 0);
    let line = help
        .lines()
        .find(|l| l.contains("--lesson <"))
        .expect("the --lesson flag");
    for n in spatial_query_lab::teaching::lesson::bundled::names() {
        assert!(line.contains(n), "--lesson help lacks {n}: {line}");
    }
}

/// The layouts lesson quotes the cache model: its JSON rows carry the
/// `model` object, and its texts the modeled misses.
#[test]
fn the_layouts_lesson_rows_carry_the_cache_model() {
    let (code, out, err) = run(&[
        "lesson",
        "layouts",
        "--format",
        "json",
        "--max-units",
        "3000",
        "--frames",
        "1",
        "--rounds",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in doc["rows"].as_array().unwrap() {
        let m = &r["model"];
        assert!(m["misses"].as_array().is_some_and(|v| !v.is_empty()), "{r}");
        assert_eq!(m["geometry"], "machine");
    }
    assert!(doc["steps"][0]["text"]
        .as_str()
        .unwrap()
        .contains("L1d misses"));
}

/// A lesson file with a prediction and notes: headless `lesson` prints the
/// question before it measures and the measured answer after; a bad
/// prediction is one line naming the file, line and field; `--step`
/// needs a lesson and a step it has.
#[test]
fn a_prediction_is_asked_before_measuring_and_answered_after() {
    let dir = std::env::temp_dir().join(format!("sql-cli-predict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("p.toml");
    let text = r#"title = "Predict"
frames = 1
settle = 0
rounds = 3
[settings]
units = 2000
[[steps]]
id = "naive"
title = "Naive"
settings = { strategy = "naive" }
notes = "Point at the counter."
text = "Naive: {query_ms} ms."
[[steps]]
id = "grid"
title = "Grid"
settings = { strategy = "grid" }
predict = { question = "The naive scan's time over the grid's?", answer = "{naive.query_ms / grid.query_ms}", unit = "x", choices = [1, 10, 100] }
text = "Grid: {verdict(grid.query_ms, naive.query_ms)}."
"#;
    std::fs::write(&good, text).unwrap();
    // Plain text: everything on stderr, in order.
    let (code, _, err) = run(&["lesson", good.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let asked = err
        .find("lesson: predict (step 2 of 2, Grid): The naive scan's time over the grid's? [1x / 10x / 100x]")
        .unwrap_or_else(|| panic!("{err}"));
    let measuring = err
        .find("% Grid, round 1 of 3")
        .unwrap_or_else(|| panic!("{err}"));
    let answered = err
        .find("    Answer: measured ")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(asked < measuring && measuring < answered, "{err}");
    let answer = err[answered..].lines().next().unwrap();
    assert!(
        answer.contains("x ("),
        "a ratio with its rounds' range: {answer}"
    );
    // Markdown: the question and the answer above the step's text.
    let (code, out, _) = run(&["lesson", good.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "**Predict:** The naive scan's time over the grid's?\n\n**Answer:** measured "
        ),
        "{out}"
    );
    // A crib sheet: the notes quoted under their step.
    let (code, out, _) = run(&["lesson", good.to_str().unwrap(), "--notes"]);
    assert_eq!(code, 0);
    let naive = out.find("## 1. Naive").unwrap_or_else(|| panic!("{out}"));
    let notes = out
        .find("> **Presenter notes:**\n> Point at the counter.")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        naive < notes && notes < out.find("## 2. Grid").unwrap(),
        "{out}"
    );
    let (_, out, _) = run(&["lesson", good.to_str().unwrap()]);
    assert!(!out.contains("Presenter notes"), "only with --notes: {out}");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, text.replace("grid.query_ms}", "grid.nope}")).unwrap();
    let (code, _, err) = run(&["lesson", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "error: lesson: {}:17: predict.answer: ",
            bad.display()
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = run(&["--step", "2"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: --step: needs --lesson"), "{err}");
    let (code, _, err) = run(&["--lesson", "algorithms", "--step", "5"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lesson algorithms has 3 steps (and its summary, 4); got 5"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
