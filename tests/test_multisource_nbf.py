"""Naive Bayes Fusion on hand-computed cases, its JSON form and the SKIP calibration."""

from __future__ import annotations

import json

import pytest
from pytest_memeval.suites.multisource import SEEDS, NBFModel, calibrate_theta, fit_nbf, generate, source_atoms

LO, MID, HI = "fewer_than_10", "10_to_19", "20_or_more"
SOURCES = ("planner", "daily_self_report")


def _atoms(planner, report):
    return {"A1": {"planner": planner, "daily_self_report": report}}


TRAIN = [(_atoms(HI, HI), HI), (_atoms(HI, MID), HI), (_atoms(HI, MID), MID), (_atoms(None, LO), LO)]


@pytest.fixture()
def model() -> NBFModel:
    return fit_nbf([a for a, _ in TRAIN], [{"A1": g} for _, g in TRAIN], qids=["A1"], sources=SOURCES)


def test_hand_computed_posterior(model):
    # prior (1+1, 1+1, 2+1)/7; planner rows (gold LO, MID, HI): [1,1,1]/3, [1,1,2]/4, [1,1,3]/5;
    # report rows: [2,1,1]/4, [1,2,1]/4, [1,2,2]/5  ->  scores 25 : 75 : 108 (/1050)
    pred = model.predict("A1", _atoms(HI, MID)["A1"])
    assert pred.label == HI
    assert pred.posterior == pytest.approx({LO: 25 / 208, MID: 75 / 208, HI: 108 / 208})
    assert pred.margin == pytest.approx(33 / 208)
    assert pred.n_active == 2 and pred.answered
    # with only the report saying LO: 2/7*2/4 : 2/7*1/4 : 3/7*1/5 = 10 : 5 : 6
    pred = model.predict("A1", _atoms(None, LO)["A1"])
    assert pred.label == LO and pred.posterior[LO] == pytest.approx(10 / 21)
    # no atoms at all: the prior decides
    assert model.predict("A1", {}).label == HI and model.predict("A1", {}).n_active == 0


def test_unknown_labels_count_as_null(model):
    assert model.predict("A1", {"planner": "nonsense", "daily_self_report": LO}) == model.predict(
        "A1", {"planner": None, "daily_self_report": LO}
    )


def test_fewer_than_two_atoms_always_answer(model):
    model.theta = 0.99
    assert model.predict("A1", _atoms(HI, None)["A1"]).answered
    assert model.predict("A1", _atoms(None, None)["A1"]).answered
    assert not model.predict("A1", _atoms(HI, MID)["A1"]).answered


def test_theta_maximises_f05_on_hand_case(model):
    # margins: (HI,HI) correct .4135; (HI,MID) wrong .1587; (HI,LO) wrong .0283; (-,LO) single
    cal = [(_atoms(HI, HI), HI), (_atoms(HI, MID), MID), (_atoms(HI, LO), LO), (_atoms(None, LO), LO)]
    assert model.predict("A1", cal[2][0]["A1"]).margin == pytest.approx(8 / 283)
    # F0.5 = .556 (theta 0), .714 (skip 1), 1.0 (skip 2), .833 (skip 3): smallest theta for 1.0
    theta, f = calibrate_theta(model, [a for a, _ in cal], [{"A1": g} for _, g in cal])
    assert theta == pytest.approx(0.16) and f == pytest.approx(1.0)
    assert model.theta == theta


def test_json_round_trip(model):
    model.theta, model.temperature = 0.25, 1.3
    text = json.dumps(model.to_json())
    back = NBFModel.from_json(json.loads(text))
    assert back == model
    assert NBFModel.from_json(text) == model
    for atoms, _ in TRAIN:
        assert back.predict("A1", atoms["A1"]) == model.predict("A1", atoms["A1"])
    with pytest.raises(ValueError):
        NBFModel.from_json({"format": "other"})


def test_fit_on_generated_personas():
    personas = [generate(SEEDS[0], i) for i in range(0, 480, 6)]
    atoms = [source_atoms(p.sources) for p in personas]
    model = fit_nbf(atoms, [p.answers for p in personas])
    assert set(model.labels) == set(atoms[0]) and model.n_train == len(personas)
    correct = sum(model.predict(q, a[q]).label == p.answers[q] for p, a in zip(personas, atoms) for q in a)
    assert correct / (18 * len(personas)) > 0.8  # in-sample sanity
    assert NBFModel.from_json(json.loads(json.dumps(model.to_json()))) == model
