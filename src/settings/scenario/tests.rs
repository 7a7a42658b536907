//! The scenario files' tests: every field parsed, applied and overlaid, and every bad file answered in one line.

use super::*;
use crate::engine::sim::{Layout, Pass, Reorder, Workload};
use crate::engine::spatial::{Kernel, Strategy};
use crate::settings::view::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout};

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::parse(text, "t.toml", "t")
}

#[test]
fn a_full_file_round_trips_into_settings() {
    let s = parse(
        "name = \"x\"\nunits = 2000\nworkload = \"battle\"\nseed = 7\nworld = 5000\nradius = 12.5\ncell_size = 20\nspeed = 2\nseparation = 0\nstrategy = \"sorted-grid\"\nthreads = 2\n",
    )
    .unwrap();
    let mut set = Settings::default();
    s.apply(&mut set);
    assert_eq!(
        (set.units, set.workload, set.seed, set.world, set.radius),
        (2000, Workload::Battle, 7, Some(5000.0), 12.5)
    );
    assert_eq!((set.cell_size, set.cell_follows_radius), (20.0, false));
    assert_eq!(
        (set.speed, set.separation, set.strategy, set.threads),
        (2.0, 0.0, Strategy::SortedGrid, 2)
    );
    assert_eq!(set.world_edge(), 5000.0);
}

#[test]
fn engine_and_view_fields_round_trip() {
    let s = parse(
        "kernel = \"scalar\"\nlayout = \"aos-pointers\"\nreorder = \"morton\"\nreorder_every = 4\npass = \"collect\"\npaused = true\ncolor = \"memory-order\"\nvertex_layout = \"uncompressed\"\nnormal_bits = 8\nmesh = \"vehicle\"\nheatmap = true\ncache_model = \"classroom\"\n",
    )
    .unwrap();
    let mut set = Settings::default();
    s.apply(&mut set);
    assert_eq!(
        (set.kernel, set.layout, set.reorder, set.reorder_every),
        (Kernel::Scalar, Layout::AosPointers, Reorder::Morton, 4)
    );
    assert_eq!((set.pass, set.paused), (Pass::Collect, true));
    assert_eq!(
        s.view,
        ScenarioView {
            color: Some(ColorMode::MemoryOrder),
            vertex_layout: Some(VertexLayout::Uncompressed),
            normal_bits: Some(NormalPrecision::Oct8),
            mesh: Some(UnitMeshKind::Vehicle),
            heatmap: Some(true),
            cache_model: Some(crate::settings::view::Geometry::Classroom),
        }
    );
    // Fields the file leaves out keep their values.
    let mut kept = set.clone();
    parse("units = 3000").unwrap().apply(&mut kept);
    assert_eq!(
        (kept.kernel, kept.layout, kept.pass, kept.paused),
        (set.kernel, set.layout, set.pass, set.paused)
    );
    assert_eq!(parse("").unwrap().view, ScenarioView::default());
}

#[test]
fn every_field_is_listed_and_described() {
    for f in FIELDS {
        let file = match f {
            "name" | "description" => format!("{f} = 5"),
            _ => format!("{f} = [1]"),
        };
        let e = parse(&file).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(f), "{e}");
        assert!(e.message.starts_with("must be "), "{e}");
    }
}

#[test]
fn a_kernel_this_cpu_lacks_runs_scalar_with_a_note() {
    assert_eq!(
        parse("kernel = \"best\"").unwrap().kernel,
        Some(Kernel::best())
    );
    assert_eq!(
        parse("kernel = \"BEST\"").unwrap().kernel,
        Some(Kernel::best())
    );
    assert_eq!(parse("kernel = \"best\"").unwrap().kernel_note(), None);
    // NEON on x86_64, the x86 kernels on AArch64 and wasm32: one is always missing.
    let lacking = Kernel::ALL.into_iter().find(|k| !k.is_available()).unwrap();
    let sc = parse(&format!("kernel = \"{}\"", lacking.key())).unwrap();
    assert_eq!(sc.kernel, Some(lacking));
    let mut set = Settings::default();
    sc.apply(&mut set);
    assert_eq!(set.kernel, Kernel::Scalar);
    assert_eq!(
        sc.kernel_note().unwrap(),
        format!("{}; using Scalar", lacking.absent_reason().unwrap())
    );
}

#[test]
fn an_empty_file_keeps_the_defaults_and_takes_the_stem_as_name() {
    let s = parse("").unwrap();
    assert_eq!(s.name, "t");
    let mut set = Settings::default();
    s.apply(&mut set);
    let d = Settings::default();
    assert!(set.same_work(&d));
    assert!(set.cell_follows_radius);
}

#[test]
fn out_of_range_values_name_line_field_and_range() {
    let e = parse("units = 5\nradius = -3\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    assert_eq!(e.field.as_deref(), Some("radius"));
    assert_eq!(
        e.to_string(),
        "t.toml:2: radius: must be 0.01 to 10000 world units, got -3"
    );
    let e = parse("\n\nunits = 0").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml:3: units: must be 1 to 1000000 units, got 0"
    );
    let e = parse("seed = -1").unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(1), Some("seed")));
    let e = parse("speed = nan").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("speed"));
    let e = parse("world = inf").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("world"));
}

#[test]
fn syntax_type_and_unknown_field_errors_have_a_line() {
    let e = parse("units = 10\nradius = \n").unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    let e = parse("units = \"many\"").unwrap_err();
    assert_eq!(e.line, Some(1), "{e}");
    assert_eq!(
        e.to_string(),
        "t.toml:1: units: must be a whole number from 1 to 1000000 units, got \"many\""
    );
    let e = parse("\nunits = 5000.5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml:2: units: must be a whole number from 1 to 1000000 units, got 5000.5"
    );
    let e = parse("seed = 99999999999999999999").unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(1), Some("seed")), "{e}");
    let e = parse("radius = 1e400").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("t.toml:1: radius: must be a number from 0.01 to 10000 world units"),
        "{e}"
    );
    let e = parse("units = '''\nmany\nlines'''").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml:1: units: must be a whole number from 1 to 1000000 units, got '''..."
    );
    let e = parse("name = 5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml:1: name: must be text in quotes, got 5"
    );
    let e = parse("[radius]\nx = 1").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("radius"), "{e}");
    // Syntax errors keep toml's words, with the field of their line.
    let e = parse("units = 1\nunits = 2").unwrap_err();
    assert_eq!(e.to_string(), "t.toml:2: units: duplicate key");
    // A quoted key with a newline in it still gives one line.
    let e = parse("\"a\\nb\" = 1").unwrap_err();
    assert!(!e.to_string().contains('\n'), "{e}");
    let e = parse("units = 10\nradiuss = 4").unwrap_err();
    assert_eq!(
        (e.line, e.field.as_deref()),
        (Some(2), Some("radiuss")),
        "{e}"
    );
    let e = parse("workload = \"swarm\"").unwrap_err();
    assert!(
        e.to_string()
            .contains("uniform, clustered, hotspot, battle"),
        "{e}"
    );
    let e = parse("strategy = \"kd\"").unwrap_err();
    assert!(e.to_string().starts_with("t.toml:1: strategy: "), "{e}");
}

#[test]
fn integers_are_accepted_for_float_fields() {
    assert_eq!(parse("radius = 10").unwrap().radius, Some(10.0));
}
