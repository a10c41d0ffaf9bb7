"""What an item cost, per phase: LLM tokens and latency (issue 25, item 3).

    Tokens     the LLM calls of one model in one phase: calls and tokens, with the part
               of them answered from the LLM cache (which cost nothing this time)
    RunUsage   a run's: median context tokens, latency p50/p95/p99 per phase, tokens per
               phase and model, cost from the user's price table

A record carries `llm_tokens` (phase -> model -> Tokens, phases "ingest", "answer",
"judge") and the latency of its phases: `ingest_ms` (each session its fill stored),
`retrieve_ms`, `answer_ms`, `judge_ms`, and with --memeval-searchable `searchable_ms` (each
session its fill stored, until its last message was retrievable; None: not by the
deadline); `retrieved_tokens` are the tokens of the memories handed to the answer model.
Timings stay out of `RunSummary` (a run's summary is the same in every run of its
records); the report holds each run's RunUsage beside it.

The ingest phase holds LLM calls made while the item's context was filled (a suite's
storage conversation; a memory system's own LLM once the run's gateway meters it). Ingest
belongs to the record whose item filled the context, so that totals over records count
each fill once. So that one record still tells what its context cost, every record of a
memory system whose own LLM the gateway meters carries its context's `FillCost`
(`Record.context_fill`): the same calls again, for reading, never for summing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from msgspec import Meta

from .schema import Number, SchemaError, Value

PHASES = ("ingest", "answer", "judge")

#: a number of calls or tokens
Count = Annotated[int, Meta(ge=0)]


class Tokens(Value, frozen=True):
    calls: Count = 0
    prompt_tokens: Count = 0
    completion_tokens: Count = 0
    #: of the above, what the LLM cache answered (tokens as recorded when the call was made)
    cached_calls: Count = 0
    cached_prompt_tokens: Count = 0
    cached_completion_tokens: Count = 0

    @classmethod
    def of_call(cls, prompt_tokens: int, completion_tokens: int, cached: bool) -> Tokens:
        if cached:
            return cls(1, prompt_tokens, completion_tokens, 1, prompt_tokens, completion_tokens)
        return cls(1, prompt_tokens, completion_tokens)

    @property
    def spent(self) -> Tokens:
        """The calls that went to the endpoint this time."""
        return Tokens(
            self.calls - self.cached_calls,
            self.prompt_tokens - self.cached_prompt_tokens,
            self.completion_tokens - self.cached_completion_tokens,
        )

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(*(getattr(self, name) + getattr(other, name) for name in self.__struct_fields__))


#: phase -> model -> tokens
PhaseTokens = Mapping[str, Mapping[str, Tokens]]


def add_tokens(total: dict[str, dict[str, Tokens]], more: PhaseTokens) -> None:
    """Add `more` into `total`, phase by phase and model by model."""
    for phase, models in more.items():
        into = total.setdefault(phase, {})
        for model, tokens in models.items():
            into[model] = into.get(model, Tokens()) + tokens


class FillCost(Value, frozen=True):
    """What filling one context cost a memory system whose own LLM the run's gateway
    meters: its calls per model, the seconds they took (summed; calls in parallel
    overlap) and the fill's wall milliseconds. Every record of the context carries it; the
    record whose item filled the context also counts the same calls in
    `llm_tokens["ingest"]` and each session in `ingest_ms`, which totals sum (once per fill)."""

    tokens: Mapping[str, Tokens] = {}
    llm_seconds: float = 0.0
    fill_ms: float = 0.0

    def __post_init__(self) -> None:
        if self.llm_seconds < 0 or self.fill_ms < 0:
            raise SchemaError("llm_seconds and fill_ms must not be negative")


class Latency(Value, frozen=True):
    """Milliseconds of one phase over a run's records (its repeats pooled): median, 95th
    and 99th percentiles, how many timings (None in a report written before p99 was kept)."""

    p50: Number
    p95: Number
    n: int
    p99: Number | None = None


class RunUsage(Value, frozen=True):
    """What one run cost: the median tokens of the context handed to the answer model, the
    latency of each phase ("ingest" and "searchable" per session), LLM tokens per phase and
    model, and with a price table the cost per phase (None where a model has no price) and
    what the calls that went to an endpoint this time cost (`spent`)."""

    context_tokens: Number | None = None
    latency: Mapping[str, Latency] = {}
    llm: PhaseTokens = {}
    cost: Mapping[str, Number | None] = {}
    spent: Number | None = None
    #: models with tokens but no price
    unpriced: tuple[str, ...] = ()
    #: sessions whose last message was not retrievable by the time-to-searchable deadline
    #: (--memeval-searchable): each an error of the run
    not_searchable: int = 0

    @property
    def total_cost(self) -> float | None:
        costs = list(self.cost.values())
        return None if not costs or None in costs else sum(c for c in costs if c is not None)
