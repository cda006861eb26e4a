//! What every correct relay does, stated without the reference's code, so a
//! bug in the reference is caught too. Checked on every language's answer to
//! every generated scenario (and on the reference's own outcome).

use std::collections::{HashMap, HashSet, VecDeque};

use crate::table::{Failure, Outcome, Scenario};

/// `Err` names the first property the outcome breaks.
///
/// The journal is read back to message ids through `"<aggregate> <type>"`,
/// so the scenarios this runs on give every message a distinct entry.
pub fn check(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let sent = check_sent(case, outcome)?;
    check_journal(case, outcome, &sent)?;
    check_duplicates(case, outcome)?;
    if case.failures.is_empty() {
        check_oldest_first(case, outcome)?;
    }
    Ok(())
}

/// The sent lists, pass by pass: one per pass, within the batch size, each
/// id of the table sent once, after it was written, never before an earlier
/// unsent id of its aggregate. `Ok` holds the positions of the sent rows.
fn check_sent(case: &Scenario, outcome: &Outcome) -> Result<HashSet<usize>, String> {
    let index: HashMap<u64, usize> = case
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id, i))
        .collect();
    if outcome.sent.len() as u64 != case.passes {
        return Err(format!(
            "sent has {} lists for {} passes",
            outcome.sent.len(),
            case.passes
        ));
    }
    let mut sent: HashSet<usize> = HashSet::new();
    for (pass, ids) in outcome.sent.iter().enumerate() {
        let pass = pass + 1;
        if ids.len() as u64 > case.batch_size {
            return Err(format!(
                "pass {pass} sent {} messages, more than the batch size",
                ids.len()
            ));
        }
        for &id in ids {
            let Some(&i) = index.get(&id) else {
                return Err(format!(
                    "pass {pass} sent id {id}, which is not in the table"
                ));
            };
            if !sent.insert(i) {
                return Err(format!("id {id} was sent twice (again in pass {pass})"));
            }
            // Written by then, and sent after every earlier row of its aggregate.
            let row = &case.messages[i];
            if pass as u64 <= row.written_after_pass {
                return Err(format!(
                    "pass {pass} sent id {id}, which is only written after pass {}",
                    row.written_after_pass
                ));
            }
            let unsent =
                |j: &usize| case.messages[*j].aggregate == row.aggregate && !sent.contains(j);
            if let Some(earlier) = (0..i).find(unsent) {
                return Err(format!(
                    "pass {pass} sent id {id} while the earlier id {} of {} was unsent: \
                     an event overtook an earlier one of its aggregate",
                    case.messages[earlier].id, row.aggregate
                ));
            }
        }
    }
    Ok(sent)
}

/// The journal: each entry a message of the table, done once, in insertion
/// order within its aggregate, and every sent message in it.
fn check_journal(case: &Scenario, outcome: &Outcome, sent: &HashSet<usize>) -> Result<(), String> {
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
        if journalled.contains(&i) {
            return Err(format!(
                "the journal holds {entry:?} twice: the consumer did the work twice"
            ));
        }
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
    }
    if let Some(&missing) = sent.iter().find(|i| !journalled.contains(i)) {
        return Err(format!(
            "id {} was sent but is not in the journal",
            case.messages[missing].id
        ));
    }
    Ok(())
}

/// Only a lost ack may make a duplicate, so there are no more duplicates
/// than scripted lost acks.
fn check_duplicates(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let lost_acks = case
        .failures
        .values()
        .filter(|&&f| f == Failure::LostAck)
        .count() as u64;
    if outcome.duplicates > lost_acks {
        return Err(format!(
            "{} duplicates, more than the {lost_acks} scripted lost acks",
            outcome.duplicates
        ));
    }
    Ok(())
}

/// With nothing failing, every pass sends the oldest rows written so far,
/// a batch at a time, in id order.
fn check_oldest_first(case: &Scenario, outcome: &Outcome) -> Result<(), String> {
    let batch = usize::try_from(case.batch_size).unwrap_or(usize::MAX);
    let mut waiting: VecDeque<u64> = VecDeque::new();
    let mut rows = case.messages.iter().peekable();
    for (pass, sent) in (0..).zip(&outcome.sent) {
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            waiting.push_back(row.id);
        }
        let take = batch.min(waiting.len());
        let oldest: Vec<u64> = waiting.drain(..take).collect();
        if *sent != oldest {
            return Err(format!(
                "with no failures, each pass must send the oldest rows written so far, {batch} \
                 per pass: pass {} sent {sent:?}, not {oldest:?}",
                pass + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::report::fixture::message;
    use crate::table::{Outcome, Scenario};

    /// Two rows of order-1 written before the first pass, one of order-2
    /// after it; nothing fails.
    fn scenario() -> Scenario {
        Scenario {
            batch_size: 2,
            messages: vec![
                message(1, "order-1", "OrderPlaced", 0),
                message(2, "order-1", "OrderPaid", 0),
                message(3, "order-2", "OrderPlaced", 1),
            ],
            passes: 2,
            ..Scenario::default()
        }
    }

    fn outcome(sent: &[&[u64]], journal: &[&str], duplicates: u64) -> Outcome {
        Outcome {
            sent: sent.iter().map(|ids| ids.to_vec()).collect(),
            journal: journal.iter().map(|e| (*e).to_owned()).collect(),
            duplicates,
            ..Outcome::default()
        }
    }

    const ALL: [&str; 3] = [
        "order-1 OrderPlaced",
        "order-1 OrderPaid",
        "order-2 OrderPlaced",
    ];

    #[test]
    fn a_right_outcome_breaks_nothing() {
        assert_eq!(
            check(&scenario(), &outcome(&[&[1, 2], &[3]], &ALL, 0)),
            Ok(())
        );
    }

    /// Each wrong outcome is named by the property it breaks first.
    #[test]
    fn each_property_names_what_breaks_it() {
        let wrong: [(Outcome, &str); 12] = [
            (
                outcome(&[&[1, 2]], &ALL[..2], 0),
                "sent has 1 lists for 2 passes",
            ),
            (
                outcome(&[&[1, 2], &[3, 9]], &ALL, 0),
                "pass 2 sent id 9, which is not in the table",
            ),
            (
                outcome(&[&[1, 2], &[2, 3]], &ALL, 0),
                "id 2 was sent twice (again in pass 2)",
            ),
            (
                outcome(&[&[1, 2, 3], &[]], &ALL, 0),
                "more than the batch size",
            ),
            (
                outcome(&[&[1, 3], &[2]], &ALL, 0),
                "only written after pass 1",
            ),
            (
                outcome(&[&[2, 1], &[3]], &ALL, 0),
                "an event overtook an earlier one",
            ),
            (
                outcome(&[&[1, 2], &[3]], &["order-3 OrderPlaced"], 0),
                "no message of the table",
            ),
            (
                outcome(&[&[1, 2], &[3]], &[ALL[0], ALL[0]], 0),
                "the consumer did the work twice",
            ),
            (
                outcome(&[&[1, 2], &[3]], &[ALL[1], ALL[0]], 0),
                "out of insertion order",
            ),
            (
                outcome(&[&[1, 2], &[3]], &ALL[..2], 0),
                "id 3 was sent but is not in the journal",
            ),
            (
                outcome(&[&[1, 2], &[3]], &ALL, 1),
                "1 duplicates, more than the 0 scripted lost acks",
            ),
            // With no failures, each pass sends the oldest rows first.
            (
                outcome(&[&[1], &[2, 3]], &ALL, 0),
                "oldest rows written so far",
            ),
        ];
        for (outcome, message) in wrong {
            let result = check(&scenario(), &outcome);
            assert!(
                result.as_ref().is_err_and(|e| e.contains(message)),
                "{outcome:?}: expected an error naming {message:?}, got {result:?}"
            );
        }
    }
}
