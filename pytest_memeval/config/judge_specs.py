"""--memeval-judge: which models judge, and with which of a suite's judge prompts.

    openai:MODEL            MODEL, with the suite's default judge prompt
    openai:MODEL@PROMPT     MODEL, with the suite's judge prompt named PROMPT
    default                 the suite's default judge prompt, with the model its protocol names
    default@PROMPT          PROMPT, with the model of the protocol it comes from

A suite declares the prompts it accepts (`Suite.judge_prompts`, the default first; locomo
and longmemeval accept `mem0-j` and `longmemeval`). There every judge is named MODEL@PROMPT
in the run key and the reports, so a number says which prompt graded it; in a suite that
names no prompts a judge is named by its model. Text after the last `@` is the prompt.
Everything is checked before the run, one line per problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from .settings import Settings

OPTION = "--memeval-judge"
DEFAULT = "default"
FORM = "openai:MODEL[@PROMPT] or default[@PROMPT]"
_PROMPT_NAME = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class JudgeOption:
    """A judge prompt a suite accepts by name (`--memeval-judge openai:MODEL@NAME`)."""

    description: str
    #: the model the prompt's protocol judges with: what `--memeval-judge=default` asks
    model: str | None = None


@dataclass(frozen=True)
class PanelMember:
    """One judge of the run's panel: its name in reports, the model it asks, and which of
    the suite's named judge prompts it grades with (None: the one prompt the suite gives)."""

    name: str
    model: str
    prompt: str | None = None


@dataclass(frozen=True)
class JudgeSpec:
    """One judge as --memeval-judge names it; None: the protocol's model, the suite's default prompt."""

    model: str | None
    prompt: str | None = None

    def __str__(self) -> str:
        head = DEFAULT if self.model is None else f"openai:{self.model}"
        return head if self.prompt is None else f"{head}@{self.prompt}"


def parse_judge(raw: str) -> JudgeSpec:
    head, at, prompt = raw.rpartition("@")
    if not at:
        head, prompt = raw, ""
    elif not _PROMPT_NAME.fullmatch(prompt):
        raise ConfigError(f"{OPTION}: {raw!r} names no prompt after '@' (form: {FORM})")
    if head.strip() == DEFAULT:
        return JudgeSpec(None, prompt or None)
    kind, _, model = head.partition(":")
    if kind != "openai" or not model.strip():
        raise ConfigError(f"{OPTION}: {raw!r} is not of the form {FORM}")
    return JudgeSpec(model.strip(), prompt or None)


def _resolved(spec: JudgeSpec, prompts: Mapping[str, JudgeOption], suite: str) -> PanelMember | str:
    """`spec` as a member of `suite`'s panel (whose judge prompts are `prompts`), or why it
    cannot judge that suite, in one line."""
    if not prompts:
        if spec.prompt is not None:
            return f"{OPTION}: {spec}: suite {suite!r} has no named judge prompts (name a model only: openai:MODEL)"
        if spec.model is None:
            return f"{OPTION}: default: suite {suite!r} names no judge model (name one: openai:MODEL)"
        return PanelMember(spec.model, spec.model)
    prompt = spec.prompt or next(iter(prompts))
    if prompt not in prompts:
        return f"{OPTION}: {spec}: suite {suite!r} has no judge prompt {prompt!r} (its prompts: {', '.join(prompts)})"
    model = spec.model or prompts[prompt].model
    if model is None:
        return (
            f"{OPTION}: {spec}: suite {suite!r}'s prompt {prompt!r} names no judge model "
            f"(name one: openai:MODEL@{prompt})"
        )
    return PanelMember(f"{model}@{prompt}", model, prompt)


def misfit(spec: JudgeSpec, prompts: Mapping[str, JudgeOption], suite: str) -> str | None:
    """Why `spec` cannot judge `suite`, in one line; None when it can."""
    resolved = _resolved(spec, prompts, suite)
    return resolved if isinstance(resolved, str) else None


def fitting(specs: Iterable[JudgeSpec], prompts: Mapping[str, JudgeOption], suite: str) -> tuple[JudgeSpec, ...]:
    """The judges of --memeval-judge that can judge `suite`: a judge applies to the selected
    suites it fits (`default` to those whose protocol names a model); a suite none fits
    keeps its own judge."""
    return tuple(spec for spec in specs if misfit(spec, prompts, suite) is None)


def panel_members(
    specs: Iterable[JudgeSpec], prompts: Mapping[str, JudgeOption], suite: str
) -> tuple[PanelMember, ...]:
    """The judges of `suite`'s panel, each with its model and prompt resolved."""
    members = []
    for spec in specs:
        resolved = _resolved(spec, prompts, suite)
        if isinstance(resolved, str):
            raise ConfigError(resolved)
        members.append(resolved)
    names = [member.name for member in members]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(f"{OPTION}: suite {suite!r} would have judge {twice[0]!r} twice")
    return tuple(members)


def with_protocol_model(settings: Settings, prompts_of: Mapping[str, Mapping[str, JudgeOption]]) -> Settings:
    """The run's LLM settings name a real model when the first judge is `default` and no
    responder names one (adapters that extract with an LLM take the run's model): the
    protocol model of the first selected suite that has one. `prompts_of`: per selected
    suite graded by an LLM judge, its judge prompts (checked by `panel_members` before)."""
    llm = settings.llm
    if llm is None or settings.responder != "reader" or not settings.judges or settings.judges[0].model is not None:
        return settings
    for suite, prompts in prompts_of.items():
        if prompts and fitting(settings.judges[:1], prompts, suite):
            (member, *_) = panel_members(settings.judges[:1], prompts, suite)
            resolved = replace(llm, model=member.model)
            gateway = resolved if settings.gateway == llm else settings.gateway
            return replace(settings, llm=resolved, gateway=gateway)
    return settings


def off_protocol(judges: Iterable[str], prompts: Mapping[str, JudgeOption]) -> list[str]:
    """One line per judge (MODEL@PROMPT) that departs from the suite's protocol: a prompt
    other than the suite's own (its first), or a model other than the one its prompt's
    protocol names."""
    own = next(iter(prompts), None)
    lines = []
    for name in judges:
        model, _, prompt = name.rpartition("@")
        option = prompts.get(prompt)
        if option is None:
            continue
        if prompt != own:
            lines.append(f"judge {name} grades with the {prompt} prompt, not the suite's own ({own})")
        if option.model is not None and model != option.model:
            lines.append(f"judge {name} is not the protocol's model: {prompt} judges with {option.model}")
    return lines
