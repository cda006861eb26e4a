//! The page around the pictures: header, summary, matrix and the per-case
//! sections with their failure details. Plain HTML and one inline style
//! sheet; no script, so nothing can fail to load from `file://`.

use std::fmt::Write as _;

use super::code::Part;
use super::{first_line, picture, Cell, Report, Row, State};

/// The page's only style sheet, inline. Every status has a colour AND a
/// word (and a symbol), so the page reads without colour too.
const STYLE: &str = r#"
:root { color-scheme: light; }
body { overflow-wrap: anywhere; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.5rem; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .3rem; }
h2 { font-size: 1.2rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
h4 { font-size: .9rem; margin: 0 0 .3rem; }
h5 { font-size: .8rem; margin: .2rem 0; color: #444; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.run, .toolchains { margin: .2rem 0; color: #333; }
.toolchains { padding-left: 1.2rem; }
.summary { padding-left: 1.2rem; }
.summary .bad { color: #8b0000; font-weight: 600; }
table.matrix { border-collapse: collapse; }
.matrix th, .matrix td { border: 1px solid #bbb; padding: .25rem .5rem; text-align: left; vertical-align: top; }
.matrix thead th { background: #f0f0f0; }
.matrix th[scope=row] { font-weight: 400; }
.cell a { color: inherit; text-decoration: none; font-weight: 600; }
.cell a:hover, .cell a:focus { text-decoration: underline; }
.why { display: block; font-size: 12px; max-width: 20rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.pass { background: #dcf2dc; color: #0d4a0d; }
.wrong_answer, .stale_known_failure, .harness_fault { background: #f8d0d0; color: #7a0000; }
.runner_fault { background: #f3d6f0; color: #5c0057; }
.not_run { background: #e8e8e8; color: #3a3a3a; }
.known_failure { background: #fbe6bf; color: #5e3b00; }
.not_selected { background: #fff; color: #595959; }
.case { border-top: 1px solid #ddd; padding: .8rem 0; }
.description { max-width: 60rem; margin: .2rem 0 .4rem; }
.scenario { color: #444; font-size: 13px; margin: .2rem 0 .5rem; }
.legend span { display: inline-block; margin: 0 .6rem .3rem 0; padding: 0 .3rem; border: 1px solid; border-left-width: 5px; border-radius: 3px; font-size: 12px; }
.picture { display: flex; gap: .5rem; overflow-x: auto; align-items: flex-start; padding-bottom: .3rem; }
.col { flex: 0 0 auto; border: 1px solid #aaa; border-radius: 4px; padding: .4rem; width: 13.5rem; }
.col.written { border-style: dashed; background: #f3f6ff; width: 11rem; }
.col.idle { background: #f6f6f6; color: #555; width: 10rem; }
.col.outbox { background: #fbfbfb; }
.restart { font-size: 11px; font-weight: 400; background: #333; color: #fff; border-radius: 3px; padding: 0 .25rem; }
.rows { list-style: none; margin: 0; padding: 0; }
.ev { display: flex; flex-direction: column; margin: .2rem 0; padding: .1rem .3rem; border: 1px solid; border-left-width: 5px; border-radius: 3px; }
.msg { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.what, .dup { font-size: 12px; }
.published { border-color: #2e7d32; background: #e8f5e9; }
.down { border-color: #c62828; background: #ffebee; }
.acklost { border-color: #e65100; background: #fff3e0; }
.skipped { border-color: #8a8a8a; border-style: dashed; border-left-style: solid; background: #fafafa; color: #4a4a4a; }
.new { border-color: #3949ab; background: #eef0fb; }
.dup { color: #6a1b9a; font-weight: 600; }
.sent { font-size: 12px; margin: .3rem 0; }
.consumer { border-top: 1px dotted #999; margin-top: .2rem; }
.c { font-size: 12px; }
.c.handled::before { content: "✓ "; }
.c.dup::before { content: "⟲ "; }
.none { color: #666; font-size: 12px; font-style: italic; margin: .2rem 0; }
.error { color: #8b0000; }
.results { list-style: none; padding: 0; margin: .5rem 0 0; }
.result { margin: .2rem 0; padding: .2rem .4rem; border-radius: 3px; }
.result pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; color: #1b1b1b; border: 1px solid #d99; padding: .4rem; margin: .3rem 0; max-height: 30rem; overflow: auto; }
.code-intro { max-width: 60rem; }
.code-row { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .4rem; }
figure.code { min-width: 0; margin: 0; border: 1px solid #aaa; border-radius: 4px; padding: .3rem .4rem; background: #fbfbfb; }
figure.code figcaption { font-weight: 600; }
.path { margin: .3rem 0 .1rem; font-size: 12px; color: #333; }
figure.code pre { margin: 0; font-size: 10.5px; line-height: 1.3; white-space: pre-wrap; tab-size: 4; }
.missing { color: #8b0000; font-size: 12px; font-style: italic; }
.seed { font-size: 11px; font-weight: 400; border: 1px solid #1565c0; color: #0d3c7a; border-radius: 3px; padding: 0 .25rem; white-space: nowrap; }
:target { outline: 3px solid #1565c0; outline-offset: 2px; }
"#;

/// Makes `text` safe inside an element or a quoted attribute.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // A runner's control characters (ESC, NUL, BEL) would be raw
            // bytes in the page, and a bidi control (U+202E) would turn
            // the text after it around: shown as their code instead.
            c if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The characters that change the direction text is shown in: embeddings,
/// overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the marks
/// (U+200E, U+200F, U+061C). Not control characters to `char`, yet in a
/// description or a runner's output they make the page lie about the text.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// A fragment id for `name` that needs no URL escaping: letters, digits and
/// `_` stay, every other byte becomes `-` and two hex digits, so two names
/// never share an id and `--` never occurs inside one.
fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "-{b:02x}");
        }
    }
    out
}

fn case_id(row: &Row) -> String {
    format!("case-{}", slug(&row.name))
}

fn result_id(row: &Row, language: &str) -> String {
    format!("r-{}--{}", slug(&row.name), slug(language))
}

/// A cell's state (its CSS class and `data-status` are the state's id,
/// its word has a symbol, so colour is never the only signal) and the
/// reason, if any.
fn status(cell: Option<&Cell>) -> (State, Option<&str>) {
    match cell {
        None => (State::NotSelected, None),
        Some(cell) => (
            cell.state(),
            match cell {
                Cell::Pass => None,
                Cell::Fail(_, text) | Cell::Ignored(text) | Cell::KnownFailure(text) => Some(text),
            },
        ),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn header(out: &mut String, report: &Report) {
    let _ = write!(
        out,
        "<header><h1>Outbox relay parity report</h1>\
         <p class=\"run\">Run <time>{}</time>, commit <code>{}</code></p>",
        escape(&report.date),
        escape(&report.commit)
    );
    if !report.selection.is_empty() {
        let _ = write!(
            out,
            "<p class=\"selection\">Trials selected by <code>{}</code>: a cell that says \"not run\" was not selected.</p>",
            escape(&report.selection)
        );
    }
    if !report.toolchains.is_empty() {
        out.push_str("<ul class=\"toolchains\">");
        for toolchain in &report.toolchains {
            let _ = write!(
                out,
                "<li>{}: <code>{}</code></li>",
                escape(&toolchain.name),
                escape(&toolchain.version)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</header>");
}

fn summary(out: &mut String, report: &Report) {
    out.push_str("<section id=\"summary\"><h2>Summary</h2><ul class=\"summary\">");
    for language in &report.languages {
        let s = report.summary(language);
        let mut parts = vec![
            plural(s.passed, "passed", "passed"),
            plural(s.failed, "failed", "failed"),
            plural(s.ignored, "not run", "not run"),
            plural(s.known_failures, "known failure", "known failures"),
        ];
        if s.not_run > 0 {
            parts.push(plural(s.not_run, "not selected", "not selected"));
        }
        let _ = write!(
            out,
            "<li data-summary=\"{}\" data-passed=\"{}\" data-failed=\"{}\" data-ignored=\"{}\" \
             data-known-failures=\"{}\" data-not-run=\"{}\"{}>{}: {}</li>",
            escape(language),
            s.passed,
            s.failed,
            s.ignored,
            s.known_failures,
            s.not_run,
            if s.failed > 0 { " class=\"bad\"" } else { "" },
            escape(language),
            parts.join(", ")
        );
    }
    out.push_str("</ul></section>");
}

fn matrix(out: &mut String, report: &Report) {
    out.push_str(
        "<section id=\"matrix\"><h2>Matrix</h2><table class=\"matrix\"><thead><tr><th scope=\"col\">case</th>",
    );
    for language in &report.languages {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(language));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &report.rows {
        let _ = write!(
            out,
            "<tr><th scope=\"row\"><a href=\"#{}\">{}</a>{}</th>",
            case_id(row),
            escape(&row.name),
            seed_mark(row)
        );
        for language in &report.languages {
            let (state, reason) = status(row.cells.get(language));
            let (class, word) = (state.id(), state.word());
            let title = reason
                .map(|r| format!(" title=\"{}\"", escape(r)))
                .unwrap_or_default();
            let _ = write!(
                out,
                "<td class=\"cell {class}\" data-cell=\"{}/{}\" data-status=\"{class}\"{title}>\
                 <a href=\"#{}\">{word}</a>",
                escape(&row.name),
                escape(language),
                result_id(row, language)
            );
            if let Some(reason) = reason {
                let _ = write!(
                    out,
                    "<span class=\"why\">{}</span>",
                    escape(first_line(reason))
                );
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table><p class=\"legend states\">");
    for state in State::ALL {
        let _ = write!(
            out,
            "<span class=\"{}\">{}</span>",
            state.id(),
            state.word()
        );
    }
    out.push_str("</p></section>");
}

fn legend(out: &mut String) {
    out.push_str(
        "<p class=\"legend\">Each picture is the Rust reference's own run of the case: \
         a column per pass with the batch's rows in order, and the consumer below. \
         <span class=\"published\">published</span><span class=\"down\">broker down: not delivered</span>\
         <span class=\"acklost\">ack lost: delivered, sent again later</span>\
         <span class=\"skipped\">skipped: its order is blocked for the pass</span>\
         <span class=\"new\">row written into the outbox</span></p>",
    );
}

/// The mark of a seed case, after its name.
fn seed_mark(row: &Row) -> &'static str {
    if row.seed {
        " <span class=\"seed\">seed case</span>"
    } else {
        ""
    }
}

fn case_section(out: &mut String, report: &Report, row: &Row) {
    let _ = write!(
        out,
        "<section class=\"case\" id=\"{}\"><h3>{}{}</h3>",
        case_id(row),
        escape(&row.name),
        seed_mark(row)
    );
    if !row.description.is_empty() {
        let _ = write!(
            out,
            "<p class=\"description\">{}</p>",
            escape(&row.description)
        );
    }
    if let Some(scenario) = &row.scenario {
        picture::render(out, scenario);
    }
    out.push_str("<ul class=\"results\">");
    for language in &report.languages {
        let cell = row.cells.get(language);
        let (state, _) = status(cell);
        let (class, word) = (state.id(), state.word());
        let _ = write!(
            out,
            "<li class=\"result {class}\" id=\"{}\"><b>{}: {word}</b>",
            result_id(row, language),
            escape(language)
        );
        match cell {
            Some(Cell::Fail(_, text)) => {
                let _ = write!(out, "<pre>{}</pre>", escape(text));
            }
            Some(Cell::Ignored(reason) | Cell::KnownFailure(reason)) => {
                let _ = write!(out, " — {}", escape(reason));
            }
            Some(Cell::Pass) | None => {}
        }
        out.push_str("</li>");
    }
    out.push_str("</ul></section>");
}

/// The code panel: a section per part, its languages side by side in equal
/// columns whose long lines wrap, so all five fit a screen with no
/// scrolling region.
fn code_panel(out: &mut String, parts: &[Part]) {
    out.push_str(
        "<section id=\"code\"><h2>Code, part by part</h2><p class=\"code-intro\">Each part of the \
         practice in every language, read from the source files when this page was written, so the \
         ports can be compared at a glance.</p>",
    );
    for part in parts {
        let id = format!("code-{}", slug(&part.name));
        let _ = write!(
            out,
            "<section class=\"part\" aria-labelledby=\"{id}\"><h3 id=\"{id}\">{}</h3>\
             <div class=\"code-row\">",
            escape(&part.name)
        );
        for (language, sources) in &part.languages {
            let _ = write!(
                out,
                "<figure class=\"code\" data-code=\"{}/{}\"><figcaption>{}</figcaption>",
                escape(&part.name),
                escape(language),
                escape(language)
            );
            for source in sources {
                match &source.text {
                    Ok(text) => {
                        let _ = write!(
                            out,
                            "<p class=\"path\"><code>{}</code></p><pre><code>{}</code></pre>",
                            escape(&source.path),
                            escape(text)
                        );
                    }
                    Err(why) => {
                        let _ = write!(
                            out,
                            "<p class=\"path\"><code>{}</code></p><p class=\"missing\" data-missing=\"{}\">{}</p>",
                            escape(&source.path),
                            escape(&source.path),
                            escape(why)
                        );
                    }
                }
            }
            out.push_str("</figure>");
        }
        out.push_str("</div></section>");
    }
    out.push_str("</section>");
}

/// The whole document.
pub(super) fn page(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Parity report {}</title>\
         <link rel=\"icon\" href=\"data:,\"><style>{STYLE}</style></head><body>",
        escape(&report.commit)
    );
    header(&mut out, report);
    summary(&mut out, report);
    matrix(&mut out, report);
    out.push_str("<section id=\"cases\"><h2>Cases</h2>");
    legend(&mut out);
    for row in &report.rows {
        case_section(&mut out, report, row);
    }
    out.push_str("</section>");
    if !report.code.is_empty() {
        code_panel(&mut out, &report.code);
    }
    out.push_str("</body></html>\n");
    out
}
