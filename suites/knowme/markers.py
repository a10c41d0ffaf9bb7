"""Markers of the knowme suite: task, level, trap kind, flashback, update paradox, dataset."""

from __future__ import annotations

from .life import STYLE_NAMES
from .tasks import LEVEL_NAMES, TASKS, TRAP_KINDS

#: the paper's three sources; a release may hold more datasets, which get a generic marker
PAPER_DATASETS = {
    "dataset1": "My Struggle, flashback-intensive",
    "dataset2": "Neapolitan Novels, event-driven",
    "dataset3": "In Search of Lost Time, introspective",
}
MAX_DATASET_MARKERS = 9


def marker_descriptions() -> dict[str, str]:
    markers = {t.marker: f"knowme task {t.code}: {t.name} (level {t.level})" for t in TASKS.values()}
    markers.update({f"level_{level}": f"knowme level {level}: {name}" for level, name in LEVEL_NAMES.items()})
    markers.update({f"trap_{kind}": f"knowme T2 trap: {text}" for kind, text in TRAP_KINDS.items()})
    markers.update(
        {
            "flashback": "knowme: the evidence spans a flashback (a present trigger and a recalled block)",
            "update_paradox": "knowme: a childhood state and a present one; the older is narrated later",
            "transient_trigger": "knowme: a fleeting sensory association with no flashback block",
        }
    )
    for n in range(1, MAX_DATASET_MARKERS + 1):
        name = f"dataset{n}"
        if name in STYLE_NAMES:
            text = f"{STYLE_NAMES[name]} synthetic lives; released: {PAPER_DATASETS[name]}"
        else:
            text = "a further released dataset"
        markers[name] = f"knowme {name}: {text}"
    return markers
