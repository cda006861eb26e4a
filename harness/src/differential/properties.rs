//! What every correct relay does, stated from SPEC.md without the
//! reference's code, so a bug in the reference is caught too. Checked on
//! every language's answer to every generated scenario (and on the
//! reference's own outcome).

use std::collections::{HashMap, HashSet};

use outbox_cases::{Fetch, OnExhausted, Row};

use crate::table::{Failure, Outcome, Scenario};

/// `Err` names the first property the outcome breaks.
///
/// The journal is read back to message ids through `"<aggregate> <type>"`,
/// so the scenarios this runs on give every message a distinct entry.
pub fn check(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let runs = check_runs(case, outcome)?;
    check_journal(case, outcome, &runs)?;
    check_duplicates(case, outcome)?;
    if case.failures.is_empty() && case.schedule.is_none() {
        check_oldest_first(case, outcome)?;
    }
    Ok(())
}

/// Where each row ended, by its position: the pass of the run that sent
/// it, or that dead-lettered it (then `true`).
type Ends = HashMap<usize, (u64, bool)>;

/// The owner of an order among `relays`: FNV-1a over its UTF-8 bytes, the
/// unsigned remainder (SPEC.md, "Partition").
fn owner(order: &str, relays: u64) -> u64 {
    let hash = (order.bytes()).fold(2_166_136_261u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(16_777_619)
    });
    u64::from(hash) % relays
}

/// The runs, in order: one list of `sent` per run (and of `dead_letters`,
/// exactly with an attempt cap), each within the batch size (under heads,
/// one row per order), each id of the table sent or dead-lettered once,
/// after it was written, by its order's owner, never before an earlier
/// row of its order is sent or dead-lettered (so nothing after a dead
/// letter in its run), never while its order is parked.
fn check_runs(case: &Scenario, outcome: &Outcome) -> Result<Ends, String> {
    let index: HashMap<u64, usize> = (case.messages.iter().enumerate())
        .map(|(i, m)| (m.id, i))
        .collect();
    let runs =
        (1..=case.passes).flat_map(|pass| case.relays_in(pass).into_iter().map(move |r| (pass, r)));
    let runs: Vec<(u64, u64)> = runs.collect();
    let (no_letters, dead) = (vec![Vec::new(); runs.len()], outcome.dead_letters.as_ref());
    let counts = (outcome.sent.len(), dead.map(Vec::len));
    if counts != (runs.len(), case.max_attempts.map(|_| runs.len())) {
        let runs = runs.len();
        return Err(format!(
            "sent and dead_letters have {counts:?} lists for {runs} runs, dead_letters \
             exactly with max_attempts"
        ));
    }
    let lists = outcome.sent.iter().zip(dead.unwrap_or(&no_letters));
    let (relays, heads) = (case.relays.unwrap_or(1), case.fetch == Some(Fetch::Heads));
    let (mut ends, mut parked, mut unparked) = (Ends::new(), HashMap::new(), 0);
    for (run, ((pass, relay), (sent, dead))) in (1..).zip(runs.into_iter().zip(lists)) {
        // The unparks after the pass before this one, once it is over.
        for unpark in case
            .unpark
            .iter()
            .flatten()
            .filter(|u| (unparked..pass).contains(&u.after_pass))
        {
            parked.remove(unpark.aggregate.as_str());
        }
        unparked = pass;
        if sent.len() as u64 > case.batch_size {
            let sent = sent.len();
            return Err(format!(
                "run {run} sent {sent} messages, more than the batch size"
            ));
        }
        let mut orders = HashSet::new();
        let ids = sent.iter().map(|id| (id, "sent"));
        for (&id, what) in ids.chain(dead.iter().map(|id| (id, "dead-lettered"))) {
            let i = *(index.get(&id))
                .ok_or_else(|| format!("run {run} {what} id {id}, which is not in the table"))?;
            let (row, done) = (&case.messages[i], |j: &usize| ends.contains_key(j));
            let order = row.aggregate.as_str();
            let problem = if done(&i) {
                format!("id {id} was sent or dead-lettered twice (again {what} in run {run})")
            } else if pass <= row.written_after_pass {
                let after = row.written_after_pass;
                format!("run {run} {what} id {id}, which is only written after pass {after}")
            } else if owner(order, relays) != relay {
                let owner = owner(order, relays);
                format!("relay {relay} {what} id {id} of {order}, whose owner is relay {owner}")
            } else if heads && !orders.insert(order) {
                format!("run {run} fetched two rows of {order} (id {id} the second) under heads")
            } else if let Some(at) = parked.get(order) {
                format!("run {run} {what} id {id} of {order}, parked since pass {at}")
            } else if let Some(j) =
                (0..i).find(|j| case.messages[*j].aggregate == order && !done(j))
            {
                format!(
                    "run {run} {what} id {id} while the earlier id {} of {order} was unsent (or \
                     dead-lettered in that run): an event overtook an earlier one of its aggregate",
                    case.messages[j].id
                )
            } else {
                ends.insert(i, (pass, what != "sent"));
                continue;
            };
            return Err(problem);
        }
        if case.on_exhausted == Some(OnExhausted::Park) {
            for id in dead {
                parked.insert(case.messages[index[id]].aggregate.as_str(), pass);
            }
        }
    }
    Ok(ends)
}

/// The journal: each entry a message of the table, in insertion order
/// within its aggregate (an id applied again repeats in place), every sent
/// message in it; an entry more than once only under a retention T, whose
/// n applications of a row written after pass w, each T or more passes
/// after the one before, fit before its last delivery (its send, its dead
/// letter, or the last pass): w + 1 + (n - 1)T <= that pass.
fn check_journal(case: &Scenario, outcome: &Outcome, ends: &Ends) -> Result<(), String> {
    let row_of: HashMap<String, usize> = (case.messages.iter().enumerate())
        .map(|(i, m)| (format!("{} {}", m.aggregate, m.event_type), i))
        .collect();
    // Row by row, in journal order: `journalled[k]` is the row of entry k.
    let mut journalled: Vec<usize> = Vec::new();
    for entry in &outcome.journal {
        let Some(&i) = row_of.get(entry) else {
            return Err(format!(
                "the journal holds {entry:?}, which is no message of the table"
            ));
        };
        let aggregate = &case.messages[i].aggregate;
        if let Some(later) =
            (journalled.iter()).position(|&j| j > i && case.messages[j].aggregate == *aggregate)
        {
            return Err(format!(
                "the journal holds {:?} before {entry:?}: out of insertion order within the aggregate",
                outcome.journal[later]
            ));
        }
        journalled.push(i);
        let times = journalled.iter().filter(|&&j| j == i).count() as u64;
        let written = case.messages[i].written_after_pass;
        let last = ends.get(&i).map_or(case.passes, |&(pass, _)| pass);
        let fits = |t: u64| written + 1 + (times - 1).saturating_mul(t) <= last;
        if times > 1 && !case.retention.is_some_and(fits) {
            return Err(format!(
                "the journal holds {entry:?} {times} times: the consumer did the work again, with a \
                 retention of {:?} passes and its last delivery in pass {last}",
                case.retention
            ));
        }
    }
    let unjournalled = |(i, (_, dead)): &(&usize, &(u64, bool))| !dead && !journalled.contains(i);
    if let Some((&missing, _)) = ends.iter().find(unjournalled) {
        return Err(format!(
            "id {} was sent but is not in the journal",
            case.messages[missing].id
        ));
    }
    Ok(())
}

/// Only a lost ack makes a redelivery, so there are no more duplicates,
/// and entries journalled again, than scripted lost acks.
fn check_duplicates(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let lost_acks = case
        .failures
        .values()
        .filter(|&&f| f == Failure::LostAck)
        .count() as u64;
    let distinct: HashSet<&String> = outcome.journal.iter().collect();
    let again = (outcome.journal.len() - distinct.len()) as u64;
    if outcome.duplicates + again > lost_acks {
        return Err(format!(
            "{} duplicates and {again} entries journalled again, more than the {lost_acks} \
             scripted lost acks",
            outcome.duplicates
        ));
    }
    Ok(())
}

/// With nothing failing and the default schedule, every pass sends the
/// oldest rows written so far (under heads, the oldest row of each
/// order), a batch at a time, in id order; with several relays and a
/// batch of at least every row, the pass's runs together send what one
/// relay would, as a set.
fn check_oldest_first(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let relays = case.relays.unwrap_or(1);
    if relays > 1 && case.batch_size < case.messages.len() as u64 {
        return Ok(());
    }
    let batch = usize::try_from(case.batch_size).unwrap_or(usize::MAX);
    let mut waiting: Vec<&Row> = Vec::new();
    let mut rows = case.messages.iter().peekable();
    let per_pass = usize::try_from(relays).unwrap_or(1);
    for (pass, runs) in (0..).zip(outcome.sent.chunks(per_pass)) {
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            waiting.push(row);
        }
        let mut orders = HashSet::new();
        let heads = case.fetch == Some(Fetch::Heads);
        let fetched = waiting
            .iter()
            .filter(|row| !heads || orders.insert(&row.aggregate));
        let oldest: Vec<u64> = fetched.take(batch).map(|row| row.id).collect();
        let mut sent = runs.concat();
        if per_pass > 1 {
            sent.sort_unstable();
        }
        if sent != oldest {
            return Err(format!(
                "with no failures, each pass must send the oldest rows written so far, {batch} \
                 per pass: pass {} sent {sent:?}, not {oldest:?}",
                pass + 1
            ));
        }
        waiting.retain(|row| !oldest.contains(&row.id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::table::{Outcome, Scenario};

    /// One outcome of `properties.json` and what [`check`] says of it.
    #[derive(serde::Deserialize)]
    struct Checked {
        #[serde(default)]
        changes: serde_json::Map<String, serde_json::Value>,
        outcome: Outcome,
        breaks: Option<String>,
    }

    /// Each outcome of `properties.json` (plain data, as
    /// JSON-Schema-Test-Suite's) on its scenario: the property it breaks
    /// first, named, or none.
    #[test]
    fn each_property_names_what_breaks_it() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("properties.json")).unwrap();
        let checked: Vec<Checked> = serde_json::from_value(table["outcomes"].clone()).unwrap();
        for row in checked {
            let mut scenario = table["scenario"].clone();
            scenario.as_object_mut().unwrap().extend(row.changes);
            let scenario: Scenario = serde_json::from_value(scenario).unwrap();
            let (outcome, breaks) = (row.outcome, row.breaks);
            let result = check(&scenario, &outcome);
            let named = match &breaks {
                Some(breaks) => result.as_ref().is_err_and(|e| e.contains(breaks)),
                None => result.is_ok(),
            };
            assert!(named, "{outcome:?}: expected {breaks:?}, got {result:?}");
        }
    }
}
