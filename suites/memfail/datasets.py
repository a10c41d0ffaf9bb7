"""The six datasets, their sizes, and one cached build per (seed, dataset, size).

A dataset is one context: its sessions fill one shared store per memory system, as in the
paper, and its graded questions are the items. Building a dataset needs nothing but its
seed and row count; a smaller size is a prefix of a larger one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from pytest_memeval.errors import ConfigError

from . import gen_coexisting, gen_conditional, gen_longhop, gen_persona, gen_update
from .model import DatasetBuild


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str
    #: the marker that selects it
    marker: str
    #: the kind of question, the only part of the dataset an item's public view names (Easy
    #: and Hard share "conditional": how the rule was written is not the responder's business)
    task: str
    #: rows (essays, categories, chains, subjects) per --memeval-size
    sizes: dict[str, int]
    build: Callable[[int, int], DatasetBuild]


DATASETS: tuple[Dataset, ...] = (
    Dataset(
        "cond_easy",
        "Conditional-Facts (Easy)",
        "conditional_easy",
        "conditional",
        {"smoke": 8, "small": 30, "full": 100},
        lambda seed, n: gen_conditional.generate(seed, n, "cond_easy"),
    ),
    Dataset(
        "cond_hard",
        "Conditional-Facts (Hard)",
        "conditional_hard",
        "conditional",
        {"smoke": 8, "small": 30, "full": 100},
        lambda seed, n: gen_conditional.generate(seed, n, "cond_hard"),
    ),
    Dataset(
        "coexisting",
        "Coexisting-Facts",
        "coexisting",
        "coexisting",
        {"smoke": 8, "small": 30, "full": 100},
        gen_coexisting.generate,
    ),
    Dataset(
        "persona",
        "Persona-Retrieval",
        "persona_retrieval",
        "persona",
        {"smoke": 4, "small": 20, "full": 100},
        gen_persona.generate,
    ),
    Dataset("longhop", "Long-Hop", "long_hop", "longhop", {"smoke": 6, "small": 30, "full": 92}, gen_longhop.generate),
    Dataset(
        "update",
        "Knowledge-Update",
        "knowledge_update",
        "update",
        {"smoke": 8, "small": 30, "full": 100},
        gen_update.generate,
    ),
)
BY_NAME = {d.name: d for d in DATASETS}


def dataset(name: str) -> Dataset:
    if name not in BY_NAME:
        raise ConfigError(f"memfail: unknown dataset {name!r} (datasets: {', '.join(BY_NAME)})")
    return BY_NAME[name]


def rows(name: str, size: str) -> int:
    sizes = dataset(name).sizes
    if size not in sizes:
        raise ConfigError(f"memfail: unknown size {size!r} (sizes: {', '.join(sizes)})")
    return sizes[size]


@lru_cache(maxsize=64)
def build(seed: int, name: str, size: str) -> DatasetBuild:
    return dataset(name).build(seed, rows(name, size))
