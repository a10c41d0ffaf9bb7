"""Render -> parse -> atoms round trip and the parser's robustness to retrieval artefacts."""

from __future__ import annotations

import random
import re

import pytest
from pytest_memeval.suites.multisource import (
    SEEDS,
    SOURCE_NAMES,
    generate,
    parse_records,
    render_markdown,
    render_units,
    source_atoms,
)

PERSONAS = [generate(seed, i) for seed in SEEDS for i in range(3, 480, 29)]


def _ids(p):
    return f"{p.seed}-{p.persona_id}"


@pytest.mark.parametrize("persona", PERSONAS, ids=_ids)
def test_atoms_survive_render_and_parse(persona):
    expected = source_atoms(persona.sources)
    assert source_atoms(parse_records(render_markdown(persona.sources))) == expected
    assert source_atoms(parse_records([t for _, t in render_units(persona.sources)])) == expected


def test_a_persona_is_accepted_in_place_of_its_sources():
    p = PERSONAS[1]
    assert render_units(p) == render_units(p.sources)
    assert render_markdown(p) == render_markdown(p.sources)
    assert source_atoms(p) == source_atoms(p.sources)


def test_units_are_self_describing():
    units = render_units(PERSONAS[0].sources)
    assert [s for s, _ in units].count("profile_ltm") == 1
    assert len(units) == 1 + 4 * 30
    assert units[0][1].startswith("## Long-Term Background and Habits\n\n")
    assert units[1] == ("planner", units[1][1])
    assert re.match(r"^## Plans and Intentions\n#### 2026-01-03 \(Saturday\)\n- ", units[1][1])
    assert units[-1][1].startswith("## Device and Activity Records\n#### 2026-02-01 (Sunday)\n")
    for source, text in units[1:]:
        parsed = parse_records(text)
        assert parsed.days(source) == [int(parsed.days(source)[0])]


def test_duplicates_and_order_do_not_matter():
    p = PERSONAS[5]
    texts = [t for _, t in render_units(p.sources)]
    shuffled = texts * 2 + [render_markdown(p.sources)]
    random.Random(1).shuffle(shuffled)
    assert source_atoms(parse_records(shuffled)) == source_atoms(p.sources)


def test_garbage_is_ignored():
    p = PERSONAS[7]
    texts = [t for _, t in render_units(p.sources)]
    junk = [
        "",
        "hello world",
        "## Something Else\n#### 2026-01-05 (Monday)\n- Sleep tracker: bed 25:99.",
        "#### 2026-13-45 (Funday)\n- Sleep: went to bed at 22:00, woke at 06:00, slept 8.0 hours, quality good.",
        "#### 2025-12-01 (Monday)\n- Diet: 9 meals total, 9 home-cooked.",  # outside the window
        "- Sleep: went to bed at 01:00, woke at 09:00, slept 8.0 hours.",  # no day heading
        "Traits of a good friend: loyalty.",
        "Exercise: lots of it",
        "\x00\x01 binary \u2603 noise " * 20,
    ]
    mixed = texts[:40] + junk + texts[40:]
    assert source_atoms(parse_records(mixed)) == source_atoms(p.sources)


def test_truncated_lines_are_dropped_not_misread():
    p = PERSONAS[2]
    unit = next(t for s, t in render_units(p.sources) if s == "daily_self_report")
    day = parse_records(unit).days("daily_self_report")[0]
    full = parse_records(unit).daily_self_report[day]
    for cut in range(len(unit.split("\n")[1]) + 5, len(unit)):
        rec = parse_records(unit[:cut]).daily_self_report.get(day, {})
        for key, value in rec.items():  # whatever was recovered is exact
            if key not in ("date", "day_index"):
                assert value == full[key] or key == "social", (cut, key)


def _records(parsed, source):
    return {
        d: r
        for d, r in getattr(parsed, source).items()
        if source not in ("objective_log", "device_log") or r["available"]
    }


def test_missing_section_headers_are_inferred_from_line_grammar():
    p = PERSONAS[11]
    reference = parse_records(render_markdown(p.sources))
    headless_units = ["\n".join(t.split("\n")[1:]) for _, t in render_units(p.sources)]
    headless_doc = "\n".join(line for line in render_markdown(p.sources).split("\n") if not line.startswith("## "))
    for parsed in (parse_records(headless_units), parse_records(headless_doc)):
        assert parsed.profile == reference.profile
        for source in ("planner", "daily_self_report", "objective_log", "device_log"):
            assert _records(parsed, source) == _records(reference, source), source


def test_ambiguous_unavailable_line_needs_context():
    block = "#### 2026-01-04 (Sunday)\n- Records unavailable for this date."
    assert not parse_records(block).objective_log and not parse_records(block).device_log
    assert parse_records("## Objective Records\n" + block).objective_log[2]["available"] is False
    assert parse_records("## Device and Activity Records\n" + block).device_log[2]["available"] is False
    # a preceding device line sets the context for the next day's block
    text = "#### 2026-01-03 (Saturday)\n- Activity: 20 active minutes, no workout detected.\n\n" + block
    parsed = parse_records(text)
    assert parsed.device_log[2]["available"] is False and not parsed.objective_log


def test_fixed_size_chunks_without_headers():
    p = PERSONAS[3]
    doc = render_markdown(p.sources)
    reference = parse_records(doc)
    size, overlap = 700, 350  # overlap longer than any day block
    chunks = [doc[i : i + size] for i in range(0, len(doc), size - overlap)]
    parsed = parse_records(chunks)
    for source in ("planner", "daily_self_report", "objective_log", "device_log"):
        assert _records(parsed, source) == _records(reference, source), source


def test_partial_days_give_partial_evidence():
    p = PERSONAS[4]
    units = render_units(p.sources)
    early = [t for s, t in units if s != "profile_ltm" and re.search(r"2026-01-(0[3-9]|1[0-2])", t)]
    parsed = parse_records(early)
    assert parsed.profile is None
    for source in ("planner", "daily_self_report", "objective_log", "device_log"):
        assert parsed.days(source) == list(range(1, 11))
    atoms = source_atoms(parsed)
    assert set(atoms["B2"].values()) == {None}  # no profile, no claim to compare with
    assert set(atoms["D2"].values()) == {None}
    assert set(atoms["C2"].values()) == {None}  # the last-14-day window was not retrieved
    assert atoms["Ctrl1"]["daily_self_report"] is None
    assert atoms["A1"]["daily_self_report"] is not None
    assert all(set(a) == set(SOURCE_NAMES) for a in atoms.values())
    assert source_atoms(parse_records([])) == {q: dict.fromkeys(SOURCE_NAMES) for q in atoms}


def test_partial_counts_are_rescaled_to_the_window():
    # 10 of 30 self-report days, all >= 7 h: 10 nights scale to 30 -> "20_or_more"
    days = [
        f"## Daily Self-Reports\n#### 2026-01-{d:02d}\n- Sleep: went to bed at 22:00, "
        f"woke at 06:00, slept 8.0 hours, quality good."
        for d in range(3, 13)
    ]
    assert source_atoms(parse_records(days))["A1"]["daily_self_report"] == "20_or_more"
    # the same 10 days with one short night among them
    days[0] = days[0].replace("slept 8.0", "slept 5.0")
    assert source_atoms(parse_records(days))["A1"]["daily_self_report"] == "20_or_more"
    days[1:5] = [d.replace("slept 8.0", "slept 5.0") for d in days[1:5]]
    assert source_atoms(parse_records(days))["A1"]["daily_self_report"] == "10_to_19"


def test_parsed_profile_fields():
    p = generate(SEEDS[0], 5)
    facts = parse_records(render_markdown(p.sources)).profile
    src = p.sources["profile_ltm"]["facts"]
    assert facts["identity"] == src["identity"]
    assert facts["traits"] == src["traits"]
    snap = src["routine_snapshot"]
    assert facts["routine_snapshot"]["exercise"]["days_per_week"] == snap["exercise"]["days_per_week"]
    assert facts["routine_snapshot"]["work"]["overtime_share"] == pytest.approx(snap["work"]["overtime_share"])


def test_a_line_is_tried_only_against_the_grammar_lines_it_can_match_and_finds_the_same():
    """Every rendered line, each of its prefixes and a few look-alikes get the grammar line
    that trying all of them in order finds first; and far fewer are tried than all."""
    from pytest_memeval.suites.multisource.parse import _KEY_LENGTH, _LINE_GRAMMAR, _PREFIXES, _candidates

    lines = {line.strip() for p in PERSONAS[:6] for line in render_markdown(p.sources).splitlines()}
    lines |= {line[:cut] for line in list(lines) for cut in range(1, len(line))}
    lines |= {"- ", "-", "- Planned", "- Social activity planned.", "- Work capped at 8 hours."}
    lines |= {"- Home-cooked food prioritized.", "- Home-cooked food not prioritized.", "- No workout planned."}

    def first(grammar) -> tuple[str, str] | None:
        return next(((kind, src) for kind, src, pat in grammar if pat.match(line)), None)

    tried = 0
    for line in lines:
        candidates = _candidates(line[:_KEY_LENGTH])
        tried += len(candidates)
        assert first(candidates) == first(_LINE_GRAMMAR), line
        for (_, _, pattern), prefixes in zip(_LINE_GRAMMAR, _PREFIXES, strict=True):
            assert not pattern.match(line) or line.startswith(prefixes), (line, prefixes)
    assert tried < len(lines) * 1.5  # of 20 grammar lines
