"""hypothesis strategies of the records each bundled suite summarises, for the property
tests of its intervals (test_intervals.py).

A run's records come in two parts: the items (id, cluster, task, strata: what the items
are, the same on both sides of a paired comparison) and each item's verdict (what a run
made of it). `items(suite)` draws the first, `verdicts(suite, items)` the second; bayes,
whose verdicts are trajectories, draws both from records of real episodes answered by
self-test agents (`bayes_pool`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from msgspec.structs import replace
from pytest_memeval.suites.beam.released import ABILITIES
from pytest_memeval.suites.behavior.conditions import CONDITIONS
from pytest_memeval.suites.halumem.released import MEMORY_TYPES
from pytest_memeval.suites.halumem.released import QUESTION_TYPES as HALUMEM_TYPES
from pytest_memeval.suites.knowme.tasks import TASKS
from pytest_memeval.suites.longmemeval.released import QUESTION_TYPES
from pytest_memeval.suites.memfail.attribution import STAGES
from pytest_memeval.suites.memfail.datasets import DATASETS
from pytest_memeval.suites.personamem.catalog import QUESTION_TYPES as PERSONAMEM_TYPES

from pytest_memeval.results.records import Record, RunKey


@dataclass(frozen=True)
class Item:
    """What both sides of a comparison share: the item and its place in the suite."""

    id: str
    cluster: str
    task: str
    strata: Mapping[str, str]


Verdict = Mapping[str, Any]
Draw = Callable[[st.SearchStrategy[Any]], Any]


def record(suite: str, system: str, item: Item, verdict: Verdict) -> Record:
    fields = {"correct": None, **verdict}
    return Record(
        item.id,
        RunKey(suite, system),
        suite,
        item.cluster,
        item.cluster,
        item.task,
        "scored",
        strata=dict(item.strata),
        **fields,
    )


@st.composite
def layout(draw: Draw, most_clusters: int = 5, most_items: int = 5) -> list[str]:
    """Each item's cluster: one cluster or several, of one item or several."""
    n_clusters = draw(st.integers(1, most_clusters))
    sizes = [draw(st.integers(1, most_items)) for _ in range(n_clusters)]
    return [f"c{c}" for c, size in enumerate(sizes) for _ in range(size)]


# --- the items of each suite -------------------------------------------------------------------


@st.composite
def multisource_items(draw: Draw) -> list[Item]:
    items = []
    for n, cluster in enumerate(draw(layout())):
        kind = draw(st.sampled_from("ABCD"))
        difficulty = draw(st.sampled_from(("stable", "stated_vs_revealed", "temporal_shift")))
        items.append(Item(f"{cluster}-{n}", cluster, f"{kind}1", {"type": kind, "difficulty": difficulty}))
    return items


@st.composite
def memfail_items(draw: Draw) -> list[Item]:
    names = [d.name for d in DATASETS]
    items = []
    for n, cluster in enumerate(draw(layout())):
        dataset = draw(st.sampled_from(names))
        strata = {"dataset": dataset, "n_facts": str(draw(st.integers(2, 4)))}
        items.append(Item(f"{cluster}-{n}", cluster, dataset, strata))
    return items


@st.composite
def locomo_items(draw: Draw) -> list[Item]:
    categories = ("1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop")
    return [
        Item(
            f"{cluster}-{n}",
            cluster,
            "qa",
            {"category_name": draw(st.sampled_from(categories)), "conversation": cluster},
        )
        for n, cluster in enumerate(draw(layout()))
    ]


@st.composite
def longmemeval_items(draw: Draw) -> list[Item]:
    items = []
    for n in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(QUESTION_TYPES[:3]))
        abstention = draw(st.sampled_from(("yes", "no")))
        items.append(Item(f"q{n}", f"q{n}", kind, {"question_type": kind, "abstention": abstention}))
    return items


TYPES = sorted(PERSONAMEM_TYPES)[:3]


@st.composite
def personamem_items(draw: Draw) -> list[Item]:
    return [
        Item(f"q{n}", persona, "choice", {"question_type": draw(st.sampled_from(TYPES)), "context_length": "32k"})
        for n, persona in enumerate(draw(layout()))
    ]


@st.composite
def beam_items(draw: Draw) -> list[Item]:
    return [
        Item(f"{cluster}-{n}", cluster, ability, {"ability": ability, "scale": draw(st.sampled_from(("100K", "10M")))})
        for n, cluster in enumerate(draw(layout()))
        for ability in [draw(st.sampled_from(ABILITIES[:4]))]
    ]


@st.composite
def halumem_items(draw: Draw) -> list[Item]:
    items = []
    for n, user in enumerate(draw(layout())):
        stage = draw(st.sampled_from(("integrity", "interference", "update", "accuracy", "qa")))
        strata = {"stage": stage, "memory_type": draw(st.sampled_from(MEMORY_TYPES))}
        if stage == "qa":
            strata["question_type"] = draw(st.sampled_from(HALUMEM_TYPES))
        items.append(Item(f"{user}/s0/{n}", user, stage, strata))
    return items


@st.composite
def knowme_items(draw: Draw) -> list[Item]:
    items = []
    for n, life in enumerate(draw(layout(most_clusters=3, most_items=8))):
        task = draw(st.sampled_from(sorted(TASKS)))
        strata = {
            "task": task,
            "level": TASKS[task].level,
            "dataset": "dataset1",
            "life": life,
            "trap": "none",
            "kind": "duration",
            "flashback": draw(st.sampled_from(("yes", "no"))),
            "update_paradox": "no",
        }
        items.append(Item(f"{life}-{task}-{n}", life, task, strata))
    return items


@st.composite
def behavior_items(draw: Draw) -> list[Item]:
    conditions = draw(st.lists(st.sampled_from(sorted(CONDITIONS)), min_size=1, max_size=4, unique=True))
    subjects = draw(st.integers(1, 4))
    questions = draw(st.integers(1, 2))
    return [
        Item(f"s{s}-q{q}-{c}", f"s{s}", c, {"condition": c, "question": f"q{q}", "category": f"k{q % 2}"})
        for s in range(subjects)
        for q in range(questions)
        for c in conditions
    ]


# --- each item's verdict -----------------------------------------------------------------------

SCORES = st.floats(0.0, 1.0, allow_nan=False)


def multisource_verdict(draw: Draw, item: Item) -> Verdict:
    return {"correct": draw(st.booleans()), "abstained": draw(st.booleans())}


def memfail_verdict(draw: Draw, item: Item) -> Verdict:
    stage = draw(st.sampled_from(STAGES))
    return {
        "correct": stage == "correct",
        "stage": stage,
        "retrieved_tokens": draw(st.integers(0, 400)),
        "n_memories": draw(st.integers(0, 10)),
    }


def locomo_verdict(draw: Draw, item: Item) -> Verdict:
    recall = draw(st.one_of(st.none(), SCORES))
    detail = {name: draw(SCORES) for name in ("f1", "bleu1", "mem0_f1")}
    detail.update(evidence_recall=recall, provenance=recall is not None)
    return {"correct": detail["f1"] >= 0.5, "detail": detail}


def longmemeval_verdict(draw: Draw, item: Item) -> Verdict:
    detail: dict[str, Any] = {"scorer": "offline"}
    for name in ("session_recall_all", "turn_recall_all"):
        if draw(st.booleans()):
            detail[name] = draw(SCORES)
    return {"correct": draw(st.booleans()), "detail": detail}


def personamem_verdict(draw: Draw, item: Item) -> Verdict:
    return {"correct": draw(st.booleans())}


def beam_verdict(draw: Draw, item: Item) -> Verdict:
    score = draw(st.sampled_from((0.0, 0.25, 0.5, 0.75, 1.0)))
    return {"correct": score == 1.0, "score": score, "detail": {"scorer": "offline"}}


def halumem_verdict(draw: Draw, item: Item) -> Verdict:
    stage = item.task
    detail: dict[str, Any] = {"scored_as": stage, "memory_type": item.strata["memory_type"], "importance": 0.75}
    score = st.one_of(st.none(), st.sampled_from((0, 1, 2)))
    if stage in ("integrity", "interference"):
        detail["score"] = draw(score)
    elif stage == "accuracy":
        memories = draw(st.lists(st.tuples(score, st.booleans()), max_size=3))
        detail["memories"] = [{"score": s, "target": t and s is not None} for s, t in memories]
    else:
        labels = ("Correct", "Hallucination", "Omission", "Other", "Wrong")
        detail["label"] = draw(st.one_of(st.none(), st.sampled_from(labels)))
    return {"correct": draw(st.booleans()), "detail": detail}


def knowme_verdict(draw: Draw, item: Item) -> Verdict:
    score = draw(st.sampled_from((0.0, 25.0, 50.0, 100.0)))
    recall = draw(st.one_of(st.none(), SCORES))
    detail = {"approximate": item.task in ("T6", "T7"), "evidence_recall": recall, "scorer": "entities"}
    return {"correct": score >= 50, "score": score, "abstained": draw(st.booleans()), "detail": detail}


def behavior_verdict(draw: Draw, item: Item) -> Verdict:
    scores = {judge: draw(st.sampled_from((1.0, 2.0, 3.0, 4.0, 5.0))) for judge in ("a", "b")}
    return {"correct": min(scores.values()) >= 3, "score": sum(scores.values()) / 2, "detail": {"scores": scores}}


ITEMS: dict[str, Callable[[], st.SearchStrategy[list[Item]]]] = {
    "multisource": multisource_items,
    "memfail": memfail_items,
    "locomo": locomo_items,
    "longmemeval": longmemeval_items,
    "personamem": personamem_items,
    "halumem": halumem_items,
    "beam": beam_items,
    "knowme": knowme_items,
    "behavior": behavior_items,
}
VERDICTS: dict[str, Callable[[Draw, Item], Verdict]] = {
    "multisource": multisource_verdict,
    "memfail": memfail_verdict,
    "locomo": locomo_verdict,
    "longmemeval": longmemeval_verdict,
    "personamem": personamem_verdict,
    "halumem": halumem_verdict,
    "beam": beam_verdict,
    "knowme": knowme_verdict,
    "behavior": behavior_verdict,
}


@st.composite
def paired_runs(draw: Draw, suite: str) -> tuple[list[Record], list[Record]]:
    """Two runs of `suite` on the same items (systems "a" and "b"), their verdicts drawn
    apart."""
    items = draw(ITEMS[suite]())
    verdict = VERDICTS[suite]
    return (
        [record(suite, "a", item, verdict(draw, item)) for item in items],
        [record(suite, "b", item, verdict(draw, item)) for item in items],
    )


@st.composite
def pooled_runs(draw: Draw, pool: Mapping[str, Sequence[Record]], suite: str) -> tuple[list[Record], list[Record]]:
    """Two runs drawn from records of real runs (`pool`: per answerer, one record per item):
    a choice of items, their clusters merged at random, each side's answerer per item."""
    answerers = sorted(pool)
    by_id = {answerer: {r.id: r for r in records} for answerer, records in pool.items()}
    ids = draw(st.lists(st.sampled_from(sorted(by_id[answerers[0]])), min_size=1, max_size=14, unique=True))
    n_clusters = draw(st.integers(1, 6))
    clusters = {i: f"c{draw(st.integers(0, n_clusters - 1))}" for i in ids}

    def side(system: str) -> list[Record]:
        chosen = [by_id[draw(st.sampled_from(answerers))][i] for i in ids]
        return [replace(r, key=replace(r.key, suite=suite, memsystem=system), cluster=clusters[r.id]) for r in chosen]

    return side("a"), side("b")
