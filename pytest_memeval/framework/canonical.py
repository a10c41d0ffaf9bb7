"""A suite's settings as they enter the fingerprint: one text per meaning.

Two runs whose settings mean the same must have equal fingerprints however they were
spelled: `locomo.categories=4,3,2,1` is the default `1,2,3,4`, `locomo.pass_f1=.50` is
`0.5`. Each setting is read by the suite's own parser; its value is written in one form
(numbers as Python writes them, sets sorted, items joined by commas) and left out where it
equals the default, so that a run which spells out a default has the fingerprint of one
which does not (and of a report written before settings were normalised).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from ..errors import ConfigError

#: a setting's parser: its value from the raw text, the default from None; a ConfigError
#: for a value it refuses
Parser = Callable[[str | None], object]


def canonical_params(params: Mapping[str, str], parsers: Mapping[str, Parser]) -> dict[str, str]:
    """`params` with each value in its parser's one form, those equal to the default left out.
    A key without a parser, or a value the parser refuses (a report of another version), is
    kept as spelled: it then differs from any value this version writes."""
    canonical: dict[str, str] = {}
    for key, raw in sorted(params.items()):
        parse = parsers.get(key)
        try:
            value = parse(raw) if parse is not None else None
        except ConfigError:
            parse = None
        if parse is None:
            canonical[key] = raw
        elif value != parse(None):
            canonical[key] = canonical_text(value)
    return canonical


def canonical_text(value: object) -> str:
    """One text per value: sequences joined by commas (sets sorted first), floats as Python's
    shortest round-trip form (`.50` and `0.5` are both `0.5`)."""
    if isinstance(value, (set, frozenset)):
        return ",".join(canonical_text(v) for v in sorted(value))
    if isinstance(value, (tuple, list)):
        return ",".join(canonical_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def canonical_seeds(used: Collection[int], default: Collection[int] | None) -> tuple[int, ...] | None:
    """The seeds a suite's items come from (`used`), sorted, or None where they are the ones
    it uses by default; None too where the suite reads no seeds (`default` None)."""
    if default is None or set(used) == set(default):
        return None
    return tuple(sorted(set(used)))
