"""The personamem suite: PersonaMem (bowen-upenn/PersonaMem, COLM 2025) under its official scoring.

Four-way multiple choice on a persona's long history of sessions: one item per released
question, the cluster its persona; `--memeval-data DIR` reads the release as shipped
(questions_<length>.csv and shared_contexts_<length>.jsonl), without it a generated sample
in the same format, labelled a sample. What the memory system stores of the prefix a
question may see is the `fill` option (catalog.py). Every reply, the offline reader's or an
LLM's, is scored by the official extract_answer rule (scoring.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec.structs import replace

from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.results.records import Record, SuiteSummary
from pytest_memeval.types import Context, Item

from .catalog import (
    DOWNLOAD,
    FILLS,
    QUESTION_TYPES,
    Catalog,
    canonical_type,
    fill_setting,
    length_marker,
    lengths_setting,
)
from .judge import PersonaMemJudge
from .llm import PersonaMemPrompt
from .reader import PersonaMemReader
from .released import SIZES
from .sample import DEFAULT_SEED
from .summary import summarize


def marker_descriptions() -> dict[str, str]:
    markers = {name: f"personamem question type {name}" for name in QUESTION_TYPES}
    markers.update({length_marker(size): f"personamem question of the {size} files" for size in SIZES})
    return markers


class PersonaMemSuite(Suite):
    name = "personamem"
    markers = marker_descriptions()
    reads_data_dir = True
    parameters = {
        "file": f"which context lengths, comma-separated: {', '.join(SIZES)} (default: 32k)",
        "fill": f"what is stored of a question's visible prefix: {' or '.join(FILLS)} (session: the sessions "
        "before the question's session, which goes with the question, default; prefix: all of it, per distinct prefix)",
    }

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.catalog = Catalog(
            options, lengths_setting(options.params.get("file")), fill_setting(options.params.get("fill"))
        )

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"file": lengths_setting, "fill": fill_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if self.options.data_dir is not None:
            return None  # the release: the seeds pick nothing
        return canonical_seeds(seeds or (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(
                f"{e.length}-{e.question.question_id}",
                e.context_id,
                tuple(m for m in (canonical_type(e.question.question_type),) if m in QUESTION_TYPES)
                + (length_marker(e.length),),
            )
            for e in self.catalog.ordered()
        ]

    def context(self, context_id: str) -> Context:
        return self.catalog.context(context_id)

    def item(self, item_id: str) -> Item:
        return self.catalog.item(item_id)

    def data_files(self) -> Sequence[Path]:
        """The files the run reads: both files of each context length named."""
        return [] if self.catalog.sample else self.catalog.data_files()

    def reader(self) -> PersonaMemReader:
        return PersonaMemReader()

    def judge(self) -> PersonaMemJudge:
        return PersonaMemJudge()

    def llm_prompt(self) -> PersonaMemPrompt:
        return PersonaMemPrompt()

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        summary = summarize(records)
        data = self.catalog.describe()
        what = (
            "data: a generated sample in the released format, not the benchmark"
            if data["sample"]
            else "data: " + ", ".join(name for names in data["files"].values() for name in names)
        )
        return replace(
            summary,
            note="; ".join(filter(None, [what, f"fill: {data['fill']}", summary.note])),
            extra={**summary.extra, "data": data, "download": DOWNLOAD},
        )
