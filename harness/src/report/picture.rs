//! A case's picture: the reference runs the scenario with an observed
//! broker (see [`super::trace`]), and each pass is drawn as it ends, a box
//! per row of its batch in a column of its own.
//!
//! The picture is drawn from what the reference did, never from the case's
//! `expect`, so it teaches the behaviour every port is checked against.

use std::fmt::Write as _;

use outbox::{Message, OutboxTable};

use super::markup::escape;
use super::trace::{traced_pass, Event, ObservedBroker};
use super::{Failure, Scenario};
use crate::oracle::passes::{self, Hook};

/// Passes after the first this many are summarised, not drawn, and so are
/// the rows of a column after its first [`MAX_DRAWN_ROWS`]: a long case
/// keeps only its picture's HTML, which does not grow with the case
/// (passes times rows).
const MAX_DRAWN_PASSES: u64 = 12;
const MAX_DRAWN_ROWS: usize = 40;

/// A row's box in a column: the row, then `what` happened to it (markup);
/// a row written into the outbox, class `new`, has nothing more.
fn row_box(class: &str, message: &Message, what: &str) -> String {
    let (id, aggregate, event) = (message.id, &message.aggregate, &message.event_type);
    let message = escape(&format!("#{id} {aggregate} {event}"));
    format!("<li class=\"ev {class}\"><span class=\"msg\">{message}</span>{what}</li>")
}

/// Rows of a column, the first [`MAX_DRAWN_ROWS`] and a line saying how
/// many more there were; `empty` when there are none. Only the drawn rows
/// are rendered.
fn rows_list(out: &mut String, items: impl ExactSizeIterator<Item = String>, empty: &str) {
    if items.len() == 0 {
        let _ = write!(out, "<p class=\"none\">{empty}</p>");
        return;
    }
    let more = items.len().saturating_sub(MAX_DRAWN_ROWS);
    out.push_str("<ol class=\"rows\">");
    out.extend(items.take(MAX_DRAWN_ROWS));
    if more > 0 {
        let _ = write!(out, "<li class=\"more\">… and {more} more rows</li>");
    }
    out.push_str("</ol>");
}

fn new_row(message: &Message) -> String {
    row_box("new", message, "")
}

/// An event's box: the row, then what happened to it.
fn event_row(event: &Event) -> String {
    let (class, what) = match event.attempt {
        Some(attempt) => {
            let (class, what) = match attempt.failure {
                None => ("published", "published"),
                Some(outbox::Failure::Down) => ("down", "broker down"),
                Some(outbox::Failure::LostAck) => ("acklost", "ack lost (delivered)"),
            };
            (class, format!("attempt {}: {what}", attempt.number))
        }
        None => (
            "skipped",
            format!("skipped: {} blocked", event.message.aggregate),
        ),
    };
    let dropped = event.attempt.is_some_and(|a| a.duplicate_dropped);
    let dropped = dropped.then_some("<span class=\"dup\">consumer: duplicate dropped</span>");
    let what = format!("<span class=\"what\">{}</span>", escape(&what));
    row_box(class, &event.message, &(what + dropped.unwrap_or_default()))
}

/// One delivery on the consumer's side: handled, or dropped as a duplicate.
fn delivery(message: &Message, duplicate: bool) -> String {
    let (aggregate, event) = (escape(&message.aggregate), escape(&message.event_type));
    match duplicate {
        true => format!("<li class=\"c dup\">#{} duplicate dropped</li>", message.id),
        false => format!("<li class=\"c handled\">handled {aggregate} {event}</li>"),
    }
}

/// Draws each pass as the oracle's loop ([`passes::drive`]) runs it: the
/// first [`MAX_DRAWN_PASSES`] traced with [`traced_pass`] (the batch taken
/// before the pass against the attempts the broker saw) and drawn into
/// `columns`, the later busy ones only counted.
struct Painter<'a> {
    scenario: &'a Scenario,
    columns: String,
    /// The busy passes after the drawn ones: the first, the last, and how
    /// many rows they sent.
    undrawn: Option<(u64, u64, usize)>,
    /// The passes after the last busy one, all with nothing to send.
    idle: Option<(u64, u64)>,
}

impl Hook<ObservedBroker> for Painter<'_> {
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut ObservedBroker,
        scenario: &Scenario,
        number: u64,
    ) -> Vec<u64> {
        if number > MAX_DRAWN_PASSES {
            return passes::relay(table, broker, scenario).run_once();
        }
        let (sent, events) = traced_pass(table, broker, scenario);
        pass_column(&mut self.columns, number, &sent, &events, self.scenario);
        sent
    }

    fn after(&mut self, pass: passes::Pass) -> bool {
        let (number, passes) = (pass.number, self.scenario.passes);
        if number <= MAX_DRAWN_PASSES {
            written_column(&mut self.columns, &pass, passes);
        } else {
            let (_, last, sent) = self.undrawn.get_or_insert((number, number, 0));
            *last = number;
            *sent += pass.sent.len();
        }
        if pass.idle && number < passes {
            self.idle = Some((number + 1, passes));
        }
        !pass.idle
    }
}

/// The picture of `scenario` as an HTML fragment: a line stating the
/// scenario, then the outbox at the start, a column per pass and a column
/// wherever rows are written between passes.
pub(super) fn render(name: &str, scenario: &Scenario) -> String {
    let mut out = scenario_line(scenario);
    let mut painter = Painter {
        scenario,
        columns: String::new(),
        undrawn: None,
        idle: None,
    };
    let mut broker = ObservedBroker::new(passes::broker(scenario));
    let initial = match passes::drive(scenario, &mut broker, &mut painter) {
        Ok(played) => played.before_first,
        Err(e) => {
            let why = escape(&e);
            let _ = write!(
                out,
                "<p class=\"error\">The reference refused the scenario: {why}</p>"
            );
            return out;
        }
    };
    // A wide picture scrolls sideways: focusable and named, so a keyboard
    // can scroll it and a screen reader says what it is.
    let _ = write!(
        out,
        "<div class=\"picture\" tabindex=\"0\" role=\"group\" aria-label=\"the reference's run of {}\">",
        escape(name)
    );
    out.push_str("<div class=\"col outbox\"><h4>outbox at start</h4>");
    rows_list(&mut out, initial.iter().map(new_row), "empty");
    out.push_str("</div>");
    out.push_str(&painter.columns);
    if let Some((first, last, sent)) = painter.undrawn {
        span_column(
            &mut out,
            first,
            last,
            &format!("not drawn: {sent} more rows sent"),
        );
    }
    if let Some((first, last)) = painter.idle {
        span_column(&mut out, first, last, "outbox empty: nothing to send");
    }
    out.push_str("</div>");
    out
}

/// The sentence above the picture: what the case asks of the relay.
fn scenario_line(scenario: &Scenario) -> String {
    // Words of the harness's own: nothing here needs escaping.
    let script: Vec<String> = (scenario.failures.iter())
        .map(|(attempt, failure)| match failure {
            Failure::Down => format!("attempt {attempt}: broker down"),
            Failure::LostAck => format!("attempt {attempt}: ack lost"),
        })
        .collect();
    let script = match script.is_empty() {
        true => "no failures".to_owned(),
        false => script.join(", "),
    };
    let (batch, passes) = (scenario.batch_size, scenario.passes);
    let es = if passes == 1 { "" } else { "es" };
    let restart = scenario.restart_each_pass;
    let restart = restart.then_some(", a new relay before every pass");
    format!(
        "<p class=\"scenario\">batch size {batch}, {passes} pass{es}{}; {script}</p>",
        restart.unwrap_or_default()
    )
}

/// One pass's column: each row's fate at the broker, what the relay
/// reported sent, and what the consumer did.
fn pass_column(out: &mut String, number: u64, sent: &[u64], events: &[Event], scenario: &Scenario) {
    let restart = scenario.restart_each_pass && number > 1;
    let restart = restart.then_some(" <span class=\"restart\">new relay</span>");
    let _ = write!(
        out,
        "<div class=\"col passcol\"><h4>pass {number}{}</h4>",
        restart.unwrap_or_default()
    );
    rows_list(out, events.iter().map(event_row), "nothing to send");
    let _ = write!(out, "<p class=\"sent\">sent {sent:?}</p>");
    // The consumer's side: every attempt that reached it, handled or
    // dropped as a duplicate.
    let deliveries: Vec<(&Message, bool)> = events
        .iter()
        .filter_map(|event| {
            let attempt = event.attempt?;
            let delivered = attempt.failure != Some(outbox::Failure::Down);
            delivered.then_some((&event.message, attempt.duplicate_dropped))
        })
        .collect();
    out.push_str("<div class=\"consumer\"><h5>consumer</h5>");
    let drawn = deliveries
        .iter()
        .map(|&(message, dropped)| delivery(message, dropped));
    rows_list(out, drawn, "nothing delivered");
    out.push_str("</div></div>");
}

/// The column of rows written right after `pass`, if any were; after the
/// last of the case's `passes` they are never sent, and the heading says so.
fn written_column(out: &mut String, pass: &passes::Pass, passes: u64) {
    if pass.written_after.is_empty() {
        return;
    }
    let heading = if pass.number == passes {
        "written after the last pass (never sent)".to_string()
    } else {
        format!("written after pass {}", pass.number)
    };
    let _ = write!(out, "<div class=\"col written\"><h4>{heading}</h4>");
    rows_list(out, pass.written_after.iter().map(new_row), "");
    out.push_str("</div>");
}

/// A column that sums up passes `first` to `last` (beyond the drawn ones,
/// or idle after the last busy one): what they did.
fn span_column(out: &mut String, first: u64, last: u64, what: &str) {
    let span = match first == last {
        true => format!("pass {first}"),
        false => format!("passes {first}–{last}"),
    };
    let _ = write!(
        out,
        "<div class=\"col idle\"><h4>{span}</h4><p class=\"none\">{what}</p></div>"
    );
}
