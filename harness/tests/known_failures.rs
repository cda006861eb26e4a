//! `make known-failures` and the results file it reads (issue 29): a FIFO
//! as the results file is refused unopened, never waited on.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc;
use std::time::Duration;

use parity::report::results::Results;

#[test]
fn a_fifo_as_the_results_file_is_refused_unopened() {
    let root = parity::config::scratch_dir(&parity::repo_root(), "known/fifo");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let fifo = root.join("results.json");
    let c_path = CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    // On a thread with a deadline: a regression fails here, not hangs.
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(Results::load(&fifo));
    });
    let why = result
        .recv_timeout(Duration::from_secs(5))
        .expect("it hung: no result within 5 s")
        .unwrap_err();
    assert!(
        why.ends_with(
            "results.json: a named pipe (FIFO), not a regular file: a results file must be a regular file"
        ),
        "{why}"
    );
}
