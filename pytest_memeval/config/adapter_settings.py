"""An adapter's settings, as --memeval-adapter-config gives them and as its constructor takes them.

The constructor's keywords are the settings' schema: their names and simple types are what
a table may hold. One typed value may stand for several settings: a parameter whose default
is an `AdapterLLM` (`llm: AdapterLLM = AdapterLLM()`) takes one setting per field, named
`<parameter>_<field>` (`llm_model`, `llm_base_url`, `llm_timeout`, `llm_max_retries`,
`llm_max_tokens`, `llm_temperature`), the field's type its type and the default's value its
default. The table stays flat (what a run's fingerprint and the injection of the run's
endpoint read); `constructor_arguments` gathers those settings into the one value.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class AdapterLLM:
    """The OpenAI-compatible LLM inside a memory system (A-MEM's, LangMem's, graphiti's).

    An adapter declares its own defaults as its parameter's default value
    (`llm: AdapterLLM = AdapterLLM(max_tokens=2048)`)."""

    #: None: the system runs without an LLM (an adapter that needs one says so when built)
    model: str | None = None
    #: None: $OPENAI_BASE_URL, else the openai client's default
    base_url: str | None = None
    #: seconds per attempt
    timeout: float = 120.0
    #: attempts after the first
    max_retries: int = 2
    #: the cap on every answer (small models can loop inside a JSON grammar)
    max_tokens: int = 512
    temperature: float = 0.0
    #: None, or a cap in characters on each string argument of a tool the system offers its
    #: LLM: llama-cpp-python's tool-calling handler generates tool arguments without
    #: `max_tokens`, and a small model looping inside one fills the whole context window
    tool_string_chars: int | None = None


_FIELDS = tuple(field.name for field in fields(AdapterLLM))


def settings_schema(factory: Callable[..., object]) -> dict[str, inspect.Parameter] | None:
    """The settings `factory` takes, by name, each as a parameter (its annotation and
    default): the constructor's own, with an `AdapterLLM` parameter in place of its fields.
    None when the signature cannot be read."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    schema: dict[str, inspect.Parameter] = {}
    for name, parameter in parameters.items():
        if not isinstance(parameter.default, AdapterLLM):
            schema[name] = parameter
            continue
        for field in fields(AdapterLLM):
            key = f"{name}_{field.name}"
            schema[key] = inspect.Parameter(
                key,
                inspect.Parameter.KEYWORD_ONLY,
                default=getattr(parameter.default, field.name),
                annotation=field.type,
            )
    return schema


def constructor_arguments(factory: Callable[..., object], settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` as `factory`'s keyword arguments: the settings of an `AdapterLLM`
    parameter gathered into one value, its default with them in place."""
    arguments = dict(settings)
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return arguments
    for name, parameter in parameters.items():
        if not isinstance(parameter.default, AdapterLLM):
            continue
        given = {field: arguments.pop(f"{name}_{field}") for field in _FIELDS if f"{name}_{field}" in arguments}
        if given:
            arguments[name] = replace(parameter.default, **given)
    return arguments
