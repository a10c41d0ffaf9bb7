"""bayes, LLM path: option letters from log-probs, cyclic counterbalancing, the verbalised
fallback and the prompt, against a scripted OpenAI-compatible server."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from llm_server import LLMServer, Reply, Request
from pytest_memeval.suites.bayes import BayesPrompt, BayesSuite
from pytest_memeval.suites.bayes.episode import probes
from pytest_memeval.suites.bayes.offline import run_episodes
from pytest_memeval.suites.bayes.readout import (
    Reading,
    counterbalance,
    letter_reading,
    to_outcomes,
    verbalised_reading,
)

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm import LLMResponder, LLMSettings
from pytest_memeval.llm.calls import TokenLogprob
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.types import Memory

MAPPING = re.compile(r"^A = .*$", re.M)


def token(text: str, p: float, *alternatives: tuple[str, float]) -> TokenLogprob:
    return TokenLogprob(text, math.log(p), tuple((a, math.log(q)) for a, q in alternatives))


def test_letter_variants_are_summed_and_renormalised() -> None:
    first = token("A", 0.5, ("A", 0.5), (" a", 0.1), ("B", 0.2), (" B", 0.1), ("Hello", 0.05))
    reading = letter_reading([first, token("!", 0.9)], 2)
    assert reading.positions == pytest.approx((0.6 / 0.9, 0.3 / 0.9))
    assert reading.mass == pytest.approx(0.9) and reading.flagged is None
    low = letter_reading([token("The", 0.995, ("The", 0.995), ("A", 0.004))], 2)
    assert low.positions == (0.5, 0.5) and "below 0.01" in (low.flagged or "")
    # only the option letters count: E is not an option of a two-way probe
    assert letter_reading([token("E", 0.6, ("E", 0.6), ("B", 0.4))], 2).positions == pytest.approx((0.0, 1.0))


def test_verbalised_probabilities_are_strict() -> None:
    assert verbalised_reading('{"A": 3, "B": 1}', 2).positions == (0.75, 0.25)
    for bad in (
        "A",
        '{"A": 0.5}',
        '{"A": 0.5, "B": "x"}',
        '{"A": -1, "B": 2}',
        '{"A": 0, "B": 0}',
        '{"A": true, "B": 0}',
        None,
    ):
        reading = verbalised_reading(bad, 2)
        assert reading.positions == (0.5, 0.5) and reading.flagged


def test_cyclic_rotation_cancels_additive_position_bias_exactly() -> None:
    truth = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    bias = np.array([0.08, 0.02, -0.05, -0.01, -0.04])  # sums to zero (Prop. 1)
    readings = []
    for rotation in range(5):
        # position i shows outcome (i + rotation) mod 5
        positions = [truth[(i + rotation) % 5] + bias[i] for i in range(5)]
        readings.append((rotation, Reading(tuple(positions))))
        assert to_outcomes(positions, rotation)[(0 + rotation) % 5] == positions[0]
    result = counterbalance(readings)
    assert result.distribution == pytest.approx(truth)
    assert result.position_bias == pytest.approx(bias)
    # one rotation alone keeps the bias
    assert not np.allclose(to_outcomes(readings[0][1].positions, 0), truth)


def biased_script(belief: dict[str, float], bias_on_a: float):  # type: ignore[no-untyped-def]
    """A model whose letter probabilities are its belief plus a bias towards position A."""

    def script(request: Request) -> Reply:
        line = MAPPING.search(request.messages[0]["content"])
        assert line is not None
        options = [part.split(" = ", 1)[1] for part in line.group(0).split(", ")]
        letters = "ABCDE"[: len(options)]
        probs = [belief[o] + (bias_on_a if i == 0 else -bias_on_a / (len(options) - 1)) for i, o in enumerate(options)]
        alternatives = [(letter, math.log(p)) for letter, p in zip(letters, probs)]
        return Reply(content="A", tokens=[("A", alternatives[0][1], alternatives)])

    return script


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> BayesSuite:
    options = SuiteOptions(
        size="smoke",
        split=None,
        seeds=None,
        k=10,
        data_dir=None,
        cache_dir=tmp_path_factory.mktemp("bayes"),
        bootstrap=200,
    )
    return BayesSuite(options, probe_every=25)


def responder(server: LLMServer) -> LLMResponder:
    return LLMResponder(BayesPrompt(), LLMSettings(model="scripted", base_url=server.base_url, cache_mode="off"))


def test_llm_coin_beliefs_are_read_from_logprobs_without_position_bias(suite: BayesSuite) -> None:
    episode = next(e.id for e in suite.index() if "coin-passive_b1-identical" in e.id)
    with LLMServer(biased_script({"heads": 0.7, "tails": 0.3}, 0.2)) as server:
        model = responder(server)
        (record,) = run_episodes(suite, ContextMemory(), "context", model, "openai:scripted", [episode], 10)
        model.close()
        assert server.count == 5 * 2  # probes at t = 0, 25, 50, 75, 100, two rotations each
        assert all(r.body["logprobs"] is True and r.body["top_logprobs"] == 20 for r in server.requests)
    detail = record.answer_detail
    assert detail["readout"] == "logprobs"
    for entry in detail["trajectory"]:
        assert entry["p_heads"] == pytest.approx(0.7)
        assert entry["position_bias"] == [pytest.approx([0.2, -0.2])]
        assert entry["mass"] == pytest.approx(1.0) and entry["flagged"] == 0
    assert record.detail["flagged_probes"] == 0


def test_llm_recommender_asks_every_probe_at_every_rotation(suite: BayesSuite) -> None:
    episode = next(e.id for e in suite.index() if "recommender-passive_b1-anonymized" in e.id)
    ratings = {
        f"{r} star{'s' if r > 1 else ''} ({w})": p
        for r, w, p in zip(range(1, 6), ("terrible", "bad", "okay", "good", "great"), (0.1, 0.1, 0.2, 0.3, 0.3))
    }
    profiles = {f"Profile {z}": p for z, p in zip(range(1, 5), (0.1, 0.2, 0.3, 0.4))}
    with LLMServer(biased_script({**ratings, **profiles}, 0.05)) as server:
        model = responder(server)
        (record,) = run_episodes(suite, ContextMemory(), "context", model, "openai:scripted", [episode], 10)
        model.close()
        # per probe turn: rating x5, type x4, rating given each of 4 types x5
        assert server.count == 3 * (5 + 4 + 4 * 5)  # probes at t = 0, 25, 50
    last = record.answer_detail["trajectory"][-1]
    assert last["rating"] == pytest.approx([0.1, 0.1, 0.2, 0.3, 0.3])
    assert last["type"] == pytest.approx([0.1, 0.2, 0.3, 0.4])
    assert record.answer == "Profile 4"


def test_without_logprobs_the_episode_falls_back_to_verbalised_probabilities(suite: BayesSuite) -> None:
    episode = next(e.id for e in suite.index() if "coin-passive_b1-identical" in e.id)

    def script(request: Request) -> str:
        assert "JSON object" in request.messages[0]["content"] or request.body.get("logprobs")
        heads_first = "A = heads" in request.messages[0]["content"]
        return '{"A": 0.8, "B": 0.2}' if heads_first else '{"A": 0.2, "B": 0.8}'

    with LLMServer(script, supports_logprobs=False) as server:
        model = responder(server)
        (record,) = run_episodes(suite, ContextMemory(), "context", model, "openai:scripted", [episode], 10)
        model.close()
        assert server.count == 2 + 5 * 2  # one log-prob attempt, then verbalised throughout
    assert record.answer_detail["readout"] == "verbalised"
    assert all(e["p_heads"] == pytest.approx(0.8) for e in record.answer_detail["trajectory"])


def test_prompts_show_the_rotation_and_never_the_target_in_the_profile_table(suite: BayesSuite) -> None:
    prompt = BayesPrompt()
    coin = suite.episode_data(next(e.id for e in suite.index() if "coin-passive_b10" in e.id))
    (probe,) = probes(coin, 13, coin.observations[10:13])
    system, user = prompt.messages(probe.view(1), [Memory("The next 10 flips were: heads")])
    assert system["content"].endswith("Respond with only A or B.\\nA = tails, B = heads".replace("\\n", "\n"))
    assert "Recalled from earlier in this conversation:\nThe next 10 flips were: heads" in user["content"]
    # App. B.1.5: no probe prompt is appended to the coin's "Predict the next flip."
    assert "So far in this batch: " in user["content"] and user["content"].endswith("Predict the next flip.")
    assert "Respond with only" not in user["content"]
    rec = suite.episode_data(next(e.id for e in suite.index() if "recommender-single_turn-anonymized" in e.id))
    rating, kind, *conditional = probes(rec, 2, [])
    system, user = prompt.messages(rating.view(0), [])
    target = rec.model.catalogue.label(rec.target, False)
    assert "users fall into 4 profiles" in system["content"] and target not in system["content"]
    assert "Recalled" not in user["content"] and "The user's ratings so far:" in user["content"]
    assert user["content"].endswith("\nRespond with only A, B, C, D, or E.")  # App. C.1's format reminder
    assert prompt.messages(kind.view(0), [])[1]["content"].endswith("\nRespond with only A, B, C, or D.")
    assert "this user most closely matches Profile 3" in prompt.messages(conditional[2].view(0), [])[1]["content"]
    assert "A = Profile 2, B = Profile 3" in prompt.messages(kind.view(1), [])[0]["content"]
    zero = suite.episode_data(next(e.id for e in suite.index() if "zero_shot" in e.id))
    assert "profiles" not in prompt.messages(probes(zero, 2, [])[0].view(0), [])[0]["content"]
    verbal = prompt.messages(rating.view(0, "verbalised"), [])[0]["content"]
    assert "JSON object" in verbal and "Respond with only" not in verbal
