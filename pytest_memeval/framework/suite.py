"""What a benchmark suite offers the plugin, in four roles.

A suite knows how to list its items cheaply (for collection), how to build a context
and its items on demand (on whichever worker runs them), how to answer offline, how to
judge, and how to summarise records into metrics. It knows nothing of pytest.

`Suite` is the union of four narrow roles, each a class of its own with its defaults (in
the manner of syrupy's role classes): `ItemSource` (which items, their contexts and data
files), `Answering` (the offline reader, the LLM prompt, interactive protocols), `Scoring`
(the deterministic and the LLM judge) and `Statistics` (metrics, comparisons, figures).

A minimal suite defines `index`, `context`, `item` and, to run without an LLM, `reader`;
it is judged by `ExactLabelJudge` (the answer's label against the gold) and summarised
as an accuracy with a cluster-adjusted interval, unless it overrides `judge` and
`summarize`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from ..config.judge_specs import JudgeOption
from ..config.llm_settings import LLMSettings
from ..errors import ConfigError
from ..protocols import Judge, ResponseModel
from ..results.records import PairedMetric, Record, Report, SuiteSummary
from ..types import Answer, Context, Item, Memory, Message, Trace, Verdict

if TYPE_CHECKING:
    from ..llm.judge import PanelFactory
    from ..llm.responder import ResponsePrompt
    from .figures import Figure


class ItemMemory(Protocol):
    """What an interactive suite drives for one item (`Answering.interact`): the memory
    system bound to the item's own fresh namespace, every call guarded by the runner."""

    @property
    def system_name(self) -> str:
        """The memory system's name in the run (a suite that keeps what a protocol returned,
        across items, keys it by the system)."""
        ...

    def reset(self) -> None: ...

    def ingest(self, session: Sequence[Message]) -> None: ...

    def retrieve(self, query: str, k: int) -> list[Memory]: ...

    def dump(self) -> list[Memory] | None: ...


@dataclass(frozen=True)
class SuiteOptions:
    """The part of the run's settings a suite reads."""

    size: str
    split: str | None
    seeds: tuple[int, ...] | None
    k: int
    data_dir: Path | None
    cache_dir: Path
    bootstrap: int = 2000
    #: this suite's settings from --memeval-suite-option (keys checked against Suite.parameters)
    params: Mapping[str, str] = field(default_factory=dict)
    #: the response model's call settings (None: the offline reader), for a suite whose
    #: storage phase is a conversation with that model (memfail's storage turns)
    responder_llm: LLMSettings | None = None


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One item as collection sees it: no gold, nothing expensive."""

    id: str
    context_id: str
    marks: tuple[str, ...]


class ExactLabelJudge:
    """Correct when the answer's label is the gold (`Item.gold`), compared exactly.

    Subclasses add what their suite's report needs through `reason` and `detail`."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        correct = answer.label == item.gold
        return Verdict(
            correct=correct,
            score=float(correct),
            reason="" if correct else self.reason(item),
            detail=self.detail(item),
        )

    def reason(self, item: Item) -> str:
        """Why a wrong answer is wrong."""
        return f"gold {item.gold!r}"

    def detail(self, item: Item) -> dict[str, Any]:
        """What the verdict records beside correctness (nothing by default)."""
        return {}


class ItemSource(ABC):
    """Role: which items a run has, their contexts and the data they come from."""

    name: ClassVar[str]
    #: every marker the suite may attach, with its description (registered for -m)
    markers: ClassVar[Mapping[str, str]]
    #: the settings --memeval-suite-option accepts, with their descriptions
    parameters: ClassVar[Mapping[str, str]] = {}
    #: the --memeval-split values the suite understands; a generated suite's items are all held out
    splits: ClassVar[tuple[str, ...]] = ("test", "all")
    #: whether the suite reads --memeval-data (a released layout) instead of generating
    reads_data_dir: ClassVar[bool] = False
    #: whether items of one context at different depths (--memeval-k) may run on different
    #: xdist workers, each filling the context itself. True where a context's store does not
    #: depend on k and a second fill is cheap and gives the same store; False where every
    #: depth must read the one store filled per memory system (memfail's shared datasets)
    splits_by_k: ClassVar[bool] = True
    #: whether an LLM responder writes a reply to every stored user message when a context
    #: is built (memfail's storage turns: one call each, phase ingest); the estimate then
    #: counts those calls and reads the context's messages from a suite built without it
    responder_stores_replies: ClassVar[bool] = False
    #: whether the suite gives its items their gold evidence (`Item.evidence`, on every item
    #: that has some): the retrieval metrics need it on the items, --memeval-oracle here
    declares_evidence: ClassVar[bool] = False
    options: SuiteOptions

    @abstractmethod
    def index(self) -> Sequence[IndexEntry]:
        """All items of this run in a deterministic order, grouped by context (the plugin
        asks once per process and keeps the result)."""

    @abstractmethod
    def context(self, context_id: str) -> Context:
        """The sessions to store for one context."""

    @abstractmethod
    def item(self, item_id: str) -> Item:
        """The full item (public view and private gold)."""

    def sample(self) -> str:
        """Why this run's items are not the benchmark's release, "" when they are: a run on
        generated data is labelled `sample` in the closing table, the HTML headline and the
        JSON. Default: a suite that reads a release (`reads_data_dir`) runs on data of its
        own generator until --memeval-data names the release."""
        if not self.reads_data_dir or self.options.data_dir is not None:
            return ""
        return f"generated data, not the {self.name} release (--memeval-data reads it)"

    def erratum_item(self, name: str) -> str:
        """The id of the item an erratum names (--memeval-errata): the suite's own id by
        default; a suite whose release others number their own way maps those names too
        (locomo: locomo-audit's `locomo_0_qa1`)."""
        return name

    def data_files(self) -> Sequence[Path]:
        """The data files this run reads; their sha256 go into the fingerprint. Default: every
        file under --memeval-data (hidden ones aside) for a suite that reads it, none for
        generated data (the fingerprint then holds the size, split and seeds). A suite that
        reads a few files of a larger directory lists just those."""
        from .data_files import regular_files

        root = self.options.data_dir
        if root is None or not self.reads_data_dir:
            return ()
        visible = (
            p for p in sorted(root.rglob("*")) if not any(part.startswith(".") for part in p.relative_to(root).parts)
        )
        return regular_files(visible)

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        """`params` (this suite's --memeval-suite-option settings: this run's, or those an
        earlier report recorded) as they enter the fingerprint, so that equal meanings give
        equal fingerprints. The bundled suites read each with its own parser, write it in one
        form and leave out a value equal to the default (canonical.py). Default: as spelled."""
        return dict(params)

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """The seeds (--memeval-seed; None: the suite's own) as they enter the fingerprint.
        The bundled suites give the seeds their items come from, sorted, and None where those
        are the default ones or the suite reads no seeds. Default: as given."""
        return seeds

    def protocol_split(self, split: str | None) -> str | None:
        """The split (--memeval-split; None: the default) as it enters the fingerprint. The
        bundled suites give None where it is the default or their items do not depend on it.
        Default: as given."""
        return split


@dataclass(frozen=True)
class PlannedCall:
    """One LLM call an interactive suite's protocol makes for an item: the responder's
    (`answer`), or one made by each of the run's judges (`judge`), with its messages."""

    phase: Literal["answer", "judge"]
    messages: list[dict[str, str]]


class Answering:
    """Role: how an item is answered, offline, by an LLM, or through an interactive protocol."""

    name: ClassVar[str]
    #: True when the suite drives the memory itself for each item (see `interact`)
    interactive: ClassVar[bool] = False
    #: True when an interactive suite plans each item's calls (`planned_calls`): the estimate
    #: before a run builds no context of a suite that plans none
    plans_calls: ClassVar[bool] = False

    def reader(self) -> ResponseModel:
        """The offline, deterministic response model of this suite (needed to run without an
        LLM responder)."""
        raise ConfigError(f"suite {self.name!r} has no offline reader: pass --memeval-responder=openai:MODEL")

    def interact(self, item: Item, memory: ItemMemory, responder: ResponseModel, k: int) -> Answer:
        """For interactive suites: write to and probe `memory` (on a fresh namespace of this
        item) as the item's protocol requires, asking `responder`, and return the answer that
        the judge scores (its detail may hold a trajectory)."""
        raise NotImplementedError(f"suite {self.name} is not interactive")

    def planned_calls(self, item: Item, retrieve: Callable[[int], Sequence[Memory]], k: int) -> list[PlannedCall]:
        """For interactive suites that declare `plans_calls`: the LLM calls the item's protocol
        makes, for the estimate before a run (campaigns/estimate.py); `retrieve(n)` is what a
        retrieval of n is assumed to return."""
        raise NotImplementedError(f"suite {self.name} plans no calls")

    def llm_prompt(self) -> ResponsePrompt | None:
        """The prompt an LLM responder answers with; None when the suite has no LLM path."""
        return None

    def prompt_files(self) -> Sequence[Path]:
        """The prompt templates the suite's LLM responder and judges may use; their sha256 go
        into the fingerprint of a run with an LLM. Default: the bundled templates named
        `<suite name>_*.toml` (pytest_memeval/prompts/)."""
        from ..llm.templates import prompts_dir

        return sorted(prompts_dir().glob(f"{self.name}_*.toml"))


class Scoring:
    """Role: how an answer is judged, deterministically and by LLM judges."""

    #: the judge prompts an LLM judge may name (`openai:MODEL@NAME`), the default first; a
    #: suite without names gives its panel one prompt (`llm_judge`)
    judge_prompts: ClassVar[Mapping[str, JudgeOption]] = {}
    #: whether the LLM judge builds its prompts from what the run retrieved and stored
    #: (memfail's staged judge: per fact and stage, up to the first failing stage); the
    #: --collect-only estimate then says that it cannot count the judge's calls
    judge_reads_the_run: ClassVar[bool] = False
    #: the keys of a verdict's detail that the judges derive from the trace (the memories
    #: retrieved and their sources), not from the answer: a report holds no trace, so
    #: `python -m pytest_memeval rejudge` keeps the run's values of these (a suite whose
    #: judge reads the run, `judge_reads_the_run`, cannot be re-judged at all)
    trace_detail: ClassVar[frozenset[str]] = frozenset()

    def judge(self) -> Judge:
        """The deterministic judge of this suite; by default the exact label match."""
        return ExactLabelJudge()

    def llm_judge(self, panel: PanelFactory) -> Judge | None:
        """A judge that grades with `panel`: `panel(prompt, **call settings)` -> JudgePanel,
        where the keywords, e.g. max_tokens=10, override the run's LLMSettings for a protocol
        that pins them; a suite that declares `judge_prompts` calls
        `panel.named({name: ProtocolPrompt, ...})` instead, and each judge grades with the
        prompt it names. None when the suite is scored deterministically."""
        return None


class Statistics:
    """Role: the metrics of a run with their intervals, paired comparisons and figures."""

    #: the metrics of `summarize` that gates and comparisons may name
    metric_names: ClassVar[tuple[str, ...]] = ("accuracy",)
    #: the metrics where lower is better (errors): a regression is an increase
    lower_is_better: ClassVar[frozenset[str]] = frozenset()
    #: the metric the closing overview and the HTML headline name for every run of the suite,
    #: whatever items ran (a run without a value of it says n/a); "" names metric_names[0]
    headline_metric: ClassVar[str] = ""
    #: (lowest, highest) of the metrics whose range is known (rates): a gate that every value
    #: in the range passes can never fail and is refused at configure time, and an interval
    #: that is all of the range is no interval (stats.estimability)
    metric_bounds: ClassVar[Mapping[str, tuple[float, float]]] = {"accuracy": (0.0, 1.0)}
    options: SuiteOptions

    @classmethod
    def headline(cls) -> str:
        """The suite's headline metric (`headline_metric`, else its first metric)."""
        return cls.headline_metric or cls.metric_names[0]

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        """Metrics with confidence intervals and breakdowns for the scored records of one run.

        On the controller of a run the records are statistics views: without the texts kept
        for a reader (`memories`, `question`, `judge_reason`, `raw`; `record_spool`), which
        stay on disk. The default: `accuracy`, the share of correct records with a 95% Wilson interval at
        the design-effect-adjusted n (items of one cluster are not independent)."""
        from ..stats import clustered_wilson

        return SuiteSummary(
            metrics={"accuracy": clustered_wilson([bool(r.correct) for r in records], [r.cluster for r in records])}
        )

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        """Paired differences a - b of the headline metrics; records are aligned item by item
        (statistics views, as `summarize` gets them).

        The default fits a success rate: the cluster sign-flip test and the interval that
        inverts it (p and CI agree). Suites with macro or graded metrics override it.
        """
        from ..stats import compare_rates

        correct_a = [bool(r.correct) for r in a]
        correct_b = [bool(r.correct) for r in b]
        return {"accuracy": compare_rates(correct_a, correct_b, [r.cluster for r in a], self.options.bootstrap)}

    def figures(self, report: Report) -> Sequence[Figure]:
        """Extra figures for the HTML report.

        `report` is the whole session; a suite picks its own runs and records by name. Its
        records are statistics views, as `summarize` gets them. The standard figures
        (breakdown bars, paired differences) need nothing from here.
        """
        return []


class Suite(ItemSource, Answering, Scoring, Statistics):
    """Base class of the bundled suites and of third-party ones: the four roles together.

    Required: `name`, `markers`, `index`, `context`, `item`; `reader` to run without an
    LLM. Everything else has a default."""

    #: the suite's protocol version, part of every report's fingerprint: bump it when items,
    #: gold, scoring or metrics change, so that numbers of the old protocol are not compared
    #: with the new one's
    protocol_version: ClassVar[str] = "1"

    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
