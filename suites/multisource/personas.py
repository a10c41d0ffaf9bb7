"""L1 personas: identity, traits and behavioural parameters for the three difficulty classes.

The value ranges follow the paper's public generator so that the label and source-atom
distributions (and hence the fusion baselines) match the released benchmark.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ._common import WEEKDAYS, Rng, clamp

PERSONAS_PER_DIFFICULTY = 160
DIFFICULTIES = ("stable", "temporal_shift", "stated_vs_revealed")
ID_PREFIX = {"stable": "stable", "temporal_shift": "shift", "stated_vs_revealed": "stated"}
PREFIX_TO_DIFFICULTY = {v: k for k, v in ID_PREFIX.items()}
#: Our personas live in their own id namespace. `gen_stable_017_avery_adams` of a seed is
#: not the release's `bench_stable_017_avery_adams` of that seed: same number and name, but
#: drawn by our generator from the same process, so a different person.
GENERATED_NAMESPACE = "gen"
RELEASED_NAMESPACE = "bench"

FIRST_NAMES = (
    "Avery Jordan Taylor Morgan Casey Riley Quinn Cameron Parker Reese Alex Maya Logan Skyler "
    "Harper Elliot Sage Rowan Blake Emerson Drew Jules Noah Leah Miles Nina Evan Priya Owen "
    "Lena Caleb Sofia Julian Naomi Isaac Mila Theo Aisha Leo Clara Felix Tessa Micah Zoe "
    "Adrian Ivy Simon Elena Omar Hazel Sam Ruby Aria Jonah Luca Maeve Nora Ezra Maren Kai "
    "Vera Liam Dahlia Milo Jasper Cora Rohan Amelia Kira Sebastian"
).split()
LAST_NAMES = (
    "Adams Bennett Carter Diaz Ellis Foster Garcia Hayes Iqbal Jenkins Kim Lopez Morgan "
    "Nguyen Owens Patel Quintero Ramirez Singh Turner Underwood Vasquez Walker Xu Young "
    "Zimmerman Brooks Campbell Davis Edwards Flores Griffin Howard Ivanov Jackson Khan "
    "Larson Mitchell Nakamura Ortiz"
).split()
OCCUPATIONS = (
    "software engineer",
    "teacher",
    "marketing manager",
    "product designer",
    "nurse",
    "financial analyst",
    "graduate student",
    "freelance writer",
    "architect",
    "physical therapist",
    "project manager",
    "chef",
    "accountant",
    "graphic designer",
    "data analyst",
    "sales manager",
    "research assistant",
    "operations specialist",
    "customer success manager",
    "UX researcher",
)
WORK_HEAVY = frozenset(
    {
        "software engineer",
        "product designer",
        "project manager",
        "operations specialist",
        "marketing manager",
        "financial analyst",
    }
)
CITIES = (
    "Austin, TX",
    "Chicago, IL",
    "Portland, OR",
    "Seattle, WA",
    "Boston, MA",
    "Denver, CO",
    "Atlanta, GA",
    "San Diego, CA",
    "Minneapolis, MN",
    "Philadelphia, PA",
    "Nashville, TN",
    "Charlotte, NC",
    "Phoenix, AZ",
    "Madison, WI",
    "Brooklyn, NY",
    "Columbus, OH",
    "Ann Arbor, MI",
    "Raleigh, NC",
    "Pittsburgh, PA",
    "Salt Lake City, UT",
)
DIETS = (("none", 0.55), ("vegetarian", 0.15), ("vegan", 0.10), ("low-carb", 0.10), ("gluten-free", 0.10))
SOCIAL_PREFS = (("in person", 0.60), ("online", 0.15), ("no preference", 0.25))
SOCIAL_POOL = (
    "dinner with friends",
    "coffee with a colleague",
    "family brunch",
    "book club",
    "board game night",
    "pickup basketball",
    "bar trivia",
    "group hike",
    "birthday dinner",
    "video call with friends",
    "coworking session",
    "art gallery opening",
    "live music night",
    "church gathering",
    "neighborhood walk",
)
EXERCISES = (
    "running",
    "cycling",
    "yoga",
    "pilates",
    "strength training",
    "swimming",
    "walking",
    "dance",
    "hiking",
    "boxing",
)
RELAXATION = (
    "reading",
    "gaming",
    "watching TV",
    "meditation",
    "journaling",
    "podcasts",
    "stretching",
    "cooking",
    "music",
    "sketching",
    "gardening",
    "documentaries",
)

# id, description, then deltas/multipliers: sleep, quality, exercise x, fast food,
# coffee, work hours, overtime, weekend work, social x, mood, stress
_SCENARIO_KEYS = (
    "sleep_delta",
    "quality_delta",
    "exercise_multiplier",
    "diet_fast_food_boost",
    "coffee_delta",
    "work_hours_delta",
    "overtime_boost",
    "weekend_work_boost",
    "social_multiplier",
    "mood_delta",
    "stress_boost",
)
SHIFT_SCENARIOS: tuple[dict[str, Any], ...] = tuple(
    {"id": sid, "event_description": desc, **dict(zip(_SCENARIO_KEYS, vals))}
    for sid, desc, vals in (
        (
            "promotion_crunch",
            "Got promoted into a deadline-heavy leadership role",
            (-1.5, -1.5, 0.4, 0.35, 1.5, 2.5, 0.45, 0.35, 0.35, -1.0, 0.35),
        ),
        (
            "family_caregiving",
            "Started helping with intensive family caregiving responsibilities",
            (-1.2, -1.2, 0.5, 0.20, 1.0, 1.0, 0.20, 0.10, 0.45, -0.8, 0.25),
        ),
        (
            "wellness_reset",
            "Committed to a structured wellness reset after a stressful quarter",
            (0.8, 0.8, 1.7, -0.15, -0.5, -0.5, -0.10, -0.10, 0.9, 0.8, -0.20),
        ),
        (
            "launch_crunch",
            "Took on a compressed launch cycle for a major client project",
            (-1.0, -1.0, 0.5, 0.25, 1.0, 3.0, 0.50, 0.40, 0.3, -1.2, 0.40),
        ),
        (
            "new_relationship",
            "Started a new romantic relationship and social life expanded",
            (-0.5, 0.3, 0.7, 0.15, 0.3, -0.5, -0.05, -0.05, 1.6, 0.8, -0.10),
        ),
        (
            "health_scare",
            "Received a health scare and overhauled daily habits",
            (1.0, 0.5, 1.5, -0.25, -1.0, -1.0, -0.10, -0.10, 0.8, -0.5, 0.15),
        ),
        (
            "relocation",
            "Relocated to a new city for a partner's job",
            (-0.6, -0.5, 0.6, 0.20, 0.5, 0.5, 0.10, 0.05, 0.4, -0.6, 0.20),
        ),
        (
            "burnout_recovery",
            "Hit burnout wall and drastically reduced commitments",
            (1.2, 0.6, 0.8, 0.10, -0.3, -2.0, -0.15, -0.10, 0.5, 0.3, -0.15),
        ),
    )
)

STATED_SOCIAL = (
    "I'm pretty introverted and usually prefer quiet evenings at home.",
    "I don't socialize that much and mostly keep to myself during the week.",
)
STATED_MOOD = "I'm generally balanced, low-stress, and pretty satisfied with my routines."


@dataclass(frozen=True)
class PersonaSpec:
    """The private L1 record of one persona (never shown to a system under test)."""

    persona_id: str
    name: str
    seed: int
    index: int  # 0..479 over the whole seed
    difficulty: str
    identity: dict[str, Any]  # age, gender, occupation, relationship, city
    traits: dict[str, Any]  # dietary_restriction, social_preference, close_friends, primary_exercise
    params: dict[str, dict[str, Any]]  # behaviour from day 1 (pre-shift for shift personas)
    semantic: dict[str, Any]  # context/attribution probabilities used by L2
    shift: dict[str, Any] | None = None  # scenario id, shift_day, description, params
    stated: dict[str, Any] | None = None  # stated descriptions, missing_day_prob

    def params_on(self, day_index: int) -> dict[str, dict[str, Any]]:
        if self.shift is not None and day_index >= self.shift["shift_day"]:
            return self.shift["params"]
        return self.params


def persona_name(index: int) -> str:
    return f"{FIRST_NAMES[index % len(FIRST_NAMES)]} {LAST_NAMES[(index // len(FIRST_NAMES)) % len(LAST_NAMES)]}"


def persona_id(index: int) -> str:
    difficulty = DIFFICULTIES[index // PERSONAS_PER_DIFFICULTY]
    number = index % PERSONAS_PER_DIFFICULTY + 1
    slug = persona_name(index).lower().replace(" ", "_")
    return f"{GENERATED_NAMESPACE}_{ID_PREFIX[difficulty]}_{number:03d}_{slug}"


def _u(rng: Rng, lo: float, hi: float, nd: int = 2) -> float:
    return round(rng.uniform(lo, hi), nd)


def _preferred_days(rng: Rng, days_per_week: float) -> list[str]:
    k = max(1, min(6, int(round(days_per_week))))
    return [WEEKDAYS[i] for i in sorted(rng.sample(range(7), k))]


def _stable_params(rng: Rng, exercise: str) -> dict[str, dict[str, Any]]:
    dpw = rng.choice((2, 3, 4, 5))
    return {
        "sleep": dict(
            bedtime_mean=rng.choice(("22:15", "22:30", "23:00", "23:15", "23:30")),
            bedtime_std_min=rng.choice((15, 20, 25, 30)),
            duration_mean_h=_u(rng, 6.8, 8.0, 1),
            duration_std_h=_u(rng, 0.2, 0.5, 1),
            quality_mean=rng.choice((3.5, 4.0, 4.2)),
            quality_std=_u(rng, 0.3, 0.6, 1),
            trouble_falling_asleep_prob=_u(rng, 0.03, 0.12),
            screen_before_bed_prob=_u(rng, 0.20, 0.70),
        ),
        "exercise": dict(
            days_per_week=dpw,
            preferred_days=_preferred_days(rng, dpw),
            type=exercise,
            duration_mean_min=rng.choice((30, 40, 45, 50, 60)),
            duration_std_min=rng.choice((8, 10, 12, 15)),
            skip_prob=_u(rng, 0.05, 0.15),
        ),
        "diet": dict(
            meals_per_day=rng.choice((3.0, 3.0, 3.0, 2.5)),
            home_cook_prob=_u(rng, 0.55, 0.80),
            fast_food_prob=_u(rng, 0.05, 0.20),
            coffee_cups_mean=_u(rng, 0.5, 2.5, 1),
            coffee_cups_std=_u(rng, 0.3, 0.8, 1),
        ),
        "work": dict(
            hours_mean=_u(rng, 7.5, 9.0, 1),
            hours_std=_u(rng, 0.4, 0.8, 1),
            overtime_prob=_u(rng, 0.05, 0.18),
            weekend_work_prob=_u(rng, 0.02, 0.12),
            stress_prob=_u(rng, 0.08, 0.18),
        ),
        "social": dict(
            meetup_prob_per_day=_u(rng, 0.20, 0.38),
            weekend_social_boost=_u(rng, 0.15, 0.35),
            social_activities=rng.sample(SOCIAL_POOL, 4),
        ),
        "mood": dict(
            overall_mean=_u(rng, 3.6, 4.4, 1),
            overall_std=_u(rng, 0.3, 0.7, 1),
            stress_prob=_u(rng, 0.08, 0.18),
            energy_mean=_u(rng, 3.4, 4.4, 1),
            energy_std=_u(rng, 0.3, 0.7, 1),
            relaxation_prob=_u(rng, 0.35, 0.65),
            relaxation_activities=rng.sample(RELAXATION, 3),
        ),
    }


def _revealed_params(rng: Rng, exercise: str) -> dict[str, dict[str, Any]]:
    """Actual behaviour of a stated-vs-revealed persona: worse than the stated profile."""
    dpw = rng.choice((0.5, 1.0, 1.5, 2.0, 3.0))
    return {
        "sleep": dict(
            bedtime_mean=rng.choice(("23:45", "00:00", "00:30", "01:00")),
            bedtime_std_min=rng.choice((30, 40, 45, 60)),
            duration_mean_h=_u(rng, 5.5, 7.0, 1),
            duration_std_h=_u(rng, 0.6, 1.1, 1),
            quality_mean=_u(rng, 2.5, 3.5, 1),
            quality_std=_u(rng, 0.8, 1.1, 1),
            trouble_falling_asleep_prob=_u(rng, 0.20, 0.45),
            screen_before_bed_prob=_u(rng, 0.55, 0.90),
        ),
        "exercise": dict(
            days_per_week=dpw,
            preferred_days=_preferred_days(rng, dpw) if dpw >= 1.0 else None,
            type=exercise,
            duration_mean_min=rng.choice((20, 25, 30, 35, 40)),
            duration_std_min=rng.choice((10, 12, 15, 18)),
            skip_prob=_u(rng, 0.25, 0.55),
        ),
        "diet": dict(
            meals_per_day=rng.choice((2.0, 2.5, 3.0)),
            home_cook_prob=_u(rng, 0.20, 0.45),
            fast_food_prob=_u(rng, 0.25, 0.50),
            coffee_cups_mean=_u(rng, 2.0, 4.0, 1),
            coffee_cups_std=_u(rng, 0.6, 1.2, 1),
        ),
        "work": dict(
            hours_mean=_u(rng, 6.0, 8.5, 1),
            hours_std=_u(rng, 1.5, 3.0, 1),
            overtime_prob=_u(rng, 0.12, 0.35),
            weekend_work_prob=_u(rng, 0.12, 0.35),
            stress_prob=_u(rng, 0.25, 0.50),
        ),
        "social": dict(
            meetup_prob_per_day=_u(rng, 0.25, 0.50),
            weekend_social_boost=_u(rng, 0.15, 0.30),
            social_activities=rng.sample(SOCIAL_POOL, 4) + [rng.choice(("late-night drinks", "networking meetup"))],
        ),
        "mood": dict(
            overall_mean=_u(rng, 2.5, 3.5, 1),
            overall_std=_u(rng, 0.8, 1.1, 1),
            stress_prob=_u(rng, 0.25, 0.50),
            energy_mean=_u(rng, 2.2, 3.4, 1),
            energy_std=_u(rng, 0.8, 1.1, 1),
            relaxation_prob=_u(rng, 0.20, 0.45),
            relaxation_activities=rng.sample(RELAXATION, 3),
        ),
    }


def _shifted(base: dict[str, dict[str, Any]], sc: dict[str, Any], rng: Rng) -> dict[str, dict[str, Any]]:
    p = copy.deepcopy(base)
    s, e, d, w, so, m = (p[k] for k in ("sleep", "exercise", "diet", "work", "social", "mood"))
    bs, be, bd, bw, bso, bm = (base[k] for k in ("sleep", "exercise", "diet", "work", "social", "mood"))
    stress_up = max(0.0, sc["stress_boost"])
    s["duration_mean_h"] = round(clamp(bs["duration_mean_h"] + sc["sleep_delta"], 4.5, 9.0), 1)
    s["quality_mean"] = round(clamp(bs["quality_mean"] + sc["quality_delta"], 1.5, 5.0), 1)
    s["bedtime_mean"] = rng.choice(
        ("00:00", "00:30", "01:00") if sc["sleep_delta"] < 0 else ("21:45", "22:00", "22:15")
    )
    s["trouble_falling_asleep_prob"] = round(clamp(bs["trouble_falling_asleep_prob"] + stress_up, 0.02, 0.75), 2)
    s["screen_before_bed_prob"] = round(clamp(bs["screen_before_bed_prob"] + stress_up, 0.10, 0.95), 2)

    mult = sc["exercise_multiplier"]
    e["days_per_week"] = round(clamp(be["days_per_week"] * mult, 0.5, 6.0), 1)
    e["preferred_days"] = _preferred_days(rng, max(1.0, e["days_per_week"]))
    e["duration_mean_min"] = int(clamp(be["duration_mean_min"] * mult, 15, 80))
    e["skip_prob"] = round(clamp(be["skip_prob"] + (0.20 if mult < 1.0 else -0.05), 0.02, 0.75), 2)

    ff = sc["diet_fast_food_boost"]
    d["fast_food_prob"] = round(clamp(bd["fast_food_prob"] + ff, 0.02, 0.75), 2)
    d["home_cook_prob"] = round(clamp(bd["home_cook_prob"] - ff, 0.05, 0.90), 2)
    d["coffee_cups_mean"] = round(clamp(bd["coffee_cups_mean"] + sc["coffee_delta"], 0.0, 5.0), 1)

    w["hours_mean"] = round(clamp(bw["hours_mean"] + sc["work_hours_delta"], 4.0, 12.5), 1)
    w["overtime_prob"] = round(clamp(bw["overtime_prob"] + sc["overtime_boost"], 0.02, 0.90), 2)
    w["weekend_work_prob"] = round(clamp(bw["weekend_work_prob"] + sc["weekend_work_boost"], 0.02, 0.85), 2)
    w["stress_prob"] = round(clamp(bw["stress_prob"] + sc["stress_boost"], 0.02, 0.90), 2)

    so["meetup_prob_per_day"] = round(clamp(bso["meetup_prob_per_day"] * sc["social_multiplier"], 0.02, 0.60), 2)
    so["weekend_social_boost"] = round(clamp(bso["weekend_social_boost"] * sc["social_multiplier"], 0.02, 0.40), 2)

    m["overall_mean"] = round(clamp(bm["overall_mean"] + sc["mood_delta"], 1.5, 5.0), 1)
    m["stress_prob"] = round(clamp(bm["stress_prob"] + sc["stress_boost"], 0.02, 0.90), 2)
    m["energy_mean"] = round(clamp(bm["energy_mean"] + sc["mood_delta"], 1.5, 5.0), 1)
    if sc["mood_delta"] < 0:
        m["relaxation_prob"] = round(clamp(bm["relaxation_prob"] - 0.15, 0.05, 0.80), 2)
        m["relaxation_activities"] = ["scrolling phone", "watching TV", rng.choice(RELAXATION)]
    else:
        m["relaxation_prob"] = round(clamp(bm["relaxation_prob"] + 0.10, 0.05, 0.80), 2)
    return p


# (for-others order prob, self meat baseline, self meat on exception) ranges per class
_SEMANTIC_RANGES = {
    "stable": ((0.12, 0.32), (0.02, 0.14), (0.12, 0.34)),
    "temporal_shift": ((0.22, 0.45), (0.08, 0.20), (0.22, 0.48)),
    "stated_vs_revealed": ((0.30, 0.58), (0.12, 0.28), (0.35, 0.62)),
}


def _semantic(rng: Rng, difficulty: str, occupation: str) -> dict[str, Any]:
    contexts = [
        c
        for c, p in (
            ("social", 0.72),
            ("travel", 0.46),
            ("work_stress", 0.58 if occupation in WORK_HEAVY else 0.36),
            ("weekend", 0.34),
        )
        if rng.chance(p)
    ]
    if not contexts:
        contexts = [rng.choice(("social", "travel", "work_stress", "weekend"))]
    others, base_meat, exc_meat = _SEMANTIC_RANGES[difficulty]
    return {
        "exception_contexts": sorted(contexts),
        "for_others_food_order_prob": _u(rng, *others),
        "shared_order_prob": _u(rng, 0.14, 0.36),
        "self_meat_baseline_prob": _u(rng, *base_meat),
        "self_meat_on_exception_prob": _u(rng, *exc_meat),
        "takeout_on_stress_prob": _u(rng, 0.32, 0.62),
        "obligation_social_prob": _u(rng, 0.05, 0.90),
        "afterhours_for_self_prob": _u(rng, 0.12, 0.34),
    }


def sample_persona(seed: int, index: int, rng: Rng) -> PersonaSpec:
    """Draw the L1 record of persona ``index`` (0..479) from its own stream ``rng``."""
    difficulty = DIFFICULTIES[index // PERSONAS_PER_DIFFICULTY]
    exercise = rng.choice(EXERCISES)
    identity: dict[str, Any] = {
        "age": rng.integers(24, 47),
        "gender": rng.choice(("female", "male", "non-binary")),
        "occupation": rng.choice(OCCUPATIONS),
        "relationship": rng.choice(("single", "in a relationship", "married")),
        "city": rng.choice(CITIES),
    }
    traits = {
        "dietary_restriction": rng.weighted([d for d, _ in DIETS], [w for _, w in DIETS]),
        "social_preference": rng.weighted([s for s, _ in SOCIAL_PREFS], [w for _, w in SOCIAL_PREFS]),
        "close_friends": rng.integers(3, 11),
        "primary_exercise": exercise,
    }
    shift = stated = None
    if difficulty == "stated_vs_revealed":
        params = _revealed_params(rng, exercise)
        days = params["exercise"]["preferred_days"] or ["weekdays"]
        stated = {
            "sleep_description": "I'm an early riser and usually asleep by 10:30pm so I can get a full 8 hours.",
            "exercise_description": f"I work out almost every morning, usually {exercise} on "
            + ", ".join(x.capitalize() for x in days[:3])
            + ".",
            "social_description": rng.choice(STATED_SOCIAL),
            "mood_description": STATED_MOOD,
            "missing_day_prob": _u(rng, 0.03, 0.08),
        }
    else:
        params = _stable_params(rng, exercise)
        if difficulty == "temporal_shift":
            scenario = rng.choice(SHIFT_SCENARIOS)
            shift_day = rng.integers(10, 21)
            shift = {
                "scenario": scenario["id"],
                "shift_day": shift_day,
                "event_description": scenario["event_description"],
                "params": _shifted(params, scenario, rng),
            }
    return PersonaSpec(
        persona_id=persona_id(index),
        name=persona_name(index),
        seed=seed,
        index=index,
        difficulty=difficulty,
        identity=identity,
        traits=traits,
        params=params,
        semantic=_semantic(rng, difficulty, identity["occupation"]),
        shift=shift,
        stated=stated,
    )
