"""The suite's items, contexts and markers on the release's real subjects (released_study.py).

Ids name the subject and the battery's own question id: subject `br-augustine`, contexts
`br-augustine-direct|facts|corpus`, items `br-augustine-q07-C4a` (q07 is question_id 7 of
the release's judge and response files).

Conditions as in the paper: C5, C2a, C2c_v2 (the v2 derangement of the release's manifest;
v1's fixed pairing is not in the release), C4 and C4a (the facts), C8 and C9 (the training
half, cut to its first 100,000 words as the paper cut it), and through the memory system
C1 and C3 with controlled ingestion (the facts, one per write) and native ingestion (the
training half, paragraphs packed into sessions of about SESSION_CHARS characters). A
subject without a training half (Hamerton) has no C8, C9 or native items.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.framework.suite import IndexEntry
from pytest_memeval.types import Answer, Context, Item, ItemView, Memory, Message, Trace, Verdict

from .conditions import CONDITIONS, Condition
from .markers import PREFIX
from .released_study import Question, Study, paragraphs

SUITE = "behavior"
ID_PREFIX = "br-"
#: the conditions a released subject has, by the context that holds their items
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("direct", ("C5", "C2a", "C2c_v2", "C4", "C4a", "C8", "C9")),
    ("facts", ("C1", "C3")),
    ("corpus", ("C1_native", "C3_native")),
)
KIND_OF = {key: kind for kind, keys in GROUPS for key in keys}
SESSION_CHARS = 4000
_ITEM = re.compile(rf"^{ID_PREFIX}(?P<subject>[a-z_]+)-q(?P<question>\d+)-(?P<condition>[A-Za-z0-9_]+)$")
_CONTEXT = re.compile(rf"^{ID_PREFIX}(?P<subject>[a-z_]+)-(?P<kind>direct|facts|corpus)$")


def subject_id(subject: str) -> str:
    return f"{ID_PREFIX}{subject}"


def item_id(subject: str, question: int, condition: str) -> str:
    return f"{subject_id(subject)}-q{question:02d}-{condition}"


def available(study: Study, subject: str, condition: str) -> bool:
    spec = CONDITIONS[condition].spec
    if spec == "v2" and subject not in study.partners:
        return False
    needs_corpus = CONDITIONS[condition].corpus or CONDITIONS[condition].memory == "native"
    return not needs_corpus or study.has_training_half(subject)


def index(study: Study, subjects: int, questions: int) -> list[IndexEntry]:
    entries = []
    for subject in study.subjects[:subjects]:
        asked = study.questions(subject)[:questions]
        for kind, keys in GROUPS:
            for question in asked:
                for key in keys:
                    if available(study, subject, key):
                        entries.append(
                            IndexEntry(
                                item_id(subject, question.id, key),
                                f"{subject_id(subject)}-{kind}",
                                marks(CONDITIONS[key], question),
                            )
                        )
    return entries


def marks(condition: Condition, question: Question) -> tuple[str, ...]:
    out = [
        f"{PREFIX}{condition.key}",
        f"{PREFIX}{condition.ingestion}",
        f"{PREFIX}{question.category}",
        f"{PREFIX}released",
    ]
    if condition.spec == "own":
        out.append(f"{PREFIX}with_spec")
    elif condition.spec is not None:
        out.append(f"{PREFIX}wrong_spec")
    return tuple(out)


def context(study: Study, context_id: str) -> Context:
    match = _CONTEXT.match(context_id)
    if match is None or match["subject"] not in study.subjects:
        raise ConfigError(f"not a released behavior context id: {context_id!r}")
    subject, kind = match["subject"], match["kind"]
    if kind == "direct":
        return Context(context_id, ())
    if kind == "facts":
        return Context(context_id, tuple((Message("user", fact),) for fact in study.facts(subject)))
    text = study.training_half(subject)
    if text is None:
        raise ConfigError(f"behavior: {subject} has no training half in the release (no native ingestion)")
    return Context(
        context_id, tuple(tuple(Message("user", p) for p in session) for session in _sessions(paragraphs(text)))
    )


def _sessions(parts: list[str]) -> list[list[str]]:
    sessions: list[list[str]] = [[]]
    size = 0
    for part in parts:
        if sessions[-1] and size + len(part) > SESSION_CHARS:
            sessions.append([])
            size = 0
        sessions[-1].append(part)
        size += len(part)
    return [s for s in sessions if s]


def item(study: Study, ref: str) -> Item:
    match = _ITEM.match(ref)
    subject, condition_key = (match["subject"], match["condition"]) if match else ("", "")
    if (
        match is None
        or subject not in study.subjects
        or condition_key not in KIND_OF
        or not available(study, subject, condition_key)
    ):
        raise ConfigError(f"not a released behavior item id: {ref!r}")
    number = int(match["question"])
    question = next((q for q in study.questions(subject) if q.id == number), None)
    if question is None:
        raise ConfigError(f"not a released behavior item id: {ref!r} (no question {number} in the battery)")
    condition = CONDITIONS[condition_key]
    view = condition.view(
        question.category,
        question.text,
        facts=lambda: "\n".join(study.facts(subject)),
        corpus=lambda: study.corpus(subject) or "",
        spec=lambda protocol: study.spec(subject if protocol == "own" else study.partners[subject]),
    )
    return Item(
        id=ref,
        context_id=f"{subject_id(subject)}-{KIND_OF[condition_key]}",
        cluster=subject_id(subject),
        view=view,
        gold=question.passage,
        strata={
            "condition": condition_key,
            "category": question.category,
            "question": f"q{question.id:02d}",
            "subject": subject_id(subject),
            "ingestion": condition.ingestion,
            "source": "beyond-recall release",
        },
        private={"released": True},
    )


class OfflineReaderRefuses:
    """The offline reader predicts only the generator's subjects: every answer is an error."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        raise ResponseError(
            "behavior: the offline reader cannot answer the release's real subjects; use an LLM responder (--memeval-responder=openai:MODEL)"
        )


class OfflineJudgeRefuses:
    """The offline judge maps the generator's latent behaviours to the rubric; released items have none."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        raise ResponseError(
            "behavior: the release's subjects are graded by the paper's judge prompt; pass --memeval-judge=openai:MODEL[,...]"
        )
