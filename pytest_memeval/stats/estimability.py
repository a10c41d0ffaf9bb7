"""Whether an interval says anything: the one place that decides it, for every metric and
every paired difference the reports print (docs/statistics.md).

An interval is printed only when it is informative and holds its own value; otherwise the
reports print ``n/a`` and the reason this module gives:

- **one cluster** (or none): there is no variation between clusters to learn from; a
  cluster bootstrap of one cluster draws the same data every time;
- **no variation**: every resample (every sign pattern) gave the same value. A zero-width
  interval is the data's sameness, not certainty: 63 of 63 items right in three lives print
  ``[100.0, 100.0]``, and two identical runs a paired difference of ``[0, 0]``;
- **the whole range**: the interval is everything the metric can take. A sign-flip test
  over four clusters cannot reject any difference, so the interval of a difference of two
  rates is all of [-1, +1]: a filler, not a measurement;
- **a miss**: the interval does not hold its own estimate (a percentile bootstrap whose
  resamples all fall on one side of it). That is a defect of the statistic; the reports
  say so instead of printing both.

A suite may give a metric no interval with a reason of its own (`Metric.no_interval`);
that reason is kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..results.clusters import MIN_CLUSTERS

#: an interval narrower than this share of its value's magnitude (at least 1) has no width
ZERO_WIDTH = 1e-9

Bounds = tuple[float, float]


def no_interval_reason(
    value: float | None,
    ci: Sequence[float | None],
    n_clusters: int | None = None,
    bounds: Bounds | None = None,
    given: str = "",
) -> str:
    """Why `value` gets no interval from `ci`; "" when the interval is to be printed.

    `n_clusters` counts the independent clusters the statistic rests on (None: unknown);
    `bounds` is the range the value can take (None: unknown), for a paired difference the
    range of a difference. `given` is a reason the statistic gave itself."""
    if value is None or not math.isfinite(value):
        return ""
    if n_clusters is not None and n_clusters < MIN_CLUSTERS:
        return "one cluster" if n_clusters == 1 else "no clusters"
    if given:
        return given
    low, high = ci
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return "no interval computed"
    clusters = f" in {n_clusters} clusters" if n_clusters is not None else ""
    if high - low <= ZERO_WIDTH * max(1.0, abs(value)):
        return f"no variation{clusters}"
    if bounds is not None and low <= bounds[0] and high >= bounds[1]:
        few = f"{n_clusters} clusters are" if n_clusters is not None else "the items are"
        return f"{few} too few to bound it (the interval is the whole range)"
    if not low <= value <= high:
        return f"the interval [{low:.6g}, {high:.6g}] misses the estimate"
    return ""


def difference_bounds(bounds: Bounds | None) -> Bounds | None:
    """The range of a difference of two values in `bounds`."""
    if bounds is None:
        return None
    width = bounds[1] - bounds[0]
    return (-width, width)
