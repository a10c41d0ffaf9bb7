"""Render figure specs to inline SVG: no script, no external fonts or images, deterministic.

`render_svg(figure, element_id)` returns one <svg> element labelled by its <title> and
<desc>; every mark carries a <title> tooltip with its exact value. Layout is either
columns (categories along x, values up) or rows (labels on the left, values along x).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..framework.figures import (
    BarChart,
    DotPlot,
    Estimate,
    Figure,
    ForestPlot,
    LineChart,
    LineSeries,
    Series,
    StackedBarChart,
    format_number,
)
from .svg_layout import (
    INK,
    MUTED,
    PAD,
    REFERENCE,
    X_AXIS_HEIGHT,
    X_LABEL_HEIGHT,
    LegendEntry,
    Linear,
    Ticks,
    color,
    document,
    el,
    fit,
    ink_on,
    legend,
    nice_ticks,
    num,
    text,
    text_width,
    tick_label_width,
    title_block,
    tooltip,
    value_ticks,
    x_axis,
    y_axis,
)

WIDTH = 880
PLOT_HEIGHT = 260
MAX_ROW_LABEL = 320
MAX_NOTE = 220
#: the widest a category label may be once rotated (when labels do not fit under their column)
ROTATED_LABEL = 150.0


def render_svg(figure: Figure, element_id: str = "figure", xmlns: bool = False) -> str:
    """One <svg> element; `element_id` must be unique in the page; `xmlns` for a standalone file."""
    width, height, body = _render(figure, element_id)
    return document(width, height, figure.title, describe(figure), body, element_id, xmlns)


def _render(figure: Figure, eid: str) -> tuple[float, float, str]:
    """Width, height and body of `figure`, by its kind."""
    if isinstance(figure, BarChart):
        return _bar_chart(figure, eid)
    if isinstance(figure, StackedBarChart):
        return _stacked_chart(figure, eid)
    if isinstance(figure, ForestPlot):
        return _forest_plot(figure, eid)
    if isinstance(figure, LineChart):
        return _line_chart(figure, eid)
    return _dot_plot(figure, eid)


def describe(figure: Figure) -> str:
    """A plain-language summary for screen readers (the <desc>), ending with the caption."""
    if isinstance(figure, BarChart):
        what = (
            f"Bar chart of {len(figure.categories)} categories ({_listing(figure.categories)}) "
            f"for {_listing([s.name for s in figure.series])}, with interval whiskers."
        )
    elif isinstance(figure, StackedBarChart):
        what = (
            f"Stacked bar chart of {len(figure.categories)} bars ({_listing(figure.categories)}) "
            f"split into {_listing(figure.segments)}."
        )
    elif isinstance(figure, ForestPlot):
        what = (
            f"Forest plot of {len(figure.rows)} differences with intervals around "
            f"{format_number(figure.reference)}: {_listing([r.label for r in figure.rows])}."
        )
    elif isinstance(figure, LineChart):
        what = (
            f"Line chart of {figure.y_label or 'y'} against {figure.x_label or 'x'} "
            f"for {_listing([s.name for s in figure.series])}."
        )
    else:
        what = (
            f"Dot plot of {len(figure.rows)} rows ({_listing(figure.rows)}) "
            f"for {_listing([s.name for s in figure.series])}."
        )
    return f"{what} {figure.caption}".strip()


def _listing(names: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


@dataclass(frozen=True)
class Frame:
    """The plot area and the size of the whole figure around it."""

    left: float
    top: float
    width: float
    height: float
    total_width: float
    total_height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height


def _header(title: str, entries: Sequence[LegendEntry], width: float) -> tuple[str, float]:
    """Title and (for more than one entry) the legend; returns SVG and the plot's top."""
    head, height = title_block(title, width)
    keys, keys_height = legend(entries if len(entries) > 1 else (), PAD, height + 8, width - 2 * PAD)
    return head + keys, height + keys_height + 18


def _columns(
    title: str,
    entries: Sequence[LegendEntry],
    categories: Sequence[str],
    ticks: Ticks,
    value_label: str,
    category_label: str,
    min_column: float,
) -> tuple[Frame, str, list[str], bool]:
    """Columns layout: value axis on the left, category labels under the columns."""
    left = PAD + (22 if value_label else 0) + tick_label_width(ticks) + 8
    widest = max((text_width(c) for c in categories), default=0.0)
    rotate = widest > max(WIDTH - left - PAD, len(categories) * min_column) / max(1, len(categories)) - 6
    if rotate:  # room on the left for the first label, which leans that way by cos(35 deg)
        left = max(left, PAD + 0.82 * min(widest, ROTATED_LABEL))
    plot_width = max(WIDTH - left - PAD, len(categories) * min_column)
    width = left + plot_width + PAD
    head, top = _header(title, entries, width)
    band = plot_width / max(1, len(categories))
    labels = [fit(c, ROTATED_LABEL if rotate else band - 6) for c in categories]
    label_height = 0.6 * min(widest, ROTATED_LABEL) + 18 if rotate else X_AXIS_HEIGHT
    height = top + PLOT_HEIGHT + label_height + (X_LABEL_HEIGHT if category_label else 0) + PAD
    return Frame(left, top, plot_width, PLOT_HEIGHT, width, height), head, labels, rotate


def _column_labels(
    frame: Frame, categories: Sequence[str], labels: Sequence[str], rotate: bool, category_label: str
) -> str:
    band = frame.width / max(1, len(categories))
    parts = []
    for i, (full, label) in enumerate(zip(categories, labels)):
        x, y = frame.left + (i + 0.5) * band, frame.bottom + 12
        if rotate:  # -35 degrees: readable without turning the head, anchored at the column
            parts.append(
                el(
                    "text",
                    {
                        "x": x,
                        "y": y,
                        "font-size": 12,
                        "text-anchor": "end",
                        "fill": INK,
                        "dominant-baseline": "middle",
                        "transform": f"rotate(-35 {num(x)} {num(y)})",
                    },
                    escape(label, quote=False),
                    tooltip(full) if full != label else "",
                )
            )
        else:
            parts.append(text(x, y, label, anchor="middle", hint=full))
    parts.append(
        el("line", {"x1": frame.left, "x2": frame.right, "y1": frame.bottom, "y2": frame.bottom, "stroke": MUTED})
    )
    if category_label:
        parts.append(
            text((frame.left + frame.right) / 2, frame.total_height - PAD - 8, category_label, anchor="middle")
        )
    return "".join(parts)


def _rows(
    title: str,
    entries: Sequence[LegendEntry],
    labels: Sequence[str],
    row_height: float,
    value_label: str,
    note_width: float = 0.0,
) -> tuple[Frame, str, list[str]]:
    """Rows layout: labels on the left, value axis along the bottom, optional notes on the right."""
    label_width = min(max((text_width(r) for r in labels), default=0.0), MAX_ROW_LABEL)
    left = PAD + label_width + 10
    plot_width = WIDTH - left - PAD - (note_width + 12 if note_width else 0)
    head, top = _header(title, entries, WIDTH)
    height = len(labels) * row_height
    total = top + height + X_AXIS_HEIGHT + (X_LABEL_HEIGHT if value_label else 0) + PAD
    return Frame(left, top, plot_width, height, WIDTH, total), head, [fit(r, label_width) for r in labels]


def _row_labels(frame: Frame, labels: Sequence[str], shown: Sequence[str], row_height: float) -> str:
    return "".join(
        text(frame.left - 8, frame.top + (i + 0.5) * row_height, label, anchor="end", hint=full)
        for i, (full, label) in enumerate(zip(labels, shown))
    )


def _estimates(series: Sequence[Series]) -> list[float | None]:
    return [v for s in series for e in s.values if e is not None for v in (e.value, e.lo, e.hi)]


def _whisker(scale: Linear, estimate: Estimate, at: float, horizontal: bool, stroke: str = INK) -> str:
    """An interval as a line with end caps, across the value axis at position `at`."""
    if estimate.lo is None or estimate.hi is None:
        return ""
    a, b = scale.clamp(estimate.lo), scale.clamp(estimate.hi)
    ends = [(a, a), (b, b), (a, b)]
    parts = []
    for i, (u, v) in enumerate(ends):
        half = 4.0 if i < 2 else 0.0
        if horizontal:
            parts.append(
                el("line", {"x1": u, "x2": v, "y1": at - half, "y2": at + half, "stroke": stroke, "stroke-width": 1.3})
            )
        else:
            parts.append(
                el("line", {"x1": at - half, "x2": at + half, "y1": u, "y2": v, "stroke": stroke, "stroke-width": 1.3})
            )
    return "".join(parts)


def _missing(zero: float, at: float, horizontal: bool, what: str) -> str:
    """A small "n/a" where a mark would be, so a missing value is not read as zero."""
    if horizontal:
        return text(zero + 4, at, "n/a", fill=MUTED, size=10, hint=f"{what}: n/a")
    return text(at, zero - 8, "n/a", anchor="middle", fill=MUTED, size=10, hint=f"{what}: n/a")


def _bar_chart(fig: BarChart, eid: str) -> tuple[float, float, str]:
    entries = [LegendEntry(s.name, color(i)) for i, s in enumerate(fig.series)]
    ticks = value_ticks(_estimates(fig.series), fig.value_range, include=(0.0,))
    n_series = max(1, len(fig.series))
    row: float
    if fig.horizontal:
        row = n_series * 14 + 14
        frame, head, shown = _rows(fig.title, entries, fig.categories, row, fig.value_label)
        scale = Linear(ticks.lo, ticks.hi, frame.left, frame.right)
        axis = x_axis(scale, ticks, frame.top, frame.bottom, fig.value_label)
        labels = _row_labels(frame, fig.categories, shown, row)
    else:
        frame, head, shown, rotate = _columns(
            fig.title, entries, fig.categories, ticks, fig.value_label, fig.category_label, n_series * 16 + 18
        )
        row = frame.width / max(1, len(fig.categories))
        scale = Linear(ticks.lo, ticks.hi, frame.bottom, frame.top)
        axis = y_axis(scale, ticks, frame.left, frame.right, fig.value_label, PAD + 6)
        labels = _column_labels(frame, fig.categories, shown, rotate, fig.category_label)
    zero = scale.clamp(0.0)
    thickness = (row - 14) / n_series if fig.horizontal else min(40.0, (row - 14) / n_series)
    marks = []
    for ci, category in enumerate(fig.categories):
        start = (frame.top if fig.horizontal else frame.left) + ci * row + (row - thickness * n_series) / 2
        for si, series in enumerate(fig.series):
            estimate = series.values[ci]
            at = start + si * thickness
            if estimate is None or estimate.value is None:
                what = f"{series.name} \u00b7 {category}"
                marks.append(_missing(zero, at + (thickness - 1.0) / 2, fig.horizontal, what))
                continue
            end = scale.clamp(estimate.value)
            lo, size = min(zero, end), abs(end - zero)
            box = (
                {"x": lo, "y": at, "width": size, "height": thickness - 1.0}
                if fig.horizontal
                else {"x": at, "y": lo, "width": thickness - 1.0, "height": size}
            )
            marks.append(
                el("rect", {**box, "fill": color(si)}, tooltip(f"{series.name} \u00b7 {category}: {estimate.label()}"))
            )
            marks.append(_whisker(scale, estimate, at + (thickness - 1.0) / 2, fig.horizontal))
    return frame.total_width, frame.total_height, head + axis + "".join(marks) + labels


def _stacked_chart(fig: StackedBarChart, eid: str) -> tuple[float, float, str]:
    entries = [LegendEntry(s, color(i)) for i, s in enumerate(fig.segments)]
    totals = [sum(row) for row in fig.values]
    ticks = nice_ticks(0.0, 1.0, fixed=True) if fig.normalize else value_ticks(totals, None, include=(0.0,))
    if fig.horizontal:
        row = 26.0
        frame, head, shown = _rows(fig.title, entries, fig.categories, row, fig.value_label)
        scale = Linear(ticks.lo, ticks.hi, frame.left, frame.right)
        axis = x_axis(scale, ticks, frame.top, frame.bottom, fig.value_label)
        labels = _row_labels(frame, fig.categories, shown, row)
    else:
        frame, head, shown, rotate = _columns(fig.title, entries, fig.categories, ticks, fig.value_label, "", 40)
        row = frame.width / max(1, len(fig.categories))
        scale = Linear(ticks.lo, ticks.hi, frame.bottom, frame.top)
        axis = y_axis(scale, ticks, frame.left, frame.right, fig.value_label, PAD + 6)
        labels = _column_labels(frame, fig.categories, shown, rotate, "")
    thickness = min(row - 8, 40.0)
    marks = []
    for ci, (category, values, total) in enumerate(zip(fig.categories, fig.values, totals)):
        at = (frame.top if fig.horizontal else frame.left) + ci * row + (row - thickness) / 2
        cumulative = 0.0
        for si, (segment, value) in enumerate(zip(fig.segments, values)):
            share = value / total if fig.normalize and total else value
            if share <= 0:
                continue
            a, b = scale.clamp(cumulative), scale.clamp(cumulative + share)
            cumulative += share
            box = (
                {"x": a, "y": at, "width": b - a, "height": thickness}
                if fig.horizontal
                else {"x": at, "y": b, "width": thickness, "height": a - b}
            )
            hint = f"{category} \u00b7 {segment}: {format_number(value)}"
            hint += f" ({share:.1%})" if fig.normalize else ""
            marks.append(
                el("rect", {**box, "fill": color(si), "stroke": "#ffffff", "stroke-width": 0.8}, tooltip(hint))
            )
            label = f"{share:.0%}" if fig.normalize else format_number(value)
            if fig.horizontal and b - a > text_width(label) + 6:
                marks.append(text((a + b) / 2, at + thickness / 2, label, anchor="middle", fill=ink_on(si), size=11))
    return frame.total_width, frame.total_height, head + axis + "".join(marks) + labels


def _forest_plot(fig: ForestPlot, eid: str) -> tuple[float, float, str]:
    notes = [fit(r.note or Estimate(r.value, r.lo, r.hi).label(), MAX_NOTE) for r in fig.rows]
    note_width = max((text_width(n) for n in notes), default=0.0)
    row = 24.0
    labels = [r.label for r in fig.rows]
    frame, head, shown = _rows(fig.title, (), labels, row, fig.value_label, note_width)
    values = [v for r in fig.rows for v in (r.value, r.lo, r.hi)]
    ticks = value_ticks(values, fig.value_range, include=(fig.reference,))
    scale = Linear(ticks.lo, ticks.hi, frame.left, frame.right)
    parts = [x_axis(scale, ticks, frame.top, frame.bottom, fig.value_label)]
    if ticks.lo <= fig.reference <= ticks.hi:
        x = scale(fig.reference)
        parts.append(
            el(
                "line",
                {
                    "x1": x,
                    "x2": x,
                    "y1": frame.top - 4,
                    "y2": frame.bottom,
                    "stroke": REFERENCE,
                    "stroke-dasharray": "4 3",
                    "stroke-width": 1.2,
                },
            )
        )
    for i, (difference, note) in enumerate(zip(fig.rows, notes)):
        y = frame.top + (i + 0.5) * row
        parts.append(text(frame.right + 12, y, note, fill=MUTED))
        if difference.value is None:
            parts.append(_missing(frame.left, y, True, difference.label))
            continue
        estimate = Estimate(difference.value, difference.lo, difference.hi)
        parts.append(_whisker(scale, estimate, y, True, stroke=color(0)))
        x = scale.clamp(difference.value)
        parts.append(
            el(
                "rect",
                {"x": x - 4.5, "y": y - 4.5, "width": 9, "height": 9, "fill": color(0)},
                tooltip(f"{difference.label}: {estimate.label()}"),
            )
        )
    parts.append(_row_labels(frame, labels, shown, row))
    return frame.total_width, frame.total_height, head + "".join(parts)


def _dot_plot(fig: DotPlot, eid: str) -> tuple[float, float, str]:
    entries = [LegendEntry(s.name, color(i), "dot") for i, s in enumerate(fig.series)]
    row = max(22.0, len(fig.series) * 7.0 + 10)
    frame, head, shown = _rows(fig.title, entries, fig.rows, row, fig.value_label)
    ticks = value_ticks(_estimates(fig.series), fig.value_range)
    scale = Linear(ticks.lo, ticks.hi, frame.left, frame.right)
    parts = [x_axis(scale, ticks, frame.top, frame.bottom, fig.value_label)]
    offsets = [(i - (len(fig.series) - 1) / 2) * 6.0 for i in range(len(fig.series))]
    for ri, name in enumerate(fig.rows):
        y = frame.top + (ri + 0.5) * row
        parts.append(el("line", {"x1": frame.left, "x2": frame.right, "y1": y, "y2": y, "stroke": "#f0f0f0"}))
        for si, series in enumerate(fig.series):
            estimate = series.values[ri]
            if estimate is None or estimate.value is None:
                continue
            parts.append(_whisker(scale, estimate, y + offsets[si], True, stroke=color(si)))
            parts.append(
                el(
                    "circle",
                    {
                        "cx": scale.clamp(estimate.value),
                        "cy": y + offsets[si],
                        "r": 4.5,
                        "fill": color(si),
                        "stroke": "#ffffff",
                        "stroke-width": 0.8,
                    },
                    tooltip(f"{name} \u00b7 {series.name}: {estimate.label()}"),
                )
            )
    parts.append(_row_labels(frame, fig.rows, shown, row))
    return frame.total_width, frame.total_height, head + "".join(parts)


def _line_style(series: LineSeries, automatic: dict[str, str]) -> tuple[str, str | None, str]:
    """(stroke, dash array, legend mark) of a series: its own colour and dash when it names
    them; otherwise the next palette colour, and a reference dashed grey."""
    if series.color is not None:
        stroke = color(series.color)
    else:
        stroke = REFERENCE if series.reference else automatic[series.name]
    dash = series.dash or ("dashed" if series.reference else "")
    return stroke, {"dashed": "6 4", "dotted": "1.5 3"}.get(dash), dash or "line"


def _line_chart(fig: LineChart, eid: str) -> tuple[float, float, str]:
    plain = [s for s in fig.series if not s.reference and s.color is None]
    colors = {s.name: color(i) for i, s in enumerate(plain)}
    styles = {s.name: _line_style(s, colors) for s in fig.series}
    entries = [LegendEntry(s.name, styles[s.name][0], styles[s.name][2]) for s in fig.series]
    x_ticks = value_ticks(
        [p[0] for s in fig.series for p in s.points],
        fig.x_range,
        include=[r.value for r in fig.reference_lines if r.axis == "x"],
        target=6,
    )
    y_ticks = value_ticks(
        [p[1] for s in fig.series for p in s.points],
        fig.y_range,
        include=[r.value for r in fig.reference_lines if r.axis == "y"],
    )
    left = PAD + (22 if fig.y_label else 0) + tick_label_width(y_ticks) + 8
    head, top = _header(fig.title, entries, WIDTH)
    bottom = top + PLOT_HEIGHT
    right = WIDTH - PAD - 10
    height = bottom + X_AXIS_HEIGHT + (X_LABEL_HEIGHT if fig.x_label else 0) + PAD
    xs = Linear(x_ticks.lo, x_ticks.hi, left, right)
    ys = Linear(y_ticks.lo, y_ticks.hi, bottom, top)
    clip = f"{eid}-clip"
    parts = [
        el(
            "clipPath",
            {"id": clip},
            el("rect", {"x": left - 5, "y": top - 5, "width": right - left + 10, "height": float(PLOT_HEIGHT + 10)}),
        ),
        y_axis(ys, y_ticks, left, right, fig.y_label, PAD + 6),
        x_axis(xs, x_ticks, top, bottom, fig.x_label),
    ]
    for line in fig.reference_lines:
        parts.append(_reference_line(line.value, line.axis, line.label, xs, ys))
    marks = []
    for series in fig.series:
        stroke, dash, _ = styles[series.name]
        points = " ".join(f"{num(xs(x))},{num(ys(y))}" for x, y in series.points)
        marks.append(
            el(
                "polyline",
                {
                    "points": points,
                    "fill": "none",
                    "stroke": stroke,
                    "stroke-width": 1.6 if series.reference else 2.2,
                    "stroke-dasharray": dash,
                    "stroke-linejoin": "round",
                },
                tooltip(series.name),
            )
        )
        if series.markers or len(series.points) == 1:  # one point draws no line: mark it
            for x, y in series.points:
                marks.append(
                    el(
                        "circle",
                        {"cx": xs(x), "cy": ys(y), "r": 3.2, "fill": stroke},
                        tooltip(f"{series.name}: ({format_number(x)}, {format_number(y)})"),
                    )
                )
    parts.append(el("g", {"clip-path": f"url(#{clip})"}, *marks))
    if not any(series.points for series in fig.series):
        parts.append(text((left + right) / 2, (top + bottom) / 2, "no points to draw", anchor="middle", fill=MUTED))
    return float(WIDTH), height, head + "".join(parts)


def _reference_line(value: float, axis: str, label: str, xs: Linear, ys: Linear) -> str:
    scale = xs if axis == "x" else ys
    if not min(scale.d0, scale.d1) <= value <= max(scale.d0, scale.d1):
        return ""
    at = scale(value)
    ends = (
        {"x1": at, "x2": at, "y1": ys.r1, "y2": ys.r0}
        if axis == "x"
        else {"x1": xs.r0, "x2": xs.r1, "y1": at, "y2": at}
    )
    parts = [el("line", {**ends, "stroke": REFERENCE, "stroke-dasharray": "3 3", "stroke-width": 1.2})]
    if label:
        if axis == "x":
            parts.append(text(at + 4, ys.r1 + 8, fit(label, xs.r1 - at - 8), fill=MUTED, hint=label, halo=True))
        else:
            shown = fit(label, (xs.r1 - xs.r0) / 2)
            parts.append(text(xs.r1 - 4, at - 8, shown, anchor="end", fill=MUTED, hint=label, halo=True))
    return "".join(parts)
