//! Scenario files in the window: the overlay's list (the files of
//! `assets/scenarios/`, or the presets compiled in where there is no file
//! system), loading one into the settings and the view, reloading it.

use std::path::{Path, PathBuf};

use super::App;
use crate::platform::browser;
use crate::settings::scenario::{self, Scenario};
use crate::window::render::mesh::asset_dirs;

/// The scenario files the overlay lists, and the one loaded.
#[derive(Default)]
pub(super) struct Scenarios {
    /// The files of `assets/scenarios/` (the presets' names in the
    /// browser), in the overlay's order.
    files: Vec<PathBuf>,
    /// The file of the loaded scenario.
    pub file: Option<PathBuf>,
}

impl Scenarios {
    /// Finds the scenario files for the overlay's list; returns their
    /// names (file stems) in the list's order.
    pub fn list(&mut self) -> Vec<String> {
        self.files = if browser::IN_BROWSER {
            // No file system: the presets compiled in, by name.
            scenario::bundled::names().map(Into::into).collect()
        } else {
            scenario::list(&asset_dirs())
        };
        self.files
            .iter()
            .map(|p| {
                p.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            })
            .collect()
    }

    /// The file at index `k` of the list, if there is one.
    pub fn file_at(&self, k: usize) -> Option<PathBuf> {
        self.files.get(k).cloned()
    }

    /// Reads the scenario at `path` (a file, or a preset's name) and
    /// remembers it as the loaded one.
    ///
    /// # Errors
    /// One line when it cannot be read; the loaded one stays.
    pub fn load(&mut self, path: &Path) -> Result<Scenario, String> {
        let sc = scenario::bundled::resolve(path)?;
        self.file = Some(path.to_path_buf());
        Ok(sc)
    }
}

impl App {
    /// Finds the scenario files for the overlay's list.
    pub(super) fn list_scenarios(&mut self) {
        self.stats.scenarios = self.scenarios.list();
    }

    /// Loads the scenario at `path` into the settings (respawning at the
    /// next step) and the view, or shows why it cannot be loaded and
    /// changes nothing.
    pub(super) fn load_scenario(&mut self, path: &Path) {
        match self.scenarios.load(path) {
            Ok(sc) => {
                sc.apply(&mut self.settings);
                super::changes::apply_view(&sc.view, &mut self.view);
                self.stepping.respawn = true;
                let description = match sc.kernel_note() {
                    Some(note) => format!("{} ({note})", sc.description)
                        .trim_start()
                        .to_string(),
                    None => sc.description,
                };
                self.stats.scenario = Some((sc.name, description));
                self.stats.scenario_error = None;
            }
            Err(e) => {
                self.stats.scenario_error =
                    Some(format!("{e}. The running scenario keeps running."));
            }
        }
    }
}
