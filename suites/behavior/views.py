"""Contexts and items: what is stored, what the response model is shown, what the judge keeps.

The public view of an item carries the question, its category (the battery's tag) and,
for a direct condition, the documents the condition serves under `extra` ("facts",
"corpus", "spec") with `retrieve: False`. It never says which condition it is (the
paper's response model is blind to it), nor whose specification it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.data_files import read_text
from pytest_memeval.types import Context, Item, Message

from .catalog import COHORT, ItemRef, SubjectRef, context_ref
from .conditions import CONDITIONS
from .episodes import heldout_half, training_half
from .facts import extract, facts_text
from .lexicon import AXES
from .pairing import adversarial, random_derangement
from .spec import build_spec

SUITE = "behavior"
#: the view's documents, in the order a context block shows them
DOCUMENT_KEYS = ("facts", "corpus", "spec")
#: LLM-built specifications under --memeval-data (see spec_llm): <dir>/<subject>.md
SPEC_DIR = Path("behavior") / "specs"


@dataclass(frozen=True)
class Documents:
    """Where the specifications come from: built offline, or read from a directory."""

    spec_dir: Path | None = None

    @classmethod
    def from_data_dir(cls, data_dir: Path | None) -> Documents:
        if data_dir is not None and (data_dir / SPEC_DIR).is_dir():
            return cls(data_dir / SPEC_DIR)
        return cls()

    def spec(self, subject: SubjectRef) -> str:
        if self.spec_dir is None:
            return _offline_spec(subject.seed, subject.index)
        return _read_spec(self.spec_dir, subject.id)

    def check(self, seeds: tuple[int, ...]) -> None:
        """Every subject of the seeds' cohorts needs its file (wrong-spec partners included)."""
        if self.spec_dir is None:
            return
        for seed in seeds:
            for index in range(COHORT):
                try:
                    self.spec(SubjectRef(seed, index))
                except DataError as exc:
                    raise ConfigError(f"--memeval-data: {exc}") from None


@lru_cache(maxsize=64)
def _offline_spec(seed: int, index: int) -> str:
    return build_spec(extract(seed, index)).text


@lru_cache(maxsize=64)
def _read_spec(directory: Path, subject_id: str) -> str:
    path = directory / f"{subject_id}.md"
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"behavior specification {path}: {type(exc).__name__}: {exc}") from None
    if not text.strip():
        raise DataError(f"behavior specification {path} is empty")
    return text


def spec_partner(subject: SubjectRef, protocol: str) -> SubjectRef:
    """Whose specification `subject` is served under `protocol` ("own", "v1" or "v2")."""
    if protocol == "own":
        return subject
    pairing = adversarial if protocol == "v1" else random_derangement
    return SubjectRef(subject.seed, pairing(subject.seed, COHORT)[subject.index])


def context(context_id: str) -> Context:
    subject, kind = context_ref(context_id)
    if kind == "direct":
        return Context(context_id, ())
    if kind == "facts":
        facts = extract(subject.seed, subject.index)
        return Context(context_id, tuple((Message("user", fact.text),) for fact in facts))
    chapters = training_half(subject.seed, subject.index).chapters
    return Context(context_id, tuple(tuple(Message("user", p) for p in chapter) for chapter in chapters))


def item(ref: ItemRef, documents: Documents) -> Item:
    subject = ref.subject
    condition = CONDITIONS[ref.condition]
    question = heldout_half(subject.seed, subject.index)[ref.question - 1]
    view = condition.view(
        question.category,
        question.question,
        facts=lambda: facts_text(extract(subject.seed, subject.index)),
        corpus=lambda: training_half(subject.seed, subject.index).text,
        spec=lambda protocol: documents.spec(spec_partner(subject, protocol)),
    )
    action = question.action
    pole = AXES[action.axis].poles[action.pole]
    return Item(
        id=ref.id,
        context_id=ref.context_id,
        cluster=subject.id,
        view=view,
        gold=question.passage,
        strata={
            "condition": ref.condition,
            "category": question.category,
            "question": f"q{ref.question:02d}",
            "subject": subject.id,
            "ingestion": condition.ingestion,
            "situation": "two principles" if question.situation.complication else "one principle",
            "exception": "yes" if question.exception else "no",
            "seed": str(subject.seed),
        },
        private={
            "axis": action.axis,
            "pole": action.pole,
            "variant": action.variant,
            "behaviour": pole.variants[action.variant],
            "principle": AXES[action.axis].key,
        },
    )
