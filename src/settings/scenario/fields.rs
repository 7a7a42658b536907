//! The scenario's fields, from the settings table
//! ([`crate::settings::table`]): a field per row, its type, and its kind of
//! value ([`crate::settings::kind`]: how it is read, checked and described
//! in messages). [`Scenario::apply`] copies an engine value into
//! [`Settings`] as it is, except where the row's default is derived (the
//! world, the cell size, the kernel): those follow rules of their own. The
//! [`Scenario`] and [`ScenarioView`] types, the TOML form [`Raw`],
//! [`FIELDS`], the messages' "must be ..." texts, the reading and checking
//! of a file's values, [`Scenario::from_given`] (the flags given) and
//! [`Scenario::overlay`] (and [`ScenarioView::overlay`]) all come from the
//! table, so a new setting needs no line here.

use serde::Deserialize;
use toml::Spanned;

use super::ScenarioError;
use crate::engine::sim::{Layout, Pass, Reorder, Settings, Workload};
use crate::engine::spatial::{Kernel, Strategy};
use crate::settings::kind::{Bits, Flag, KernelName, Kind, Name, Real, Source, Whole};
use crate::settings::view::Geometry;
use crate::settings::view::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout, ViewSettings};

/// Values given for scenario fields by name, outside a file: the command
/// line's given flags. The field list asks for each field's value as its
/// own type ([`Scenario::from_given`]), so a source need not name them.
pub trait Given {
    /// The value given for field `name` (the file's key, `_` between
    /// words), as a `T`; `None` when none is given, or when what is given
    /// is not a `T`.
    fn value<T: Clone + Send + Sync + 'static>(&self, name: &str) -> Option<T>;
}

/// Writes the scenario types and their field-wise code from the one list
/// of fields below (see the module's documentation).
macro_rules! scenario_fields {
    (
        engine {$(
            $ef:ident : $et:ty $([$opt:ident])? = $ek:ident {
                flag: $eflag:literal,
                default: $edefault:tt,
                range: $erange:tt,
                unit: $eunit:literal,
                slider: $eslider:tt,
                help: $ehelp:literal,
                on: [$($esurface:ident),*],
                bench: $ebench:tt,
            }
        )*}
        view {$(
            $vf:ident : $vt:ty = $vk:ident {
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
        /// A validated scenario: every value within [`crate::settings::rows`] or
        /// its names, `None` where the file does not set it.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Scenario {
            /// Short name (the file's stem when the file has no `name`).
            pub name: String,
            /// One line for the overlay (empty when the file has none).
            pub description: String,
            $( #[doc = $ehelp] pub $ef: Option<$et>, )*
            /// The window's view values; the engine ignores them.
            pub view: ScenarioView,
        }

        /// The window's view values a scenario may set, each `None` when
        /// the file does not (the window keeps its current one). Plain
        /// values: the window applies them to its view options; the engine
        /// and `bench` ignore them.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct ScenarioView {
            $( #[doc = $vhelp] pub $vf: Option<$vt>, )*
        }

        /// The fields of a scenario as TOML gives them, every value with
        /// its place in the text (also a lesson's `settings` tables,
        /// `crate::teaching::lesson::file`).
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct Raw {
            pub(crate) name: Option<Spanned<String>>,
            pub(crate) description: Option<Spanned<String>>,
            $( pub(crate) $ef: Option<Spanned<<$ek as Kind<$et>>::Raw>>, )*
            $( pub(crate) $vf: Option<Spanned<<$vk as Kind<$vt>>::Raw>>, )*
        }

        /// Every field a scenario file may have, in the file's order.
        pub const FIELDS: [&str; 2 + [$(stringify!($ef)),*].len() + [$(stringify!($vf)),*].len()] =
            ["name", "description", $(stringify!($ef),)* $(stringify!($vf),)*];

        /// What field `name` takes, as text (`None` for a name that is no
        /// field).
        pub(super) fn field_expected(name: &str) -> Option<String> {
            if name == "name" || name == "description" {
                return Some("text in quotes".to_string());
            }
            $( if name == stringify!($ef) {
                return Some(<$ek as Kind<$et>>::expected(name));
            } )*
            $( if name == stringify!($vf) {
                return Some(<$vk as Kind<$vt>>::expected(name));
            } )*
            None
        }

        impl Scenario {
            /// The values `given` has for the fields, each read as its
            /// field's type; `None` for every field it does not give. Name
            /// and description stay empty. Allocates nothing.
            pub fn from_given(given: &impl Given) -> Scenario {
                Scenario {
                    $( $ef: given.value::<$et>(stringify!($ef)), )*
                    view: ScenarioView {
                        $( $vf: given.value::<$vt>(stringify!($vf)), )*
                    },
                    ..Scenario::default()
                }
            }

            /// The fields this scenario sets (`Some`), in [`FIELDS`]' order;
            /// name and description are not among them. Allocates the list.
            pub fn named(&self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $( if self.$ef.is_some() { out.push(stringify!($ef)); } )*
                $( if self.view.$vf.is_some() { out.push(stringify!($vf)); } )*
                out
            }

            /// The checked values of `raw`, read from `src`, in the list's
            /// order; named `stem` when the file has no name.
            ///
            /// # Errors
            /// The first value outside its range or names.
            pub(super) fn read_fields(
                raw: &Raw,
                src: &Source,
                stem: &str,
            ) -> Result<Scenario, ScenarioError> {
                let text = |v: &Option<Spanned<String>>| v.as_ref().map(|s| s.get_ref().clone());
                Ok(Scenario {
                    name: text(&raw.name)
                        .filter(|n| !n.trim().is_empty())
                        .unwrap_or_else(|| stem.to_string()),
                    description: text(&raw.description).unwrap_or_default(),
                    $( $ef: <$ek as Kind<$et>>::read(src, stringify!($ef), &raw.$ef)?, )*
                    view: ScenarioView {
                        $( $vf: <$vk as Kind<$vt>>::read(src, stringify!($vf), &raw.$vf)?, )*
                    },
                })
            }

            /// Writes the engine values marked `set` that the scenario has
            /// into the same-named fields of `s`.
            pub(super) fn apply_set(&self, s: &mut Settings) {
                let this = self;
                $( scenario_fields!(@apply $edefault this s $ef); )*
            }

            /// This scenario with every value `over` names put over its own
            /// (name and description too, when `over` has them): a lesson
            /// step's settings over the lesson's, flags over a file's.
            /// Allocates the strings.
            pub fn overlay(&self, over: &Scenario) -> Scenario {
                let pick = |o: &String, s: &String| if o.is_empty() { s.clone() } else { o.clone() };
                Scenario {
                    name: pick(&over.name, &self.name),
                    description: pick(&over.description, &self.description),
                    $( $ef: over.$ef.or(self.$ef), )*
                    view: self.view.overlay(&over.view),
                }
            }
        }

        impl From<ViewSettings> for ScenarioView {
            /// Every view value set, as `v` has it.
            fn from(v: ViewSettings) -> Self {
                ScenarioView {
                    $( $vf: Some(v.$vf), )*
                }
            }
        }

        impl ViewSettings {
            /// These view values with every value `over` sets put over
            /// them. Allocates nothing.
            pub fn overlaid(&self, over: &ScenarioView) -> ViewSettings {
                ViewSettings {
                    $( $vf: over.$vf.unwrap_or(self.$vf), )*
                }
            }
        }

        impl ScenarioView {
            /// These view values with every value `over` sets put over
            /// them. Allocates nothing.
            pub fn overlay(&self, over: &ScenarioView) -> ScenarioView {
                ScenarioView {
                    $( $vf: over.$vf.or(self.$vf), )*
                }
            }
        }
    };
    (@apply ($default:expr) $this:ident $s:ident $f:ident) => {
        if let Some(v) = $this.$f {
            $s.$f = v;
        }
    };
    (@apply ($default:expr, $text:literal) $this:ident $s:ident $f:ident) => {};
}

crate::settings_table!(scenario_fields);
