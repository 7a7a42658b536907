//! The window's and `bench`'s setting flags, from the settings table: one
//! flag per row on the `window` surface ([`WindowSettingFlags`]; in the
//! browser, one URL parameter), one per row with a `bench` flag
//! ([`BenchSettingFlags`]: a single value, or a comma-separated list under
//! its own name). Each flag's id is its row's key, its help the row's
//! sentence with its range and default, and its value is checked against
//! the row's range or names: the same range as in files and links (case
//! Y34 of the hard cases).

use crate::settings::kind::kind_of;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};

use crate::engine::sim::{Layout, Pass, Reorder, Settings, Workload};
use crate::engine::spatial::{Kernel, Strategy};
use crate::settings::kind::Kind;
use crate::settings::rows::{BenchFlag, Row, Surfaces, TABLE};
use crate::settings::scenario::{Given, Scenario};
use crate::settings::values::{bench_base, BenchLists};
use crate::settings::view::{ColorMode, Geometry, NormalPrecision, UnitMeshKind, VertexLayout};

/// Whether flag `id` was given on the command line (not left at its
/// default), so it overrides a file's value.
pub fn given(m: &ArgMatches, id: &str) -> bool {
    m.try_contains_id(id).unwrap_or(false) && m.value_source(id) == Some(ValueSource::CommandLine)
}

/// The flags given on a command line, read by the setting they share their
/// id with (the row's key).
pub struct GivenFlags<'a>(pub &'a ArgMatches);

impl Given for GivenFlags<'_> {
    fn value<T: Clone + Send + Sync + 'static>(&self, name: &str) -> Option<T> {
        given(self.0, name)
            .then(|| self.0.try_get_one::<T>(name).ok().flatten().cloned())
            .flatten()
    }
}

/// The help of `row`'s flag: its sentence, then its range and default
/// (`default` is the value's text; the row's own default text, such as
/// "best" for a value derived from the CPU, wins for a single value, while
/// a list flag's default is the list it runs).
fn help(row: &Row, default: String, list: bool) -> String {
    let mut notes = Vec::new();
    if row.range.is_some() {
        let unit = if row.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", row.unit)
        };
        notes.push(format!("{}{unit}", row.span_text()));
    }
    let given = (!default.is_empty()).then_some(default.as_str());
    let shown = if list {
        given.or(row.default_text)
    } else {
        row.default_text.or(given)
    };
    if let Some(d) = shown {
        notes.push(format!("default: {d}"));
    }
    if notes.is_empty() {
        row.help.to_string()
    } else {
        format!("{} ({})", row.help, notes.join("; "))
    }
}

/// The flag of `row` whose value is a `T` read as kind `K`: one value, or
/// with `list` a comma-separated list under that name. A `Flag` row is a
/// switch (`--paused`, `--paused=false`).
fn arg<T: Clone + Send + Sync + 'static, K: Kind<T>>(
    row: &'static Row,
    list: Option<&'static str>,
    default: String,
) -> Arg {
    let parser = move |s: &str| {
        K::parse(row, s).map_err(|e| {
            // "10,000" in a list splits into "10" and "000".
            let split_number = list.is_some() && s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit());
            if split_number {
                format!("{e} (a list's values are separated by commas: write ten thousand as 10000, not 10,000)")
            } else {
                e
            }
        })
    };
    let arg = Arg::new(row.key)
        .long(list.unwrap_or(row.flag))
        .value_parser(clap::builder::ValueParser::new(parser))
        .help(help(row, default, list.is_some()));
    if list.is_some() {
        return arg
            .value_delimiter(',')
            .action(ArgAction::Append)
            .value_name("LIST");
    }
    if row.kind == crate::settings::rows::Kind::Flag {
        return arg
            .value_name("BOOL")
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .action(ArgAction::Set);
    }
    use crate::settings::rows::Kind as RowKind;
    arg.value_name(match row.kind {
        RowKind::Whole => "N",
        RowKind::Real => "X",
        RowKind::Name => "NAME",
        RowKind::KernelName => "KERNEL",
        RowKind::Bits => "BITS",
        RowKind::Flag => "BOOL",
    })
}

/// The flags' code, from the table.
macro_rules! flags_of {
    (
        engine {$( $key:ident : $ty:ty $([$opt:ident])? = $kind:ident { $($row:tt)* } )*}
        view {$( $vkey:ident : $vty:ty = $vkind:ident { $($vrow:tt)* } )*}
    ) => {
        /// The window's setting flags: one per row on the `window` surface,
        /// in the table's order.
        pub fn window_args() -> Vec<Arg> {
            let (s, v) = (Settings::default(), crate::settings::view::ViewSettings::default());
            let mut out = Vec::new();
            $(
                if TABLE.$key.on.has(Surfaces::WINDOW) {
                    let d = s.value(stringify!($key)).map(|v| v.text).unwrap_or_default();
                    out.push(arg::<$ty, kind_of!($kind)>(&TABLE.$key, None, d));
                }
            )*
            $(
                if TABLE.$vkey.on.has(Surfaces::WINDOW) {
                    let d = v.value(stringify!($vkey)).map(|v| v.text).unwrap_or_default();
                    out.push(arg::<$vty, kind_of!($vkind)>(&TABLE.$vkey, None, d));
                }
            )*
            out
        }

        /// `bench`'s setting flags: one per engine row with a `bench` flag,
        /// in the table's order (a list under its own name).
        pub fn bench_args() -> Vec<Arg> {
            let (s, lists) = (bench_base(), BenchLists::default());
            let mut out = Vec::new();
            $(
                match TABLE.$key.bench {
                    BenchFlag::None => {}
                    BenchFlag::One | BenchFlag::Own => {
                        let d = s.value(stringify!($key)).map(|v| v.text).unwrap_or_default();
                        out.push(arg::<$ty, kind_of!($kind)>(&TABLE.$key, None, d));
                    }
                    BenchFlag::List(name) => {
                        let d: Vec<String> = lists
                            .$key
                            .iter()
                            .map(|x| <kind_of!($kind) as Kind<$ty>>::text(x))
                            .collect();
                        out.push(arg::<$ty, kind_of!($kind)>(&TABLE.$key, Some(name), d.join(",")));
                    }
                }
            )*
            out
        }

        /// The lists given to `bench`'s list flags in `m`, each without
        /// repeats; empty where the flag was not given.
        fn given_lists(m: &ArgMatches) -> BenchLists {
            let mut l = BenchLists::default();
            $(
                l.$key = match TABLE.$key.bench {
                    BenchFlag::List(_) if given(m, stringify!($key)) => unique(
                        m.get_many::<$ty>(stringify!($key))
                            .map(|v| v.cloned().collect())
                            .unwrap_or_default(),
                    ),
                    _ => Vec::new(),
                };
            )*
            l
        }

        impl BenchSettingFlags {
            /// `bench`'s settings and lists as one merge: its defaults,
            /// then the scenario `file`'s engine values (each replacing its
            /// list with one value), then the flags given. The cell follows
            /// the radius unless the sizes are given or the file names one.
            /// Allocates the lists.
            pub fn merge(&self, file: &Scenario) -> (Settings, BenchLists) {
                let mut s = bench_base();
                let mut lists = BenchLists::default();
                $(
                    match TABLE.$key.bench {
                        BenchFlag::None => {}
                        BenchFlag::Own => {
                            if let Some(v) = self.given.$key {
                                flags_of!(@set s.$key, v $(, $opt)?);
                            }
                        }
                        BenchFlag::One => {
                            if let Some(v) = self.given.$key.or(file.$key) {
                                flags_of!(@set s.$key, v $(, $opt)?);
                            }
                        }
                        BenchFlag::List(_) => {
                            if !self.lists.$key.is_empty() {
                                lists.$key = self.lists.$key.clone();
                            } else if let Some(v) = file.$key {
                                lists.$key = vec![v];
                            }
                        }
                    }
                )*
                if self.lists.cell_size.is_empty() && file.cell_size.is_none() {
                    lists.cell_size = vec![s.radius];
                }
                (s, lists)
            }
        }
    };
    (@set $place:expr, $v:expr) => { $place = $v };
    (@set $place:expr, $v:expr, optional) => { $place = Some($v) };
}

crate::settings_table!(flags_of);

/// `v` without repeats, first occurrences in order (`--strategies
/// grid,grid` runs once).
pub fn unique<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The window's setting flags (every row on the `window` surface) as clap
/// arguments; parsed, the values given on the command line as a scenario
/// ([`Scenario::from_given`]): `None` for every setting left out.
#[derive(Clone, Debug, Default)]
pub struct WindowSettingFlags(pub Scenario);

impl FromArgMatches for WindowSettingFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(WindowSettingFlags(Scenario::from_given(&GivenFlags(m))))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for WindowSettingFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.args(window_args())
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// `bench`'s setting flags (every engine row with a `bench` flag) as clap
/// arguments; parsed, the single values given (as a scenario) and the
/// lists given (empty where not given), to merge with a scenario file
/// ([`BenchSettingFlags::merge`]).
#[derive(Clone, Debug)]
pub struct BenchSettingFlags {
    /// The single values given (`--seed 7`).
    pub given: Scenario,
    /// The lists given (`--strategies grid,naive`), without repeats.
    pub lists: BenchLists,
}

impl FromArgMatches for BenchSettingFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(BenchSettingFlags {
            given: Scenario::from_given(&GivenFlags(m)),
            lists: given_lists(m),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for BenchSettingFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.args(bench_args())
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bench`'s setting flags parsed from `args`.
    fn bench(args: &[&str]) -> BenchSettingFlags {
        let m = clap::Command::new("bench")
            .args(bench_args())
            .try_get_matches_from(std::iter::once("bench").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        BenchSettingFlags::from_arg_matches(&m).unwrap()
    }

    /// A list flag's help names the list it runs when none is given, not
    /// the window's single default: bench's kernels are every native one,
    /// while the window's `--kernel` starts on "best".
    #[test]
    fn a_list_flag_names_its_own_default() {
        let help_of = |args: Vec<Arg>, id: &str| {
            let a = args.into_iter().find(|a| a.get_id() == id).expect(id);
            a.get_help().map(|h| h.to_string()).unwrap_or_default()
        };
        let native: Vec<String> = Kernel::native()
            .iter()
            .map(<crate::settings::kind::KernelName as Kind<Kernel>>::text)
            .collect();
        let bench_help = help_of(bench_args(), "kernel");
        assert!(
            bench_help.ends_with(&format!("default: {})", native.join(","))),
            "{bench_help}"
        );
        let window_help = help_of(window_args(), "kernel");
        assert!(window_help.ends_with("default: best)"), "{window_help}");
    }

    /// A number written with a thousands separator in a list is refused
    /// with the reason, not only with the piece after the comma.
    #[test]
    fn a_thousands_separator_in_a_list_is_explained() {
        let e = clap::Command::new("bench")
            .args(bench_args())
            .try_get_matches_from(["bench", "--units", "10,000"])
            .expect_err("10,000 is refused")
            .to_string();
        assert!(
            e.contains("'000'") && e.contains("write ten thousand as 10000"),
            "{e}"
        );
    }

    /// A file's engine values replace bench's defaults (a list by its one
    /// value), flags replace the file's; a setting with bench's own default
    /// (separation: steering off while timed) takes no value from a file,
    /// only from its flag; the cell follows the radius unless named.
    #[test]
    fn bench_merges_its_defaults_a_file_and_the_flags() {
        let file = Scenario {
            units: Some(500),
            radius: Some(4.0),
            separation: Some(3.0),
            strategy: Some(Strategy::Naive),
            ..Scenario::default()
        };
        let (s, l) = bench(&[]).merge(&file);
        assert_eq!((l.units.as_slice(), s.radius), (&[500][..], 4.0));
        assert_eq!(l.strategy, [Strategy::Naive]);
        assert_eq!(s.separation, 0.0, "the file's steering is the window's");
        assert_eq!(l.cell_size, [4.0], "the cell follows the file's radius");
        let (s, l) =
            bench(&["--separation", "2", "--units", "7,7,9", "--cell-sizes", "5"]).merge(&file);
        assert_eq!(s.separation, 2.0);
        assert_eq!(l.units, [7, 9], "a list without repeats");
        assert_eq!(l.cell_size, [5.0]);
        let (s, l) = bench(&[]).merge(&Scenario::default());
        assert_eq!(s, bench_base());
        assert_eq!(l, BenchLists::default());
    }
}
