//! The parity report in a real browser: headless Chromium loads a page
//! written by `parity::report::write`, and the test checks what a person
//! would see: one matrix cell per (case, language) with the right status,
//! the summary counts, no console message, a code panel that keeps its
//! lines whole in one row per part at 1280 px, and a screenshot kept under
//! `target/parity/report-browser/` to look at.
//!
//! A string check of the HTML cannot tell whether a browser builds the
//! same table from it (an unclosed tag moves cells around); the DOM that
//! Chromium dumps after load can.
//!
//! Two pages: a fixture written by hand (every kind of cell, counted by
//! hand), and the page of a real run of the suite over two fake languages,
//! one of them failing a case, whose matrix must hold one cell per trial
//! of the run and whose counts must equal libtest's.
//!
//! Where Chromium is missing the trials are ignored with the reason, like a
//! missing toolchain; with `PARITY_STRICT=1` (CI) that is a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Conclusion, Trial};
use parity::config::Settings;
use parity::exec::{self, Stdin};
use parity::report::fixture::{self, message, row};
use parity::report::results::{Outcome, State, TrialResult};
use parity::report::{self, code, Failure, Report, Row, Scenario};
use parity::suite::Suite;

mod common;

use common::fake;

/// Chromium starts in 1-5 s here; a minute means it hangs.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The flags every start uses: no sandbox (containers), and nothing that
/// reaches for the network or a GPU.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
];

/// The go cell's failure text: a diff with characters HTML must escape.
const GO_FAILURE: &str = "sent differs in pass 1\n  expected: [[2], [1, 3]]\n  actual:   [[2, 3], [1]]\n  (order-1 <OrderPaid> overtook #1 & was sent first)";

/// Three languages, six rows: every status once, one failing cell, one
/// cell not run, a restart, a row written between passes, a picture wider
/// than the window, and the changes since a base.
fn fixture() -> Report {
    let toolchains = [
        ("rust", "rustc 1.80.0"),
        ("go", "go1.22.2"),
        ("python", "Python 3.12.3"),
    ];
    let mut report = fixture::report(&toolchains, fixture_rows());
    report.results.run.commit = "17aa8fc".into();
    report.results.run.filter = "lost_ack --skip /generated".into();
    report.code = code_fixture();
    // A base in which rust's lost_ack crashed: the changes come first.
    let mut base = report.results.clone();
    let crashed = (
        "rust",
        State::RunnerFault,
        "`lost_ack`: runner fault: crashed",
    );
    base.trials[0] = row("lost_ack", "", None, &[crashed]).1.remove(0);
    report.base = Some(report::diff::compare(&base, &report.results));
    report
}

/// Three orders' first events, `failure` on attempt 1, two passes: the
/// fixture's scenarios are variations of it.
fn three(failure: Failure) -> Scenario {
    Scenario {
        batch_size: 10,
        messages: vec![
            message(1, "order-1", "OrderPlaced", 0),
            message(2, "order-2", "OrderPlaced", 0),
            message(3, "order-1", "OrderPaid", 0),
        ],
        failures: BTreeMap::from([(1, failure)]),
        passes: 2,
        ..Default::default()
    }
}

/// The fixture's six rows, with the cells [`EXPECTED_SUMMARY`] counts.
fn fixture_rows() -> Vec<(Row, Vec<TrialResult>)> {
    let mut restart = three(Failure::LostAck);
    restart.passes = 3;
    restart.restart_each_pass = true;
    let mut written = three(Failure::Down);
    written.messages.push(message(4, "order-2", "OrderPaid", 1));
    let pass = |language| (language, State::Pass, "");
    let ignored = ("python", State::NotRun, "python3 not found on PATH");
    let known = (
        "go",
        State::KnownFailure,
        "issue 12: Go drops rows written between passes",
    );
    vec![
        row(
            "lost_ack",
            "The ack of attempt 1 is lost: message 1 is delivered but stays unsent, order-1 is blocked for the pass, and the consumer drops the redelivery.",
            Some(three(Failure::LostAck)),
            &[pass("rust"), ("go", State::WrongAnswer, GO_FAILURE), ignored],
        ),
        row(
            "restart_after_lost_ack",
            "A new relay before every pass carries on where the last one stopped.",
            Some(restart),
            &[pass("rust"), pass("go"), ignored],
        ),
        row(
            "written_between_passes",
            "Message 4 is written after pass 1 and sent in pass 2, after the retried message 1.",
            Some(written),
            &[pass("rust"), known, ignored],
        ),
        row(
            "generated",
            // A long unbroken word must wrap, not widen the page; a
            // bidi override must not turn the text after it around.
            &format!(
                "Generated scenarios, compared with the reference. \u{202e}desrever {}",
                "unbroken".repeat(250)
            ),
            None,
            &[pass("rust"), pass("go")],
        ),
        row(
            "demo",
            "The demo's transcript, byte for byte.",
            None,
            &[pass("rust"), pass("go"), ignored],
        ),
        row(
            "one_row_a_pass",
            "A batch of one: twelve passes, a picture wider than the window, which scrolls.",
            Some(Scenario {
                batch_size: 1,
                messages: (1..=12).map(|id| message(id, "order-1", "E", 0)).collect(),
                failures: BTreeMap::new(),
                passes: 12,
                ..Default::default()
            }),
            &[pass("rust")],
        ),
    ]
}

/// The real code panel, read from the repository, and one more part whose
/// go file is missing (read from a folder without sources).
fn code_fixture() -> Vec<code::Part> {
    let root = parity::repo_root();
    let manifests = parity::toolchain::manifest::read_all(&root).unwrap();
    let mut parts = code::parts(&manifests, &root);
    let nowhere = root.join("target/parity/report-browser/no-sources");
    let mut missing = code::parts(&manifests, &nowhere).swap_remove(3);
    missing.name = "relay, its go file missing".into();
    missing.languages.retain(|(language, _)| language == "go");
    parts.push(missing);
    parts
}

/// (passed, failed, ignored, known failures, not run) per language, counted
/// by hand from the fixture, so the page is not checked against itself.
const EXPECTED_SUMMARY: &[(&str, [usize; 5])] = &[
    ("rust", [6, 0, 0, 0, 0]),
    ("go", [3, 1, 0, 1, 1]),
    ("python", [0, 0, 4, 0, 2]),
];

fn strict() -> bool {
    std::env::var("PARITY_STRICT").is_ok_and(|v| v == "1")
}

/// `PARITY_CHROMIUM` when set, else the first Chromium or Chrome on PATH
/// (Debian names it `chromium`, Ubuntu `chromium-browser`, and CI images
/// often carry Google Chrome).
fn find_chromium() -> Option<PathBuf> {
    if let Some(program) = std::env::var_os("PARITY_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// What one Chromium start printed.
struct Output {
    stdout: String,
    stderr: String,
}

/// Starts Chromium through the harness's one process layer (its own
/// process group, a deadline, bounded output, the group killed whatever
/// happens: the launcher script and Chromium's helpers must not outlive
/// it), with a fresh profile.
fn chromium(program: &Path, dir: &Path, label: &str, args: &[String]) -> Result<Output, String> {
    let profile = dir.join(format!("profile-{label}"));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).map_err(|e| format!("{}: {e}", profile.display()))?;
    let mut argv = vec![program.to_string_lossy().into_owned()];
    argv.extend(FLAGS.iter().map(|f| (*f).to_owned()));
    argv.push(format!("--user-data-dir={}", profile.display()));
    argv.extend(args.iter().cloned());
    let command = exec::Command {
        label: format!("Chromium ({label})"),
        argv,
        dir: dir.to_path_buf(),
        deadline: TIMEOUT,
        keep: 16 * 1024 * 1024,
    };
    let output = exec::run(&command, Stdin::Null).map_err(|e| format!("{label}: {e}"))?;
    let _ = std::fs::remove_dir_all(&profile);
    let printed = Output {
        stdout: output.stdout.text(),
        stderr: output.stderr.text(),
    };
    if !output.success() {
        return Err(format!(
            "{label}: Chromium ended ({}); stderr ends:\n{}",
            output.describe(),
            parity::text::tail(&printed.stderr, 20)
        ));
    }
    Ok(printed)
}

/// Console messages in Chromium's log. Headless Chromium logs every
/// console call and uncaught exception as `INFO:CONSOLE`, whatever its
/// level; the page has no script, so any such line is an error.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// Where the pages, screenshots and probes are kept, to look at.
fn page_dir() -> PathBuf {
    let dir = parity::config::target_dir(&parity::repo_root()).join("parity/report-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Defines `done(value)` for a probe's script: it writes `value` as JSON
/// into the DOM, with `<`, `>`, `&` and U+00A0 as JSON escapes, so the
/// serializer prints the text as it is.
const DONE: &str = "<script>function done(value) { var p = document.createElement('pre');\
    p.id = 'probe-result'; p.textContent = JSON.stringify(value).replace(/[<>&\\u00a0]/g,\
    function (c) { return '\\\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); });\
    document.body.appendChild(p); }</script>";

/// What `script`, added to a probe copy of `html` before `</body>`, hands
/// to `done(value)` (see [`DONE`]), which `--dump-dom` prints after load
/// (with `args`, the window's size among them).
fn probe<T: serde::de::DeserializeOwned>(
    program: &Path,
    name: &str,
    html: &str,
    script: &str,
    args: &[&str],
) -> T {
    let dir = page_dir();
    let probe = dir.join(format!("{name}.html"));
    let page = html.replacen("</body>", &format!("{DONE}{script}</body>"), 1);
    std::fs::write(&probe, page).unwrap();
    let mut argv = vec!["--dump-dom".to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    argv.push(file_url(&probe));
    let out = chromium(program, &dir, name, &argv).unwrap();
    let result = out.stdout.split("<pre id=\"probe-result\">").nth(1);
    let json = result
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| {
            let stderr = parity::text::tail(&out.stderr, 20);
            panic!("{name}: the probe wrote no result; stderr ends:\n{stderr}")
        });
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{name}: the probe's result: {e}: {json}"))
}

/// `text` as the serializer writes it in an element.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The value of `name="..."` inside one serialized start tag.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// Every start tag `<name ...>` in `html`, attributes included.
fn start_tags<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    html.match_indices(&open)
        .filter_map(|(at, _)| html[at..].find('>').map(|end| &html[at..at + end + 1]))
        .collect()
}

/// Self-contained: nothing is fetched, so the page works from file:// and
/// offline.
fn assert_self_contained(html: &str) {
    for forbidden in ["<script", " src=", "url(", "@import", "http://", "https://"] {
        assert!(!html.contains(forbidden), "the page contains {forbidden:?}");
    }
    for tag in start_tags(html, "a")
        .iter()
        .chain(&start_tags(html, "link"))
    {
        let href = attribute(tag, "href").unwrap_or("");
        assert!(href.starts_with('#') || href.starts_with("data:"), "{tag}");
    }
}

/// The console check must be able to fail: a page that logs an error has
/// to show up in the log as this Chromium writes it.
fn assert_console_check_can_fail(program: &Path, dir: &Path, name: &str) {
    let canary = dir.join(format!("canary-{name}.html"));
    std::fs::write(
        &canary,
        "<!DOCTYPE html><title>canary</title><script>console.error('canary error')</script>",
    )
    .unwrap();
    let seen = chromium(
        program,
        dir,
        &format!("canary-{name}"),
        &["--dump-dom".into(), file_url(&canary)],
    )
    .unwrap();
    assert!(
        console_lines(&seen.stderr).iter().any(|l| l.contains("canary error")),
        "Chromium's log shows no console line for a console.error, so the console check would be blind; stderr ends:\n{}",
        parity::text::tail(&seen.stderr, 20)
    );
}

/// Writes `report` as `<name>.html`, checks it is self-contained, loads it
/// in Chromium (checking first that the console check can see an error)
/// and returns its DOM after load; a screenshot `<name>.png` is kept.
fn load(program: &Path, name: &str, report: &Report) -> String {
    let dir = page_dir();
    let page_path = dir.join(format!("{name}.html"));
    report::write(&page_path, report).unwrap();
    let html = std::fs::read_to_string(&page_path).unwrap();
    assert_self_contained(&html);
    assert_console_check_can_fail(program, &dir, name);

    let screenshot = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&screenshot);
    let out = chromium(
        program,
        &dir,
        name,
        &[
            "--dump-dom".into(),
            format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,1800".into(),
            file_url(&page_path),
        ],
    )
    .unwrap();
    let console = console_lines(&out.stderr);
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    assert!(
        !out.stdout.contains('\u{202e}'),
        "a bidi override in the DOM"
    );
    assert_no_overflow(program, name, &html);
    assert!(
        screenshot.is_file(),
        "no screenshot at {}",
        screenshot.display()
    );
    out.stdout
}

/// Whether the page is wider than the window, measured by Chromium in a
/// probe copy of the page.
fn assert_no_overflow(program: &Path, name: &str, html: &str) {
    let script = "<script>done([document.documentElement.scrollWidth, window.innerWidth])</script>";
    let args = ["--window-size=1000,800"];
    let [scroll, window]: [u64; 2] = probe(program, &format!("width-{name}"), html, script, &args);
    assert!(
        scroll <= window,
        "{name}: the page is {scroll} px wide in a {window} px window"
    );
}

/// The relay.py loop header, and a line inside that loop.
const HEADER: &str = "for message in self._table.unsent(";
const INSIDE: &str = "self._table.mark_sent(message.id)";

/// The code panel as a reader sees it at 1280 px, measured by Chromium in
/// a probe copy of the page (the page itself has no script): every part's
/// languages in one row, and Python's indentation kept. A wrapped line
/// starts again at column 0, which in Python reads as a line outside its
/// block, so `mark_sent`, inside the relay's `for` loop, must render on
/// one line and to the right of the loop's first line.
fn assert_code_panel_readable(program: &Path, name: &str, html: &str, parts: &[code::Part]) {
    let layout = measure_code_panel(program, name, html);

    // Both properties are checked before either fails, so one run shows
    // everything that is wrong.
    let mut problems = Vec::new();
    for (part, measured) in parts.iter().zip(layout["parts"].as_array().unwrap()) {
        let figures = measured["figures"].as_array().unwrap();
        let shown: Vec<String> = figures
            .iter()
            .map(|f| {
                format!(
                    "{} at ({}, {})",
                    f["code"].as_str().unwrap_or("?"),
                    f["left"],
                    f["top"]
                )
            })
            .collect();
        let one_row = figures.windows(2).all(|pair| {
            pair[0]["top"] == pair[1]["top"]
                && pair[0]["left"].as_f64().unwrap() < pair[1]["left"].as_f64().unwrap()
        });
        if figures.len() != part.languages.len() || !one_row {
            problems.push(format!(
                "{}: not {} columns in one row, left to right, at 1280 px: {}",
                part.name,
                part.languages.len(),
                shown.join(", ")
            ));
        }
    }
    let lefts = |key: &str| -> Vec<f64> {
        layout[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_f64().unwrap())
            .collect()
    };
    let (header, inside) = (lefts("header"), lefts("inside"));
    assert!(
        !header.is_empty() && !inside.is_empty(),
        "relay.py in the panel holds {HEADER:?} and {INSIDE:?}"
    );
    if inside.len() != 1 || inside[0] <= header[0] {
        problems.push(format!(
            "relay.py: {INSIDE:?} renders as {} line(s) starting at x = {inside:?}, its block's first \
             line {HEADER:?} at x = {}: a line inside the loop must stay whole and to its right",
            inside.len(),
            header[0]
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where Chromium lays out the panel at 1280 px, written by a script into
/// a probe copy of the page: each part's figures (language, top, left) and
/// the line boxes of [`HEADER`] and [`INSIDE`] in relay.py.
fn measure_code_panel(program: &Path, name: &str, html: &str) -> serde_json::Value {
    let script = format!(
        "<script>(function () {{\
           var parts = [].map.call(document.querySelectorAll('section.part'), function (part) {{\
             return {{ part: part.querySelector('h3').textContent,\
                       figures: [].map.call(part.querySelectorAll('figure.code'), function (f) {{\
                         var r = f.getBoundingClientRect();\
                         return {{ code: f.dataset.code, top: r.top, left: r.left }}; }}) }}; }});\
           var rects = function (node, text) {{\
             var at = node.data.indexOf(text), range = document.createRange();\
             if (at < 0) return [];\
             range.setStart(node, at); range.setEnd(node, at + text.length);\
             return [].map.call(range.getClientRects(), function (r) {{ return [r.left, r.top]; }}); }};\
           var code = document.querySelector('figure[data-code=\"relay/python\"] pre code');\
           var node = code && code.firstChild;\
           done({{ parts: parts, header: node ? rects(node, '{HEADER}') : [],\
                   inside: node ? rects(node, '{INSIDE}') : [] }}); }})()</script>"
    );
    let args = ["--window-size=1280,2000"];
    probe(program, &format!("layout-{name}"), html, &script, &args)
}

/// The matrix of a loaded page, checked against `report`: one cell per
/// (row, language) with the report's status, each linking to its details.
fn check_matrix(dom: &str, report: &Report) -> usize {
    let matrix_start = dom
        .find("<table class=\"matrix\">")
        .expect("the matrix in the DOM");
    let matrix = &dom[matrix_start..];
    let matrix = &matrix[..matrix.find("</table>").expect("the matrix ends")];
    let cells = start_tags(matrix, "td");
    let languages: Vec<&str> = report.results.run.languages().collect();
    assert_eq!(
        cells.len(),
        report.rows.len() * languages.len(),
        "one matrix cell per (case, language)"
    );
    let states = report.results.cells();
    let ids: Vec<&str> = start_tags(dom, "li")
        .iter()
        .filter_map(|tag| attribute(tag, "id"))
        .collect();
    for row in &report.rows {
        for &language in &languages {
            let key = format!("{}/{}", row.id.name(), language);
            let found: Vec<&&str> = cells
                .iter()
                .filter(|tag| attribute(tag, "data-cell") == Some(key.as_str()))
                .collect();
            assert_eq!(found.len(), 1, "cells for {key}");
            let status = attribute(found[0], "data-status");
            let expected = states
                .get(&(&row.id, language))
                .map_or(State::NotSelected, |t| t.state);
            assert_eq!(status, Some(expected.id()), "{key}");
            // The cell's link leads to a details entry on the page.
            let cell_html = &matrix[matrix.find(found[0]).unwrap()..];
            let link = start_tags(cell_html, "a")[0];
            let target = attribute(link, "href").unwrap().trim_start_matches('#');
            assert!(ids.contains(&target), "{key} links to missing #{target}");
        }
    }

    cells.len()
}

/// The counts of one language's summary line:
/// [passed, failed, ignored, known failures, not run].
fn summary(dom: &str, language: &str) -> [usize; 5] {
    let tag = start_tags(dom, "li")
        .into_iter()
        .find(|tag| attribute(tag, "data-summary") == Some(language))
        .unwrap_or_else(|| panic!("no summary line for {language}"));
    let names = ["passed", "failed", "ignored", "known-failures", "not-run"];
    names.map(|name| {
        let count = attribute(tag, &format!("data-{name}")).and_then(|v| v.parse().ok());
        count.unwrap_or_else(|| panic!("{language}'s summary has no count {name}: {tag}"))
    })
}

/// The hand-written fixture: every kind of cell, counted by hand.
fn the_fixture_page(program: &Path) {
    let report = fixture();
    let dom = load(program, "fixture", &report);
    check_matrix(&dom, &report);
    let html = std::fs::read_to_string(page_dir().join("fixture.html")).unwrap();
    assert_code_panel_readable(program, "fixture", &html, &report.code);
    for (language, counts) in EXPECTED_SUMMARY {
        assert_eq!(summary(&dom, language), *counts, "summary of {language}");
    }
    // The failure text survives verbatim (re-escaped by the serializer),
    // below its summary.
    let escaped = escaped(GO_FAILURE);
    let shown = format!("<pre tabindex=\"0\">sent differs in pass 1\n\n{escaped}</pre>");
    assert!(dom.contains(&shown), "go's failure text");
    // The pictures came from the reference's trace.
    for text in [
        "attempt 1: ack lost (delivered)",
        "attempt 1: broker down",
        "skipped: order-1 blocked",
        "#1 duplicate dropped",
        "<h4>written after pass 1</h4>",
        "new relay",
    ] {
        assert!(dom.contains(text), "{text:?} in the pictures");
    }
}

/// A real run of the suite over three fake languages: one right, one
/// answering `lost_ack` wrongly, one crashing on `batch_of_two`, without
/// generated scenarios and demos. The page has one cell per trial that
/// ran, its counts are libtest's, and a wrong answer and a crash are told
/// apart (on the page by [`check_matrix`], in the CI summary here).
fn a_real_run_page(program: &Path) {
    let mut suite =
        Suite::load(&parity::repo_root(), Settings::default()).expect("the table loads");
    suite.set_languages([
        fake("fake-right", "none", "none"),
        fake("fake-wrong", "wrong-result", "lost_ack"),
        fake("fake-crash", "crash", "batch_of_two"),
    ]);
    let skip = vec!["/generated".into(), "/demo".into()];
    let run = common::run_suite(suite, common::inner_args(&page_dir().join("run.log"), skip));
    let (conclusion, report) = (&run.conclusion, run.report());
    let dom = load(program, "run", &report);
    let cells = check_matrix(&dom, &report);
    let ran = conclusion.num_passed + conclusion.num_failed + conclusion.num_ignored;
    assert_eq!(
        report.results.trials.len() as u64,
        ran,
        "one result per trial that ran"
    );
    let not_run_cells = dom.matches("data-status=\"not_selected\"").count() as u64;
    assert_eq!(
        cells as u64 - not_run_cells,
        ran,
        "one matrix cell per trial of the run"
    );
    let failed: Vec<(&str, &str, &str)> = report
        .results
        .trials
        .iter()
        .filter(|t| t.verdict == Outcome::Fail)
        .map(|t| (t.language.as_str(), t.row.name(), t.state.id()))
        .collect();
    assert_eq!(
        failed,
        [
            ("fake-wrong", "lost_ack", "wrong_answer"),
            ("fake-crash", "batch_of_two", "runner_fault")
        ]
    );
    let markdown = report::markdown::summary(&report);
    let crash = "- `fake-crash/batch_of_two`: ⚠ runner fault: `batch_of_two`: runner fault:";
    assert!(markdown.contains(crash), "{markdown}");
    assert_counts_are_libtests(&dom, conclusion);
    assert!(
        dom.contains("duplicates: expected 1, actual 999"),
        "the failing cell's diff is on the page"
    );
}

/// The page's summary lines, added over the languages, against libtest's
/// passed, failed and ignored counts (a known failure is ignored).
fn assert_counts_are_libtests(dom: &str, conclusion: &Conclusion) {
    let mut counts = [0; 3];
    for language in ["fake-right", "fake-wrong", "fake-crash"] {
        let [passed, failed, ignored, known, _] = summary(dom, language);
        for (count, n) in counts.iter_mut().zip([passed, failed, ignored + known]) {
            *count += n as u64;
        }
    }
    let libtest = [
        conclusion.num_passed,
        conclusion.num_failed,
        conclusion.num_ignored,
    ];
    assert_eq!(
        counts, libtest,
        "the page's counts against libtest's summary"
    );
}

/// The pinned checkers (`harness/report-tools`), as `make report-tools`
/// installs them: `PARITY_REPORT_TOOLS`, else `target/tools/report-tools`.
fn report_tools() -> PathBuf {
    match std::env::var_os("PARITY_REPORT_TOOLS").filter(|p| !p.is_empty()) {
        Some(dir) => parity::repo_root().join(dir),
        None => parity::repo_root().join("target/tools/report-tools"),
    }
}

/// html-validate's verdict on `page` (the repository's config), run with
/// node: (succeeded, what it printed).
fn html_validate(tools: &Path, page: &Path) -> (bool, String) {
    let config = parity::repo_root().join("harness/report-tools/.htmlvalidate.json");
    let command = exec::Command {
        label: "html-validate".to_owned(),
        argv: [
            "node",
            "node_modules/html-validate/bin/html-validate.mjs",
            "--config",
            &config.to_string_lossy(),
            &page.to_string_lossy(),
        ]
        .map(str::to_owned)
        .to_vec(),
        dir: tools.to_path_buf(),
        deadline: TIMEOUT,
        keep: 1024 * 1024,
    };
    let output = exec::run(&command, Stdin::Null).unwrap_or_else(|e| panic!("html-validate: {e}"));
    let printed = output.stdout.text() + &output.stderr.text();
    (output.success(), printed)
}

/// axe-core's violations on `html`, run in Chromium: a probe copy of the
/// page carries axe and a script that writes its result into the DOM,
/// which `--dump-dom` prints once virtual time has let axe finish.
fn axe(program: &Path, tools: &Path, name: &str, html: &str) -> Vec<String> {
    let axe = std::fs::read_to_string(tools.join("node_modules/axe-core/axe.min.js")).unwrap();
    let script = "<script>axe.run(document, {resultTypes: ['violations']}).then(function (r) {\
        done(r.violations.map(function (v) {\
          return v.id + ' (' + v.impact + '): ' + v.help + ': ' + v.nodes.slice(0, 5).map(function (n) { return n.target.join(' '); }).join(', ');\
        })); });</script>";
    let args = ["--virtual-time-budget=30000", "--window-size=1400,1800"];
    let script = format!("<script>{axe}</script>{script}");
    probe(program, &format!("axe-{name}"), html, &script, &args)
}

/// The page passes html-validate and axe-core with no finding, and both
/// checks can fail (a canary page each).
fn the_checkers_find_nothing(program: &Path) {
    let tools = report_tools();
    let dir = page_dir();
    let canary = dir.join("canary-checkers.html");
    let broken = "<!DOCTYPE html><html><head><title>canary</title></head><body><div><p>unclosed</div>\
                  <div style=\"overflow:auto;height:2rem\"><p>1</p><p>2</p><p>3</p><p>4</p></div></body></html>\n";
    std::fs::write(&canary, broken).unwrap();
    let (ok, printed) = html_validate(&tools, &canary);
    assert!(
        !ok && printed.contains("no-implicit-close"),
        "html-validate passed a broken page:\n{printed}"
    );
    let found = axe(program, &tools, "canary", broken);
    assert!(
        found.iter().any(|v| v.starts_with("landmark-one-main")),
        "axe found no missing main landmark in the canary: {found:?}"
    );

    for (name, page) in [
        ("checked-fixture", fixture()),
        ("checked-empty", Report::default()),
    ] {
        let path = dir.join(format!("{name}.html"));
        report::write(&path, &page).unwrap();
        let (ok, printed) = html_validate(&tools, &path);
        assert!(ok, "html-validate on {}:\n{printed}", path.display());
        let html = std::fs::read_to_string(&path).unwrap();
        let found = axe(program, &tools, name, &html);
        assert!(
            found.is_empty(),
            "axe-core on {}:\n{}",
            path.display(),
            found.join("\n")
        );
    }
}

/// A trial that runs `check` once `ready` finds what it needs; else it is
/// ignored with the reason, like a missing toolchain, or fails under
/// `PARITY_STRICT=1` (CI).
fn gated(name: &str, ready: fn() -> Result<PathBuf, String>, check: fn(&Path)) -> Trial {
    Trial::ignorable_test(name, move || match ready() {
        Ok(program) => {
            check(&program);
            Ok(Completion::Completed)
        }
        Err(why) if strict() => Err(format!("{why} (PARITY_STRICT=1 makes this a failure)").into()),
        Err(why) => Ok(Completion::ignored_with(format!(
            "{why}, or set PARITY_STRICT=1 to make this a failure"
        ))),
    })
}

fn chromium_ready() -> Result<PathBuf, String> {
    find_chromium().ok_or_else(|| {
        "Chromium is not installed (no chromium or chromium-browser on PATH): install the Debian \
         package chromium, or run make setup"
            .to_owned()
    })
}

fn checkers_ready() -> Result<PathBuf, String> {
    let program = chromium_ready()?;
    let tools = report_tools();
    let files = ["axe-core/axe.min.js", "html-validate/bin/html-validate.mjs"];
    if files
        .iter()
        .all(|f| tools.join("node_modules").join(f).is_file())
    {
        return Ok(program);
    }
    Err(format!(
        "the pinned html-validate and axe-core are not installed in {} (make report-tools, which \
         needs npm and the network once)",
        tools.display()
    ))
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials = vec![
        gated(
            "report_browser/the_fixture_page",
            chromium_ready,
            the_fixture_page,
        ),
        gated(
            "report_browser/a_real_run_page",
            chromium_ready,
            a_real_run_page,
        ),
        gated(
            "report_browser/html_validate_and_axe_find_nothing",
            checkers_ready,
            the_checkers_find_nothing,
        ),
    ];
    libtest_mimic::run(&args, trials).exit_code()
}
