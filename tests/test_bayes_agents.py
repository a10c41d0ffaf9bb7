"""bayes: reading evidence back from text, the reader and self-test agents, the episode loop, leakage."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest
from pytest_memeval.suites.bayes import BayesSuite, coin_mean, last_k, memoryless, perfect_bayesian, tempered
from pytest_memeval.suites.bayes.askers import DirectAsker
from pytest_memeval.suites.bayes.episode import probes, run_episode
from pytest_memeval.suites.bayes.parse import Flip, chronological, coin_evidence, coin_totals, rating_evidence
from pytest_memeval.suites.bayes.prompt import BayesPrompt

from pytest_memeval.errors import ResponseError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Answer, ItemView, Memory, Message


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
    return BayesSuite(options)


def ids(suite: BayesSuite, condition: str) -> list[str]:
    return [e.id for e in suite.index() if f"-{condition}-" in e.id and "totals" not in e.id]


class RecordingMemory:
    """Stores every session, returns everything (newest last), and logs the calls."""

    def __init__(self) -> None:
        self.sessions: list[tuple[Message, ...]] = []
        self.queries: list[str] = []

    def ingest(self, session: Sequence[Message]) -> None:
        self.sessions.append(tuple(session))

    def retrieve(self, query: str, k: int) -> list[Memory]:
        self.queries.append(query)
        return [Memory(m.content) for s in self.sessions for m in s]


# --- parsing ------------------------------------------------------------------------------


def test_every_wording_is_read_back() -> None:
    texts = [
        "Noted.",
        "The flip was: heads",
        "the FLIP was: Tails",
        "The next 3 flips were: heads, heads, tails",
        "Previous flips: [tails, heads]",
        "So far in this batch: heads",
        "I think heads is likely",
    ]
    flips = coin_evidence(texts)
    assert [f.heads for f in flips] == [True, False, True, True, False, False, True, True]
    assert all(f.index is None for f in flips)
    assert coin_evidence(["Previous flips: []"]) == []
    assert coin_totals("Total: 3 heads, 2 tails.") == (3, 5) and coin_totals("no totals") is None


def test_indexed_flips_count_once_and_sort_by_index() -> None:
    flips = coin_evidence(
        ["Flip #3 was tails", "Flips #1-#2 were: heads, tails", "Flip #3 was tails", "flip #2 was heads"]
    )
    assert flips == [Flip(False, 3), Flip(True, 1), Flip(False, 2)]
    assert [f.index for f in chronological(flips)] == [1, 2, 3]
    unindexed = [Flip(True), Flip(False, 4)]
    assert chronological(unindexed) == unindexed  # without every index, reading order stays


def test_ratings_are_read_once_per_known_item() -> None:
    labels = {"item_7 (feature_a)": 0, "the wild letter (drama)": 1}
    texts = [
        "The user rated Item_7 (Feature_A): 4 stars",
        "Noted.",
        "The user rated Item_7 (Feature_A): 2 stars",
        "The user's ratings so far:\n- The Wild Letter (Drama): 1 star\n- Item_9 (Feature_B): 5 stars",
    ]
    assert rating_evidence(texts, labels) == [(0, 4), (1, 1)]


# --- agents -------------------------------------------------------------------------------


def coin_view(**extra: str) -> ItemView:
    base = {"env": "coin", "inline": "", "pending": "", "totals": ""}
    return ItemView("bayes", "coin_next_flip", "Predict the next flip.", ("heads", "tails"), extra={**base, **extra})


def p_heads(answer: Answer) -> float:
    return answer.detail["distribution"][0]


def test_coin_agents_by_hand() -> None:
    memories = [Memory(t) for t in ("Flip #1 was heads", "Flip #2 was heads", "Flip #3 was tails", "Flip #4 was heads")]
    view = coin_view(pending="So far in this batch: heads")  # 4 heads, 1 tails
    assert p_heads(perfect_bayesian().answer(view, memories)) == pytest.approx(5 / 7)
    assert p_heads(memoryless().answer(view, memories)) == pytest.approx(2 / 3)  # the pending flip only
    assert p_heads(memoryless().answer(coin_view(), memories)) == 0.5
    assert p_heads(tempered(0.5).answer(view, memories)) == pytest.approx(3 / 4.5)
    # the last two in episode order: flip #4 (heads), then the pending heads
    assert p_heads(last_k(2).answer(view, list(reversed(memories)))) == pytest.approx(3 / 4)
    # stated totals are the sufficient statistic: memory is not needed
    assert p_heads(memoryless().answer(coin_view(totals="Total: 7 heads, 1 tails."), [])) == pytest.approx(8 / 10)
    answer = perfect_bayesian().answer(view, memories)
    assert answer.label == "heads" and sum(answer.detail["distribution"]) == pytest.approx(1.0)


def test_recommender_reader_matches_the_reference(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "single_turn-anonymized")[0])
    t = 12
    found = {p.task: perfect_bayesian().answer(p.view(), []).detail["distribution"] for p in probes(data, t, [])}
    from pytest_memeval.suites.bayes.reference import rating_predictive, type_posterior

    posterior = type_posterior(data.model, [(m, data.observations[m]) for m in range(t)])
    assert found["rec_type"] == pytest.approx(posterior)
    assert found["rec_rating"] == pytest.approx(rating_predictive(data.model, posterior, data.target))


def test_zero_shot_reader_smooths_the_users_own_ratings(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "passive_b1-zero_shot")[0])
    (probe,) = probes(data, 3, [])
    labels = [data.model.catalogue.label(m, False) for m in range(3)]
    memories = [
        Memory(f"The user rated {labels[0]}: 4 stars"),
        Memory(f"The user rated {labels[1]}: 4 stars"),
        Memory(f"The user rated {labels[2]}: 1 star"),
    ]
    assert perfect_bayesian().answer(probe.view(), memories).detail["distribution"] == pytest.approx(
        [2 / 8, 1 / 8, 1 / 8, 3 / 8, 1 / 8]
    )
    assert "model" in probe.extra and probe.extra["model"] is None  # no profile table in zero-shot


def test_a_responder_without_beliefs_is_an_error() -> None:
    class Plain:
        def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
            return Answer("heads")

    from pytest_memeval.suites.bayes.conditions import Condition
    from pytest_memeval.suites.bayes.probes import coin_probe

    probe = coin_probe(Condition("coin", "passive", 1, "identical", "unknown_bias"))
    with pytest.raises(ResponseError, match="no belief distribution"):
        DirectAsker(Plain(), "x").ask([probe], [])


# --- the episode loop ---------------------------------------------------------------------


def test_passive_episode_writes_one_session_per_flip_and_probes_every_turn(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "passive_b1-identical-unknown_bias")[0])
    memory = RecordingMemory()
    answer = run_episode(data, memory, DirectAsker(perfect_bayesian(), "x"), 10, 1)
    assert len(memory.sessions) == 100 and len(memory.queries) == 101
    assert memory.sessions[0] == (
        Message("assistant", "Noted."),
        Message("user", f"The flip was: {'heads' if data.observations[0] else 'tails'}"),
    )
    trajectory = answer.detail["trajectory"]
    assert [e["t"] for e in trajectory] == list(range(101))
    assert all(e["p_heads"] == pytest.approx(coin_mean(sum(data.observations[: e["t"]]), e["t"])) for e in trajectory)
    assert all(e["seen"] == e["stored"] == e["t"] for e in trajectory)


def test_batches_are_stored_whole_and_pending_flips_are_in_the_probe(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "passive_b10-identical-unknown_bias")[0])
    memory = RecordingMemory()
    answer = run_episode(data, memory, DirectAsker(perfect_bayesian(), "x"), 10, 25)
    assert len(memory.sessions) == 10 and memory.sessions[0][1].content.startswith("The next 10 flips were: ")
    assert [e["t"] for e in answer.detail["trajectory"]] == [0, 25, 50, 75, 100]
    assert [e["stored"] for e in answer.detail["trajectory"]] == [0, 20, 50, 70, 100]
    (probe,) = probes(data, 25, data.observations[20:25])
    assert probe.extra["pending"].startswith("So far in this batch: ") and probe.extra["pending"].count(",") == 4


def test_single_turn_uses_no_memory(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "single_turn-unknown_bias")[0])
    memory = RecordingMemory()
    answer = run_episode(data, memory, DirectAsker(perfect_bayesian(), "x"), 10, 50)
    assert memory.sessions == [] and memory.queries == []
    assert answer.detail["trajectory"][-1]["p_heads"] == pytest.approx(coin_mean(sum(data.observations), 100))


def test_single_turn_probes_state_the_running_totals_as_the_papers_do(suite: BayesSuite) -> None:
    """Paper App. B.1.2 (BayesBench coin_flip/conditions.py `build_single_turn`): from the
    first flip on, the single-turn probe lists the flips and their totals; C.1.3 the same for
    the recommender's ratings. A memory condition's probe states none: it would bypass memory."""
    data = suite.episode_data(ids(suite, "single_turn-unknown_bias")[0])
    flips = data.observations[:2]
    (probe,) = probes(data, 2, [])
    heads = sum(flips)
    assert probe.extra["totals"] == f"Total: {heads} heads, {2 - heads} tails."
    assert probe.extra["inline"].startswith("Previous flips: [")
    view = probe.view()
    prompt = BayesPrompt().messages(view, [])[-1]["content"]
    assert f"{probe.extra['inline']}\n\nTotal: {heads} heads" in prompt
    assert suite.item(data.episode.id).strata["running_totals"] == "on"
    (first,) = probes(data, 0, [])
    assert first.extra["totals"] == first.extra["inline"] == ""  # t = 0: no history, no totals
    ratings = suite.episode_data(ids(suite, "recommender-single_turn-anonymized")[0])
    assert all(p.extra["totals"].startswith("Average rating: ") for p in probes(ratings, 3, []))
    passive = suite.episode_data(ids(suite, "passive_b1-identical-unknown_bias")[0])
    assert [p.extra["totals"] for p in probes(passive, 2, [])] == [""]
    assert suite.item(passive.episode.id).strata["running_totals"] == "off"


def test_self_anchored_sessions_store_the_models_previous_answer(suite: BayesSuite) -> None:
    data = suite.episode_data(ids(suite, "self_anchored-identical-unknown_bias")[0])
    memory = RecordingMemory()
    answer = run_episode(data, memory, DirectAsker(perfect_bayesian(), "x"), 10, 1)
    labels = ["heads" if e["p_heads"] >= 0.5 else "tails" for e in answer.detail["trajectory"]]
    assert [s[0].content for s in memory.sessions] == labels[:-1]
    rec = suite.episode_data(ids(suite, "self_anchored-anonymized")[0])
    memory = RecordingMemory()
    answer = run_episode(rec, memory, DirectAsker(perfect_bayesian(), "x"), 10, 1)
    best = [f"Profile {int(np.argmax(e['type'])) + 1}" for e in answer.detail["trajectory"]]
    assert [s[0].content for s in memory.sessions] == best[:-1]
    assert answer.label == best[-1]


# --- leakage ------------------------------------------------------------------------------


def test_the_reader_answers_from_the_memories_alone(suite: BayesSuite) -> None:
    """Two episodes of one condition (another true parameter) ask the same probe views:
    the same memories give the same beliefs, and no memories give the prior."""
    reader = suite.reader()
    for condition in ("passive_b1-identical-unknown_bias", "passive_b1-anonymized"):
        first, last = ids(suite, condition)[0], ids(suite, condition)[-1]
        a, b = suite.episode_data(first), suite.episode_data(last)
        assert a.episode.truth != b.episode.truth
        memories = [Memory(m.content) for s in suite.context(last).sessions[:30] for m in s]
        for probe_a, probe_b in zip(probes(a, 30, []), probes(b, 30, [])):
            assert probe_a.view() == probe_b.view()
            assert reader.answer(probe_a.view(), memories) == reader.answer(probe_b.view(), memories)
        empty = reader.answer(probes(a, 30, [])[0].view(), []).detail["distribution"]
        if condition.startswith("passive_b1-identical"):
            assert empty == [0.5, 0.5]
        else:
            assert empty == pytest.approx(np.asarray(a.model.prior) @ a.model.table()[a.target])


STORED = re.compile(
    r"Noted\.|The flip was: (heads|tails)|Flip #\d+ was (heads|tails)|The next \d+ flips were: [a-z, ]+|The user rated [^:\n]+: [1-5] stars?"
)


def test_nothing_private_is_stored_or_in_a_probe(suite: BayesSuite) -> None:
    for entry in suite.index():
        item = suite.item(entry.id)
        for session in suite.context(entry.id).sessions:
            for message in session:
                assert STORED.fullmatch(message.content), message.content
        data = item.data
        secrets = {entry.id, item.cluster, data.episode.truth_label, "trial", "theta", str(item.gold)}
        for t in (0, 7, len(data.observations)):
            for probe in probes(data, t, []):
                view = probe.view()
                public = " ".join(
                    [
                        view.question,
                        view.task,
                        *view.answer_space,
                        *(str(v) for k, v in view.extra.items() if isinstance(v, str)),
                    ]
                )
                leaked = [s for s in secrets if s in public and not (s == str(item.gold) and s.startswith("Profile"))]
                assert not leaked, (entry.id, leaked)
                if data.condition.uses_memory:  # the probe cannot bypass memory
                    assert view.extra["inline"] == "" and view.extra["totals"] == ""
        assert item.view.extra == {} and "gold" not in item.view.extra
