"""One persona end to end: L1 -> L2 -> L3 -> ground truth, and the per-seed index and splits.

Every persona draws from its own random streams keyed by (seed, index, layer), so
``generate(seed, i)`` alone equals the i-th persona of a full-seed run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ._common import Rng
from .events import generate_events
from .ground_truth import compute_ground_truth
from .personas import (
    DIFFICULTIES,
    GENERATED_NAMESPACE,
    PERSONAS_PER_DIFFICULTY,
    PREFIX_TO_DIFFICULTY,
    RELEASED_NAMESPACE,
    PersonaSpec,
    persona_id,
    sample_persona,
)
from .sources import project_sources

SEEDS: tuple[int, ...] = (20260321, 20260322, 20260323, 20260324)
PERSONAS_PER_SEED = PERSONAS_PER_DIFFICULTY * len(DIFFICULTIES)
SPLITS = ("train", "dev", "calibration", "test")
#: per difficulty class: 72 / 16 / 32 / 40 of 160 -> 216 / 48 / 96 / 120 per seed
SPLIT_SIZES_PER_CLASS = (("train", 72), ("dev", 16), ("calibration", 32), ("test", 40))

_ID_RE = re.compile(rf"^({GENERATED_NAMESPACE}|{RELEASED_NAMESPACE})_(stable|shift|stated)_(\d{{3}})_[a-z_]+$")


@dataclass(frozen=True)
class PersonaRef:
    """What collection needs to know about a persona, without generating it."""

    persona_id: str
    seed: int
    index: int
    difficulty: str
    split: str


@dataclass(frozen=True)
class Persona:
    """One persona: latent events, the five visible sources and the gold labels.

    ``sources`` maps the five source names (plus ``generation_metadata``) to documents in
    the released ``structural_sources`` schema; ``ground_truth`` maps each question id to
    ``{question_id, question_type, question_topic, answer, derivation_detail}``.
    ``spec`` is the private L1 record (None for personas loaded from a release);
    ``nl_render`` is the released markdown render when loaded from a release (generated
    personas render on demand with ``render_markdown(persona.sources)``).
    """

    persona_id: str
    seed: int
    index: int
    difficulty: str
    split: str
    events: list[dict[str, Any]]
    sources: dict[str, dict[str, Any]]
    ground_truth: dict[str, dict[str, str]]
    spec: PersonaSpec | None = field(default=None, repr=False, compare=False)
    nl_render: str | None = field(default=None, repr=False, compare=False)

    @property
    def answers(self) -> dict[str, str]:
        return {qid: g["answer"] for qid, g in self.ground_truth.items()}


def split_for_number(number: int) -> str:
    """Split of the persona with 1-based number ``number`` within its difficulty class.

    The released split sorts each class by persona id (= by number) and cuts it 72/16/32/40.
    """
    upper = 0
    for name, size in SPLIT_SIZES_PER_CLASS:
        upper += size
        if number <= upper:
            return name
    raise ValueError(f"persona number {number} is outside 1..{PERSONAS_PER_DIFFICULTY}")


def parse_persona_id(pid: str) -> tuple[str, int]:
    """(difficulty, 1-based number within the class) from an id like bench_shift_017_x_y
    (a released persona) or gen_shift_017_x_y (one of ours)."""
    m = _ID_RE.match(pid)
    if not m:
        raise ValueError(f"not a multisource persona id: {pid!r}")
    return PREFIX_TO_DIFFICULTY[m.group(2)], int(m.group(3))


def is_generated(pid: str) -> bool:
    """True for our generator's persona ids, False for the release's."""
    return pid.startswith(f"{GENERATED_NAMESPACE}_")


def split_of(seed: int, pid: str) -> str:
    """Split (train/dev/calibration/test) of a persona; the same rule for every seed."""
    del seed  # the released assignment is seed-stable (persona ids repeat across seeds)
    return split_for_number(parse_persona_id(pid)[1])


def index_of(pid: str) -> int:
    """0-based position of a persona id in its seed (stable 0-159, shift 160-319, ...)."""
    difficulty, number = parse_persona_id(pid)
    return DIFFICULTIES.index(difficulty) * PERSONAS_PER_DIFFICULTY + number - 1


@cache
def _index(seed: int) -> tuple[PersonaRef, ...]:
    refs = []
    for i in range(PERSONAS_PER_SEED):
        pid = persona_id(i)
        refs.append(
            PersonaRef(
                pid,
                seed,
                i,
                DIFFICULTIES[i // PERSONAS_PER_DIFFICULTY],
                split_for_number(i % PERSONAS_PER_DIFFICULTY + 1),
            )
        )
    return tuple(refs)


def persona_index(seed: int) -> list[PersonaRef]:
    """All 480 personas of ``seed`` in generation order (cheap: nothing is generated)."""
    return list(_index(seed))


def split_personas(seed: int, split: str) -> list[PersonaRef]:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    return [r for r in _index(seed) if r.split == split]


def generate(seed: int, index: int) -> Persona:
    """Generate persona ``index`` (0..479) of ``seed`` deterministically."""
    if not 0 <= index < PERSONAS_PER_SEED:
        raise ValueError(f"persona index {index} is outside 0..{PERSONAS_PER_SEED - 1}")
    spec = sample_persona(seed, index, Rng(seed, index, 0))
    events = generate_events(spec, Rng(seed, index, 1))
    sources = project_sources(spec, events)
    ref = _index(seed)[index]
    return Persona(
        persona_id=spec.persona_id,
        seed=seed,
        index=index,
        difficulty=spec.difficulty,
        split=ref.split,
        events=events,
        sources=sources,
        ground_truth=compute_ground_truth(events, sources),
        spec=spec,
    )


def generate_by_id(seed: int, pid: str) -> Persona:
    persona = generate(seed, index_of(pid))
    if persona.persona_id != pid:
        raise ValueError(f"persona id {pid!r} does not exist (index holds {persona.persona_id!r})")
    return persona


def public_sources(persona: Persona) -> Mapping[str, dict[str, Any]]:
    """The five visible sources only (no generation metadata)."""
    return {k: v for k, v in persona.sources.items() if k != "generation_metadata"}
