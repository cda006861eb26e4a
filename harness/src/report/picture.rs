//! A case's picture: the reference runs the scenario with an observed
//! broker (see [`super::trace`]), and each run is drawn as it ends, a box
//! per row of its batch in a column of its own (a pass of several relays
//! is a column per run, one with none an outage).
//!
//! The picture is drawn from what the reference did, never from the case's
//! `expect`, so it teaches the behaviour every port is checked against.

use std::collections::HashSet;
use std::fmt::Write as _;

use outbox::{Message, OutboxTable, Partition};
use outbox_cases::Fetch;

use super::markup::escape;
use super::trace::{traced_run, Attempt, Event, ObservedBroker};
use super::{Failure, Scenario};
use crate::oracle::passes::{self, Hook, Run};

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

/// One delivery on the consumer's side: handled (again, after its
/// retention forgot the id), or dropped as a duplicate.
fn delivery(message: &Message, attempt: Attempt) -> String {
    let (aggregate, event) = (escape(&message.aggregate), escape(&message.event_type));
    let id = message.id;
    match (attempt.duplicate_dropped, attempt.reapplied) {
        (true, _) => format!("<li class=\"c dup\">#{id} duplicate dropped</li>"),
        (_, true) => format!(
            "<li class=\"c handled\">applied again (retention forgot #{id}): {aggregate} {event}</li>"
        ),
        _ => format!("<li class=\"c handled\">handled {aggregate} {event}</li>"),
    }
}

/// Draws each run as the oracle's loop ([`passes::drive`]) runs it: those
/// of the first [`MAX_DRAWN_PASSES`] passes traced with [`traced_run`]
/// (the batch taken before the run against the attempts the broker saw)
/// and drawn into `columns`, the later busy passes only counted.
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
    fn run(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut ObservedBroker,
        scenario: &Scenario,
        (number, relay): (u64, u64),
    ) -> Run {
        if number > MAX_DRAWN_PASSES {
            return passes::run(table, broker, scenario, relay);
        }
        let (run, events) = traced_run(table, broker, scenario, relay);
        run_column(&mut self.columns, number, &run, &events, self.scenario);
        run
    }

    fn after(&mut self, pass: passes::Pass) -> bool {
        let (number, passes) = (pass.number, self.scenario.passes);
        if number > MAX_DRAWN_PASSES {
            let (_, last, sent) = self.undrawn.get_or_insert((number, number, 0));
            *last = number;
            *sent += pass.runs.iter().map(|run| run.sent.len()).sum::<usize>();
        } else if pass.runs.is_empty() {
            span_column(
                &mut self.columns,
                number,
                number,
                "no relay runs: an outage",
            );
        }
        if number <= MAX_DRAWN_PASSES {
            written_column(&mut self.columns, &pass, passes);
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

/// The sentence above the picture: what the case asks of the relay, and
/// with several relays each order's owner (`fnv1a32 mod relays`), so a
/// case's author need not compute a hash.
fn scenario_line(scenario: &Scenario) -> String {
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
    let relays = scenario.relays.unwrap_or(1);
    let relay = |order: &str| u64::from(Partition::fnv1a32(order)) % relays;
    let owner = |order: &str| format!("{} → relay {}", escape(order), relay(order));
    let mut seen = HashSet::new();
    let orders = scenario.messages.iter().map(|row| row.aggregate.as_str());
    let orders = orders.filter(|order| seen.insert(*order));
    let mut owners: Vec<String> = orders.take(MAX_DRAWN_ROWS + 1).map(owner).collect();
    owners.truncate(MAX_DRAWN_ROWS);
    if seen.len() > MAX_DRAWN_ROWS {
        owners.push("…".into());
    }
    let park = scenario.on_exhausted == Some(outbox_cases::OnExhausted::Park);
    let exhausted = if park { "parked" } else { "released" };
    let options = [
        (scenario.restart_each_pass).then(|| "a new relay before every pass".to_owned()),
        (scenario.fetch == Some(Fetch::Heads)).then(|| "fetch by heads".to_owned()),
        (scenario.max_attempts)
            .map(|n| format!("a dead letter after {n} failed attempts, its order {exhausted}")),
        (scenario.retention).map(|t| format!("an applied id forgotten after {t} passes")),
        (relays > 1).then(|| format!("{relays} relays, owners: {}", owners.join(", "))),
    ];
    let options = options.into_iter().flatten();
    let options: String = options.map(|option| format!(", {option}")).collect();
    format!("<p class=\"scenario\">batch size {batch}, {passes} pass{es}{options}; {script}</p>")
}

/// One run's column: each row's fate at the broker, what the relay
/// reported sent and dead-lettered, and what the consumer did.
fn run_column(out: &mut String, number: u64, run: &Run, events: &[Event], scenario: &Scenario) {
    let restart = scenario.restart_each_pass && number > 1;
    let restart = restart.then_some(" <span class=\"restart\">new relay</span>");
    let relayed = scenario.relays.is_some() || scenario.schedule.is_some();
    let relay = relayed.then(|| format!(" · relay {}", run.relay));
    let _ = write!(
        out,
        "<div class=\"col passcol\"><h4>pass {number}{}{}</h4>",
        relay.unwrap_or_default(),
        restart.unwrap_or_default()
    );
    rows_list(out, events.iter().map(event_row), "nothing to send");
    let _ = write!(out, "<p class=\"sent\">sent {:?}</p>", run.sent);
    for letter in &run.dead {
        let (id, attempts) = (letter.message.id, letter.attempts);
        let what = format!("dead letter #{id} after {attempts} failed attempts");
        let _ = write!(out, "<p class=\"sent dead\">{what}</p>");
    }
    // The consumer's side: every attempt that reached it, handled (again,
    // when its retention had forgotten the id) or dropped as a duplicate.
    let deliveries: Vec<(&Message, Attempt)> = events
        .iter()
        .filter_map(|event| {
            let attempt = event.attempt?;
            let delivered = attempt.failure != Some(outbox::Failure::Down);
            delivered.then_some((&event.message, attempt))
        })
        .collect();
    out.push_str("<div class=\"consumer\"><h5>consumer</h5>");
    let drawn = deliveries
        .iter()
        .map(|&(message, attempt)| delivery(message, attempt));
    rows_list(out, drawn, "nothing delivered");
    out.push_str("</div></div>");
}

/// The column of rows written right after `pass`, if any were, and of the
/// orders unparked after it; after the last of the case's `passes` rows
/// are never sent, and the heading says so.
fn written_column(out: &mut String, pass: &passes::Pass, passes: u64) {
    if pass.written_after.is_empty() && pass.unparked.is_empty() {
        return;
    }
    let heading = match (pass.written_after.is_empty(), pass.number == passes) {
        (true, _) => format!("after pass {}", pass.number),
        (false, true) => "written after the last pass (never sent)".to_string(),
        (false, false) => format!("written after pass {}", pass.number),
    };
    let _ = write!(out, "<div class=\"col written\"><h4>{heading}</h4>");
    rows_list(out, pass.written_after.iter().map(new_row), "");
    for order in &pass.unparked {
        let _ = write!(out, "<p class=\"none\">unparked {}</p>", escape(order));
    }
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
