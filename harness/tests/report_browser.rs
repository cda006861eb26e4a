//! The parity report in a real browser: headless Chromium loads a page
//! written by `parity::report::write`, and a script in a probe copy of it
//! reports what a person would see: one matrix cell per (case, language)
//! with the right status, the summary counts, the page no wider than the
//! window, a code panel whose every tab (PHP first) shows the whole
//! scenario with its lines whole at 1280 px; the console stays silent, and
//! a screenshot is kept under `target/parity/report-browser/` to look at.
//!
//! A string check of the HTML cannot tell whether a browser builds the
//! same table from it (an unclosed tag moves cells around); the DOM
//! Chromium built can.
//!
//! Two pages: the report's fixture (every kind of cell, whose counts the
//! unit tests pin), and the page of a real run of the suite over fake
//! languages, one of them failing a case, whose matrix must hold one cell
//! per trial of the run and whose counts must equal libtest's.
//!
//! Where Chromium is missing the trials are ignored with the reason, like a
//! missing toolchain; with `PARITY_STRICT=1` (CI) that is a failure.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Trial};
use parity::config::Settings;
use parity::exec::{self, Stdin};
use parity::report::fixture;
use parity::report::results::State;
use parity::report::{self, code, Report};
use serde::de::DeserializeOwned;
use serde::Deserialize;

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
    "--dump-dom",
];

/// Every state once ([`fixture::every_state`]: go's failure holds markup,
/// a picture is wider than the window, a description one long word), the
/// real code panel, read from the repository, and the changes since a
/// base.
fn fixture() -> Report {
    let mut report = fixture::every_state();
    report.results.run.filter = "lost_ack --skip /generated".into();
    let (root, transcript) = (parity::repo_root(), parity::suite::executor::TRANSCRIPT);
    let manifests = parity::toolchain::manifest::read_all(&root).unwrap();
    report.code = code::panel(&manifests, &root, transcript);
    // A base in which rust's lost_ack crashed: the changes come first.
    let mut base = report.results.clone();
    base.trials[0].state = State::RunnerFault;
    report.base = Some(report::diff::compare(&base, &report.results));
    report
}

/// `PARITY_CHROMIUM` when set, else the first Chromium or Chrome on PATH
/// (Debian names it `chromium`, Ubuntu `chromium-browser`, and CI images
/// often carry Google Chrome); else why the trials cannot run.
fn chromium() -> Result<PathBuf, String> {
    if let Some(program) = std::env::var_os("PARITY_CHROMIUM").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let names = "chromium chromium-browser google-chrome google-chrome-stable".split(' ');
    names
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            "Chromium is not installed (no chromium or chromium-browser on PATH): install the \
             Debian package chromium, or run make setup"
                .to_owned()
        })
}

/// Where the pages, screenshots and probes are kept, to look at.
fn page_dir() -> PathBuf {
    let dir = parity::config::target_dir(&parity::repo_root()).join("parity/report-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The functions a probe's script calls: `done(value)` hands the test its
/// result, `look()` reads a page into a [`Seen`], `axeViolations()` runs
/// axe-core.
const PROBE: &str = include_str!("report_browser/probe.js");

/// What every probe logs with `console.error`: the console check must be
/// able to fail, so this line has to show up in the log as this Chromium
/// writes it.
const CANARY: &str = "parity canary: console.error is seen";

/// Loads a probe copy of `html`, `script` added before `</body>`, in
/// Chromium with `args` (the window's size among them) and a fresh
/// profile, through the harness's one process layer (its own process group,
/// a deadline, bounded output, the group killed whatever happens: the
/// launcher script and Chromium's helpers must not outlive it). Returns
/// what the script handed `done(value)` (see [`PROBE`]). Headless Chromium
/// logs every console call and uncaught exception as `INFO:CONSOLE`; the
/// page has no script, so any line but the [`CANARY`] is an error.
fn probe<T: DeserializeOwned>(
    program: &Path,
    name: &str,
    html: &str,
    script: &str,
    args: &[impl AsRef<str>],
) -> T {
    let dir = page_dir();
    let page = dir.join(format!("{name}.html"));
    let profile = dir.join(format!("profile-{name}"));
    let script = format!(
        "<script>{PROBE}</script>{script}<script>console.error('{CANARY}')</script></body>"
    );
    std::fs::write(&page, html.replacen("</body>", &script, 1)).unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    let mut argv = vec![program.to_string_lossy().into_owned()];
    let args = args.iter().map(|a| a.as_ref().to_owned());
    argv.extend(FLAGS.iter().map(|a| (*a).to_owned()).chain(args));
    argv.push(format!("--user-data-dir={}", profile.display()));
    argv.push(format!("file://{}", page.display()));
    let command = exec::Command {
        keep: 16 * 1024 * 1024,
        ..exec::Command::new(format!("Chromium ({name})"), argv, &dir, TIMEOUT)
    };
    let out = exec::run(&command, Stdin::Null).unwrap_or_else(|e| panic!("{name}: {e}"));
    let _ = std::fs::remove_dir_all(&profile);
    let (dom, stderr) = (out.stdout.text(), out.stderr.text());
    let tail = parity::text::tail(&stderr, 20);
    let ended = out.describe();
    assert!(
        out.success(),
        "{name}: Chromium ended ({ended}); stderr ends:\n{tail}"
    );
    let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.len() == 1 && console[0].contains(CANARY),
        "{name}: the console holds other lines than the probe's canary, or not even that one (then \
         the check is blind): {console:#?}; stderr ends:\n{tail}"
    );
    let json = dom.split("<pre id=\"probe-result\">").nth(1);
    let json = json.and_then(|r| r.split("</pre>").next());
    let json =
        json.unwrap_or_else(|| panic!("{name}: the probe wrote no result; stderr ends:\n{tail}"));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{name}: the probe's result: {e}: {json}"))
}

/// What `look()` ([`PROBE`]) reports of a loaded page.
#[derive(Deserialize)]
struct Seen {
    /// The page's width and the window's.
    width: [u64; 2],
    /// Each matrix cell: its `data-cell`, its `data-status`, and whether
    /// its link leads to a details entry on the page.
    cells: Vec<(String, String, bool)>,
    /// Per language: [passed, failed, ignored, known failures, not run].
    summaries: Vec<[usize; 5]>,
    /// The code panel's tab checked when the page loads, then what each tab
    /// shows, in the tabs' order.
    first_tab: String,
    tabs: Vec<Tab>,
    /// The code blocks wider than their box with a language beside the tab.
    beside_overflow: Vec<String>,
    /// The panel's output, as shown.
    output: String,
    /// The text a reader sees (the body's), failure texts as printed.
    text: String,
}

/// One tab of the code panel as shown: its label, the `data-code` of its
/// cells, its idiom note, how many marks, and the lines a reader can see
/// that are wider than their block or open a file (package, imports).
#[derive(Deserialize, Debug)]
struct Tab {
    label: String,
    cells: Vec<String>,
    note: String,
    marks: usize,
    overflow: Vec<String>,
    opening: Vec<String>,
}

/// Writes `report` as `<name>.html`, checks that nothing in it is fetched
/// and no link leads off it (so it works from file:// and offline), and looks at it in Chromium at
/// 1000 px and at 1280 px, keeping a screenshot of each: no wider than the
/// window either time, and its matrix the report's ([`check_matrix`]).
/// Returns what was seen at 1280 px.
fn load(program: &Path, name: &str, report: &Report) -> Seen {
    let dir = page_dir();
    let page = dir.join(format!("{name}.html"));
    report::write(&page, report).unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    for forbidden in ["<script", " src=", "url(", "@import", "http://", "https://"] {
        assert!(!html.contains(forbidden), "the page contains {forbidden:?}");
    }
    // Every link stays on the page: a fragment, or the inline icon.
    for link in html.split(" href=\"").skip(1) {
        let link = &link[..link.find('"').unwrap()];
        assert!(
            link.starts_with('#') || link == "data:,",
            "{name} links to {link}"
        );
    }
    let [_, at_1280] = [1000, 1280].map(|width| {
        let shot = dir.join(format!("{name}-{width}.png"));
        let name = format!("{name}-{width}");
        let _ = std::fs::remove_file(&shot);
        let args = [
            format!("--window-size={width},1800"),
            format!("--screenshot={}", shot.display()),
        ];
        let seen: Seen = probe(program, &name, &html, "<script>look()</script>", &args);
        let [page, window] = seen.width;
        assert!(
            page <= window,
            "{name}: the page is {page} px wide in a {window} px window"
        );
        assert!(shot.is_file(), "no screenshot at {}", shot.display());
        seen
    });
    check_matrix(&at_1280, report);
    at_1280
}

/// The code panel as a reader sees it at 1280 px: the tabs in the
/// practice's order, PHP's checked; each tab shows every part and the demo
/// of its language, its idiom note and marks, no line wider than its block
/// (nor with a second language beside it) and no package or import line
/// unfolded; the transcript below.
fn assert_code_panel_readable(seen: &Seen, panel: &code::Panel) {
    let names: Vec<&str> = panel.languages.iter().map(|l| l.name.as_str()).collect();
    let labels: Vec<&str> = seen.tabs.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, names, "the tabs");
    assert_eq!(
        names[..4],
        ["php", "go", "python", "typescript"],
        "the practice's order"
    );
    assert_eq!(seen.first_tab, "tab-php", "the tab shown first");
    let mut problems = Vec::new();
    for (tab, language) in seen.tabs.iter().zip(&panel.languages) {
        let (name, parts) = (&language.name, language.parts.iter());
        let cells: Vec<String> = parts.map(|(part, _)| format!("{part}/{name}")).collect();
        let note = tab.note.to_lowercase().starts_with(name.as_str());
        let lines_whole = tab.overflow.is_empty() && tab.opening.is_empty();
        if tab.cells != cells || !note || tab.marks == 0 || !lines_whole {
            problems.push(format!(
                "{name} shows not only its parts, demo, note and marks, \
                each line whole and no package or import line: {tab:?}"
            ));
        }
    }
    let beside = &seen.beside_overflow;
    if !beside.is_empty() {
        problems.push(format!(
            "with two languages side by side, too wide: {beside:?}"
        ));
    }
    let transcript = panel.output.as_ref().and_then(|o| o.text.clone().ok());
    if transcript.as_deref() != Some(seen.output.as_str()) || seen.output.is_empty() {
        problems.push(format!(
            "the output shown is not the transcript: {:?}",
            seen.output
        ));
    }
    common::assert_none(&problems, "the code panel");
}

/// The matrix of a loaded page, checked against `report`: one cell per
/// (row, language), in order, with the report's status (not selected where
/// none ran), each linking to its details entry.
fn check_matrix(seen: &Seen, report: &Report) {
    let states = report.results.cells();
    let mut expected = Vec::new();
    for row in &report.rows {
        for language in report.results.run.languages() {
            let state = states.get(&(&row.id, language)).map(|t| &t.state);
            let status = state.unwrap_or(&State::NotSelected).id().to_owned();
            expected.push((format!("{}/{language}", row.id.name()), status, true));
        }
    }
    assert_eq!(
        seen.cells, expected,
        "the matrix: (cell, status, links to its details)"
    );
}

/// The fixture: every kind of cell (their counts are the unit tests').
fn the_fixture_page(program: &Path) {
    let report = fixture();
    let seen = load(program, "fixture", &report);
    assert_code_panel_readable(&seen, &report.code);
    // Go's failure text survives verbatim, below its summary.
    let go = &report.results.trials[1];
    let (summary, text) = (go.summary.as_ref().unwrap(), go.text.as_ref().unwrap());
    let shown = format!("go: ✗ wrong answer{summary}\n\n{text}");
    assert!(seen.text.contains(&shown), "go's failure text");
}

/// A real run of the suite over three fake languages: one right, one
/// answering `lost_ack` wrongly, one crashing on `batch_of_two`, without
/// generated scenarios and demos. The page has one cell per trial that
/// ran, its counts are libtest's, and a wrong answer and a crash are told
/// apart (on the page by [`check_matrix`], in the CI summary here).
fn a_real_run_page(program: &Path) {
    let mut suite = common::suite(Settings::default().timeout);
    suite.set_languages([
        fake("fake-right", "none", "none"),
        fake("fake-wrong", "wrong-result", "lost_ack"),
        fake("fake-crash", "crash", "batch_of_two"),
    ]);
    let skip = vec!["/generated".into(), "/demo".into()];
    let run = common::run_suite(suite, common::inner_args(&page_dir().join("run.log"), skip));
    let (c, report) = (&run.conclusion, run.report());
    let seen = load(program, "run", &report);
    let libtest = [c.num_passed, c.num_failed, c.num_ignored];
    // The CI summary lists exactly the two failures, each in its state.
    let markdown = report::markdown::summary(&report);
    let failures = [
        "### Failures: 2\n",
        "- `fake-wrong/lost_ack`: ✗ wrong answer: `lost_ack`: the result differs from expect at duplicates\n",
        "- `fake-crash/batch_of_two`: ⚠ runner fault: `batch_of_two`: runner fault:",
    ];
    common::assert_holds(&markdown, &failures);
    // The summary lines, added over the languages, are libtest's counts (a
    // known failure is ignored): with check_matrix, one result and one cell
    // per trial that ran.
    let sum = |[p, f, i]: [usize; 3], c: &[usize; 5]| [p + c[0], f + c[1], i + c[2] + c[3]];
    let counts = seen.summaries.iter().fold([0; 3], sum).map(|n| n as u64);
    assert_eq!(
        counts, libtest,
        "the page's counts against libtest's summary: one cell per trial that ran?"
    );
    assert!(
        seen.text.contains("duplicates: expected 1, actual 999"),
        "the failing cell's diff is on the page"
    );
    // The features' pictures: a column per run with its relay, each
    // order's owner, a dead letter with its attempts, an unpark, an event
    // applied again.
    let owners = "2 relays, owners: order-1 → relay 1, order-2 → relay 0";
    let dead = "pass 2#1 order-1 OrderPlacedattempt 3: broker down#3 order-1 OrderPaidskipped: \
                order-1 blockedsent []dead letter #1 after 2 failed attempts";
    let again = "applied again (retention forgot #1): order-1 OrderPlaced";
    let drawn = ["pass 1 · relay 1", owners, dead, "unparked order-1", again];
    common::assert_holds(&seen.text, &drawn);
}

/// The pinned checkers (`harness/report-tools`), as `make report-tools`
/// installs them: `PARITY_REPORT_TOOLS`, else `target/tools/report-tools`.
fn report_tools() -> PathBuf {
    let root = parity::repo_root();
    parity::config::env_path(&root, "PARITY_REPORT_TOOLS")
        .unwrap_or_else(|| root.join("target/tools/report-tools"))
}

/// The checkers' files, in [`report_tools`].
const AXE: &str = "node_modules/axe-core/axe.min.js";
const VALIDATE: &str = "node_modules/html-validate/bin/html-validate.mjs";

/// The page, and a page without anything, pass html-validate (run with
/// node and the repository's config) and axe-core with no finding; a
/// broken canary page shows both checks can fail.
fn checkers(program: &Path) {
    let tools = report_tools();
    let config = parity::repo_root().join("harness/report-tools/.htmlvalidate.json");
    // axe-core runs in Chromium: a probe copy of each page carries axe and a
    // script that writes its violations into the DOM, which `--dump-dom`
    // prints once virtual time has let axe finish.
    let axe = std::fs::read_to_string(tools.join(AXE)).unwrap();
    let axe = format!("<script>{axe}</script><script>axeViolations()</script>");
    let axe_args = ["--virtual-time-budget=30000", "--window-size=1400,1800"];
    let broken = "<!DOCTYPE html><html><head><title>canary</title></head><body><div><p>unclosed</div>\
                  <div style=\"overflow:auto;height:2rem\"><p>1</p><p>2</p><p>3</p><p>4</p></div></body></html>\n";
    for (name, html) in [
        ("canary", broken.to_owned()),
        ("checked-fixture", report::render(&fixture())),
        ("checked-empty", report::render(&Report::default())),
    ] {
        let path = page_dir().join(format!("{name}.html"));
        std::fs::write(&path, &html).unwrap();
        let mut argv = ["node", VALIDATE, "--config"].map(str::to_owned).to_vec();
        argv.extend([&config, &path].map(|p| p.to_string_lossy().into_owned()));
        let command = exec::Command::new("html-validate", argv, &tools, TIMEOUT);
        let output = exec::run(&command, Stdin::Null).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = output.stdout.text() + &output.stderr.text();
        let found: Vec<String> = probe(program, &format!("axe-{name}"), &html, &axe, &axe_args);
        let as_expected = match name {
            "canary" => {
                let landmark = found.iter().any(|v| v.starts_with("landmark-one-main"));
                !output.success() && printed.contains("no-implicit-close") && landmark
            }
            _ => output.success() && found.is_empty(),
        };
        let found = found.join("\n");
        assert!(
            as_expected,
            "html-validate and axe-core on {} (the canary must fail no-implicit-close and \
             landmark-one-main, the pages nothing):\n{printed}\n{found}",
            path.display()
        );
    }
}

/// A trial that runs `check` once `ready` finds what it needs; else it is
/// ignored with the reason, like a missing toolchain, or fails under
/// `PARITY_STRICT=1` (CI).
fn gated(name: &str, ready: fn() -> Result<PathBuf, String>, check: fn(&Path)) -> Trial {
    Trial::ignorable_test(format!("report_browser/{name}"), move || match ready() {
        Ok(program) => {
            check(&program);
            Ok(Completion::Completed)
        }
        Err(why) if Settings::from_env().map_or(true, |s| s.strict) => {
            Err(format!("{why} (PARITY_STRICT=1 makes this a failure)").into())
        }
        Err(why) => Ok(Completion::ignored_with(format!(
            "{why}, or set PARITY_STRICT=1 to make this a failure"
        ))),
    })
}

fn checkers_ready() -> Result<PathBuf, String> {
    let tools = report_tools();
    if [AXE, VALIDATE].iter().all(|f| tools.join(f).is_file()) {
        return chromium();
    }
    Err(format!(
        "the pinned html-validate and axe-core are not installed in {} (make report-tools, which \
         needs npm and the network once)",
        tools.display()
    ))
}

fn main() -> ExitCode {
    let trials = vec![
        gated("the_fixture_page", chromium, the_fixture_page),
        gated("a_real_run_page", chromium, a_real_run_page),
        gated(
            "html_validate_and_axe_find_nothing",
            checkers_ready,
            checkers,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}
