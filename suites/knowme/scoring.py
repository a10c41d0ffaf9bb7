"""Deterministic scorers, one per gold kind, on the paper's rubric scales.

T1 entity F1 (0-1), T2 exact abstention, T3 durations, year gaps, real-time orders and
states on the released 0/3/5 bands, T4 Kendall tau mapped to the ordering rubric
(5 exact / 3 one swap / 2 major error / 1 reversed or hallucinated / 0 no answer; the
4 "weak reasoning" band needs a justification to read and is never given here), T5 cue
match on 0/3/5. `coverage_band` is the offline *approximate* stand-in for the Level III
rubric judge: it counts which core elements of the gold an answer mentions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    "a an the of and or to in on at for from with by as is are was were be been it its this that these those "
    "i me my we our you your he she his her they them their some any all one two three four five six very "
    "just also so than then there here what which who whom how why when where do did does done not no "
    "into about over under after before while because like".split()
)
#: words that name each sense, for reading the modality of a cue answer
MODALITY_WORDS = {
    "smell": ("smell", "scent", "odour", "odor", "aroma", "smelling"),
    "sound": ("sound", "hear", "heard", "hearing", "noise"),
    "sight": ("sight", "see", "seeing", "saw", "view", "look", "looking"),
    "taste": ("taste", "tasting", "flavour", "flavor"),
    "touch": ("touch", "feel", "feeling", "texture"),
}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b", re.I)
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS]


# --- T1: entities --------------------------------------------------------------------------


def split_entities(text: str) -> list[str]:
    """'a; b', 'a, b and c', 'A and B.' -> the entities, in order."""
    text = text.strip().rstrip(".")
    parts = text.split(";") if ";" in text else re.split(r",\s*|\s+and\s+", text)
    return [p.strip() for p in parts if content_words(p)]


def entity_match(answer: str, gold: str) -> bool:
    """The gold's head noun is named and at least half of its content words are."""
    gold_words, answer_words = content_words(gold), set(content_words(answer))
    if not gold_words:
        return False
    overlap = sum(w in answer_words for w in set(gold_words))
    return gold_words[-1] in answer_words and overlap * 2 >= len(set(gold_words))


def entity_f1(answer: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """(F1, precision, recall) with one-to-one greedy matching of answer to gold entities."""
    if not answer or not gold:
        return 0.0, 0.0, 0.0
    unmatched = list(gold)
    hits = 0
    for entity in answer:
        found = next((g for g in unmatched if entity_match(entity, g)), None)
        if found is not None:
            unmatched.remove(found)
            hits += 1
    precision, recall = hits / len(answer), hits / len(gold)
    f1 = 0.0 if hits == 0 else 2 * precision * recall / (precision + recall)
    return f1, precision, recall


# --- T3: durations, years, orders, states --------------------------------------------------


def parse_duration(text: str) -> int | None:
    """Seconds in '1 hour 5 minutes', '8 min 40 s', '2h'; None when no duration is written."""
    found = _DURATION.findall(text)
    if not found:
        return None
    return int(round(sum(float(value) * _UNIT_SECONDS[unit[0].lower()] for value, unit in found)))


def duration_band(answer_seconds: int | None, gold_seconds: int) -> int:
    """5 exact; 3 within 20% (a reasonable range); 0 otherwise."""
    if answer_seconds is None:
        return 0
    if answer_seconds == gold_seconds:
        return 5
    return 3 if abs(answer_seconds - gold_seconds) <= 0.2 * gold_seconds else 0


def parse_years(text: str) -> int | None:
    found = re.search(r"(\d+)\s*(?:whole\s+)?years?", text, re.I) or re.fullmatch(r"\s*(\d+)\s*\.?\s*", text)
    return int(found.group(1)) if found else None


def years_band(answer_years: int | None, gold_years: int) -> int:
    """5 exact; 3 off by one year; 0 otherwise."""
    if answer_years is None:
        return 0
    difference = abs(answer_years - gold_years)
    return 5 if difference == 0 else 3 if difference == 1 else 0


def parse_letters(text: str, allowed: str = "ABCD") -> list[str]:
    """Option letters in the order written, each once ('B > A > C', '(B), (A), (C)')."""
    out: list[str] = []
    for letter in re.findall(r"\b([A-Z])\b", text.upper()):
        if letter in allowed and letter not in out:
            out.append(letter)
    return out


def discordant_pairs(answer: Sequence[str], gold: Sequence[str]) -> int:
    position = {x: i for i, x in enumerate(answer)}
    return sum(position[a] > position[b] for a, b in combinations(gold, 2))


def kendall_tau(answer: Sequence[str], gold: Sequence[str]) -> float:
    """Tau between two orders of the same items (no ties)."""
    pairs = len(gold) * (len(gold) - 1) / 2
    return 1.0 - 2.0 * discordant_pairs(answer, gold) / pairs


def order_band(answer: Sequence[str], gold: Sequence[str]) -> int:
    """Real-time order on the 0/3/5 scale: 5 exact; 3 one adjacent swap; 0 otherwise."""
    if list(answer) == list(gold):
        return 5
    if sorted(answer) == sorted(gold) and len(gold) > 2 and discordant_pairs(answer, gold) == 1:
        return 3
    return 0


def kendall_band(answer: Sequence[str], gold: Sequence[str]) -> tuple[int, float | None]:
    """The ordering rubric from Kendall tau: (band, tau or None when not a full ranking)."""
    if not answer:
        return 0, None
    if any(x not in gold for x in answer):
        return 1, None
    if len(answer) != len(gold):
        return 2, None
    tau = kendall_tau(answer, gold)
    if tau == 1.0:
        return 5, tau
    if discordant_pairs(answer, gold) == 1:
        return 3, tau
    return (1 if tau == -1.0 else 2), tau


def mentions(answer: str, phrase: str) -> bool:
    """Every content word of `phrase` is in `answer` (case-insensitive)."""
    wanted = content_words(phrase) or words(phrase)
    have = set(words(answer))
    return bool(wanted) and all(w in have for w in wanted)


def state_band(answer: str, value: str, other: str) -> int:
    """5 the right state; 3 the right state mixed with the other one; 0 otherwise."""
    if not mentions(answer, value):
        return 0
    return 3 if mentions(answer, other) else 5


# --- T5: cues ------------------------------------------------------------------------------


def modalities(answer: str) -> set[str]:
    have = set(words(answer))
    return {m for m, names in MODALITY_WORDS.items() if have.intersection(names)}


def cue_band(answer: str, cue: str, modality: str, distractors: Sequence[str]) -> int:
    """5 the cue alone (its sense right or unstated); 3 the cue with noise (other cues of the
    scene, or the wrong sense); 0 otherwise."""
    if not mentions(answer, cue):
        return 0
    noisy = any(mentions(answer, d) for d in distractors)
    senses = modalities(answer)
    wrong_sense = bool(senses) and modality not in senses
    return 3 if noisy or wrong_sense else 5


# --- T6/T7 offline: approximate coverage ---------------------------------------------------


def hits(answer: str, alternatives: Sequence[str]) -> bool:
    """Whether any alternative is in the answer (a multi-word one as a phrase, a word as a
    prefix of an answer word: 'laugh' finds 'laughing')."""
    have = words(answer)
    for alternative in alternatives:
        parts = words(alternative)
        if len(parts) > 1 and " ".join(parts) in " ".join(have):
            return True
        if len(parts) == 1 and any(w.startswith(parts[0]) for w in have):
            return True
    return False


def coverage_band(answer: str, core: Sequence[Sequence[str]], rubric: str) -> int:
    """The Level III rubric approximated from which core elements an answer names.

    mind_body core = (outward behaviour, inner state, metaphor): 5 inner state and its
    metaphor; 4 inner and outward, literal; 3 inner state only (generic); 2 behaviour only
    (misses the inner dimension); 1 none of them.
    principle core = (principle, metaphor, origin): 5 all three; 4 principle and origin;
    3 the principle alone (or with its metaphor); 2 origin or metaphor without the principle;
    1 none of them. An empty answer is 0.
    """
    if not answer.strip():
        return 0
    first, second, third = (hits(answer, group) for group in core)
    if rubric == "mind_body":
        outward, inner, metaphor = first, second, third
        return 5 if inner and metaphor else 4 if inner and outward else 3 if inner else 2 if outward else 1
    principle, metaphor, origin = first, second, third
    if principle:
        return 5 if origin and metaphor else 4 if origin else 3
    return 2 if origin or metaphor else 1


def text_coverage_band(answer: str, reference: str) -> int:
    """For released golds with no core elements: the share of the reference's content words
    the answer contains, in bands (>= .6: 5, .45: 4, .3: 3, .15: 2, else 1; empty: 0)."""
    if not answer.strip():
        return 0
    wanted = set(content_words(reference))
    if not wanted:
        return 1
    share = len(wanted & set(content_words(answer))) / len(wanted)
    for threshold, band in ((0.6, 5), (0.45, 4), (0.3, 3), (0.15, 2)):
        if share >= threshold:
            return band
    return 1
