//! When a build step's last success still stands, judged by content: the
//! stamp holds a hash of every input file's path and bytes (the list of
//! files included), so an edit with an old mtime (`touch -d`, `cp -p`,
//! `tar`, `rsync -a`) or a deleted or added file is a change, which a
//! comparison of modification times cannot see.

use std::path::{Path, PathBuf};

use super::manifest::BuildStep;

impl BuildStep {
    /// Whether the step has a stamp, every input and output exists and the
    /// stamp holds the hash they have now.
    pub fn is_fresh(&self, root: &Path) -> bool {
        let Some(stamp) = &self.stamp else {
            return false;
        };
        let mut paths = self.inputs.iter().chain(&self.outputs);
        paths.all(|path| root.join(path).exists())
            && crate::table::read_regular(&root.join(stamp), "a build stamp")
                .is_ok_and(|recorded| recorded == self.fingerprint(root))
    }

    /// Records the inputs' hash as they are now, atomically, so that a
    /// step with a stamp is skipped until one of them changes.
    pub fn mark_done(&self, root: &Path) -> std::io::Result<()> {
        let Some(stamp) = &self.stamp else {
            return Ok(());
        };
        let stamp = root.join(stamp);
        if let Some(parent) = stamp.parent() {
            std::fs::create_dir_all(parent)?;
        }
        crate::atomic::write(&stamp, self.fingerprint(root).as_bytes())
    }

    /// The hash of the step's command line (another one reruns it), of
    /// every input (each file's path relative to the root, its length and
    /// its bytes, in path order; a path that does not exist hashes as
    /// missing) and of every output (see [`BuildStep::outputs`]).
    fn fingerprint(&self, root: &Path) -> String {
        let mut hash = Fnv::new();
        hash.write(self.run.join(" ").as_bytes());
        for input in &self.inputs {
            let files = files(&root.join(input));
            hash.write(b"\0input\0");
            hash.write(input.as_bytes());
            if files.is_empty() {
                hash.write(b"\0missing");
            }
            for file in files {
                hash.write(b"\0file\0");
                hash.write(crate::text::relative(&file, root).as_bytes());
                // A FIFO or a device is never opened: reading it could block
                // or never end.
                let regular = std::fs::metadata(&file).is_ok_and(|m| m.is_file());
                match regular.then(|| std::fs::read(&file).ok()).flatten() {
                    Some(bytes) => {
                        hash.write(&(bytes.len() as u64).to_le_bytes());
                        hash.write(&bytes);
                    }
                    None => hash.write(b"\0unreadable"),
                }
            }
        }
        for output in &self.outputs {
            hash.write(b"\0output\0");
            hash.write(output.as_bytes());
            let output = root.join(output);
            let Ok(metadata) = std::fs::metadata(&output) else {
                continue;
            };
            if metadata.is_dir() {
                for file in files(&output) {
                    hash.write(b"\0holds\0");
                    hash.write(crate::text::relative(&file, root).as_bytes());
                }
            } else {
                hash.write(&metadata.len().to_le_bytes());
                let modified = metadata
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                hash.write(&modified.to_le_bytes());
            }
        }
        format!("fnv1a-64 {:016x}\n", hash.0)
    }
}

/// Every file at or below `path` (itself when it is not a folder), sorted.
/// A symlink below it is a file, never a folder walked: a link to `..`
/// would walk the tree again and again.
fn files(path: &Path) -> Vec<PathBuf> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return vec![path.to_path_buf()];
    }
    let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
    let mut found: Vec<PathBuf> = entries
        .flat_map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => files(&entry.path()),
            _ => vec![entry.path()],
        })
        .collect();
    found.sort();
    found
}

/// FNV-1a, 64 bits: stable across Rust versions (unlike std's
/// `DefaultHasher`), and enough to tell an edited source from the built
/// one; not a defence against a crafted collision.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the old check (stamp newer than every input) missed: an edit
    /// given an old mtime, and a deleted source.
    #[test]
    fn an_edit_with_an_old_mtime_and_a_deleted_file_are_changes() {
        let root = crate::config::scratch_dir(&crate::repo_root(), "freshness-content");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        std::fs::write(root.join("src/b.ts"), "b").unwrap();
        let step = BuildStep {
            run: vec!["tsc".into()],
            stamp: Some("out/stamp".into()),
            inputs: vec!["src".into(), "out/built.js".into()],
            outputs: vec!["bin".into()],
        };
        std::fs::write(root.join("bin"), "binary").unwrap();
        assert!(!step.is_fresh(&root), "no stamp yet");
        std::fs::write(root.join("out.js"), "").unwrap();
        step.mark_done(&root).unwrap();
        assert!(!step.is_fresh(&root), "an output is missing");
        std::fs::create_dir_all(root.join("out")).unwrap();
        std::fs::write(root.join("out/built.js"), "built").unwrap();
        step.mark_done(&root).unwrap();
        assert!(step.is_fresh(&root));
        let mut other = step.clone();
        other.run.push("--other".into());
        assert!(!other.is_fresh(&root), "another command line");

        let old = std::fs::metadata(root.join("src/a.ts"))
            .unwrap()
            .modified()
            .unwrap();
        // Sets a source's mtime, as `cp -p`, `rsync -a` or `touch -d` do.
        let set_mtime = |time: std::time::SystemTime| {
            std::fs::File::options()
                .write(true)
                .open(root.join("src/a.ts"))
                .unwrap()
                .set_modified(time)
                .unwrap();
        };
        let a_day_earlier = old - std::time::Duration::from_secs(86_400);
        // Each change below makes the step stale, then it is rebuilt.
        let changed = |why: &str| {
            assert!(!step.is_fresh(&root), "{why}");
            step.mark_done(&root).unwrap();
        };
        std::fs::write(root.join("src/a.ts"), "edited").unwrap();
        set_mtime(old);
        changed(
            "an edit given back its old mtime, as `cp -p` or `rsync -a` of an edited copy does",
        );
        set_mtime(a_day_earlier);
        std::fs::write(root.join("src/a.ts"), "edited again").unwrap();
        set_mtime(a_day_earlier);
        changed("an edit given an older mtime (`touch -d`)");
        std::fs::remove_file(root.join("src/b.ts")).unwrap();
        changed("a deleted source");
        std::fs::write(root.join("src/c.ts"), "").unwrap();
        changed("an added (empty) source");
        std::fs::rename(root.join("src/c.ts"), root.join("src/d.ts")).unwrap();
        changed("a renamed source");
        std::fs::write(root.join("bin"), "rebuilt").unwrap();
        changed("an output rewritten");
        std::fs::remove_file(root.join("bin")).unwrap();
        changed("an output deleted");
    }

    /// Issue 29, item 6: a product the outputs did not name (a jar beside
    /// the one listed, a file of TypeScript's dist) could be deleted and
    /// the step stayed fresh, so every case failed on every run. A folder
    /// output now holds its files; one rewritten in place (make mutants'
    /// class files) keeps the step fresh.
    #[test]
    fn a_file_deleted_from_an_output_folder_reruns_the_step() {
        let root = crate::config::scratch_dir(&crate::repo_root(), "freshness-outputs");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("out/lib")).unwrap();
        std::fs::write(root.join("src"), "source").unwrap();
        std::fs::write(root.join("out/lib/core.jar"), "jar").unwrap();
        std::fs::write(root.join("out/Relay.class"), "class").unwrap();
        let step = BuildStep {
            run: vec!["mvn".into()],
            stamp: Some("stamp".into()),
            inputs: vec!["src".into()],
            outputs: vec!["out".into()],
        };
        step.mark_done(&root).unwrap();
        assert!(step.is_fresh(&root));
        std::fs::write(root.join("out/Relay.class"), "a mutant").unwrap();
        assert!(step.is_fresh(&root), "a file rewritten in place");
        std::fs::remove_file(root.join("out/lib/core.jar")).unwrap();
        assert!(!step.is_fresh(&root), "a product deleted");
        step.mark_done(&root).unwrap();
        std::fs::write(root.join("out/lib/core.jar"), "jar").unwrap();
        assert!(!step.is_fresh(&root), "a product added");

        // Neither an input nor the stamp is opened unless it is a regular
        // file: a FIFO would block the build.
        step.mark_done(&root).unwrap();
        let fifo = |path: &Path| {
            std::fs::remove_file(path).unwrap();
            let made = std::process::Command::new("mkfifo").arg(path).status();
            assert!(made.unwrap().success());
        };
        fifo(&root.join("stamp"));
        assert!(!step.is_fresh(&root), "a FIFO for a stamp");
        fifo(&root.join("src"));
        step.mark_done(&root).unwrap();
        assert!(step.is_fresh(&root), "a FIFO input, never opened");
    }
}
