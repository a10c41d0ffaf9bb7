"""Direct-readout atoms mu*(source, question): what each source alone says the answer is.

On complete sources these rules are the paper's hand-coded readout of the structured
sources (bias and all: the planner always believes its plans came true, the profile
agrees with itself). They also run on partial evidence, e.g. the days a top-k retrieval
returned: statistics are taken over the days present, counts compared with absolute
cut-offs are rescaled to the question window (count * window / days seen, which is the
identity on complete sources), cross-source readouts use only days where every source they
need is present, and a source with no relevant evidence gives None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._atom_view import Mu, View
from ._atoms_abcd import a1, a2, a3, b2, b3, c2, c3, d1, d2
from ._atoms_efgc import ctrl1, ctrl2, e1, e2, f1, f2, f3, g1, g2
from .parse import ParsedSources
from .questions import by_question

Atoms = dict[str, dict[str, "str | None"]]

RULES: Mapping[str, Callable[[View], Mu]] = by_question(
    (a1, a2, a3, b2, b3, c2, c3, d1, d2, e1, e2, f1, f2, f3, g1, g2, ctrl1, ctrl2)
)


def source_atoms(sources: Mapping[str, Any] | ParsedSources) -> Atoms:
    """``{qid: {source: label or None}}`` for all 18 questions and the five sources.

    ``sources`` is the released layout (name -> document with ``records`` / ``facts``,
    as in ``Persona.sources``), a ``Persona``, or the output of ``parse_records``.
    """
    view = View(sources)
    return {qid: rule(view) for qid, rule in RULES.items()}


def reachable(atoms_q: Mapping[str, str | None], gold: str) -> bool:
    """Whether some source's atom for one question equals the gold label."""
    return any(a == gold for a in atoms_q.values())
