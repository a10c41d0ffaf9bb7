"""What an item cost, per phase: LLM tokens and latency (issue 25, item 3).

    Tokens     the LLM calls of one model in one phase: calls and tokens, with the part
               of them answered from the LLM cache (which cost nothing this time)
    RunUsage   a run's: median context tokens, latency percentiles per phase, tokens per
               phase and model, cost from the user's price table

A record carries `llm_tokens` (phase -> model -> Tokens, phases "ingest", "answer",
"judge") and the latency of its phases: `ingest_ms` (each session its fill stored),
`retrieve_ms`, `answer_ms`, `judge_ms`; `retrieved_tokens` are the tokens of the memories
handed to the answer model. Timings stay out of `RunSummary` (a run's summary is the same
in every run of its records); the report holds each run's RunUsage beside it.

The ingest phase holds LLM calls made while the item's context was filled (a suite's
storage conversation; a memory system's own LLM once the run's gateway meters it). Ingest
belongs to the record whose item filled the context, so that totals over records count
each fill once. So that one record still tells what its context cost, every record of a
memory system whose own LLM the gateway meters carries its context's `FillCost`
(`Record.context_fill`): the same calls again, for reading, never for summing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .record_values import SchemaError, mapping, number

PHASES = ("ingest", "answer", "judge")


@dataclass(frozen=True)
class Tokens:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: of the above, what the LLM cache answered (tokens as recorded when the call was made)
    cached_calls: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0

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
        return Tokens(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Tokens:
        data = mapping(data, where)
        values = []
        for f in fields(cls):
            value = data.get(f.name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SchemaError(f"{where}: {f.name} must be a count, got {value!r}")
            values.append(value)
        return cls(*values)


#: phase -> model -> tokens
PhaseTokens = Mapping[str, Mapping[str, Tokens]]


def tokens_to_json(tokens: PhaseTokens) -> dict[str, Any]:
    return {phase: {model: t.to_json() for model, t in models.items()} for phase, models in tokens.items()}


def tokens_from_json(data: Any, where: str) -> dict[str, dict[str, Tokens]]:
    return {
        str(phase): {
            str(model): Tokens.from_json(tokens, f"{where} {phase} {model}")
            for model, tokens in mapping(models, f"{where} {phase}").items()
        }
        for phase, models in mapping(data if data is not None else {}, where).items()
    }


def add_tokens(total: dict[str, dict[str, Tokens]], more: PhaseTokens) -> None:
    """Add `more` into `total`, phase by phase and model by model."""
    for phase, models in more.items():
        into = total.setdefault(phase, {})
        for model, tokens in models.items():
            into[model] = into.get(model, Tokens()) + tokens


@dataclass(frozen=True)
class FillCost:
    """What filling one context cost a memory system whose own LLM the run's gateway
    meters: its calls per model, the seconds they took (summed; calls in parallel
    overlap) and the fill's wall milliseconds. Every record of the context carries it; the
    record whose item filled the context also counts the same calls in
    `llm_tokens["ingest"]` and each session in `ingest_ms`, which totals sum (once per fill)."""

    tokens: Mapping[str, Tokens] = field(default_factory=dict)
    llm_seconds: float = 0.0
    fill_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": {model: t.to_json() for model, t in self.tokens.items()},
            "llm_seconds": self.llm_seconds,
            "fill_ms": self.fill_ms,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> FillCost:
        data = mapping(data, where)
        tokens = {
            str(m): Tokens.from_json(t, f"{where} {m}") for m, t in mapping(data.get("tokens", {}), where).items()
        }
        seconds, fill_ms = number(data, "llm_seconds", where), number(data, "fill_ms", where)
        if (seconds or 0.0) < 0 or (fill_ms or 0.0) < 0:
            raise SchemaError(f"{where}: llm_seconds and fill_ms must not be negative")
        return cls(tokens, float(seconds or 0.0), float(fill_ms or 0.0))


@dataclass(frozen=True)
class Latency:
    """Milliseconds of one phase over a run's records: median, 95th percentile, how many."""

    p50: float
    p95: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"p50": self.p50, "p95": self.p95, "n": self.n}


@dataclass(frozen=True)
class RunUsage:
    """What one run cost: the median tokens of the context handed to the answer model, the
    latency of each phase ("ingest" per session), LLM tokens per phase and model, and with
    a price table the cost per phase (None where a model has no price) and what the calls
    that went to an endpoint this time cost (`spent`)."""

    context_tokens: float | None = None
    latency: Mapping[str, Latency] = field(default_factory=dict)
    llm: PhaseTokens = field(default_factory=dict)
    cost: Mapping[str, float | None] = field(default_factory=dict)
    spent: float | None = None
    #: models with tokens but no price
    unpriced: tuple[str, ...] = ()

    @property
    def total_cost(self) -> float | None:
        costs = list(self.cost.values())
        return None if not costs or None in costs else sum(c for c in costs if c is not None)

    def to_json(self) -> dict[str, Any]:
        return {
            "context_tokens": self.context_tokens,
            "latency": {phase: latency.to_json() for phase, latency in self.latency.items()},
            "llm": tokens_to_json(self.llm),
            "cost": dict(self.cost),
            "spent": self.spent,
            "unpriced": list(self.unpriced),
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> RunUsage | None:
        if data is None:
            return None
        data = mapping(data, where)
        latency = {}
        for phase, value in mapping(data.get("latency", {}), f"{where}: latency").items():
            value = mapping(value, f"{where}: latency {phase}")
            p50, p95, n = number(value, "p50", where), number(value, "p95", where), value.get("n")
            if p50 is None or p95 is None or not isinstance(n, int):
                raise SchemaError(f"{where}: latency {phase} needs p50, p95 and n")
            latency[str(phase)] = Latency(p50, p95, n)
        costs = mapping(data.get("cost", {}), f"{where}: cost")
        unpriced = data.get("unpriced", [])
        if not isinstance(unpriced, list):
            raise SchemaError(f"{where}: unpriced must be a list")
        return cls(
            number(data, "context_tokens", where),
            latency,
            tokens_from_json(data.get("llm"), f"{where}: llm"),
            {str(phase): number(costs, phase, f"{where}: cost") for phase in costs},
            number(data, "spent", where),
            tuple(str(m) for m in unpriced),
        )
