//! A whole pass compiled for one instruction set: [`Kernel::run_pass`]
//! calls a [`FusedPass`] from inside a `#[target_feature]` function with a
//! [`FusedKernel`] of that instruction set, so the pass's own loop (the CSR
//! grid's walk over its cells) and the fused kernel it calls are compiled
//! as one function. Without it, every cell of the walk pays a call through
//! [`Kernel::run_fused`]: its checks, its dispatch on the kernel, and a call
//! the compiler cannot inline across the change of target features.

use std::marker::PhantomData;

use super::lanes::{Lanes, ScalarLanes};
use super::{driver, scalar, FusedQuery, Kernel, Near};

/// The columns a fused kernel reads: `(x, z, ids, team)`, parallel.
pub type FusedCols<'a> = (&'a [f32], &'a [f32], &'a [u32], &'a [u32]);

/// The fused kernel of one instruction set (or the exact scalar loop),
/// called inline by a [`FusedPass`].
pub trait FusedKernel: Copy {
    /// [`Kernel::run_fused`] with this kernel: the [`Near`] aggregates of
    /// the entries of `ranges` within each query of `qs`, into `out[..qs.len()]`.
    /// Allocates nothing.
    ///
    /// # Panics
    /// As [`Kernel::run_fused`]: if the columns differ in length, a range
    /// has `a > b` or `b > x.len()`, `qs` is empty or longer than
    /// [`driver::GROUP`], or `out` is shorter than `qs`.
    fn fused(self, cols: FusedCols<'_>, ranges: &[(u32, u32)], qs: &[FusedQuery], out: &mut [Near]);
}

/// A pass that runs with whichever [`FusedKernel`] [`Kernel::run_pass`]
/// hands it. Mark `run` (and what it calls) `#[inline(always)]`: then it is
/// inlined into the instruction set's `#[target_feature]` function and
/// compiled for that set; otherwise it runs as baseline code.
pub trait FusedPass {
    /// What the pass returns.
    type Out;
    /// Runs the pass with kernel `k`.
    fn run<K: FusedKernel>(self, k: K) -> Self::Out;
}

/// The SIMD fused kernel of the lanes `V`
/// ([`driver::fused`]), for positions within [`super::FIXED_RANGE`].
/// Made only by [`Kernel::run_pass`], after it has found that the CPU
/// runs `V`'s instruction set, and by [`Compiled::scalar`] for the one lane
/// every CPU runs (the field is private).
#[derive(Clone, Copy)]
pub struct Compiled<V: Lanes>(PhantomData<V>);

impl<V: Lanes> Compiled<V> {
    /// The kernel of `V`, without checking the CPU.
    ///
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    #[inline(always)]
    pub(super) unsafe fn new_unchecked() -> Self {
        Compiled(PhantomData)
    }
}

impl Compiled<ScalarLanes> {
    /// The one-lane kernel, which every CPU runs.
    #[inline(always)]
    pub fn scalar() -> Self {
        // SAFETY: one lane needs no instruction set.
        unsafe { Compiled::new_unchecked() }
    }
}

impl<V: Lanes> FusedKernel for Compiled<V> {
    #[inline(always)]
    fn fused(
        self,
        cols: FusedCols<'_>,
        ranges: &[(u32, u32)],
        qs: &[FusedQuery],
        out: &mut [Near],
    ) {
        let (x, z, ids, team) = cols;
        check_fused(cols, ranges, qs, out);
        let out = &mut out[..qs.len()];
        // SAFETY: a `Compiled<V>` exists only where the CPU runs `V`'s
        // instruction set (`new_unchecked`); the lengths, ranges and group
        // size were checked just above. The position range is a condition
        // of exact sums, not of memory safety: the conversions and the
        // wrapping lane sums are defined for every input.
        unsafe { driver::fused::<V>(x, z, ids, team, ranges, qs, out) }
    }
}

/// The exact scalar loop with i64 sums ([`scalar::run_fused_exact`]), for
/// positions of any magnitude.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exact;

impl FusedKernel for Exact {
    #[inline]
    fn fused(
        self,
        cols: FusedCols<'_>,
        ranges: &[(u32, u32)],
        qs: &[FusedQuery],
        out: &mut [Near],
    ) {
        check_fused(cols, ranges, qs, out);
        for (q, o) in qs.iter().zip(out.iter_mut()) {
            *o = scalar::run_fused_exact(cols, ranges, q);
        }
    }
}

/// A kernel called through [`Kernel::run_fused`] (its checks and its
/// dispatch, one call per group): for code that runs rarely and is not
/// worth compiling once per instruction set, such as the CSR grid's cells
/// that split their units by block.
#[derive(Clone, Copy, Debug)]
pub struct Dispatched {
    /// The kernel asked for (the scalar one where this CPU lacks it).
    pub kernel: Kernel,
    /// Whether every entry has `|x|, |z| < FIXED_RANGE`
    /// ([`Kernel::run_fused`]'s `in_range`).
    pub in_range: bool,
}

impl FusedKernel for Dispatched {
    #[inline]
    fn fused(
        self,
        cols: FusedCols<'_>,
        ranges: &[(u32, u32)],
        qs: &[FusedQuery],
        out: &mut [Near],
    ) {
        self.kernel.run_fused(cols, ranges, qs, out, self.in_range);
    }
}

/// The checks of [`Kernel::run_fused`].
#[inline(always)]
pub(super) fn check_fused(
    (x, z, ids, team): FusedCols<'_>,
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &[Near],
) {
    scalar::check(x, z, ids, ranges);
    assert_eq!(team.len(), x.len(), "team and x must have equal lengths");
    assert!(
        (1..=driver::GROUP).contains(&qs.len()) && out.len() >= qs.len(),
        "1 to GROUP queries, one output each"
    );
}

impl Kernel {
    /// Runs `pass` with this kernel's [`FusedKernel`] (or the scalar one when
    /// this CPU cannot run it), from inside a function compiled for its
    /// instruction set. The SIMD kernels are exact only while every entry
    /// the pass gives them has `|x|, |z| < FIXED_RANGE`: a caller with
    /// positions beyond runs `pass.run(Exact)` instead (see
    /// [`Kernel::run_fused`]'s `in_range`). Allocates nothing itself;
    /// panics only where `pass` does.
    #[inline]
    pub fn run_pass<P: FusedPass>(self, pass: P) -> P::Out {
        match self.or_scalar() {
            Kernel::Scalar => pass.run(Compiled::scalar()),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `or_scalar` returned Sse only because SSE2 was detected.
            Kernel::Sse => unsafe { super::sse::run_pass(pass) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, AVX2 and popcnt were detected.
            Kernel::Avx2 => unsafe { super::avx2::run_pass(pass) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, AVX-512F and popcnt were detected.
            Kernel::Avx512 => unsafe { super::avx512::run_pass(pass) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, NEON was detected.
            Kernel::Neon => unsafe { super::neon::run_pass(pass) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            // SAFETY: the module was compiled with SIMD128.
            Kernel::Simd128 => unsafe { super::simd128::run_pass(pass) },
            // Kernels of another architecture: `or_scalar` never returns them.
            #[allow(unreachable_patterns)]
            _ => pass.run(Compiled::scalar()),
        }
    }
}
