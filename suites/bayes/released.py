"""The recommender the authors released (Ankur-Samanta/BayesBench, MIT): their fit on MovieLens.

    <checkout>/bayesbench/recommender_system/data/fitted_model.json
        n_types, pi (the type prior), theta {movie id: K x 5 rating table}, movie_names,
        movie_genres (and user_assignments, not needed here)
    <checkout>/bayesbench/recommender_system/data/movie_selection.json
        probe_movie_ids (the 50 rated movies, in the fixed order they are shown),
        target_movies [{movie_id, movie_name, genres, theta, owner_type, ...}] (one per type)

`--memeval-data` may name the checkout or that data directory. The model keeps the suite's
shape: the 50 probe movies are the sequence items in the released order, the target
movies the held-out items after them. As in the release, the anonymized condition names
them Item_1, Item_2, ... in that order and maps the MovieLens genres to Feature_A,
Feature_B, ... in the MovieLens order; the explicit condition shows the released titles.
Nothing else changes: conditions, probes and the reference are the suite's own.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.data_files import read_json

from .environments import (
    N_TYPES,
    RATINGS,
    REC_TURNS,
    RELEASED,
    Catalogue,
    RecommenderModel,
)

DATA_DIR = Path("bayesbench") / "recommender_system" / "data"
FITTED = "fitted_model.json"
SELECTION = "movie_selection.json"
#: the genres of MovieLens 1M in the order its README lists them (the release's GENRE_NAMES)
MOVIELENS_GENRES = (
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
)
#: how far a released rating table may sum from 1 (they are stored as JSON floats)
_SUM_TOLERANCE = 1e-6


def release_dir(root: Path) -> Path:
    """The directory holding the two files: `root` itself or its bayesbench/recommender_system/data."""
    for candidate in (root / DATA_DIR, root):
        if (candidate / FITTED).is_file() and (candidate / SELECTION).is_file():
            return candidate
    raise ConfigError(
        f"--memeval-data: {root} is not a BayesBench checkout (no {DATA_DIR / FITTED} and {DATA_DIR / SELECTION} in it)"
    )


@lru_cache(maxsize=4)
def load_release(root: Path) -> RecommenderModel:
    """The released type prior, rating tables and movies as the suite's RecommenderModel."""
    directory = release_dir(root)
    fitted = _read(directory / FITTED)
    selection = _read(directory / SELECTION)
    fitted_path, selection_path = directory / FITTED, directory / SELECTION
    prior = _prior(fitted, fitted_path)
    probes = _field(selection, "probe_movie_ids", list, selection_path)
    targets = _field(selection, "target_movies", list, selection_path)
    if len(probes) != REC_TURNS:
        raise DataError(f"{selection_path}: probe_movie_ids has {len(probes)} movies, the suite rates {REC_TURNS}")
    if not targets:
        raise DataError(f"{selection_path}: target_movies is empty")
    target_ids = [_field(t, "movie_id", int, selection_path, "target_movies[]") for t in targets]
    movies = [str(m) for m in probes + target_ids]
    if len(set(movies)) != len(movies):
        raise DataError(f"{selection_path}: a movie is listed twice among the probes and targets")
    tables = _field(fitted, "theta", dict, fitted_path)
    phi = tuple(_table(tables, movie, fitted_path) for movie in movies)
    for target, movie in zip(targets, target_ids):
        if "theta" in target and not _same(target["theta"], phi[movies.index(str(movie))]):
            raise DataError(f"{selection_path}: the table of target movie {movie} differs from {FITTED}")
    names = _field(fitted, "movie_names", dict, fitted_path)
    genres = _field(fitted, "movie_genres", dict, fitted_path)
    catalogue = Catalogue(
        genres=tuple(_genres(genres, movie, fitted_path) for movie in movies),
        anonymous_names=tuple(f"Item_{i + 1}" for i in range(len(movies))),
        titles=tuple(_title(names, movie, fitted_path) for movie in movies),
        feature_names=tuple(f"Feature_{chr(ord('A') + i)}" for i in range(len(MOVIELENS_GENRES))),
        genre_names=MOVIELENS_GENRES,
    )
    return RecommenderModel(
        prior=prior, phi=phi, catalogue=catalogue, separation=None, identification=None, source=RELEASED
    )


def _read(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected an object at the top level, got {type(data).__name__}")
    return data


def _field(obj: Any, key: str, kind: type, path: Path, where: str = "") -> Any:
    at = f" in {where}" if where else ""
    if not isinstance(obj, dict) or key not in obj:
        raise DataError(f"{path}: missing {key!r}{at}")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError(f"{path}: {key!r}{at} is {type(value).__name__}, expected {kind.__name__}")
    return value


def _prior(fitted: dict[str, Any], path: Path) -> tuple[float, ...]:
    prior = _field(fitted, "pi", list, path)
    if len(prior) != N_TYPES or fitted.get("n_types", N_TYPES) != N_TYPES:
        raise DataError(f"{path}: {len(prior)} types in 'pi'; the suite's probes ask about {N_TYPES} profiles")
    if not all(isinstance(p, (int, float)) and p > 0 for p in prior) or abs(sum(prior) - 1) > _SUM_TOLERANCE:
        raise DataError(f"{path}: 'pi' is not a distribution over the {N_TYPES} types")
    return tuple(float(p) for p in prior)


def _table(tables: dict[str, Any], movie: str, path: Path) -> tuple[tuple[float, ...], ...]:
    rows = tables.get(movie)
    if rows is None:
        raise DataError(f"{path}: no rating table ('theta') for movie {movie}")
    ok = isinstance(rows, list) and len(rows) == N_TYPES
    ok = ok and all(
        isinstance(r, list) and len(r) == len(RATINGS) and all(isinstance(p, (int, float)) and p > 0 for p in r)
        for r in rows
    )
    if not ok or any(abs(sum(r) - 1) > _SUM_TOLERANCE for r in rows):
        raise DataError(
            f"{path}: the table of movie {movie} is not {N_TYPES} distributions over {len(RATINGS)} ratings"
        )
    return tuple(tuple(float(p) for p in r) for r in rows)


def _same(rows: Any, table: tuple[tuple[float, ...], ...]) -> bool:
    try:
        return all(
            math.isclose(float(a), b, abs_tol=1e-12)
            for row, ref in zip(rows, table, strict=True)
            for a, b in zip(row, ref, strict=True)
        )
    except (TypeError, ValueError):
        return False


def _genres(genres: dict[str, Any], movie: str, path: Path) -> tuple[int, ...]:
    names = genres.get(movie)
    if not isinstance(names, list) or not names or any(g not in MOVIELENS_GENRES for g in names):
        raise DataError(f"{path}: movie {movie} has no MovieLens genres in 'movie_genres'")
    return tuple(MOVIELENS_GENRES.index(g) for g in names)


def _title(names: dict[str, Any], movie: str, path: Path) -> str:
    title = names.get(movie)
    if not isinstance(title, str) or not title.strip():
        raise DataError(f"{path}: movie {movie} has no name in 'movie_names'")
    return title.strip()
