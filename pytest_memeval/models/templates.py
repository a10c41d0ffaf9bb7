"""Versioned prompt templates, one TOML file each under pytest_memeval/prompts/.

    name = "multisource_direct"          # must match the file name
    version = "1"                         # bump on any change of wording
    source = "where the wording comes from (paper, section)"
    system = '''... $question ...'''      # optional
    user = '''... $memories ...'''

or, for several turns, `[[messages]]` tables with `role` and `content`. Placeholders are
`string.Template` ones (`$name`; `$$` is a literal dollar), so JSON braces need no
escaping. Rendering is strict: every placeholder must be given and nothing else, so a
typo fails loudly instead of leaving `$qustion` in a prompt. `name@version` goes into the
cache key of every call made with the template.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Mapping, Sequence

from ..errors import ConfigError

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    messages: tuple[tuple[str, str], ...]  # (role, template text)
    source: str = ""
    description: str = ""

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

    if "messages" in data:
        raw = data["messages"]
        if not isinstance(raw, list) or not raw:
            raise ConfigError(f"prompt template {path}: 'messages' must be a non-empty array of tables")
        messages = tuple(_message(entry, path) for entry in raw)
    else:
        turns: Sequence[tuple[str, str]] = [("system", text("system", False)), ("user", text("user"))]
        # TOML keeps the newline before a closing '''; the prompt should not end in one
        messages = tuple((role, body.strip("\n")) for role, body in turns if body)
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
    )


def _message(entry: object, path: Path) -> tuple[str, str]:
    if not isinstance(entry, dict) or entry.get("role") not in ROLES or not isinstance(entry.get("content"), str):
        raise ConfigError(f"prompt template {path}: each message needs a role ({', '.join(ROLES)}) and a content string")
    return entry["role"], entry["content"].strip("\n")
