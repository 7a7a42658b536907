//! Every closed set of names (strategies, kernels, layouts, orders, passes,
//! workloads, view choices) parses its own keys, names and aliases, and
//! serializes as its key.

use spatial_query_lab::engine::sim::{Layout, Pass, Reorder, Workload};
use spatial_query_lab::engine::spatial::{Kernel, Strategy};
use spatial_query_lab::named::Named;
use spatial_query_lab::settings::view::{ColorMode, UnitMeshKind, VertexLayout};

fn round_trips<T: Named + std::fmt::Debug + std::fmt::Display + serde::Serialize>() {
    for &v in T::all() {
        assert_eq!(
            serde_json::to_value(v).unwrap(),
            serde_json::Value::from(v.key()),
            "{v:?} serializes as its key"
        );
        assert_eq!(T::parse(v.key()), Some(v), "{v:?} by key");
        assert_eq!(T::parse(v.name()), Some(v), "{v:?} by name");
        assert_eq!(
            T::parse(&v.key().to_uppercase()),
            Some(v),
            "{v:?} upper case"
        );
        assert!(v.to_string() == v.name() || v.to_string() == v.key());
        for a in v.aliases() {
            assert_eq!(T::parse(a), Some(v), "{v:?} by alias {a}");
        }
    }
    assert_eq!(T::parse("no-such-value"), None);
    // No two values share a spelling.
    let mut seen = std::collections::HashSet::new();
    for &v in T::all() {
        assert!(seen.insert(v.key()), "duplicate key {}", v.key());
    }
}

#[test]
fn every_named_set_parses_its_own_spellings() {
    round_trips::<Strategy>();
    round_trips::<Kernel>();
    round_trips::<Layout>();
    round_trips::<Reorder>();
    round_trips::<Pass>();
    round_trips::<Workload>();
    round_trips::<ColorMode>();
    round_trips::<VertexLayout>();
    round_trips::<UnitMeshKind>();
    round_trips::<spatial_query_lab::settings::view::Geometry>();
}

#[test]
fn lists_read_as_a_sentence() {
    assert_eq!(Pass::keys_text(None), "collect or fused");
    assert_eq!(Strategy::keys_text(None), "naive, grid or sorted-grid");
    assert_eq!(
        Kernel::keys_text(Some("best")),
        "scalar, sse, avx2, avx512, neon, simd128 or best"
    );
    assert_eq!(Reorder::one_of(None), "one of off, cells, morton, resident");
}
