"""The validated settings of one run: what options.py reads from the command line.

A plain frozen value (shipped unchanged to xdist workers), imported by everything that
needs the run's settings without depending on how options are parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errata import Errata
from .gate_syntax import Gate
from .judge_specs import JudgeSpec
from .llm_settings import LLMSettings
from .model_specs import DEFAULT_N_CTX, ModelSpec

if TYPE_CHECKING:
    from .prices import Price
    from .shard_syntax import Shard

#: default seconds one adapter call may take (--memeval-adapter-timeout)
DEFAULT_ADAPTER_TIMEOUT = 600.0
#: texts per forward pass of the minilm embedder (--memeval-embedding-batch)
DEFAULT_EMBEDDING_BATCH = 64
#: seconds the time-to-searchable probe waits for a session's fact (--memeval-searchable-deadline)
DEFAULT_SEARCHABLE_DEADLINE = 60.0


#: what names a memory system's oracle run (--memeval-oracle): "chroma+oracle"
ORACLE_SUFFIX = "+oracle"


def oracle_base(system: str) -> tuple[str, bool]:
    """(the memory system a run's system name stands for, whether it is its oracle run)."""
    if system.endswith(ORACLE_SUFFIX):
        return system.removesuffix(ORACLE_SUFFIX), True
    return system, False


def responder_model(responder: str) -> str | None:
    """The model of `--memeval-responder openai:MODEL`; None for the offline reader."""
    return None if responder == "reader" else responder.removeprefix("openai:")


@dataclass(frozen=True)
class Settings:
    """Validated options of one run; shipped unchanged to xdist workers."""

    memsystems: tuple[str, ...]
    suites: tuple[str, ...]
    size: str
    split: str | None
    seeds: tuple[int, ...] | None
    #: retrieval depths; several sweep every item over them
    ks: tuple[int, ...]
    responder: str
    report: Path | None
    data_dir: Path | None
    embedder: str
    cache_dir: Path
    bootstrap: int
    #: per memory system: settings from --memeval-adapter-config (TOML table named like the system)
    memsystem_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    baseline: Path | None = None
    gates: tuple[Gate, ...] = ()
    max_errors: int = 0
    html: Path | None = None
    #: LLM call settings shared by responder and judges (None when no LLM is used)
    llm: LLMSettings | None = None
    #: the call settings of the LLM gateway (cache mode and file, endpoint, timeouts): `llm`,
    #: or the same options when only a memory system's config names a model; None when
    #: nothing of the run calls an LLM
    gateway: LLMSettings | None = None
    #: --memeval-judge: each judge's model (None: the suite protocol's) and prompt name
    judges: tuple[JudgeSpec, ...] = ()
    snapshot: bool = False
    #: per suite: settings from --memeval-suite-option SUITE.KEY=VALUE (checked against the suite)
    suite_params: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: seconds one memory-system call may take before the item is an error
    adapter_timeout_s: float = DEFAULT_ADAPTER_TIMEOUT
    #: --memeval-local-model: models a loopback llama.cpp server serves for this run
    local_models: tuple[ModelSpec, ...] = ()
    local_n_ctx: int = DEFAULT_N_CTX
    #: how many times each item runs (--memeval-repeat); repeats of a run are one run
    repeats: int = 1
    #: retrieved memories kept in each record (0: none)
    record_memories: int = 10
    #: what gates do with a run that covers part of its suite: allow (with a note) or refuse
    gate_subset: str = "allow"
    #: seconds between progress lines while contexts are filled (0: none)
    progress_s: float = 10.0
    #: texts per forward pass of the minilm embedder (--memeval-embedding-batch)
    embedding_batch: int = DEFAULT_EMBEDDING_BATCH
    #: compare with a baseline run under another protocol (the report names the difference)
    any_protocol: bool = False
    #: continue the run whose journal is beside --memeval-report
    resume: bool = False
    #: --memeval-shard I/N: this job's part of the contexts
    shard: Shard | None = None
    #: a previous report whose durations balance the shards
    shard_durations: Path | None = None
    #: --memeval-prices: per model, the price of a million input and output tokens
    prices: Mapping[str, Price] = field(default_factory=dict)
    #: --memeval-max-cost: the run stops once what its LLM calls cost passes this
    max_cost: float | None = None
    #: --memeval-oracle: each system also runs every item on a store of its evidence sessions
    oracle: bool = False
    #: --memeval-errata: corrections to the suites' golds (each run's corrected metrics beside its own)
    errata: Errata | None = None
    #: pytest's arguments as it parsed them, the ini file's addopts and PYTEST_ADDOPTS first
    #: (how to run it again; the report and a bundle keep them)
    args: tuple[str, ...] = ()
    #: --memeval-bundle: the run bundle written at the end (campaigns/bundle.py)
    bundle: Path | None = None
    #: --memeval-sign: the Ed25519 private key file that signs the bundle
    sign_key: Path | None = None
    #: where each process logs the cached calls and embeddings it uses (llm/call_log.py):
    #: set on the controller of a run with a bundle, and handed to its workers
    call_log: Path | None = None
    #: --memeval-judge-audit N: each LLM-judged suite's judges on answers made from N items' golds
    judge_audit: int = 0
    #: --memeval-token-budget: the responder sees the retrieved memories cut to this many tokens
    token_budget: int | None = None
    #: --memeval-searchable: each session stored is probed for how long until its last message
    #: is retrievable, up to this many seconds (--memeval-searchable-deadline); None: no probe
    searchable_deadline_s: float | None = None

    def with_args(self, args: tuple[str, ...]) -> Settings:
        """These settings of a run started with `args` (pytest's arguments as it parsed them)."""
        return replace(self, args=args)

    def with_call_log(self, directory: Path) -> Settings:
        """These settings with every cache of the run logging the keys it uses into `directory`."""
        llm = replace(self.llm, call_log=directory) if self.llm is not None else None
        gateway = replace(self.gateway, call_log=directory) if self.gateway is not None else None
        return replace(self, call_log=directory, llm=llm, gateway=gateway)

    @property
    def uses_llm(self) -> bool:
        return self.responder != "reader" or bool(self.judges)

    @property
    def k(self) -> int:
        return self.ks[0]

    @property
    def systems(self) -> tuple[str, ...]:
        """The runs' system names: each memory system, then with --memeval-oracle each one's
        oracle run ("chroma+oracle"), a run of its own paired with the system's."""
        oracles = tuple(system + ORACLE_SUFFIX for system in self.memsystems) if self.oracle else ()
        return self.memsystems + oracles

    @property
    def active(self) -> bool:
        """The suites run only when at least one memory system is named."""
        return bool(self.memsystems)
