"""Which subjects and questions a run evaluates, and how their ids read.

A seed names a cohort of `COHORT` subjects (the paper's 14); the run's size picks how
many of them and how many of each one's 39 held-out questions it asks. The wrong-spec
pairings are drawn over the whole cohort, so an item is the same whatever the size.

Ids: subject `s2026-p03`; its contexts `s2026-p03-direct` (empty: the direct conditions
hand the model their context), `s2026-p03-facts` (controlled ingestion: one fact per
write) and `s2026-p03-corpus` (native ingestion: the raw training half); an item
`s2026-p03-q07-C4a` (subject, question, condition).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.suite import SuiteOptions

from .conditions import CONDITIONS
from .episodes import HELDOUT_QUESTIONS

COHORT = 14
DEFAULT_SEEDS = (2026,)
#: size -> (subjects per seed, questions per subject)
SIZES: dict[str, tuple[int, int]] = {"smoke": (6, 4), "small": (14, 10), "full": (COHORT, HELDOUT_QUESTIONS)}
#: the kind of each context: which conditions' items it holds
CONTEXT_KINDS: dict[str, str] = {"direct": "direct", "facts": "controlled", "corpus": "native"}
_SUBJECT = re.compile(r"^s(\d+)-p(\d{2})$")
_CONTEXT = re.compile(r"^(s\d+-p\d{2})-(direct|facts|corpus)$")
_ITEM = re.compile(r"^(s\d+-p\d{2})-q(\d{2})-([A-Za-z0-9_]+)$")


@dataclass(frozen=True)
class SubjectRef:
    seed: int
    index: int

    @property
    def id(self) -> str:
        return f"s{self.seed}-p{self.index + 1:02d}"


@dataclass(frozen=True)
class ItemRef:
    subject: SubjectRef
    question: int
    condition: str

    @property
    def context_kind(self) -> str:
        memory = CONDITIONS[self.condition].memory
        return {None: "direct", "controlled": "facts", "native": "corpus"}[memory]

    @property
    def context_id(self) -> str:
        return f"{self.subject.id}-{self.context_kind}"

    @property
    def id(self) -> str:
        return f"{self.subject.id}-q{self.question:02d}-{self.condition}"


def subject_ref(text: str) -> SubjectRef:
    match = _SUBJECT.match(text)
    if not match or not 1 <= int(match.group(2)) <= COHORT:
        raise ConfigError(f"not a behavior subject id: {text!r}")
    return SubjectRef(int(match.group(1)), int(match.group(2)) - 1)


def context_ref(context_id: str) -> tuple[SubjectRef, str]:
    match = _CONTEXT.match(context_id)
    if not match:
        raise ConfigError(f"not a behavior context id: {context_id!r}")
    return subject_ref(match.group(1)), match.group(2)


def item_ref(item_id: str) -> ItemRef:
    match = _ITEM.match(item_id)
    if not match or match.group(3) not in CONDITIONS or not 1 <= int(match.group(2)) <= HELDOUT_QUESTIONS:
        raise ConfigError(f"not a behavior item id: {item_id!r}")
    return ItemRef(subject_ref(match.group(1)), int(match.group(2)), match.group(3))


@dataclass(frozen=True)
class Selection:
    seeds: tuple[int, ...]
    subjects: int
    questions: int

    def subject_refs(self) -> list[SubjectRef]:
        return [SubjectRef(seed, i) for seed in self.seeds for i in range(self.subjects)]


def selection(options: SuiteOptions) -> Selection:
    if options.size not in SIZES:
        raise ConfigError(
            f"--memeval-size: the behavior suite has no size {options.size!r} (sizes: {', '.join(SIZES)})"
        )
    subjects, questions = SIZES[options.size]
    return Selection(tuple(options.seeds or DEFAULT_SEEDS), subjects, questions)
