"""A wider toy suite and adapters for the campaign tests (resume, shards, merge, fingerprints).

`WideToySuite` has 10 contexts of 3 items and a cluster-bootstrap interval on its accuracy,
so that "equal to the last digit" compares numbers that depend on every record.
`PromptedToySuite` declares a prompt template named by $TOY_PROMPT (a fingerprint test
edits it). `KillSwitchMemory` is the `context` store that, once, when the journal beside
the report holds enough records, kills a process: the controller (SIGKILL or SIGINT) or
its own worker (SIGKILL), as $MEMEVAL_TEST_KILL says; it logs each namespace it fills to
$MEMEVAL_TEST_FILLS.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toysuite import THINGS, ToyJudge, ToyReader, ToySuite, fact_value

from pytest_memeval.framework.suite import IndexEntry
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.results.records import Metric, Record, SuiteSummary
from pytest_memeval.stats import bootstrap_mean
from pytest_memeval.types import Context, Item, ItemView, Memory, Message

NAMES = tuple(f"p{i}" for i in range(10))


class WideToySuite(ToySuite):
    name = "widetoy"

    def index(self) -> list[IndexEntry]:
        return [IndexEntry(f"{name}-{thing}", name, ("toy_thing",)) for name in NAMES for thing in THINGS]

    def context(self, context_id: str) -> Context:
        index = NAMES.index(context_id) % 4
        # the last fact of every third context is left out: some answers are wrong
        kept = THINGS if index % 3 else THINGS[:-1]
        return Context(context_id, (tuple(Message("user", _fact(context_id, t, index)) for t in kept),))

    def item(self, item_id: str) -> Item:
        name, thing = item_id.split("-")
        view = ItemView(self.name, thing, f"What is the {thing} of {name}?", extra={"thing": thing, "name": name})
        gold = fact_value(("ada", "ben", "cleo", "dev")[NAMES.index(name) % 4], thing)
        return Item(item_id, name, name, view, gold=gold, strata={"thing": thing})

    def reader(self) -> ToyReader:
        return ToyReader()

    def judge(self) -> ToyJudge:
        return ToyJudge()

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        correct = [float(bool(r.correct)) for r in records]
        result = bootstrap_mean(correct, [r.cluster for r in records], n_resamples=self.options.bootstrap)
        return SuiteSummary(
            metrics={"accuracy": Metric(result.estimate, (result.ci_low, result.ci_high), len(records))}
        )


def _fact(name: str, thing: str, index: int) -> str:
    return f"The {thing} of {name} is {fact_value(('ada', 'ben', 'cleo', 'dev')[index], thing)}."


class PromptedToySuite(ToySuite):
    """The toy suite whose LLM path (in this test's fiction) uses the template at $TOY_PROMPT."""

    name = "prompted"

    def prompt_files(self) -> Sequence[Path]:
        return [Path(os.environ["TOY_PROMPT"])]


class KillSwitchMemory(ContextMemory):
    """`context`, plus one kill: $MEMEVAL_TEST_KILL = "WHO:RECORDS:JOURNAL:MARKER", WHO one of
    controller-kill, controller-int, worker-kill; it fires on a retrieval once the journal
    holds RECORDS records, and only once (MARKER is created first)."""

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Any) -> KillSwitchMemory:
        return cls(**config)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        log = os.environ.get("MEMEVAL_TEST_FILLS")
        if log:
            with open(log, "a") as out:
                out.write(f"{namespace}\n")
        super().ingest(namespace, session)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        spec = os.environ.get("MEMEVAL_TEST_KILL")
        if spec:
            _maybe_kill(*spec.split(":"))
        return super().retrieve(namespace, query, k)


def _maybe_kill(who: str, records: str, journal: str, marker: str) -> None:
    if Path(marker).exists() or _journaled(Path(journal)) < int(records):
        return
    try:
        Path(marker).touch(exist_ok=False)
    except FileExistsError:  # the other worker fired first
        return
    with open(Path(marker).with_suffix(".pids"), "a") as out:  # the test stops what is left
        out.write(f"{os.getpid()}\n")
    target = os.getppid() if who.startswith("controller") else os.getpid()
    os.kill(target, signal.SIGINT if who == "controller-int" else signal.SIGKILL)
    time.sleep(5)  # a killed controller takes its workers down; this one waits for it


def _journaled(path: Path) -> int:
    try:
        return path.read_bytes().count(b'{"record"')
    except OSError:
        return 0
