"""The offline reader: answers a question from retrieved text alone.

It parses whatever records the memory returned back into per-source evidence, reads
each source's direct answer (the paper's atoms) and resolves the atoms with Naive Bayes
Fusion. It never sees the persona, the gold or the difficulty: only the public view, the
memories and, to pick the model fitted on the item's seed, the seed in the item's id.

Variants (``--memeval-suite-option multisource.reader=NAME``):

- ``nbf-skip`` (default), the paper's NBF+SKIP: NBF fitted per seed on that seed's train
  split; emission temperature and SKIP margin chosen together on that seed's calibration
  split by F0.5. The recorded answer is the label it would give before abstaining.
- ``nbf``, the paper's answer-only NBF: fitted per seed, temperature by macro accuracy on
  calibration, never abstains.
- ``pooled-margin``, this project's earlier reader: one NBF fitted on the train splits of
  all the run's seeds pooled, T = 1, the margin alone tuned by the macro F0.5 of App. C.3.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import is_

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from ._atom_view import View
from ._common import NUM_DAYS
from .atoms import RULES, source_atoms
from .catalog import Catalog, _read_json, _write_json, seed_of_item
from .generator import public_sources
from .nbf import (
    NBFModel,
    calibrate_selective,
    calibrate_temperature,
    calibrate_theta,
    fit_nbf,
)
from .parse import DAILY_SOURCES, ParsedSources, parse_records
from .questions import QUESTIONS

READERS = {
    "nbf-skip": "the paper's NBF+SKIP: per-seed fit on train, temperature and margin chosen "
    "together by F0.5 on calibration (default)",
    "nbf": "the paper's answer-only NBF: per-seed fit, temperature by accuracy on calibration",
    "pooled-margin": "one NBF on all seeds' train splits, T = 1, margin alone by macro F0.5",
}
DEFAULT_READER = "nbf-skip"

#: A daily source speaks for a question only when its retrieved days cover at least half of
#: the question's window. NBF was fitted on complete sources; from a handful of retrieved
#: days an extrapolated count is mostly noise that NBF would trust as much as a full month.
MIN_WINDOW_COVERAGE = 0.5
#: how many distinct retrieval results the reader keeps parsed (the items of one persona
#: run one after another and, from a store that ignores the query, get the same memories)
PARSED_KEPT = 8


def reader_setting(raw: str | None) -> str:
    """The reader variant named by --memeval-suite-option multisource.reader."""
    name = DEFAULT_READER if raw is None else raw
    if name not in READERS:
        raise ConfigError(f"--memeval-suite-option multisource.reader: {name!r} is not one of {', '.join(READERS)}")
    return name


def sparse_sources(parsed: ParsedSources, window_days: int) -> set[str]:
    window = set(range(NUM_DAYS - window_days + 1, NUM_DAYS + 1))
    needed = MIN_WINDOW_COVERAGE * window_days
    return {name for name in DAILY_SOURCES if len(window.intersection(parsed.days(name))) < needed}


@dataclass
class Evidence:
    """One retrieval result read once: its per-source view, and which daily sources are
    too sparse for a question window (computed per window length on first use)."""

    parsed: ParsedSources
    view: View
    _sparse: dict[int, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, texts: Sequence[str]) -> Evidence:
        parsed = parse_records(texts)
        return cls(parsed, View(parsed))

    @cached_property
    def records_read(self) -> int:
        return records_read(self.parsed)

    def sparse(self, window_days: int) -> set[str]:
        if window_days not in self._sparse:
            self._sparse[window_days] = sparse_sources(self.parsed, window_days)
        return self._sparse[window_days]


class MultisourceReader:
    """Answers with the model of the item's seed (``models`` maps seed -> fitted NBF)."""

    def __init__(self, models: Mapping[int, NBFModel], variant: str = DEFAULT_READER) -> None:
        if not models:
            raise ValueError("the multisource reader needs at least one fitted model")
        self.models = dict(models)
        self.variant = variant
        self._evidence: OrderedDict[tuple[str, ...], Evidence] = OrderedDict()
        #: the memories of the last call and their evidence
        self._last: tuple[tuple[Memory, ...], Evidence | None] = ((), None)

    def evidence(self, memories: Sequence[Memory]) -> Evidence:
        """The parsed memories, read once per distinct retrieval result. The items of a
        context served by a store that ignores the query get the very same (frozen) Memory
        objects: those are recognised without collecting and hashing their texts again."""
        last_memories, last_found = self._last
        if last_found is not None and len(memories) == len(last_memories) and all(map(is_, memories, last_memories)):
            return last_found
        texts = tuple(stored_texts(memories))
        found = self._evidence.get(texts)
        if found is not None:
            self._evidence.move_to_end(texts)
        else:
            found = self._evidence[texts] = Evidence.of(texts)
            while len(self._evidence) > PARSED_KEPT:
                self._evidence.popitem(last=False)
        self._last = (tuple(memories), found)
        return found

    def model_for(self, label: str | None) -> NBFModel:
        """The item's seed's model. The runner names the item (``label``); the seed is the
        only part of the id read. A reader with one model needs no name."""
        if label is None:
            if len({id(m) for m in self.models.values()}) == 1:
                return next(iter(self.models.values()))
            raise ValueError("the multisource reader holds one model per seed: pass the item id as label")
        seed = seed_of_item(label)
        if seed not in self.models:
            raise ValueError(f"no multisource reader model for seed {seed} (item {label})")
        return self.models[seed]

    def answer_item(self, item_id: str, view: ItemView, memories: Sequence[Memory]) -> Answer:
        """`answer` with the item's seed's model (`protocols.NamesItems`)."""
        return self.answer(view, memories, label=item_id)

    def answer(self, view: ItemView, memories: Sequence[Memory], label: str | None = None) -> Answer:
        evidence = self.evidence(memories)
        # only the item's own question is read (source_atoms would compute all 18)
        atoms = dict(RULES[view.task](evidence.view))
        for name in evidence.sparse(QUESTIONS[view.task].window_days):
            atoms[name] = None
        prediction = self.model_for(label).predict(view.task, atoms)
        answer = Answer(
            label=prediction.label,
            abstained=not prediction.answered,
            detail={
                "reader": self.variant,
                "margin": round(prediction.margin, 6),
                "sources_with_evidence": prediction.n_active,
                "atoms": dict(sorted(atoms.items())),
            },
        )
        return marked(answer, memories, evidence.records_read)


def records_read(parsed: ParsedSources) -> int:
    """How many source records (profile lines count as one) the reader recognised."""
    return int(parsed.profile is not None) + sum(len(parsed.days(name)) for name in DAILY_SOURCES)


def fitted_models(catalog: Catalog, variant: str = DEFAULT_READER) -> dict[int, NBFModel]:
    """Seed -> fitted and calibrated NBF for the run's seeds, cached on disk.

    The cache file names the data origin (generator or data directory, with a digest of this
    package's code), the variant, the seed(s) and a stamp of the fit's input files, so any
    change to what the fit reads or how it fits makes a new entry. The reader of a run never
    depends on which items were selected (size, split or -k), only on the training data.
    """
    if variant == "pooled-margin":
        model = _cached_fit(catalog, variant, catalog.seeds)
        return {seed: model for seed in catalog.seeds}
    return {seed: _cached_fit(catalog, variant, (seed,)) for seed in catalog.seeds}


def _cached_fit(catalog: Catalog, variant: str, seeds: tuple[int, ...]) -> NBFModel:
    train = [r for r in catalog.of_split("train") if r.seed in seeds]
    calibration = [r for r in catalog.of_split("calibration") if r.seed in seeds]
    stamp = catalog.input_stamp(train + calibration)
    path = catalog.cache_path(f"nbf-{variant}-{'-'.join(map(str, seeds))}-{stamp}.json")
    cached = _read_json(path)
    if cached is not None:
        return NBFModel.from_json(cached)
    model = fit_nbf(*_atoms_and_gold(catalog, train, "train"))
    calibration_data = _atoms_and_gold(catalog, calibration, "calibration")
    if variant == "nbf-skip":
        calibrate_selective(model, *calibration_data)
    elif variant == "nbf":
        calibrate_temperature(model, *calibration_data)
    else:
        calibrate_theta(model, *calibration_data)
    _write_json(path, json.loads(json.dumps(model.to_json())))
    return model


def _atoms_and_gold(catalog: Catalog, refs: list, split: str) -> tuple[list, list]:
    atoms, gold = [], []
    for persona in catalog.personas(refs):
        atoms.append(source_atoms(public_sources(persona)))
        gold.append(persona.answers)
    if not atoms:
        raise ConfigError(f"multisource: no {split} personas to fit the reader on")
    return atoms, gold
