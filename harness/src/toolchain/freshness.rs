//! When a build step's last success still stands, judged by content: the
//! stamp holds a hash of every input file's path and bytes (the list of
//! files included), so an edit with an old mtime (`touch -d`, `cp -p`,
//! `tar`, `rsync -a`) or a deleted or added file is a change, which a
//! comparison of modification times cannot see; and a hash of every file
//! its outputs hold, each by path, length and mtime, so a product deleted,
//! added or rewritten (a mutant's class file a killed make mutants left)
//! is a change too.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use super::manifest::BuildStep;
use crate::text::relative;

impl BuildStep {
    /// Whether the step has a stamp, every input and output exists and the
    /// stamp holds the hash they have now; for one of make mutants' judges
    /// (`mutant`), the inputs' hash alone: Java's mutants are class files
    /// put over its build, which must run as they are.
    pub fn is_fresh(&self, root: &Path, mutant: bool) -> bool {
        let Some(stamp) = &self.stamp else {
            return false;
        };
        let mut paths = self.inputs.iter().chain(&self.outputs);
        paths.all(|path| root.join(path).exists())
            && crate::files::read_regular(&root.join(stamp), "a build stamp").is_ok_and(
                |recorded| {
                    let now = self.fingerprint(root);
                    recorded == now || mutant && recorded.lines().next() == now.lines().next()
                },
            )
    }

    /// Readies a stale step to rebuild for real, whatever its tool decides
    /// by. Its outputs are removed, so what the stamp records after the run
    /// is what this run made (tsc and Maven never delete a product whose
    /// source is gone, and Maven compiles only what it finds newer). Every
    /// input whose mtime was set back behind its change time (`touch -d`,
    /// `cp -p`, `rsync -a`) is touched: cargo judges a source by its mtime
    /// against its products, the intermediate ones no output names
    /// included, and would keep the old build; the next cargo run then
    /// rebuilds the harness's own copy of the reference too.
    pub fn unstale(&self, root: &Path) -> Result<(), String> {
        let failed = |what: &str, path: &Path, e: std::io::Error| {
            format!("cannot {what} {}: {e}", relative(path, root))
        };
        for output in self.outputs.iter().map(|output| root.join(output)) {
            match std::fs::remove_dir_all(&output).or_else(|_| std::fs::remove_file(&output)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(failed("remove", &output, e))
                }
                _ => {}
            }
        }
        let inputs = self.inputs.iter().map(|input| root.join(input));
        for file in inputs.flat_map(|input| files(&input)) {
            if set_back(&file) {
                let now = std::time::SystemTime::now();
                let touched = std::fs::File::open(&file).and_then(|f| f.set_modified(now));
                touched.map_err(|e| failed("touch", &file, e))?;
            }
        }
        Ok(())
    }

    /// Records the inputs' hash as they are now, atomically, so that a
    /// step with a stamp is skipped until one of them changes; refused
    /// when the run left an output missing, which no stamp may call built.
    pub fn mark_done(&self, root: &Path) -> Result<(), String> {
        let Some(stamp) = &self.stamp else {
            return Ok(());
        };
        if let Some(missing) = self.outputs.iter().find(|o| !root.join(o).exists()) {
            return Err(format!("it exited 0 but did not make {missing}"));
        }
        let stamp = root.join(stamp);
        let parent = stamp.parent().unwrap_or(root);
        std::fs::create_dir_all(parent)
            .and_then(|()| crate::atomic::write(&stamp, self.fingerprint(root).as_bytes()))
            .map_err(|e| format!("cannot record that it succeeded: {e}"))
    }

    /// Two hashes, a line each: of the step's command line (another one
    /// reruns it) and every input (each file's path from the root and
    /// bytes, in path order; a folder's count of files first: a moved
    /// checkout stays fresh), and of every file its outputs hold (see
    /// [`BuildStep::outputs`]). std's hasher, with its fixed keys, is the
    /// same in every run of one build of the harness; another Rust release
    /// may hash otherwise, which only reruns the step once.
    fn fingerprint(&self, root: &Path) -> String {
        let (mut hash, mut products) = (DefaultHasher::new(), DefaultHasher::new());
        self.run.hash(&mut hash);
        for input in &self.inputs {
            let files = files(&root.join(input));
            (input, files.len()).hash(&mut hash);
            for file in files {
                // A FIFO or a device is never opened: reading it could block
                // or never end.
                let regular = std::fs::metadata(&file).is_ok_and(|m| m.is_file());
                let bytes = regular.then(|| std::fs::read(&file).ok()).flatten();
                (relative(&file, root), bytes).hash(&mut hash);
            }
        }
        for file in self
            .outputs
            .iter()
            .flat_map(|output| files(&root.join(output)))
        {
            let stat = std::fs::metadata(&file).map(|m| (m.len(), m.modified().ok()));
            (relative(&file, root), stat.ok()).hash(&mut products);
        }
        format!("{:016x}\n{:016x}\n", hash.finish(), products.finish())
    }
}

/// Whether `file` is a regular file whose mtime is seconds older than its
/// change time, which a write sets to the same instant and no tool can set
/// back: its mtime was set back after its last change.
fn set_back(file: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.ctime() > m.mtime() + 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the old check (stamp newer than every input) missed: a deleted
    /// source (and an edit given an old mtime, which the next test makes).
    /// Issue 29, item 6: a product the outputs did not name (a jar beside
    /// the one listed, a file of TypeScript's dist) could be deleted and
    /// the step stayed fresh, so every case failed on every run. Issue 38,
    /// item 7: a class file rewritten in place (the mutant a killed make
    /// mutants left) kept it fresh, and `java/unit` failed on a clean tree.
    /// A folder output now holds its files, each by length and mtime; only
    /// a mutant's judge takes a step whose inputs are as built as fresh.
    #[test]
    fn a_changed_source_or_product_is_a_change() {
        let root = crate::config::scratch_dir("freshness-content");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("out/lib/jar")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        std::fs::write(root.join("src/b.ts"), "b").unwrap();
        std::fs::write(root.join("out/lib/jar/core.jar"), "jar").unwrap();
        std::fs::write(root.join("out/lib/Relay.class"), "class").unwrap();
        let step = BuildStep {
            run: vec!["tsc".into()],
            stamp: Some("out/stamp".into()),
            inputs: vec!["src".into(), "out/built.js".into()],
            outputs: vec!["bin".into(), "out/lib".into()],
        };
        std::fs::write(root.join("bin"), "binary").unwrap();
        assert!(!step.is_fresh(&root, false), "no stamp yet");
        std::fs::write(root.join("out.js"), "").unwrap();
        step.mark_done(&root).unwrap();
        assert!(!step.is_fresh(&root, false), "an output is missing");
        std::fs::write(root.join("out/built.js"), "built").unwrap();
        step.mark_done(&root).unwrap();
        assert!(step.is_fresh(&root, false));
        let mut other = step.clone();
        other.run.push("--other".into());
        assert!(!other.is_fresh(&root, false), "another command line");

        // Each change below makes the step stale, then it is rebuilt (an
        // edit given an old mtime: `a_stale_step_rebuilds_even_when...`).
        let changed = |why: &str| {
            assert!(!step.is_fresh(&root, false), "{why}");
            step.mark_done(&root).unwrap();
        };
        std::fs::remove_file(root.join("src/b.ts")).unwrap();
        changed("a deleted source");
        std::fs::write(root.join("src/c.ts"), "").unwrap();
        changed("an added (empty) source");
        std::fs::rename(root.join("src/c.ts"), root.join("src/d.ts")).unwrap();
        changed("a renamed source");
        std::fs::write(root.join("bin"), "rebuilt").unwrap();
        changed("an output rewritten");
        std::fs::write(root.join("out/lib/Relay.class"), "a mutant").unwrap();
        assert!(step.is_fresh(&root, true), "for a mutant's judge");
        changed("a file of an output folder rewritten in place");
        std::fs::write(root.join("src/a.ts"), "edited").unwrap();
        let judged = step.is_fresh(&root, true);
        assert!(!judged, "an input edited, even for a judge");
        changed("an edited source");
        std::fs::remove_file(root.join("out/lib/jar/core.jar")).unwrap();
        changed("a product deleted");
        std::fs::write(root.join("out/lib/jar/core.jar"), "jar").unwrap();
        changed("a product added");
        std::fs::remove_file(root.join("bin")).unwrap();
        assert!(!step.is_fresh(&root, false), "an output deleted");
        let missing = step.mark_done(&root).unwrap_err();
        assert_eq!(missing, "it exited 0 but did not make bin", "never built");

        // The same tree elsewhere (a moved checkout, times kept) is fresh.
        std::fs::write(root.join("bin"), "rebuilt").unwrap();
        step.mark_done(&root).unwrap();
        let moved = root.with_file_name("freshness-content-moved");
        let _ = std::fs::remove_dir_all(&moved);
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .args([&root, &moved])
            .status();
        assert!(copied.unwrap().success());
        assert!(step.is_fresh(&moved, false), "a moved checkout");

        // Neither an input nor the stamp is opened unless it is a regular
        // file: a FIFO would block the build.
        let fifo = |path: &Path| {
            std::fs::remove_file(path).unwrap();
            let made = std::process::Command::new("mkfifo").arg(path).status();
            assert!(made.unwrap().success());
        };
        fifo(&root.join("out/stamp"));
        assert!(!step.is_fresh(&root, false), "a FIFO for a stamp");
        fifo(&root.join("out/built.js"));
        step.mark_done(&root).unwrap();
        assert!(step.is_fresh(&root, false), "a FIFO input, never opened");
    }

    /// An edit given an older mtime (`touch -d`) or a file restored by `cp
    /// -p` is a change by content. Issue 38, item 2: and a stale step whose
    /// tool judges by mtime (`cp -u` here, as cargo and Maven's compiler
    /// do) rebuilt nothing, and the stamp then called the old product
    /// built. Its outputs are removed and its inputs set back in time
    /// touched first; and `make set-back` touches such a Rust source
    /// before cargo builds the harness.
    #[test]
    fn a_stale_step_rebuilds_even_when_its_tool_judges_by_mtime() {
        let root = crate::config::scratch_dir("freshness-mtime");
        let step = BuildStep {
            run: ["cp", "-u", "src", "out"].map(String::from).to_vec(),
            stamp: Some("stamp".into()),
            inputs: vec!["src".into()],
            outputs: vec!["out".into()],
        };
        let manifest = crate::toolchain::Manifest {
            probe: vec!["true".into()],
            build: vec![step],
            ..Default::default()
        };
        let (src, day) = (root.join("src"), std::time::Duration::from_secs(86_400));
        let back = |days: u32| {
            let earlier = std::time::SystemTime::now() - days * day;
            std::fs::File::open(&src)
                .and_then(|f| f.set_modified(earlier))
                .unwrap();
        };
        let built = |text: &str, days: u32| {
            std::fs::write(&src, text).unwrap();
            back(days);
            manifest.prepare(&root, day).unwrap();
            assert!(!set_back(&src), "touched");
            std::fs::read_to_string(root.join("out")).unwrap()
        };
        assert_eq!(built("old", 0), "old");
        assert_eq!(built("new", 3), "new", "an edit given an older mtime");
        assert_eq!(built("old", 5), "old", "a file restored by cp -p");
        back(1);
        let make = std::process::Command::new("make")
            .current_dir(crate::repo_root())
            .args(["-s", "set-back", &format!("RUST_SOURCES={}", src.display())])
            .status();
        assert!(
            make.unwrap().success() && !set_back(&src),
            "make set-back touches it"
        );
    }
}
