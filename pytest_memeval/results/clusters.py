"""How many independent clusters a statistic rests on, and what follows from it.

Every interval, minimum detectable effect and p-value of the plugin resamples (or
sign-flips) clusters, the units whose items are correlated: a persona, an episode, a
subject. Items of one cluster are not independent evidence.

- Fewer than `MIN_CLUSTERS` (2): there is no variation between clusters to learn from. A
  cluster bootstrap of one cluster returns the same data every time, which used to print as
  a zero-width interval, an MDE of 0 and p = 0.0005: certainty made of nothing. Such
  statistics are *not estimable*: the point estimate stays, the interval, MDE and p-value
  are None (`stats.estimability`), every CI and no-regression
  gate on them fails saying why.
- Fewer than `RELIABLE_CLUSTERS` (6): the numbers are computed but flagged. With C
  clusters the exact sign-flip test has 2**C sign patterns, of which the observed one and
  its mirror image are always among the most extreme: the smallest two-sided p-value it can
  give is 2 / 2**C, which is 0.0625 at C = 5. Below 6 clusters no paired difference can be
  significant at .05 whatever the data, and a percentile bootstrap of a mean over so few
  clusters is too narrow (it has no small-sample correction: t(4) puts the 97.5% point at
  2.78 standard errors, the bootstrap near 1.96).
"""

from __future__ import annotations

from collections.abc import Iterable

from .records import Record

#: below this many clusters, intervals, MDEs and p-values are not estimable (None)
MIN_CLUSTERS = 2
#: below this many clusters, intervals are flagged as unreliable
RELIABLE_CLUSTERS = 6


def count_clusters(records: Iterable[Record]) -> int:
    return len({record.cluster for record in records})


def estimable(n_clusters: int | None) -> bool:
    """Unknown counts (reports written before the count was kept) are taken as estimable."""
    return n_clusters is None or n_clusters >= MIN_CLUSTERS


def cluster_note(n_clusters: int | None) -> str:
    """Why the statistics of a run or comparison are missing or shaky; empty when they are not."""
    if n_clusters is None or n_clusters >= RELIABLE_CLUSTERS:
        return ""
    if n_clusters < MIN_CLUSTERS:
        return (
            f"not estimable: the items come from {n_clusters} cluster{'s' if n_clusters != 1 else ''}; "
            f"intervals, MDE and p-values need at least {MIN_CLUSTERS} independent clusters"
        )
    return (
        f"few clusters: {n_clusters} (fewer than {RELIABLE_CLUSTERS}): intervals and p-values are unreliable; "
        f"with so few clusters an exact test cannot reach p < .05"
    )
