"""SVG building blocks shared by the chart renderers: elements, scales, ticks, axes, legends.

Everything is plain string building with escaped text and fixed number formatting, so the
same figure always gives the same bytes. Text is measured by an average glyph width (no
font metrics offline); `text_width` errs on the wide side so labels do not overflow.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif"
FONT_SIZE = 12
TITLE_SIZE = 14
#: glyph advances in em, rounded up from DejaVu Sans, the widest common fallback font
NARROW, SPACE, SLIM, WIDE, UPPER, DEFAULT = 0.3, 0.33, 0.42, 1.0, 0.78, 0.64
#: bold glyphs are wider than regular ones by up to this factor
BOLD = 1.15
CHAR_CLASSES = (("ijl|!.,:;'", NARROW), (" ", SPACE), ("ftrI()[]-/", SLIM), ("mwMW%@\u2014", WIDE))
PAD = 12
INK = "#222222"
MUTED = "#666666"
GRID = "#e3e3e3"
#: Okabe-Ito, distinguishable with the common colour-vision deficiencies; yellow last
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
REFERENCE = "#555555"


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def ink_on(index: int) -> str:
    """Text colour readable on `color(index)`: white on the dark entries, ink on the light ones."""
    return "#ffffff" if index % len(PALETTE) in (0, 2, 5, 6) else INK


def num(x: float) -> str:
    """A coordinate with one decimal, without a trailing '.0' and never '-0'."""
    text = f"{x:.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return "0" if text == "-0" else text


def el(tag: str, attrs: Mapping[str, object], *children: str) -> str:
    parts = [tag]
    for key, value in attrs.items():
        if value is None:
            continue
        text = num(value) if isinstance(value, float) else str(value)
        parts.append(f'{key}="{escape(text, quote=True)}"')
    head = " ".join(parts)
    return f"<{head}>{''.join(children)}</{tag}>" if children else f"<{head}/>"


def tooltip(text: str) -> str:
    """A <title> child: the browser shows it on hover and screen readers read it."""
    return f"<title>{escape(text, quote=False)}</title>"


def text(
    x: float,
    y: float,
    content: str,
    *,
    size: int = FONT_SIZE,
    anchor: str = "start",
    fill: str = INK,
    weight: str | None = None,
    baseline: str = "middle",
    hint: str = "",
    halo: bool = False,
) -> str:
    """One line of text; `hint` (e.g. the untruncated label) becomes its tooltip.

    A halo (a white outline painted under the glyphs) keeps text legible across lines.
    """
    attrs = {
        "x": float(x),
        "y": float(y),
        "font-size": size,
        "text-anchor": anchor,
        "fill": fill,
        "font-weight": weight,
        "dominant-baseline": baseline,
    }
    if halo:
        attrs.update({"stroke": "#ffffff", "stroke-width": 3, "stroke-linejoin": "round", "paint-order": "stroke"})
    body = escape(content, quote=False) + (tooltip(hint) if hint and hint != content else "")
    return el("text", attrs, body)


def _advance(char: str) -> float:
    for chars, width in CHAR_CLASSES:
        if char in chars:
            return width
    return UPPER if char.isupper() else DEFAULT


def text_width(content: str, size: int = FONT_SIZE) -> float:
    """Estimated width in pixels; no font metrics offline, so it errs on the wide side."""
    return sum(_advance(c) for c in content) * size


def fit(content: str, max_width: float, size: int = FONT_SIZE) -> str:
    """`content`, cut with an ellipsis where it would be wider than `max_width`."""
    if text_width(content, size) <= max_width:
        return content
    keep = min(len(content), int(max_width / (size * NARROW)))
    while keep > 1 and text_width(content[:keep] + "\u2026", size) > max_width:
        keep -= 1
    return content[:keep] + "\u2026"


def wrap(content: str, max_width: float, size: int = FONT_SIZE) -> list[str]:
    """Greedy word wrap by estimated width; a single over-long word is cut by `fit`."""
    lines: list[str] = []
    current = ""
    for word in content.split():
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size) > max_width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return [fit(line, max_width, size) for line in lines] or [""]


@dataclass(frozen=True)
class Linear:
    """Maps the domain [d0, d1] onto the range [r0, r1] (r1 < r0 for an upward y axis)."""

    d0: float
    d1: float
    r0: float
    r1: float

    def __call__(self, value: float) -> float:
        return self.r0 + (value - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)

    def clamp(self, value: float) -> float:
        return self(min(max(value, self.d0), self.d1))


@dataclass(frozen=True)
class Ticks:
    lo: float
    hi: float
    values: tuple[float, ...]
    decimals: int

    def label(self, value: float) -> str:
        text = f"{value:.{self.decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text


def nice_ticks(lo: float, hi: float, target: int = 5, fixed: bool = False) -> Ticks:
    """Round tick positions covering [lo, hi]; `fixed` keeps the bounds exactly as given."""
    if not hi > lo:  # a single value: widen around it (from 0 when it is 0, e.g. empty bars)
        lo, hi = (0.0, 1.0) if lo == 0 else (lo - abs(lo) * 0.1, hi + abs(hi) * 0.1)
    raw = (hi - lo) / max(1, target)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    if not fixed:
        lo, hi = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    first = math.ceil(lo / step - 1e-9)
    count = int(math.floor(hi / step + 1e-9)) - first + 1
    values = tuple(round((first + i) * step, 12) for i in range(count))
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + (1 if round(step / magnitude, 6) == 2.5 else 0)
    return Ticks(lo, hi, values, decimals)


def value_ticks(
    values: Sequence[float | None], given: tuple[float, float] | None, include: Sequence[float] = (), target: int = 5
) -> Ticks:
    """Ticks for the given range, or for the data (plus `include`, e.g. 0 for bars)."""
    if given is not None:
        return nice_ticks(given[0], given[1], target, fixed=True)
    finite = [v for v in (*values, *include) if v is not None]
    return nice_ticks(min(finite, default=0.0), max(finite, default=1.0), target)


def x_axis(scale: Linear, ticks: Ticks, top: float, bottom: float, label: str) -> str:
    """Vertical grid lines over [top, bottom], tick labels and the axis label below."""
    parts = []
    for value in ticks.values:
        x = scale(value)
        parts.append(el("line", {"x1": x, "x2": x, "y1": float(top), "y2": float(bottom), "stroke": GRID}))
        parts.append(text(x, bottom + 12, ticks.label(value), anchor="middle", fill=MUTED))
    parts.append(
        el(
            "line",
            {"x1": float(scale.r0), "x2": float(scale.r1), "y1": float(bottom), "y2": float(bottom), "stroke": MUTED},
        )
    )
    if label:
        middle = (scale.r0 + scale.r1) / 2
        parts.append(text(middle, bottom + 32, fit(label, abs(scale.r1 - scale.r0)), anchor="middle", hint=label))
    return "".join(parts)


X_AXIS_HEIGHT = 22
X_LABEL_HEIGHT = 20


def y_axis(scale: Linear, ticks: Ticks, left: float, right: float, label: str, label_x: float) -> str:
    """Horizontal grid lines over [left, right], tick labels left of it, the label rotated."""
    parts = []
    for value in ticks.values:
        y = scale(value)
        parts.append(el("line", {"x1": float(left), "x2": float(right), "y1": y, "y2": y, "stroke": GRID}))
        parts.append(text(left - 6, y, ticks.label(value), anchor="end", fill=MUTED))
    parts.append(
        el(
            "line",
            {"x1": float(left), "x2": float(left), "y1": float(scale.r0), "y2": float(scale.r1), "stroke": MUTED},
        )
    )
    if label:
        middle = (scale.r0 + scale.r1) / 2
        shown = fit(label, abs(scale.r0 - scale.r1))
        parts.append(
            el(
                "text",
                {
                    "x": float(label_x),
                    "y": middle,
                    "font-size": FONT_SIZE,
                    "fill": INK,
                    "text-anchor": "middle",
                    "dominant-baseline": "middle",
                    "transform": f"rotate(-90 {num(label_x)} {num(middle)})",
                },
                escape(shown, quote=False),
            )
        )
    return "".join(parts)


def tick_label_width(ticks: Ticks) -> float:
    return max(text_width(ticks.label(v)) for v in ticks.values) if ticks.values else 0.0


@dataclass(frozen=True)
class LegendEntry:
    name: str
    color: str
    #: "box" (bars, segments), "line", "dashed", "dotted" or "dot"
    mark: str = "box"


def legend(entries: Sequence[LegendEntry], left: float, top: float, width: float) -> tuple[str, float]:
    """Entries in rows that wrap at `width`; returns the SVG and the height it takes."""
    if not entries:
        return "", 0.0
    parts, x, y, row = [], left, top + 9, 18
    for entry in entries:
        label = fit(entry.name, width - 24)
        span = 22 + text_width(label) + 16
        if x > left and x + span > left + width:
            x, y = left, y + row
        parts.append(_legend_mark(entry, x, y))
        parts.append(text(x + 20, y, label, hint=entry.name))
        x += span
    return el("g", {"class": "legend"}, *parts), y - top + 11


def _legend_mark(entry: LegendEntry, x: float, y: float) -> str:
    if entry.mark == "box":
        return el("rect", {"x": float(x), "y": y - 6.0, "width": 14, "height": 12, "fill": entry.color})
    if entry.mark == "dot":
        return el("circle", {"cx": x + 7.0, "cy": float(y), "r": 4.5, "fill": entry.color})
    dash = {"dashed": "5 3", "dotted": "1.5 2.5"}.get(entry.mark)
    return el(
        "line",
        {
            "x1": float(x),
            "x2": x + 16.0,
            "y1": float(y),
            "y2": float(y),
            "stroke": entry.color,
            "stroke-width": 2.5,
            "stroke-dasharray": dash,
        },
    )


def title_block(title: str, width: float) -> tuple[str, float]:
    """The figure title wrapped to the width; returns the SVG and the height it takes."""
    lines = wrap(title, (width - 2 * PAD) / BOLD, TITLE_SIZE)
    parts = [text(PAD, PAD + 8 + i * 18, line, size=TITLE_SIZE, weight="bold") for i, line in enumerate(lines)]
    return "".join(parts), PAD + len(lines) * 18


def document(
    width: float, height: float, title: str, description: str, body: str, element_id: str, xmlns: bool = False
) -> str:
    """The <svg> root, labelled for assistive technology by its <title> and <desc>."""
    attrs = {
        "xmlns": "http://www.w3.org/2000/svg" if xmlns else None,
        "id": element_id,
        "class": "chart",
        "role": "img",
        "aria-labelledby": f"{element_id}-title {element_id}-desc",
        "viewBox": f"0 0 {num(width)} {num(height)}",
        "width": float(width),
        "height": float(height),
        "font-family": FONT,
        "font-size": FONT_SIZE,
    }
    head = (
        f'<title id="{escape(element_id)}-title">{escape(title, quote=False)}</title>'
        f'<desc id="{escape(element_id)}-desc">{escape(description, quote=False)}</desc>'
        + el("rect", {"width": "100%", "height": "100%", "fill": "#ffffff"})
    )
    return el("svg", attrs, head + body)
