"""The run's `LLMSettings` from the options of response models, judges and their LLM calls
(declared in llm/options.py). Values are checked here; each problem is one line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .judge_specs import JudgeSpec
from .llm_settings import APIS, CACHE_MODES, STRUCTURED_MODES, LLMSettings
from .model_specs import ModelSpec, parse_specs
from .option_values import choice, http_url, integer, non_negative_float, positive_float
from .settings import responder_model


def local_model_specs(opt: Any, responder: str, judges: tuple[JudgeSpec, ...]) -> tuple[ModelSpec, ...]:
    raw = opt("memeval_local_model")
    if raw is None:
        return ()
    option = "--memeval-local-model"
    specs = parse_specs(option, raw)
    if opt("memeval_base_url") is not None:
        raise ConfigError(f"{option} starts its own endpoint; drop --memeval-base-url")
    if responder == "reader" and not judges:
        raise ConfigError(
            f"{option}: no LLM uses it (pass --memeval-responder openai:{specs[0].alias} or --memeval-judge)"
        )
    served = [spec.alias for spec in specs]
    model = responder_model(responder)
    wanted: list[tuple[str, str | None]] = [("--memeval-responder", model)] if model is not None else []
    wanted += [("--memeval-judge", judge.model) for judge in judges]
    for option_name, model in wanted:
        if model is None:
            raise ConfigError(
                f"--memeval-judge: default asks the protocol's model, which {option} does not serve "
                f"(name a served one: openai:{served[0]})"
            )
        if model not in served:
            raise ConfigError(
                f"{option_name}: model {model!r} is not served by {option} (serving: {', '.join(served)})"
            )
    return specs


def _base_url(raw: str | None) -> str | None:
    """--memeval-base-url, else $OPENAI_BASE_URL (read when the client is built), both checked now."""
    if raw is not None:
        return http_url("--memeval-base-url", raw)
    http_url("$OPENAI_BASE_URL", os.environ.get("OPENAI_BASE_URL") or None)
    return None


def llm_settings(opt: Any, model: str, cache_dir: Path, local_n_ctx: int | None = None) -> LLMSettings:
    """`local_n_ctx`: a local model serves the run (its defaults: see the options' help)."""
    mode = choice("--memeval-llm-cache", opt("memeval_llm_cache"), CACHE_MODES)
    raw_file = opt("memeval_llm_cache_file") or os.environ.get("MEMEVAL_LLM_CACHE_FILE")
    cache_file = Path(raw_file).expanduser().resolve() if raw_file else cache_dir / "llm-calls.sqlite"
    if mode == "replay" and not cache_file.is_file():
        raise ConfigError(
            f"--memeval-llm-cache=replay: no cache file at {cache_file} (record one with readwrite first)"
        )
    if mode != "off" and cache_file.exists() and not cache_file.is_file():
        raise ConfigError(f"--memeval-llm-cache-file: {cache_file} is not a file")
    local = local_n_ctx is not None
    timeout = positive_float("--memeval-timeout", opt("memeval_timeout") or ("120" if local else "60"))
    per_1k = opt("memeval_timeout_per_1k_tokens") or ("60" if local else "0")
    window = opt("memeval_context_window")
    return LLMSettings(
        model=model,
        base_url=_base_url(opt("memeval_base_url")),
        max_tokens=integer("--memeval-max-tokens", opt("memeval_max_tokens"), 1),
        timeout_s=timeout,
        retry_budget_s=max(5 * timeout, 60.0),
        # a local server answers one call at a time: a retry would queue behind the call it replaces
        max_attempts=2 if local else LLMSettings.max_attempts,
        concurrency=integer("--memeval-concurrency", opt("memeval_concurrency") or ("1" if local else "16"), 1),
        cache_mode=mode,  # type: ignore[arg-type]
        cache_path=None if mode == "off" else cache_file,
        structured=choice("--memeval-structured", opt("memeval_structured"), STRUCTURED_MODES),  # type: ignore[arg-type]
        api=choice("--memeval-api", opt("memeval_api"), APIS),  # type: ignore[arg-type]
        context_window=integer("--memeval-context-window", window, 1) if window is not None else local_n_ctx,
        timeout_per_1k_tokens_s=non_negative_float("--memeval-timeout-per-1k-tokens", per_1k),
    )
