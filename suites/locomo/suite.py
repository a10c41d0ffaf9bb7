"""The locomo suite: LoCoMo (Maharana et al., 2024) as memory systems publish it.

One context per conversation, one item per question of the selected categories (1-4 by
default, as the published numbers; `locomo.categories=1,2,3,4,5` adds the adversarial
ones), the category as a marker (`locomo_cat1` ... `locomo_cat5`), the conversation as the
cluster. Without `--memeval-data` it runs on a generated sample (sample.py), which the
summary names as such. Scores: the official F1, Mem0's BLEU-1 and F1, Mem0's J with
`--memeval-judge`, and evidence recall for memory systems that keep provenance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec.structs import replace

from pytest_memeval.config.judge_specs import off_protocol
from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.llm.judge import PanelFactory
from pytest_memeval.results.records import PairedMetric, Record, SuiteSummary
from pytest_memeval.types import Context, Item

from ..longmemeval.llm import LONGMEMEVAL, LONGMEMEVAL_OPTION, official_protocol
from .catalog import Catalog, item_id
from .categories import marker, marker_descriptions, parse_categories, parse_reading
from .judge import DEFAULT_PASS_F1, LocomoJudge, LocomoLLMJudge
from .llm import MEM0_J, MEM0_J_OPTION, LocomoPrompt, j_protocol
from .reader import LocomoReader
from .released import find_file
from .sample import DEFAULT_SEED
from .summary import METRICS, compare, summarize

#: locomo-audit's question ids (dial481/locomo-audit errors.json): locomo_<conversation>_qa<question>
AUDIT_ID = re.compile(r"locomo_(\d+)_qa(\d+)")


class LocomoSuite(Suite):
    name = "locomo"
    markers = marker_descriptions()
    metric_names = METRICS
    metric_bounds = {name: (0.0, 100.0) for name in METRICS}  # every score on 0-100
    headline_metric = "f1"
    reads_data_dir = True  # locomo10.json as released
    declares_evidence = True  # each question's evidence dia_ids (Item.evidence)
    parameters = {
        "categories": "the categories to run, e.g. 1,2,3,4,5 (default: 1,2,3,4; 5 is adversarial)",
        "category_names": "how the report names categories: scorer (1 multi-hop, 2 temporal, 3 open-domain, "
        "4 single-hop; the default) or mem0 (1 single-hop, 2 temporal, 3 multi-hop, 4 open-domain)",
        "pass_f1": f"the official F1 at which an item passes without an LLM judge (default: {DEFAULT_PASS_F1})",
    }
    #: Mem0's J (the published protocol), and LongMemEval's strict judge on the same answers
    judge_prompts = {MEM0_J: MEM0_J_OPTION, LONGMEMEVAL: LONGMEMEVAL_OPTION}
    trace_detail = frozenset({"evidence_recall", "provenance"})  # judge.scores

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        params = options.params
        self.categories = parse_categories(params.get("categories"))
        self.reading = parse_reading(params.get("category_names"))
        self.pass_f1 = _pass_f1(params.get("pass_f1"))
        self.catalog = Catalog(options, self.categories, self.reading)

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        parsers = {"categories": parse_categories, "category_names": parse_reading, "pass_f1": _pass_f1}
        return canonical_params(params, parsers)

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if self.options.data_dir is not None:
            return None  # the release: the seeds pick nothing
        return canonical_seeds(seeds or (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(item_id, conversation.sample_id, (marker(qa.category),))
            for item_id, (conversation, qa) in self.catalog.questions.items()
        ]

    def context(self, context_id: str) -> Context:
        return self.catalog.context(context_id)

    def item(self, item_id: str) -> Item:
        return self.catalog.item(item_id)

    def erratum_item(self, name: str) -> str:
        """locomo-audit's `locomo_<c>_qa<n>`: the question at 0-based position n of the qa list
        (category 5 included) of the conversation at 0-based position c of the release."""
        found = AUDIT_ID.fullmatch(name)
        if found is None:
            return name
        conversations = list(self.catalog.conversations)
        position, index = int(found[1]), int(found[2])
        if position >= len(conversations):
            return name  # no such conversation in this run: the erratum names no item of it
        return item_id(conversations[position], index)

    def data_files(self) -> Sequence[Path]:
        """locomo10.json alone: the rest of a clone of the repository is not the protocol."""
        return [find_file(self.options.data_dir)] if self.options.data_dir is not None else []

    def reader(self) -> LocomoReader:
        return LocomoReader()

    def judge(self) -> LocomoJudge:
        return LocomoJudge(self.pass_f1)

    def llm_prompt(self) -> LocomoPrompt:
        return LocomoPrompt()

    def llm_judge(self, panel: PanelFactory) -> LocomoLLMJudge:
        # LongMemEval's judge reads a LoCoMo answer with its standard prompt (no question type here)
        prompts = {MEM0_J: j_protocol(), LONGMEMEVAL: official_protocol("standard")}
        return LocomoLLMJudge(LocomoJudge(self.pass_f1), panel.named(prompts))

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        summary = summarize(records, self.options.bootstrap)
        source = self.catalog.source
        categories = ", ".join(str(c) for c in self.categories)
        notes = [f"data: {source.description}", f"categories {categories} named by {self.reading}'s reading"]
        judges = sorted({name for r in records for name in r.detail.get("judges", {})})
        notes += off_protocol(judges, self.judge_prompts)
        if len(judges) > 1:
            notes.append("j is the panel's mean (each judge's accuracy: judge sensitivity)")
        if self.catalog.notes:
            notes.append(
                f"{len(self.catalog.notes)} malformed evidence strings read as the ids they spell (extra.data_notes)"
            )
        extra = {
            **summary.extra,
            "data": {"kind": source.kind, "description": source.description, "sha256": list(source.sha256)},
            "categories": list(self.categories),
            "category_names": self.reading,
            "data_notes": list(self.catalog.notes),
        }
        return replace(summary, note="; ".join([*notes, summary.note]), extra=extra)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)


def _pass_f1(raw: str | None) -> float:
    if raw is None:
        return DEFAULT_PASS_F1
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"--memeval-suite-option locomo.pass_f1={raw}: a number from 0 to 1")
    return value
