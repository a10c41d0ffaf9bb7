"""The two environments with closed-form Bayesian references (paper §3 coin flip, §4 recommender).

Everything is a pure function of the seed. The recommender's rating tables are drawn once
per seed from an environment stream; each episode's observations come from a stream of its
own, derived from (seed, environment, true parameter, trial), so one episode generated
alone is exactly the episode of a full run, and every delivery condition of the same
(true parameter, trial) sees the same evidence (common random numbers across conditions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

COIN = "coin"
RECOMMENDER = "recommender"
#: where a recommender model comes from
GENERATED, RELEASED = "generated", "released"
ENV_CODES = {COIN: 0, RECOMMENDER: 1}

COIN_THETAS = (0.25, 0.5, 0.75)
COIN_TURNS = 100

TYPE_PRIOR = (0.12, 0.18, 0.28, 0.42)
N_TYPES = len(TYPE_PRIOR)
RATINGS = (1, 2, 3, 4, 5)
REC_TURNS = 50
N_TARGETS = 5
#: the reference's MAP type should equal the true type this often after IDENTIFY_AT ratings
IDENTIFY_TARGET = 0.80
IDENTIFY_AT = 20

GENRES = (
    "Action",
    "Animation",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Family",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
)
#: taste of each type per genre (paper App. C.2 personas); centred below so that no type
#: is just a more generous rater than another
_AFFINITY = {
    "Dark/Gritty Enthusiast": {
        "Crime": 1,
        "Thriller": 1,
        "Mystery": 1,
        "Horror": 0.5,
        "Animation": -1,
        "Family": -1,
        "Musical": -1,
        "Romance": -0.5,
    },
    "Family/Feel-Good Fan": {
        "Musical": 1,
        "Animation": 1,
        "Family": 1,
        "Romance": 1,
        "Comedy": 0.5,
        "Horror": -1,
        "Crime": -0.5,
        "Thriller": -0.5,
    },
    "Mainstream Blockbuster": {
        "Action": 1,
        "Sci-Fi": 1,
        "War": 0.5,
        "Animation": 0.5,
        "Comedy": 0.5,
        "Documentary": -1,
        "Horror": -0.5,
        "Drama": -0.5,
    },
    "Arthouse/Classic Cinephile": {
        "Documentary": 1,
        "Drama": 1,
        "War": 1,
        "Mystery": 0.5,
        "Horror": -1,
        "Sci-Fi": -1,
        "Action": -1,
        "Family": -0.5,
    },
}
PERSONAS = tuple(_AFFINITY)
_RATING_SPREAD = 0.8  # sd of the bell each rating table is drawn around
_DIRICHLET_CONCENTRATION = 100.0
_FLOOR = 0.02  # mixed-in uniform mass: no rating is impossible for any type
_CALIBRATION_USERS = 2000  # simulated users per type when tuning the separation
_TITLE_WORDS = (
    (
        "Silent",
        "Crimson",
        "Last",
        "Hidden",
        "Broken",
        "Golden",
        "Distant",
        "Midnight",
        "Wild",
        "Paper",
        "Iron",
        "Quiet",
    ),
    (
        "Harbor",
        "Garden",
        "Letter",
        "Engine",
        "Summer",
        "Frontier",
        "Mirror",
        "Orchard",
        "Signal",
        "Lantern",
        "Voyage",
        "Winter",
    ),
)


def stream(seed: int, *parts: int) -> np.random.Generator:
    """An independent generator for one purpose, from the seed and integer coordinates."""
    return np.random.default_rng(np.random.SeedSequence([seed, *parts]))


# --- coin flip ------------------------------------------------------------------------------


def coin_flips(seed: int, theta_index: int, trial: int) -> tuple[bool, ...]:
    """T flips of a coin with bias COIN_THETAS[theta_index]; True is heads."""
    theta = COIN_THETAS[theta_index]
    rng = stream(seed, ENV_CODES[COIN], theta_index, trial)
    return tuple(bool(x) for x in rng.random(COIN_TURNS) < theta)


# --- recommender ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Catalogue:
    """The recommender's items: the first REC_TURNS in the order they are rated, then the
    held-out targets. Everything here is public (it is what the model is told)."""

    #: genre indices of each item
    genres: tuple[tuple[int, ...], ...]
    #: "Item_14" per item (anonymized condition)
    anonymous_names: tuple[str, ...]
    #: a made-up title per item (explicit condition, shown with real genre names)
    titles: tuple[str, ...]
    #: "Feature_D" per genre (anonymized condition)
    feature_names: tuple[str, ...]
    #: the genre names `genres` index (the explicit condition shows them)
    genre_names: tuple[str, ...] = GENRES

    @property
    def sequence(self) -> range:
        return range(REC_TURNS)

    @property
    def targets(self) -> range:
        return range(REC_TURNS, len(self.genres))

    def label(self, item: int, explicit: bool) -> str:
        """How an item is named: 'Item_14 (Feature_D, Feature_E)' or 'Silent Harbor (Crime, Thriller)'."""
        if explicit:
            return f"{self.titles[item]} ({', '.join(self.genre_names[g] for g in self.genres[item])})"
        return f"{self.anonymous_names[item]} ({', '.join(self.feature_names[g] for g in self.genres[item])})"


@dataclass(frozen=True)
class RecommenderModel:
    """eta = (pi, phi) and the catalogue: the public generative model of one seed."""

    prior: tuple[float, ...]
    #: phi[item][type][rating - 1]
    phi: tuple[tuple[tuple[float, ...], ...], ...]
    catalogue: Catalogue
    #: the rating-table separation found by calibration, and the accuracy it gave (None: not calibrated)
    separation: float | None
    identification: float | None
    #: GENERATED (drawn from the seed) or RELEASED (the authors' fit, released.py)
    source: str = GENERATED

    def table(self) -> np.ndarray:
        return self._table

    @cached_property
    def _table(self) -> np.ndarray:
        table = np.asarray(self.phi)
        table.flags.writeable = False
        return table

    def mean_ratings(self) -> np.ndarray:
        """Expected rating per (item, type), what the LLM prompt's profile table shows."""
        return self.table() @ np.asarray(RATINGS, dtype=float)


@lru_cache(maxsize=8)
def recommender_model(seed: int) -> RecommenderModel:
    """The environment of a seed, with the separation tuned so that the Bayesian reference
    picks the true type IDENTIFY_TARGET of the time after IDENTIFY_AT ratings."""
    rng = stream(seed, ENV_CODES[RECOMMENDER], 1_000)
    n_items = REC_TURNS + N_TARGETS
    genres = tuple(
        tuple(sorted(rng.choice(len(GENRES), size=rng.integers(1, 4), replace=False).tolist())) for _ in range(n_items)
    )
    quality = rng.normal(3.0, 0.35, size=n_items)
    uniforms = rng.random((n_items, N_TYPES, len(RATINGS)))
    users = stream(seed, ENV_CODES[RECOMMENDER], 1_001).random((N_TYPES, _CALIBRATION_USERS, IDENTIFY_AT))
    affinity = _affinity_matrix()
    taste = np.stack([affinity[:, list(g)].mean(axis=1) for g in genres])  # (items, types)

    def tables(separation: float) -> np.ndarray:
        return _rating_tables(quality, taste, separation, uniforms)

    separation = _calibrate(lambda s: identification_accuracy(tables(s), users))
    phi = tables(separation)
    return RecommenderModel(
        prior=TYPE_PRIOR,
        phi=tuple(tuple(tuple(float(p) for p in row) for row in item) for item in phi),
        catalogue=_catalogue(rng, genres),
        separation=round(separation, 6),
        identification=identification_accuracy(phi, users),
    )


def recommender_ratings(seed: int, user_type: int, trial: int) -> tuple[tuple[int, ...], int]:
    """The ratings (1-5) of a user of `user_type` on the sequence items, and the trial's target item."""
    return draw_ratings(recommender_model(seed), seed, user_type, trial)


def draw_ratings(model: RecommenderModel, seed: int, user_type: int, trial: int) -> tuple[tuple[int, ...], int]:
    """`recommender_ratings` for any model (the generated one of a seed, or the released fit):
    the draws come from the episode's own stream, the target cycles through the model's targets."""
    draws = stream(seed, ENV_CODES[RECOMMENDER], user_type, trial).random(REC_TURNS)
    indices = sample_ratings(model.table()[:REC_TURNS, user_type], draws[None, :])[0]
    targets = model.catalogue.targets
    return tuple(int(i) + 1 for i in indices), targets[trial % len(targets)]


def sample_ratings(tables: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Rating indices (0-4) by inverse CDF: tables (turns, ratings), uniforms (users, turns)."""
    cdf = np.cumsum(tables, axis=1)
    # cumsum can end a hair below 1; a draw above it is the top rating
    return np.minimum((cdf[None, :, :] <= uniforms[:, :, None]).sum(axis=2), len(RATINGS) - 1)


def identification_accuracy(phi: np.ndarray, uniforms: np.ndarray) -> float:
    """Share of simulated users (equally many per true type) whose reference MAP type after
    uniforms.shape[2] ratings on the first sequence items is their true type."""
    n_types, _, turns = uniforms.shape
    log_phi = np.log(phi[:turns])  # (turns, types, ratings)
    log_prior = np.log(np.asarray(TYPE_PRIOR))
    hits = 0
    for true_type in range(n_types):
        ratings = sample_ratings(phi[:turns, true_type], uniforms[true_type])  # (users, turns)
        loglik = log_phi[np.arange(turns)[None, :], :, ratings].sum(axis=1)  # (users, types)
        hits += int(np.sum(np.argmax(loglik + log_prior, axis=1) == true_type))
    return hits / (n_types * uniforms.shape[1])


def _affinity_matrix() -> np.ndarray:
    matrix = np.array([[_AFFINITY[p].get(g, 0.0) for g in GENRES] for p in PERSONAS])
    return matrix - matrix.mean(axis=1, keepdims=True)


def _rating_tables(quality: np.ndarray, taste: np.ndarray, separation: float, uniforms: np.ndarray) -> np.ndarray:
    """phi[m, k] ~ Dirichlet(c * bell(mu[m, k])), drawn by inverse CDF from fixed uniforms so
    the tables move smoothly with `separation` (common random numbers for calibration)."""
    mu = quality[:, None] + separation * taste
    mu += mu.mean() - mu.mean(axis=0, keepdims=True)  # equal average generosity per type
    ratings = np.asarray(RATINGS, dtype=float)
    bell = np.exp(-((ratings[None, None, :] - mu[:, :, None]) ** 2) / (2 * _RATING_SPREAD**2))
    bell /= bell.sum(axis=2, keepdims=True)
    from scipy import stats  # imported here: collection never needs it

    gammas = stats.gamma.ppf(uniforms, _DIRICHLET_CONCENTRATION * bell)
    tables = gammas / gammas.sum(axis=2, keepdims=True)
    return (1 - _FLOOR) * tables + _FLOOR / len(RATINGS)


def _calibrate(accuracy: Callable[[float], float]) -> float:
    """Bisection on the separation for accuracy == IDENTIFY_TARGET (accuracy grows with it)."""
    low, high = 0.0, 8.0
    if accuracy(high) < IDENTIFY_TARGET:
        raise RuntimeError("recommender calibration: the largest separation does not reach the target accuracy")
    for _ in range(30):
        middle = (low + high) / 2
        if accuracy(middle) < IDENTIFY_TARGET:
            low = middle
        else:
            high = middle
    return high


def _catalogue(rng: np.random.Generator, genres: tuple[tuple[int, ...], ...]) -> Catalogue:
    n_items = len(genres)
    numbers = rng.permutation(np.arange(1, n_items + 1))
    first, second = _TITLE_WORDS
    pairs = [(a, b) for a in first for b in second]
    chosen = rng.choice(len(pairs), size=n_items, replace=False)
    letters = rng.permutation(len(GENRES))
    return Catalogue(
        genres=genres,
        anonymous_names=tuple(f"Item_{int(n)}" for n in numbers),
        titles=tuple(f"The {pairs[i][0]} {pairs[i][1]}" for i in chosen),
        feature_names=tuple(f"Feature_{chr(ord('A') + int(i))}" for i in letters),
    )
