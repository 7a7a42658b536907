//! Soak test: 10,000 headless frames with the settings changed
//! at random every few frames (seeded), asserting no panic, neighbor counts
//! equal to a brute-force scan on sampled frames, and resident memory that
//! stops growing after the warm-up.

mod common;
use common::*;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spatial_query_lab::engine::sim::{Layout, Pass, Reorder, Settings, Simulation, Workload};
use spatial_query_lab::engine::spatial::{Query, Strategy};

const FRAMES: usize = 10_000;
/// Frames between two random changes of the settings.
const CHANGE_EVERY: usize = 5;
/// Frames between two brute-force checks.
const CHECK_EVERY: usize = 250;
/// Frames before the memory baseline is taken.
const WARMUP: usize = 2_500;

/// Resident set size in bytes from /proc/self/statm (`None` off Linux).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Per-unit neighbor counts from the brute-force definition
/// ([`common::equivalence::brute`], self excluded).
fn brute_counts(sim: &Simulation, r: f32) -> Vec<usize> {
    let u = sim.store().to_units();
    (0..u.len())
        .map(|i| {
            let q = Query {
                exclude: i as u32,
                ..Query::new(u.x[i], u.z[i], r)
            };
            common::equivalence::brute(&u.x, &u.z, &q).len()
        })
        .collect()
}

/// Changes one to three settings at random.
fn change(
    s: &mut Settings,
    rng: &mut ChaCha8Rng,
    kernels: &[spatial_query_lab::engine::spatial::Kernel],
) {
    for _ in 0..rng.gen_range(1..=3) {
        match rng.gen_range(0..10) {
            0 => s.strategy = Strategy::ALL[rng.gen_range(0..Strategy::ALL.len())],
            1 => s.kernel = kernels[rng.gen_range(0..kernels.len())],
            2 => s.threads = rng.gen_range(1..=3),
            3 => s.reorder = Reorder::ALL[rng.gen_range(0..Reorder::ALL.len())],
            4 => s.layout = Layout::ALL[rng.gen_range(0..Layout::ALL.len())],
            5 => s.pass = Pass::ALL[rng.gen_range(0..Pass::ALL.len())],
            6 => s.units = rng.gen_range(200..=2_500),
            7 => s.radius = rng.gen_range(2.0..25.0),
            8 => {
                s.cell_follows_radius = rng.gen_bool(0.3);
                s.cell_size = if s.cell_follows_radius {
                    s.radius
                } else {
                    rng.gen_range(2.0..40.0)
                };
            }
            _ => s.workload = Workload::ALL[rng.gen_range(0..Workload::ALL.len())],
        }
    }
    if s.cell_follows_radius {
        s.cell_size = s.radius;
    }
}

#[test]
fn ten_thousand_frames_of_random_settings() {
    let kernels = quiet_kernels();
    let mut rng = ChaCha8Rng::seed_from_u64(0x50a6);
    let mut s = Settings {
        units: 1_500,
        speed: 1.0,
        ..Settings::default()
    };
    let mut sim = Simulation::new(&s);
    let mut baseline: Option<u64> = None;
    let mut peak_after = 0u64;
    let mut checks = 0;
    for frame in 0..FRAMES {
        if frame % CHANGE_EVERY == 0 {
            change(&mut s, &mut rng, &kernels);
        }
        let st = sim.step(1.0 / 60.0, &s);
        let ctx = || {
            format!(
                "frame {frame}: {} units, {}/{}/{} threads, {}, {}, {}, r {}, cell {}",
                s.units,
                s.strategy,
                s.kernel,
                s.threads,
                s.layout,
                s.pass,
                s.reorder,
                s.radius,
                s.cell_size
            )
        };
        if frame % CHECK_EVERY == CHECK_EVERY - 1 {
            // Positions are those the step queried (apply changes velocities only).
            let want = brute_counts(&sim, s.radius);
            let total: usize = want.iter().sum();
            assert_eq!(st.query.neighbors as usize, total, "{}", ctx());
            for i in (0..sim.len()).step_by(37) {
                assert_eq!(sim.neighbor_count(i), want[i], "{}: unit {i}", ctx());
            }
            checks += 1;
        }
        if frame == WARMUP {
            baseline = resident_bytes();
        }
        if frame > WARMUP && frame % 500 == 0 {
            peak_after = peak_after.max(resident_bytes().unwrap_or(0));
        }
    }
    assert_eq!(checks, FRAMES / CHECK_EVERY);
    if let Some(base) = baseline {
        // Stops growing: no more than 32 MiB (or 25%) above the warm-up's level.
        let allowed = base + (base / 4).max(32 << 20);
        assert!(
            peak_after <= allowed,
            "resident memory grew from {} MiB after warm-up to {} MiB",
            base >> 20,
            peak_after >> 20
        );
    }
}
