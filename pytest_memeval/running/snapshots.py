"""syrupy snapshots of each item's normalised verdict, for reviewing judge changes as diffs.

With --memeval-snapshot every item compares what its judge decided (answer label,
abstention, validity, correctness, score and the judge's detail: failure stage, rubric scores)
with a JSON file under <rootdir>/snapshots/<test module>/, one file per item, so a change
of judge, prompt or memory system shows up as a reviewable diff. For a memory system whose
own LLM writes its memories (its calls go through the run's gateway) the file also holds
`stored`: the texts the system held for the item, sorted, so a changed extraction shows
as a diff of memories. Nothing that varies
between identical runs (latencies, cache hits, timestamps) and none of the responder's
internals (atoms, margins, raw text) is stored. syrupy merges the
reports of xdist workers and locks its files, so comparing and recording work under -n.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.terminal import disable_color

from .record_collector import SNAPSHOT_CHANGED

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation

    from ..results.records import RunKey
    from .runner import Outcome

SNAPSHOT_DIR = "snapshots"


class VerdictSnapshotExtension(JSONSnapshotExtension):
    """One JSON file per item under the project's snapshots/ directory (not beside the
    bundled test modules, which may live in site-packages), in a folder per memory system
    and k, named by the item alone: the same item of the same system has the same file
    whether or not other systems or depths run beside it."""

    root: ClassVar[Path] = Path(SNAPSHOT_DIR)
    run_dir: ClassVar[str] = ""
    item_id: ClassVar[str] = ""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls.root / test_location.basename / cls.run_dir)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: Any = 0) -> str:
        return f"{test_location.methodname}[{cls.item_id}]"

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        """Exactly the file this item's class writes. syrupy's own rule wants the module's name
        as the file's folder and the node id as its name, which a folder per system and k and
        a name without the system (the same file whatever runs beside it) do not give."""
        own = Path(cls.dirname(test_location=test_location)) / cls.get_snapshot_name(test_location=test_location)
        return Path(snapshot_location).with_suffix("") == own


def extension_for(rootdir: Path, key: RunKey, item_id: str) -> type[VerdictSnapshotExtension]:
    run_dir = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{key.memsystem}-k{key.k}")
    attributes = {"root": rootdir / SNAPSHOT_DIR, "run_dir": run_dir, "item_id": item_id}
    return type("VerdictSnapshot", (VerdictSnapshotExtension,), attributes)


class VerdictSnapshot:
    """An item's snapshot assertion; a change is also recorded for the session report,
    because a changed verdict fails the run even when gates decide the exit status."""

    def __init__(self, assertion: Any, node: Any) -> None:
        self.assertion = assertion
        self.node = node

    def differences(self, outcome: Outcome) -> str | None:
        """None when the verdict matches its snapshot, else syrupy's diff."""
        if self.assertion == normalised_verdict(outcome):
            return None
        self.node.user_properties.append((SNAPSHOT_CHANGED, outcome.item.id))
        option = self.node.config.option
        # syrupy colours its diffs unless --snapshot-no-colors (the default off a terminal)
        colours = contextlib.nullcontext() if not getattr(option, "no_colors", False) else disable_color()
        with colours:
            return "\n".join(self.assertion.get_assert_diff(diff_mode=option.diff_mode))


def normalised_verdict(outcome: Outcome) -> dict[str, Any]:
    answer, verdict = outcome.answer, outcome.verdict
    judged = dict(verdict.detail)
    if verdict.stage:  # a judge's failure stage, where it attributes one (memfail)
        judged["stage"] = verdict.stage
    normalised: dict[str, Any] = {
        "answer": outcome.record.answer,  # as the record keeps it: a server may send megabytes
        "abstained": answer.abstained,
        "valid": answer.valid,
        "correct": verdict.correct,
        "score": verdict.score,
        "judge": judged,
    }
    if outcome.stored is not None:
        normalised["stored"] = list(outcome.stored)
    return normalised
