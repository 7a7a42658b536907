//! Writing a file the user asked for whole or not at all: the bytes go to a
//! temporary name beside the target (`.NAME.partial`), are flushed to the
//! disk, and only then renamed to the target. A full disk or a killed
//! process leaves no half-written file under the name the user expects
//! (the rename is atomic on one file system: POSIX `rename(2)`, Windows
//! `MoveFileEx` with replace).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary name [`write()`] uses for `path`: `.NAME.partial` in the
/// same folder (same file system, so the rename is atomic).
pub fn partial_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    path.with_file_name(format!(".{name}.partial"))
}

/// Writes `bytes` to `path` through [`partial_path`]; replaces a file
/// already there. Allocates the temporary name only.
///
/// # Errors
/// The I/O error of creating, writing, syncing or renaming; the temporary
/// file is removed then, and `path` is left as it was.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let partial = partial_path(path);
    let written = (|| {
        {
            // Closed at the end of this block, before the rename.
            let mut file = std::fs::File::create(&partial)?;
            file.write_all(bytes)?;
            file.sync_all()?;
        }
        std::fs::rename(&partial, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_partial_name() {
        let dir = std::env::temp_dir().join(format!("sql-output-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.csv");
        std::fs::write(&path, b"old").unwrap();
        write(&path, b"new bytes").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new bytes");
        assert!(!partial_path(&path).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_that_fails_leaves_neither_name() {
        let dir = std::env::temp_dir().join(format!("sql-output-missing-{}", std::process::id()));
        let path = dir.join("missing-folder").join("a.png");
        assert!(write(&path, b"x").is_err());
        assert!(!path.exists() && !partial_path(&path).exists());
    }
}
