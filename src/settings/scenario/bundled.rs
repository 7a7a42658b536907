//! The scenario presets that ship with the lab: the files of
//! `assets/scenarios/`, compiled into the binary so the browser build,
//! which has no file system, has them too. On the desktop the window still
//! lists and reloads the files themselves, so an edited preset shows at once.

use std::path::Path;

use super::{Scenario, ScenarioError};

/// (name, file text), sorted by name as the window lists the files.
pub const PRESETS: [(&str, &str); 5] = [
    (
        "battle",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/scenarios/battle.toml"
        )),
    ),
    (
        "clustered",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/scenarios/clustered.toml"
        )),
    ),
    (
        "hotspot",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/scenarios/hotspot.toml"
        )),
    ),
    (
        "sparse-huge-world",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/scenarios/sparse-huge-world.toml"
        )),
    ),
    (
        "uniform",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/scenarios/uniform.toml"
        )),
    ),
];

/// The names of the built-in presets, sorted.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|p| p.0)
}

/// The built-in preset `name`, parsed (named
/// `assets/scenarios/NAME.toml` in messages); `None` when no preset has
/// that name.
///
/// # Errors
/// A [`ScenarioError`] if the text does not validate (the tests parse
/// every one).
pub fn get(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    let (n, text) = PRESETS.iter().find(|p| p.0 == name)?;
    Some(Scenario::parse(
        text,
        &format!("assets/scenarios/{n}.toml"),
        n,
    ))
}

/// Whether `which` names a file rather than a preset: it ends in `.toml`,
/// holds a path separator, or is an existing file whose name is no
/// preset's (a bare preset name is the preset; `./NAME` is the file).
pub fn is_file(which: &Path) -> bool {
    which.extension().is_some_and(|e| e == "toml")
        || which.components().count() > 1
        || (which.is_file() && !names().any(|n| *which == *n))
}

/// The scenario `which` names: a scenario file ([`Scenario::load`]) when
/// [`is_file`] says so, else the built-in preset of that name.
///
/// # Errors
/// The file's error, or one line saying no preset has that name and
/// listing the names.
pub fn resolve(which: &Path) -> Result<Scenario, String> {
    if is_file(which) {
        return Scenario::load(which).map_err(|e| e.to_string());
    }
    let name = which.to_string_lossy();
    match get(&name) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err(format!(
            "no built-in scenario \"{name}\"; one of {}, or a FILE.toml",
            names().collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_file_is_built_in_and_validates() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(names().collect::<Vec<_>>(), files);
        for n in names() {
            let sc = get(n).unwrap().unwrap_or_else(|e| panic!("{n}: {e}"));
            let from_file = Scenario::load(&dir.join(format!("{n}.toml"))).unwrap();
            assert_eq!(sc.name, from_file.name);
            assert_eq!(sc.description, from_file.description);
        }
    }

    #[test]
    fn names_and_files_are_told_apart() {
        assert!(resolve(Path::new("battle")).is_ok());
        let e = resolve(Path::new("battel")).unwrap_err();
        assert!(
            e.contains("no built-in scenario \"battel\"") && e.contains("battle, clustered"),
            "{e}"
        );
        let e = resolve(Path::new("missing.toml")).unwrap_err();
        assert!(e.contains("missing.toml"), "{e}");
    }
}
