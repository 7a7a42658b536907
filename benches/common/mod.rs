//! Settings shared by the criterion benchmarks.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode, Throughput};

/// 10 samples, flat sampling, 1 s warm-up, 2 s measurement, throughput in
/// `elements` (units). Every routine takes milliseconds or more: equal
/// iteration counts per sample keep the run within the target time (linear
/// sampling overruns).
pub fn configure(group: &mut BenchmarkGroup<'_, WallTime>, elements: u64) {
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(elements));
}
