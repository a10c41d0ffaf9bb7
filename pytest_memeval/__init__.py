"""pytest-memeval: evaluate LLM memory systems as pytest tests.

The public API: what an adapter implements (`MemorySystem`, its optional capabilities and
the `Resources` it is built with), what a suite implements (`Suite`, `IndexEntry`,
`SuiteOptions`, `ExactLabelJudge`) and returns (`SuiteSummary`, `Metric`, `Cell`), the
records a run produces (`Record`, `RunKey`, `Report`) and the plain data flowing through
one evaluation (`Message`, `Context`, `ItemView`, `Item`, `Evidence`, `Memory`, `Answer`, `Verdict`,
`Trace`). docs/api.md documents each name.
"""

from .config.adapter_settings import AdapterLLM
from .framework.suite import (
    Answering,
    ExactLabelJudge,
    IndexEntry,
    ItemSource,
    JudgeOption,
    Scoring,
    Statistics,
    Suite,
    SuiteOptions,
)
from .llm.structured import DeclaresSchema
from .memory.resources import Resources
from .protocols import (
    BuildsFromMemeval,
    ChecksSettings,
    Closes,
    ExplainsLLMOutsideGateway,
    Judge,
    MemorySystem,
    MemorySystemBase,
    NamesItems,
    Prefetches,
    ReportsIngest,
    ResponseModel,
)
from .results.records import Cell, Metric, PairedMetric, Record, Report, RunKey, SuiteSummary
from .running.fixtures import check
from .running.runner import Outcome
from .types import Answer, Context, Evidence, Item, ItemView, Memory, Message, PrefetchRequest, Trace, Verdict

__all__ = [
    "AdapterLLM",
    "Answer",
    "Answering",
    "BuildsFromMemeval",
    "Cell",
    "ChecksSettings",
    "Closes",
    "Context",
    "DeclaresSchema",
    "Evidence",
    "ExactLabelJudge",
    "ExplainsLLMOutsideGateway",
    "IndexEntry",
    "Item",
    "ItemSource",
    "ItemView",
    "Judge",
    "JudgeOption",
    "Memory",
    "MemorySystem",
    "MemorySystemBase",
    "Message",
    "Metric",
    "NamesItems",
    "Outcome",
    "PairedMetric",
    "PrefetchRequest",
    "Prefetches",
    "Record",
    "Report",
    "ReportsIngest",
    "Resources",
    "ResponseModel",
    "RunKey",
    "Suite",
    "SuiteOptions",
    "Scoring",
    "Statistics",
    "SuiteSummary",
    "Trace",
    "Verdict",
    "check",
]
