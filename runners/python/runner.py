"""Drives the Python port over the parity harness's protocol, version 1: one
request per stdin line in, one answer per stdout line out, flushed at once.

Started as ``python3 -S -E runners/python/runner.py``: it needs nothing from
site-packages, and skipping them halves the start-up time.
"""

import json
import sys
from typing import Any

from outbox import Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable

FAILURES = {"down": Failure.DOWN, "lost_ack": Failure.LOST_ACK}


class Refused(Exception):
    """A request this runner does not take; its text is the whole error answer."""


def describe(value: object) -> str:
    return "missing" if value is None else json.dumps(value)


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Adds the rows written before the first pass, then after each pass k
    the rows written after it, through the table's ordinary ``add``."""
    failures = {}
    for attempt, kind in case["failures"].items():
        if not isinstance(kind, str) or kind not in FAILURES:
            raise Refused(f"unknown failure kind: {describe(kind)} (attempt {attempt})")
        failures[int(attempt)] = FAILURES[kind]
    written_after: dict[int, list[Message]] = {}
    for m in case["messages"]:
        written_after.setdefault(m.get("written_after_pass", 0), []).append(Message(m["id"], m["aggregate"], m["type"]))
    table = OutboxTable()
    for message in written_after.get(0, []):
        table.add(message)
    consumer = IdempotentConsumer()
    broker = FlakyBroker(consumer, failures)
    batch_size = case["batch_size"]
    relay = OutboxRelay(table, broker, batch_size)
    sent = []
    for pass_ in range(1, case["passes"] + 1):
        if case.get("restart_each_pass", False):
            relay = OutboxRelay(table, broker, batch_size)
        sent.append(relay.run_once())
        for message in written_after.get(pass_, []):
            table.add(message)
    return {"name": case["name"], "sent": sent, "journal": consumer.journal, "duplicates": consumer.duplicates}


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
