//! A case's picture: the reference runs the scenario with an observed
//! broker, and every event of its trace becomes a box in a column per pass.
//!
//! The picture is drawn from what the reference did, never from the case's
//! `expect`, so it teaches the behaviour every port is checked against.

use std::fmt::Write as _;

use outbox::trace::{traced_pass, Event, ObservedBroker, Outcome};
use outbox::{FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};

use crate::oracle::passes::{self, Hook};

use super::markup::escape;
use super::{Failure, Scenario};

/// More passes than this are summarised, not drawn, so a long case keeps
/// the page small.
const MAX_DRAWN_PASSES: usize = 12;
/// More rows in one column than this are summarised, not drawn.
const MAX_DRAWN_ROWS: usize = 40;

/// One pass of the reference over the scenario, cut to what the picture
/// draws: a long batch keeps only its first [`MAX_DRAWN_ROWS`] rows and
/// the counts of the rest, so the page's memory does not grow with the
/// square of the case (passes times rows).
#[derive(Debug)]
pub(super) struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// A relay was built for this pass (the first, or every one when the
    /// case restarts the relay).
    pub new_relay: bool,
    /// One event per row of the batch, in batch order, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub events: Vec<Event>,
    /// How many rows the batch had.
    pub rows: usize,
    /// The consumer's side: each delivery (the row, and whether it was a
    /// dropped duplicate), the first [`MAX_DRAWN_ROWS`] of them.
    pub deliveries: Vec<(Message, bool)>,
    /// How many deliveries the pass made.
    pub delivered: usize,
    /// The ids the relay reported sent.
    pub sent: Vec<u64>,
    /// Rows written into the outbox right after this pass, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub written_after: Vec<Message>,
    /// How many rows were written right after this pass.
    pub written: usize,
}

/// Passes that did something but are beyond [`MAX_DRAWN_PASSES`]: only
/// their span and what they sent is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Undrawn {
    /// The first such pass.
    pub first: u64,
    /// The last such pass.
    pub last: u64,
    /// The rows they sent, together.
    pub sent: usize,
}

/// The reference's whole run of a scenario, as much as the picture draws.
#[derive(Debug)]
pub(super) struct Run {
    /// Rows in the outbox before the first pass, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub initial: Vec<Message>,
    /// How many rows were in the outbox before the first pass.
    pub initial_rows: usize,
    /// The first passes, at most [`MAX_DRAWN_PASSES`], in order.
    pub passes: Vec<Pass>,
    /// The busy passes after those.
    pub undrawn: Option<Undrawn>,
    /// Passes after the last busy one, all with nothing to send.
    pub idle_passes: Option<(u64, u64)>,
}

#[cfg(test)]
impl Run {
    /// How many rows and events the run keeps, whatever the case's size:
    /// what a test bounds, so the page's memory cannot grow unseen.
    pub fn kept(&self) -> usize {
        self.initial.len()
            + self
                .passes
                .iter()
                .map(|p| p.events.len() + p.deliveries.len() + p.written_after.len())
                .sum::<usize>()
    }
}

/// The first [`MAX_DRAWN_ROWS`] of `items`, and how many there were.
fn cut<T>(mut items: Vec<T>) -> (Vec<T>, usize) {
    let all = items.len();
    items.truncate(MAX_DRAWN_ROWS);
    items.shrink_to_fit();
    (items, all)
}

/// Draws what the oracle's pass loop ([`crate::oracle::passes`]) does:
/// each of the first [`MAX_DRAWN_PASSES`] passes is traced with
/// [`outbox::trace::traced_pass`] (the batch taken before the pass against
/// the attempts the broker saw), the later busy ones only counted.
struct Tracer {
    run: Run,
    restart_each_pass: bool,
    total_passes: u64,
    /// The events of the pass being drawn, until its end is reported.
    events: Option<Vec<Event>>,
}

impl Hook<Observed> for Tracer {
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut Observed,
        batch_size: usize,
        _number: u64,
    ) -> Vec<u64> {
        if self.run.passes.len() < MAX_DRAWN_PASSES {
            let (sent, events) = traced_pass(table, broker, batch_size);
            self.events = Some(events);
            return sent;
        }
        let sent = OutboxRelay::new(table, broker, batch_size).run_once();
        broker.observer_mut().clear();
        sent
    }

    fn after(&mut self, pass: passes::Pass) -> bool {
        let (number, idle) = (pass.number, pass.idle);
        match self.events.take() {
            Some(events) => self.drawn(pass, events),
            None => {
                let undrawn = self.run.undrawn.get_or_insert(Undrawn {
                    first: number,
                    last: number,
                    sent: 0,
                });
                undrawn.last = number;
                undrawn.sent += pass.sent.len();
            }
        }
        if idle && number < self.total_passes {
            self.run.idle_passes = Some((number + 1, self.total_passes));
        }
        !idle
    }
}

impl Tracer {
    /// Keeps a drawn pass, cut to what the picture shows.
    fn drawn(&mut self, pass: passes::Pass, events: Vec<Event>) {
        let deliveries: Vec<(Message, bool)> = events
            .iter()
            .filter_map(|event| match event {
                Event::Attempt {
                    message,
                    outcome,
                    duplicate_dropped,
                    ..
                } if outcome.delivered() => Some((message.clone(), *duplicate_dropped)),
                _ => None,
            })
            .collect();
        let (events, rows) = cut(events);
        let (deliveries, delivered) = cut(deliveries);
        let (written_after, written) = cut(pass.written_after);
        self.run.passes.push(Pass {
            number: pass.number,
            new_relay: pass.number == 1 || self.restart_each_pass,
            events,
            rows,
            deliveries,
            delivered,
            sent: pass.sent,
            written_after,
            written,
        });
    }
}

/// The broker a picture watches.
type Observed = ObservedBroker<Vec<Event>>;

/// The reference's run of `scenario`, as much as the picture draws; a test
/// keeps it sending what every case of the table expects.
pub(super) fn simulate(scenario: &Scenario) -> Result<Run, String> {
    let flaky = FlakyBroker::new(IdempotentConsumer::new(), passes::failures(scenario));
    let mut broker = ObservedBroker::new(flaky, Vec::new());
    let mut tracer = Tracer {
        run: Run {
            initial: Vec::new(),
            initial_rows: 0,
            passes: Vec::new(),
            undrawn: None,
            idle_passes: None,
        },
        restart_each_pass: scenario.restart_each_pass,
        total_passes: scenario.passes,
        events: None,
    };
    let initial = passes::drive(scenario, &mut broker, &mut tracer)?;
    let mut run = tracer.run;
    (run.initial, run.initial_rows) = cut(initial);
    Ok(run)
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

/// Rows of a column, the kept `items` of `all`, and a line saying how many
/// more there were.
fn rows_list<T>(out: &mut String, items: &[T], all: usize, mut item: impl FnMut(&mut String, &T)) {
    out.push_str("<ol class=\"rows\">");
    for it in items {
        item(out, it);
    }
    if all > items.len() {
        let _ = write!(
            out,
            "<li class=\"more\">… and {} more rows</li>",
            all - items.len()
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
fn consumer_side(out: &mut String, pass: &Pass) {
    out.push_str("<div class=\"consumer\"><h5>consumer</h5>");
    if pass.delivered == 0 {
        out.push_str("<p class=\"none\">nothing delivered</p></div>");
        return;
    }
    rows_list(
        out,
        &pass.deliveries,
        pass.delivered,
        |out, (message, duplicate)| {
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
        },
    );
    out.push_str("</div>");
}

fn span(first: u64, last: u64) -> String {
    if first == last {
        format!("pass {first}")
    } else {
        format!("passes {first}–{last}")
    }
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
pub(super) fn render(out: &mut String, name: &str, scenario: &Scenario) {
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
    // A wide picture scrolls sideways: focusable and named, so a keyboard
    // can scroll it and a screen reader says what it is.
    let _ = write!(
        out,
        "<div class=\"picture\" tabindex=\"0\" role=\"group\" aria-label=\"the reference's run of {}\">",
        escape(name)
    );
    out.push_str("<div class=\"col outbox\"><h4>outbox at start</h4>");
    if run.initial.is_empty() {
        out.push_str("<p class=\"none\">empty</p>");
    } else {
        rows_list(out, &run.initial, run.initial_rows, plain_row);
    }
    out.push_str("</div>");
    for pass in &run.passes {
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
            rows_list(out, &pass.events, pass.rows, event_row);
        }
        let _ = write!(out, "<p class=\"sent\">sent {}</p>", id_list(&pass.sent));
        consumer_side(out, pass);
        out.push_str("</div>");
        if pass.written > 0 {
            let heading = if pass.number == scenario.passes {
                "written after the last pass (never sent)".to_string()
            } else {
                format!("written after pass {}", pass.number)
            };
            let _ = write!(out, "<div class=\"col written\"><h4>{heading}</h4>");
            rows_list(out, &pass.written_after, pass.written, plain_row);
            out.push_str("</div>");
        }
    }
    if let Some(undrawn) = run.undrawn {
        let _ = write!(
            out,
            "<div class=\"col idle\"><h4>{}</h4><p class=\"none\">not drawn: {} more rows sent</p></div>",
            span(undrawn.first, undrawn.last),
            undrawn.sent
        );
    }
    if let Some((first, last)) = run.idle_passes {
        let span = span(first, last);
        let _ = write!(
            out,
            "<div class=\"col idle\"><h4>{span}</h4><p class=\"none\">outbox empty: nothing to send</p></div>"
        );
    }
    out.push_str("</div>");
}
