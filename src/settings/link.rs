//! The lab's state as the window's flags: the settings and view values
//! that differ from a base (the defaults, or the lesson step's), written
//! as `--flag value` pairs. The browser build reads its URL's parameters
//! as these flags (`?units=5000&layout=aos` is `--units=5000
//! --layout=aos`), so one list gives both "Copy link" and "Copy command
//! line", and a link opened reproduces what was on screen.

use super::scenario::ScenarioView;
use crate::engine::sim::Settings;
use crate::named::Named;

/// One flag: its name without the dashes (`cell-size`) and its value as
/// the flag takes it (`None` for a switch such as `paused`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The flag's name, `-` between words; the URL parameter's key.
    pub key: &'static str,
    /// Its value, or `None` for a switch.
    pub value: Option<String>,
}

/// The flags that are switches: alone they turn on, `--KEY=false` (URL
/// `KEY=false`) turns off what a lesson step or scenario turned on.
const SWITCHES: [&str; 2] = ["paused", "heatmap"];

impl Param {
    fn new(key: &'static str, value: impl ToString) -> Param {
        Param {
            key,
            value: Some(value.to_string()),
        }
    }

    /// Switch `key` on (the key alone) or off (`false`).
    fn switch(key: &'static str, on: bool) -> Param {
        debug_assert!(SWITCHES.contains(&key), "{key} is no switch");
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

/// The flags that turn `base` (settings and view values) into `live`, in
/// the flags' order of `--help`, after the place's `lesson` and `step`.
/// Every view value is compared where both sides have one. A world edge
/// that `live` derives from the density while `base` names one cannot be
/// written as a flag and is left out. Allocates the list.
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
    let mut put = |differs: bool, p: Param| {
        if differs {
            out.push(p);
        }
    };
    put(live.units != base.units, Param::new("units", live.units));
    if let (Some(w), true) = (live.world, live.world != base.world) {
        put(true, Param::new("world", w));
    }
    put(
        live.radius != base.radius,
        Param::new("radius", live.radius),
    );
    // A cell that follows the radius has no flag: over a base that names
    // another cell, its current size is named instead (the same grid).
    let cell_named = if live.cell_follows_radius {
        !base.cell_follows_radius && live.cell_size != base.cell_size
    } else {
        live.cell_size != base.cell_size || base.cell_follows_radius
    };
    put(cell_named, Param::new("cell-size", live.cell_size));
    put(live.seed != base.seed, Param::new("seed", live.seed));
    put(
        live.workload != base.workload,
        Param::new("workload", live.workload.key()),
    );
    put(
        live.strategy != base.strategy,
        Param::new("strategy", live.strategy.key()),
    );
    put(
        live.kernel != base.kernel,
        Param::new("kernel", live.kernel.key()),
    );
    put(
        live.threads != base.threads,
        Param::new("threads", live.threads),
    );
    put(
        live.reorder != base.reorder,
        Param::new("reorder", live.reorder.key()),
    );
    put(
        live.reorder_every != base.reorder_every,
        Param::new("reorder-every", live.reorder_every),
    );
    put(
        live.layout != base.layout,
        Param::new("layout", live.layout.key()),
    );
    put(live.pass != base.pass, Param::new("pass", live.pass.key()));
    put(live.speed != base.speed, Param::new("speed", live.speed));
    put(
        live.separation != base.separation,
        Param::new("separation", live.separation),
    );
    put(
        live.paused != base.paused,
        Param::switch("paused", live.paused),
    );
    let v = |a: Option<&'static str>, b: Option<&'static str>| a.is_some() && b.is_some() && a != b;
    let (lv, bv) = (live_view, base_view);
    if let Some(c) = lv
        .color
        .filter(|_| v(lv.color.map(Named::key), bv.color.map(Named::key)))
    {
        put(true, Param::new("color", c.key()));
    }
    if let Some(l) = lv.vertex_layout.filter(|_| {
        v(
            lv.vertex_layout.map(Named::key),
            bv.vertex_layout.map(Named::key),
        )
    }) {
        put(true, Param::new("vertex-layout", l.key()));
    }
    if let (Some(a), Some(b)) = (lv.normal_bits, bv.normal_bits) {
        put(a != b, Param::new("normal-bits", a.bits()));
    }
    if let Some(m) = lv
        .mesh
        .filter(|_| v(lv.mesh.map(Named::key), bv.mesh.map(Named::key)))
    {
        put(true, Param::new("mesh", m.key()));
    }
    if let (Some(a), Some(b)) = (lv.heatmap, bv.heatmap) {
        put(a != b, Param::switch("heatmap", a));
    }
    if let Some(g) = lv.cache_model.filter(|_| {
        v(
            lv.cache_model.map(Named::key),
            bv.cache_model.map(Named::key),
        )
    }) {
        put(true, Param::new("cache-model", g.key()));
    }
    out
}

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
            out.push(if SWITCHES.contains(&p.key) { '=' } else { ' ' });
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
}
