"""Drives the Python port over the parity harness's protocol: one case per
stdin line in, one result per stdout line out, flushed at once.

Started as ``python3 -S -E runners/python/runner.py``: it needs nothing from
site-packages, and skipping them halves the start-up time.
"""

import json
import sys
from typing import Any

from outbox import Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable

FAILURES = {"down": Failure.DOWN, "lost_ack": Failure.LOST_ACK}


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    table = OutboxTable()
    for m in case["messages"]:
        table.add(Message(m["id"], m["aggregate"], m["type"]))
    failures = {int(attempt): FAILURES[kind] for attempt, kind in case["failures"].items()}
    consumer = IdempotentConsumer()
    broker = FlakyBroker(consumer, failures)
    batch_size = case["batch_size"]
    relay = OutboxRelay(table, broker, batch_size)
    sent = []
    for _ in range(case["passes"]):
        if case.get("restart_each_pass", False):
            relay = OutboxRelay(table, broker, batch_size)
        sent.append(relay.run_once())
    return {"name": case["name"], "sent": sent, "journal": consumer.journal, "duplicates": consumer.duplicates}


def answer(line: str) -> dict[str, Any]:
    name = None
    try:
        case = json.loads(line)
        name = case["name"]
        return run_case(case)
    except Exception as error:  # the protocol's error answer; the runner goes on
        return {"name": name, "error": f"{type(error).__name__}: {error}"}


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(line), separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
