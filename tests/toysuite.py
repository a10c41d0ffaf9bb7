"""A tiny deterministic suite for testing the plugin's spine without a real benchmark.

Each context holds a few "The <thing> of <name> is <value>." facts; each item asks for one.
The reader answers with the value found in the retrieved memories, or abstains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memeval.framework.suite import IndexEntry, Suite
from pytest_memeval.results.records import Metric, Record, SuiteSummary
from pytest_memeval.types import Answer, Context, Item, ItemView, Memory, Message, Trace, Verdict

NAMES = ("ada", "ben", "cleo", "dev")
THINGS = ("colour", "city", "pet")
VALUES = {"colour": ("red", "green", "blue"), "city": ("oslo", "lima", "pune"), "pet": ("cat", "dog", "owl")}


def fact_value(name: str, thing: str) -> str:
    options = VALUES[thing]
    return options[(NAMES.index(name) + THINGS.index(thing)) % len(options)]


class ToyReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        thing, name = view.extra["thing"], view.extra["name"]
        for memory in memories:
            found = re.search(rf"The {thing} of {name} is (\w+)\.", memory.text)
            if found:
                return Answer(label=found.group(1))
        return Answer(label=None, abstained=True)


class ToyJudge:
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        return Verdict(correct=answer.label == item.gold)


class ToySuite(Suite):
    name = "toy"
    markers = {"toy_thing": "a toy item", "toy_pet": "asks for a pet"}

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(f"{name}-{thing}", name, ("toy_thing",) + (("toy_pet",) if thing == "pet" else ()))
            for name in NAMES
            for thing in THINGS
        ]

    def context(self, context_id: str) -> Context:
        messages = tuple(Message("user", f"The {t} of {context_id} is {fact_value(context_id, t)}.") for t in THINGS)
        return Context(context_id, (messages,))

    def item(self, item_id: str) -> Item:
        name, thing = item_id.split("-")
        view = ItemView(self.name, thing, f"What is the {thing} of {name}?", extra={"thing": thing, "name": name})
        return Item(item_id, name, name, view, gold=fact_value(name, thing), strata={"thing": thing})

    def reader(self) -> ToyReader:
        return ToyReader()

    def judge(self) -> ToyJudge:
        return ToyJudge()

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        correct = sum(bool(r.correct) for r in records)
        return SuiteSummary(metrics={"accuracy": Metric(correct / len(records), n=len(records))})


class SharedStoreToySuite(ToySuite):
    """The toy suite with memfail's scheduling: every depth reads one store per system."""

    splits_by_k = False
