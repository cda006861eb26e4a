//! Writing a file so that a reader (or a crash) only ever sees the old
//! text or the new one: a temporary file in the same folder, flushed to
//! disk, then renamed over the old one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces `path`'s contents with `bytes`, atomically. On any error the
/// old file is untouched and the temporary one removed. A symlink is
/// written through: the file it leads to is replaced and the link kept,
/// as its owner set it up.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = &through_links(path);
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file path"))?;
    let pid = std::process::id();
    let temporary = path.with_file_name(format!(".{}.{pid}.tmp", name.to_string_lossy()));
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

/// The file that writing `path` should replace: the end of its chain of
/// links, even one that does not exist yet (a run removes its old results
/// file before it writes the new one), so a link stays a link.
pub fn through_links(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    // As many steps as Linux follows; a loop is left at one of its links.
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&path) else {
            break;
        };
        path = path.parent().unwrap_or(Path::new("")).join(target);
    }
    path
}

#[cfg(test)]
mod tests {
    /// The file is replaced, no temporary file is left, and a link is
    /// written through, even when its file is gone (a run removes its old
    /// results file first): the link stays a link.
    #[test]
    fn replaces_through_a_chain_of_links_and_leaves_no_temporary_file() {
        let dir = crate::config::scratch_dir("atomic");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        let path = dir.join("real/b.json");
        super::write(&path, b"old").unwrap();
        std::os::unix::fs::symlink("real/b.json", dir.join("middle.json")).unwrap();
        std::os::unix::fs::symlink("middle.json", dir.join("a.json")).unwrap();
        super::write(&dir.join("a.json"), b"new").unwrap();
        assert!(dir.join("a.json").is_symlink() && dir.join("middle.json").is_symlink());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.join("real")).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_file(&path).unwrap();
        super::write(&dir.join("a.json"), b"again").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"again");
        assert!(super::write(&dir.join("missing/a.json"), b"x").is_err());
    }
}
