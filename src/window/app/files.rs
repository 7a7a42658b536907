//! Where the files the user asks for go (F12's screenshot, the compare and
//! lesson exports, the charts): the next free numbered name in the current
//! folder on the desktop, a browser download in the browser, which has no
//! file system. Every caller goes through [`deliver`], so no other frame-loop
//! code touches files.

use std::path::{Path, PathBuf};

use crate::platform::browser;

/// The first `{stem}-NNN.{ext}` (NNN from 001) that does not exist in
/// `dir`, or `None` when all 999 do.
pub fn next_free_path(dir: &Path, stem: &str, ext: &str) -> Option<PathBuf> {
    (1..=999)
        .map(|k| dir.join(format!("{stem}-{k:03}.{ext}")))
        .find(|p| !p.exists())
}

/// The MIME type the browser download of a file with extension `ext` gets.
fn mime(ext: &str) -> &'static str {
    match ext {
        "png" => "image/png",
        "csv" => "text/csv",
        "json" => "application/json",
        "md" => "text/markdown",
        _ => "application/octet-stream",
    }
}

/// Saves `bytes` as `{stem}-NNN.{ext}` in the current folder (the first
/// free NNN), or in the browser offers them as the download `{stem}.{ext}`;
/// returns where they went, for a toast ("Saved ...", "Downloaded ...").
///
/// # Errors
/// One line: the folder already holds 999 such files, or the file cannot be
/// written (naming it). The browser's download cannot fail here.
pub fn deliver(stem: &str, ext: &str, bytes: &[u8]) -> Result<String, String> {
    if browser::IN_BROWSER {
        let name = format!("{stem}.{ext}");
        browser::download(&name, bytes, mime(ext));
        return Ok(format!("{name} (a browser download)"));
    }
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let path = next_free_path(&dir, stem, ext).ok_or_else(|| {
        format!(
            "{} already holds {stem}-001.{ext} to -999.{ext}",
            dir.display()
        )
    })?;
    crate::platform::output_file::write(&path, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screenshots_and_exports_take_the_first_free_number() {
        let dir = std::env::temp_dir().join(format!("sql-exports-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let shot = |k: u32| dir.join(format!("spatial-query-lab-{k:03}.png"));
        let csv = |k: u32| dir.join(format!("spatial-query-lab-compare-{k:03}.csv"));
        let next_shot = || next_free_path(&dir, "spatial-query-lab", "png");
        assert_eq!(next_shot(), Some(shot(1)));
        for k in [1, 2] {
            std::fs::write(shot(k), b"png").unwrap();
        }
        assert_eq!(next_shot(), Some(shot(3)));
        std::fs::remove_file(shot(1)).unwrap();
        assert_eq!(next_shot(), Some(shot(1)));
        // Each name and extension is counted on its own.
        assert_eq!(
            next_free_path(&dir, "spatial-query-lab-compare", "csv"),
            Some(csv(1))
        );
        std::fs::write(csv(1), b"x").unwrap();
        assert_eq!(
            next_free_path(&dir, "spatial-query-lab-compare", "csv"),
            Some(csv(2))
        );
        assert_eq!(
            next_free_path(&dir, "spatial-query-lab-compare", "json"),
            Some(dir.join("spatial-query-lab-compare-001.json"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn types_of_the_exports() {
        assert_eq!(mime("png"), "image/png");
        assert_eq!(mime("csv"), "text/csv");
        assert_eq!(mime("json"), "application/json");
        assert_eq!(mime("xyz"), "application/octet-stream");
    }
}
