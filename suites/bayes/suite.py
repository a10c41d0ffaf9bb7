"""The bayes suite: do beliefs rebuilt from memory follow the Bayesian posterior? (seed 003)

One test per episode (environment x condition x true parameter x trial). The suite is
interactive: the episode writes every observation (or batch) to a fresh namespace as its
own session and probes the belief between writes, answering from what the memory
returns. The trajectory (belief per probe) is the answer; the judge sets it against the
exact Bayesian reference.

Probes run every turn; --memeval-suite-option bayes.probe_every=n probes every n-th turn (and the
first and last) to bound the cost of an LLM run.

--memeval-data names a BayesBench checkout (released.py): the recommender's episodes then
run on the authors' fitted model and movies (ids prefixed `bayesbench-`); the coin, the
conditions and the probes are the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, ItemMemory, Suite, SuiteOptions
from pytest_memeval.results.records import PairedMetric, Record, Report, SuiteSummary
from pytest_memeval.types import Answer, Context, Item, ItemView, Message

from .agents import BeliefAgent
from .askers import asker_for
from .conditions import DEFAULT_SEED, episode_marks, episodes, marker_descriptions, parse_episode_id
from .environments import COIN, COIN_THETAS, RecommenderModel, coin_flips, draw_ratings, recommender_model
from .episode import EpisodeData, EpisodeItem, data_of, observation_text, run_episode
from .figures import trajectory_figures
from .judge import TrajectoryJudge
from .prompt import BayesPrompt
from .released import load_release
from .render import ACK, COIN_PROBE, profile_name
from .summary import METRIC_BOUNDS, METRIC_NAMES, compare, summarize

if TYPE_CHECKING:
    from pytest_memeval.framework.figures import Figure
    from pytest_memeval.protocols import ResponseModel

#: metrics where a smaller value is better (a regression is an increase)
ERROR_METRICS = frozenset(
    {"coin_mae", "coin_final_error", "rating_tvd", "type_tvd", "rating_mae", "conditioned_rating_mae", "final_type_tvd"}
)


def probe_every_setting(raw: str | None) -> int:
    """--memeval-suite-option bayes.probe_every (None: the default, every turn)."""
    if raw is None:
        return 1
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"--memeval-suite-option bayes.probe_every: {raw!r} is not an integer") from None
    if value < 1:
        raise ConfigError(f"--memeval-suite-option bayes.probe_every: must be at least 1, got {value}")
    return value


class BayesSuite(Suite):
    name = "bayes"
    markers = marker_descriptions()
    interactive = True
    metric_names = METRIC_NAMES
    lower_is_better = ERROR_METRICS
    metric_bounds = METRIC_BOUNDS
    headline_metric = "coin_mae"
    parameters = {"probe_every": "probe the belief every n-th turn (and the first and last) instead of every turn"}
    reads_data_dir = True  # a BayesBench checkout: the recommender runs on the released fit
    #: 2: single-turn probes state the running totals, as the paper's (App. B.1.2, C.1.3)
    protocol_version = "2"

    def __init__(self, options: SuiteOptions, probe_every: int | None = None) -> None:
        super().__init__(options)
        self.seeds: tuple[int, ...] = tuple(options.seeds or (DEFAULT_SEED,))
        self.probe_every = (
            probe_every if probe_every is not None else probe_every_setting(options.params.get("probe_every"))
        )
        if self.probe_every < 1:
            raise ConfigError(f"bayes: probe_every must be at least 1, got {self.probe_every}")
        self.release: RecommenderModel | None = load_release(options.data_dir) if options.data_dir is not None else None

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"probe_every": probe_every_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        return canonical_seeds(seeds or (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every episode is held out

    def index(self) -> list[IndexEntry]:
        # The recommender's calibration (2 s of CPU, most of it importing scipy.stats) waits
        # for the first item that needs it: every run indexes the suites it selects, and
        # most runs never build a recommender episode (each process calibrates once anyway).
        runs = episodes(self.options.size, self.seeds, released=self.release is not None)
        return [IndexEntry(e.id, e.id, episode_marks(e, self.options.k)) for e in runs]

    def episode_data(self, episode_id: str) -> EpisodeData:
        episode = parse_episode_id(episode_id)
        if episode.env == COIN:
            return EpisodeData(episode, coin_flips(episode.seed, episode.truth, episode.trial))
        if not episode.released:
            model = recommender_model(episode.seed)
        elif self.release is not None:
            model = self.release
        else:
            raise ConfigError(
                f"bayes: {episode_id} runs on the BayesBench release; pass --memeval-data=<BayesBench checkout>"
            )
        ratings, target = draw_ratings(model, episode.seed, episode.truth, episode.trial)
        return EpisodeData(episode, ratings, model, target)

    def context(self, context_id: str) -> Context:
        """The sessions a passive episode writes (self-anchored replies are the model's own,
        known only while it runs; single-turn episodes write nothing)."""
        data = self.episode_data(context_id)
        condition = data.condition
        if not condition.uses_memory:
            return Context(context_id, ())
        sessions = []
        for first in range(1, len(data.observations) + 1, condition.batch):
            batch = data.observations[first - 1 : first - 1 + condition.batch]
            sessions.append((Message("assistant", ACK), Message("user", observation_text(data, batch, first))))
        return Context(context_id, tuple(sessions))

    def item(self, item_id: str) -> Item:
        data = self.episode_data(item_id)
        episode, condition = data.episode, data.condition
        question = (
            COIN_PROBE
            if episode.env == COIN
            else "Which profile does this user most closely match, and how will they rate the target item?"
        )
        strata = {
            "env": episode.env,
            "condition": condition.key,
            "delivery": condition.delivery,
            "batch": str(condition.batch),
            "truth": episode.truth_label,
            "seed": str(episode.seed),
        }
        strata.update(
            {
                name: value
                for name, value in (("obs", condition.obs), ("task", condition.task), ("profile", condition.profile))
                if value
            }
        )
        if data.model is not None:
            strata["model"] = data.model.source
        strata["running_totals"] = "on" if condition.states_totals else "off"
        return EpisodeItem(
            id=item_id,
            context_id=item_id,
            cluster=episode.stream,
            view=ItemView(self.name, episode.env, question, allow_abstain=False),
            gold=COIN_THETAS[episode.truth] if episode.env == COIN else profile_name(episode.truth),
            strata=strata,
            data=data,
        )

    def interact(self, item: Item, memory: ItemMemory, responder: ResponseModel, k: int) -> Answer:
        asker = asker_for(responder, item.id)
        try:
            return run_episode(data_of(item), memory, asker, k, self.probe_every)
        finally:
            asker.close()

    def reader(self) -> BeliefAgent:
        return BeliefAgent()

    def judge(self) -> TrajectoryJudge:
        return TrajectoryJudge()

    def llm_prompt(self) -> BayesPrompt:
        return BayesPrompt()

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        return summarize(records, self.options.bootstrap)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)

    def figures(self, report: Report) -> Sequence[Figure]:
        return trajectory_figures(report, self.name)
