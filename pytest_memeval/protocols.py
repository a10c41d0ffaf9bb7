"""The narrow interfaces everything plugs into, and every optional capability of them.

A memory system stores sessions per namespace and returns ranked memories; a response
model turns a public item view plus memories into an answer; a judge turns an item and
an answer into a verdict. Adapters know nothing of benchmarks, and benchmarks nothing of
pytest.

What an adapter or a response model may offer beyond its protocol is declared here, each
capability a narrow Protocol (a method) or a class attribute with its default, and this
module is the one place that asks a third-party object whether it has one:

| who | capability | declared as | default without it |
|---|---|---|---|
| adapter class | `from_memeval(config, resources)` | `BuildsFromMemeval` | `Class(**config)` |
| adapter class | `check_settings(settings)` | `ChecksSettings` | the signature's types only |
| adapter | `ingest_stats(namespace)` | `ReportsIngest` | no statistics |
| adapter class | `llm_outside_gateway(settings)` | `ExplainsLLMOutsideGateway` | its LLM calls go through the gateway |
| adapter | `keeps_sources` | class (or instance) attribute | False: memories name no source messages |
| adapter | `honours_k` | class (or instance) attribute | True: at most k memories |
| adapter | `stores_nothing` | class attribute | False (the conformance kit's floor) |
| adapter | `rewrites_messages` | class (or instance) attribute | False: memories keep the messages' text |
| adapter | `returns_at_once` | attribute of the adapter's own class (not inherited) | False: each call runs on the system's own thread |
| response model | `answer_item(item_id, view, memories)` | `NamesItems` | `answer(view, memories)` |
| response model | `prefetch(requests)` | `Prefetches` | each answer asked when its test runs |
| response model, judge | `close()` | `Closes` | nothing to release |
| response model | `position_invariant` | class attribute | False: bayes asks every rotation of the options |

An LLM prompt's one capability, `schema(view or item)`, is declared where prompts are sent
(`llm.structured.DeclaresSchema`; without it no structured-output constraint is sent).

A method capability is declared by the object's class: whether a class has it is
asked once (`issubclass` against the Protocol) and remembered, since `isinstance` against a
runtime-checkable Protocol walks its members on every call (6-15 us on Python 3.11) and
the runner asks for every item.

`MemorySystemBase` declares the five attributes with their defaults for an adapter that
likes to inherit them; an adapter that does not inherit it gets the same defaults.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeGuard, runtime_checkable

from .memory.resources import Resources
from .types import Answer, Item, ItemView, Memory, Message, PrefetchRequest, Trace, Verdict


@runtime_checkable
class MemorySystem(Protocol):
    """A store of sessions, one isolated namespace per context."""

    def reset(self, namespace: str) -> None:
        """Forget everything stored under `namespace` (a no-op when it is empty)."""

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        """Store one session under `namespace`."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        """Return at most `k` memories of `namespace`, best first."""

    def dump(self, namespace: str) -> list[Memory] | None:
        """Everything stored under `namespace`, or None when the system cannot list it."""

    def close(self) -> None:
        """Release resources; calling it twice is harmless."""


class MemorySystemBase:
    """An optional base class of adapters: the optional capabilities with their defaults.

    Override an attribute in the subclass (`keeps_sources = True`); `honours_k` may also be
    set per instance where it depends on a setting (letta's modes)."""

    #: each memory returned names the messages it was made from (`Memory.sources`)
    keeps_sources: ClassVar[bool] = False
    #: `retrieve` returns at most k memories; False for a store that returns everything it
    #: holds (the `context` ceiling): the runner does not hold it to k
    honours_k: bool = True
    #: a floor that stores nothing by design: the conformance kit skips the checks that
    #: need stored memories
    stores_nothing: ClassVar[bool] = False
    #: memories are what the system made of the messages (extracted facts, notes, a graph),
    #: not their text: the suites' offline readers cannot read them, the conformance kit
    #: skips its check of what they read, and such a system is measured with an LLM
    #: responder. May be set per instance where it depends on a setting (mem0's infer)
    rewrites_messages: bool = False
    #: every call returns at once: the store lives in this process and does no I/O, takes
    #: no lock and starts no thread (the `context` and `none` stores). The adapter guard
    #: then calls it on the caller's thread instead of handing each call to the system's
    #: own thread; a call that still overruns the time limit fails and retires the system
    #: when it returns (it cannot be abandoned while it runs). Read from the adapter's own
    #: class only: a subclass that may wait declares nothing and is called on its thread
    returns_at_once: ClassVar[bool] = False


@runtime_checkable
class BuildsFromMemeval(Protocol):
    """An adapter class built from its settings and the plugin's `Resources` (a private work
    directory, the run's embedder) instead of `Class(**config)`."""

    def from_memeval(self, config: Mapping[str, Any], resources: Resources) -> MemorySystem: ...


@runtime_checkable
class ChecksSettings(Protocol):
    """An adapter class that checks the values of its settings (ranges, formats) before any
    test runs, raising ValueError with one line."""

    def check_settings(self, settings: Mapping[str, Any]) -> None: ...


@runtime_checkable
class ExplainsLLMOutsideGateway(Protocol):
    """An adapter class whose own LLM calls cannot go through the run's LLM gateway with some
    settings: one line saying why for these settings, None when they can."""

    def llm_outside_gateway(self, settings: Mapping[str, Any]) -> str | None: ...


@runtime_checkable
class ReportsIngest(Protocol):
    """An adapter that says what ingestion did to a namespace (mem0: memories extracted), as
    a JSON object; None when it has nothing to say."""

    def ingest_stats(self, namespace: str) -> Mapping[str, Any] | None: ...


class ResponseModel(Protocol):
    """Turns a public item view and the retrieved memories into an answer."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer: ...


@runtime_checkable
class NamesItems(Protocol):
    """A response model told which item it answers: the LLM responder names it in its
    errors and call log, the multisource reader picks the item's seed's model."""

    def answer_item(self, item_id: str, view: ItemView, memories: Sequence[Memory]) -> Answer: ...


@runtime_checkable
class Prefetches(Protocol):
    """A response model that starts the answers of a context's items in the background when
    the context is filled; returns how many calls it submitted."""

    def prefetch(self, requests: Iterable[PrefetchRequest]) -> int: ...


@runtime_checkable
class Closes(Protocol):
    """A response model or judge that holds resources (a thread pool, a client)."""

    def close(self) -> None: ...


class Judge(Protocol):
    """Turns an item, an answer and what the memory system returned into a verdict."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict: ...


def reports_ingest(system: object) -> TypeGuard[ReportsIngest]:
    """Whether a memory system's class declares `ingest_stats` (`ReportsIngest`)."""
    return _class_declares(type(system), ReportsIngest)


def names_items(responder: object) -> TypeGuard[NamesItems]:
    """Whether a response model's class declares `answer_item` (`NamesItems`)."""
    return _class_declares(type(responder), NamesItems)


def prefetches(responder: object) -> TypeGuard[Prefetches]:
    """Whether a response model's class declares `prefetch` (`Prefetches`)."""
    return _class_declares(type(responder), Prefetches)


#: (class, capability Protocol) -> whether the class has the capability's methods
_DECLARED: dict[tuple[type, Any], bool] = {}


def _class_declares(cls: type, capability: Any) -> bool:
    """Whether `cls` has the methods of the runtime-checkable Protocol `capability`; asked
    once per (class, capability): the classes of a run are few."""
    key = (cls, capability)
    declared = _DECLARED.get(key)
    if declared is None:
        declared = _DECLARED[key] = issubclass(cls, capability)
    return declared


def keeps_sources(system: object) -> bool:
    """Whether a memory system declares `keeps_sources = True`."""
    return _declared(system, "keeps_sources", default=False)


def honours_k(system: object) -> bool:
    """False for an adapter that declares `honours_k = False` (it returns everything it holds)."""
    return _declared(system, "honours_k", default=True)


def stores_nothing(system: object) -> bool:
    """Whether an adapter declares itself a floor (`stores_nothing = True`)."""
    return _declared(system, "stores_nothing", default=False)


def rewrites_messages(system: object) -> bool:
    """Whether an adapter declares that its memories are not the messages' text
    (`rewrites_messages = True`)."""
    return _declared(system, "rewrites_messages", default=False)


def returns_at_once(system: object) -> bool:
    """Whether a memory system's own class declares `returns_at_once = True` (its calls need
    no thread of their own to be bounded in time). Not inherited: a subclass (a test double,
    an adapter built on `context`) may wait on anything, so it must say so itself."""
    value = vars(type(system)).get("returns_at_once", False)
    return value if isinstance(value, bool) else False


def position_invariant(responder: object) -> bool:
    """Whether a response model declares that its answer does not depend on the order of
    the options (`position_invariant = True`): bayes then asks one rotation, not all."""
    return _declared(responder, "position_invariant", default=False)


def _declared(obj: object, name: str, *, default: bool) -> bool:
    """The declared boolean capability `name` of `obj` (the one read of such an attribute);
    anything but a bool counts as not declared."""
    value = getattr(obj, name, default)
    return value if isinstance(value, bool) else default
