"""Conformance with the released reference personas (../shared/reference/multisource)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_memeval.suites.multisource import (
    QUESTION_IDS,
    compute_ground_truth,
    parse_records,
    render_markdown,
    render_units,
    source_atoms,
    units_from_markdown,
)
from reference_data import MULTISOURCE as REF

SEED_DIR = REF / "s20260324"
PERSONA_DIRS = sorted(SEED_DIR.glob("bench_*")) if SEED_DIR.is_dir() else []
needs_reference = pytest.mark.skipif(not PERSONA_DIRS, reason=f"reference data not found at {REF}")


def _load(pdir: Path) -> tuple[list, dict, dict]:
    events = json.loads((pdir / "event_table.json").read_text())
    sources = {p.stem: json.loads(p.read_text()) for p in (pdir / "structural_sources").glob("*.json")}
    gt = json.loads((pdir / "ground_truth.json").read_text())
    return events, sources, gt


@needs_reference
def test_reference_has_36_personas():
    assert len(PERSONA_DIRS) == 36


@needs_reference
@pytest.mark.parametrize("pdir", PERSONA_DIRS, ids=lambda p: p.name)
def test_ground_truth_labels_reproduced(pdir: Path):
    events, sources, gt = _load(pdir)
    mine = compute_ground_truth(events, sources)
    assert set(mine) == set(QUESTION_IDS) == set(gt)
    for qid in QUESTION_IDS:
        assert mine[qid]["answer"] == gt[qid]["answer"], (qid, gt[qid]["derivation_detail"])
        assert mine[qid]["derivation_detail"] == gt[qid]["derivation_detail"], qid
        assert mine[qid] == gt[qid]


@needs_reference
@pytest.mark.parametrize("pdir", PERSONA_DIRS, ids=lambda p: p.name)
def test_render_is_byte_identical(pdir: Path):
    _, sources, _ = _load(pdir)
    released = (SEED_DIR / "nl_renders" / f"{pdir.name}.md").read_text(encoding="utf-8")
    assert render_markdown(sources) == released
    assert render_units(sources) == units_from_markdown(released)


@needs_reference
@pytest.mark.parametrize("pdir", PERSONA_DIRS, ids=lambda p: p.name)
def test_atoms_survive_render_and_parse(pdir: Path):
    _, sources, _ = _load(pdir)
    released = (SEED_DIR / "nl_renders" / f"{pdir.name}.md").read_text(encoding="utf-8")
    expected = source_atoms(sources)
    assert source_atoms(parse_records(released)) == expected
    assert source_atoms(parse_records([t for _, t in units_from_markdown(released)])) == expected
