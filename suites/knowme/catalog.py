"""Which lives (or released datasets) and which of their questions a run uses.

Sizes: smoke takes 3 lives (one per style) and the first 3 questions of each task per
life; small 6 lives and 8 per task; full 12 lives and every question (1,489 for the default seed).
Released data: the first 5 (smoke), 20 (small) or all questions per task per dataset,
of every dataset<N>/ found or of those named by `--memeval-suite-option knowme.datasets=1,3`.
A life is built on demand and kept in a small in-process cache; nothing is written to disk.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

from .life import Life, context_id, generate_life
from .questions import Question, life_questions
from .released import ReleasedDataset, dataset_dirs, load_dataset
from .rubric import generated_reference
from .stream import render
from .tasks import ANSWER_FORMATS, TASKS

DEFAULT_SEEDS = (2026,)
#: size -> (lives per seed, questions per task per context; None = all)
SIZES = {"smoke": (3, 3), "small": (6, 8), "full": (12, None)}
RELEASED_PER_TASK = {"smoke": 5, "small": 20, "full": None}
#: per-item scoring of generated questions by task (T3 by the question's kind)
SCORING = {
    "T1": "entities",
    "T2": "abstain",
    "T4": "ranking",
    "T5": "cue",
    "T6": "coverage_approx",
    "T7": "coverage_approx",
}
T3_SCORING = {"duration": "duration", "gap": "years", "order": "order", "state": "state"}
CACHED_CONTEXTS = 4

Source = Life | ReleasedDataset


def item_id(context: str, task: str, number: str) -> str:
    return f"{context}-{task}-{number}"


def split_item_id(value: str) -> tuple[str, str, str]:
    parts = value.rsplit("-", 2)
    if len(parts) != 3 or parts[1] not in TASKS:
        raise DataError(f"not a knowme item id: {value!r}")
    return parts[0], parts[1], parts[2]


class Catalog:
    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
        self._cache: OrderedDict[str, tuple[Source, dict[str, list[tuple[str, Question]]]]] = OrderedDict()
        self._released: dict[str, ReleasedDataset] | None = None
        if options.data_dir is not None:
            self._released = {
                d.name: load_dataset(d) for d in selected_datasets(options.data_dir, options.params.get("datasets"))
            }

    @property
    def released(self) -> bool:
        return self._released is not None

    def data_notes(self) -> list[str]:
        """What loading the release kept, dropped or flagged, per dataset."""
        return [f"{name}: {note}" for name, data in (self._released or {}).items() for note in data.notes]

    def context_ids(self) -> list[str]:
        if self._released is not None:
            return list(self._released)
        lives, _ = SIZES[self.options.size]
        return [context_id(seed, index) for seed in self.options.seeds or DEFAULT_SEEDS for index in range(lives)]

    def source(self, context: str) -> Source:
        return self._entry(context)[0]

    def questions(self, context: str) -> dict[str, list[tuple[str, Question]]]:
        """The run's questions of a context by task, each with its number (part of its id)."""
        return self._entry(context)[1]

    def _entry(self, context: str) -> tuple[Source, dict[str, list[tuple[str, Question]]]]:
        if self._released is not None:
            if context not in self._released:
                raise DataError(f"no released knowme dataset {context!r}")
            source = self._released[context]
            limit = RELEASED_PER_TASK[self.options.size]
            numbered = {
                t: [(_number(q.extra["released_id"]), q) for q in qs[:limit]]
                for t, qs in sorted(source.questions.items())
            }
            return source, numbered
        if context not in self._cache:
            seed, index = _parse_context(context)
            life = generate_life(seed, index)
            _, limit = SIZES[self.options.size]
            numbered = {
                t: [(f"{n:02d}", q) for n, q in enumerate(qs[:limit])] for t, qs in life_questions(life).items()
            }
            self._cache[context] = (life, numbered)
            while len(self._cache) > CACHED_CONTEXTS:
                self._cache.popitem(last=False)
        self._cache.move_to_end(context)
        return self._cache[context]

    def question(self, value: str) -> tuple[Source, Question]:
        context, task, number = split_item_id(value)
        for found, question in self.questions(context).get(task, []):
            if found == number:
                return self.source(context), question
        raise DataError(f"no knowme item {value!r} in this run")

    def context(self, context: str) -> Context:
        source = self.source(context)
        return Context(context, tuple(tuple(_message(source, i) for i in ids) for ids in source.sessions))

    def item(self, value: str) -> Item:
        source, q = self.question(value)
        dataset = source.dataset
        task = TASKS[q.task]
        scoring = q.extra.get("scoring") or (T3_SCORING[q.kind] if q.task == "T3" else SCORING[q.task])
        private: dict[str, Any] = {
            "scoring": scoring,
            "evidence": list(q.evidence),
            "evidence_texts": [render(source.unit(i)) for i in q.evidence],
            # what the rubric judge reads as the reference answer
            "reference": q.extra.get("reference") or generated_reference(scoring, q.gold, q.slots),
        }
        if q.extra.get("flags"):
            private["flags"] = list(q.extra["flags"])
        view = ItemView(
            suite="knowme",
            task=q.form,
            question=q.text,
            extra={"slots": dict(q.slots), "answer_format": ANSWER_FORMATS[q.form]},
        )
        strata = {
            "task": q.task,
            "level": task.level,
            "kind": q.kind,
            "dataset": dataset,
            "life": source.context_id,
            "trap": q.trap or "none",
            "flashback": "yes" if q.flashback else "no",
            "update_paradox": "yes" if q.update_paradox else "no",
        }
        return Item(
            id=value,
            context_id=source.context_id,
            cluster=source.context_id,
            view=view,
            gold=q.gold,
            strata=strata,
            private=private,
            evidence=Evidence(tuple(_message(source, i) for i in q.evidence)) if q.evidence else None,
        )


def selected_datasets(root: Path, names: str | None) -> list[Path]:
    """The dataset<N>/ folders of a release, or those `names` ("1,3" or "dataset1,dataset3") picks."""
    found = dataset_dirs(root)
    if names is None:
        return found
    wanted = [
        n.strip() if n.strip().startswith("dataset") else f"dataset{n.strip()}" for n in names.split(",") if n.strip()
    ]
    by_name = {d.name: d for d in found}
    unknown = [n for n in wanted if n not in by_name]
    if not wanted or unknown:
        raise ConfigError(
            f"--memeval-suite-option knowme.datasets={names}: "
            f"{'no dataset ' + unknown[0] if unknown else 'no dataset named'} in {root} "
            f"(found: {', '.join(by_name)})"
        )
    return [by_name[n] for n in dict.fromkeys(wanted)]


def _message(source: Source, unit_id: int) -> Message:
    """A unit as stored: its render, its time, and its id ("u<id>", what `Item.evidence` names)."""
    unit = source.unit(unit_id)
    return Message(role="user", content=render(unit), timestamp=unit.timestamp, id=f"u{unit_id}")


def _number(released_id: str) -> str:
    """A released question id as an item-id segment (no '-', which separates segments)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", released_id)


def _parse_context(context: str) -> tuple[int, int]:
    seed, _, life = context.partition("-life")
    try:
        return int(seed.removeprefix("s")), int(life)
    except ValueError:
        raise DataError(f"not a knowme context id: {context!r}") from None


def marks_of(question: Question, dataset: str, registered: Mapping[str, str]) -> tuple[str, ...]:
    """Marker names of one question (only registered ones, so --strict-markers holds)."""
    task = TASKS[question.task]
    marks = [task.marker, f"level_{task.level}", dataset]
    if question.trap:
        marks.append(f"trap_{question.trap}")
    if question.flashback:
        marks.append("flashback")
    if question.update_paradox:
        marks.append("update_paradox")
    if question.transient:
        marks.append("transient_trigger")
    return tuple(m for m in marks if m in registered)
