"""The price table a user supplies (--memeval-prices prices.toml); there are no built-in
prices, which would go stale.

    # prices per million tokens, in the currency you budget in
    [gpt-4o-mini]
    input = 0.15
    output = 0.60

    ["gpt-4.1"]            # a name with a dot is quoted
    input = 2.0
    output = 8.0

A table is named like the model in the run's requests (the part after `openai:`). A model
without a price leaves its phase's cost unknown (the report says which), never 0.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigError
from ..files.user_files import read_text

OPTION = "--memeval-prices"


class TokenCounts(Protocol):
    """What a price applies to: the tokens of some calls of one model (results.usage.Tokens)."""

    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...


@dataclass(frozen=True)
class Price:
    #: per million prompt (input) and completion (output) tokens
    input: float
    output: float

    def of(self, tokens: TokenCounts) -> float:
        return (tokens.prompt_tokens * self.input + tokens.completion_tokens * self.output) / 1_000_000

    def to_json(self) -> dict[str, float]:
        return {"input": self.input, "output": self.output}


Prices = Mapping[str, Price]


def load_prices(path: Path) -> dict[str, Price]:
    try:
        data = tomllib.loads(read_text(path))
    except OSError as exc:
        raise ConfigError(f"{OPTION}: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{OPTION}: {path} is not a UTF-8 text file (expected TOML)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{OPTION}: {path} is not valid TOML: {exc}") from None
    return prices_from(data, f"{OPTION}: {path}")


def prices_from(data: Mapping[str, Any], where: str) -> dict[str, Price]:
    """A price table from its TOML or JSON form ({model: {input, output}})."""
    prices = {}
    for model, table in data.items():
        if not isinstance(table, Mapping) or set(table) != {"input", "output"}:
            raise ConfigError(f"{where}: [{model}] must hold exactly input and output (per million tokens)")
        values = [table["input"], table["output"]]
        if not all(_price(value) for value in values):
            raise ConfigError(f"{where}: [{model}] prices must be finite numbers >= 0, got {values}")
        prices[model.removeprefix("openai:")] = Price(float(values[0]), float(values[1]))
    if not prices:
        raise ConfigError(f"{where}: no prices (one table per model: [MODEL] input = ... output = ...)")
    return prices


def _price(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def cost(tokens: Mapping[str, TokenCounts], prices: Prices) -> float | None:
    """What these models' tokens cost; None when a model with tokens has no price."""
    total = 0.0
    for model, counted in tokens.items():
        if model not in prices:
            if counted.prompt_tokens or counted.completion_tokens:
                return None
            continue
        total += prices[model].of(counted)
    return total
