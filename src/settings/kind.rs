//! The kinds of value a setting holds (a row's `Kind` in the settings
//! table), each with how it is read and checked from a TOML file and from
//! text (a flag, a URL parameter), what a message says it must be, and how
//! it is written back as a flag's value: a whole or a real number within
//! its row's range, one of a set of names ([`Named`]), the kernel's names or
//! `best`, the normal bits (16 or 8), and true or false. The table names
//! each setting's kind once; everything here follows from it.

use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::file_error::{one_line_error, ScenarioError};
use super::rows::Row;
use crate::engine::spatial::Kernel;
use crate::named::Named;
use crate::settings::view::NormalPrecision;

/// The file a field is read from: its whole text (spans index it) and its
/// name for messages.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The whole text of the file.
    pub(crate) text: &'a str,
    /// The file as the user named it.
    pub(crate) file: &'a str,
}

impl Source<'_> {
    /// The one-line error of field `name` at `span`: `must be EXPECTED, got
    /// GOT`, where EXPECTED is what the field's kind `K` takes.
    fn must_be<T, K: Kind<T>>(&self, name: &str, span: Range<usize>, got: String) -> ScenarioError {
        one_line_error(
            self.text,
            self.file,
            Some(span),
            Some(name.to_string()),
            format!("must be {}, got {got}", K::expected(name)),
        )
    }

    /// The value `parse` gives for the text of field `name` (`None` when
    /// the file leaves it out); a text it does not know is the one-line
    /// error quoting it.
    fn by_name<T, K: Kind<T>>(
        &self,
        name: &str,
        v: &Option<Spanned<String>>,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        parse(v.get_ref())
            .map(Some)
            .ok_or_else(|| self.must_be::<T, K>(name, v.span(), format!("\"{}\"", v.get_ref())))
    }

    /// The one-line error of numeric field `name` at `span` outside its
    /// range: `must be 1 to 1000000 units, got GOT`.
    fn out_of_range(&self, name: &str, span: Range<usize>, got: String) -> ScenarioError {
        let range = Row::by_key(name).map_or_else(String::new, Row::range_text);
        one_line_error(
            self.text,
            self.file,
            Some(span),
            Some(name.to_string()),
            format!("must be {range}, got {got}"),
        )
    }
}

/// A kind of setting value of type `T`: the TOML value it is read from,
/// how that and a text are checked, what a message says it must be, and the
/// text a flag takes for it.
pub(crate) trait Kind<T> {
    /// The value as TOML gives it.
    type Raw: DeserializeOwned;

    /// The checked value of field `name` (`None` when the file leaves it
    /// out).
    ///
    /// # Errors
    /// The one-line error naming the file, the line and `name` when the
    /// value is outside its range or names.
    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<Self::Raw>>,
    ) -> Result<Option<T>, ScenarioError>;

    /// What field `name` takes, for a message (`a whole number from 1 to
    /// 1000000 units`, `one of naive, grid, sorted-grid`).
    fn expected(name: &str) -> String;

    /// The value of `row`'s flag or URL parameter given as the text `s`.
    ///
    /// # Errors
    /// One line saying what the flag takes (its range or names).
    fn parse(row: &Row, s: &str) -> Result<T, String>;

    /// `v` as the flag takes it (a named value's key, a number as Rust
    /// prints it, `true` or `false`).
    fn text(v: &T) -> String;

    /// `v` as a number, for numeric kinds.
    fn number(_v: &T) -> Option<f64> {
        None
    }
}

/// A whole number within its row's range.
pub(crate) struct Whole;
/// A real number within its row's range, finite, stored as `f32`.
pub(crate) struct Real;
/// One of a [`Named`] set's keys, names or aliases.
pub(crate) struct Name;
/// A [`Kernel`]'s key or `best` (this CPU's widest).
pub(crate) struct KernelName;
/// Bits per component of the compressed normals: 16 or 8.
pub(crate) struct Bits;
/// `true` or `false`.
pub(crate) struct Flag;

/// The whole-number types a setting is stored in.
pub(crate) trait WholeNumber: Copy + Send + Sync + 'static {
    /// `v` in this type, if it fits.
    fn from_u64(v: u64) -> Option<Self>;
    /// This value as `u64`.
    fn to_u64(self) -> u64;
}

macro_rules! whole_number {
    ($($t:ty),*) => {$(
        impl WholeNumber for $t {
            fn from_u64(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn to_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
whole_number!(usize, u32, u64);

/// The range of numeric field `name`: `(min, max)`, empty when the table
/// has no such field.
fn limits(name: &str) -> (f64, f64) {
    Row::by_key(name).map_or((0.0, -1.0), |r| (r.min(), r.max()))
}

/// What numeric field `name` takes, from its row.
fn ranged_expected(name: &str) -> String {
    Row::by_key(name).map_or_else(String::new, Row::expected)
}

impl<T: WholeNumber> Kind<T> for Whole {
    type Raw = i64;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<i64>>,
    ) -> Result<Option<T>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        let (lo, hi) = Row::by_key(name)
            .and_then(|r| r.whole_range)
            .unwrap_or((1, 0));
        let x = *v.get_ref();
        let fits = u64::try_from(x).is_ok_and(|u| u >= lo && u <= hi);
        match u64::try_from(x).ok().and_then(T::from_u64) {
            Some(t) if fits => Ok(Some(t)),
            _ => Err(src.out_of_range(name, v.span(), x.to_string())),
        }
    }

    fn expected(name: &str) -> String {
        ranged_expected(name)
    }

    fn parse(row: &Row, s: &str) -> Result<T, String> {
        let v = row.parse_count(s)?;
        T::from_u64(v).ok_or_else(|| format!("must be {}", row.span_text()))
    }

    fn text(v: &T) -> String {
        v.to_u64().to_string()
    }

    fn number(v: &T) -> Option<f64> {
        Some(v.to_u64() as f64)
    }
}

impl Kind<f32> for Real {
    type Raw = f64;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<f64>>,
    ) -> Result<Option<f32>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        let (lo, hi) = limits(name);
        let x = *v.get_ref();
        if !(x.is_finite() && x >= lo && x <= hi) {
            return Err(src.out_of_range(name, v.span(), x.to_string()));
        }
        Ok(Some(x as f32))
    }

    fn expected(name: &str) -> String {
        ranged_expected(name)
    }

    fn parse(row: &Row, s: &str) -> Result<f32, String> {
        row.parse_number(s)
    }

    fn text(v: &f32) -> String {
        v.to_string()
    }

    fn number(v: &f32) -> Option<f64> {
        Some(f64::from(*v))
    }
}

impl<T: Named> Kind<T> for Name {
    type Raw = String;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<String>>,
    ) -> Result<Option<T>, ScenarioError> {
        src.by_name::<T, Self>(name, v, T::parse)
    }

    fn expected(_: &str) -> String {
        T::one_of(None)
    }

    fn parse(_: &Row, s: &str) -> Result<T, String> {
        T::parse(s).ok_or_else(|| format!("expected {}", T::keys_text(None)))
    }

    fn text(v: &T) -> String {
        v.key().to_string()
    }
}

impl Kind<Kernel> for KernelName {
    type Raw = String;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<String>>,
    ) -> Result<Option<Kernel>, ScenarioError> {
        src.by_name::<Kernel, Self>(name, v, Kernel::from_key_or_best)
    }

    fn expected(_: &str) -> String {
        Kernel::one_of(Some("best"))
    }

    fn parse(_: &Row, s: &str) -> Result<Kernel, String> {
        Kernel::from_key_or_best(s)
            .ok_or_else(|| format!("expected {}", Kernel::keys_text(Some("best"))))
    }

    fn text(v: &Kernel) -> String {
        v.key().to_string()
    }
}

impl Kind<NormalPrecision> for Bits {
    type Raw = i64;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<i64>>,
    ) -> Result<Option<NormalPrecision>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        NormalPrecision::from_bits(*v.get_ref())
            .map(Some)
            .ok_or_else(|| {
                src.must_be::<NormalPrecision, Self>(name, v.span(), v.get_ref().to_string())
            })
    }

    fn expected(_: &str) -> String {
        "16 or 8".to_string()
    }

    fn parse(_: &Row, s: &str) -> Result<NormalPrecision, String> {
        s.trim()
            .parse()
            .ok()
            .and_then(NormalPrecision::from_bits)
            .ok_or_else(|| "expected 16 or 8".to_string())
    }

    fn text(v: &NormalPrecision) -> String {
        v.bits().to_string()
    }
}

impl Kind<bool> for Flag {
    type Raw = bool;

    fn read(_: &Source, _: &str, v: &Option<Spanned<bool>>) -> Result<Option<bool>, ScenarioError> {
        Ok(v.as_ref().map(|b| *b.get_ref()))
    }

    fn expected(_: &str) -> String {
        "true or false".to_string()
    }

    fn parse(_: &Row, s: &str) -> Result<bool, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(format!("expected true or false, got {s}")),
        }
    }

    fn text(v: &bool) -> String {
        v.to_string()
    }
}

/// The marker type of a row's kind name (`Whole` -> [`Whole`]), for the
/// settings table's consumers.
macro_rules! kind_of {
    ($kind:ident) => {
        $crate::settings::kind::$kind
    };
}
pub(crate) use kind_of;
