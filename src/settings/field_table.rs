//! The docs' table of settings (`docs/files.md`, "Scenario files"),
//! written from the settings table: a row per setting with its file key,
//! its flag, what it allows, its default and its help sentence. A test
//! fails when the docs' table differs from [`fields_markdown`].

use crate::engine::sim::Settings;
use crate::settings::rows::{Section, ROWS};
use crate::settings::view::ViewSettings;

/// `|` and line ends escaped for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The table of every setting as Markdown, in the table's order, then the
/// file-only `name` and `description`. Allocates the text.
pub fn fields_markdown() -> String {
    let (s, v) = (Settings::default(), ViewSettings::default());
    let mut out = String::from(
        "| field | flag | allowed | default | what it sets |\n|---|---|---|---|---|\n",
    );
    for r in ROWS {
        let allowed = if r.range.is_some() {
            let unit = if r.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", r.unit)
            };
            format!("{}{unit}", r.span_text())
        } else {
            crate::settings::scenario::expected(r.key)
        };
        let value = match r.section {
            Section::Engine => s.value(r.key),
            Section::View => v.value(r.key),
        };
        let default = match (r.default_text, value) {
            (Some(d), _) => d.to_string(),
            (None, Some(v)) => format!("`{}`", v.text),
            (None, None) => String::new(),
        };
        let what = match r.section {
            Section::Engine => r.help.to_string(),
            Section::View => format!("{} Window only: the engine never reads it.", r.help),
        };
        out += &format!(
            "| `{}` | `--{}` | {} | {} | {} |\n",
            r.key,
            r.flag,
            cell(&allowed),
            cell(&default),
            cell(&what)
        );
    }
    out +=
        "| `name`, `description` | | any text | the file's name; none | shown in the overlay |\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_docs_list_every_setting_as_the_table_says() {
        let docs = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/files.md"));
        let want = fields_markdown();
        assert!(
            docs.contains(&want),
            "docs/files.md's table of settings differs from the settings table; paste fields_markdown():\n{want}"
        );
        for r in ROWS {
            assert!(want.contains(&format!("| `{}` |", r.key)), "{}", r.key);
        }
    }
}
