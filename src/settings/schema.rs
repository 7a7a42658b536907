//! The numeric settings, each written once: its key (scenario and lesson
//! files, JSON), its flag, its allowed range and unit, its default and the
//! range its overlay slider offers. Scenario files ([`crate::settings::scenario`]),
//! lesson steps, the command line's value checks and the overlay's sliders
//! all read these, so a range or a default changes in one place.
//!
//! The named settings (strategy, kernel, layout, ...) are written once in
//! [`mod@crate::named`].

/// One numeric setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranged {
    /// The key in scenario and lesson files (`reorder_every`).
    pub key: &'static str,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// Unit for messages (`frames`), or empty.
    pub unit: &'static str,
    /// Whether only whole numbers are allowed.
    pub whole: bool,
    /// The value when nothing sets it (NaN where the default is derived:
    /// the world from the density, the cell from the radius).
    pub default: f64,
    /// The range the overlay's slider offers (within `min..=max`; a value
    /// set elsewhere outside it widens the slider to include it).
    pub slider: (f64, f64),
}

/// Most units a scenario, a lesson step and the command line may ask for.
pub const MAX_UNITS: usize = 1_000_000;

/// Unit count.
pub const UNITS: Ranged = Ranged {
    key: "units",
    min: 1.0,
    max: MAX_UNITS as f64,
    unit: "units",
    whole: true,
    default: 10_000.0,
    slider: (1_000.0, 200_000.0),
};
/// Spawn seed (TOML integers are signed 64-bit: 0 to `i64::MAX` in files).
pub const SEED: Ranged = Ranged {
    key: "seed",
    min: 0.0,
    max: i64::MAX as f64,
    unit: "",
    whole: true,
    default: 42.0,
    slider: (0.0, 0.0),
};
/// World edge, world units (default: the standard density for the count).
pub const WORLD: Ranged = Ranged {
    key: "world",
    min: 1.0,
    max: 1_000_000.0,
    unit: "world units",
    whole: false,
    default: f64::NAN,
    slider: (0.0, 0.0),
};
/// Query radius, world units (the slider's top is lowered to the pair
/// budget's limit at large unit counts).
pub const RADIUS: Ranged = Ranged {
    key: "radius",
    min: 0.01,
    max: 10_000.0,
    unit: "world units",
    whole: false,
    default: 10.0,
    slider: (1.0, 100.0),
};
/// Grid cell edge, world units (default: the radius, and following it; the
/// slider's bottom is the smallest cell the budgets allow).
pub const CELL_SIZE: Ranged = Ranged {
    key: "cell_size",
    min: 0.01,
    max: 1_000_000.0,
    unit: "world units",
    whole: false,
    default: f64::NAN,
    slider: (0.01, 200.0),
};
/// Simulated seconds per real second.
pub const SPEED: Ranged = Ranged {
    key: "speed",
    min: 0.0,
    max: 20.0,
    unit: "simulated seconds per second",
    whole: false,
    default: 4.0,
    slider: (0.0, 20.0),
};
/// Separation steering strength.
pub const SEPARATION: Ranged = Ranged {
    key: "separation",
    min: 0.0,
    max: 5.0,
    unit: "",
    whole: false,
    default: 1.0,
    slider: (0.0, 5.0),
};
/// Threads for the frame (the slider's top is lowered to this machine's
/// cores).
pub const THREADS: Ranged = Ranged {
    key: "threads",
    min: 1.0,
    max: 256.0,
    unit: "threads",
    whole: true,
    default: 1.0,
    slider: (1.0, 256.0),
};
/// Frames between reorders of the units in memory.
pub const REORDER_EVERY: Ranged = Ranged {
    key: "reorder_every",
    min: 1.0,
    max: 10_000.0,
    unit: "frames",
    whole: true,
    default: 16.0,
    slider: (1.0, 240.0),
};

/// Every numeric setting, in the order of a scenario file.
pub const RANGED: [Ranged; 9] = [
    UNITS,
    SEED,
    WORLD,
    RADIUS,
    CELL_SIZE,
    SPEED,
    SEPARATION,
    THREADS,
    REORDER_EVERY,
];

/// A number for a message: whole numbers without a fraction.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e19 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl Ranged {
    /// The setting of file key `key`, if it is a numeric one.
    pub fn by_key(key: &str) -> Option<Ranged> {
        RANGED.iter().copied().find(|r| r.key == key)
    }

    /// Whether `v` is allowed: finite, within `min..=max`, and whole where
    /// only whole numbers are.
    pub fn allows(&self, v: f64) -> bool {
        v.is_finite() && v >= self.min && v <= self.max && (!self.whole || v.fract() == 0.0)
    }

    /// The range as text: `1 to 10000 frames`.
    pub fn range_text(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        format!("{} to {}{unit}", num(self.min), num(self.max))
    }

    /// The range for a flag's help, digits grouped: `1 to 1,000,000`.
    pub fn span_text(&self) -> String {
        let grouped = |v: f64| {
            if v.fract() == 0.0 && (0.0..1e19).contains(&v) {
                crate::format::thousands(v as u64)
            } else {
                format!("{v}")
            }
        };
        format!("{} to {}", grouped(self.min), grouped(self.max))
    }

    /// What a file's value must be: `a whole number from 1 to 10000 frames`.
    pub fn expected(&self) -> String {
        let kind = if self.whole {
            "a whole number"
        } else {
            "a number"
        };
        format!("{kind} from {}", self.range_text())
    }

    /// The default as a whole number (for the integer settings).
    pub const fn default_whole(&self) -> u64 {
        self.default as u64
    }

    /// A flag's whole-number value (`_` separators allowed), from `min`
    /// (at least 1) to `max`.
    ///
    /// # Errors
    /// `expected a whole number of UNIT` when it is not one, `must be MIN
    /// to MAX` (digits grouped, as the flag's help says) when it is outside
    /// the range.
    pub fn parse_count(&self, s: &str) -> Result<u64, String> {
        let v: i128 = s
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| format!("expected a whole number of {}", self.unit))?;
        if v < self.min as i128 || v > self.max as i128 {
            return Err(format!("must be {}", self.span_text()));
        }
        Ok(v as u64)
    }

    /// A flag's number within the range.
    ///
    /// # Errors
    /// `expected a number`, or `must be MIN to MAX UNIT, got V` (digits
    /// grouped, as the flag's help says).
    pub fn parse_number(&self, s: &str) -> Result<f32, String> {
        let v = s
            .trim()
            .parse::<f32>()
            .map_err(|_| "expected a number".to_string())?;
        if self.allows(v as f64) {
            return Ok(v);
        }
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        Err(format!("must be {}{unit}, got {v}", self.span_text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flags_range_groups_whole_numbers_and_keeps_fractions() {
        let r = Ranged {
            min: 0.5,
            max: 1_000_000.0,
            ..REORDER_EVERY
        };
        assert_eq!(r.span_text(), "0.5 to 1,000,000");
        let r = Ranged {
            min: 1.0,
            max: 256.0,
            ..REORDER_EVERY
        };
        assert_eq!(r.span_text(), "1 to 256");
    }

    #[test]
    fn every_default_and_slider_lies_in_its_range() {
        for r in RANGED {
            assert!(r.min <= r.max, "{}", r.key);
            assert!(r.default.is_nan() || r.allows(r.default), "{}", r.key);
            let (lo, hi) = r.slider;
            if hi > lo {
                assert!(r.allows(lo) && r.allows(hi), "{}: slider {lo}..{hi}", r.key);
            }
            assert_eq!(Ranged::by_key(r.key).map(|b| b.key), Some(r.key));
        }
        // The engine's defaults are these.
        let s = crate::engine::sim::Settings::default();
        assert_eq!(s.units as f64, UNITS.default);
        assert_eq!(s.seed as f64, SEED.default);
        assert_eq!(s.radius as f64, RADIUS.default);
        assert_eq!(s.speed as f64, SPEED.default);
        assert_eq!(s.separation as f64, SEPARATION.default);
        assert_eq!(s.threads as f64, THREADS.default);
        assert_eq!(s.reorder_every as f64, REORDER_EVERY.default);
    }

    #[test]
    fn messages_name_the_range() {
        assert_eq!(REORDER_EVERY.range_text(), "1 to 10000 frames");
        assert_eq!(
            REORDER_EVERY.expected(),
            "a whole number from 1 to 10000 frames"
        );
        assert_eq!(SEPARATION.range_text(), "0 to 5");
        assert_eq!(REORDER_EVERY.parse_count("16"), Ok(16));
        assert_eq!(
            REORDER_EVERY.parse_count("10001"),
            Err("must be 1 to 10,000".to_string())
        );
        assert_eq!(
            THREADS.parse_count("x"),
            Err("expected a whole number of threads".to_string())
        );
        assert_eq!(
            WORLD.parse_number("0.5"),
            Err("must be 1 to 1,000,000 world units, got 0.5".to_string())
        );
        assert_eq!(
            SEPARATION.parse_number("6"),
            Err("must be 0 to 5, got 6".to_string())
        );
        assert!(!UNITS.allows(2.5));
    }
}
