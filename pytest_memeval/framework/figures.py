"""Declarative figure specs: what a suite hands to the HTML report, knowing nothing of SVG
(rendering/svg.py draws them).

Every spec is a frozen dataclass of plain values (str, float, tuples), so it compares,
hashes and round-trips through JSON (`figure_to_json` / `figure_from_json`). Constructors
accept lists and JSON-shaped mappings and store tuples, so a suite may write
`BarChart(..., series=[Series("a", [{"value": .6, "ci": [.5, .7]}])])`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, TypeAlias

from ..results.records import Metric, RunSummary

Range = tuple[float, float]
#: what a figure's value may be given as (Estimate.coerce)
EstimateLike: TypeAlias = "Estimate | Metric | Mapping[str, Any] | float | None"


@dataclass(frozen=True)
class Estimate:
    """A point estimate with an optional interval; `value=None` means not available."""

    value: float | None
    lo: float | None = None
    hi: float | None = None

    def __post_init__(self) -> None:
        for name in ("value", "lo", "hi"):
            _set(self, name, _number(getattr(self, name)))

    @property
    def has_interval(self) -> bool:
        return self.lo is not None and self.hi is not None

    def label(self) -> str:
        """ "0.612 [0.550, 0.670]", "0.612" without an interval, "n/a" without a value."""
        if self.value is None:
            return "n/a"
        text = format_number(self.value)
        if self.lo is not None and self.hi is not None:
            text += f" [{format_number(self.lo)}, {format_number(self.hi)}]"
        return text

    @classmethod
    def coerce(cls, value: EstimateLike) -> Estimate | None:
        """None, a number, an Estimate, a Metric, or a report mapping {"value", "ci"} /
        {"value", "lo", "hi"}."""
        if value is None or isinstance(value, Estimate):
            return value
        if isinstance(value, Metric):
            return cls(value.value, value.ci[0], value.ci[1])
        if isinstance(value, Mapping):
            ci = value.get("ci") or (value.get("lo"), value.get("hi"))
            return cls(value.get("value"), ci[0], ci[1])
        return cls(float(value))


@dataclass(frozen=True)
class Series:
    """One named series: a value per category (bar chart) or per row (dot plot)."""

    name: str
    values: tuple[Estimate | None, ...]

    def __post_init__(self) -> None:
        _set(self, "values", tuple(Estimate.coerce(v) for v in self.values))


@dataclass(frozen=True)
class BarChart:
    """Grouped bars (categories x series) with interval whiskers."""

    kind: ClassVar[str] = "bar"
    title: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    value_label: str = ""
    category_label: str = ""
    value_range: Range | None = None
    #: bars grow rightwards from category labels on the left; better for many or long labels
    horizontal: bool = False
    caption: str = ""

    def __post_init__(self) -> None:
        _set(self, "categories", _strings(self.categories))
        _set(self, "series", _items(Series, self.series))
        _set(self, "value_range", _range(self.value_range))
        for series in self.series:
            _same_length(series.values, self.categories, f"series {series.name!r}")


@dataclass(frozen=True)
class Difference:
    """One row of a forest plot: a labelled difference with its interval."""

    label: str
    value: float | None
    lo: float | None = None
    hi: float | None = None
    #: printed right of the plot, e.g. "p_holm = 0.012"
    note: str = ""

    def __post_init__(self) -> None:
        for name in ("value", "lo", "hi"):
            _set(self, name, _number(getattr(self, name)))


@dataclass(frozen=True)
class ForestPlot:
    """Differences with intervals around a reference (0: no difference)."""

    kind: ClassVar[str] = "forest"
    title: str
    rows: tuple[Difference, ...]
    value_label: str = "difference"
    reference: float = 0.0
    value_range: Range | None = None
    caption: str = ""

    def __post_init__(self) -> None:
        _set(self, "rows", _items(Difference, self.rows))
        _set(self, "value_range", _range(self.value_range))


#: line styles a series may ask for
DASHES = ("", "dotted", "dashed")


@dataclass(frozen=True)
class LineSeries:
    """Points joined in the given order; a reference series is drawn dashed and grey.

    `color` (a palette index) lets series that belong together share a colour (a curve
    and its reference); `dash` ("dotted" or "dashed") tells runs apart within a colour.
    A series of one point is drawn as a marker.
    """

    name: str
    points: tuple[tuple[float, float], ...]
    markers: bool = False
    reference: bool = False
    color: int | None = None
    dash: str = ""

    def __post_init__(self) -> None:
        _set(self, "points", tuple((float(x), float(y)) for x, y in self.points))
        if self.dash not in DASHES:
            raise ValueError(f"LineSeries dash must be one of {DASHES}, not {self.dash!r}")


@dataclass(frozen=True)
class ReferenceLine:
    """A straight guide across the plot at `value` on the x or y axis (e.g. chance level)."""

    value: float
    axis: str = "y"
    label: str = ""

    def __post_init__(self) -> None:
        if self.axis not in ("x", "y"):
            raise ValueError(f"ReferenceLine axis must be 'x' or 'y', not {self.axis!r}")


@dataclass(frozen=True)
class LineChart:
    """Series of (x, y) points, e.g. a risk-coverage curve or a belief trajectory."""

    kind: ClassVar[str] = "line"
    title: str
    series: tuple[LineSeries, ...]
    x_label: str = ""
    y_label: str = ""
    x_range: Range | None = None
    y_range: Range | None = None
    reference_lines: tuple[ReferenceLine, ...] = ()
    caption: str = ""

    def __post_init__(self) -> None:
        _set(self, "series", _items(LineSeries, self.series))
        _set(self, "reference_lines", _items(ReferenceLine, self.reference_lines))
        _set(self, "x_range", _range(self.x_range))
        _set(self, "y_range", _range(self.y_range))


@dataclass(frozen=True)
class StackedBarChart:
    """One bar per category split into segments; `values[i][j]` is segment j of category i."""

    kind: ClassVar[str] = "stacked"
    title: str
    categories: tuple[str, ...]
    segments: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    #: scale every bar to 1 (shares); otherwise values are drawn as they are
    normalize: bool = True
    value_label: str = "share"
    horizontal: bool = True
    caption: str = ""

    def __post_init__(self) -> None:
        _set(self, "categories", _strings(self.categories))
        _set(self, "segments", _strings(self.segments))
        _set(self, "values", tuple(tuple(_number(v) or 0.0 for v in row) for row in self.values))
        _same_length(self.values, self.categories, "values")
        for row in self.values:
            _same_length(row, self.segments, "a row of values")
            if any(v < 0 for v in row):
                raise ValueError("stacked bar values must not be negative")


@dataclass(frozen=True)
class DotPlot:
    """Rows x series as dots with optional intervals, e.g. per-subject values per condition."""

    kind: ClassVar[str] = "dot"
    title: str
    rows: tuple[str, ...]
    series: tuple[Series, ...]
    value_label: str = ""
    value_range: Range | None = None
    caption: str = ""

    def __post_init__(self) -> None:
        _set(self, "rows", _strings(self.rows))
        _set(self, "series", _items(Series, self.series))
        _set(self, "value_range", _range(self.value_range))
        for series in self.series:
            _same_length(series.values, self.rows, f"series {series.name!r}")


Figure = BarChart | ForestPlot | LineChart | StackedBarChart | DotPlot
FIGURE_KINDS: dict[str, type] = {cls.kind: cls for cls in (BarChart, ForestPlot, LineChart, StackedBarChart, DotPlot)}


def figure_to_json(figure: Figure) -> dict[str, Any]:
    """A JSON-ready dict with a "kind" key; `figure_from_json` reverses it."""
    return {"kind": figure.kind, **asdict(figure)}


def figure_from_json(data: Mapping[str, Any]) -> Figure:
    kind = data.get("kind")
    if kind not in FIGURE_KINDS:
        raise ValueError(f"unknown figure kind {kind!r} (known: {', '.join(FIGURE_KINDS)})")
    cls = FIGURE_KINDS[kind]
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def format_number(value: float) -> str:
    """Three decimals for rates and differences, one for large magnitudes (counts, ms)."""
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3f}"


def _set(obj: object, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # normalising inside a frozen dataclass


def _number(value: Any) -> float | None:
    """Floats stay floats; None, NaN and infinities become None (nothing to draw)."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _strings(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


def _items(cls: type, values: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(v if isinstance(v, cls) else cls(**v) for v in values)


def _range(value: Any) -> Range | None:
    if value is None:
        return None
    lo, hi = (float(v) for v in value)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"a range needs finite lo < hi, got {value!r}")
    return (lo, hi)


def _same_length(values: tuple[Any, ...], reference: tuple[Any, ...], what: str) -> None:
    if len(values) != len(reference):
        raise ValueError(f"{what} has {len(values)} values for {len(reference)} categories")


def run_labels(runs: Sequence[RunSummary]) -> list[str]:
    """Each run's label among the runs shown together (the memory system, plus every axis
    that differs between them: responder, judge, k)."""
    keys = [run.key for run in runs]
    return [key.label(keys) for key in keys]
