"""Command-line options and their validation into one immutable `Settings`. Each feature
declares its options, in its `pytest --help` group (running/, memory/, llm/, analysis/ and
campaigns/ options.py, registered by plugin.py).

Option names are part of the public interface. Every bad value becomes a `ConfigError`
with a one-line message; the plugin reports it as a pytest usage error (exit status 4).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigError
from .adapter_config import read_adapter_config
from .errata import read_errata
from .gate_syntax import parse_gates
from .judge_specs import DEFAULT, parse_judge
from .llm_options import llm_settings, local_model_specs
from .llm_settings import LLMSettings
from .option_values import (
    cache_dir,
    choice,
    import_path,
    integer,
    names,
    positive_float,
    readable_dir,
    readable_file,
    writable_file,
)
from .prices import Price, load_prices
from .settings import DEFAULT_SEARCHABLE_DEADLINE, Settings, responder_model
from .shard_syntax import Shard
from .signing_keys import read_private_key

SIZES = ("smoke", "small", "full")
SPLITS = ("train", "dev", "calibration", "test", "all")
EMBEDDERS = ("minilm", "hashing")
GATE_SUBSET = ("allow", "refuse")


class OptionSource(Protocol):
    """Where option values come from: a pytest.Config, or anything with its `getoption`."""

    def getoption(self, name: str) -> Any: ...


def read_settings(config: OptionSource, suite_names: tuple[str, ...]) -> Settings:
    """Validate the raw options; `suite_names` are the suites this installation offers."""
    opt = config.getoption
    size = choice("--memeval-size", opt("memeval_size"), SIZES)
    split = opt("memeval_split")
    if split is not None:
        split = choice("--memeval-split", split, SPLITS)
    memsystems = names("--memsystem", opt("memsystem"))
    cache = cache_dir(opt("memeval_cache_dir"))
    responder = _responder(opt("memeval_responder"))
    judges = tuple(parse_judge(name) for name in names("--memeval-judge", opt("memeval_judge")))
    local_models = local_model_specs(opt, responder, judges)
    local_n_ctx = integer("--memeval-local-n-ctx", opt("memeval_local_n_ctx"), 1)
    prices = load_prices(Path(opt("memeval_prices")).expanduser()) if opt("memeval_prices") else {}
    llm = None
    if responder != "reader" or judges:
        # a `default` judge's model is known once the suites are: run_setup puts it in
        model = responder_model(responder) or judges[0].model or DEFAULT
        llm = llm_settings(opt, model, cache, local_n_ctx if local_models else None)
    memsystem_config = read_adapter_config(opt("memeval_adapter_config"), memsystems)
    gateway = llm or _adapters_llm(opt, memsystem_config, cache)
    bundle = _bundle(opt("memeval_bundle"), bool(opt("memeval_resume")), gateway)
    return Settings(
        memsystems=memsystems,
        suites=_suites(opt("memeval_suite"), suite_names),
        size=size,
        split=split,
        seeds=_seeds(opt("memeval_seed")),
        ks=tuple(integer("--memeval-k", part, 1) for part in names("--memeval-k", opt("memeval_k"))),
        responder=responder,
        report=writable_file("--memeval-report", opt("memeval_report")),
        data_dir=readable_dir("--memeval-data", opt("memeval_data")),
        embedder=choice("--memeval-embedder", opt("memeval_embedder"), EMBEDDERS),
        embedding_batch=integer("--memeval-embedding-batch", opt("memeval_embedding_batch"), 1),
        cache_dir=cache,
        bootstrap=integer("--memeval-bootstrap", opt("memeval_bootstrap"), 1),
        memsystem_config=memsystem_config,
        baseline=readable_file("--memeval-baseline", opt("memeval_baseline")),
        gates=parse_gates(opt("memeval_gate"), opt("memeval_baseline")),
        max_errors=integer("--memeval-max-errors", opt("memeval_max_errors"), 0),
        html=writable_file("--memeval-html", opt("memeval_html")),
        llm=llm,
        gateway=gateway,
        judges=judges,
        snapshot=bool(opt("memeval_snapshot")),
        suite_params=_suite_params(opt("memeval_suite_option")),
        adapter_timeout_s=positive_float("--memeval-adapter-timeout", opt("memeval_adapter_timeout")),
        local_models=local_models,
        local_n_ctx=local_n_ctx,
        repeats=_repeats(opt("memeval_repeat"), bool(opt("memeval_snapshot"))),
        oracle=bool(opt("memeval_oracle")),
        token_budget=_token_budget(opt("memeval_token_budget")),
        searchable_deadline_s=_searchable_deadline(bool(opt("memeval_searchable")), opt("memeval_searchable_deadline")),
        record_memories=integer("--memeval-record-memories", opt("memeval_record_memories"), 0),
        gate_subset=choice("--memeval-gate-subset", opt("memeval_gate_subset"), GATE_SUBSET),
        progress_s=_seconds_or_off("--memeval-progress", opt("memeval_progress")),
        any_protocol=bool(opt("memeval_any_protocol")),
        resume=_resume(bool(opt("memeval_resume")), opt("memeval_report")),
        shard=Shard.parse(opt("memeval_shard")) if opt("memeval_shard") is not None else None,
        shard_durations=_shard_durations(opt("memeval_shard_durations"), opt("memeval_shard")),
        prices=prices,
        errata=read_errata(opt("memeval_errata")),
        judge_audit=integer("--memeval-judge-audit", opt("memeval_judge_audit") or "0", 0),
        max_cost=_max_cost(
            opt("memeval_max_cost"),
            prices,
            tuple(m for m in (responder_model(responder), *(j.model for j in judges)) if m is not None),
        ),
        bundle=bundle,
        sign_key=_sign_key(opt("memeval_sign"), bundle),
    )


def _bundle(raw: str | None, resume: bool, gateway: LLMSettings | None) -> Path | None:
    """--memeval-bundle: a file to write; the run must record what a replay needs."""
    if raw is None:
        return None
    if resume:
        raise ConfigError(
            "--memeval-bundle: a resumed run's earlier items made calls this run does not see; "
            "bundle the finished report with python -m pytest_memeval bundle REPORT"
        )
    if gateway is not None and gateway.cache_mode == "off":
        raise ConfigError(
            "--memeval-bundle: --memeval-llm-cache=off records no LLM call, so the bundle could not be replayed"
        )
    return writable_file("--memeval-bundle", raw)


def _sign_key(raw: str | None, bundle: Path | None) -> Path | None:
    """--memeval-sign: the key is read now, so that a bad key fails before the run."""
    if raw is None:
        return None
    if bundle is None:
        raise ConfigError("--memeval-sign: signs the --memeval-bundle, which is not given")
    path = Path(raw).expanduser()
    read_private_key("--memeval-sign", path)
    return path


def _max_cost(raw: str | None, prices: dict[str, Price], models: tuple[str, ...]) -> float | None:
    """The budget; every model the run asks must have a price, or the budget means nothing."""
    if raw is None:
        return None
    if not prices:
        raise ConfigError("--memeval-max-cost: needs --memeval-prices (there are no built-in prices)")
    unpriced = [model for model in models if model not in prices]
    if unpriced:
        raise ConfigError(f"--memeval-max-cost: --memeval-prices has no price for model {unpriced[0]!r}")
    return positive_float("--memeval-max-cost", raw)


def _token_budget(raw: str | None) -> int | None:
    return None if raw is None else integer("--memeval-token-budget", raw, 1)


def _searchable_deadline(probe: bool, raw: str | None) -> float | None:
    if raw is not None and not probe:
        raise ConfigError("--memeval-searchable-deadline: bounds --memeval-searchable, which is not given")
    if not probe:
        return None
    return DEFAULT_SEARCHABLE_DEADLINE if raw is None else positive_float("--memeval-searchable-deadline", raw)


def _resume(resume: bool, report: str | None) -> bool:
    if resume and report is None:
        raise ConfigError("--memeval-resume: needs --memeval-report (the journal lives beside the report)")
    return resume


def _shard_durations(raw: str | None, shard: str | None) -> Path | None:
    if raw is not None and shard is None:
        raise ConfigError("--memeval-shard-durations: balances --memeval-shard, which is not given")
    return readable_file("--memeval-shard-durations", raw)


def _adapters_llm(opt: Any, memsystem_config: dict[str, dict[str, Any]], cache: Path) -> LLMSettings | None:
    """The gateway's call settings when no response model or judge is an LLM but a memory
    system's own config names one (`llm_model`); None when nothing of the run calls an LLM."""
    models = [config["llm_model"] for config in memsystem_config.values() if config.get("llm_model")]
    return llm_settings(opt, str(models[0]), cache) if models else None


def _repeats(raw: str, snapshot: bool) -> int:
    repeats = integer("--memeval-repeat", raw, 1)
    if repeats > 1 and snapshot:
        raise ConfigError("--memeval-repeat: a snapshot keeps one verdict per item; drop --memeval-snapshot to repeat")
    return repeats


def _seconds_or_off(option: str, raw: str) -> float:
    return 0.0 if raw.strip() in ("0", "0.0") else positive_float(option, raw)


def _suites(raw: str | None, available: tuple[str, ...]) -> tuple[str, ...]:
    if raw is None:
        return available
    selected = names("--memeval-suite", raw)
    unknown = [name for name in selected if name not in available and ":" not in name]
    if unknown:
        raise ConfigError(
            f"--memeval-suite: unknown suite {unknown[0]!r} (available: {', '.join(available)}; or give pkg.module:Class)"
        )
    return tuple(import_path("--memeval-suite", name) if ":" in name else name for name in selected)


def _suite_params(raw: list[str]) -> dict[str, dict[str, str]]:
    params: dict[str, dict[str, str]] = {}
    for setting in raw:
        name, equals, value = setting.partition("=")
        suite, dot, key = name.strip().partition(".")
        if not (equals and dot and suite and key.strip()):
            raise ConfigError(f"--memeval-suite-option: {setting!r} is not of the form SUITE.KEY=VALUE")
        params.setdefault(suite, {})[key.strip()] = value.strip()
    return params


def _seeds(raw: str | None) -> tuple[int, ...] | None:
    if raw is None:
        return None
    seeds = []
    for part in names("--memeval-seed", raw):
        try:
            seeds.append(int(part))
        except ValueError:
            raise ConfigError(f"--memeval-seed: {part!r} is not an integer") from None
        if seeds[-1] < 0:
            raise ConfigError(f"--memeval-seed: {part!r} is negative")
    return tuple(seeds)


def _responder(raw: str) -> str:
    if raw == "reader":
        return raw
    if raw.startswith("openai:"):
        return f"openai:{_model('--memeval-responder', raw)}"
    raise ConfigError(f"--memeval-responder: unknown responder {raw!r} (available: reader, openai:MODEL)")


def _model(option: str, raw: str) -> str:
    """The model name of an `openai:MODEL` spec."""
    kind, _, model = raw.partition(":")
    if kind != "openai" or not model.strip():
        raise ConfigError(f"{option}: {raw!r} is not of the form openai:MODEL")
    return model.strip()
