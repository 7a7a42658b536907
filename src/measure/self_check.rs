//! The self-check: every strategy, pass and kernel this build has, run on
//! one seeded world and compared with the naive scan. The browser build runs
//! it from the page (`?self-check`), where no test harness exists, so a
//! class can see that SIMD128 finds exactly what the scan finds; the window
//! runs it with `--self-check` on every other platform too.

use crate::engine::sim::{Pass, Settings, Simulation};
use crate::engine::spatial::{Kernel, Strategy};

/// Seconds of simulated time per frame of the check (a 60 Hz frame).
const DT: f32 = 1.0 / 60.0;

/// One variant's result: its name (`strategy/pass/kernel`) and the
/// neighbors it found over every frame of the check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `naive`, `grid/fused/scalar`, `sorted-grid/collect/simd128`, ...
    pub name: String,
    /// Neighbor pairs found, summed over the frames (each pair counted from
    /// both sides, as the frame statistics count them).
    pub neighbors: u64,
}

/// The outcome of [`run`]: the naive scan's total and every other
/// variant's, in the order they ran.
#[derive(Clone, Debug)]
pub struct SelfCheck {
    /// The naive scan (scalar kernel): the reference.
    pub reference: Variant,
    /// Every other strategy, pass and available kernel.
    pub variants: Vec<Variant>,
}

impl SelfCheck {
    /// The variants whose totals differ from the reference's.
    pub fn mismatches(&self) -> impl Iterator<Item = &Variant> {
        self.variants
            .iter()
            .filter(|v| v.neighbors != self.reference.neighbors)
    }

    /// Whether every variant found what the naive scan found.
    pub fn ok(&self) -> bool {
        self.mismatches().next().is_none()
    }

    /// One line for a console: `self-check: ok: ...` or
    /// `self-check: FAILED: ...`, naming every variant and its total.
    pub fn line(&self, units: usize, frames: usize) -> String {
        let all: Vec<String> = std::iter::once(&self.reference)
            .chain(&self.variants)
            .map(|v| format!("{} {}", v.name, v.neighbors))
            .collect();
        let verdict = if self.ok() {
            "ok".to_string()
        } else {
            let bad: Vec<&str> = self.mismatches().map(|v| v.name.as_str()).collect();
            format!("FAILED ({} differ from naive)", bad.join(", "))
        };
        format!(
            "self-check: {verdict}: {units} units, {frames} frames, {} variants; neighbors: {}",
            self.variants.len() + 1,
            all.join(", ")
        )
    }
}

/// Steps one simulation per variant for `frames` frames from the same
/// spawn (`units` units of the default workload, `seed`), on the calling
/// thread, and sums the neighbors each found. The simulation is
/// bit-identical whatever the strategy, pass and kernel, so every total
/// must equal the naive scan's. Allocates a simulation per variant; about
/// 30 ms per variant at 3,000 units in a release build.
pub fn run(units: usize, seed: u64, frames: usize) -> SelfCheck {
    let base = Settings {
        units,
        seed,
        threads: 1,
        ..Settings::default()
    };
    let total = |settings: &Settings| -> u64 {
        let mut sim = Simulation::new(settings);
        (0..frames)
            .map(|_| sim.step(DT, settings).query.neighbors)
            .sum()
    };
    let naive = Settings {
        strategy: Strategy::Naive,
        kernel: Kernel::Scalar,
        ..base.clone()
    };
    let reference = Variant {
        name: "naive".to_string(),
        neighbors: total(&naive),
    };
    let mut variants = Vec::new();
    for strategy in [Strategy::Grid, Strategy::SortedGrid] {
        for pass in Pass::ALL {
            for kernel in Kernel::available() {
                let s = Settings {
                    strategy,
                    pass,
                    kernel,
                    ..base.clone()
                };
                variants.push(Variant {
                    name: format!("{}/{}/{}", strategy.key(), pass.key(), kernel.key()),
                    neighbors: total(&s),
                });
            }
        }
    }
    SelfCheck {
        reference,
        variants,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_of_this_build_matches_the_naive_scan() {
        let check = run(1_500, 7, 3);
        assert!(
            check.reference.neighbors > 0,
            "a world with no neighbors checks nothing"
        );
        assert_eq!(
            check.variants.len(),
            2 * Pass::ALL.len() * Kernel::available().count()
        );
        assert!(check.ok(), "{}", check.line(1_500, 3));
        assert!(check
            .line(1_500, 3)
            .starts_with("self-check: ok: 1500 units, 3 frames"));
    }

    #[test]
    fn a_differing_total_is_named_in_a_failed_line() {
        let mut check = run(300, 1, 1);
        check.variants[0].neighbors += 1;
        let line = check.line(300, 1);
        assert!(line.starts_with("self-check: FAILED ("), "{line}");
        assert!(line.contains(&check.variants[0].name), "{line}");
        assert!(!check.ok());
    }
}
