"""Data layer of the ``multisource`` suite: selective QA over conflicting personal memory.

Reproduces the benchmark of "Selective QA over Conflicting Multi-Source Personal Memory":
a deterministic generator (personas -> 30-day events -> five biased sources -> 18 gold
labels), the natural-language render and its parser, the direct-readout source atoms,
Naive Bayes Fusion with margin-based SKIP, the paper's metrics and a loader for the
released data. Nothing here imports pytest.

Typical offline reader::

    persona = generate(seed, index)
    units = render_units(persona.sources)          # what a memory system stores
    parsed = parse_records(retrieved_texts)        # what it returned, back to records
    atoms = source_atoms(parsed)                   # per-source answers
    pred = model.predict(qid, atoms[qid])          # model = fit_nbf(...) on train
"""

from __future__ import annotations

from ._common import DAYS, SOURCE_NAMES
from .atoms import Atoms, reachable, source_atoms
from .generator import (
    PERSONAS_PER_SEED,
    SEEDS,
    SPLITS,
    Persona,
    PersonaRef,
    generate,
    generate_by_id,
    index_of,
    parse_persona_id,
    persona_index,
    public_sources,
    split_of,
    split_personas,
)
from .ground_truth import compute_ground_truth
from .metrics import (
    coverage,
    expected_random_accuracy,
    f_beta,
    macro_accuracy,
    majority_labels,
    per_question_accuracy,
    random_predictions,
    selective_accuracy,
)
from .nbf import NBFModel, Prediction, calibrate_temperature, calibrate_theta, fit_nbf
from .parse import ParsedSources, parse_records
from .personas import DIFFICULTIES
from .questions import FAILURE_MODES, QUESTION_IDS, QUESTIONS, REASONING_TYPES, Question
from .released import DataError, load_released, load_released_persona
from .render import SECTION_TITLES, render_markdown, render_units, units_from_markdown

__all__ = [
    "DAYS",
    "SOURCE_NAMES",
    "SEEDS",
    "SPLITS",
    "PERSONAS_PER_SEED",
    "DIFFICULTIES",
    "QUESTIONS",
    "QUESTION_IDS",
    "REASONING_TYPES",
    "FAILURE_MODES",
    "Question",
    "Persona",
    "PersonaRef",
    "persona_index",
    "split_personas",
    "split_of",
    "generate",
    "generate_by_id",
    "index_of",
    "parse_persona_id",
    "public_sources",
    "compute_ground_truth",
    "SECTION_TITLES",
    "render_markdown",
    "render_units",
    "units_from_markdown",
    "ParsedSources",
    "parse_records",
    "Atoms",
    "source_atoms",
    "reachable",
    "NBFModel",
    "Prediction",
    "fit_nbf",
    "calibrate_theta",
    "calibrate_temperature",
    "macro_accuracy",
    "coverage",
    "selective_accuracy",
    "f_beta",
    "per_question_accuracy",
    "expected_random_accuracy",
    "random_predictions",
    "majority_labels",
    "DataError",
    "load_released",
    "load_released_persona",
]
