"""The beam suite: BEAM (Tavakoli et al., "Beyond a Million Tokens", 2025) as its code scores it.

One context per conversation (100K to 10M tokens, streamed from its chat file batch by
batch as it is ingested), one item per probing question (10 abilities x 2 per
conversation), clustered by conversation. `--memeval-data DIR` reads a clone of the
release; without it the suite runs on a generated sample in the same layout (sample.py),
labelled as such. With `--memeval-judge` the official rubric judge grades (llm.py,
scoring.py); without, an offline lookup of the rubric's texts that is not the official
metric. Suite options: `beam.scale` (which scales), `beam.scoring` (official, as shipped;
corrected: 0.5 kept, the question in the judge prompt, event ordering tau x F1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec.structs import replace

from pytest_memeval.config.judge_specs import off_protocol
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.llm.judge import PanelFactory
from pytest_memeval.results.records import PairedMetric, Record, SuiteSummary
from pytest_memeval.types import Context, Item

from .catalog import DEFAULT_SEED, DOWNLOAD, Catalog, marker_of, scale_setting
from .judge import OfficialJudge, OfflineJudge
from .llm import BEAM, BEAM_OPTION, BeamPrompt, equivalence_protocol, rubric_protocol
from .reader import BeamReader
from .released import ABILITIES, QUESTIONS_FILE, SCALES
from .scoring import CORRECTED, OFFICIAL, scoring_setting
from .summary import METRIC_NAMES, compare, summarize


def marker_descriptions() -> dict[str, str]:
    markers = {f"beam_{a}": f"beam ability {a}" for a in ABILITIES}
    markers.update({marker_of(s): f"beam conversation of the {s}-token scale" for s in SCALES})
    return markers


class BeamSuite(Suite):
    name = "beam"
    markers = marker_descriptions()
    metric_names = METRIC_NAMES
    metric_bounds = {name: (0.0, 1.0) for name in METRIC_NAMES}
    headline_metric = "score"
    reads_data_dir = True  # a clone of github.com/mohammadtavakoli78/BEAM
    declares_evidence = True  # each question's source_chat_ids (Item.evidence)
    parameters = {
        "scale": f"the scales to run, joined by commas: {', '.join(SCALES)} (default: every scale the data holds)",
        "scoring": f"{OFFICIAL} (default: compute_metrics.py as shipped: a 0.5 counts 0 in 9 abilities, the judge "
        f"prompt's <question> left unfilled, event ordering tau_norm) or {CORRECTED} (0.5 kept, the question "
        "filled, event ordering tau_norm x F1)",
    }
    judge_prompts = {BEAM: BEAM_OPTION}
    protocol_version = "1"

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.catalog = Catalog(options)

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"scale": scale_setting, "scoring": scoring_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if self.options.data_dir is not None:
            return None  # the release: the seeds pick nothing
        return canonical_seeds(seeds[:1] if seeds else (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(item, conversation.id, (f"beam_{q.ability}", marker_of(conversation.scale)))
            for item, (conversation, q) in self.catalog.items.items()
        ]

    def context(self, context_id: str) -> Context:
        return self.catalog.context(context_id)

    def item(self, item_id: str) -> Item:
        return self.catalog.item(item_id)

    def data_files(self) -> Sequence[Path]:
        """The chat and the probing questions of each conversation the run reads."""
        if self.catalog.sample:
            return []
        return [path for c in self.catalog.conversations.values() for path in (c.chat, c.chat.parent / QUESTIONS_FILE)]

    def reader(self) -> BeamReader:
        return BeamReader()

    def judge(self) -> OfflineJudge:
        return OfflineJudge()

    def llm_prompt(self) -> BeamPrompt:
        return BeamPrompt()

    def llm_judge(self, panel: PanelFactory) -> OfficialJudge:
        scoring = self.catalog.scoring
        return OfficialJudge(panel.named({BEAM: rubric_protocol(scoring)}), panel.named({BEAM: equivalence_protocol()}))

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        summary = summarize(records, self.options.bootstrap)
        data = self.catalog.describe()
        what = (
            "data: a generated sample in BEAM's layout, not the benchmark"
            if data["sample"]
            else "data: " + ", ".join(f"{n} {s} conversations" for s, n in data["conversations"].items())
        )
        judges = sorted({name for r in records for name in r.detail.get("judges", {})})
        return replace(
            summary,
            note="; ".join(
                filter(
                    None, [what, f"scoring: {data['scoring']}", summary.note, *off_protocol(judges, self.judge_prompts)]
                )
            ),
            extra={**summary.extra, "data": data, "download": DOWNLOAD},
        )

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)
