"""The generator: determinism, per-persona independence, ids, splits and schemas."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pytest_memeval.suites.multisource import (
    DAYS,
    DIFFICULTIES,
    QUESTION_IDS,
    QUESTIONS,
    SEEDS,
    SOURCE_NAMES,
    compute_ground_truth,
    generate,
    generate_by_id,
    index_of,
    parse_persona_id,
    persona_index,
    split_of,
    split_personas,
)
from pytest_memeval.suites.multisource.generator import split_for_number
from reference_data import MULTISOURCE

SEED = SEEDS[0]


def _reference_dir() -> Path:
    return MULTISOURCE / "s20260324"


def _dump(persona) -> str:
    return json.dumps([persona.events, persona.sources, persona.ground_truth], sort_keys=True)


def test_same_seed_and_index_give_identical_json():
    assert _dump(generate(SEED, 7)) == _dump(generate(SEED, 7))


def test_single_persona_equals_in_sequence_generation():
    in_sequence = [generate(SEED, i) for i in range(0, 480, 37)]
    for p in in_sequence:
        assert _dump(generate(SEED, p.index)) == _dump(p)
    # generating other personas in between must not disturb the streams
    generate(SEED + 1, 3)
    assert _dump(generate(SEED, 37)) == _dump(in_sequence[1])


def test_different_seeds_differ():
    assert _dump(generate(SEEDS[0], 5)) != _dump(generate(SEEDS[1], 5))
    assert generate(SEEDS[0], 5).persona_id == generate(SEEDS[1], 5).persona_id


def test_persona_ids_are_ours_numbered_as_the_release():
    refs = persona_index(SEED)
    assert len(refs) == 480
    assert refs[0].persona_id == "gen_stable_001_avery_adams"
    assert refs[160].persona_id == "gen_shift_001_drew_carter"
    assert refs[320].persona_id == "gen_stated_001_felix_ellis"
    assert refs[143].persona_id == "gen_stable_144_morgan_carter"
    assert Counter(r.difficulty for r in refs) == {d: 160 for d in DIFFICULTIES}
    for r in refs:
        assert index_of(r.persona_id) == r.index
        assert parse_persona_id(r.persona_id)[0] == r.difficulty
        assert not r.persona_id.startswith("bench_")
    assert generate_by_id(SEED, "gen_shift_014_naomi_carter").index == 173
    with pytest.raises(ValueError):
        generate_by_id(SEED, "bench_shift_014_naomi_carter")  # the release's persona, not ours


def test_our_personas_are_not_the_releases():
    """Same seed, number and name as a reference persona, but our generator's draw: the
    ids say so (gen_ vs bench_), and the events show it."""
    ref = _reference_dir()
    if not ref.is_dir():
        pytest.skip("reference data not found")
    ids = {r.persona_id for r in persona_index(20260324)}
    for pdir in sorted(ref.glob("bench_*")):
        ours = "gen_" + pdir.name.removeprefix("bench_")
        assert ours in ids and pdir.name not in ids
        released_events = json.loads((pdir / "event_table.json").read_text())
        assert [d["sleep"] for d in generate_by_id(20260324, ours).events] != [d["sleep"] for d in released_events]


@pytest.mark.parametrize("seed", SEEDS)
def test_split_sizes_and_stratification(seed):
    sizes = {"train": 216, "dev": 48, "calibration": 96, "test": 120}
    for split, n in sizes.items():
        members = split_personas(seed, split)
        assert len(members) == n
        assert Counter(r.difficulty for r in members) == {d: n // 3 for d in DIFFICULTIES}
        assert all(split_of(seed, r.persona_id) == split for r in members)


def test_split_rule():
    assert [split_for_number(n) for n in (1, 72, 73, 88, 89, 120, 121, 160)] == [
        "train",
        "train",
        "dev",
        "dev",
        "calibration",
        "calibration",
        "test",
        "test",
    ]
    with pytest.raises(ValueError):
        split_for_number(161)
    with pytest.raises(ValueError):
        generate(SEED, 480)


def test_persona_record():
    p = generate(SEED, 200)
    assert p.difficulty == "temporal_shift" and p.split == split_of(SEED, p.persona_id)
    assert set(p.sources) == set(SOURCE_NAMES) | {"generation_metadata"}
    assert [e["date"] for e in p.events] == [d for d, _, _ in DAYS]
    assert p.ground_truth == compute_ground_truth(p.events, p.sources)
    for qid in QUESTION_IDS:
        assert p.answers[qid] in QUESTIONS[qid].answer_space
    assert p.spec is not None and p.spec.shift is not None
    assert p.sources["profile_ltm"]["anchor_window"]["end_day_index"] == max(2, p.spec.shift["shift_day"] - 2)


def test_difficulty_knobs():
    stable, shift, stated = generate(SEED, 0), generate(SEED, 160), generate(SEED, 320)
    knobs = [p.sources["generation_metadata"]["source_knobs"] for p in (stable, shift, stated)]
    assert [k["self_report_conflict_rate"] for k in knobs] == [0.16, 0.20, 0.34]
    assert knobs[0]["profile_anchor_end_day"] == 12 and knobs[2]["profile_anchor_end_day"] == 10
    extra = stated.spec.stated["missing_day_prob"]
    assert knobs[2]["device_dropout_rate"] == pytest.approx(0.16 + extra)
    snap = stated.sources["profile_ltm"]["facts"]["routine_snapshot"]
    assert snap["sleep"] == {"bedtime": "22:30", "duration_h": 8.0, "quality_label": "good"}
    assert snap["exercise"]["days_per_week"] == 5.0
    assert stated.sources["profile_ltm"]["facts"]["traits"]["afterhours_work_style"] == "strict_boundary"


def _paths(obj, prefix="", out=None):
    """(path, kind) pairs of a JSON value; list items share the path ``[]``."""
    out = set() if out is None else out
    if isinstance(obj, dict):
        out.add((prefix, "object"))
        for k, v in obj.items():
            _paths(v, f"{prefix}.{k}", out)
    elif isinstance(obj, list):
        out.add((prefix, "array"))
        for v in obj:
            _paths(v, f"{prefix}[]", out)
    else:
        kind = (
            "null"
            if obj is None
            else "bool"
            if isinstance(obj, bool)
            else "number"
            if isinstance(obj, (int, float))
            else type(obj).__name__
        )
        out.add((prefix, kind))
    return out


def _schema(docs) -> set:
    out: set = set()
    for d in docs:
        _paths(d, "", out)
    return out


def test_schema_matches_reference():
    ref = _reference_dir()
    if not ref.is_dir():
        pytest.skip("reference data not found")
    pdirs = sorted(ref.glob("bench_*"))
    generated = [generate(s, i) for s in SEEDS[:2] for i in range(0, 480, 7)]
    names = ["event_table"] + list(SOURCE_NAMES) + ["generation_metadata"]
    for name in names:
        if name == "event_table":
            ref_docs = [json.loads((p / "event_table.json").read_text()) for p in pdirs]
            gen_docs = [p.events for p in generated]
        else:
            ref_docs = [json.loads((p / "structural_sources" / f"{name}.json").read_text()) for p in pdirs]
            gen_docs = [p.sources[name] for p in generated]
        ref_schema, gen_schema = _schema(ref_docs), _schema(gen_docs)
        assert {p for p, _ in gen_schema} == {p for p, _ in ref_schema}, name
        assert gen_schema <= ref_schema, (name, sorted(gen_schema - ref_schema))
