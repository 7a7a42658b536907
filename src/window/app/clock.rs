//! The frame loop's counters: frames run, the frame after which the
//! program ends (`--frames`, `--screenshot`), and the refresh rate.

use crate::window::ui::stats::FpsMeter;

/// Frames run so far, the last one, and the refresh rate over them.
pub(super) struct FrameClock {
    /// Frames run so far (the first is 1).
    pub frame: u64,
    /// The frame after which the program ends (`--frames`, `--screenshot`);
    /// `None`: it runs until the window is closed.
    pub last: Option<u64>,
    /// The refresh rate and the slowest refresh of the last second.
    pub fps: FpsMeter,
}

impl FrameClock {
    /// No frame run yet; the program ends after frame `last`, if given.
    pub fn new(last: Option<u64>) -> Self {
        FrameClock {
            frame: 0,
            last,
            fps: FpsMeter::default(),
        }
    }

    /// Whether this frame is the last one (the screenshot's).
    pub fn is_last(&self) -> bool {
        self.last.is_some_and(|n| self.frame >= n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_frame_is_the_one_asked_for_and_none_without_a_limit() {
        let mut clock = FrameClock::new(Some(2));
        clock.frame = 1;
        assert!(!clock.is_last());
        clock.frame = 2;
        assert!(clock.is_last());
        let mut endless = FrameClock::new(None);
        endless.frame = u64::MAX;
        assert!(!endless.is_last());
    }
}
