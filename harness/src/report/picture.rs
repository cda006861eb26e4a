//! A case's picture: the reference runs the scenario with an observed
//! broker, and every event of its trace becomes a box in a column per pass.
//!
//! The picture is drawn from what the reference did, never from the case's
//! `expect`, so it teaches the behaviour every port is checked against.

use std::fmt::Write as _;

use outbox::trace::{Event, Outcome};
use outbox::Message;

use super::html::escape;
use super::{Failure, Scenario};

/// More passes than this are summarised, not drawn, so a long case keeps
/// the page small.
const MAX_DRAWN_PASSES: usize = 12;
/// More rows in one column than this are summarised, not drawn.
const MAX_DRAWN_ROWS: usize = 40;

/// One pass of the reference over the scenario.
#[derive(Debug)]
pub(super) struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// A relay was built for this pass (the first, or every one when the
    /// case restarts the relay).
    pub new_relay: bool,
    /// One event per row of the batch, in batch order.
    pub events: Vec<Event>,
    /// The ids the relay reported sent.
    pub sent: Vec<u64>,
    /// Rows written into the outbox right after this pass.
    pub written_after: Vec<Message>,
}

/// The reference's whole run of a scenario.
#[derive(Debug)]
pub(super) struct Run {
    /// Rows in the outbox before the first pass.
    pub initial: Vec<Message>,
    /// The passes that had something to do, in order.
    pub passes: Vec<Pass>,
    /// Passes after the last one in `passes`, all with nothing to send.
    pub idle_passes: Option<(u64, u64)>,
}

/// The reference's run of `scenario`, traced (the pass loop is the
/// runner protocol's, shared with every other use of the reference).
pub(super) fn simulate(scenario: &Scenario) -> Result<Run, String> {
    let trace = outbox_runner::scenario::trace(scenario)?;
    let passes = trace
        .passes
        .into_iter()
        .map(|pass| Pass {
            number: pass.number,
            new_relay: pass.number == 1 || scenario.restart_each_pass,
            events: pass.events,
            sent: pass.sent,
            written_after: pass.written_after,
        })
        .collect();
    Ok(Run {
        initial: trace.initial,
        passes,
        idle_passes: trace.idle_from.map(|from| (from, scenario.passes)),
    })
}

fn describe(message: &Message) -> String {
    format!(
        "#{} {} {}",
        message.id, message.aggregate, message.event_type
    )
}

fn id_list(ids: &[u64]) -> String {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    format!("[{}]", ids.join(", "))
}

/// Rows of a column, at most [`MAX_DRAWN_ROWS`] of them and a line saying
/// how many more.
fn rows_list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    out.push_str("<ol class=\"rows\">");
    for it in items.iter().take(MAX_DRAWN_ROWS) {
        item(out, it);
    }
    if items.len() > MAX_DRAWN_ROWS {
        let _ = write!(
            out,
            "<li class=\"more\">… and {} more rows</li>",
            items.len() - MAX_DRAWN_ROWS
        );
    }
    out.push_str("</ol>");
}

fn plain_row(out: &mut String, message: &Message) {
    let _ = write!(
        out,
        "<li class=\"ev new\"><span class=\"msg\">{}</span></li>",
        escape(&describe(message))
    );
}

/// The text of an event's box: the row, then what happened to it.
fn event_row(out: &mut String, event: &Event) {
    let (class, what) = match event {
        Event::Attempt {
            attempt, outcome, ..
        } => match outcome {
            Outcome::Published => ("published", format!("attempt {attempt}: published")),
            Outcome::BrokerDown => ("down", format!("attempt {attempt}: broker down")),
            Outcome::AckLost => (
                "acklost",
                format!("attempt {attempt}: ack lost (delivered)"),
            ),
        },
        Event::HeldBack { message } => {
            ("skipped", format!("skipped: {} blocked", message.aggregate))
        }
    };
    let _ = write!(
        out,
        "<li class=\"ev {class}\"><span class=\"msg\">{}</span><span class=\"what\">{}</span>",
        escape(&describe(event.message())),
        escape(&what)
    );
    if let Event::Attempt {
        duplicate_dropped: true,
        ..
    } = event
    {
        out.push_str("<span class=\"dup\">consumer: duplicate dropped</span>");
    }
    out.push_str("</li>");
}

/// The consumer's side of a pass: each delivery handled or dropped.
fn consumer_side(out: &mut String, events: &[Event]) {
    let deliveries: Vec<(&Message, bool)> = events
        .iter()
        .filter_map(|event| match event {
            Event::Attempt {
                message,
                outcome,
                duplicate_dropped,
                ..
            } if outcome.delivered() => Some((message, *duplicate_dropped)),
            _ => None,
        })
        .collect();
    out.push_str("<div class=\"consumer\"><h5>consumer</h5>");
    if deliveries.is_empty() {
        out.push_str("<p class=\"none\">nothing delivered</p></div>");
        return;
    }
    rows_list(out, &deliveries, |out, (message, duplicate)| {
        if *duplicate {
            let _ = write!(
                out,
                "<li class=\"c dup\">#{} duplicate dropped</li>",
                message.id
            );
        } else {
            let _ = write!(
                out,
                "<li class=\"c handled\">handled {} {}</li>",
                escape(&message.aggregate),
                escape(&message.event_type)
            );
        }
    });
    out.push_str("</div>");
}

fn failure_script(scenario: &Scenario) -> String {
    if scenario.failures.is_empty() {
        return "no failures".to_string();
    }
    let parts: Vec<String> = scenario
        .failures
        .iter()
        .map(|(attempt, failure)| {
            let what = match failure {
                Failure::Down => "broker down",
                Failure::LostAck => "ack lost",
            };
            format!("attempt {attempt}: {what}")
        })
        .collect();
    parts.join(", ")
}

/// The picture of `scenario` as an HTML fragment: a line stating the
/// scenario, then the outbox at the start, a column per pass and a column
/// wherever rows are written between passes.
pub(super) fn render(out: &mut String, scenario: &Scenario) {
    let _ = write!(
        out,
        "<p class=\"scenario\">batch size {}, {} pass{}{}; {}</p>",
        scenario.batch_size,
        scenario.passes,
        if scenario.passes == 1 { "" } else { "es" },
        if scenario.restart_each_pass {
            ", a new relay before every pass"
        } else {
            ""
        },
        escape(&failure_script(scenario))
    );
    let run = match simulate(scenario) {
        Ok(run) => run,
        Err(e) => {
            let _ = write!(
                out,
                "<p class=\"error\">The reference refused the scenario: {}</p>",
                escape(&e)
            );
            return;
        }
    };
    out.push_str("<div class=\"picture\">");
    out.push_str("<div class=\"col outbox\"><h4>outbox at start</h4>");
    if run.initial.is_empty() {
        out.push_str("<p class=\"none\">empty</p>");
    } else {
        rows_list(out, &run.initial, plain_row);
    }
    out.push_str("</div>");
    for pass in run.passes.iter().take(MAX_DRAWN_PASSES) {
        let _ = write!(
            out,
            "<div class=\"col passcol\"><h4>pass {}{}</h4>",
            pass.number,
            if pass.new_relay && pass.number > 1 {
                " <span class=\"restart\">new relay</span>"
            } else {
                ""
            }
        );
        if pass.events.is_empty() {
            out.push_str("<p class=\"none\">nothing to send</p>");
        } else {
            rows_list(out, &pass.events, event_row);
        }
        let _ = write!(out, "<p class=\"sent\">sent {}</p>", id_list(&pass.sent));
        consumer_side(out, &pass.events);
        out.push_str("</div>");
        if !pass.written_after.is_empty() {
            let heading = if pass.number == scenario.passes {
                "written after the last pass (never sent)".to_string()
            } else {
                format!("written after pass {}", pass.number)
            };
            let _ = write!(out, "<div class=\"col written\"><h4>{heading}</h4>");
            rows_list(out, &pass.written_after, plain_row);
            out.push_str("</div>");
        }
    }
    if run.passes.len() > MAX_DRAWN_PASSES {
        let rest = &run.passes[MAX_DRAWN_PASSES..];
        let sent: usize = rest.iter().map(|p| p.sent.len()).sum();
        let _ = write!(
            out,
            "<div class=\"col idle\"><h4>passes {}–{}</h4><p class=\"none\">not drawn: {} more rows sent</p></div>",
            rest[0].number,
            rest[rest.len() - 1].number,
            sent
        );
    }
    if let Some((first, last)) = run.idle_passes {
        let span = if first == last {
            format!("pass {first}")
        } else {
            format!("passes {first}–{last}")
        };
        let _ = write!(
            out,
            "<div class=\"col idle\"><h4>{span}</h4><p class=\"none\">outbox empty: nothing to send</p></div>"
        );
    }
    out.push_str("</div>");
}
