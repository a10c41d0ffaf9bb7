"""How much the judge moves the number: a run graded by a panel of judges (two prompts, or
two models) whose verdicts are yes/no, e.g. Mem0's J beside LongMemEval's strict prompt.

Each judge's verdict is in the record's detail under "judges" (as `JudgePanel.score`
writes it: name -> {"correct": bool, ...}). Over the scored records every judge of the
panel judged: each judge's accuracy, and for each pair of judges Cohen's kappa and the
difference of their accuracies; every interval resamples clusters (an item's repeats
stay in its cluster, as in the suites' own intervals), the kappa and the accuracies from
one set of resamples. The records where the judges do not all agree are named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from ..results.records import JudgePair, JudgeSensitivity, Metric, Record

#: where a record's detail keeps its panel's verdicts
PANEL_DETAIL = "judges"


def panel_verdicts(record: Record) -> dict[str, bool | None]:
    """Each judge's yes/no verdict on the record (None where a judge gave none: an invalid
    reply, or a graded score without a verdict)."""
    return detail_verdicts(record.detail)


def detail_verdicts(detail: Mapping[str, Any]) -> dict[str, bool | None]:
    """Each judge's yes/no verdict in a verdict's detail (`panel_verdicts`)."""
    judges = detail.get(PANEL_DETAIL)
    if not isinstance(judges, Mapping):
        return {}
    return {str(name): _verdict(v) for name, v in judges.items()}


def _verdict(value: Any) -> bool | None:
    correct = value.get("correct") if isinstance(value, Mapping) else None
    return correct if isinstance(correct, bool) else None


def judge_sensitivity(records: Sequence[Record], n_resamples: int) -> JudgeSensitivity | None:
    """None unless at least two judges gave yes/no verdicts on a scored record."""
    verdicts = [(r, panel_verdicts(r)) for r in records if r.is_scored]
    judges = list(dict.fromkeys(name for _, v in verdicts for name in v))
    units = [(r, v) for r, v in verdicts if judges and all(v.get(name) is not None for name in judges)]
    if len(judges) < 2 or not units:
        return None
    from ..stats import bootstrap_cell, cluster_bootstrap, cohen_kappa, compare_rates, micro_mean

    said = {name: [bool(v[name]) for _, v in units] for name in judges}
    columns = {f"j{i}": [float(x) for x in said[name]] for i, name in enumerate(judges)}
    metrics = {name: micro_mean(f"j{i}") for i, name in enumerate(judges)}
    pairs = list(combinations(range(len(judges)), 2))
    for i, k in pairs:
        columns[f"j{i}&j{k}"] = [float(x and y) for x, y in zip(said[judges[i]], said[judges[k]])]
        metrics[f"kappa {i} {k}"] = cohen_kappa(f"j{i}", f"j{k}", f"j{i}&j{k}")
    clusters = [r.cluster for r, _ in units]
    results = cluster_bootstrap(metrics, columns, clusters, n_resamples=n_resamples, seed=0)

    def cell(name: str) -> Metric:
        return bootstrap_cell(results[name], len(units))

    return JudgeSensitivity(
        judges=tuple(judges),
        n=len(units),
        accuracy={name: cell(name) for name in judges},
        pairs=tuple(
            JudgePair(
                judges[i],
                judges[k],
                len(units),
                sum(x == y for x, y in zip(said[judges[i]], said[judges[k]])),
                cell(f"kappa {i} {k}"),
                compare_rates(said[judges[i]], said[judges[k]], clusters, n_resamples),
            )
            for i, k in pairs
        ),
        disagreements=tuple(
            (r.id, r.repeat, {name: bool(v[name]) for name in judges})
            for r, v in units
            if len({v[name] for name in judges}) > 1
        ),
    )
