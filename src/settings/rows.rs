//! The settings table's rows as values ([`TABLE`], [`ROWS`]): each row's
//! key, flag, kind, range, unit, slider, help sentence, surfaces and
//! `bench` flag, from the one table ([`crate::settings::table`]). Range
//! checks, messages, `--help`, the overlay's sliders and tooltips and the
//! docs' field table read them.

use crate::format::thousands;

/// Most units any surface may ask for: the `units` row's largest value.
pub const MAX_UNITS: usize = 1_000_000;

/// How a setting's value is read, checked and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number within the row's range.
    Whole,
    /// A finite number within the row's range.
    Real,
    /// One of a named set's keys, names or aliases.
    Name,
    /// A kernel's key, or `best` (the widest this CPU runs).
    KernelName,
    /// Bits per component of the compressed normals: 16 or 8.
    Bits,
    /// `true` or `false`; on the command line a switch (`--paused`,
    /// `--paused=false`).
    Flag,
}

/// Which part of the lab a setting belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The engine's: a field of `Settings`.
    Engine,
    /// The window's look: a field of
    /// [`ViewSettings`](crate::settings::view::ViewSettings); the engine
    /// never reads it.
    View,
}

/// The surfaces a setting appears on beyond `Settings` (see the table's
/// documentation), as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Surfaces(u8);

impl Surfaces {
    /// A window flag and a URL parameter.
    pub const WINDOW: Surfaces = Surfaces(1);
    /// A field of scenario and lesson files.
    pub const FILE: Surfaces = Surfaces(2);
    /// "Copy link" and "Copy command line".
    pub const LINK: Surfaces = Surfaces(4);
    /// A settings column of `bench`'s rows (JSON and CSV).
    pub const ROW: Surfaces = Surfaces(8);
    /// A slider in the overlay's scene section, drawn from the row alone.
    pub const SLIDER: Surfaces = Surfaces(16);
    /// A control in the overlay's panel whose tooltip starts with the
    /// row's help sentence (the table's sliders are such controls).
    pub const OVERLAY: Surfaces = Surfaces(32);

    /// `self` and `other` together.
    pub const fn with(self, other: Surfaces) -> Surfaces {
        Surfaces(self.0 | other.0)
    }

    /// Whether `self` holds every surface of `other`.
    pub const fn has(self, other: Surfaces) -> bool {
        self.0 & other.0 == other.0
    }
}

/// A setting's `bench` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchFlag {
    /// None: `bench` uses its fixed value.
    None,
    /// One value under the row's own flag; a scenario file's value sets it
    /// too.
    One,
    /// One value under the row's own flag, with `bench`'s own default
    /// (steering off while timed): a scenario file's value is the window's
    /// and leaves it as it is.
    Own,
    /// A comma-separated list under this flag (`strategies`): one
    /// combination per value.
    List(&'static str),
}

/// The overlay's slider of a numeric setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slider {
    /// Lowest value the slider offers (a value set elsewhere outside it
    /// widens the slider to include it).
    pub lo: f64,
    /// Highest value the slider offers.
    pub hi: f64,
    /// The slider's step (its resolution when dragged).
    pub step: f64,
    /// Logarithmic (for ranges over several powers of ten).
    pub log: bool,
}

/// One row of the settings table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The key in scenario and lesson files and in JSON (`reorder_every`).
    pub key: &'static str,
    /// The flag and URL parameter, without its dashes (`reorder-every`).
    pub flag: &'static str,
    /// How its value is read and written.
    pub kind: Kind,
    /// The engine's, or the window's look.
    pub section: Section,
    /// Smallest and largest allowed value (numeric settings): the same
    /// range on every surface.
    pub range: Option<(f64, f64)>,
    /// The same range exactly, for whole numbers (a `u64` holds every
    /// whole bound, `i64::MAX` included, which an `f64` rounds).
    pub whole_range: Option<(u64, u64)>,
    /// Unit for messages and the docs (`frames`), or empty.
    pub unit: &'static str,
    /// The overlay's slider, for numeric settings that have one.
    pub slider: Option<Slider>,
    /// One sentence: `--help`, the overlay's tooltip, the docs' field table.
    pub help: &'static str,
    /// The default as text where it is derived rather than a value (the
    /// world from the density, the cell from the radius, the kernel from
    /// the CPU).
    pub default_text: Option<&'static str>,
    /// The surfaces beyond `Settings` that carry it.
    pub on: Surfaces,
    /// Its `bench` flag.
    pub bench: BenchFlag,
}

/// A number for a message: whole numbers without a fraction.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e19 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A number for a flag's help, digits grouped: `1,000,000`.
fn grouped(v: f64) -> String {
    if v.fract() == 0.0 && (0.0..1e19).contains(&v) {
        thousands(v as u64)
    } else {
        format!("{v}")
    }
}

impl Row {
    /// The row of file key `key`, if there is one.
    pub fn by_key(key: &str) -> Option<&'static Row> {
        ROWS.iter().copied().find(|r| r.key == key)
    }

    /// The row of flag `flag` (without dashes), if there is one.
    pub fn by_flag(flag: &str) -> Option<&'static Row> {
        ROWS.iter().copied().find(|r| r.flag == flag)
    }

    /// Whether only whole numbers are allowed.
    pub fn whole(&self) -> bool {
        self.kind == Kind::Whole
    }

    /// Smallest allowed value (numeric rows; 0 otherwise).
    pub fn min(&self) -> f64 {
        self.range.map_or(0.0, |r| r.0)
    }

    /// Largest allowed value (numeric rows; 0 otherwise).
    pub fn max(&self) -> f64 {
        self.range.map_or(0.0, |r| r.1)
    }

    /// Whether `v` is allowed: finite, within the range, and whole where
    /// only whole numbers are. False for a row without a range.
    pub fn allows(&self, v: f64) -> bool {
        self.range.is_some()
            && v.is_finite()
            && v >= self.min()
            && v <= self.max()
            && (!self.whole() || v.fract() == 0.0)
    }

    /// ` UNIT`, or nothing for a row without a unit.
    fn unit_suffix(&self) -> String {
        if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        }
    }

    /// The range as text: `1 to 10000 frames`.
    pub fn range_text(&self) -> String {
        let (lo, hi) = match self.whole_range {
            Some((lo, hi)) => (lo.to_string(), hi.to_string()),
            None => (num(self.min()), num(self.max())),
        };
        format!("{lo} to {hi}{}", self.unit_suffix())
    }

    /// The range with digits grouped: `1 to 1,000,000`.
    pub fn span_text(&self) -> String {
        match self.whole_range {
            Some((lo, hi)) => format!("{} to {}", thousands(lo), thousands(hi)),
            None => format!("{} to {}", grouped(self.min()), grouped(self.max())),
        }
    }

    /// What a numeric value must be: `a whole number from 1 to 10000 frames`.
    pub fn expected(&self) -> String {
        let kind = if self.whole() {
            "a whole number"
        } else {
            "a number"
        };
        format!("{kind} from {}", self.range_text())
    }

    /// A whole number given as text (`_` separators allowed) within the
    /// range.
    ///
    /// # Errors
    /// `expected a whole number of UNIT` when it is not one, `must be MIN
    /// to MAX` (digits grouped, as `--help` says) when it is outside the
    /// range.
    pub fn parse_count(&self, s: &str) -> Result<u64, String> {
        let what = if self.unit.is_empty() {
            "expected a whole number".to_string()
        } else {
            format!("expected a whole number of {}", self.unit)
        };
        let v: i128 = s.trim().replace('_', "").parse().map_err(|_| what)?;
        let (lo, hi) = self
            .whole_range
            .unwrap_or((self.min() as u64, self.max() as u64));
        if v < i128::from(lo) || v > i128::from(hi) {
            return Err(format!("must be {}", self.span_text()));
        }
        Ok(v as u64)
    }

    /// A number given as text within the range.
    ///
    /// # Errors
    /// `expected a number`, or `must be MIN to MAX UNIT, got V` (digits
    /// grouped, as `--help` says).
    pub fn parse_number(&self, s: &str) -> Result<f32, String> {
        let v = s
            .trim()
            .parse::<f32>()
            .map_err(|_| "expected a number".to_string())?;
        // Compared in f32, as the value is stored: 0.01 parses to an f32
        // just below the f64 0.01 and is still the range's bottom.
        let (lo, hi) = (self.min() as f32, self.max() as f32);
        if self.range.is_some() && v.is_finite() && v >= lo && v <= hi {
            return Ok(v);
        }
        Err(format!(
            "must be {}{}, got {v}",
            self.span_text(),
            self.unit_suffix()
        ))
    }

    /// The slider's range as `f32` (its own range when the row has no
    /// slider).
    pub fn slider_f32(&self) -> std::ops::RangeInclusive<f32> {
        let (lo, hi) = self
            .slider
            .map_or((self.min(), self.max()), |s| (s.lo, s.hi));
        lo as f32..=hi as f32
    }
}

/// The `Kind` of a row's kind name.
#[doc(hidden)]
#[macro_export]
macro_rules! __row_kind {
    (Whole) => {
        $crate::settings::rows::Kind::Whole
    };
    (Real) => {
        $crate::settings::rows::Kind::Real
    };
    (Name) => {
        $crate::settings::rows::Kind::Name
    };
    (KernelName) => {
        $crate::settings::rows::Kind::KernelName
    };
    (Bits) => {
        $crate::settings::rows::Kind::Bits
    };
    (Flag) => {
        $crate::settings::rows::Kind::Flag
    };
}

/// The parts of a row as values, for [`rows_of!`].
macro_rules! row_part {
    (range none) => {
        None
    };
    (range [$min:expr, $max:expr]) => {
        Some(($min as f64, $max as f64))
    };
    (whole_range Whole [$min:expr, $max:expr]) => {
        Some(($min as u64, $max as u64))
    };
    (whole_range $kind:ident $range:tt) => {
        None
    };
    (slider none) => {
        None
    };
    (slider [$lo:expr, $hi:expr, $step:expr]) => {
        Some(Slider {
            lo: $lo as f64,
            hi: $hi as f64,
            step: $step as f64,
            log: false,
        })
    };
    (slider [$lo:expr, $hi:expr, $step:expr, log]) => {
        Some(Slider {
            lo: $lo as f64,
            hi: $hi as f64,
            step: $step as f64,
            log: true,
        })
    };
    (default_text ($e:expr)) => {
        None
    };
    (default_text ($e:expr, $text:literal)) => {
        Some($text)
    };
    (bench none) => {
        BenchFlag::None
    };
    (bench one) => {
        BenchFlag::One
    };
    (bench (one $e:expr)) => {
        BenchFlag::Own
    };
    (bench (list $flag:literal ($e:expr))) => {
        BenchFlag::List($flag)
    };
    (section engine) => {
        Section::Engine
    };
    (section view) => {
        Section::View
    };
    (surface window) => {
        Surfaces::WINDOW
    };
    (surface file) => {
        Surfaces::FILE
    };
    (surface link) => {
        Surfaces::LINK
    };
    (surface row) => {
        Surfaces::ROW
    };
    (surface slider) => {
        Surfaces::SLIDER
    };
    (surface overlay) => {
        Surfaces::OVERLAY
    };
}

/// Writes [`Table`], [`TABLE`] and [`ROWS`] from the settings table.
macro_rules! rows_of {
    ($(
        $section:ident {
            $(
                $key:ident : $ty:ty $([$opt:ident])? = $kind:ident {
                    flag: $flag:literal,
                    default: $default:tt,
                    range: $range:tt,
                    unit: $unit:literal,
                    slider: $slider:tt,
                    help: $help:literal,
                    on: [$($surface:ident),*],
                    bench: $bench:tt,
                }
            )*
        }
    )*) => {
        /// Every row of the settings table, by key.
        #[derive(Debug)]
        pub struct Table {
            $($(
                #[doc = $help]
                pub $key: Row,
            )*)*
        }

        /// The settings table's rows.
        pub static TABLE: Table = Table {
            $($(
                $key: Row {
                    key: stringify!($key),
                    flag: $flag,
                    kind: $crate::__row_kind!($kind),
                    section: row_part!(section $section),
                    range: row_part!(range $range),
                    whole_range: row_part!(whole_range $kind $range),
                    unit: $unit,
                    slider: row_part!(slider $slider),
                    help: $help,
                    default_text: row_part!(default_text $default),
                    on: Surfaces(0) $(.with(row_part!(surface $surface)))*,
                    bench: row_part!(bench $bench),
                },
            )*)*
        };

        /// Every row, in the table's order: the engine's, then the view's,
        /// each in the order of a scenario file.
        pub static ROWS: [&Row; $crate::count_idents!($($($key)*)*)] = [$($(&TABLE.$key,)*)*];
    };
}

crate::settings_table!(rows_of);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flags_range_groups_whole_numbers_and_keeps_fractions() {
        let r = Row {
            range: Some((0.5, 1_000_000.0)),
            whole_range: None,
            ..TABLE.reorder_every
        };
        assert_eq!(r.span_text(), "0.5 to 1,000,000");
        assert_eq!(TABLE.threads.span_text(), "1 to 256");
    }

    #[test]
    fn every_default_and_slider_lies_in_its_range() {
        for r in ROWS {
            assert_eq!(Row::by_key(r.key).map(|b| b.key), Some(r.key));
            assert_eq!(Row::by_flag(r.flag).map(|b| b.key), Some(r.key));
            assert_eq!(r.flag, r.key.replace('_', "-"), "{}", r.key);
            // Scenario and lesson files have a field for every row.
            assert!(r.on.has(Surfaces::FILE), "{}", r.key);
            let numeric = matches!(r.kind, Kind::Whole | Kind::Real);
            assert_eq!(
                r.range.is_some(),
                numeric,
                "{}: a range for numbers only",
                r.key
            );
            let Some((lo, hi)) = r.range else { continue };
            assert!(lo <= hi, "{}", r.key);
            let d = r.default_number();
            assert!(d.is_nan() || r.allows(d), "{}: default {d}", r.key);
            if d.is_nan() {
                assert!(
                    r.default_text.is_some(),
                    "{}: a derived default says so",
                    r.key
                );
            }
            if let Some(s) = r.slider {
                assert!(
                    r.allows(s.lo) && r.allows(s.hi),
                    "{}: slider {}..{}",
                    r.key,
                    s.lo,
                    s.hi
                );
                assert!(
                    s.step > 0.0 && s.step <= s.hi - s.lo,
                    "{}: step {}",
                    r.key,
                    s.step
                );
            }
            if r.on.has(Surfaces::SLIDER) {
                assert!(r.slider.is_some(), "{}: a slider needs its range", r.key);
                assert!(
                    r.on.has(Surfaces::OVERLAY),
                    "{}: a slider is an overlay control",
                    r.key
                );
            }
        }
    }

    #[test]
    fn messages_name_the_range() {
        assert_eq!(TABLE.reorder_every.range_text(), "1 to 10000 frames");
        assert_eq!(
            TABLE.reorder_every.expected(),
            "a whole number from 1 to 10000 frames"
        );
        assert_eq!(TABLE.separation.range_text(), "0 to 5");
        assert_eq!(TABLE.reorder_every.parse_count("16"), Ok(16));
        assert_eq!(
            TABLE.reorder_every.parse_count("10001"),
            Err("must be 1 to 10,000".to_string())
        );
        assert_eq!(
            TABLE.threads.parse_count("x"),
            Err("expected a whole number of threads".to_string())
        );
        assert_eq!(
            TABLE.world.parse_number("0.5"),
            Err("must be 1 to 1,000,000 world units, got 0.5".to_string())
        );
        assert_eq!(
            TABLE.separation.parse_number("6"),
            Err("must be 0 to 5, got 6".to_string())
        );
        assert!(!TABLE.units.allows(2.5));
        // A flag's value is compared as it is stored, in f32.
        assert_eq!(TABLE.cell_size.parse_number("0.01"), Ok(0.01));
        assert!(TABLE.cell_size.parse_number("0.0099").is_err());
        assert!(!TABLE.strategy.allows(1.0), "no range, nothing allowed");
        // Whole bounds are exact, the seed's i64::MAX included.
        assert_eq!(TABLE.seed.span_text(), "0 to 9,223,372,036,854,775,807");
        assert_eq!(
            TABLE.seed.parse_count("9223372036854775807"),
            Ok(i64::MAX as u64)
        );
        assert!(TABLE.seed.parse_count("9223372036854775808").is_err());
    }
}
