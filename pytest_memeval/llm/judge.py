"""LLM judges: a templated prompt and a strict parser per judge, and panels of several models.

Invalid judge output never becomes a score: `LLMJudge.score` raises `JudgeOutputError`
(a `ResponseError`, so the item is reported as an error, with the raw text). A panel
returns every judge's parsed verdict or failure; its combined verdict needs at least
`min_valid` valid judges (all of them by default). A suite is handed a `PanelFactory`, which
builds its panels from the run's judges: one prompt for all, or each judge the prompt it
names (`--memeval-judge openai:MODEL@PROMPT`).
"""

from __future__ import annotations

import contextvars
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from ..config.judge_specs import PanelMember
from ..config.llm_settings import LLMSettings
from ..errors import ResponseError
from ..types import Answer, Item, Verdict
from .cache import CallCache
from .caller import ModelCaller
from .calls import ChatRequest, Completion
from .strict_json import InvalidOutput, read_object
from .structured import answer_schema
from .tally import count
from .templates import PromptTemplate


class JudgeOutputError(ResponseError):
    """A judge's reply could not be read as a verdict."""

    def __init__(self, judge: str, reason: str, raw: str, label: str | None = None) -> None:
        target = f" for {label}" if label else ""
        super().__init__(f"judge {judge!r} gave invalid output{target}: {reason}; raw: {raw[:200]!r}")
        self.judge, self.reason, self.raw = judge, reason, raw


class JudgePrompt(Protocol):
    """May also have `schema(item) -> dict | None` (`structured.DeclaresSchema`), the JSON
    schema of the verdict."""

    template: PromptTemplate

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]: ...

    def parse(self, completion: Completion, item: Item) -> Verdict:
        """A verdict, or InvalidOutput(reason)."""
        ...


@runtime_checkable
class AsksSeveralTimes(Protocol):
    """A judge prompt that the suite's judge sends several times for one item (BEAM's: once
    per rubric item): the messages of each call, for the estimate before a run."""

    def calls(self, item: Item, answer: Answer) -> list[list[dict[str, str]]]: ...


class TemplateJudgePrompt:
    """A JudgePrompt from a template, a function giving its placeholder values, and a parser;
    the verdict's schema is the template's (`schema_values` fills its placeholders)."""

    def __init__(
        self,
        template: PromptTemplate,
        values: Callable[[Item, Answer], Mapping[str, str]],
        parse: Callable[[str], Verdict],
        schema_values: Callable[[Item], Mapping[str, Any]] | None = None,
    ) -> None:
        self.template = template
        self._values = values
        self._parse = parse
        self._schema_values = schema_values

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        return self.template.render(self._values(item, answer))

    def schema(self, item: Item) -> dict[str, Any] | None:
        return self.template.schema(self._schema_values(item) if self._schema_values else None)

    def parse(self, completion: Completion, item: Item) -> Verdict:
        if completion.content is None or not completion.content.strip():
            raise InvalidOutput("empty output")
        try:
            return self._parse(completion.content)
        except InvalidOutput:
            if completion.truncated:
                raise InvalidOutput("output cut at max_tokens") from None
            raise


def cut(text: str, limit: int) -> str:
    """The first `limit` characters (e.g. the behavior judge reads 1,500 of a response)."""
    return text[:limit]


def parse_score(
    text: str,
    *,
    low: int,
    high: int,
    key: str = "score",
    reason_key: str | None = "reason",
    pass_at: int | None = None,
) -> Verdict:
    """Strictly parse {"<key>": <int in low..high>, "<reason_key>": <str>}; nothing else allowed.

    `pass_at` sets `correct` (score >= pass_at); without it `correct` is None.
    """
    data = read_object(text, {key} | ({reason_key} if reason_key else set()))
    score = data[key]
    if isinstance(score, bool) or not isinstance(score, int) or not low <= score <= high:
        raise InvalidOutput(f"{key} {score!r} is not an integer in {low}..{high}")
    reason = data[reason_key] if reason_key else ""
    if not isinstance(reason, str):
        raise InvalidOutput(f"{reason_key} is not a string")
    correct = None if pass_at is None else score >= pass_at
    return Verdict(correct=correct, score=float(score), reason=reason, detail={key: score})


class LLMJudge:
    """A `Judge` that asks one model."""

    def __init__(
        self, prompt: JudgePrompt, settings: LLMSettings, *, caller: ModelCaller | None = None, name: str | None = None
    ) -> None:
        self.prompt = prompt
        self.settings = settings
        self.name = name or settings.model
        self._owns_caller = caller is None
        self.caller = caller or ModelCaller(settings)

    def __repr__(self) -> str:
        return f"LLMJudge({self.name!r}, template={self.prompt.template.id!r})"

    def score(self, item: Item, answer: Answer, *, label: str | None = None) -> Verdict:
        schema = answer_schema(self.prompt, item)
        request = ChatRequest.build(self.settings, self.prompt.messages(item, answer), self.prompt.template.id, schema)
        completion = self.caller.call(request, label=label)
        count("judge", self.settings.model, completion)
        try:
            verdict = self.prompt.parse(completion, item)
        except InvalidOutput as exc:
            reason = str(exc)
        else:
            return replace(verdict, detail=dict(verdict.detail, judge=self.name, template=self.prompt.template.id))
        raise JudgeOutputError(self.name, reason, completion.content or "", label)

    def close(self) -> None:
        if self._owns_caller:
            self.caller.close()


@dataclass(frozen=True)
class ProtocolPrompt:
    """One of a suite's named judge prompts, with the call settings its protocol pins
    (evaluate_qa.py's: temperature 0, max_tokens 10)."""

    prompt: JudgePrompt
    call: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeFailure:
    judge: str
    reason: str
    raw: str


class JudgePanel:
    """Several judges on the same item, asked concurrently; each judge's parse is kept."""

    def __init__(
        self,
        judges: Sequence[LLMJudge],
        *,
        aggregate: Callable[[Sequence[float]], float] = statistics.fmean,
        min_valid: int | None = None,
    ) -> None:
        if not judges:
            raise ValueError("a judge panel needs at least one judge")
        names = [j.name for j in judges]
        if len(set(names)) != len(names):
            raise ValueError(f"judge names must be distinct: {names}")
        self.judges = tuple(judges)
        self.aggregate = aggregate
        self.min_valid = len(judges) if min_valid is None else min_valid
        self._pool = ThreadPoolExecutor(len(judges), thread_name_prefix="memeval-judge")

    @classmethod
    def from_models(
        cls, prompt: JudgePrompt, settings: LLMSettings, models: Sequence[str], **kwargs: Any
    ) -> JudgePanel:
        """One judge per model name, all sharing one cache file connection."""
        return cls.of_members(settings, [(PanelMember(model, model), prompt, {}) for model in models], **kwargs)

    @classmethod
    def of_members(
        cls,
        settings: LLMSettings,
        members: Sequence[tuple[PanelMember, JudgePrompt, Mapping[str, Any]]],
        **kwargs: Any,
    ) -> JudgePanel:
        """One judge per (member, its prompt, the call settings its protocol pins), all
        sharing one cache file connection."""
        cache = None
        if settings.cache_mode != "off" and settings.cache_path is not None:
            cache = CallCache.for_settings(settings)
        judges = []
        for member, prompt, call in members:
            member_settings = replace(settings, model=member.model, **call)
            judge = LLMJudge(
                prompt, member_settings, caller=ModelCaller(member_settings, cache=cache), name=member.name
            )
            judge._owns_caller = True  # closing the shared cache twice is harmless
            judges.append(judge)
        return cls(judges, **kwargs)

    def verdicts(self, item: Item, answer: Answer, *, label: str | None = None) -> dict[str, Verdict | JudgeFailure]:
        """Each judge's verdict, or its failure to give a readable one; transport errors raise."""
        # each call runs in a copy of this context, so the item's repeat keys its cache entry
        futures = {
            j.name: self._pool.submit(contextvars.copy_context().run, j.score, item, answer, label=label)
            for j in self.judges
        }
        out: dict[str, Verdict | JudgeFailure] = {}
        for name, future in futures.items():
            try:
                out[name] = future.result()
            except JudgeOutputError as exc:
                out[name] = JudgeFailure(name, exc.reason, exc.raw)
        return out

    def score(self, item: Item, answer: Answer, *, label: str | None = None) -> Verdict:
        results = self.verdicts(item, answer, label=label)
        valid = {n: v for n, v in results.items() if isinstance(v, Verdict)}
        per_judge = {
            name: {"score": r.score, "correct": r.correct, "reason": r.reason}
            if isinstance(r, Verdict)
            else {"invalid": r.reason, "raw": r.raw}
            for name, r in results.items()
        }
        scored = [v.score for v in valid.values() if v.score is not None]
        if len(scored) < self.min_valid:
            failures = {n: r for n, r in results.items() if isinstance(r, JudgeFailure)}
            raw = "; ".join(f"{n}: {r.raw[:80]!r}" for n, r in failures.items())
            reason = f"{len(scored)} of {len(results)} judges gave a valid score (need {self.min_valid})"
            raise JudgeOutputError("panel", reason, raw, label)
        votes = [v.correct for v in valid.values()]
        known = [c for c in votes if c is not None]
        correct = sum(known) * 2 > len(known) if len(known) == len(votes) else None
        return Verdict(correct=correct, score=self.aggregate(scored), detail={"judges": per_judge})

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for judge in self.judges:
            judge.close()


class PanelFactory:
    """What `Suite.llm_judge` is given: builds JudgePanels of the run's judges.

    `factory(prompt, **call)`: every judge grades with `prompt` (call settings, e.g.
    max_tokens=10, override the run's). `factory.named(prompts)`: in a suite that names its
    judge prompts (`Suite.judge_prompts`), each judge grades with the one it names.
    """

    def __init__(self, settings: LLMSettings, members: Sequence[PanelMember]) -> None:
        self.settings = settings
        self.members = tuple(members)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(member.name for member in self.members)

    def __call__(self, prompt: JudgePrompt, **call: Any) -> JudgePanel:
        return JudgePanel.of_members(self.settings, [(member, prompt, call) for member in self.members])

    def named(self, prompts: Mapping[str, ProtocolPrompt]) -> JudgePanel:
        chosen = []
        for member in self.members:
            protocol = prompts.get(member.prompt or "")
            if protocol is None:
                raise ValueError(
                    f"judge {member.name!r}: no judge prompt {member.prompt!r} (prompts: {sorted(prompts)})"
                )
            chosen.append((member, protocol.prompt, protocol.call))
        return JudgePanel.of_members(self.settings, chosen)
