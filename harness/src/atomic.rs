//! Writing a file so that a reader (or a crash) only ever sees the old
//! text or the new one: a temporary file in the same folder, flushed to
//! disk, then renamed over the old one.

use std::io::Write;
use std::path::Path;

/// Replaces `path`'s contents with `bytes`, atomically. On any error the
/// old file is untouched and the temporary one removed. A symlink is
/// written through: the file it leads to is replaced and the link kept,
/// as its owner set it up.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let real = std::fs::canonicalize(path);
    let path = real.as_deref().unwrap_or(path);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file path"))?;
    let temporary = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(old) = std::fs::metadata(path) {
            file.set_permissions(old.permissions())?;
        }
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_and_leaves_no_temporary_file() {
        let dir = crate::config::scratch_dir(&crate::repo_root(), "atomic");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.json");
        super::write(&path, b"old").unwrap();
        super::write(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(super::write(&dir.join("missing/a.json"), b"x").is_err());
    }
}
