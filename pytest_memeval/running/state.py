"""Per-process state of a run: the suites, memory systems and response models, built lazily.

Every pytest process (the controller and each xdist worker) has one `RunState`. Nothing
here is shared between processes; what must agree (item ids, metrics) is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config.judge_specs import fitting, panel_members
from ..config.llm_settings import LLMSettings
from ..config.settings import Settings, oracle_base, responder_model
from ..errors import ConfigError
from ..framework.suite import IndexEntry, Suite, SuiteOptions
from ..llm.metering import Meter
from ..memory.resources import LazyEmbedder, Resources
from ..protocols import Closes, ExplainsLLMOutsideGateway, Judge, MemorySystem, ResponseModel
from ..results.baseline import Baseline
from ..results.records import DETERMINISTIC, RunKey
from .adapter_guard import AdapterGuard, describe
from .progress_tracking import ProgressTracker, tracked_embedder
from .registry import (
    Resolved,
    accepts_settings,
    available_suites,
    build_memsystem,
    check_settings,
    load_suite,
    resolve_memsystem,
)
from .runner import ContextFiller

if TYPE_CHECKING:  # imported when a run calls an LLM: httpx and the server cost ~50 ms of every start
    from ..llm.gateway import LLMGateway


def suite_options(settings: Settings, suite: str, llm: LLMSettings | None = None) -> SuiteOptions:
    """`llm`: the responder's call settings as the suite's own calls use them (default:
    `responder_llm(settings)`)."""
    return SuiteOptions(
        size=settings.size,
        split=settings.split,
        seeds=settings.seeds,
        k=settings.k,
        data_dir=settings.data_dir,
        cache_dir=settings.cache_dir,
        bootstrap=settings.bootstrap,
        params=dict(settings.suite_params.get(suite, {})),
        responder_llm=llm or responder_llm(settings),
    )


def responder_llm(settings: Settings) -> LLMSettings | None:
    """The response model's call settings, or None for the offline reader."""
    model = responder_model(settings.responder)
    if model is None or settings.llm is None:
        return None
    return replace(settings.llm, model=model)


#: constructor settings through which an adapter takes the run's LLM endpoint
LLM_ADAPTER_SETTINGS = ("llm_model", "llm_base_url", "llm_timeout", "llm_max_retries")


def memsystem_caller(system_name: str) -> str:
    """How the gateway names a memory system's calls (in replay misses and recorded rows)."""
    return f"memsystem {system_name!r}"


def suite_target(name: str) -> str:
    """A suite name (bundled or from an entry point) or a `pkg.module:Class` import path."""
    if ":" in name:
        return name
    targets = available_suites()
    if name not in targets:
        raise ConfigError(f"unknown memeval suite {name!r} (available: {', '.join(targets)})")
    return targets[name]


@dataclass
class RunState:
    settings: Settings
    memsystems: dict[str, Resolved]
    _suites: dict[str, Suite] = field(default_factory=dict)
    _offline_suites: dict[str, Suite] = field(default_factory=dict)
    _systems: dict[str, MemorySystem] = field(default_factory=dict)
    _fillers: dict[str, ContextFiller] = field(default_factory=dict)
    _responders: dict[str, ResponseModel] = field(default_factory=dict)
    _judges: dict[str, Judge] = field(default_factory=dict)
    _judge_names: dict[str, str] = field(default_factory=dict)
    _indexes: dict[str, Sequence[IndexEntry]] = field(default_factory=dict)
    _guards: dict[str, AdapterGuard] = field(default_factory=dict)
    #: memory systems whose own LLM calls go through the gateway
    _routed: set[str] = field(default_factory=set)
    workdir: Path | None = None
    embedder: LazyEmbedder | None = None
    #: failures not tied to one item (a memory system failing in close), one line each
    session_errors: list[str] = field(default_factory=list)
    #: --memeval-baseline's records and protocol, read on the controller only
    baseline: Baseline | None = None
    #: this process's fills and embeddings, for the terminal's progress line
    progress: ProgressTracker = field(default_factory=ProgressTracker)
    #: this process's LLM gateway (`start_gateway`), through which every LLM call of it goes
    gateway: LLMGateway | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> RunState:
        """Resolve every name now, so that a typo is a usage error before collection."""
        memsystems = {name: resolve_memsystem(name) for name in settings.memsystems}
        for name, resolved in memsystems.items():
            check_settings(resolved, settings.memsystem_config.get(name, {}))
        return cls(settings, memsystems)

    def suite(self, name: str) -> Suite:
        if name not in self._suites:
            suite_class = load_suite(suite_target(name))
            llm = responder_llm(self.settings)
            options = suite_options(self.settings, suite_class.name, llm and self._through_gateway(llm, "responder"))
            self._suites[name] = suite_class(options)
        return self._suites[name]

    def offline_suite(self, name: str) -> Suite:
        """The suite as a run with the offline reader builds it: building its contexts makes
        no LLM call (what the estimate reads a context's messages from)."""
        if name not in self._offline_suites:
            suite = self.suite(name)
            self._offline_suites[name] = type(suite)(replace(suite.options, responder_llm=None))
        return self._offline_suites[name]

    def index(self, name: str) -> Sequence[IndexEntry]:
        """A suite's item index, built once per process (configure and collection both ask)."""
        if name not in self._indexes:
            self._indexes[name] = self.suite(name).index()
        return self._indexes[name]

    def rebind(self, settings: Settings) -> None:
        """The same run with new settings (a local model server's address, known only once it
        is up): suites built so far are rebuilt on next use; their item indexes stay."""
        self.settings = settings
        self._suites.clear()

    def start_gateway(self) -> None:
        """Start this process's LLM gateway when the run calls an LLM (suites built before
        it are rebuilt on next use, on its routes). Stopped by `stop_gateway`."""
        if self.settings.gateway is None or self.gateway is not None:
            return
        from ..llm.gateway import LLMGateway

        self.gateway = LLMGateway(self.settings.gateway).start()
        self._suites.clear()

    def stop_gateway(self) -> None:
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            gateway.stop()

    def _through_gateway(self, llm: LLMSettings, caller: str) -> LLMSettings:
        """The plugin's own model calls (`caller`: responder, judge) forwarded by the gateway,
        which counts them; ModelCaller records them."""
        if self.gateway is None:
            return llm
        return self.gateway.forwarding(llm, caller)

    def use_workdir(self, workdir: Path) -> None:
        self.workdir = workdir
        self.embedder = LazyEmbedder(
            self.settings.embedder,
            self.settings.cache_dir,
            self.settings.embedding_batch,
            loading=lambda what: self.progress.loading(what),  # the tracker a worker is given later
            call_log=self.settings.call_log,
        )

    def guard(self, system_name: str) -> AdapterGuard:
        if system_name not in self._guards:
            self._guards[system_name] = AdapterGuard(system_name, self.settings.adapter_timeout_s)
        return self._guards[system_name]

    def filler(self, system_name: str) -> ContextFiller:
        """The memory system's filler, its adapter built on first use (on the adapter's own
        thread); a failed construction fails every item of the system with its one line. A
        system's oracle run ("chroma+oracle") fills the system's own adapter, in namespaces
        of its own."""
        system_name = oracle_base(system_name)[0]
        if system_name not in self._fillers:
            if self.workdir is None or self.embedder is None:
                raise RuntimeError("RunState.use_workdir must be called before memory systems are built")
            guard = self.guard(system_name)
            workdir = self.workdir / _safe_dirname(system_name)
            workdir.mkdir(parents=True, exist_ok=True)
            resources = Resources(workdir, tracked_embedder(self.embedder.get, self.progress), self.settings.embedder)
            settings = self.adapter_settings(system_name)
            resolved = self.memsystems[system_name]
            system = guard.construct(lambda: build_memsystem(resolved, settings, resources))
            self._systems[system_name] = system
            self._fillers[system_name] = ContextFiller(
                guard,
                system,
                progress=self.progress,
                meter=self.meter(system_name),
                token_budget=self.settings.token_budget,
                searchable_deadline_s=self.settings.searchable_deadline_s,
            )
        return self._fillers[system_name]

    def outside_gateway(self) -> list[str]:
        """One line per memory system whose own LLM calls cannot go through the gateway, as
        its optional `llm_outside_gateway(settings)` classmethod says (for these settings)."""
        lines: list[str] = []
        for name, resolved in self.memsystems.items():
            adapter = resolved.load()
            if not isinstance(adapter, ExplainsLLMOutsideGateway):
                continue
            line = adapter.llm_outside_gateway(self.settings.memsystem_config.get(name, {}))
            if line:
                lines.append(str(line))
        return lines

    def meter(self, system_name: str) -> Meter | None:
        """The usage of the memory system's own LLM, when its calls go through the gateway."""
        if self.gateway is None or system_name not in self._routed:
            return None
        return self.gateway.meter(memsystem_caller(system_name))

    def run_key(self, suite: Suite, system_name: str, k: int) -> RunKey:
        return RunKey(suite.name, system_name, self.settings.responder, self.judge_name(suite), k)

    def judge_name(self, suite: Suite) -> str:
        """The LLM panel's models when the suite is graded by them, else 'deterministic'."""
        self.judge(suite)
        return self._judge_names[suite.name]

    def adapter_settings(self, system_name: str) -> dict[str, Any]:
        """--memeval-adapter-config settings, plus the run's LLM endpoint for an adapter that can
        use one (LLM_ADAPTER_SETTINGS: mem0 extracts facts with it); the user's own settings
        win, except that the endpoint (theirs or the run's) is reached through this process's
        gateway: `llm_base_url` is the system's own route on 127.0.0.1, which records,
        replays and counts its calls. An adapter whose system runs its LLM through an
        OpenAI-compatible client (or server) needs nothing else: point that client's base
        URL at `llm_base_url`, with any API key (the gateway sends the real one)."""
        settings = dict(self.settings.memsystem_config.get(system_name, {}))
        if not accepts_settings(self.memsystems[system_name], LLM_ADAPTER_SETTINGS):
            return settings
        llm = self.settings.llm
        if llm is not None:
            settings.setdefault("llm_model", llm.model)
            settings.setdefault("llm_base_url", llm.base_url)
            settings.setdefault("llm_timeout", llm.timeout_s)
            settings.setdefault("llm_max_retries", llm.max_attempts - 1)
        if self.gateway is not None and settings.get("llm_model"):
            caller = memsystem_caller(system_name)
            settings["llm_base_url"] = self.gateway.route(caller, settings.get("llm_base_url"))
            self._routed.add(system_name)
        return settings

    def responder(self, suite: Suite) -> ResponseModel:
        if suite.name not in self._responders:
            self._responders[suite.name] = self._build_responder(suite)
        return self._responders[suite.name]

    def _build_responder(self, suite: Suite) -> ResponseModel:
        if self.settings.responder == "reader":
            return suite.reader()
        from ..llm import LLMResponder

        prompt = suite.llm_prompt()
        llm = responder_llm(self.settings)
        if prompt is None or llm is None:
            raise ConfigError(f"--memeval-responder: suite {suite.name!r} has no LLM prompt; use reader")
        return LLMResponder(prompt, self._through_gateway(llm, "responder"), name=self.settings.responder)

    def judge(self, suite: Suite) -> Judge:
        if suite.name not in self._judges:
            self._judges[suite.name] = self._build_judge(suite)
        return self._judges[suite.name]

    def fresh_judge(self, suite: Suite) -> Judge:
        """The suite's judge built anew, for the controller's work after the items ran
        (--memeval-errata, --memeval-judge-audit): the run's own judges are closed with its
        fixtures before the session finishes. The caller closes it."""
        return self._build_judge(suite)

    def _build_judge(self, suite: Suite) -> Judge:
        if self.settings.judges and self.settings.llm is not None:
            from ..llm import PanelFactory

            # each judge's model and prompt for this suite (a suite may name its judge prompts)
            # the judges of --memeval-judge that fit this suite; none: it keeps its own judge
            specs = fitting(self.settings.judges, suite.judge_prompts, suite.name)
            members = panel_members(specs, suite.judge_prompts, suite.name)
            panel = PanelFactory(self._through_gateway(self.settings.llm, "judge"), members)
            judged = suite.llm_judge(panel) if members else None
            if judged is not None:
                self._judge_names[suite.name] = ",".join(panel.names)
                return judged
        self._judge_names[suite.name] = DETERMINISTIC
        return suite.judge()

    def lingering_calls(self) -> list[str]:
        """Adapter calls that timed out and still run (on daemon threads: they end with the process)."""
        return [f"memsystem {name!r} in {call}" for name, guard in self._guards.items() if (call := guard.lingering())]

    def close(self) -> None:
        """Close models, memory systems and the embedder; a failure to close is a session
        error (one line each), never a traceback charged to the last item."""
        for model in (*self._responders.values(), *self._judges.values()):
            if isinstance(model, Closes):
                self._closing(type(model).__name__, model.close)
        for name, system in self._systems.items():
            guard = self.guard(name)
            try:
                guard.call("close", system.close)
            except Exception as exc:
                self.session_errors.append(str(exc))
            guard.shutdown()
        self._systems.clear()
        self._fillers.clear()
        if self.embedder is not None:
            self._closing("embedder", self.embedder.close)

    def _closing(self, what: str, close: Callable[[], Any]) -> None:
        try:
            close()
        except Exception as exc:
            self.session_errors.append(f"{what} failed in close: {describe(exc)}")


def _safe_dirname(name: str) -> str:
    """A directory name for a memory system name such as 'pkg.mod:Class'."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
