//! The lab's state as the window's flags: the settings and view values
//! that differ from a base (the defaults, or the lesson step's), written
//! as `--flag value` pairs. The browser build reads its URL's parameters
//! as these flags (`?units=5000&layout=aos` is `--units=5000
//! --layout=aos`), so one list gives both "Copy link" and "Copy command
//! line", and a link opened reproduces what was on screen.

use super::rows::{Kind, Row, Surfaces, TABLE};
use super::scenario::ScenarioView;
use crate::engine::sim::Settings;
use crate::settings::kind::kind_of;
use crate::settings::view::{ColorMode, Geometry, NormalPrecision, UnitMeshKind, VertexLayout};

/// One flag: its name without the dashes (`cell-size`) and its value as
/// the flag takes it (`None` for a switch such as `paused`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The flag's name, `-` between words; the URL parameter's key.
    pub key: &'static str,
    /// Its value, or `None` for a switch.
    pub value: Option<String>,
}

/// Whether flag `key` is a switch: alone it turns on, `--KEY=false` (URL
/// `KEY=false`) turns off what a lesson step or scenario turned on.
fn is_switch(key: &str) -> bool {
    Row::by_flag(key).is_some_and(|r| r.kind == Kind::Flag)
}

impl Param {
    fn new(key: &'static str, value: impl ToString) -> Param {
        Param {
            key,
            value: Some(value.to_string()),
        }
    }

    /// Switch `key` on (the key alone) or off (`false`).
    fn switch(key: &'static str, on: bool) -> Param {
        debug_assert!(is_switch(key), "{key} is no switch");
        Param {
            key,
            value: (!on).then(|| "false".to_string()),
        }
    }
}

/// What the state's link and command line name besides the settings: the
/// lesson (its name, or its file on the command line) and the step shown
/// (1-based; the summary page is `steps + 1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The lesson as `--lesson` takes it, if one is followed.
    pub lesson: Option<String>,
    /// The step shown, 1-based, if a lesson is followed.
    pub step: Option<usize>,
}

/// The parameter of a setting that differs, written as its flag takes it
/// (a switch as its key alone, or `false`).
fn param(row: &'static Row, text: String) -> Param {
    if row.kind == Kind::Flag {
        Param::switch(row.flag, text == "true")
    } else {
        Param::new(row.flag, text)
    }
}

/// The code of [`params`], from the settings table.
macro_rules! params_of {
    (
        engine {$( $key:ident : $ty:ty $([$opt:ident])? = $kind:ident { $($row:tt)* } )*}
        view {$( $vkey:ident : $vty:ty = $vkind:ident { $($vrow:tt)* } )*}
    ) => {
        /// The flags that turn `base` (settings and view values) into
        /// `live`, after the place's `lesson` and `step`, in the table's
        /// order (that of `--help`): every setting on the `link` surface
        /// whose value differs. Every view value is compared where both
        /// sides have one. A world edge that `live` derives from the
        /// density while `base` names one cannot be written as a flag and
        /// is left out; a cell that follows the radius has no flag (over a
        /// base that names another cell, its current size is named instead:
        /// the same grid). Allocates the list.
        pub fn params(
            place: &Place,
            (live, live_view): (&Settings, &ScenarioView),
            (base, base_view): (&Settings, &ScenarioView),
        ) -> Vec<Param> {
            let mut out = Vec::new();
            if let Some(l) = &place.lesson {
                out.push(Param::new("lesson", l));
            }
            if let Some(s) = place.step {
                out.push(Param::new("step", s));
            }
            $(
                if TABLE.$key.on.has(Surfaces::LINK) && params_of!(@differs $key, live, base $(, $opt)?) {
                    if let Some(v) = live.value(stringify!($key)).filter(|v| !v.text.is_empty()) {
                        out.push(param(&TABLE.$key, v.text));
                    }
                }
            )*
            $(
                if let (true, Some(a), Some(b)) = (TABLE.$vkey.on.has(Surfaces::LINK), live_view.$vkey, base_view.$vkey) {
                    if a != b {
                        let text = <kind_of!($vkind) as crate::settings::kind::Kind<$vty>>::text(&a);
                        out.push(param(&TABLE.$vkey, text));
                    }
                }
            )*
            out
        }
    };
    (@differs cell_size, $live:ident, $base:ident) => {
        if $live.cell_follows_radius {
            !$base.cell_follows_radius && $live.cell_size != $base.cell_size
        } else {
            $live.cell_size != $base.cell_size || $base.cell_follows_radius
        }
    };
    (@differs $key:ident, $live:ident, $base:ident, optional) => {
        $live.$key.is_some() && $live.$key != $base.$key
    };
    (@differs $key:ident, $live:ident, $base:ident) => {
        $live.$key != $base.$key
    };
}

crate::settings_table!(params_of);

/// `params` as a URL on `base` (`https://host/lab/`): `base?k=v&k=v`, each
/// value percent-encoded, a switch as its key alone; `base` alone when
/// there are none. Any query or fragment `base` has is dropped.
pub fn link(base: &str, params: &[Param]) -> String {
    let base = base.split(['?', '#']).next().unwrap_or(base);
    let query: Vec<String> = params
        .iter()
        .map(|p| match &p.value {
            Some(v) => format!("{}={}", p.key, encode(v)),
            None => p.key.to_string(),
        })
        .collect();
    if query.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", query.join("&"))
    }
}

/// `params` as a command line: `spatial-query-lab --k v ...`, a value
/// with spaces or quotes in single quotes (POSIX shells).
pub fn command_line(params: &[Param]) -> String {
    let mut out = String::from("spatial-query-lab");
    for p in params {
        out += &format!(" --{}", p.key);
        if let Some(v) = &p.value {
            // A switch takes its value joined (`--paused=false`).
            out.push(if is_switch(p.key) { '=' } else { ' ' });
            out += &quote(v);
        }
    }
    out
}

/// `s` percent-encoded for a URL's query value (RFC 3986's unreserved
/// characters kept).
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

/// `s` as one shell word: as is when it has only safe characters, else in
/// single quotes (a quote inside written `'\''`).
fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._/:=+,".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::Layout;

    fn full_view() -> ScenarioView {
        ScenarioView {
            color: Some(crate::settings::view::ColorMode::default()),
            vertex_layout: Some(crate::settings::view::VertexLayout::default()),
            normal_bits: Some(crate::settings::view::NormalPrecision::default()),
            mesh: Some(crate::settings::view::UnitMeshKind::default()),
            heatmap: Some(false),
            cache_model: Some(Default::default()),
        }
    }

    #[test]
    fn only_what_differs_is_written_after_the_place() {
        let base = Settings::default();
        let mut live = base.clone();
        live.units = 5000;
        live.layout = Layout::Aos;
        live.paused = true;
        let mut lv = full_view();
        lv.heatmap = Some(true);
        let place = Place {
            lesson: Some("algorithms".into()),
            step: Some(2),
        };
        let p = params(&place, (&live, &lv), (&base, &full_view()));
        let keys: Vec<&str> = p.iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            ["lesson", "step", "units", "layout", "paused", "heatmap"]
        );
        assert_eq!(
            link("http://localhost:8000/?old=1#x", &p),
            "http://localhost:8000/?lesson=algorithms&step=2&units=5000&layout=aos&paused&heatmap"
        );
        assert_eq!(
            command_line(&p),
            "spatial-query-lab --lesson algorithms --step 2 --units 5000 --layout aos --paused --heatmap"
        );
        let none = params(
            &Place::default(),
            (&base, &full_view()),
            (&base, &full_view()),
        );
        assert!(none.is_empty());
        assert_eq!(link("https://h/lab/", &none), "https://h/lab/");
    }

    #[test]
    fn values_are_encoded_and_quoted() {
        let p = [Param::new("lesson", "my lesson & more.toml")];
        assert_eq!(link("b", &p), "b?lesson=my%20lesson%20%26%20more.toml");
        assert_eq!(
            command_line(&p),
            "spatial-query-lab --lesson 'my lesson & more.toml'"
        );
    }

    #[test]
    fn a_named_cell_is_written_and_a_following_one_is_not() {
        let base = Settings::default();
        let mut live = base.clone();
        live.radius = 12.0;
        live.cell_size = 12.0;
        let p = params(
            &Place::default(),
            (&live, &full_view()),
            (&base, &full_view()),
        );
        assert_eq!(p, [Param::new("radius", 12.0f32)]);
        live.cell_follows_radius = false;
        live.cell_size = 20.0;
        let p = params(
            &Place::default(),
            (&live, &full_view()),
            (&base, &full_view()),
        );
        assert_eq!(p[1], Param::new("cell-size", 20.0f32));
        // Following the radius again over a base that names a cell: the
        // cell's current size is named.
        let named = Settings {
            cell_follows_radius: false,
            cell_size: 20.0,
            ..base.clone()
        };
        let mut follows = named.clone();
        follows.cell_follows_radius = true;
        follows.cell_size = follows.radius;
        let p = params(
            &Place::default(),
            (&follows, &full_view()),
            (&named, &full_view()),
        );
        assert_eq!(p, [Param::new("cell-size", base.radius)]);
    }

    /// Switches a base turns on are written off (`paused=false`), joined
    /// with `=` on the command line, so the link reopens them off.
    #[test]
    fn a_switch_turned_off_is_written_false() {
        let base = Settings {
            paused: true,
            ..Settings::default()
        };
        let live = Settings::default();
        let mut bv = full_view();
        bv.heatmap = Some(true);
        let p = params(&Place::default(), (&live, &full_view()), (&base, &bv));
        assert_eq!(
            link("https://h/lab/", &p),
            "https://h/lab/?paused=false&heatmap=false"
        );
        assert_eq!(
            command_line(&p),
            "spatial-query-lab --paused=false --heatmap=false"
        );
    }

    /// Values to try for `row`'s setting other than its default: its
    /// range's ends, its names, both switches, both bit counts.
    fn candidates(row: &Row) -> Vec<String> {
        match row.kind {
            Kind::Whole | Kind::Real => vec![row.min().to_string(), row.max().to_string()],
            Kind::Flag => vec!["true".into(), "false".into()],
            Kind::Bits => vec!["8".into(), "16".into()],
            Kind::Name | Kind::KernelName => crate::settings::scenario::expected(row.key)
                .trim_start_matches("one of ")
                .split(", ")
                .map(str::to_string)
                .collect(),
        }
    }

    /// Every setting on the link surface is written when it alone differs
    /// from the base, under its flag, and reads back to the same value: a
    /// row missing from the link's parameters fails here.
    #[test]
    fn every_setting_on_the_link_surface_is_written_and_reads_back() {
        use crate::settings::rows::{Section, ROWS};
        use crate::settings::view::ViewSettings;
        let (base, base_view) = (Settings::default(), ViewSettings::default());
        for row in ROWS.iter().filter(|r| r.on.has(Surfaces::LINK)) {
            let (mut live, mut live_view) = (base.clone(), base_view);
            let text = candidates(row)
                .into_iter()
                .find(|t| match row.section {
                    Section::Engine => {
                        let mut s = base.clone();
                        s.set_text(row.key, t).is_ok() && s.value(row.key) != base.value(row.key)
                    }
                    Section::View => {
                        let mut v = base_view;
                        v.set_text(row.key, t).is_ok()
                            && v.value(row.key) != base_view.value(row.key)
                    }
                })
                .unwrap_or_else(|| panic!("{}: no value other than the default", row.key));
            match row.section {
                Section::Engine => live.set_text(row.key, &text).unwrap(),
                Section::View => live_view.set_text(row.key, &text).unwrap(),
            }
            if row.key == "cell_size" {
                live.cell_follows_radius = false;
            }
            let p = params(
                &Place::default(),
                (&live, &ScenarioView::from(live_view)),
                (&base, &ScenarioView::from(base_view)),
            );
            assert_eq!(p.len(), 1, "{}: {p:?}", row.key);
            assert_eq!(p[0].key, row.flag, "{}", row.key);
            // The parameter reads back to the value on screen.
            let (mut back, mut back_view) = (base.clone(), base_view);
            let value = p[0].value.clone().unwrap_or_else(|| "true".to_string());
            match row.section {
                Section::Engine => {
                    back.set_text(row.key, &value).unwrap();
                    assert_eq!(back.value(row.key), live.value(row.key), "{}", row.key);
                }
                Section::View => {
                    back_view.set_text(row.key, &value).unwrap();
                    assert_eq!(
                        back_view.value(row.key),
                        live_view.value(row.key),
                        "{}",
                        row.key
                    );
                }
            }
        }
    }
}
