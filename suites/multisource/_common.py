"""Calendar, time arithmetic and the per-stream random generator shared by the DGP layers."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import TypeVar

import numpy as np

T = TypeVar("T")

NUM_DAYS = 30
START_DATE = date(2026, 1, 3)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

#: (date "YYYY-MM-DD", weekday name, is_weekend) for day_index 1..30
DAYS: tuple[tuple[str, str, bool], ...] = tuple(
    (
        (START_DATE + timedelta(days=i)).isoformat(),
        WEEKDAYS[(START_DATE + timedelta(days=i)).weekday()],
        (START_DATE + timedelta(days=i)).weekday() >= 5,
    )
    for i in range(NUM_DAYS)
)
DATE_TO_INDEX: dict[str, int] = {d: i + 1 for i, (d, _, _) in enumerate(DAYS)}

SCHEMA_VERSION = "v2.source_projection"
SOURCE_NAMES = ("profile_ltm", "planner", "daily_self_report", "objective_log", "device_log")


def weekday_of(iso: str) -> str:
    y, m, d = (int(p) for p in iso.split("-"))
    return WEEKDAYS[date(y, m, d).weekday()]


def is_weekend(iso: str) -> bool:
    return weekday_of(iso) in ("saturday", "sunday")


def clamp(value: float, lo: float, hi: float) -> float:
    return lo if value < lo else hi if value > hi else value


def hhmm_to_min(text: str, *, bedtime: bool = False) -> int:
    """'HH:MM' -> minutes; in bedtime mode times before noon count as after midnight."""
    h, m = text.split(":")
    minutes = int(h) * 60 + int(m)
    if bedtime and minutes < 720:
        minutes += 1440
    return minutes


def min_to_hhmm(minutes: int) -> str:
    minutes = int(minutes) % 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Rng:
    """A fast scalar random stream built only on ``random.random()``.

    CPython guarantees the ``random()`` sequence of an int-seeded Mersenne Twister across
    versions, so every draw here (uniforms, integers, normals, choices) is reproducible
    everywhere. The seed comes from a numpy SeedSequence keyed by (seed, persona, stream),
    which makes every persona and every source stream independently regenerable.
    """

    __slots__ = ("random",)

    def __init__(self, seed: int, *key: int) -> None:
        words = np.random.SeedSequence(entropy=seed, spawn_key=key).generate_state(4, np.uint32)
        self.random = random.Random(int.from_bytes(words.tobytes(), "little")).random

    def uniform(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self.random()

    def integers(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi) like numpy's ``integers``."""
        return lo + int(self.random() * (hi - lo))

    def normal(self, mean: float, sd: float) -> float:
        u1 = self.random()
        u2 = self.random()
        return mean + sd * math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[int(self.random() * len(seq))]

    def weighted(self, seq: Sequence[T], weights: Sequence[float]) -> T:
        u = self.random() * sum(weights)
        acc = 0.0
        for item, w in zip(seq, weights):
            acc += w
            if u < acc:
                return item
        return seq[-1]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """k distinct elements in draw order (partial Fisher-Yates)."""
        pool = list(seq)
        out = []
        for i in range(k):
            j = i + int(self.random() * (len(pool) - i))
            pool[i], pool[j] = pool[j], pool[i]
            out.append(pool[i])
        return out

    def chance(self, p: float) -> bool:
        return self.random() < p


def stream_seed(seed: int, *key: int) -> int:
    """A 32-bit seed for metadata, from the same SeedSequence scheme as ``Rng``."""
    return int(np.random.SeedSequence(entropy=seed, spawn_key=key).generate_state(1, np.uint32)[0])
