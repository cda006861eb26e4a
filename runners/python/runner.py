"""Drives the Python port over the parity harness's protocol, version 1: one
request per stdin line in, one answer per stdout line out, flushed at once.

Started as ``python3 -S -E runners/python/runner.py``: it needs nothing from
site-packages, and skipping them halves the start-up time.
"""

import json
import sys
from typing import Any

from outbox import (
    AttemptCap,
    DeadLetter,
    Failure,
    Fetch,
    FlakyBroker,
    IdempotentConsumer,
    Message,
    OnExhausted,
    OutboxRelay,
    OutboxTable,
    Partition,
)

FAILURES = {"down": Failure.DOWN, "lost_ack": Failure.LOST_ACK}
FETCHES = {"rows": Fetch.ROWS, "heads": Fetch.HEADS}
ON_EXHAUSTED = {"release": OnExhausted.RELEASE, "park": OnExhausted.PARK}


class Refused(Exception):
    """A request this runner does not take; its text is the whole error answer."""


def describe(value: object) -> str:
    return "missing" if value is None else json.dumps(value)


def attempt_cap(case: dict[str, Any]) -> AttemptCap | None:
    if "max_attempts" not in case:
        return None
    return AttemptCap(case["max_attempts"], ON_EXHAUSTED[case.get("on_exhausted", "release")])


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Plays a case as SPEC's runner protocol says: the rows written before
    the first pass, then each pass (the consumer's tick, the runs its
    schedule lists, the rows written after it, the unparks after it),
    through the parts' ordinary members. The answer has one list of sent ids
    per run, and one of dead-lettered ids per run exactly when the case has
    ``max_attempts``."""
    failures = {}
    for attempt, kind in case["failures"].items():
        if not isinstance(kind, str) or kind not in FAILURES:
            raise Refused(f"unknown failure kind: {describe(kind)} (attempt {attempt})")
        failures[int(attempt)] = FAILURES[kind]
    written_after: dict[int, list[Message]] = {}
    for m in case["messages"]:
        written_after.setdefault(m.get("written_after_pass", 0), []).append(
            Message(m["id"], m["aggregate"], m["type"])
        )
    unparked_after: dict[int, list[str]] = {}
    for unpark in case.get("unpark", []):
        unparked_after.setdefault(unpark["after_pass"], []).append(unpark["aggregate"])
    table = OutboxTable()
    for message in written_after.get(0, []):
        table.add(message)
    consumer = IdempotentConsumer(retention=case.get("retention"))
    broker = FlakyBroker(consumer, failures)
    batch_size, relays = case["batch_size"], case.get("relays", 1)
    schedule = case.get("schedule")
    fetch, cap = FETCHES[case.get("fetch", "rows")], attempt_cap(case)
    dead: list[int] = []  # the ids the current run dead-letters

    def alert(letter: DeadLetter) -> None:
        dead.append(letter.message.id)

    # Built when first scheduled, and anew each pass with restart_each_pass.
    relay: dict[int, OutboxRelay] = {}
    sent, dead_letters = [], []
    for pass_ in range(1, case["passes"] + 1):
        if case.get("restart_each_pass", False):
            relay = {}
        consumer.tick()
        for index in schedule[pass_ - 1] if schedule is not None else range(relays):
            if index not in relay:
                partition = Partition(index, relays)
                relay[index] = OutboxRelay(
                    table,
                    broker,
                    batch_size,
                    partition=partition,
                    fetch=fetch,
                    cap=cap,
                    alert=alert,
                )
            dead = []
            sent.append(relay[index].run_once())
            dead_letters.append(dead)
        for message in written_after.get(pass_, []):
            table.add(message)
        for aggregate in unparked_after.get(pass_, []):
            table.unpark(aggregate)
    answer = {
        "name": case["name"],
        "sent": sent,
        "journal": consumer.journal,
        "duplicates": consumer.duplicates,
    }
    if "max_attempts" in case:
        answer["dead_letters"] = dead_letters
    return answer


def run(request: object) -> dict[str, Any]:
    fields = request if isinstance(request, dict) else {}
    kind = fields.get("kind")
    if kind != "case":
        raise Refused(f'unknown request kind: {describe(kind)} (want "case")')
    version = fields.get("version")
    # 1.0 and True are equal to 1 in Python; the protocol's version is the integer.
    if type(version) is not int or version != 1:
        raise Refused(f"unsupported protocol version: {describe(version)} (want 1)")
    return run_case(fields)


def answer(line: str) -> dict[str, Any]:
    request = None
    try:
        request = json.loads(line)
        return run(request)
    except Exception as error:  # the protocol's error answer; the runner goes on
        name = request.get("name") if isinstance(request, dict) else None
        text = str(error) if isinstance(error, Refused) else f"{type(error).__name__}: {error}"
        return {"name": name if isinstance(name, str) else None, "error": text}


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(line), separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
