"""scipy.stats, imported on first use.

Suites import this package at collection time, in every xdist worker; scipy.stats takes
about half a second to import and is needed only when the controller summarises.
"""

from __future__ import annotations

from types import ModuleType


def scipy_stats() -> ModuleType:
    from scipy import stats

    return stats
