//! The page's style sheet, inline in the page: nothing to fetch, so it
//! works from `file://` and offline.

/// The page's only style sheet, inline. Every status has a colour AND a
/// word (and a symbol), so the page reads without colour too.
pub(super) const STYLE: &str = r#"
:root { color-scheme: light; }
body { overflow-wrap: anywhere; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.5rem; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .3rem; }
h2 { font-size: 1.2rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
h4 { font-size: .9rem; margin: 0 0 .3rem; }
h5 { font-size: .8rem; margin: .2rem 0; color: #444; }
code, pre, .msg { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.run, .toolchains, .contents { margin: .2rem 0; color: #333; }
.toolchains, .summary, .changes { padding-left: 1.2rem; }
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
.msg, .what, .dup, .c { font-size: 12px; }
.published { border-color: #2e7d32; background: #e8f5e9; }
.down { border-color: #c62828; background: #ffebee; }
.acklost { border-color: #e65100; background: #fff3e0; }
.skipped { border-color: #8a8a8a; border-style: dashed; border-left-style: solid; background: #fafafa; color: #4a4a4a; }
.new { border-color: #3949ab; background: #eef0fb; }
.dup { color: #6a1b9a; font-weight: 600; }
.sent { font-size: 12px; margin: .3rem 0; }
.consumer { border-top: 1px dotted #999; margin-top: .2rem; }
.c.handled::before { content: "✓ "; }
.c.dup::before { content: "⟲ "; }
.none { color: #666; font-size: 12px; font-style: italic; margin: .2rem 0; }
.error { color: #8b0000; }
.results { list-style: none; padding: 0; margin: .5rem 0 0; }
.result { margin: .2rem 0; padding: .2rem .4rem; border-radius: 3px; }
.result pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; color: #1b1b1b; border: 1px solid #d99; padding: .4rem; margin: .3rem 0; max-height: 30rem; overflow: auto; }
.code-intro { max-width: 60rem; }
.tabs { border: 0; padding: 0; margin: .3rem 0; }
.tabs legend { font-weight: 600; padding: 0; }
.tabs input { position: absolute; opacity: 0; }
.tabs label { display: inline-block; margin: .15rem .3rem .15rem 0; padding: .05rem .6rem; border: 1px solid #888; border-radius: 4px; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; cursor: pointer; }
.tabs input:checked + label { background: #1b1b1b; color: #fff; }
.tabs input:focus-visible + label { outline: 3px solid #1565c0; outline-offset: 2px; }
.row { display: grid; grid-template-columns: minmax(0, 1fr); gap: 4px; margin-bottom: .4rem; }
#code:has(#beside-none:not(:checked)) .row { grid-template-columns: repeat(2, minmax(0, 1fr)); }
.lang { display: none; grid-row: 1; margin: 0; border: 1px solid #aaa; border-radius: 4px; padding: 2px 3px; background: #fbfbfb; }
.path { margin: .3rem 0 .1rem; font-size: 12px; color: #333; }
#code pre { margin: 0; font-size: 12px; line-height: 1.35; white-space: pre; overflow-x: auto; tab-size: 4; }
#code:has(#beside-none:not(:checked)) .lang pre { font-size: 9.5px; }
.idiom.lang { padding: .3rem .5rem; background: #eef4fb; border-color: #8fa9c4; }
#code .part > pre { border: 1px solid #aaa; border-radius: 4px; padding: 2px 3px; background: #fbfbfb; }
mark { background: #fff0a0; color: inherit; }
.missing { color: #8b0000; font-size: 12px; font-style: italic; }
.seed { font-size: 11px; font-weight: 400; border: 1px solid #1565c0; color: #0d3c7a; border-radius: 3px; padding: 0 .25rem; white-space: nowrap; }
.change { margin: .15rem 0; padding: .1rem .3rem; border-radius: 3px; }
:target { outline: 3px solid #1565c0; outline-offset: 2px; }
"#;
