//! Scenario files: every preset in `assets/scenarios/` loads and runs, a
//! broken file is answered with file, line, field and range and changes
//! nothing, and no text makes the parser panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use spatial_query_lab::scenario::{self, Scenario};
use spatial_query_lab::sim::{world_size, Settings, Simulation, Workload, STANDARD_RADIUS};
use spatial_query_lab::spatial::Strategy as Search;

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
    /// the error names the field and its line.
    #[test]
    fn numeric_fields_are_range_checked(
        field in prop::sample::select(vec!["units", "seed", "world", "radius", "cell_size", "speed", "separation", "threads"]),
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
}
