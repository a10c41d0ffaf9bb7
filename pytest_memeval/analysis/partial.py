"""Partial results, labelled where people look first: the closing table, the HTML headline
and the JSON (docs/reports.md#partial-results).

- `sample`: the items are generated data, not the benchmark's release (`Suite.sample`);
- `subset N of M`: the run's selection (-k, -m, --lf, --deselect, one shard before the
  merge) covered N of the suite's M items;
- `incomplete`: some selected items have no score: the session stopped early (interrupted,
  --memeval-max-cost, -x) or they ended in errors beyond --memeval-max-errors. The
  session's report says how many items ran and the command that resumes it.

A subset is what was selected, an incomplete run what of the selection did not end with a
score: the plugin hands the items it collected (`SessionEnd.selected`), so that an
interrupted run is never taken for a selection.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..results.records import Incomplete, Record, Subset

#: what a run's items are collected under: suite (as the test names it), memory system, k
RunItems = tuple[str, str, int]
#: one item of a run: its id and repeat
ItemRepeat = tuple[str, int]
#: why a session stopped when pytest was interrupted (Ctrl-C, SIGINT)
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class SessionEnd:
    """What the plugin saw of how the session ended."""

    #: why the session stopped before running every selected item ("" when it did not)
    stopped: str = ""
    #: the items collected per (suite, memory system, k), those resumed from a journal aside;
    #: None where they are not known (a merge, workers on other machines)
    selected: Mapping[RunItems, frozenset[ItemRepeat]] | None = None
    #: the command that continues the run ("" where no journal is kept)
    resume: str = ""


def run_items(record: Record) -> RunItems:
    return (record.suite_ref, record.key.memsystem, record.key.k)


def expected_items(records: Sequence[Record], end: SessionEnd) -> frozenset[ItemRepeat] | None:
    """The items the run was to end with: those collected and those resumed; None when the
    collection is not known."""
    if end.selected is None or not records:
        return None
    ran = {(r.id, r.repeat) for r in records}
    return frozenset(ran | end.selected.get(run_items(records[0]), frozenset()))


def selected_count(runs: Iterable[Sequence[Record]], end: SessionEnd) -> int | None:
    """How many items the session was to end with: those collected (of every run, also of
    the runs none of whose items ran) and those resumed; None when the collection is not
    known."""
    if end.selected is None:
        return None
    ran = {run_items(records[0]): records for records in runs if records}
    collected = {**{key: frozenset() for key in ran}, **end.selected}
    return sum(
        len(items | {(r.id, r.repeat) for r in ran[key]}) if key in ran else len(items)
        for key, items in collected.items()
    )


def subset_of(records: Sequence[Record], expected: frozenset[ItemRepeat] | None, size: int | None) -> Subset | None:
    """Set when the run's selection covered fewer distinct items than its suite has."""
    covered = len({item for item, _ in expected} if expected is not None else {r.id for r in records})
    return Subset(covered, size) if size is not None and covered < size else None


def incomplete_run(records: Sequence[Record], expected: frozenset[ItemRepeat] | None, over_max_errors: bool) -> str:
    """Why some of the run's selected items have no score; "" when none is missing."""
    if expected is not None and len(records) < len(expected):
        return f"{len(records):,} of {len(expected):,} selected items ran"
    unscored = sum(not r.is_scored for r in records)
    if over_max_errors and unscored:
        return f"{unscored:,} item{'s' if unscored != 1 else ''} ended in an error or an invalid answer"
    return ""


def session_incomplete(
    end: SessionEnd, incomplete_runs: int, ran: int, selected: int | None, errors_reason: str
) -> Incomplete | None:
    """The session's label: why it is incomplete, how many items ran of how many, and how to
    resume; None when every selected item has a score (or its error was allowed)."""
    short = selected is None or ran < selected or not ran  # not every selected item ran, or none did
    if not incomplete_runs and not (end.stopped and short):
        return None
    reason = end.stopped or errors_reason or "some selected items did not run"
    return Incomplete(reason, ran, selected or None, end.resume)
