//! Fuzzes the query API: arbitrary points (NaN, infinities, huge values
//! included), cell size and query; every strategy and every kernel this CPU
//! runs must return the same set as the naive scan with the scalar kernel,
//! the reference every other path is tested against.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spatial_query_lab::engine::spatial::{Kernel, Points, Query, Strategy};

#[derive(Arbitrary, Debug)]
struct Input {
    points: Vec<(f32, f32)>,
    cell_size: f32,
    cx: f32,
    cz: f32,
    r: f32,
    exclude: u32,
}

fuzz_target!(|input: Input| {
    let n = input.points.len().min(4096);
    let x: Vec<f32> = input.points[..n].iter().map(|p| p.0).collect();
    let z: Vec<f32> = input.points[..n].iter().map(|p| p.1).collect();
    let points = Points::new(&x, &z);
    let q = Query {
        exclude: input.exclude,
        ..Query::new(input.cx, input.cz, input.r)
    };
    let mut reference = Strategy::Naive.create();
    reference.rebuild(points, input.cell_size);
    let mut want = Vec::new();
    reference.query(points, &q, Kernel::Scalar, &mut want);
    want.sort_unstable();
    for st in Strategy::ALL {
        let mut index = st.create();
        index.rebuild(points, input.cell_size);
        for kernel in Kernel::available() {
            let mut got = Vec::new();
            index.query(points, &q, kernel, &mut got);
            got.sort_unstable();
            assert_eq!(got, want, "{st} {kernel:?}");
        }
    }
});
