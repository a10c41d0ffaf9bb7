"""Loader for the released benchmark layout, tested on the reference sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pytest_memeval.suites.multisource import (
    DataError,
    compute_ground_truth,
    load_released,
    load_released_persona,
    render_markdown,
    source_atoms,
    split_of,
)
from reference_data import MULTISOURCE as REF

pytestmark = pytest.mark.skipif(not (REF / "s20260324").is_dir(), reason=f"reference data not found at {REF}")


def test_loads_all_reference_personas():
    personas = list(load_released(REF))
    assert len(personas) == 36
    assert [p.persona_id for p in personas] == sorted(p.persona_id for p in personas)
    for p in personas:
        assert p.seed == 20260324 and p.spec is None
        assert (
            p.difficulty
            == {"stable": "stable", "shift": "temporal_shift", "stated": "stated_vs_revealed"}[
                p.persona_id.split("_")[1]
            ]
        )
        assert p.split == split_of(p.seed, p.persona_id)
        assert p.sources["generation_metadata"]["difficulty_type"] == p.difficulty
        assert p.nl_render == render_markdown(p.sources)
        assert {q: g["answer"] for q, g in compute_ground_truth(p.events, p.sources).items()} == p.answers
        source_atoms(p.sources)


def test_root_may_be_a_seed_dir_or_a_release_root(tmp_path):
    by_seed_dir = [p.persona_id for p in load_released(REF / "s20260324")]
    assert len(by_seed_dir) == 36
    nested = tmp_path / "release" / "benchmark" / "seeds"
    nested.mkdir(parents=True)
    (nested / "s20260324").symlink_to(REF / "s20260324", target_is_directory=True)
    assert [p.persona_id for p in load_released(tmp_path / "release")] == by_seed_dir


def test_split_and_seed_filters():
    tests = list(load_released(REF, split="test"))
    assert tests and all(p.split == "test" for p in tests)
    assert not list(load_released(REF, seeds=(20260321,)))


@pytest.fixture()
def persona_copy(tmp_path) -> Path:
    src = next((REF / "s20260324").glob("bench_stable_*"))
    dst = tmp_path / "s20260324" / src.name
    shutil.copytree(src, dst)
    return dst


def test_copy_loads(persona_copy):
    p = load_released_persona(persona_copy)
    assert p.persona_id == persona_copy.name and p.nl_render is None


def test_missing_file_is_named(persona_copy):
    (persona_copy / "structural_sources" / "planner.json").unlink()
    with pytest.raises(DataError, match=r"planner\.json: missing file"):
        load_released_persona(persona_copy)


def test_bad_json_is_named(persona_copy):
    (persona_copy / "event_table.json").write_text("[{", encoding="utf-8")
    with pytest.raises(DataError, match=r"event_table\.json: bad JSON at line 1"):
        load_released_persona(persona_copy)


def test_missing_keys_are_named(persona_copy):
    path = persona_copy / "ground_truth.json"
    gt = json.loads(path.read_text())
    del gt["C3"]["answer"]
    path.write_text(json.dumps(gt))
    with pytest.raises(DataError, match=r"ground_truth\.json: missing key 'answer' in C3"):
        load_released_persona(persona_copy)
    path = persona_copy / "structural_sources" / "device_log.json"
    doc = json.loads(path.read_text())
    del doc["records"]
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"device_log\.json: missing key 'records'"):
        load_released_persona(persona_copy)


def test_bad_layout(tmp_path):
    with pytest.raises(DataError, match="no s<seed> directories"):
        list(load_released(tmp_path))
    with pytest.raises(DataError, match="not a directory"):
        list(load_released(tmp_path / "nope"))
    odd = tmp_path / "s1" / "not_a_persona"
    odd.mkdir(parents=True)
    with pytest.raises(DataError, match="not a persona id"):
        load_released_persona(odd)
    assert issubclass(DataError, ValueError)
