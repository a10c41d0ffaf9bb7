"""Names to objects: bundled suites, built-in memory systems and third-party plugins.

Resolution imports lazily so that loading the plugin stays cheap (chromadb and torch are
only imported when a run actually uses them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, cast

from ..config.adapter_settings import constructor_arguments, settings_schema
from ..config.option_values import import_path
from ..errors import ConfigError
from ..framework.suite import Suite
from ..memory.resources import Resources
from ..protocols import BuildsFromMemeval, ChecksSettings, MemorySystem

SUITE_ENTRY_POINTS = "pytest_memeval.suites"
MEMSYSTEM_ENTRY_POINTS = "pytest_memeval.memsystems"

BUNDLED_SUITES: Mapping[str, str] = {
    "multisource": "pytest_memeval.suites.multisource.suite:MultisourceSuite",
    "memfail": "pytest_memeval.suites.memfail.suite:MemfailSuite",
    "knowme": "pytest_memeval.suites.knowme.suite:KnowmeSuite",
    "behavior": "pytest_memeval.suites.behavior.suite:BehaviorSuite",
    "bayes": "pytest_memeval.suites.bayes.suite:BayesSuite",
    "locomo": "pytest_memeval.suites.locomo.suite:LocomoSuite",
    "longmemeval": "pytest_memeval.suites.longmemeval.suite:LongMemEvalSuite",
    "personamem": "pytest_memeval.suites.personamem.suite:PersonaMemSuite",
    "halumem": "pytest_memeval.suites.halumem.suite:HaluMemSuite",
    "beam": "pytest_memeval.suites.beam.suite:BeamSuite",
}

BUILTIN_MEMSYSTEMS: Mapping[str, str] = {
    "none": "pytest_memeval.memory.none:NoMemory",
    "context": "pytest_memeval.memory.context:ContextMemory",
    "chroma": "pytest_memeval.memory.chroma:ChromaMemory",
    "mem0": "pytest_memeval.memory.mem0:Mem0Memory",
    "amem": "pytest_memeval.memory.amem:AMemMemory",
    "langmem": "pytest_memeval.memory.langmem:LangMemMemory",
    "graphiti": "pytest_memeval.memory.graphiti:GraphitiMemory",
    "letta": "pytest_memeval.memory.letta:LettaMemory",
    "memos": "pytest_memeval.memory.memos:MemosMemory",
    "supermemory": "pytest_memeval.memory.supermemory:SupermemoryMemory",
}


@dataclass(frozen=True)
class Resolved:
    """A name and where it points, e.g. ('chroma', 'pytest_memeval.memory.chroma:ChromaMemory')."""

    name: str
    target: str

    def load(self) -> Callable[..., MemorySystem]:
        """The adapter's class (or factory), imported."""
        factory = load_object(self.target)
        if not callable(factory):
            raise ConfigError(f"--memsystem: {self.target!r} is not a class or a factory")
        return cast("Callable[..., MemorySystem]", factory)


def load_suite(target: str) -> type[Suite]:
    """The suite class at `target` (pkg.module:Class), imported; one that is no Suite is one line."""
    suite_class = load_object(target)
    if not (isinstance(suite_class, type) and issubclass(suite_class, Suite)):
        raise ConfigError(f"--memeval-suite: {target!r} is not a subclass of pytest_memeval.Suite")
    return suite_class


def load_object(target: str) -> object:
    """What `target` (pkg.module:attribute.path) names, imported; failures are one line."""
    module_name, _, attribute = target.partition(":")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"cannot import {module_name!r} for {target!r}: {exc}{_how_found(module_name, exc)}"
        ) from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{module_name!r} has no attribute {attribute!r}") from None
    return obj


def _how_found(module_name: str, exc: ImportError) -> str:
    """How Python finds the module, when it is the module itself that was not found (not
    something it imports)."""
    if not isinstance(exc, ModuleNotFoundError) or exc.name is None:
        return ""
    if not (module_name == exc.name or module_name.startswith(f"{exc.name}.")):
        return ""
    top = exc.name.partition(".")[0]
    return (
        f" (Python imports it from sys.path: run from the directory holding {top}.py or the {top}/ package "
        "with PYTHONPATH=., or install your package with pip install -e .)"
    )


def available_suites() -> dict[str, str]:
    """Bundled suites plus those registered by other packages."""
    suites = dict(BUNDLED_SUITES)
    for entry in entry_points(group=SUITE_ENTRY_POINTS):
        suites.setdefault(entry.name, entry.value)
    return suites


def imported_suites(names: Iterable[str]) -> dict[str, str]:
    """The suites --memeval-suite names by import path (pkg.module:Class), each its own
    target, imported now: one that does not import, or is no Suite, is one line."""
    targets = {}
    for name in (name for name in names if ":" in name):
        load_suite(name)
        targets[name] = name
    return targets


def resolve_memsystem(name: str) -> Resolved:
    """Map a --memsystem name to an import target, failing with a one-line ConfigError."""
    if name in BUILTIN_MEMSYSTEMS:
        return Resolved(name, BUILTIN_MEMSYSTEMS[name])
    if ":" in name:
        load_object(import_path("--memsystem", name))  # fail now, on the controller, rather than once per test
        return Resolved(name, name)
    for entry in entry_points(group=MEMSYSTEM_ENTRY_POINTS):
        if entry.name == name:
            return Resolved(name, entry.value)
    known = sorted(set(BUILTIN_MEMSYSTEMS) | {e.name for e in entry_points(group=MEMSYSTEM_ENTRY_POINTS)})
    raise ConfigError(
        f"--memsystem: unknown memory system {name!r} (known: {', '.join(known)}; or give pkg.module:Class)"
    )


def check_settings(resolved: Resolved, settings: Mapping[str, Any]) -> None:
    """Reject settings the adapter does not take, or of the wrong type, before any test runs.

    The adapter's constructor signature is the schema (`config.adapter_settings`: an
    `AdapterLLM` parameter stands for its settings `llm_model`, `llm_base_url`, ...): keyword
    names must exist and values must match simple annotations (str, int, float, bool, and
    optionals of them). An adapter may also check values (ranges, formats) in a
    `check_settings(settings)` classmethod that raises ValueError with one line
    (`protocols.ChecksSettings`).
    """
    factory = resolved.load()
    parameters = settings_schema(factory)
    if parameters is None:
        return
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    for key, value in settings.items():
        parameter = parameters.get(key)
        if parameter is None or key in _PROVIDED_BY_PLUGIN:
            if accepts_any and key not in _PROVIDED_BY_PLUGIN:
                continue
            known = ", ".join(k for k in parameters if k not in _PROVIDED_BY_PLUGIN and k != "self")
            raise ConfigError(
                f"--memeval-adapter-config [{resolved.name}]: unknown setting {key!r} (settings: {known or 'none'})"
            )
        expected = _simple_types(parameter.annotation)
        if expected and not _matches(value, expected):
            names = " or ".join(t.__name__ for t in expected)
            raise ConfigError(f"--memeval-adapter-config [{resolved.name}]: {key} must be {names}, got {value!r}")
    if isinstance(factory, ChecksSettings):
        try:
            factory.check_settings(settings)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"--memeval-adapter-config [{resolved.name}]: {exc}") from None


def accepts_settings(resolved: Resolved, names: tuple[str, ...]) -> bool:
    """Whether the adapter takes every one of the settings `names`."""
    parameters = settings_schema(resolved.load())
    return parameters is not None and all(name in parameters for name in names)


_PROVIDED_BY_PLUGIN = frozenset({"embedder", "resources"})
_SIMPLE = {"str": str, "int": int, "float": float, "bool": bool, "Path": str}


def _simple_types(annotation: Any) -> tuple[type, ...]:
    """(int,) for 'int', (str,) for 'str | None', () when the annotation is not simple."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    parts = [part.strip() for part in str(text).split("|") if part.strip() != "None"]
    types = tuple(_SIMPLE[part] for part in parts if part in _SIMPLE)
    return types if len(types) == len(parts) else ()


def _matches(value: Any, expected: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in expected:
        return False  # TOML true must not pass for an int setting
    if float in expected and isinstance(value, int):
        return True
    return isinstance(value, expected)


def build_memsystem(resolved: Resolved, config: Mapping[str, Any], resources: Resources) -> MemorySystem:
    """Instantiate an adapter: `from_memeval(arguments, resources)` when it has one
    (`protocols.BuildsFromMemeval`), else `cls(**arguments)`, where `arguments` are the
    settings as the constructor takes them (an `AdapterLLM`'s gathered into one value)."""
    factory = resolved.load()
    arguments = constructor_arguments(factory, config)
    if isinstance(factory, BuildsFromMemeval):
        return factory.from_memeval(arguments, resources)
    return factory(**arguments)
