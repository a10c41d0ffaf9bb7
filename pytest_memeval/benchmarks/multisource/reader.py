"""The offline reader: answers a question from retrieved text alone.

It parses whatever records the memory returned back into per-source evidence, reads
each source's direct answer (the paper's atoms), resolves the atoms with Naive Bayes
Fusion fitted on the train split and abstains when the posterior margin is below the
threshold picked on the calibration split. It never sees the item id, the persona or the
gold: only the public view and the memories.
"""

from __future__ import annotations

import json
from typing import Sequence

from ...types import Answer, ItemView, Memory
from ..unreadable import mark
from .atoms import source_atoms
from .catalog import Catalog, _read_json, _write_json
from .generator import public_sources
from .nbf import NBFModel, calibrate_theta, fit_nbf
from ._common import NUM_DAYS
from .parse import DAILY_SOURCES, ParsedSources, parse_records
from .questions import QUESTIONS


#: A daily source speaks for a question only when its retrieved days cover at least half of
#: the question's window. NBF was fitted on complete sources; from a handful of retrieved
#: days an extrapolated count is mostly noise that NBF would trust as much as a full month.
MIN_WINDOW_COVERAGE = 0.5


def sparse_sources(parsed: ParsedSources, window_days: int) -> set[str]:
    window = set(range(NUM_DAYS - window_days + 1, NUM_DAYS + 1))
    needed = MIN_WINDOW_COVERAGE * window_days
    return {name for name in DAILY_SOURCES if len(window.intersection(parsed.days(name))) < needed}


class MultisourceReader:
    def __init__(self, model: NBFModel) -> None:
        self.model = model

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        parsed = parse_records([m.text for m in memories])
        atoms = dict(source_atoms(parsed)[view.task])
        for name in sparse_sources(parsed, QUESTIONS[view.task].window_days):
            atoms[name] = None
        prediction = self.model.predict(view.task, atoms)
        return Answer(
            label=prediction.label,
            abstained=not prediction.answered,
            detail=mark(
                {
                    "margin": round(prediction.margin, 6),
                    "sources_with_evidence": prediction.n_active,
                    "atoms": dict(sorted(atoms.items())),
                },
                memories,
                records_read(parsed),
            ),
        )


def records_read(parsed: ParsedSources) -> int:
    """How many source records (profile lines count as one) the reader recognised."""
    return int(parsed.profile is not None) + sum(len(parsed.days(name)) for name in DAILY_SOURCES)


def fitted_model(catalog: Catalog) -> NBFModel:
    """NBF fitted on the train split and calibrated on the calibration split of the run's seeds.

    Cached on disk per data origin and seeds; the reader of a run never depends on which
    items were selected (size, split or -k), only on the training data.
    """
    seeds = "-".join(str(s) for s in catalog.seeds)
    path = catalog.cache_path(f"nbf-{seeds}.json")
    cached = _read_json(path)
    if cached is not None:
        return NBFModel.from_json(cached)
    train_atoms, train_gold = _atoms_and_gold(catalog, "train")
    model = fit_nbf(train_atoms, train_gold)
    calibration_atoms, calibration_gold = _atoms_and_gold(catalog, "calibration")
    calibrate_theta(model, calibration_atoms, calibration_gold)
    _write_json(path, json.loads(json.dumps(model.to_json())))
    return model


def _atoms_and_gold(catalog: Catalog, split: str) -> tuple[list, list]:
    atoms, gold = [], []
    for persona in catalog.personas(catalog.of_split(split)):
        atoms.append(source_atoms(public_sources(persona)))
        gold.append(persona.answers)
    if not atoms:
        raise ValueError(f"no {split} personas to fit the multisource reader on")
    return atoms, gold
