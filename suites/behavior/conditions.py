"""The conditions of the paper (section 3.2, App. C.1): what the response model is served.

The response model is the same in every condition; only the context changes. Direct
conditions put their context in the item's view and ask the memory system nothing; the
memory conditions serve the top-k the memory system retrieves for the question (plus the
specification for C3), from the subject's facts written one per write ("controlled") or
from the raw training corpus as the system ingests it ("native").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_memeval.types import ItemView


@dataclass(frozen=True)
class Condition:
    key: str
    title: str
    #: None, "own", or a wrong-spec protocol: "v1" (fixed adversarial pairing), "v2" (random derangement)
    spec: str | None = None
    facts: bool = False
    corpus: bool = False
    #: None for a direct condition, else how the memory system was filled: "controlled" or "native"
    memory: str | None = None

    @property
    def ingestion(self) -> str:
        return self.memory or "direct"

    def view(
        self,
        category: str,
        question: str,
        facts: Callable[[], str],
        corpus: Callable[[], str],
        spec: Callable[[str], str],
    ) -> ItemView:
        """The item's view under this condition: the documents it serves directly (`spec`
        is given the condition's spec protocol), and no retrieval for a direct condition."""
        extra: dict[str, object] = {}
        if self.facts:
            extra["facts"] = facts()
        if self.corpus:
            extra["corpus"] = corpus()
        if self.spec is not None:
            extra["spec"] = spec(self.spec)
        return ItemView("behavior", category, question, extra=extra, retrieve=self.memory is not None)


CONDITIONS: dict[str, Condition] = {
    c.key: c
    for c in (
        Condition("C5", "nothing (baseline)"),
        Condition("C2a", "specification only", spec="own"),
        Condition("C2c_v1", "wrong specification, fixed adversarial pairing", spec="v1"),
        Condition("C2c_v2", "wrong specification, random derangement", spec="v2"),
        Condition("C4", "all extracted facts", facts=True),
        Condition("C4a", "facts + specification", spec="own", facts=True),
        Condition("C8", "raw training corpus", corpus=True),
        Condition("C9", "corpus + specification", spec="own", corpus=True),
        Condition("C1", "top-k retrieval, controlled ingestion (one fact per write)", memory="controlled"),
        Condition("C3", "top-k retrieval + specification, controlled ingestion", spec="own", memory="controlled"),
        Condition("C1_native", "top-k retrieval, native ingestion (raw corpus)", memory="native"),
        Condition("C3_native", "top-k retrieval + specification, native ingestion", spec="own", memory="native"),
    )
}

#: the condition pairs the summary tests (treatment, baseline), as in the paper
PAIRS: tuple[tuple[str, str], ...] = (
    ("C4a", "C5"),
    ("C2a", "C5"),
    ("C2a", "C2c_v1"),
    ("C2a", "C2c_v2"),
    ("C4a", "C4"),
    ("C9", "C8"),
    ("C3", "C1"),
    ("C3_native", "C1_native"),
)

BASELINE = "C5"


def metric_names() -> tuple[str, ...]:
    """Every metric a summary may hold: each condition's score and each pair's difference."""
    return (*CONDITIONS, *(f"delta_{t}_{b}" for t, b in PAIRS))
