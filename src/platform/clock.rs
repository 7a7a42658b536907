//! The one clock every timing in the product reads: phase times, frame
//! budgets, guards, the render timings.
//!
//! On every target but the browser this is [`std::time::Instant`] itself, so
//! desktop numbers are exactly what they were. In the browser
//! (`wasm32-unknown-unknown`) `std::time::Instant::now()` panics, so
//! [`Instant`] there reads the page's `performance.now()` through a function
//! the page registers with macroquad's loader (`sql_now_ms` in
//! `web/sql.js`). Browsers coarsen that clock (0.1 ms in Chromium, 1 ms or
//! more in some others, to blunt timing attacks); [`RESOLUTION_NOTE`] says so
//! where times are shown. `wasm32-wasip1` has a real monotonic clock
//! (`clock_time_get`) and uses the standard one.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use web::Instant;

/// What the clock's resolution does to the times shown, for the overlay's
/// tooltips and the README: `None` where the clock is the operating system's
/// (nanosecond counters), `Some` in the browser.
pub const RESOLUTION_NOTE: Option<&str> = if cfg!(all(
    target_arch = "wasm32",
    target_os = "unknown"
)) {
    Some("In the browser times come from performance.now(), which browsers coarsen (0.1 ms in Chromium, 1 ms or more elsewhere): phases shorter than that read as 0 or one tick, and only medians over many frames are meaningful.")
} else {
    None
};

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod web {
    use std::ops::Sub;
    use std::time::Duration;

    extern "C" {
        /// `performance.now()` in milliseconds since the page loaded,
        /// registered by `web/sql.js`.
        fn sql_now_ms() -> f64;
    }

    /// A point in time read from the page's `performance.now()`: the same
    /// methods as the [`std::time::Instant`] it replaces in the browser.
    /// Monotonic (the High Resolution Time specification guarantees it for
    /// one page).
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant {
        ms: f64,
    }

    impl Instant {
        /// Now.
        pub fn now() -> Instant {
            // SAFETY: `sql_now_ms` takes nothing, returns a double and has no
            // side effect; the page's loader supplies it (web/sql.js), and a
            // page without it fails at instantiation, before any call.
            let ms = unsafe { sql_now_ms() };
            Instant { ms }
        }

        /// The time since `self`, zero if the clock went backwards.
        pub fn elapsed(&self) -> Duration {
            Instant::now() - *self
        }

        /// The time from `earlier` to `self`, zero if `earlier` is later.
        pub fn duration_since(&self, earlier: Instant) -> Duration {
            *self - earlier
        }
    }

    impl Sub for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            Duration::from_secs_f64(((self.ms - earlier.ms) / 1000.0).max(0.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Instant;

    #[test]
    fn elapsed_time_is_never_negative_and_grows() {
        let a = Instant::now();
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = x.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(x);
        let b = Instant::now();
        assert!(b >= a);
        assert!((b - a) <= a.elapsed());
        assert_eq!(
            (a - b).as_secs_f64(),
            0.0,
            "earlier minus later saturates at zero"
        );
    }
}
