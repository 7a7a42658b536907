//! A setting's value reached through its row: read as text and JSON
//! ([`Settings::value`], [`ViewSettings::value`]), a numeric one edited in
//! place ([`Settings::number_mut`]), the defaults as numbers
//! ([`default_number`]), `bench`'s settings and lists ([`bench_base`],
//! [`BenchLists`]) and the settings columns of its rows ([`row_columns`]). Written
//! from the settings table, so a new row is reachable everywhere these are
//! used without another line.

use crate::engine::sim::{Layout, Pass, Reorder, Settings, Workload, STANDARD_RADIUS};
use crate::engine::spatial::{Kernel, Strategy};
use crate::settings::kind::kind_of;
use crate::settings::kind::{Real, Whole};
use crate::settings::rows::{Row, Surfaces, TABLE};
use crate::settings::view::ViewSettings;
use crate::settings::view::{ColorMode, Geometry, NormalPrecision, UnitMeshKind, VertexLayout};

/// A setting's value: as its flag takes it, and as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// As the flag and URL parameter take it (`sorted-grid`, `10`, `true`).
    pub text: String,
    /// As a JSON value: a number, a string (a name's key), a boolean, or
    /// null (an optional value that is not set).
    pub json: serde_json::Value,
}

impl Value {
    /// The value of `v` of kind `K`.
    fn of<T, K: crate::settings::kind::Kind<T>>(v: &T) -> Value {
        let text = K::text(v);
        let json = match K::number(v) {
            Some(x) => serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, |n| {
                if x.fract() == 0.0 && x.abs() < 9e15 {
                    serde_json::Value::from(x as i64)
                } else {
                    serde_json::Value::Number(n)
                }
            }),
            None if text == "true" || text == "false" => serde_json::Value::Bool(text == "true"),
            None => serde_json::Value::String(text.clone()),
        };
        Value { text, json }
    }

    /// No value: an optional setting that is not set (JSON null, empty text).
    fn none() -> Value {
        Value {
            text: String::new(),
            json: serde_json::Value::Null,
        }
    }
}

/// A numeric setting's value, editable in place (the overlay's sliders).
#[derive(Debug)]
pub enum NumberMut<'a> {
    /// A real number.
    F32(&'a mut f32),
    /// A count.
    Usize(&'a mut usize),
    /// A count.
    U32(&'a mut u32),
    /// A count.
    U64(&'a mut u64),
}

/// The typed code of [`Settings::value`] and the rest, from the table.
macro_rules! values_of {
    (
        engine {$(
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
        )*}
        view {$(
            $vkey:ident : $vty:ty = $vkind:ident {
                flag: $vflag:literal,
                default: $vdefault:tt,
                range: $vrange:tt,
                unit: $vunit:literal,
                slider: $vslider:tt,
                help: $vhelp:literal,
                on: [$($vsurface:ident),*],
                bench: $vbench:tt,
            }
        )*}
    ) => {
        impl Settings {
            /// The value of the engine setting of file key `key` (`None` for
            /// a key that is no engine setting). Allocates its text.
            pub fn value(&self, key: &str) -> Option<Value> {
                match key {
                    $(stringify!($key) => Some(values_of!(@value $kind, self.$key $(, $opt)?)),)*
                    _ => None,
                }
            }

            /// Sets the engine setting of file key `key` from `text`, as its
            /// flag takes it (the row's kind): checked against its
            /// range or names.
            ///
            /// # Errors
            /// The flag's one-line message for a value it refuses, or `no
            /// setting KEY`.
            pub fn set_text(&mut self, key: &str, text: &str) -> Result<(), String> {
                match key {
                    $(stringify!($key) => {
                        let v = <kind_of!($kind) as crate::settings::kind::Kind<$ty>>::parse(&TABLE.$key, text)?;
                        values_of!(@store self.$key, v $(, $opt)?);
                        Ok(())
                    })*
                    _ => Err(format!("no setting {key}")),
                }
            }

            /// The numeric engine setting of file key `key`, to edit in
            /// place; `None` for a key that is no stored number (an optional
            /// one included).
            pub fn number_mut(&mut self, key: &str) -> Option<NumberMut<'_>> {
                match key {
                    $(stringify!($key) => values_of!(@number_mut $kind, self.$key $(, $opt)?),)*
                    _ => None,
                }
            }
        }

        impl ViewSettings {
            /// The value of the view setting of file key `key` (`None` for a
            /// key that is no view setting). Allocates its text.
            pub fn value(&self, key: &str) -> Option<Value> {
                match key {
                    $(stringify!($vkey) => Some(values_of!(@value $vkind, self.$vkey)),)*
                    _ => None,
                }
            }

            /// Sets the view setting of file key `key` from `text`, as its
            /// flag takes it.
            ///
            /// # Errors
            /// The flag's one-line message for a value it refuses, or `no
            /// setting KEY`.
            pub fn set_text(&mut self, key: &str, text: &str) -> Result<(), String> {
                match key {
                    $(stringify!($vkey) => {
                        self.$vkey = <kind_of!($vkind) as crate::settings::kind::Kind<$vty>>::parse(&TABLE.$vkey, text)?;
                        Ok(())
                    })*
                    _ => Err(format!("no setting {key}")),
                }
            }
        }

        /// The default of numeric setting `key` as a number, from the
        /// settings' defaults; `None` for a derived default (an optional
        /// setting that is not set) or a setting that is no number.
        pub fn default_number(key: &str) -> Option<f64> {
            let s = Settings::default();
            #[allow(unused_variables)]
            let v = ViewSettings::default();
            match key {
                $(stringify!($key) => values_of!(@number $kind, s.$key $(, $opt)?),)*
                $(stringify!($vkey) => values_of!(@number $vkind, v.$vkey),)*
                _ => None,
            }
        }

        /// The settings `bench` starts from: the defaults, each setting
        /// with a `bench` default of its own set to it.
        pub fn bench_base() -> Settings {
            #[allow(unused_mut)]
            let mut s = Settings::default();
            $(values_of!(@bench_base s $key $bench);)*
            s
        }

        /// `bench`'s lists, one per engine setting (a list flag fills its
        /// own; the others stay empty): the combinations a run measures.
        #[derive(Clone, Debug, PartialEq)]
        pub struct BenchLists {
            $(
                #[doc = concat!("The values of `", stringify!($key), "` to measure (empty: the base's).")]
                pub $key: Vec<$ty>,
            )*
        }

        impl Default for BenchLists {
            /// Each list setting's `bench` default; empty for the others.
            fn default() -> Self {
                BenchLists {
                    $($key: values_of!(@bench_list $bench),)*
                }
            }
        }

        /// The settings columns of a `bench` row for `s`: the settings on
        /// the `row` surface, in the table's order, each as its key and
        /// value; the kernel as `none` where the query runs none
        /// ([`Settings::kernel_key`]). Allocates the list.
        pub fn row_columns(s: &Settings) -> Vec<(&'static str, Value)> {
            let mut out = Vec::new();
            $(
                if TABLE.$key.on.has(Surfaces::ROW) {
                    let mut v = values_of!(@value $kind, s.$key $(, $opt)?);
                    if stringify!($key) == "kernel" {
                        v = Value {
                            text: s.kernel_key().to_string(),
                            json: serde_json::Value::from(s.kernel_key()),
                        };
                    }
                    out.push((stringify!($key), v));
                }
            )*
            out
        }
    };
    (@value $kind:ident, $v:expr) => {
        Value::of::<_, kind_of!($kind)>(&$v)
    };
    (@value $kind:ident, $v:expr, optional) => {
        match &$v {
            Some(x) => Value::of::<_, kind_of!($kind)>(x),
            None => Value::none(),
        }
    };
    (@number_mut Whole, $v:expr) => { Some(NumberMut::from(&mut $v)) };
    (@number_mut Real, $v:expr) => { Some(NumberMut::from(&mut $v)) };
    (@number_mut $kind:ident, $v:expr $(, $opt:ident)?) => { None };
    (@number Whole, $v:expr) => { <Whole as crate::settings::kind::Kind<_>>::number(&$v) };
    (@number Real, $v:expr) => { <Real as crate::settings::kind::Kind<_>>::number(&$v) };
    (@number $kind:ident, $v:expr $(, $opt:ident)?) => { None };
    (@store $place:expr, $v:expr) => { $place = $v };
    (@store $place:expr, $v:expr, optional) => { $place = Some($v) };
    (@bench_base $s:ident $key:ident (one $e:expr)) => { $s.$key = $e; };
    (@bench_base $s:ident $key:ident $bench:tt) => {};
    (@bench_list (list $flag:literal ($e:expr))) => { $e };
    (@bench_list $bench:tt) => { Vec::new() };
}

impl Row {
    /// The default as a whole number, from `Settings::default()` (whole
    /// engine rows; 0 for any other).
    pub fn default_whole(&self) -> u64 {
        default_number(self.key).map_or(0, |v| v as u64)
    }

    /// The default as a number, from the settings' defaults (numeric rows
    /// whose default is a value; NaN for the others).
    pub fn default_number(&self) -> f64 {
        default_number(self.key).unwrap_or(f64::NAN)
    }
}

impl<'a> From<&'a mut f32> for NumberMut<'a> {
    fn from(v: &'a mut f32) -> Self {
        NumberMut::F32(v)
    }
}
impl<'a> From<&'a mut usize> for NumberMut<'a> {
    fn from(v: &'a mut usize) -> Self {
        NumberMut::Usize(v)
    }
}
impl<'a> From<&'a mut u32> for NumberMut<'a> {
    fn from(v: &'a mut u32) -> Self {
        NumberMut::U32(v)
    }
}
impl<'a> From<&'a mut u64> for NumberMut<'a> {
    fn from(v: &'a mut u64) -> Self {
        NumberMut::U64(v)
    }
}

crate::settings_table!(values_of);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::rows::{Section, ROWS};

    #[test]
    fn every_row_has_a_value_and_its_text_parses_back() {
        let (s, v) = (Settings::default(), ViewSettings::default());
        for r in ROWS {
            let value = match r.section {
                Section::Engine => s.value(r.key),
                Section::View => v.value(r.key),
            };
            let value = value.unwrap_or_else(|| panic!("{}: no value", r.key));
            if r.default_text.is_none() {
                assert!(!value.text.is_empty(), "{}", r.key);
            }
            if let Some(d) = default_number(r.key) {
                assert_eq!(value.json.as_f64(), Some(d), "{}", r.key);
            }
        }
        assert_eq!(s.value("strategy").unwrap().json, "grid");
        assert_eq!(s.value("paused").unwrap().json, false);
        assert_eq!(s.value("world").unwrap().json, serde_json::Value::Null);
        assert_eq!(v.value("normal_bits").unwrap().text, "16");
        assert!(s.value("no_such_setting").is_none());
    }

    #[test]
    fn bench_starts_from_its_own_defaults() {
        let b = bench_base();
        assert_eq!(b.separation, 0.0, "steering off while timed");
        assert_eq!(b.units, Settings::default().units);
        let l = BenchLists::default();
        assert_eq!(l.units, [1_000, 10_000, 100_000]);
        assert_eq!(l.strategy, Strategy::ALL);
        assert!(l.seed.is_empty(), "seed is one value");
    }
}
