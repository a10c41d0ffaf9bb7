"""Versioned prompt templates, one TOML file each under pytest_memeval/prompts/.

    name = "multisource_direct"          # must match the file name
    version = "1"                         # bump on any change of wording
    source = "where the wording comes from (paper, section)"
    system = '''... $question ...'''      # optional
    user = '''... $memories ...'''

or, for several turns, `[[messages]]` tables with `role` and `content`. A message's leading and
trailing newlines are dropped, unless the template says `verbatim = true` (a protocol's prompt
that begins or ends with one, kept byte for byte). Placeholders are
`string.Template` ones (`$name`; `$$` is a literal dollar), so JSON braces need no
escaping. Rendering is strict: every placeholder must be given and nothing else, so a
typo fails loudly instead of leaving `$qustion` in a prompt. `name@version` goes into the
cache key of every call made with the template.

The JSON schema of the answer (sent as a structured-output constraint, see structured.py)
is a `[schema]` table at the end of the file, or `[schemas.<variant>]` tables when the
answer's form depends on the item (memfail's formats). A string value that is exactly
`$name` is a placeholder for a value given in code (e.g. `enum = "$labels"`). The schema
is not part of the rendered messages; when it is sent it is part of the cache key itself,
so changing it needs no new version.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from ..errors import ConfigError

ROLES = ("system", "user", "assistant")
_PLACEHOLDER = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_]*)$")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    messages: tuple[tuple[str, str], ...]  # (role, template text)
    source: str = ""
    description: str = ""
    #: (variant, schema as canonical JSON); variant "" is the [schema] table
    schemas: tuple[tuple[str, str], ...] = ()

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(name for _, text in self.messages for name in Template(text).get_identifiers())

    def render(self, values: Mapping[str, str]) -> list[dict[str, str]]:
        """The chat messages with every placeholder filled from `values`."""
        missing = sorted(self.variables - values.keys())
        unknown = sorted(values.keys() - self.variables)
        if missing or unknown:
            raise ValueError(f"template {self.id}: missing {missing}, unknown {unknown}")
        for name, value in values.items():
            if not isinstance(value, str):
                raise TypeError(f"template {self.id}: ${name} must be a str, got {type(value).__name__}")
        return [{"role": role, "content": Template(text).substitute(values)} for role, text in self.messages]

    def schema(self, values: Mapping[str, Any] | None = None, variant: str = "") -> dict[str, Any] | None:
        """The answer's JSON schema with its `$name` placeholders filled from `values`
        (values it does not use are ignored); None when the template, or this variant,
        declares none."""
        declared = dict(self.schemas).get(variant)
        if declared is None:
            return None
        schema, given = json.loads(declared), values or {}
        missing = sorted(_placeholders(schema) - given.keys())
        if missing:
            raise ValueError(f"template {self.id}: schema {variant or '(default)'} needs values for {missing}")
        return _fill(schema, given)


def prompts_dir() -> Path:
    return Path(str(resources.files("pytest_memeval").joinpath("prompts")))


def load_template(name: str, *, version: str | None = None, directory: Path | None = None) -> PromptTemplate:
    """The template `name` from `directory` (default: the bundled prompts); `version` pins it."""
    path = (directory or prompts_dir()) / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(f"prompt template {name!r} not found ({path})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"prompt template {path}: {exc}") from None
    template = _from_table(data, path)
    if template.name != name:
        raise ConfigError(f"prompt template {path}: name {template.name!r} does not match the file name")
    if version is not None and template.version != version:
        raise ConfigError(f"prompt template {name!r} is version {template.version}, expected {version}")
    return template


def available_templates(directory: Path | None = None) -> list[str]:
    return sorted(path.stem for path in (directory or prompts_dir()).glob("*.toml"))


def _from_table(data: Mapping[str, object], path: Path) -> PromptTemplate:
    def text(key: str, required: bool = True) -> str:
        value = data.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise ConfigError(f"prompt template {path}: {key!r} must be a non-empty string")
        return value

    verbatim = data.get("verbatim", False) is True
    if "messages" in data:
        raw = data["messages"]
        if not isinstance(raw, list) or not raw:
            raise ConfigError(f"prompt template {path}: 'messages' must be a non-empty array of tables")
        messages = tuple(_message(entry, path, verbatim) for entry in raw)
    else:
        turns: Sequence[tuple[str, str]] = [("system", text("system", False)), ("user", text("user"))]
        messages = tuple((role, _body(body, verbatim)) for role, body in turns if body)
    for _, body in messages:
        template = Template(body)
        if not template.is_valid():
            raise ConfigError(f"prompt template {path}: invalid placeholder (write $$ for a literal $)")
    version = data.get("version")
    return PromptTemplate(
        name=text("name"),
        version=str(version) if isinstance(version, int) and not isinstance(version, bool) else text("version"),
        messages=messages,
        source=text("source", False),
        description=text("description", False),
        schemas=_schemas(data, path),
    )


def _schemas(data: Mapping[str, object], path: Path) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, object]] = []
    if "schema" in data:
        found.append(("", data["schema"]))
    variants = data.get("schemas", {})
    if not isinstance(variants, dict):
        raise ConfigError(f"prompt template {path}: 'schemas' must be a table of [schemas.<variant>] tables")
    found += sorted(variants.items())
    out = []
    for variant, schema in found:
        where = f"schemas.{variant}" if variant else "schema"
        if not isinstance(schema, dict) or "type" not in schema:
            raise ConfigError(f"prompt template {path}: [{where}] must be a table with a 'type' (a JSON schema)")
        out.append((variant, json.dumps(schema)))  # in the file's order: a grammar follows it
    return tuple(out)


def _fill(node: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(node, str):
        match = _PLACEHOLDER.match(node)
        return values.get(match.group(1), node) if match else node
    if isinstance(node, dict):
        return {key: _fill(value, values) for key, value in node.items()}
    if isinstance(node, list):
        return [_fill(value, values) for value in node]
    return node


def _placeholders(node: Any) -> set[str]:
    if isinstance(node, str):
        match = _PLACEHOLDER.match(node)
        return {match.group(1)} if match else set()
    if isinstance(node, dict):
        return set().union(*(_placeholders(v) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(_placeholders(v) for v in node)) if node else set()
    return set()


def _body(text: str, verbatim: bool) -> str:
    """A message's text: TOML keeps the newline before a closing ''', and the prompt should
    not end in one, nor begin with one; a `verbatim` template keeps its text as written (a
    protocol's prompt that begins or ends with a newline)."""
    return text if verbatim else text.strip("\n")


def _message(entry: object, path: Path, verbatim: bool) -> tuple[str, str]:
    if not isinstance(entry, dict) or entry.get("role") not in ROLES or not isinstance(entry.get("content"), str):
        raise ConfigError(
            f"prompt template {path}: each message needs a role ({', '.join(ROLES)}) and a content string"
        )
    return entry["role"], _body(entry["content"], verbatim)
