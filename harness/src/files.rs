//! The files a user, a manifest or the environment names (a case file, a
//! results file, a manifest, a schema, the step summary), opened one way:
//! a file that is not regular is refused without blocking on it (a FIFO),
//! said as what it is, and no more than [`MAX_FILE_BYTES`] is ever read.

use std::path::Path;

/// The largest file read (a case file, a results file...), so a runaway
/// file cannot exhaust memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Why a file that is not a regular one is not read; `what` names what the
/// file was meant to be (`a case file`, `a results file`).
pub(crate) fn not_regular(meta: &std::fs::Metadata, real: &Path, what: &str) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let shown = if kind.is_dir() {
        "a folder".to_owned()
    } else if kind.is_fifo() {
        "a named pipe (FIFO)".to_owned()
    } else if kind.is_char_device() {
        format!("a character device ({})", real.display())
    } else if kind.is_block_device() {
        format!("a block device ({})", real.display())
    } else if kind.is_socket() {
        "a socket".to_owned()
    } else {
        "something else".to_owned()
    };
    format!("{shown}, not a regular file: {what} must be a regular file")
}

/// `path` opened with `options`, which must be a regular file: one that
/// is not is refused without blocking on it (a FIFO) and said as what it
/// is; `verb` and `what` word the errors (`read`, `a results file`).
fn open_regular(
    path: &Path,
    options: &mut std::fs::OpenOptions,
    verb: &str,
    what: &str,
) -> Result<(std::fs::File, std::fs::Metadata), String> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking, so that opening a FIFO returns at once; the check of
    // its type then comes from the opened file itself, not from an earlier
    // look that the path may no longer match.
    let opened = options.custom_flags(libc::O_NONBLOCK).open(path);
    let meta = match &opened {
        Ok(file) => file.metadata(),
        Err(_) => std::fs::metadata(path),
    };
    if let Some(meta) = meta.as_ref().ok().filter(|meta| !meta.is_file()) {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        return Err(not_regular(meta, &real, what));
    }
    let cannot = |e: std::io::Error| format!("cannot {verb}: {e}");
    Ok((opened.map_err(cannot)?, meta.map_err(cannot)?))
}

/// The text of a file a user, a manifest or the environment names (a case
/// file, a results file, a manifest...): the one way the harness opens
/// such a path. A file that is not regular is refused ([`open_regular`]),
/// one over [`MAX_FILE_BYTES`] is refused unread, and no more than that is
/// ever read (a file may grow, or lie about its size). `what` names the
/// file in the messages (`a results file`).
pub fn read_regular(path: &Path, what: &str) -> Result<String, String> {
    use std::io::Read;
    let (file, meta) = open_regular(path, std::fs::OpenOptions::new().read(true), "read", what)?;
    let too_large = |size: u64| {
        format!(
            "is {size} bytes, over the limit of {MAX_FILE_BYTES} bytes ({} MiB) for {what}: split it",
            MAX_FILE_BYTES / (1024 * 1024)
        )
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text: the bytes at offset {} are not UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Appends `text` to the file at `path` (created if missing), which must be
/// a regular file ([`open_regular`]): a FIFO with no reader fails at once
/// instead of holding the end of a run. For `GITHUB_STEP_SUMMARY`,
/// appended to and never replaced: GitHub collects every step's additions.
pub fn append_regular(path: &Path, text: &str, what: &str) -> Result<(), String> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    let (mut file, _) = open_regular(path, options.append(true).create(true), "write", what)?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write: {e}"))
}
