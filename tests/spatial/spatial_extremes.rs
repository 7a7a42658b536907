//! Extreme values for the spatial-query engine: worlds far from the origin
//! (a cell only a few floats wide), finite coordinates near `f32::MAX` on
//! one or both axes, distances whose squares underflow across the border at
//! zero, and cell indices beyond `i64`. Every strategy x every available
//! kernel x thread counts must return exactly the sets of the definition
//! (`common::equivalence::brute`), as in `tests/spatial_equivalence.rs`.

use crate::common;
use common::equivalence::*;
use common::*;

use proptest::prelude::{prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig};
use spatial_query_lab::engine::spatial::Query;

/// Far from the origin, a cell is only a few floats wide: the block's float
/// margin must still cover every point the distance test accepts.
fn far_world() -> impl proptest::strategy::Strategy<Value = (f32, Vec<(f32, f32)>)> {
    (
        prop_oneof![
            Just(0.0f32),
            Just(1e4),
            Just(-1e5),
            Just(1e6),
            Just(-3e7),
            Just(1e9)
        ],
        proptest::collection::vec((-50.0f32..50.0, -50.0f32..50.0), 0..80),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn prop_far_from_origin(
        (base, offs) in far_world(),
        cell in 0.01f32..=50.0,
        qs in proptest::collection::vec((-60.0f32..=60.0, -60.0f32..=60.0, 0.0f32..=60.0), 1..6),
        per_unit_r in 0.0f32..=20.0,
    ) {
        let x: Vec<f32> = offs.iter().map(|p| base + p.0).collect();
        let z: Vec<f32> = offs.iter().map(|p| base - p.1).collect();
        let queries: Vec<Query> = qs.iter().map(|&(a, b, r)| Query::new(base + a, base - b, r)).collect();
        let res = check_all(&x, &z, &queries, cell);
        prop_assert_eq!(res.len(), queries.len());
        check_per_unit(&x, &z, per_unit_r, cell);
    }
}

#[test]
fn extreme_finite_coordinates_on_one_axis() {
    let ks = kernels();
    let big = [
        1e19f32,
        -1e19,
        3e38,
        -3e38,
        f32::MAX,
        -f32::MAX,
        1e-45,
        -1e-45,
        f32::MIN_POSITIVE,
    ];
    let mut x: Vec<f32> = big.to_vec();
    let mut z: Vec<f32> = vec![1.0; big.len()];
    for i in 0..40 {
        x.push(i as f32 * 0.5);
        z.push((i % 7) as f32);
    }
    let queries = [
        Query::new(0.0, 1.0, 5.0),
        Query::new(0.0, 0.0, 1e18),
        Query::new(1e19, 1.0, 1e12),
        Query::new(f32::MAX, 1.0, 1e19),
        Query::new(-3e38, 1.0, 0.0),
        Query::new(0.0, 1.0, 0.0),
        Query::new(1e-45, 1.0, 1e-45),
    ];
    for cell in [1.0f32, 1e-6, 10.0, 1e30] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        assert!(
            res[2].contains(&0),
            "cell {cell}: (1e19, 1) is found from itself"
        );
        assert!(
            res[3].contains(&4),
            "cell {cell}: (f32::MAX, 1) is found from itself"
        );
        check_per_unit_with(&ks, &x, &z, 3.0, cell);
    }
}

#[test]
fn extreme_finite_coordinates_on_both_axes() {
    let ks = kernels();
    // Finite positions whose cell index saturates i64 on both axes.
    let x = vec![-1e19f32, 1e19, 0.0, 0.5];
    let z = vec![-1e19f32, 1e19, 0.0, 0.5];
    let queries = [Query::new(0.0, 0.0, 1.0), Query::new(1e19, 1e19, 1.0)];
    for cell in [1.0f32, 1e-6] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        assert_eq!(res[0], vec![2, 3], "cell {cell}");
        assert_eq!(res[1], vec![1], "cell {cell}");
        check_per_unit_with(&ks, &x, &z, 1.0, cell);
    }
}

/// Distances whose squares underflow to 0 in f32: the distance test accepts
/// them even for r = 0, so every strategy must search the cell across the
/// border at 0 too.
#[test]
fn underflowing_distances_across_the_border_at_zero() {
    let ks = kernels();
    let x = vec![-1e-30f32, 1e-30, 0.0, -1e-25, 5.0];
    let z = vec![0.0f32, 0.0, -1e-30, 0.0, 5.0];
    let queries = [
        Query::new(0.0, 0.0, 0.0),
        Query::new(1e-25, 0.0, 0.0),
        Query::new(0.0, 0.0, 1e-25),
        Query::new(0.0, 1e-31, 0.0),
    ];
    for cell in [1.0f32, 10.0, 1e-3] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        // dx*dx + dz*dz underflows to 0 <= r*r = 0 for all four tiny points.
        assert_eq!(res[0], vec![0, 1, 2, 3], "cell {cell}");
        check_per_unit_with(&ks, &x, &z, 0.0, cell);
    }
}

/// `GridGeometry::coord` is documented to saturate beyond `i64` (and the
/// geometry relies on it for huge coordinates and tiny cells).
#[test]
fn cell_index_saturates_beyond_i64() {
    let g = spatial_query_lab::engine::spatial::GridGeometry {
        cell: 1.0,
        ..Default::default()
    };
    let cases = [
        (f32::INFINITY, i64::MAX),
        (1e19, i64::MAX),
        (9.3e18, i64::MAX),
        (-9.223372e18, i64::MIN),
        (f32::NAN, 0),
        (-0.3, -1),
        (-1e19, i64::MIN),
        (-3e38, i64::MIN),
        (f32::NEG_INFINITY, i64::MIN),
    ];
    for (v, want) in cases {
        let got = std::panic::catch_unwind(|| g.coord(v));
        assert!(
            matches!(got, Ok(c) if c == want),
            "coord({v}) with cell 1: want {want}, got {got:?}"
        );
    }
    let tiny = spatial_query_lab::engine::spatial::GridGeometry {
        cell: 1e-45,
        ..Default::default()
    };
    let got = std::panic::catch_unwind(|| tiny.coord(-20.0));
    assert!(
        matches!(got, Ok(i64::MIN)),
        "coord(-20) with cell 1e-45 (-20 / 1e-45 = -inf): want i64::MIN, got {got:?}"
    );
}
