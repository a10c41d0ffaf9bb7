"""Structured outputs: the wire form of a prompt's answer schema, chosen per endpoint.

A prompt template declares the JSON schema of its answer; a request that carries one asks
the server to constrain decoding to it. Servers disagree on how to ask:

    json_schema   {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}
                  OpenAI, vLLM, llama.cpp's llama-server, Ollama
    json_object   {"type": "json_object", "schema": {...}}
                  llama-cpp-python's server (it refuses the OpenAI form)

Mode `auto` sends json_schema and, when an endpoint refuses it (an HTTP error whose message
names response_format), json_object from then on. The choice is remembered per endpoint
for the life of the process (each xdist worker learns it once, with one refused call).
Mode `off` sends no schema. The schema constrains decoding only: the reply is parsed as
strictly as ever, and output that still misses the schema is invalid, never coerced.

A prompt declares its answer's schema by having `schema(subject)` (`DeclaresSchema`: a
response prompt's subject is the item's public view, a judge prompt's the item); whether
its class has it is asked once per class, as protocols.py asks of adapters.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable

JSON_SCHEMA, JSON_OBJECT = "json_schema", "json_object"

Subject = TypeVar("Subject", contravariant=True)


@runtime_checkable
class DeclaresSchema(Protocol[Subject]):
    """An LLM prompt that gives the JSON schema of its answer for a subject (a response
    prompt: the item's public view; a judge prompt: the item), sent as a structured-output
    constraint; None for no constraint."""

    def schema(self, subject: Subject) -> dict[str, Any] | None: ...


def answer_schema(prompt: DeclaresSchema[Subject] | object, subject: Subject) -> dict[str, Any] | None:
    """`prompt.schema(subject)` when the prompt's class declares schemas, else None."""
    return prompt.schema(subject) if _declares_schema(prompt) else None


#: prompt class -> whether it declares `schema`; asked once per class: `isinstance` against
#: a runtime-checkable Protocol walks its members on every call
_DECLARED: dict[type, bool] = {}


def _declares_schema(prompt: object) -> TypeGuard[DeclaresSchema[Any]]:
    cls = type(prompt)
    declared = _DECLARED.get(cls)
    if declared is None:
        declared = _DECLARED[cls] = issubclass(cls, DeclaresSchema)
    return declared


def response_format(form: str, schema: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The request's `response_format` field in `form`."""
    if form == JSON_SCHEMA:
        # OpenAI's strict mode needs an object at the root; other roots go unstrict
        strict = schema.get("type") == "object"
        return {
            "type": JSON_SCHEMA,
            "json_schema": {"name": schema_name(name), "schema": dict(schema), "strict": strict},
        }
    if form == JSON_OBJECT:
        return {"type": JSON_OBJECT, "schema": dict(schema)}
    raise ValueError(f"unknown structured-output form {form!r}")


def schema_name(template: str) -> str:
    """A json_schema name (OpenAI: [a-zA-Z0-9_-], at most 64) from "name@version"."""
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in template.partition("@")[0])
    return (name or "answer")[:64]


def refuses_schema_form(status: int, message: str) -> bool:
    """Whether an HTTP error says the endpoint does not take this response_format.

    llama-cpp-python answers the OpenAI form with HTTP 500 and a validation message naming
    ('body', 'response_format', 'type'); others answer 400 or 422. A rate limit is never one.
    """
    return status >= 400 and status != 429 and "response_format" in message


class FormChoice:
    """The structured-output form per endpoint, learnt in mode auto; process-wide."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: set[str] = set()

    def form(self, mode: str, endpoint: str) -> str:
        if mode != "auto":
            return mode
        with self._lock:
            return JSON_OBJECT if endpoint in self._refused else JSON_SCHEMA

    def refused(self, endpoint: str) -> None:
        with self._lock:
            self._refused.add(endpoint)

    def forget(self) -> None:
        with self._lock:
            self._refused.clear()


#: one per process: every client of an endpoint benefits from what one learnt
FORMS = FormChoice()
