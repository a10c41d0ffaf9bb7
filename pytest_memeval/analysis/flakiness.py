"""How the repeats of a run's items agreed (--memeval-repeat N): per item and per run.

An item's repeats are nested in its cluster, so every interval here resamples clusters
with all their items and repeats (the unit the suites' own intervals resample too).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..results.records import Flakiness, Metric, Record

#: how many flaky item ids a run summary names
NAMED_IDS = 20


@dataclass(frozen=True)
class ItemRepeats:
    """One item's verdicts over its scored repeats."""

    id: str
    cluster: str
    correct: int
    total: int

    @property
    def flaky(self) -> bool:
        return 0 < self.correct < self.total

    @property
    def agreement(self) -> float:
        """The share of pairs of repeats that reached the same verdict (1.0: all agree)."""
        wrong = self.total - self.correct
        pairs = self.total * (self.total - 1)
        return (self.correct * (self.correct - 1) + wrong * (wrong - 1)) / pairs


def item_repeats(records: Sequence[Record]) -> list[ItemRepeats]:
    """Items scored with a verdict in at least two repeats, in id order."""
    verdicts: dict[str, list[bool]] = defaultdict(list)
    clusters: dict[str, str] = {}
    for record in records:
        if record.is_scored and record.correct is not None:
            verdicts[record.id].append(bool(record.correct))
            clusters[record.id] = record.cluster
    return [ItemRepeats(i, clusters[i], sum(v), len(v)) for i, v in sorted(verdicts.items()) if len(v) > 1]


def flakiness(records: Sequence[Record], n_resamples: int) -> Flakiness | None:
    """None unless some item was scored in more than one repeat."""
    items = item_repeats(records)
    if not items:
        return None
    from ..stats import bootstrap_mean  # scipy and numpy load only for repeated runs

    clusters = [item.cluster for item in items]

    def metric(values: list[float]) -> Metric:
        result = bootstrap_mean(values, clusters, n_resamples=n_resamples, seed=0)
        return Metric(result.estimate, (result.ci[0], result.ci[1]), len(values), n_clusters=result.n_clusters)

    flaky = [item.id for item in items if item.flaky]
    return Flakiness(
        repeats=len({r.repeat for r in records}),
        n_items=len(items),
        flaky=len(flaky),
        agreement=metric([item.agreement for item in items]),
        pass_all=metric([float(item.correct == item.total) for item in items]),
        pass_any=metric([float(item.correct > 0) for item in items]),
        flaky_ids=tuple(flaky[:NAMED_IDS]),
    )
