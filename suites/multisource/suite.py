"""The multisource suite: selective QA over conflicting multi-source personal memory (seed 000).

One item per (seed, persona, question). A persona's context is its natural-language
memory: the profile, then one entry per day of each of the four daily sources, one
session per source. The reader answers from what the memory system returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import ExactLabelJudge, IndexEntry, Suite, SuiteOptions
from pytest_memeval.llm.multisource import MultisourcePrompt
from pytest_memeval.results.records import PairedMetric, Record, Report, SuiteSummary
from pytest_memeval.types import Context, Item, ItemView

from .catalog import Catalog, context_id, split_item_id
from .evidence import question_evidence, unit_messages
from .figures import risk_coverage_figures
from .headings import LABEL_NOTES, TITLES
from .markers import marker_descriptions, question_marks
from .nbf import NBFModel
from .questions import QUESTIONS
from .reader import READERS, MultisourceReader, fitted_models, reader_setting

if TYPE_CHECKING:
    from pytest_memeval.framework.figures import Figure


class MultisourceJudge(ExactLabelJudge):
    """Correct when the forced answer is the gold label; edge labels are answers, not SKIPs."""

    def reason(self, item: Item) -> str:
        return f"gold {item.gold!r} ({item.private['derivation']})"

    def detail(self, item: Item) -> dict[str, Any]:
        return {"source_unreachable": item.private["source_unreachable"]}


class MultisourceSuite(Suite):
    name = "multisource"
    markers = marker_descriptions()
    metric_names = ("accuracy", "coverage", "selective_accuracy", "f05")
    #: three rates; F0.5's recall (SelAcc x Cov / Acc, App. C.3's macro form) can pass 1 when
    #: the macro accuracy is below SelAcc x Cov, so F0.5 reaches up to 1 + 0.5^2 = 1.25
    metric_bounds = {**{name: (0.0, 1.0) for name in metric_names}, "f05": (0.0, 1.25)}
    headline_metric = "accuracy"
    splits = ("train", "dev", "calibration", "test", "all")
    reads_data_dir = True
    declares_evidence = True  # the units of a question's window its answer is read from (evidence.py)
    parameters: ClassVar[Mapping[str, str]] = {
        "reader": "the offline reader: " + "; ".join(f"{name} = {text}" for name, text in READERS.items())
    }

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.reader_variant = reader_setting(options.params.get("reader"))
        self.catalog = Catalog(options)
        #: the context last built: a context's items come one after another, each reads its units
        self._last_context: Context | None = None

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"reader": reader_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        try:
            used = self.catalog.used_seeds(seeds)
        except ConfigError:  # seeds another report recorded that this data has not
            return seeds
        return canonical_seeds(used, self.catalog.used_seeds(None))

    def protocol_split(self, split: str | None) -> str | None:
        used = self.catalog.used_split(split)
        return None if used == self.catalog.used_split(None) else used

    def index(self) -> list[IndexEntry]:
        refs = self.catalog.selected()
        facts = self.catalog.facts(refs)
        entries = []
        for ref in refs:
            context = context_id(ref)
            persona_facts = facts[(ref.seed, ref.persona_id)]
            for qid, question in QUESTIONS.items():
                gold = persona_facts.gold[qid]
                marks = question_marks(question, ref.difficulty, gold, qid in persona_facts.unreachable)
                entries.append(IndexEntry(f"{context}-{qid}", context, marks))
        return entries

    def context(self, context_id: str) -> Context:
        last = self._last_context  # read once: another thread may replace it meanwhile
        if last is None or last.id != context_id:
            last = self._last_context = Context(
                context_id, unit_messages(self.catalog.units(self.catalog.ref(context_id)))
            )
        return last

    def item(self, item_id: str) -> Item:
        context, qid = split_item_id(item_id)
        ref = self.catalog.ref(context)
        # from the facts cached on disk: a warm run generates no persona for its items
        facts = self.catalog.facts([ref])[(ref.seed, ref.persona_id)]
        question = QUESTIONS[qid]
        return Item(
            id=item_id,
            context_id=context,
            cluster=context,
            view=ItemView(
                suite=self.name,
                task=qid,
                question=question.text,
                answer_space=question.answer_space,
                title=TITLES[qid],
                label_notes=dict(LABEL_NOTES.get(qid, {})),
            ),
            gold=facts.gold[qid],
            strata={
                "type": question.type_letter,
                "difficulty": ref.difficulty,
                "topic": question.topic,
                "seed": str(ref.seed),
                "split": ref.split,
            },
            private={"derivation": facts.derivation[qid], "source_unreachable": qid in facts.unreachable},
            evidence=question_evidence(self.context(context).sessions, question, facts.readable[qid]),
        )

    def reader(self) -> MultisourceReader:
        return MultisourceReader(self._models, self.reader_variant)

    @cached_property
    def _models(self) -> dict[int, NBFModel]:
        return fitted_models(self.catalog, self.reader_variant)

    def judge(self) -> MultisourceJudge:
        return MultisourceJudge()

    def llm_prompt(self) -> MultisourcePrompt:
        return MultisourcePrompt()

    # The statistics import scipy, which would slow down every collection; only the
    # controller needs them, once, at the end of the session.
    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        from .summary import summarize

        return summarize(records, self.options.bootstrap)

    def figures(self, report: Report) -> Sequence[Figure]:
        return risk_coverage_figures(report, self.name)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        from .summary import compare

        return compare(a, b, self.options.bootstrap)
