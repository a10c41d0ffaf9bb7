"""Plain data that flows through one evaluation: context -> memories -> answer -> verdict.

Everything here is immutable and JSON-friendly (a suite's `Item` subclass may add typed
values that only its judge reads). The split between `ItemView` (public:
what the memory system and the response model may see) and `Item` (adds the private
gold and generator state) is the leakage boundary of the whole plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Message:
    """One turn of a session written to memory.

    `id` is an opaque name of the turn chosen by the suite (LoCoMo's `dia_id`, a hashed
    LongMemEval turn), unique within its context and free of anything an answer could be
    read from; a memory system that keeps provenance returns it in `Memory.sources`.
    """

    role: str
    content: str
    timestamp: str | None = None
    id: str | None = None


Session = Sequence[Message]


@dataclass(frozen=True)
class Memory:
    """One thing a memory system returned: its text, and its rank score if it has one.

    `sources` is the memory's provenance: the messages (their `Message.id`) it was made
    from, for systems that keep it (they declare `keeps_sources = True`). The retrieval
    metrics map a memory to an item's gold `Evidence` through it; a memory without sources
    is mapped by the text-overlap rule instead. Message ids are opaque and public: the
    mapping from them to gold evidence stays with the plugin.

    `verbatim` is the text of the messages the memory holds, as ingested (their
    `Message.content`, one per line), for an adapter whose `text` writes them in a form of
    its own (JSON, a template): the suites' offline readers read it instead of `text`.
    None: `text` holds them (a prefix such as "[timestamp] role: " on their line is fine).
    """

    text: str
    score: float | None = None
    id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    verbatim: str | None = None


@dataclass(frozen=True)
class Context:
    """What one namespace is filled with before its items are asked (a persona, an episode).

    `sessions` is iterated once per fill; a suite whose haystacks are large gives a sequence
    that reads them from disk one session at a time (longmemeval's `_m` file)."""

    id: str
    sessions: Sequence[tuple[Message, ...]]


@dataclass(frozen=True)
class ItemView:
    """The public face of an item: all a memory system or a response model may see.

    `task` names the question template (e.g. multisource "A1"), which is part of the
    question itself; item ids, gold, difficulty and seeds are never here.
    """

    suite: str
    task: str
    question: str
    answer_space: tuple[str, ...] = ()
    allow_abstain: bool = True
    #: the suite's own public data for its reader and prompt (bayes: the catalogue)
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: False for an item answered without retrieval (a condition that hands the model its
    #: context directly): the memory system is not asked
    retrieve: bool = True
    #: the question template's heading, shown by an LLM prompt beside `task` ("Sleep
    #: Duration Count (Sleep, 30 days)"); empty when the suite gives none
    title: str = ""
    #: a gloss of some labels of `answer_space` ("fewer_than_10": "0-9 nights")
    label_notes: Mapping[str, str] = field(default_factory=dict)


#: a value as JSON holds it: what an item's gold is, so that a record keeps it as it was
Gold: TypeAlias = "str | int | float | bool | None | list[Gold] | tuple[Gold, ...] | dict[str, Gold]"


@dataclass(frozen=True)
class Evidence:
    """An item's gold evidence: the messages of its context that its answer rests on.

    Private, like `Item.gold`: it never reaches the memory system or the response model.
    Each message is the very `Message` the context stores (its `id` is required: a memory
    maps to it through `Memory.sources`, and `--memeval-oracle` stores the sessions that hold
    it); its `content` serves the text-overlap rule for memories without provenance
    (docs/statistics.md, "Retrieval metrics").
    """

    messages: tuple[Message, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        if not self.messages:
            raise ValueError("Evidence needs at least one message (an item without evidence has evidence=None)")
        missing = [m for m in self.messages if not m.id]
        if missing:
            raise ValueError(f"every evidence message needs its id (Message.id); {len(missing)} have none")

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(m.id for m in self.messages if m.id)


@dataclass(frozen=True)
class Item:
    """A benchmark item: its public view plus what only the judge may read.

    `private` holds JSON-friendly values only; a suite whose judge needs a typed value (bayes:
    the episode's data) subclasses `Item` with a typed field of its own. `evidence` is the
    item's gold evidence where the suite knows it (None: it does not, and the item has no
    retrieval metrics)."""

    id: str
    context_id: str
    cluster: str
    view: ItemView
    gold: Gold
    strata: Mapping[str, str] = field(default_factory=dict)
    private: Mapping[str, Any] = field(default_factory=dict)
    evidence: Evidence | None = None


@dataclass(frozen=True)
class Answer:
    """A response model's output.

    `label` is the forced answer (recorded even when the model abstains, as the
    multisource paper scores it); `valid` is False when the output could not be read,
    in which case `label` is None and `raw` keeps the text for the report.
    """

    label: str | None
    abstained: bool = False
    valid: bool = True
    raw: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    #: an offline reader got memories back and recognised nothing in them (a system that
    #: rewrites what it stores): its abstention says nothing of the system
    memory_unreadable: bool = False


@dataclass(frozen=True)
class Verdict:
    """The judge's decision on one answer."""

    correct: bool | None
    score: float | None = None
    reason: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    #: where the judge attributes the outcome, for judges that do (memfail: "correct",
    #: "storage", "retrieval", ...); empty when it attributes none
    stage: str = ""


@dataclass(frozen=True)
class Trace:
    """What the judge may inspect besides the answer: the memories retrieved for the item,
    and (lazily, since it can be large) everything the memory system holds for its
    namespace, for attributing a failure to storage, summarisation or retrieval."""

    memories: tuple[Memory, ...] = ()
    dump: Callable[[], list[Memory] | None] = lambda: None
    #: whether the memory system declares that its memories name their source messages
    #: (`keeps_sources`); where it does not, an evidence recall is not available, not 0
    keeps_sources: bool = False


#: one item a response model may answer ahead (`Prefetches`): (label naming the item in
#: messages, public view, retrieved memories)
PrefetchRequest = tuple[str, ItemView, Sequence[Memory]]
