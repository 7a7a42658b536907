//! Helpers shared by the spatial test files: which kernels to test and
//! shared thread pools.

#![allow(dead_code)]

pub mod equivalence;

use std::sync::OnceLock;

use spatial_query_lab::engine::spatial::Kernel;

/// Why a kernel cannot run on this CPU.
pub fn missing_feature(k: Kernel) -> &'static str {
    match k {
        Kernel::Scalar => "never (scalar runs everywhere)",
        Kernel::Sse => "CPU lacks SSE2",
        Kernel::Avx2 => "CPU lacks AVX2",
        Kernel::Avx512 => "CPU lacks AVX-512F",
        Kernel::Neon => "not an AArch64 CPU (NEON)",
        Kernel::Simd128 => "not a wasm32 module built with +simd128",
    }
}

/// The kernels this CPU runs (Scalar always first); prints the skipped ones and why.
pub fn kernels() -> Vec<Kernel> {
    for k in Kernel::ALL {
        if !k.is_available() {
            eprintln!("skipping kernel {}: {}", k.name(), missing_feature(k));
        }
    }
    quiet_kernels()
}

/// [`kernels`] without the printout (for property tests that run many cases).
pub fn quiet_kernels() -> Vec<Kernel> {
    let ks: Vec<Kernel> = Kernel::available().collect();
    assert_eq!(
        ks.first(),
        Some(&Kernel::Scalar),
        "the scalar kernel must always be available and tested"
    );
    // Every AArch64 CPU has NEON: on ARM (natively or under qemu) the NEON
    // kernel must be among the ones compared with the naive scan.
    if cfg!(target_arch = "aarch64") {
        assert!(
            ks.contains(&Kernel::Neon),
            "NEON not detected on AArch64: {ks:?}"
        );
    }
    // A wasm32 module built with SIMD128 (how tests/platforms.rs builds
    // the engine tests for WASI) must compare the SIMD128 kernel too.
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        assert!(
            ks.contains(&Kernel::Simd128),
            "SIMD128 missing from a +simd128 wasm32 build: {ks:?}"
        );
    }
    ks
}

/// `None` for one thread (the calling thread), else a shared pool of `t`
/// threads, `t` in 2..=4. `None` for every `t` on wasm32 (wasip1 has no
/// threads): every thread count then runs on the calling thread.
pub fn pool(t: usize) -> Option<&'static rayon::ThreadPool> {
    if cfg!(target_arch = "wasm32") {
        return None;
    }
    static POOLS: OnceLock<Vec<rayon::ThreadPool>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| {
        (2..=4)
            .map(|t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect()
    });
    match t {
        0 | 1 => None,
        t => Some(pools.get(t - 2).expect("pools exist for 2 to 4 threads")),
    }
}

/// Runs `f` on `t` threads: inside the shared pool of [`pool`] (the engine
/// takes its threads from the pool it runs in), or on the calling thread
/// for `t` <= 1.
pub fn run_in<R: Send>(t: usize, f: impl FnOnce() -> R + Send) -> R {
    match pool(t) {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// `n` points: uniform over `[0, l)^2`, or (clustered) half of them in a
/// few dense blobs.
pub fn points(n: usize, l: f32, clustered: bool, seed: u64) -> (Vec<f32>, Vec<f32>) {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let centers: Vec<(f32, f32)> = (0..4)
        .map(|_| {
            (
                rng.gen_range(0.2 * l..0.8 * l),
                rng.gen_range(0.2 * l..0.8 * l),
            )
        })
        .collect();
    (0..n)
        .map(|i| {
            if clustered && i % 2 == 0 {
                let (cx, cz) = centers[i % 4];
                let (dx, dz): (f32, f32) = (rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
                (
                    (cx + dx).clamp(0.0, l - 0.01),
                    (cz + dz).clamp(0.0, l - 0.01),
                )
            } else {
                (rng.gen_range(0.0..l), rng.gen_range(0.0..l))
            }
        })
        .unzip()
}
