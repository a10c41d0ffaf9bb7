"""bayes on the authors' release (BayesBench, MIT): the fitted model, the movies, the paper's 0.82.

The excerpt under tests/data/bayesbench holds the released files restricted to the 54 movies
the suite uses (its README says how); the whole release is read too when a checkout is at
$MEMEVAL_BAYESBENCH_DIR (default: ../releases/Ankur-Samanta+BayesBench next to ../shared).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from pytest_memeval.suites.bayes import BayesSuite
from pytest_memeval.suites.bayes.conditions import (
    DEFAULT_SEED,
    episodes,
    parse_episode_id,
)
from pytest_memeval.suites.bayes.environments import (
    REC_TURNS,
    RELEASED,
    draw_ratings,
)
from pytest_memeval.suites.bayes.offline import run_episodes
from pytest_memeval.suites.bayes.reference import (
    type_identification,
    type_posterior,
)
from pytest_memeval.suites.bayes.released import DATA_DIR, load_release
from pytest_memeval.suites.bayes.summary import summarize
from reference_data import SHARED_DIR

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.results.records import Report

EXCERPT = Path(__file__).parent / "data" / "bayesbench"
RELEASE = Path(os.environ.get("MEMEVAL_BAYESBENCH_DIR") or SHARED_DIR.parent / "releases" / "Ankur-Samanta+BayesBench")
needs_release = pytest.mark.skipif(not (RELEASE / DATA_DIR).is_dir(), reason=f"no BayesBench checkout at {RELEASE}")


def options(tmp_path: Path, data_dir: Path | None = EXCERPT, size: str = "smoke") -> SuiteOptions:
    return SuiteOptions(size, None, None, 10, data_dir, tmp_path)


def test_the_released_fit_loads_as_the_suites_model() -> None:
    model = load_release(EXCERPT)
    assert model.source == RELEASED
    assert model.prior == pytest.approx([0.1217, 0.1780, 0.2837, 0.4166], abs=5e-5)
    assert model.table().shape == (REC_TURNS + 4, 4, 5)
    catalogue = model.catalogue
    assert list(catalogue.targets) == [50, 51, 52, 53]
    # the released order and names; anonymized as the release does it (Item_n, Feature_<MovieLens order>)
    assert catalogue.label(0, explicit=True) == "Cinderella (1950) (Animation, Children's, Musical)"
    assert catalogue.label(0, explicit=False) == "Item_1 (Feature_C, Feature_D, Feature_L)"
    assert catalogue.label(50, explicit=True) == "Dumbo (1941) (Animation, Children's, Musical)"
    assert catalogue.label(53, explicit=False).startswith("Item_54 (")
    # a rating table of the selection file is the fitted one
    selection = json.loads((EXCERPT / DATA_DIR / "movie_selection.json").read_text())
    assert np.allclose(model.table()[50], selection["target_movies"][0]["theta"])


@pytest.mark.slow
def test_the_reference_identifies_the_true_type_as_the_paper_says() -> None:
    """App. C.2: 0.82 after 20 ratings, chance 0.25; the type drawn from the prior, the movies in
    their fixed order. With the types weighted equally it would read 0.83."""
    model = load_release(EXCERPT)
    rate, per_type = type_identification(model, turns=20)
    assert round(rate, 2) == 0.82
    assert rate == pytest.approx(0.8239, abs=0.0015)  # 200,000 users per type: standard error ~0.0005
    assert round(float(np.mean(per_type)), 2) == 0.83
    assert per_type[0] > 0.99 and min(per_type) == per_type[2]
    # it grows with the evidence and starts at the prior's most likely type
    assert type_identification(model, turns=0, users_per_type=1000)[0] == pytest.approx(max(model.prior))
    assert (
        type_identification(model, turns=5, users_per_type=20_000)[0]
        < rate
        < type_identification(model, turns=50, users_per_type=20_000)[0]
    )


@needs_release
def test_the_excerpt_is_the_release() -> None:
    full, excerpt = load_release(RELEASE), load_release(EXCERPT)
    assert full.prior == excerpt.prior and full.phi == excerpt.phi and full.catalogue == excerpt.catalogue
    assert round(type_identification(full)[0], 2) == 0.82


def test_recommender_episodes_run_on_the_release_and_the_coin_is_unchanged(tmp_path: Path) -> None:
    released, generated = BayesSuite(options(tmp_path)), BayesSuite(options(tmp_path, None))
    ids, plain = [e.id for e in released.index()], [e.id for e in generated.index()]
    assert len(ids) == len(plain) == 35
    assert [i for i in ids if "-coin-" in i] == [i for i in plain if "-coin-" in i]
    recommender = [i for i in ids if "-recommender-" in i]
    assert recommender == ["bayesbench-" + i for i in plain if "-recommender-" in i]
    episode = parse_episode_id(recommender[5])
    assert episode.released and episode.id == recommender[5]
    assert episodes("smoke", (DEFAULT_SEED,), released=True)[-1].id == recommender[-1]
    data = released.episode_data(recommender[5])
    assert data.model is released.release and data.target in range(50, 54)
    assert (data.observations, data.target) == draw_ratings(data.model, episode.seed, episode.truth, episode.trial)
    item = released.item(recommender[5])
    assert item.strata["model"] == "released" and item.cluster.startswith("bayesbench-")
    assert generated.item(plain[-1]).strata["model"] == "generated"
    # a released episode needs the release
    with pytest.raises(ConfigError, match="pass --memeval-data=<BayesBench checkout>"):
        generated.episode_data(recommender[5])
    with pytest.raises(ConfigError, match="is not an episode id"):
        parse_episode_id("bayesbench-" + plain[0])  # no released coin


def test_the_reader_on_full_memory_matches_the_reference_on_the_released_fit(tmp_path: Path) -> None:
    suite = BayesSuite(options(tmp_path))
    ids = [e.id for e in suite.index() if "-recommender-passive" in e.id]
    records = run_episodes(suite, ContextMemory(), "context", suite.reader(), "reader", ids, 10)
    assert suite.release is not None and len(records) == 12
    for record in records:
        if "zero_shot" in record.id:  # no profiles: the reader predicts from the user's own ratings
            assert record.detail["type_tvd"] is None
            continue
        assert record.detail["type_tvd"] == 0.0 and record.detail["rating_tvd"] == pytest.approx(0.0, abs=1e-8)
        assert record.detail["prior"] == list(suite.release.prior)
    # pooled over episodes, tempered against the released prior: all 50 ratings count
    assert summarize(records, 200).metrics["type_ess"].value == pytest.approx(REC_TURNS, abs=1e-3)
    # the final reference belief is the exact posterior of the 50 released-model ratings
    data = suite.episode_data(ids[0])
    last = records[0].detail["per_probe"][-1]
    history = list(enumerate(data.observations))
    assert last["reference_p_true_type"] == pytest.approx(
        type_posterior(data.model, history)[data.episode.truth], abs=1e-9
    )


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(EXCERPT, root)
    return root


def _rewrite(root: Path, name: str, change) -> None:  # type: ignore[no-untyped-def]
    path = root / DATA_DIR / name
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("fitted_model.json", lambda d: d.update(pi=[0.5, 0.5]), "2 types in 'pi'"),
        ("fitted_model.json", lambda d: d.update(pi=[0.2, 0.2, 0.2, 0.2]), "'pi' is not a distribution"),
        ("fitted_model.json", lambda d: d["theta"].pop("1022"), "no rating table ('theta') for movie 1022"),
        ("fitted_model.json", lambda d: d["theta"]["1022"][0].pop(), "the table of movie 1022 is not 4 distributions"),
        (
            "fitted_model.json",
            lambda d: d["movie_genres"].update({"1022": ["Noir"]}),
            "movie 1022 has no MovieLens genres",
        ),
        ("fitted_model.json", lambda d: d.pop("movie_names"), "missing 'movie_names'"),
        ("movie_selection.json", lambda d: d["probe_movie_ids"].pop(), "probe_movie_ids has 49 movies"),
        (
            "movie_selection.json",
            lambda d: d["target_movies"][0]["theta"][0].reverse(),
            "the table of target movie 1029 differs",
        ),
        ("movie_selection.json", lambda d: d["target_movies"][1].update(movie_id=1022), "a movie is listed twice"),
    ],
)
def test_a_malformed_release_is_one_line_naming_the_file(tmp_path: Path, name: str, change, message: str) -> None:  # type: ignore[no-untyped-def]
    root = _copy(tmp_path)
    _rewrite(root, name, change)
    with pytest.raises(DataError, match=re.escape(message)) as caught:
        load_release(root)
    assert name in str(caught.value) and "\n" not in str(caught.value)


def test_the_data_directory_itself_is_accepted_and_a_wrong_one_is_a_usage_error(tmp_path: Path) -> None:
    assert load_release(EXCERPT / DATA_DIR).phi == load_release(EXCERPT).phi
    with pytest.raises(
        ConfigError, match=r"is not a BayesBench checkout \(no bayesbench/recommender_system/data/fitted_model.json"
    ):
        BayesSuite(options(tmp_path, tmp_path))
    (tmp_path / "fitted_model.json").write_text("{not json")
    (tmp_path / "movie_selection.json").write_text("{}")
    with pytest.raises(DataError, match="fitted_model.json: not JSON"):
        load_release(tmp_path)


@pytest.mark.slow
def test_through_pytest_on_the_release(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=bayes",
        f"--memeval-data={EXCERPT}",
        f"--memeval-report={report}",
        "-m",
        "recommender and multi_turn_passive and not profile_zero_shot",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    records = Report.from_json(json.loads(report.read_text())).records
    assert len(records) == 8 and all(r.id.startswith("bayesbench-s2026-recommender-passive_b1-") for r in records)
    assert all(r.strata["model"] == "released" and r.detail["type_tvd"] == 0.0 for r in records)
    wrong = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=bayes", f"--memeval-data={tmp_path}", "--collect-only"
    )
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    expected = (
        f"ERROR: --memeval-data: {tmp_path} is not a BayesBench checkout (no bayesbench/recommender_system/data/fitted_model.json "
        "and bayesbench/recommender_system/data/movie_selection.json in it)"
    )
    assert [line for line in wrong.errlines if line.strip()] == [expected]
