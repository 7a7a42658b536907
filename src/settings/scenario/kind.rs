//! The kinds of value a scenario field holds, each with how its TOML value
//! is read and checked and what a message says it must be: a whole or a
//! real number within its range ([`crate::settings::schema`]), one of a set of names
//! ([`Named`]), the kernel's names or `best`, the normal bits (16 or 8),
//! and true or false. The field list ([`super::fields`]) names each
//! field's kind once; reading, checking and the messages follow from it.

use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::{one_line_error, ScenarioError};
use crate::engine::spatial::Kernel;
use crate::named::Named;
use crate::settings::schema::Ranged;
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
        let range = Ranged::by_key(name).map_or_else(String::new, |r| r.range_text());
        one_line_error(
            self.text,
            self.file,
            Some(span),
            Some(name.to_string()),
            format!("must be {range}, got {got}"),
        )
    }
}

/// A kind of scenario value of type `T`: the TOML value it is read from,
/// how that is checked, and what a message says it must be.
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
}

/// A whole number within its [`Ranged`] range (found by the field's key).
pub(crate) struct Whole;
/// A real number within its [`Ranged`] range, finite, stored as `f32`.
pub(crate) struct Real;
/// One of a [`Named`] set's keys, names or aliases.
pub(crate) struct Name;
/// A [`Kernel`]'s key or `best` (this CPU's widest).
pub(crate) struct KernelName;
/// Bits per component of the compressed normals: 16 or 8.
pub(crate) struct Bits;
/// `true` or `false`.
pub(crate) struct Flag;

/// The range of numeric field `name`: `(min, max)`, empty when the schema
/// has no such field.
fn limits(name: &str) -> (f64, f64) {
    Ranged::by_key(name).map_or((0.0, -1.0), |r| (r.min, r.max))
}

/// What numeric field `name` takes, from its [`Ranged`] entry.
fn ranged_expected(name: &str) -> String {
    Ranged::by_key(name).map_or_else(String::new, |r| r.expected())
}

impl<T: TryFrom<i64>> Kind<T> for Whole {
    type Raw = i64;

    fn read(
        src: &Source,
        name: &str,
        v: &Option<Spanned<i64>>,
    ) -> Result<Option<T>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        let (lo, hi) = limits(name);
        let x = *v.get_ref();
        let fits = (x as f64) >= lo && (x as f64) <= hi;
        match T::try_from(x) {
            Ok(t) if fits => Ok(Some(t)),
            _ => Err(src.out_of_range(name, v.span(), x.to_string())),
        }
    }

    fn expected(name: &str) -> String {
        ranged_expected(name)
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
}

impl Kind<bool> for Flag {
    type Raw = bool;

    fn read(_: &Source, _: &str, v: &Option<Spanned<bool>>) -> Result<Option<bool>, ScenarioError> {
        Ok(v.as_ref().map(|b| *b.get_ref()))
    }

    fn expected(_: &str) -> String {
        "true or false".to_string()
    }
}
