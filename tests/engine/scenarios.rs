//! Scenario files: every preset in `assets/scenarios/` loads and runs, a
//! broken file is answered with file, line, field and range and changes
//! nothing, and no text makes the parser panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use spatial_query_lab::engine::sim::{
    world_size, Layout, Pass, Reorder, Settings, Simulation, Workload, STANDARD_RADIUS,
};
use spatial_query_lab::engine::spatial::{Kernel, Strategy as Search};
use spatial_query_lab::settings::rows::{Row, ROWS};
use spatial_query_lab::settings::scenario::{self, Scenario, ScenarioView};
use spatial_query_lab::settings::view::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout};

fn presets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

#[test]
fn every_preset_loads_and_steps() {
    let files = scenario::list(&[presets()]);
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "battle",
        "clustered",
        "hotspot",
        "sparse-huge-world",
        "uniform",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
    for f in &files {
        let sc = Scenario::load(f).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !sc.description.is_empty(),
            "{}: no description",
            f.display()
        );
        let mut s = Settings::default();
        sc.apply(&mut s);
        // A smaller copy of the preset runs: a few frames, no panic, units kept.
        s.units = s.units.min(3_000);
        let mut sim = Simulation::new(&s);
        for _ in 0..3 {
            sim.step(1.0 / 60.0, &s);
        }
        assert_eq!(sim.len(), s.units, "{}", f.display());
        assert_eq!(sim.world, s.world_edge(), "{}", f.display());
    }
}

#[test]
fn presets_say_what_their_names_promise() {
    let load = |name: &str| {
        Scenario::load(&presets().join("scenarios").join(format!("{name}.toml"))).unwrap()
    };
    assert_eq!(load("battle").workload, Some(Workload::Battle));
    assert_eq!(load("hotspot").workload, Some(Workload::Hotspot));
    assert_eq!(load("clustered").workload, Some(Workload::Clustered));
    let sparse = load("sparse-huge-world");
    let mut s = Settings::default();
    sparse.apply(&mut s);
    // Far sparser than the standard density: at least 100x its world edge.
    assert!(
        s.world_edge() > 100.0 * world_size(s.units, STANDARD_RADIUS),
        "{}",
        s.world_edge()
    );
    assert_eq!(s.strategy, Search::Grid);
}

#[test]
fn a_broken_file_names_file_line_field_and_range_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("sql-scenarios-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"bad\"\nunits = 2000\nradius = 0\n").unwrap();
    let mut s = Settings {
        units: 4_321,
        seed: 5,
        ..Settings::default()
    };
    let before = s.clone();
    let e = scenario::load_into(&bad, &mut s).unwrap_err();
    assert!(s.same_work(&before) && s.cell_follows_radius == before.cell_follows_radius);
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}:3: radius: ", bad.display())),
        "{msg}"
    );
    assert!(
        msg.contains("0.01 to 10000 world units") && msg.ends_with("got 0"),
        "{msg}"
    );

    // A file that is not text, a folder, and a missing file: one line each.
    std::fs::write(&bad, [0xff, 0xfe, b'\n']).unwrap();
    assert!(scenario::load_into(&bad, &mut s)
        .unwrap_err()
        .to_string()
        .contains("not UTF-8"));
    assert!(scenario::load_into(&dir, &mut s)
        .unwrap_err()
        .to_string()
        .contains("not a file"));
    let missing = dir.join("missing.toml");
    assert!(scenario::load_into(&missing, &mut s)
        .unwrap_err()
        .to_string()
        .contains("cannot read"));
    assert!(s.same_work(&before));

    // A good file applies.
    std::fs::write(&bad, "units = 2000\nworld = 5000\n").unwrap();
    let sc = scenario::load_into(&bad, &mut s).unwrap();
    assert_eq!(
        (sc.name.as_str(), s.units, s.world_edge()),
        ("bad", 2000, 5000.0)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `good` (a line of a scenario file) parses and `check` holds for the
/// scenario and the settings it gives; each of `bad` (a line, its exact
/// message after `f.toml:3: `) is refused with that one line, two lines of
/// comments above it.
fn field_case(good: &str, check: impl Fn(&Scenario, &Settings) -> bool, bad: &[(&str, &str)]) {
    let sc = Scenario::parse(good, "f.toml", "f").unwrap_or_else(|e| panic!("{good}: {e}"));
    let mut s = Settings::default();
    sc.apply(&mut s);
    assert!(check(&sc, &s), "{good}: {sc:?} {s:?}");
    for (line, message) in bad {
        let text = format!("# a\n# b\n{line}\n");
        let e = Scenario::parse(&text, "f.toml", "f").unwrap_err();
        assert_eq!(e.to_string(), format!("f.toml:3: {message}"), "{line}");
    }
}

#[test]
fn kernel_takes_the_flag_names_and_best() {
    field_case(
        "kernel = \"scalar\"",
        |sc, s| sc.kernel == Some(Kernel::Scalar) && s.kernel == Kernel::Scalar,
        &[
            (
                "kernel = \"mmx\"",
                "kernel: must be one of scalar, sse, avx2, avx512, neon, simd128, best, got \"mmx\"",
            ),
            (
                "kernel = 2",
                "kernel: must be one of scalar, sse, avx2, avx512, neon, simd128, best, got 2",
            ),
        ],
    );
    field_case("kernel = \"best\"", |_, s| s.kernel == Kernel::best(), &[]);
}

#[test]
fn layout_takes_the_four_layouts() {
    field_case(
        "layout = \"aos-pointers\"",
        |_, s| s.layout == Layout::AosPointers,
        &[(
            "layout = \"fat\"",
            "layout: must be one of aos-pointers, aos, soa, hot-cold, got \"fat\"",
        )],
    );
    field_case(
        "layout = \"hot-cold\"",
        |_, s| s.layout == Layout::HotCold,
        &[],
    );
}

#[test]
fn reorder_takes_the_four_orders() {
    field_case(
        "reorder = \"off\"",
        |_, s| s.reorder == Reorder::Off,
        &[(
            "reorder = \"hilbert\"",
            "reorder: must be one of off, cells, morton, resident, got \"hilbert\"",
        )],
    );
}

#[test]
fn reorder_every_is_whole_frames_from_1_to_10000() {
    field_case(
        "reorder_every = 10000",
        |_, s| s.reorder_every == 10_000,
        &[
            (
                "reorder_every = 0",
                "reorder_every: must be 1 to 10000 frames, got 0",
            ),
            (
                "reorder_every = 10001",
                "reorder_every: must be 1 to 10000 frames, got 10001",
            ),
            (
                "reorder_every = 2.5",
                "reorder_every: must be a whole number from 1 to 10000 frames, got 2.5",
            ),
        ],
    );
}

#[test]
fn pass_takes_the_three_passes() {
    field_case(
        "pass = \"collect\"",
        |_, s| s.pass == Pass::Collect,
        &[(
            "pass = \"lists\"",
            "pass: must be one of collect, fused, got \"lists\"",
        )],
    );
}

#[test]
fn paused_is_true_or_false() {
    field_case(
        "paused = true",
        |_, s| s.paused,
        &[
            (
                "paused = \"yes\"",
                "paused: must be true or false, got \"yes\"",
            ),
            ("paused = 1", "paused: must be true or false, got 1"),
        ],
    );
    let mut s = Settings {
        paused: true,
        ..Settings::default()
    };
    Scenario::parse("paused = false", "f.toml", "f")
        .unwrap()
        .apply(&mut s);
    assert!(!s.paused);
}

/// The view values change no engine setting.
fn view_only(sc: &Scenario, s: &Settings) -> bool {
    *s == Settings::default() && sc.view != ScenarioView::default()
}

#[test]
fn color_takes_the_color_flag_names() {
    field_case(
        "color = \"neighbor-heat\"",
        |sc, s| view_only(sc, s) && sc.view.color == Some(ColorMode::NeighborHeat),
        &[(
            "color = \"rainbow\"",
            "color: must be one of team, neighbor-heat, memory-order, normal-error, got \"rainbow\"",
        )],
    );
}

#[test]
fn vertex_layout_is_compressed_or_uncompressed() {
    field_case(
        "vertex_layout = \"uncompressed\"",
        |sc, s| view_only(sc, s) && sc.view.vertex_layout == Some(VertexLayout::Uncompressed),
        &[(
            "vertex_layout = \"zip\"",
            "vertex_layout: must be one of compressed, uncompressed, got \"zip\"",
        )],
    );
}

#[test]
fn normal_bits_is_16_or_8() {
    field_case(
        "normal_bits = 8",
        |sc, s| view_only(sc, s) && sc.view.normal_bits == Some(NormalPrecision::Oct8),
        &[
            ("normal_bits = 12", "normal_bits: must be 16 or 8, got 12"),
            (
                "normal_bits = \"8\"",
                "normal_bits: must be 16 or 8, got \"8\"",
            ),
        ],
    );
}

#[test]
fn mesh_takes_the_three_meshes() {
    field_case(
        "mesh = \"infantry\"",
        |sc, s| view_only(sc, s) && sc.view.mesh == Some(UnitMeshKind::Infantry),
        &[(
            "mesh = \"dragon\"",
            "mesh: must be one of tank, infantry, vehicle, got \"dragon\"",
        )],
    );
}

#[test]
fn heatmap_is_true_or_false() {
    field_case(
        "heatmap = true",
        |sc, s| view_only(sc, s) && sc.view.heatmap == Some(true),
        &[(
            "heatmap = \"on\"",
            "heatmap: must be true or false, got \"on\"",
        )],
    );
}

/// The names of every named field's values, as the flags spell them.
/// The numeric fields: every row of the settings table with a range, and
/// the normal bits.
fn numeric_fields() -> Vec<&'static str> {
    ROWS.iter()
        .filter(|r| r.range.is_some())
        .map(|r| r.key)
        .chain(["normal_bits"])
        .collect()
}

fn names_of(field: &str) -> Vec<String> {
    fn keys<T: Copy>(all: &[T], key: fn(T) -> &'static str) -> Vec<String> {
        all.iter().map(|&v| key(v).to_string()).collect()
    }
    match field {
        "workload" => keys(&Workload::ALL, Workload::key),
        "strategy" => keys(&Search::ALL, Search::key),
        "kernel" => keys(&Kernel::ALL, Kernel::key),
        "layout" => keys(&Layout::ALL, Layout::key),
        "reorder" => keys(&Reorder::ALL, Reorder::key),
        "pass" => keys(&Pass::ALL, Pass::key),
        "color" => keys(&ColorMode::ALL, ColorMode::key),
        "vertex_layout" => keys(&VertexLayout::ALL, VertexLayout::key),
        "mesh" => keys(&UnitMeshKind::ALL, UnitMeshKind::key),
        _ => unreachable!("{field}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any text is answered, never with a panic; an error always names the file.
    #[test]
    fn any_text_parses_or_errs(
        text in prop_oneof!["\\PC{0,200}", "[a-z_]{1,10} = [\"'\\[{]{0,3}[\\PC\\n]{0,40}"]
    ) {
        if let Err(e) = Scenario::parse(&text, "f.toml", "f") {
            let line = e.to_string();
            prop_assert!(line.starts_with("f.toml"));
            prop_assert!(!line.contains('\n') && !line.contains('\r'), "not one line: {:?}", line);
        }
    }

    /// Valid fields with random values: within range they load, outside it
    /// the error names the field and its line. Every numeric row of the
    /// settings table, and the normal bits.
    #[test]
    fn numeric_fields_are_range_checked(
        field in prop::sample::select(numeric_fields()),
        value in prop_oneof![any::<i64>().prop_map(|v| v.to_string()), any::<f64>().prop_map(|v| format!("{v:?}")), Just("nan".to_string()), Just("-inf".to_string())],
        line in 0usize..4,
    ) {
        let text = format!("{}{field} = {value}\n", "# pad\n".repeat(line));
        match Scenario::parse(&text, "f.toml", "f") {
            Ok(sc) => {
                let mut s = Settings::default();
                sc.apply(&mut s);
                prop_assert!(s.units >= 1 && s.units <= scenario::MAX_UNITS);
                prop_assert!(s.radius.is_finite() && s.radius > 0.0);
                prop_assert!(s.cell_size.is_finite() && s.cell_size > 0.0);
                prop_assert!(s.world_edge().is_finite() && s.world_edge() > 0.0);
                prop_assert!((1..=10_000).contains(&s.reorder_every));
                if field == "normal_bits" {
                    prop_assert!(value == "16" || value == "8", "{}", value);
                } else if let Some(row) = Row::by_key(field) {
                    // What loaded lies in the row's range, exactly as written.
                    let got = s.value(field).map(|v| v.text).unwrap_or_default();
                    prop_assert!(row.parse_count(&got).is_ok() || row.parse_number(&got).is_ok(), "{} = {} loaded as {}", field, value, got);
                }
            }
            Err(e) => {
                prop_assert_eq!(e.line, Some(line + 1), "{}", e);
                // A float where an integer is expected is a type error,
                // which toml reports without the field's name.
                if e.field.is_some() {
                    prop_assert_eq!(e.field.as_deref(), Some(field));
                }
            }
        }
    }

    /// Named fields: a flag's name loads, any other text is refused with
    /// the one line that lists the names.
    #[test]
    fn named_fields_take_exactly_the_flag_names(
        field in prop::sample::select(vec!["workload", "strategy", "kernel", "layout", "reorder", "pass", "color", "vertex_layout", "mesh"]),
        pick in any::<prop::sample::Index>(),
        // No name or short form (`sse2`, `csr`, `heat`) starts with x.
        other in "x[a-z0-9-]{0,11}",
        use_name in any::<bool>(),
    ) {
        let names = names_of(field);
        let value = if use_name { names[pick.index(names.len())].clone() } else { other };
        let text = format!("{field} = \"{value}\"\n");
        let known = names.contains(&value) || (field == "kernel" && value == "best");
        match Scenario::parse(&text, "f.toml", "f") {
            Ok(_) => prop_assert!(known, "{} accepted", text),
            Err(e) => {
                prop_assert!(!known, "{}: {}", text, e);
                let extra = if field == "kernel" { ", best" } else { "" };
                prop_assert_eq!(
                    e.to_string(),
                    format!("f.toml:1: {field}: must be one of {}{extra}, got \"{value}\"", names.join(", "))
                );
            }
        }
    }

    /// Bool fields: `true` and `false` load, any other value is refused
    /// with one line naming the field.
    #[test]
    fn bool_fields_take_true_or_false(
        field in prop::sample::select(vec!["paused", "heatmap"]),
        value in prop_oneof![Just("true".to_string()), Just("false".to_string()), any::<i64>().prop_map(|v| v.to_string()), "\"[a-z]{0,6}\""],
    ) {
        let text = format!("{field} = {value}\n");
        match Scenario::parse(&text, "f.toml", "f") {
            Ok(sc) => {
                prop_assert!(value == "true" || value == "false");
                let got = if field == "paused" { sc.paused } else { sc.view.heatmap };
                prop_assert_eq!(got, Some(value == "true"));
            }
            Err(e) => prop_assert_eq!(
                e.to_string(),
                format!("f.toml:1: {field}: must be true or false, got {value}")
            ),
        }
    }
}
