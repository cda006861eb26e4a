//! The page around the pictures: header, summary, matrix and the per-case
//! sections with their failure details. Plain HTML and one inline style
//! sheet; no script, so nothing can fail to load from `file://`.

use std::fmt::Write as _;

use super::code::{Panel, Source};
use super::markup::{escape, result_id, slug};
use super::results::{Outcome, State, TrialResult};
use super::{picture, Matrix, Report, Row};

/// The page's only style sheet, inlined so the page needs nothing else
/// (a real CSS file: an editor and a linter read it as CSS).
const STYLE: &str = include_str!("style.css");

/// What a cell says in full, escaped: a failure's summary above its text,
/// another verdict's reason; nothing for a pass.
fn reason(trial: &TrialResult) -> Option<String> {
    let (summary, text) = (trial.summary.as_deref(), trial.text.as_deref());
    match trial.verdict {
        Outcome::Pass => None,
        Outcome::Fail => Some(format!("{}\n\n{}", summary?, text.unwrap_or_default())),
        Outcome::Ignored | Outcome::KnownFailure => text.or(summary).map(str::to_owned),
    }
    .map(|reason| escape(&reason))
}

fn header(out: &mut String, report: &Report) {
    let run = &report.results.run;
    let (date, commit, filter) = (escape(&run.date), escape(&run.commit), escape(&run.filter));
    let _ = write!(
        out,
        "<header><h1>Outbox relay parity report</h1>\
         <p class=\"run\">Run <time>{date}</time>, commit <code>{commit}</code></p>"
    );
    if !filter.is_empty() {
        let _ = write!(
            out,
            "<p class=\"selection\">Trials selected by <code>{filter}</code>: a cell that says \"not run\" was not selected.</p>"
        );
    }
    if !run.toolchains.is_empty() {
        out.push_str("<ul class=\"toolchains\">");
        for t in &run.toolchains {
            let (name, version) = (escape(&t.name), escape(&t.version));
            let _ = write!(out, "<li>{name}: <code>{version}</code></li>");
        }
        out.push_str("</ul>");
    }
    out.push_str("</header>");
}

fn summary(out: &mut String, matrix: &Matrix) {
    out.push_str("<section id=\"summary\"><h2>Summary</h2><ul class=\"summary\">");
    for language in matrix.languages() {
        let [passed, failed, ignored, known_failures, not_run] = matrix.summary(language);
        let s = if known_failures == 1 { "" } else { "s" };
        let selected = (not_run > 0).then(|| format!(", {not_run} not selected"));
        let name = escape(language);
        let bad = if failed > 0 { " class=\"bad\"" } else { "" };
        let _ = write!(
            out,
            "<li data-summary=\"{name}\" data-passed=\"{passed}\" data-failed=\"{failed}\" \
             data-ignored=\"{ignored}\" data-known-failures=\"{known_failures}\" \
             data-not-run=\"{not_run}\"{bad}>{name}: {passed} passed, {failed} failed, \
             {ignored} not run, {known_failures} known failure{s}{}</li>",
            selected.unwrap_or_default()
        );
    }
    out.push_str("</ul></section>");
}

fn matrix(out: &mut String, matrix: &Matrix) {
    out.push_str(
        "<section id=\"matrix\"><h2>Matrix</h2><table class=\"matrix\"><thead><tr><th scope=\"col\">case</th>",
    );
    for language in matrix.languages() {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(language));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &matrix.report.rows {
        let (id, name, seed) = heading(row);
        let _ = write!(
            out,
            "<tr><th scope=\"row\"><a href=\"#{id}\">{name}</a>{seed}</th>"
        );
        for language in matrix.languages() {
            let (trial, state) = matrix.cell(row, language);
            let (class, word, to) = (state.id(), state.word(), result_id(row.id.name(), language));
            let title = trial.and_then(reason).map(|r| format!(" title=\"{r}\""));
            let why = trial.and_then(|t| t.summary.as_deref());
            let why = why.map(|why| format!("<span class=\"why\">{}</span>", escape(why)));
            let (title, why) = (title.unwrap_or_default(), why.unwrap_or_default());
            let language = escape(language);
            let _ = write!(
                out,
                "<td class=\"cell {class}\" data-cell=\"{name}/{language}\" data-status=\"{class}\"\
                 {title}><a href=\"#{to}\">{word}</a>{why}</td>"
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table><p class=\"legend states\">");
    for state in State::ALL {
        let (class, word) = (state.id(), state.word());
        let _ = write!(out, "<span class=\"{class}\">{word}</span>");
    }
    out.push_str("</p></section>");
}

/// The language-by-feature matrix: which optional features of the case
/// format (`x-feature` in `cases/schema.json`) each port plays, as its
/// manifest says; a case that uses another shows as unsupported.
fn features(out: &mut String, run: &super::results::RunRecord) {
    out.push_str("<section id=\"features\"><h2>Features</h2>");
    out.push_str("<table class=\"matrix features\"><thead><tr><th scope=\"col\">language</th>");
    for feature in &run.features {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(feature));
    }
    out.push_str("</tr></thead><tbody>");
    for toolchain in &run.toolchains {
        let name = escape(&toolchain.name);
        let _ = write!(out, "<tr><th scope=\"row\">{name}</th>");
        for feature in &run.features {
            let (class, word) = match toolchain.features.contains(feature) {
                true => (State::Pass.id(), "✓ plays"),
                false => (State::Unsupported.id(), "⊘ does not"),
            };
            let _ = write!(out, "<td class=\"cell {class}\">{word}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></section>");
}

/// What the matrix and the case's section both name a case by: its
/// section's fragment id, its name escaped, and the mark of a seed case.
fn heading(row: &Row) -> (String, String, &'static str) {
    let seed = row.seed.then_some(" <span class=\"seed\">seed case</span>");
    let id = format!("case-{}", slug(row.id.name()));
    (id, escape(row.id.name()), seed.unwrap_or_default())
}

fn case_section(out: &mut String, matrix: &Matrix, row: &Row) {
    let (id, name, seed) = heading(row);
    let _ = write!(
        out,
        "<section class=\"case\" id=\"{id}\"><h3>{name}{seed}</h3>"
    );
    if !row.description.is_empty() {
        let description = escape(&row.description);
        let _ = write!(out, "<p class=\"description\">{description}</p>");
    }
    if let Some(scenario) = &row.scenario {
        out.push_str(&picture::render(row.id.name(), scenario));
    }
    out.push_str("<ul class=\"results\">");
    for language in matrix.languages() {
        let (trial, state) = matrix.cell(row, language);
        let (class, word, id) = (state.id(), state.word(), result_id(row.id.name(), language));
        let language = escape(language);
        let _ = write!(
            out,
            "<li class=\"result {class}\" id=\"{id}\"><b>{language}: {word}</b>"
        );
        let _ = match (trial.map(|t| t.verdict), trial.and_then(reason)) {
            // Long text scrolls inside the box: focusable, so a keyboard
            // can scroll it too.
            (Some(Outcome::Fail), Some(text)) => write!(out, "<pre tabindex=\"0\">{text}</pre>"),
            (_, Some(reason)) => write!(out, " — {reason}"),
            (_, None) => Ok(()),
        };
        out.push_str("</li>");
    }
    out.push_str("</ul></section>");
}

/// The code panel, as the practice's text describes it: the whole scenario
/// (the parts, the demo's composition root and loop, its output), a
/// language at a time, each tab with SPEC's note on its idiom and that
/// idiom marked in the code. Radio inputs pick the tab and, if the reader
/// wants, a second language shown beside it part by part; [`panel_style`]
/// shows what they pick, so the page needs no script. Lines never wrap: a
/// wrapped line starts again at column 0, which in Python reads as a line
/// outside its block.
fn code_panel(out: &mut String, panel: &Panel) {
    out.push_str(
        "<section id=\"code\"><h2>The scenario in code</h2><p class=\"code-intro\">The five \
         parts, the message included, from their first declaration, then the demo: its \
         composition root and loop, then its output; read from the source files when this \
         page was written.</p>",
    );
    let names = panel.languages.iter().map(|l| l.name.as_str());
    let groups = [
        ("tab", "Language", None),
        ("beside", "Beside it, part by part", Some("none")),
    ];
    for (group, legend, none) in groups {
        let _ = write!(out, "<fieldset class=\"tabs\"><legend>{legend}</legend>");
        for (i, name) in none.into_iter().chain(names.clone()).enumerate() {
            let (id, name) = (format!("{group}-{}", slug(name)), escape(name));
            let checked = if i == 0 { " checked" } else { "" };
            let _ = write!(
                out,
                "<input type=\"radio\" name=\"code-{group}\" id=\"{id}\"{checked}>\
                 <label for=\"{id}\">{name}</label>"
            );
        }
        out.push_str("</fieldset>");
    }
    out.push_str("<div class=\"row\">");
    for language in &panel.languages {
        let (class, name) = (slug(&language.name), escape(&language.name));
        // SPEC's Markdown: bold dropped, code spans kept.
        let mut note = escape(&language.note).replace("**", "");
        for tag in ["<code>", "</code>"].iter().cycle() {
            let Some(at) = note.find('`') else { break };
            note.replace_range(at..=at, tag);
        }
        let _ = write!(
            out,
            "<p class=\"lang lang-{class} idiom\" data-note=\"{name}\">{note}</p>"
        );
    }
    out.push_str("</div>");
    let parts = panel.languages.first().map_or(&[][..], |l| &l.parts[..]);
    for (at, (part, _)) in parts.iter().enumerate() {
        let (id, name) = (format!("code-{}", slug(part)), escape(part));
        let _ = write!(
            out,
            "<section class=\"part\" aria-labelledby=\"{id}\"><h3 id=\"{id}\">{name}</h3>\
             <div class=\"row\">"
        );
        for language in &panel.languages {
            let (class, language_name) = (slug(&language.name), escape(&language.name));
            let _ = write!(
                out,
                "<div class=\"lang lang-{class}\" data-code=\"{name}/{language_name}\">"
            );
            for source in language.parts.get(at).map_or(&[][..], |p| &p.1[..]) {
                code_source(out, source, &language.marks);
            }
            out.push_str("</div>");
        }
        out.push_str("</div></section>");
    }
    out.push_str(
        "<section class=\"part\" aria-labelledby=\"code-output\"><h3 id=\"code-output\">\
         output, the same in every language</h3>",
    );
    if let Some(output) = &panel.output {
        code_source(out, output, &[]);
    }
    out.push_str("</section></section>");
}

/// One file of the panel: its path, then its text, each line that holds
/// one of `marks` in `<mark>`.
fn code_source(out: &mut String, source: &Source, marks: &[String]) {
    let path = escape(&source.path);
    let _ = write!(out, "<p class=\"path\"><code>{path}</code></p>");
    match &source.text {
        Ok(text) => {
            out.push_str("<pre><code>");
            for line in text.lines() {
                let _ = match marks.iter().any(|mark| line.contains(mark.as_str())) {
                    true => writeln!(out, "<mark>{}</mark>", escape(line)),
                    false => writeln!(out, "{}", escape(line)),
                };
            }
            out.push_str("</code></pre>");
        }
        Err(why) => {
            let why = escape(why);
            let _ = write!(
                out,
                "<p class=\"missing\" data-missing=\"{path}\">{why}</p>"
            );
        }
    }
}

/// The rules that show what the panel's radio inputs pick: a language's
/// cells in the first column for its tab, in the second beside it.
fn panel_style(panel: &Panel) -> String {
    let mut style = String::new();
    for language in &panel.languages {
        let l = slug(&language.name);
        let _ = write!(
            style,
            "#code:has(#beside-{l}:checked) .lang-{l} {{ display: block; grid-column: 2; }}\n\
             #code:has(#tab-{l}:checked) .lang-{l} {{ display: block; grid-column: 1; }}\n"
        );
    }
    style
}

/// Links to the page's sections, above them: the code panel comes after
/// every case's section, far down a long page.
fn contents(out: &mut String, report: &Report) {
    out.push_str("<nav class=\"contents\" aria-label=\"Contents\">");
    if report.base.is_some() {
        out.push_str("<a href=\"#changes\">Changed since the base</a> · ");
    }
    out.push_str(
        "<a href=\"#summary\">Summary</a> · <a href=\"#matrix\">Matrix</a> · \
         <a href=\"#features\">Features</a> · <a href=\"#cases\">Cases</a>",
    );
    if let Some(language) = report.code.languages.first() {
        out.push_str(" · <a href=\"#code\">The scenario in code</a>:");
        let parts = language.parts.iter().map(|(part, _)| part.as_str());
        for (i, part) in parts.chain(["output"]).enumerate() {
            let comma = if i == 0 { "" } else { "," };
            let (id, name) = (slug(part), escape(part));
            let _ = write!(out, "{comma} <a href=\"#code-{id}\">{name}</a>");
        }
    }
    out.push_str("</nav>");
}

/// What changed since the base, first on the page: the note and headline
/// as the Markdown summary words them, then each cell that flipped, linking
/// to its details.
fn changes(out: &mut String, base: &super::diff::Base) {
    let (note, mut headline, lines) = base.lines(escape, "");
    headline[..1].make_ascii_uppercase();
    let note = note.map(|note| format!("<p>Note: {note}.</p>"));
    let _ = write!(
        out,
        "<section id=\"changes\"><h2>Changed since the base</h2>{}<p>{headline}</p>",
        note.unwrap_or_default()
    );
    if lines.is_empty() {
        out.push_str("</section>");
        return;
    }
    out.push_str("<ul class=\"changes\">");
    for (change, line) in base.changes.iter().zip(lines) {
        let class = change.after.as_ref().map_or("not_selected", State::id);
        let name = escape(&change.cell());
        // A cell this run has is on the page, to link to; the line starts
        // with the cell's name.
        let named = match change.after {
            Some(_) => format!(
                "<a href=\"#{}\">{name}</a>",
                result_id(&change.case, &change.language)
            ),
            None => format!("<b>{name}</b>"),
        };
        let line = line.replacen(&name, &named, 1);
        let _ = write!(
            out,
            "<li class=\"change {class}\" data-change=\"{name}\">{line}</li>"
        );
    }
    out.push_str("</ul></section>");
}

/// The whole document.
pub(super) fn page(matrix: &Matrix) -> String {
    let report = matrix.report;
    let mut out = String::with_capacity(64 * 1024);
    let commit = escape(&report.results.run.commit);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Parity report {commit}</title>\
         <link rel=\"icon\" href=\"data:,\"><style>{STYLE}{}</style></head><body>",
        panel_style(&report.code)
    );
    header(&mut out, report);
    contents(&mut out, report);
    // Everything but the header is the page's main content: a landmark a
    // screen reader jumps to (axe's landmark-one-main and region rules).
    out.push_str("<main>");
    if let Some(base) = &report.base {
        changes(&mut out, base);
    }
    summary(&mut out, matrix);
    self::matrix(&mut out, matrix);
    features(&mut out, &report.results.run);
    out.push_str("<section id=\"cases\"><h2>Cases</h2>");
    // The pictures' legend.
    out.push_str(
        "<p class=\"legend\">Each picture is the Rust reference's own run of the case: \
         a column per pass with the batch's rows in order, and the consumer below. \
         <span class=\"published\">published</span><span class=\"down\">broker down: not delivered</span>\
         <span class=\"acklost\">ack lost: delivered, sent again later</span>\
         <span class=\"skipped\">skipped: its order is blocked for the pass</span>\
         <span class=\"new\">row written into the outbox</span></p>",
    );
    for row in &report.rows {
        case_section(&mut out, matrix, row);
    }
    out.push_str("</section>");
    if !report.code.languages.is_empty() {
        code_panel(&mut out, &report.code);
    }
    out.push_str("</main></body></html>\n");
    out
}
