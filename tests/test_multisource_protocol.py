"""The paper's abstention protocol: per-seed NBF, temperature and SKIP margin chosen together
by F0.5 on calibration, the reader variants and the fitted-reader cache."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest
from pytest_memeval.suites.multisource import NBFModel, fit_nbf, public_sources, source_atoms
from pytest_memeval.suites.multisource.catalog import Catalog
from pytest_memeval.suites.multisource.metrics import f_beta_counts
from pytest_memeval.suites.multisource.nbf import calibrate_selective, calibrate_temperature
from pytest_memeval.suites.multisource.reader import MultisourceReader, fitted_models
from pytest_memeval.suites.multisource.suite import MultisourceSuite
from reference_data import MULTISOURCE as REFERENCE
from reference_data import needs_multisource_reference as needs_reference

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import ItemView, Memory

YES, NO = "yes", "no"
SOURCES = ("planner", "daily_self_report")


def _two_label_model(p: float, q: float) -> NBFModel:
    """Uniform prior; both sources report 'yes' with P = p under y = yes and q under y = no.

    With two labels the margin is tanh(T * D / 2), D the log-score gap of the two labels."""
    emit = [[math.log(p), math.log(1 - p)], [math.log(q), math.log(1 - q)]]
    return NBFModel(
        labels={"A1": [YES, NO]}, log_prior={"A1": [math.log(0.5)] * 2}, log_emit={"A1": {s: emit for s in SOURCES}}
    )


def test_f05_on_counts_treats_every_skip_as_a_miss() -> None:
    # 1 right, 1 wrong answered, 2 skipped: P = 1/2, R = 1/3, F0.5 = 1.25PR / (.25P + R)
    correct, answered = [True, False, True, False], [True, True, False, False]
    assert f_beta_counts(correct, answered) == pytest.approx(1.25 * (1 / 6) / (0.125 + 1 / 3))
    assert f_beta_counts([True], [False]) == 0.0
    with pytest.raises(ValueError):
        f_beta_counts([True], [True, False])


def test_temperature_and_threshold_are_chosen_together() -> None:
    # Solve p, q so that D = 0.13 for atoms (yes, yes) and 0.15 for (no, no):
    # ln(p/q) = 0.065 and ln((1-q)/(1-p)) = 0.075.
    q = (math.exp(0.075) - 1) / (math.exp(0.14) - 1)
    p = q * math.exp(0.065)
    model = _two_label_model(p, q)

    def both(label):
        return {"A1": {s: label for s in SOURCES}}

    atoms, golds = [both(YES), both(NO)], [{"A1": NO}, {"A1": NO}]
    # The (yes, yes) item is answered wrongly with margin tanh(.065T), the (no, no) item
    # rightly with tanh(.075T). Answering both: P = 1/2, R = 1 -> F = 5/9; skipping only the
    # wrong one: P = 1, R = 1/2 -> F = 5/6, possible only when a grid theta (a multiple of
    # .01) lies in (tanh(.065T), tanh(.075T)]. T = .1: (.0065, .0075]; T = .2: (.013, .015];
    # T = .3: (.0195, .0225] holds .02. So the first best pair is T = .3, theta = .02.
    temperature, theta, f = calibrate_selective(model, atoms, golds)
    assert (temperature, theta) == pytest.approx((0.3, 0.02)) and f == pytest.approx(5 / 6)
    assert (model.temperature, model.theta) == (temperature, theta)
    assert [model.predict("A1", a["A1"]).answered for a in atoms] == [False, True]
    # the answer-only NBF: every T gives the same labels, so the smallest wins and nothing skips
    answer_only = _two_label_model(p, q)
    assert calibrate_temperature(answer_only, atoms, golds) == pytest.approx((0.1, 0.5))
    assert answer_only.theta == 0.0


def _reference_options(tmp_path: Path, data_dir: Path, **overrides: object) -> SuiteOptions:
    options = dict(size="full", split="test", seeds=None, k=10, data_dir=data_dir, cache_dir=tmp_path / "cache")
    options.update(overrides)
    return SuiteOptions(**options)  # type: ignore[arg-type]


@needs_reference
def test_reference_sample_reproduces_the_release_fit(tmp_path: Path) -> None:
    """Conformance with the release's own NBF and NBFSelective (src/survey2agent/methods/nbf.py).

    Measured once with the release's code: `build_oracle_atom` on each of the 36 reference
    personas, `fit` on the 18 train ones, `calibrate` on the 9 calibration ones, `predict_one`
    on the 6 test ones (108 items). NBF picks T = 2.8 and answers 80 right; NBFSelective
    picks T = 1.6, theta = 0.30, skips 19 and answers 71 of the other 89 right."""
    catalog = Catalog(_reference_options(tmp_path, REFERENCE))
    test = list(catalog.personas(catalog.of_split("test")))
    expected = {"nbf": (2.8, 0.0, 108, 80), "nbf-skip": (1.6, 0.30, 89, 71)}
    for variant, (temperature, theta, n_answered, n_right) in expected.items():
        model = fitted_models(catalog, variant)[20260324]
        predictions = [
            (model.predict(q, a[q]), p.answers[q]) for p in test for a in [source_atoms(public_sources(p))] for q in a
        ]
        assert (model.temperature, model.theta) == pytest.approx((temperature, theta))
        assert sum(pred.answered for pred, _ in predictions) == n_answered
        assert sum(pred.answered and pred.label == gold for pred, gold in predictions) == n_right


@needs_reference
def test_each_seed_is_fitted_on_its_own_splits(tmp_path: Path) -> None:
    # two seeds: the reference as is, and a copy that lacks three of its train personas
    release = tmp_path / "release"
    shutil.copytree(REFERENCE / "s20260324", release / "s20260324")
    shutil.copytree(REFERENCE / "s20260324", release / "s20260325")
    dropped = sorted((release / "s20260325").glob("bench_*_00*"))[:3]
    for path in dropped:
        shutil.rmtree(path)
    catalog = Catalog(_reference_options(tmp_path, release))
    models = fitted_models(catalog, "nbf-skip")
    assert set(models) == {20260324, 20260325}
    for seed, model in models.items():
        train = [p for p in catalog.personas(catalog.of_split("train")) if p.seed == seed]
        cal = [p for p in catalog.personas(catalog.of_split("calibration")) if p.seed == seed]
        assert len(train) == (18 if seed == 20260324 else 15)
        alone = fit_nbf([source_atoms(public_sources(p)) for p in train], [p.answers for p in train])
        calibrate_selective(alone, [source_atoms(public_sources(p)) for p in cal], [p.answers for p in cal])
        assert model == alone
    assert models[20260324] != models[20260325]

    # the reader routes an item to its seed's model by the seed in the item id
    reader = MultisourceReader(models)
    view = ItemView(suite="multisource", task="A1", question="?")
    memories: list[Memory] = []
    for seed, model in models.items():
        assert reader.model_for(f"s{seed}-stable_131-A1") is model
        assert reader.answer(view, memories, label=f"s{seed}-stable_131-A1").label == model.predict("A1", {}).label
    with pytest.raises(ValueError, match="pass the item id"):
        reader.answer(view, memories)


@needs_reference
def test_fitted_readers_are_cached_by_variant_and_input(tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(REFERENCE / "s20260324", release / "s20260324")
    catalog = Catalog(_reference_options(tmp_path, release))
    cache = tmp_path / "cache" / "multisource"
    first = fitted_models(catalog, "nbf-skip")
    assert len(list(cache.glob("*-nbf-nbf-skip-20260324-*.json"))) == 1
    assert fitted_models(catalog, "nbf-skip") == first  # read back from the cache
    fitted_models(catalog, "nbf")
    fitted_models(catalog, "pooled-margin")
    assert len(list(cache.glob("*nbf-*.json"))) == 3

    # a cached fit is what is used: tamper with it and the tampered theta comes back
    (path,) = [p for p in cache.glob("*nbf-nbf-skip-*.json")]
    data = json.loads(path.read_text())
    data["theta"] = 0.77
    path.write_text(json.dumps(data))
    assert fitted_models(catalog, "nbf-skip")[20260324].theta == 0.77

    # a changed train persona is a new fit, not the stale cache
    ground_truth = release / "s20260324" / "bench_stable_001_avery_adams" / "ground_truth.json"
    os.utime(ground_truth, ns=(0, 0))
    assert fitted_models(catalog, "nbf-skip")[20260324] == first[20260324]
    assert len(list(cache.glob("*nbf-nbf-skip-*.json"))) == 2


@pytest.mark.slow
def test_reader_option_selects_the_variant(tmp_path: Path) -> None:
    options = dict(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=200)
    assert MultisourceSuite(SuiteOptions(**options)).reader_variant == "nbf-skip"  # type: ignore[arg-type]
    suite = MultisourceSuite(SuiteOptions(**options, params={"reader": "pooled-margin"}))  # type: ignore[arg-type]
    reader = suite.reader()
    assert reader.variant == "pooled-margin"
    assert all(m.temperature == 1.0 for m in reader.models.values())
    with pytest.raises(ConfigError, match="'best' is not one of nbf-skip, nbf, pooled-margin"):
        MultisourceSuite(SuiteOptions(**options, params={"reader": "best"}))  # type: ignore[arg-type]


@pytest.mark.slow
def test_bad_reader_value_is_a_one_line_usage_error(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "--memeval-suite-option",
        "multisource.reader=best",
        "--collect-only",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and "multisource.reader: 'best' is not one of nbf-skip, nbf, pooled-margin" in errors[0], (
        errors
    )


@pytest.mark.slow
def test_reader_variant_runs_through_pytest(suite_pytester: pytest.Pytester) -> None:
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "-k",
        "A1",
        f"--memeval-report={report}",
        "--memeval-suite-option",
        "multisource.reader=nbf",
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    records = json.loads(report.read_text())["records"]
    assert len(records) == 12
    assert all(r["answer_detail"]["reader"] == "nbf" and not r["abstained"] for r in records)
