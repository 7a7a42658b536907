//! The roofline of a frame: how close each phase of a measured CSR-grid
//! frame comes to the two limits of this machine, memory bandwidth and the
//! cost of one distance test.
//!
//! Both limits are measured here, on the spot: [`bandwidth`] times a large
//! copy (read + write) on the frame's threads, and [`candidate_cost`] times
//! the fused multi-query kernel on an L1-resident block. The bytes each phase
//! must move are a model of the frame's arrays ([`phase_bytes`]): the least
//! traffic the phase's algorithm needs, every array read or written once,
//! never a miss counted twice. A phase's limit is the larger of its memory
//! time (bytes / bandwidth) and, for the query, its compute time (candidate
//! tests x cost / threads); "% of limit" is limit / measured, so 100% means
//! the phase runs at the machine's limit and 20% that it takes five times
//! longer than the limit. The roofline model: S. Williams, A. Waterman,
//! D. Patterson, "Roofline: an insightful visual performance model for
//! multicore architectures", CACM 52(4), 2009.

use crate::platform::clock::Instant;

use rayon::prelude::*;

use super::BenchRow;
use crate::engine::sim::{Layout, Pass};
use crate::engine::spatial::kernels::driver::GROUP;
use crate::engine::spatial::{FusedQuery, Kernel, KernelQuery, Near, Strategy};
use crate::measure::row::kernel_key;

/// Bytes copied by [`bandwidth`] (256 MiB, far beyond any cache here).
const COPY_BYTES: usize = 256 << 20;

/// Best-of-five memory bandwidth of a large copy with `threads` threads,
/// bytes per second, counting the bytes read plus the bytes written.
/// Allocates two buffers of 256 MiB for the duration of the call.
pub fn bandwidth(threads: usize) -> f64 {
    let n = COPY_BYTES / 4;
    let src: Vec<u32> = (0..n as u32).collect();
    let mut dst = vec![0u32; n];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build();
    let size = n.div_ceil(threads.max(1));
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        match &pool {
            Ok(p) if threads > 1 => p.install(|| {
                dst.par_chunks_mut(size)
                    .zip(src.par_chunks(size))
                    .for_each(|(d, s)| d.copy_from_slice(s))
            }),
            _ => dst.copy_from_slice(&src),
        }
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    2.0 * COPY_BYTES as f64 / best
}

/// Seconds per distance test of the fused multi-query kernel `kernel` on
/// one thread, with everything in L1: a block of three rows of 16 entries
/// tested against groups of [`GROUP`] / 2 queries (the mean group of the
/// uniform workload is about 4.4), about 16 neighbors each.
pub fn candidate_cost(kernel: Kernel) -> f64 {
    const ROW: usize = 16;
    let entries = 3 * ROW;
    let x: Vec<f32> = (0..entries).map(|k| (k % ROW) as f32 * 1.3).collect();
    let z: Vec<f32> = (0..entries).map(|k| (k / ROW) as f32 * 9.0).collect();
    let ids: Vec<u32> = (0..entries as u32).collect();
    let team: Vec<u32> = (0..entries as u32).map(|k| k % 2).collect();
    let ranges = [(0u32, 16u32), (16, 32), (32, 48)];
    let g = GROUP / 2;
    let qs: Vec<FusedQuery> = (0..g)
        .map(|k| {
            let q = KernelQuery {
                cx: 8.0 + k as f32,
                cz: 9.0,
                r2: 100.0,
                exclude: k as u32,
            };
            FusedQuery::new(q, (k % 2) as u8)
        })
        .collect();
    let mut out = vec![Near::default(); g];
    let calls = 200_000usize;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..calls {
            kernel.run_fused(
                (&x, &z, &ids, &team),
                std::hint::black_box(&ranges),
                &qs,
                &mut out,
                true,
            );
        }
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&out);
    }
    best / (calls * entries * g) as f64
}

/// The least bytes each phase of one CSR-grid frame moves for `units` units
/// with `neighbors` pairs, as `[move, rebuild, query, apply]`:
/// - move: read and write x, z, vx, vz (32 B per unit);
/// - rebuild: bounds (read x, z), cells and counts (read x, z, write the
///   unit's cell), scatter (read cell, x, z, team; write x, z, id, team):
///   49 B per unit;
/// - query: read the sorted x, z, id, team once and the units' x, z, team
///   (25 B), then fused: write one [`Near`] (24 B); collect: write 4 B per
///   neighbor and per unit;
/// - apply: fused: read the aggregates (24 B), then, where the layout
///   steers in place ([`Layout::steers_in_place`]), read the velocity and
///   danger (12 B) and write them and the enemy count (14 B); otherwise
///   read them through the layout, write a steering record and copy it
///   back (12 + 16 + 16 + 14 B); collect: pack x, z, team (9 B read, 12 B
///   written), read the lists (4 B per neighbor and per unit) and one
///   12-byte record per neighbor, then the steering through the record.
pub fn phase_bytes(pass: Pass, layout: Layout, units: u64, neighbors: u64) -> [f64; 4] {
    let n = units as f64;
    let pairs = neighbors as f64;
    let steer = 12.0 + 16.0 + 16.0 + 14.0;
    let (query, apply) = match pass {
        Pass::Fused if layout.steers_in_place() => (25.0 * n + 24.0 * n, (24.0 + 12.0 + 14.0) * n),
        Pass::Fused => (25.0 * n + 24.0 * n, 24.0 * n + steer * n),
        Pass::Collect => (
            25.0 * n + 4.0 * (pairs + n),
            21.0 * n + 4.0 * (pairs + n) + 12.0 * pairs + steer * n,
        ),
    };
    [32.0 * n, 49.0 * n, query, apply]
}

/// The roofline table of the CSR-grid rows of `rows` (Markdown), with the
/// bandwidth measured for each thread count in them and the candidate cost
/// of each kernel in them. Runs the measurements (a few seconds).
pub fn table(rows: &[BenchRow]) -> String {
    let sorted: Vec<&BenchRow> = rows
        .iter()
        .filter(|r| r.settings.strategy == Strategy::SortedGrid && r.skipped.is_none())
        .collect();
    if sorted.is_empty() {
        return "Roofline: no measured sorted-grid row (the model covers the CSR grid only).\n"
            .to_string();
    }
    let mut threads: Vec<usize> = sorted.iter().map(|r| r.settings.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let bw: Vec<(usize, f64)> = threads.iter().map(|&t| (t, bandwidth(t))).collect();
    // In the order of their keys, as the table lists them.
    let mut kernels: Vec<Option<Kernel>> = sorted.iter().map(|r| r.kernel()).collect();
    kernels.sort_unstable_by_key(|&k| kernel_key(k));
    kernels.dedup();
    let cost: Vec<(Option<Kernel>, f64)> = kernels
        .iter()
        .map(|&k| (k, candidate_cost(k.unwrap_or(Kernel::Scalar))))
        .collect();
    let mut s = String::from("Measured limits: ");
    for (t, b) in &bw {
        s += &format!("memory copy {:.1} GB/s on {t} thread(s); ", b / 1e9);
    }
    for &(k, c) in &cost {
        let k = kernel_key(k);
        s += &format!("{k} fused kernel {:.3} ns per candidate test; ", c * 1e9);
    }
    s.truncate(s.trim_end_matches("; ").len());
    let mut floors = Vec::new();
    s += ".\n\n| units | reorder | pass | kernel | threads | phase | MB moved | memory limit ms | compute limit ms | measured ms | % of limit |\n|---:|---|---|---|---:|---|---:|---:|---:|---:|---:|\n";
    for r in sorted {
        let b = bw
            .iter()
            .find(|(t, _)| *t == r.settings.threads)
            .map_or(1.0, |x| x.1);
        let c = cost
            .iter()
            .find(|(k, _)| *k == r.kernel())
            .map_or(0.0, |x| x.1);
        let bytes = phase_bytes(
            r.settings.pass,
            r.settings.layout,
            r.settings.units as u64,
            r.neighbors,
        );
        let ms = r.ms();
        let measured = [ms.move_, ms.rebuild, ms.query, ms.apply];
        let limits = phase_limits(&bytes, b, r.candidates, c, r.settings.threads);
        floors.push(FrameFloor::of(r, &bytes, b, &limits));
        for (k, name) in ["move", "rebuild", "query", "apply"].iter().enumerate() {
            let (mem_ms, compute_ms) = limits[k];
            let limit = mem_ms.max(compute_ms);
            s += &format!(
                "| {} | {} | {} | {} | {} | {name} | {:.1} | {:.3} | {} | {:.3} | {:.0}% |\n",
                r.settings.units,
                r.settings.reorder.key(),
                r.settings.pass.key(),
                r.kernel_key(),
                r.settings.threads,
                bytes[k] / 1e6,
                mem_ms,
                if k == 2 {
                    format!("{compute_ms:.3}")
                } else {
                    "-".to_string()
                },
                measured[k],
                if measured[k] > 0.0 {
                    limit / measured[k] * 100.0
                } else {
                    0.0
                }
            );
        }
    }
    s += "\nThe frame against its memory floor (every phase's bytes above at the copy bandwidth of its thread count) and against the sum of its phases' limits (each phase's larger limit above):\n\n";
    for f in &floors {
        s += &f.sentence();
        s.push('\n');
    }
    s
}

/// The memory and compute limits of a frame's four phases (move, rebuild,
/// query, apply), milliseconds, as `(memory, compute)` pairs: `bytes` (as
/// [`phase_bytes`] returns them) at `bandwidth` bytes per second, and for
/// the query `candidates` tests at `cost` seconds each, spread over
/// `threads` threads (0 counts as 1; the other phases' compute limit is 0:
/// they are not modelled). A phase's limit is the larger of the two (the
/// roofline); [`sum_of_limits`] adds them up.
pub fn phase_limits(
    bytes: &[f64; 4],
    bandwidth: f64,
    candidates: u64,
    cost: f64,
    threads: usize,
) -> [(f64, f64); 4] {
    std::array::from_fn(|k| {
        let mem_ms = bytes[k] / bandwidth * 1e3;
        let compute_ms = if k == 2 {
            candidates as f64 * cost / threads.max(1) as f64 * 1e3
        } else {
            0.0
        };
        (mem_ms, compute_ms)
    })
}

/// The sum of the phases' limits of [`phase_limits`], milliseconds: each
/// phase's larger limit (memory or compute), the least time the four
/// phases can take one after another.
pub fn sum_of_limits(limits: &[(f64, f64); 4]) -> f64 {
    limits.iter().map(|&(m, c)| m.max(c)).sum()
}

/// A measured frame against its memory floor and the sum of its phases'
/// limits ([`sum_of_limits`]): the bytes of its four phases
/// ([`phase_bytes`], summed) at the copy bandwidth measured for its thread
/// count ([`bandwidth`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameFloor {
    /// The row's label (units, order, layout, pass, strategy, kernel, threads).
    pub label: String,
    /// Bytes the frame's phases must move, summed.
    pub bytes: f64,
    /// Copy bandwidth used, bytes per second.
    pub bandwidth: f64,
    /// The measured frame (median total of the row), milliseconds.
    pub measured_ms: f64,
    /// The sum of the phases' limits (each the larger of its memory and
    /// compute limit, [`phase_limits`]), milliseconds: the least time the
    /// frame's phases can take one after another on this machine.
    pub limits_ms: f64,
}

impl FrameFloor {
    /// The floor of row `r` whose phases move `bytes` (as [`phase_bytes`]
    /// returns them) at `bandwidth` bytes per second, with the phases'
    /// `limits` of [`phase_limits`].
    pub fn of(
        r: &BenchRow,
        bytes: &[f64; 4],
        bandwidth: f64,
        limits: &[(f64, f64); 4],
    ) -> FrameFloor {
        FrameFloor {
            label: r.label.clone(),
            bytes: bytes.iter().sum(),
            bandwidth,
            measured_ms: r.ms().total,
            limits_ms: sum_of_limits(limits),
        }
    }

    /// The floor, milliseconds: bytes / bandwidth.
    pub fn floor_ms(&self) -> f64 {
        self.bytes / self.bandwidth * 1e3
    }

    /// The measured frame as a multiple of the floor (`None` when the
    /// floor is 0 or not finite, e.g. no unit).
    pub fn multiple(&self) -> Option<f64> {
        let f = self.floor_ms();
        (f > 0.0 && f.is_finite() && self.measured_ms.is_finite()).then(|| self.measured_ms / f)
    }

    /// The measured frame as a multiple of the sum of its phases' limits
    /// (`None` when that sum is 0 or not finite, or the measured time is
    /// not finite).
    pub fn limits_multiple(&self) -> Option<f64> {
        let l = self.limits_ms;
        (l > 0.0 && l.is_finite() && self.measured_ms.is_finite()).then(|| self.measured_ms / l)
    }

    /// One line: "- LABEL: frame 20.09 ms, 3.2x this machine's memory
    /// floor (180.0 MB at 28.3 GB/s = 6.36 ms), 1.9x the sum of its
    /// phases' limits (10.57 ms)". The second multiple is left out when
    /// there is no limit.
    pub fn sentence(&self) -> String {
        let multiple = match self.multiple() {
            Some(m) => format!("{m:.1}x this machine's memory floor"),
            None => "no memory floor (nothing to move)".to_string(),
        };
        let limits = match self.limits_multiple() {
            Some(m) => format!(
                ", {m:.1}x the sum of its phases' limits ({:.2} ms)",
                self.limits_ms
            ),
            None => String::new(),
        };
        format!(
            "- {}: frame {:.2} ms, {multiple} ({:.1} MB at {:.1} GB/s = {:.2} ms){limits}",
            self.label,
            self.measured_ms,
            self.bytes / 1e6,
            self.bandwidth / 1e9,
            self.floor_ms()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collect_moves_more_than_fused_and_bytes_scale_with_units() {
        for layout in Layout::ALL {
            let f = phase_bytes(Pass::Fused, layout, 1000, 16_000);
            let c = phase_bytes(Pass::Collect, layout, 1000, 16_000);
            assert!(c[2] > f[2] && c[3] > f[3], "{c:?} vs {f:?}");
            assert_eq!(f[0], 32_000.0);
            let f2 = phase_bytes(Pass::Fused, layout, 2000, 32_000);
            for k in 0..4 {
                assert_eq!(f2[k], 2.0 * f[k], "phase {k}");
            }
        }
    }

    /// The in-place apply (SoA, hot/cold) reads the aggregates, velocity
    /// and danger and writes velocity, danger and enemies: 50 B per unit;
    /// the layouts of records also write and copy back a steering record
    /// (82 B). Nothing else differs.
    #[test]
    fn the_in_place_apply_moves_fewer_bytes() {
        let soa = phase_bytes(Pass::Fused, Layout::Soa, 1_000_000, 16_000_000);
        let aos = phase_bytes(Pass::Fused, Layout::Aos, 1_000_000, 16_000_000);
        assert_eq!(soa[3], 50e6);
        assert_eq!(aos[3], 82e6);
        assert_eq!(soa[..3], aos[..3]);
        assert_eq!(soa.iter().sum::<f64>(), 180e6);
    }

    #[test]
    fn the_frame_floor_is_the_phases_bytes_at_the_bandwidth() {
        let bytes = phase_bytes(Pass::Fused, Layout::Aos, 1_000_000, 16_000_000);
        let f = FrameFloor {
            label: "1,000,000 units".to_string(),
            bytes: bytes.iter().sum(),
            bandwidth: 20e9,
            measured_ms: 31.8,
            limits_ms: 0.0,
        };
        // 32 + 49 + 49 + 82 MB per million units (the model's docs).
        assert_eq!(f.bytes, 212e6);
        assert!((f.floor_ms() - 10.6).abs() < 1e-9, "{}", f.floor_ms());
        assert!((f.multiple().unwrap() - 3.0).abs() < 1e-9);
        assert_eq!(
            f.sentence(),
            "- 1,000,000 units: frame 31.80 ms, 3.0x this machine's memory floor (212.0 MB at 20.0 GB/s = 10.60 ms)"
        );
        let limited = FrameFloor {
            limits_ms: 15.9,
            ..f.clone()
        };
        assert_eq!(
            limited.sentence(),
            "- 1,000,000 units: frame 31.80 ms, 3.0x this machine's memory floor (212.0 MB at 20.0 GB/s = 10.60 ms), 2.0x the sum of its phases' limits (15.90 ms)"
        );
        let empty = FrameFloor { bytes: 0.0, ..f };
        assert_eq!(empty.multiple(), None);
        assert!(
            empty.sentence().contains("no memory floor"),
            "{}",
            empty.sentence()
        );
    }

    /// Each phase's memory limit is its bytes at the bandwidth; only the
    /// query has a compute limit, its tests at the cost over the threads;
    /// the frame's sum takes the larger limit of each phase.
    #[test]
    fn the_phases_limits_take_the_larger_of_memory_and_compute() {
        let bytes = [32e6, 49e6, 49e6, 50e6];
        // 40 GB/s; 46.8 M tests at 0.3 ns on 2 threads = 7.02 ms.
        let l = phase_limits(&bytes, 40e9, 46_800_000, 0.3e-9, 2);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(l[0].0, 0.8) && l[0].1 == 0.0, "{l:?}");
        assert!(close(l[1].0, 1.225) && l[1].1 == 0.0, "{l:?}");
        assert!(close(l[2].0, 1.225) && close(l[2].1, 7.02), "{l:?}");
        assert!(close(l[3].0, 1.25) && l[3].1 == 0.0, "{l:?}");
        // 0.8 + 1.225 + 7.02 (compute, not 1.225) + 1.25.
        assert!(close(sum_of_limits(&l), 10.295), "{}", sum_of_limits(&l));
        // A query whose bytes take longer than its tests keeps the memory limit.
        let slow = phase_limits(&bytes, 1e9, 1_000, 0.3e-9, 1);
        assert!(slow[2].0 > slow[2].1, "{slow:?}");
        // No threads counts as one.
        assert!(close(phase_limits(&bytes, 40e9, 1000, 1e-9, 0)[2].1, 1e-3));
    }

    #[test]
    fn candidate_cost_is_a_positive_finite_time() {
        let c = candidate_cost(Kernel::Scalar);
        assert!(c.is_finite() && c > 0.0, "{c}");
    }
}
