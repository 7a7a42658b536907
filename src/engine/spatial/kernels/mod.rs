//! Distance-test kernels: the innermost loop of every strategy.
//!
//! A kernel tests one contiguous span of SoA positions (`x[i]`, `z[i]`, `ids[i]`)
//! against a query center and a squared radius and appends the ids of the
//! matching entries to an output buffer. All kernels compute exactly the same
//! IEEE-754 operations in the same order (`dx = x - cx`, `dz = z - cz`,
//! `d2 = dx*dx + dz*dz`, `d2 <= r2`, no fused multiply-add), so they return
//! identical sets on every input, NaN and infinity included (an unordered compare
//! is false).
//!
//! Two kernel forms exist, both written once in [`driver`] over the [`lanes`]
//! abstraction and wrapped per instruction set: the id-collecting span kernel
//! ([`Kernel::run_ranges`]) and the fused kernel ([`Kernel::run_fused`]),
//! which returns a query's neighbor aggregates ([`Near`]) instead of ids.
//!
//! Which kernel runs is a run-time choice: [`Kernel::is_available`] asks the CPU
//! once (`is_x86_feature_detected!`, `is_aarch64_feature_detected!`), and [`Kernel::run`] falls back to
//! [`Kernel::Scalar`] when asked for a kernel this CPU cannot run, so calling it
//! is always sound. WebAssembly has no run-time detection: SIMD128 is
//! available exactly in a module compiled with `-C target-feature=+simd128`.

/// The three `#[target_feature]` entry points of one instruction set:
/// `run_ranges` and `run_fused`, each one call of the
/// generic [`driver`] kernel with the instruction set's [`lanes`], so the
/// whole chain is compiled for it, and `run_pass` ([`Kernel::run_pass`]). `$features` is the `target_feature`
/// list, `$lanes` the [`lanes::Lanes`] type, `$isa` its name in the docs.
// Unused where no SIMD kernel exists (wasm32 built without +simd128).
#[allow(unused_macros)]
macro_rules! isa_kernels {
    ($features:literal, $lanes:ty, $isa:literal) => {
        use super::driver;
        use super::{FusedQuery, KernelQuery, Near};

        #[doc = concat!("[`driver::collect`] for ", $isa, ": appends the ids of the entries of")]
        /// `x[a..b]`, `z[a..b]`, `ids[a..b]` (for every `(a, b)` in `ranges`, in
        /// order) within `q` to `out` (see [`super::Kernel::run_ranges`]).
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $isa, ", the three slices must have equal lengths and")]
        /// every range must satisfy `a <= b <= len` (all checked by
        /// `Kernel::run_ranges`).
        #[target_feature(enable = $features)]
        pub unsafe fn run_ranges(
            x: &[f32],
            z: &[f32],
            ids: &[u32],
            ranges: &[(u32, u32)],
            q: &KernelQuery,
            out: &mut Vec<u32>,
        ) {
            // SAFETY: this fn's contract is the caller's: the instruction set
            // is enabled, and the slices and ranges are as `driver::collect`
            // requires.
            unsafe { driver::collect::<$lanes>(x, z, ids, ranges, q, out) }
        }

        #[doc = concat!("[`driver::fused`] for ", $isa, ": the [`Near`] aggregates of the entries of")]
        /// `ranges` within each query of `qs`, into `out` (see
        /// [`super::Kernel::run_fused`]).
        ///
        /// # Safety
        /// As for [`run_ranges`], plus `team.len() == x.len()`, `1 <= qs.len() <=
        /// GROUP`, `out.len() == qs.len()` and the position range of
        /// [`driver::fused`].
        #[target_feature(enable = $features)]
        pub unsafe fn run_fused(
            x: &[f32],
            z: &[f32],
            ids: &[u32],
            team: &[u32],
            ranges: &[(u32, u32)],
            qs: &[FusedQuery],
            out: &mut [Near],
        ) {
            // SAFETY: this fn's contract is the caller's (see `run_ranges`),
            // plus the team, group and position-range conditions above.
            unsafe { driver::fused::<$lanes>(x, z, ids, team, ranges, qs, out) }
        }

        #[doc = concat!("Runs `pass` with the fused kernel of ", $isa, ", compiled for it (see")]
        /// [`super::Kernel::run_pass`]).
        ///
        /// # Safety
        /// The CPU must support the instruction set.
        #[target_feature(enable = $features)]
        pub unsafe fn run_pass<P: super::FusedPass>(pass: P) -> P::Out {
            // SAFETY: this fn's contract is the caller's: the CPU runs the
            // instruction set.
            pass.run(unsafe { super::pass::Compiled::<$lanes>::new_unchecked() })
        }
    };
}

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
pub mod cells;
pub mod driver;
pub mod lanes;
#[cfg(target_arch = "aarch64")]
pub mod neon;
pub mod pass;
pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128;
#[cfg(target_arch = "x86_64")]
pub mod sse;

use std::sync::OnceLock;

pub use pass::{Compiled, Dispatched, Exact, FusedCols, FusedKernel, FusedPass};

/// A span of SoA entries for one kernel call: three slices of equal length.
///
/// `x` and `z` are world-unit coordinates; `ids` are the unit indices written to
/// the output when an entry matches. Entries are tested in slice order and
/// matches are appended in that order.
#[derive(Clone, Copy, Debug)]
pub struct Span<'a> {
    /// x coordinates, world units.
    pub x: &'a [f32],
    /// z coordinates, world units.
    pub z: &'a [f32],
    /// Unit ids, parallel to `x` and `z`.
    pub ids: &'a [u32],
}

impl<'a> Span<'a> {
    /// Builds a span from three parallel slices.
    ///
    /// # Panics
    /// If the three slices do not have the same length (kernels read all three
    /// with the same index, so a mismatch would read out of bounds).
    #[inline]
    pub fn new(x: &'a [f32], z: &'a [f32], ids: &'a [u32]) -> Self {
        assert!(
            x.len() == z.len() && x.len() == ids.len(),
            "Span slices must have equal lengths (x {}, z {}, ids {})",
            x.len(),
            z.len(),
            ids.len()
        );
        Span { x, z, ids }
    }

    /// Number of entries in the span.
    #[inline]
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when the span has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// The query a kernel tests a span against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelQuery {
    /// Center x, world units.
    pub cx: f32,
    /// Center z, world units.
    pub cz: f32,
    /// Squared radius, world units squared, computed once per query as `r * r`.
    pub r2: f32,
    /// An id never reported (the querying unit itself in the per-unit pass), or
    /// [`NO_EXCLUDE`].
    pub exclude: u32,
}

/// The `exclude` value that excludes nothing (no unit has this id).
pub const NO_EXCLUDE: u32 = u32::MAX;

/// Fixed-point scale of the fused kernel's offset sums: 64 steps per world
/// unit (1/64 world unit resolution).
pub const FIXED_SCALE: f32 = 64.0;

/// Largest coordinate magnitude, world units, for which the SIMD fused kernels
/// are exact: `2^24`, so `|fixed(v)| <= 2^30` and the difference of two fixed
/// coordinates fits in an i32 lane. Callers with positions beyond it use
/// another path (the CSR grid checks its bounds).
pub const FIXED_RANGE: f32 = 16_777_216.0;

/// A coordinate in the fixed point of [`FIXED_SCALE`]: `(v * 64) as i32`,
/// truncating toward zero (saturating beyond the i32 range, 0 for NaN).
#[inline(always)]
pub fn fixed(v: f32) -> i32 {
    (v * FIXED_SCALE) as i32
}

/// A query's neighbor aggregates: what the simulation's steering needs from a
/// neighbor list, without the list.
///
/// For query unit `i` with neighbors `j`: `count` = neighbors, `enemies` =
/// neighbors whose team differs from `i`'s, `sx` = `sum_j (fixed(x_j) -
/// fixed(x_i))`, `sz` likewise on z ([`fixed`]: 1/64 world unit). Integer
/// sums, so the value does not depend on the order the neighbors are visited
/// in. Aggregates of disjoint candidate sets add up ([`std::ops::AddAssign`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Near {
    /// Neighbors found.
    pub count: u32,
    /// Neighbors of another team.
    pub enemies: u32,
    /// Sum of the neighbors' x offsets from the query unit, 1/64 world unit.
    pub sx: i64,
    /// Sum of the neighbors' z offsets from the query unit, 1/64 world unit.
    pub sz: i64,
}

impl Near {
    /// Adds neighbor `(xj, zj)` of team `tj` to the aggregates of a query
    /// unit at `(xi, zi)` of team `ti` (coordinates in world units).
    #[inline]
    pub fn add(&mut self, (xi, zi, ti): (f32, f32, u8), (xj, zj, tj): (f32, f32, u8)) {
        self.count += 1;
        self.enemies += (tj != ti) as u32;
        self.sx += fixed(xj) as i64 - fixed(xi) as i64;
        self.sz += fixed(zj) as i64 - fixed(zi) as i64;
    }
}

impl std::ops::AddAssign for Near {
    fn add_assign(&mut self, o: Near) {
        self.count += o.count;
        self.enemies += o.enemies;
        self.sx += o.sx;
        self.sz += o.sz;
    }
}

/// The query of a fused kernel: the distance query, the query unit's team and
/// fixed-point position, and how often the lane sums move into i64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FusedQuery {
    /// Center, squared radius and excluded id.
    pub q: KernelQuery,
    /// Team of the query unit; entries with another team count as enemies.
    pub team: u32,
    /// `fixed(q.cx)`.
    pub fx: i32,
    /// `fixed(q.cz)`.
    pub fz: i32,
    /// Vectors between two flushes of the i32 lane sums (>= 1): the most
    /// after which no lane's offset sum can overflow. A kernel that sums raw
    /// positions drains every `flush / N` vectors instead (`driver::fused`).
    pub flush: u32,
    /// Whether the query's team and the team of every entry it meets are 0
    /// or 1. The SIMD kernels then count enemies from one tally of team-1
    /// neighbors shared by a block's queries (enemies = that tally for a
    /// team-0 query, neighbors less it for a team-1 query) instead of a
    /// team compare per query and vector. A query marked so that meets an
    /// entry of another team gets a wrong enemy count (never undefined
    /// behaviour). False from [`FusedQuery::new`]; set by
    /// [`FusedQuery::among_two_teams`].
    pub two_teams: bool,
}

impl FusedQuery {
    /// The fused form of `q` for a unit of `team`. `flush` is the largest
    /// count of vectors whose offsets cannot overflow an i32 lane: one
    /// neighbor's fixed offset is at most `64 * r * (1 + 1e-5) + 2` (the
    /// distance test bounds `|dx|` by `r` up to float rounding; each
    /// truncation adds less than 1), capped at `2^31 - 1` (the bound that
    /// [`FIXED_RANGE`] guarantees).
    pub fn new(q: KernelQuery, team: u8) -> FusedQuery {
        FusedQuery::with_flush(q, team, FusedQuery::flush_for(q.r2))
    }

    /// [`FusedQuery::new`] with a `flush` computed once by
    /// [`FusedQuery::flush_for`] for many queries of one radius.
    #[inline]
    pub fn with_flush(q: KernelQuery, team: u8, flush: u32) -> FusedQuery {
        FusedQuery {
            q,
            team: team as u32,
            fx: fixed(q.cx),
            fz: fixed(q.cz),
            flush: flush.max(1),
            two_teams: false,
        }
    }

    /// This query marked as meeting only entries of teams 0 and 1
    /// ([`FusedQuery::two_teams`]), when its own team is 0 or 1 (unmarked
    /// otherwise). The caller promises the entries' teams.
    #[inline]
    pub fn among_two_teams(self) -> FusedQuery {
        FusedQuery {
            two_teams: self.team <= 1,
            ..self
        }
    }

    /// The flush interval of [`FusedQuery::new`] for squared radius `r2`
    /// (>= 1; 1 for NaN or huge radii).
    pub fn flush_for(r2: f32) -> u32 {
        let r = (r2.max(0.0) as f64).sqrt();
        let per_lane = r * FIXED_SCALE as f64 * (1.0 + 1e-5) + 2.0;
        let limit = i32::MAX as f64;
        let flush = (limit / per_lane.min(limit)).floor();
        if flush.is_nan() {
            1
        } else {
            flush.clamp(1.0, u32::MAX as f64) as u32
        }
    }
}

/// The instruction set used for the distance test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// One entry at a time; runs everywhere; the reference the others mirror.
    Scalar,
    /// SSE2, 4 lanes (always present on x86_64).
    Sse,
    /// AVX2, 8 lanes, masked loads for the tail.
    Avx2,
    /// AVX-512F, 16 lanes, mask compares, compress of the matching ids.
    Avx512,
    /// NEON (AArch64 AdvSIMD), 4 lanes, matching ids packed by a table lookup.
    Neon,
    /// WebAssembly SIMD128, 4 lanes, matching ids packed by a swizzle; only
    /// in a wasm32 module built with `-C target-feature=+simd128`.
    Simd128,
}

#[derive(Clone, Copy)]
struct Features {
    sse: bool,
    avx2: bool,
    avx512: bool,
    neon: bool,
    simd128: bool,
}

fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            Features {
                sse: is_x86_feature_detected!("sse2"),
                // The AVX2 and AVX-512 kernels also count mask bits with popcnt.
                avx2: is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt"),
                avx512: is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt"),
                neon: false,
                simd128: false,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            Features {
                sse: false,
                avx2: false,
                avx512: false,
                neon: std::arch::is_aarch64_feature_detected!("neon"),
                simd128: false,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Features {
                sse: false,
                avx2: false,
                avx512: false,
                neon: false,
                // No run-time detection on WebAssembly: the feature the
                // module was compiled with.
                simd128: cfg!(all(target_arch = "wasm32", target_feature = "simd128")),
            }
        }
    })
}

crate::named! { Kernel {
    Scalar => "scalar", "Scalar";
    Sse => "sse", "SSE", ["sse2"];
    Avx2 => "avx2", "AVX2";
    Avx512 => "avx512", "AVX-512";
    Neon => "neon", "NEON";
    Simd128 => "simd128", "SIMD128";
} }

impl Kernel {
    /// The kernels of the architecture this was compiled for (the ones a CPU
    /// of it may have), Scalar first: SSE, AVX2 and AVX-512 on x86_64, NEON
    /// on AArch64, SIMD128 on wasm32, Scalar alone elsewhere. What `bench`
    /// compares by default.
    pub fn native() -> &'static [Kernel] {
        if cfg!(target_arch = "x86_64") {
            &[Kernel::Scalar, Kernel::Sse, Kernel::Avx2, Kernel::Avx512]
        } else if cfg!(target_arch = "aarch64") {
            &[Kernel::Scalar, Kernel::Neon]
        } else if cfg!(target_arch = "wasm32") {
            &[Kernel::Scalar, Kernel::Simd128]
        } else {
            &[Kernel::Scalar]
        }
    }

    /// Parses a kernel as `--kernel` and a scenario's `kernel` name one:
    /// [`Kernel::from_key`], or `best` (case-insensitive) for
    /// [`Kernel::best`], the widest this CPU runs, so a command or file
    /// written on one machine runs its fastest kernel on another.
    pub fn from_key_or_best(s: &str) -> Option<Kernel> {
        if s.trim().eq_ignore_ascii_case("best") {
            return Some(Kernel::best());
        }
        Kernel::from_key(s)
    }

    /// Lanes tested per instruction.
    pub fn lanes(self) -> usize {
        match self {
            Kernel::Scalar => 1,
            Kernel::Sse | Kernel::Neon | Kernel::Simd128 => 4,
            Kernel::Avx2 => 8,
            Kernel::Avx512 => 16,
        }
    }

    /// Whether this CPU can run the kernel; the CPU is asked once per process.
    pub fn is_available(self) -> bool {
        let f = features();
        match self {
            Kernel::Scalar => true,
            Kernel::Sse => f.sse,
            Kernel::Avx2 => f.avx2,
            Kernel::Avx512 => f.avx512,
            Kernel::Neon => f.neon,
            Kernel::Simd128 => f.simd128,
        }
    }

    /// Why this kernel cannot run here, naming the right culprit, or `None`
    /// when it can: a kernel of another architecture is missing from this
    /// *build* ("the browser build (WebAssembly) has no SSE kernel: SSE is
    /// an instruction set of x86_64 CPUs"); SIMD128 left out at compile
    /// time is the build's choice too; a kernel of this architecture the processor lacks is the
    /// *CPU*'s ("this CPU cannot run AVX-512"). Allocates the sentence.
    pub fn absent_reason(self) -> Option<String> {
        if self.is_available() {
            return None;
        }
        let (arch, whose) = match self {
            Kernel::Scalar => return None,
            Kernel::Sse | Kernel::Avx2 | Kernel::Avx512 => {
                ("x86_64", "an instruction set of x86_64 CPUs")
            }
            Kernel::Neon => ("ARM (AArch64)", "an instruction set of ARM CPUs"),
            Kernel::Simd128 => (
                "WebAssembly",
                "WebAssembly's vector extension, in the browser build",
            ),
        };
        let here = if cfg!(target_arch = "x86_64") {
            "x86_64"
        } else if cfg!(target_arch = "aarch64") {
            "ARM (AArch64)"
        } else if cfg!(target_arch = "wasm32") {
            "WebAssembly"
        } else {
            std::env::consts::ARCH
        };
        let build = if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
            "the browser build"
        } else {
            "this build"
        };
        Some(if arch != here {
            format!(
                "{build} ({here}) has no {} kernel: {} is {whose}",
                self.name(),
                self.name()
            )
        } else if self == Kernel::Simd128 {
            format!("{build} was compiled without SIMD128 (scripts/web-build.sh --no-simd128); WebAssembly cannot add it at run time")
        } else {
            format!("this CPU cannot run {}", self.name())
        })
    }

    /// The kernels this CPU can run, in the order of [`Kernel::ALL`].
    pub fn available() -> impl Iterator<Item = Kernel> {
        Kernel::ALL.into_iter().filter(|k| k.is_available())
    }

    /// The widest kernel this CPU can run: AVX-512, AVX2 or SSE on x86_64,
    /// NEON on AArch64, SIMD128 on wasm32 built with it, else Scalar.
    pub fn best() -> Kernel {
        Kernel::available().last().unwrap_or(Kernel::Scalar)
    }

    /// This kernel if available, else [`Kernel::Scalar`].
    #[inline]
    pub fn or_scalar(self) -> Kernel {
        if self.is_available() {
            self
        } else {
            Kernel::Scalar
        }
    }

    /// Tests every entry of `span` against `q` and appends the ids of the
    /// entries with `dx*dx + dz*dz <= r2` and `id != q.exclude` to `out`, in span
    /// order.
    ///
    /// Allocates only when `out` lacks capacity for `span.len()` plus one
    /// register of lanes (callers that keep `out` across frames reach a steady
    /// state without allocation). A kernel the CPU cannot run is replaced by
    /// [`Kernel::Scalar`]. The number of candidates tested is `span.len()`.
    ///
    /// # Panics
    /// If the span has more than `u32::MAX` entries (ids are `u32`).
    #[inline]
    pub fn run(self, span: Span<'_>, q: &KernelQuery, out: &mut Vec<u32>) {
        if span.is_empty() {
            return;
        }
        let n = u32::try_from(span.len()).expect("a span holds at most u32::MAX entries");
        self.run_ranges(span.x, span.z, span.ids, &[(0, n)], q, out);
    }

    /// Like [`Kernel::run`] over several spans of one SoA triple: tests the
    /// entries `a..b` of `x`, `z`, `ids` for every `(a, b)` in `ranges`, in
    /// order, with the query constants set up once (the CSR grid passes one
    /// range per row of the searched block).
    ///
    /// Allocates only when `out` lacks capacity for all ranges plus one
    /// register of lanes.
    ///
    /// # Panics
    /// If `x`, `z` and `ids` differ in length (`u32` ids index at most
    /// `u32::MAX` entries), or a range has `a > b` or `b > x.len()`.
    #[inline]
    pub fn run_ranges(
        self,
        x: &[f32],
        z: &[f32],
        ids: &[u32],
        ranges: &[(u32, u32)],
        q: &KernelQuery,
        out: &mut Vec<u32>,
    ) {
        scalar::check(x, z, ids, ranges);
        match self.or_scalar() {
            Kernel::Scalar => scalar::run_ranges(x, z, ids, ranges, q, out),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `or_scalar` returned Sse only because SSE2 was detected;
            // lengths and ranges were checked above.
            Kernel::Sse => unsafe { sse::run_ranges(x, z, ids, ranges, q, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `or_scalar` returned Avx2 only because AVX2 (and popcnt) was detected;
            // lengths and ranges were checked above.
            Kernel::Avx2 => unsafe { avx2::run_ranges(x, z, ids, ranges, q, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `or_scalar` returned Avx512 only because AVX-512F (and
            // popcnt) was detected; lengths and ranges were checked above.
            Kernel::Avx512 => unsafe { avx512::run_ranges(x, z, ids, ranges, q, out) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: `or_scalar` returned Neon only because NEON was
            // detected; lengths and ranges were checked above.
            Kernel::Neon => unsafe { neon::run_ranges(x, z, ids, ranges, q, out) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            // SAFETY: the module was compiled with SIMD128 (no detection is
            // needed on wasm32); lengths and ranges were checked above.
            Kernel::Simd128 => unsafe { simd128::run_ranges(x, z, ids, ranges, q, out) },
            // Kernels of another architecture: `or_scalar` never returns them.
            #[allow(unreachable_patterns)]
            _ => scalar::run_ranges(x, z, ids, ranges, q, out),
        }
    }
}

impl Kernel {
    /// The fused form of [`Kernel::run_ranges`] for a group of up to
    /// [`driver::GROUP`] queries that search the same entries: tests them
    /// against every query of `qs` and writes query `g`'s [`Near`]
    /// aggregates to `out[g]` instead of appending ids, reading each entry's
    /// team from `team` (parallel to `x`). Allocates nothing. The SIMD
    /// kernels are used only when `in_range` is true, which the caller must
    /// set only when every entry of the slices has `|x|, |z| < FIXED_RANGE`;
    /// otherwise an exact scalar loop with i64 sums runs
    /// ([`scalar::run_fused_exact`]; the result is the same wherever both
    /// are defined).
    ///
    /// # Panics
    /// If `x`, `z`, `ids` and `team` differ in length, a range has `a > b`
    /// or `b > x.len()`, `qs` is empty or longer than [`driver::GROUP`], or
    /// `out` is shorter than `qs`.
    #[inline]
    pub fn run_fused(
        self,
        (x, z, ids, team): (&[f32], &[f32], &[u32], &[u32]),
        ranges: &[(u32, u32)],
        qs: &[FusedQuery],
        out: &mut [Near],
        in_range: bool,
    ) {
        if !in_range {
            Exact.fused((x, z, ids, team), ranges, qs, out);
            return;
        }
        pass::check_fused((x, z, ids, team), ranges, qs, out);
        let out = &mut out[..qs.len()];
        match self.or_scalar() {
            Kernel::Scalar => scalar::run_fused(x, z, ids, team, ranges, qs, out),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `or_scalar` returned Sse only because SSE2 was detected;
            // lengths, ranges and the group size were checked above;
            // `in_range` is the caller's promise of the position range.
            Kernel::Sse => unsafe { sse::run_fused(x, z, ids, team, ranges, qs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, AVX2 and popcnt were detected.
            Kernel::Avx2 => unsafe { avx2::run_fused(x, z, ids, team, ranges, qs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, AVX-512F and popcnt were detected.
            Kernel::Avx512 => unsafe { avx512::run_fused(x, z, ids, team, ranges, qs, out) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, NEON was detected.
            Kernel::Neon => unsafe { neon::run_fused(x, z, ids, team, ranges, qs, out) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            // SAFETY: as above, the module was compiled with SIMD128.
            Kernel::Simd128 => unsafe { simd128::run_fused(x, z, ids, team, ranges, qs, out) },
            // Kernels of another architecture: `or_scalar` never returns them.
            #[allow(unreachable_patterns)]
            _ => scalar::run_fused(x, z, ids, team, ranges, qs, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kernel;

    /// A missing kernel is blamed on the build when it belongs to another
    /// architecture and on the CPU only when it is this one's (case X3).
    #[test]
    fn absent_reasons_name_the_build_or_the_cpu() {
        for k in Kernel::ALL {
            let why = k.absent_reason();
            assert_eq!(why.is_none(), k.is_available(), "{k:?}: {why:?}");
            let Some(why) = why else { continue };
            let native = Kernel::native().contains(&k);
            assert_eq!(
                why.starts_with("this CPU cannot run"),
                native && k != Kernel::Simd128,
                "{k:?}: {why}"
            );
            if !native {
                assert!(
                    why.contains(&format!("has no {} kernel", k.name())),
                    "{why}"
                );
            }
        }
    }
}
