"""Every text the suite writes to memory or puts in a probe, in the paper's wording (App. B.1, C.1).

Stored texts name observations only: no true parameter, trial or episode id.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memeval.types import Message

from .environments import Catalogue

ACK = "Noted."
COIN_PROBE = "Predict the next flip."
COIN_OUTCOMES = ("heads", "tails")
COIN_TASKS = {
    "unspecified": "You are predicting coin flips.",
    "unknown_bias": "You are predicting flips of a coin with an unknown bias.",
    "fair": "You are predicting flips of a fair coin.",
}
RATING_OUTCOMES = ("1 star (terrible)", "2 stars (bad)", "3 stars (okay)", "4 stars (good)", "5 stars (great)")


def profile_name(user_type: int) -> str:
    return f"Profile {user_type + 1}"


# --- coin -----------------------------------------------------------------------------------


def flip_word(heads: bool) -> str:
    return "heads" if heads else "tails"


def coin_observation(flips: Sequence[bool], first: int, obs: str) -> str:
    """One stored observation or batch; `first` is the 1-based index of its first flip."""
    words = ", ".join(flip_word(f) for f in flips)
    if len(flips) == 1:
        return f"Flip #{first} was {words}" if obs == "indexed" else f"The flip was: {words}"
    if obs == "indexed":
        return f"Flips #{first}-#{first + len(flips) - 1} were: {words}"
    return f"The next {len(flips)} flips were: {words}"


def coin_inline(flips: Sequence[bool]) -> str:
    """Single-turn delivery: the whole history in the probe (paper B.1.2)."""
    return f"Previous flips: [{', '.join(flip_word(f) for f in flips)}]" if flips else ""


def coin_pending(flips: Sequence[bool]) -> str:
    """Flips of a batch not yet written to memory (paper B.1.4, 'poll during partial batch')."""
    return f"So far in this batch: {', '.join(flip_word(f) for f in flips)}" if flips else ""


def coin_totals(flips: Sequence[bool]) -> str:
    """The paper's running totals (B.1.2, B.1.3); none before the first flip, as there."""
    if not flips:
        return ""
    heads = sum(flips)
    return f"Total: {heads} heads, {len(flips) - heads} tails."


# --- recommender ----------------------------------------------------------------------------


def stars(rating: int) -> str:
    return f"{rating} star" if rating == 1 else f"{rating} stars"


def rating_observation(catalogue: Catalogue, item: int, rating: int, explicit: bool) -> str:
    return f"The user rated {catalogue.label(item, explicit)}: {stars(rating)}"


def rating_inline(catalogue: Catalogue, ratings: Sequence[tuple[int, int]], explicit: bool) -> str:
    """Single-turn delivery: the rating history in the probe (paper C.1.3)."""
    if not ratings:
        return ""
    lines = [f"- {catalogue.label(m, explicit)}: {stars(r)}" for m, r in ratings]
    return "The user's ratings so far:\n" + "\n".join(lines)


def rating_totals(ratings: Sequence[tuple[int, int]], explicit: bool) -> str:
    """The paper's running totals (C.1.3); none before the first rating."""
    noun = "movies" if explicit else "items"
    if not ratings:
        return ""
    average = sum(r for _, r in ratings) / len(ratings)
    return f"Average rating: {average:.1f} ({len(ratings)} {noun} rated)."


def rating_question(catalogue: Catalogue, target: int, explicit: bool) -> str:
    return f"What rating will this user give {catalogue.label(target, explicit)}?"


def type_question(explicit: bool) -> str:
    return f"Which {'viewer profile' if explicit else 'profile'} does this user most closely match?"


def type_hint(user_type: int) -> str:
    return f"Based on their rating history, this user most closely matches {profile_name(user_type)}."


# --- sessions -------------------------------------------------------------------------------


def session(reply: str, observation: str) -> tuple[Message, ...]:
    """One stored turn: the assistant's reply to the previous turn, then the new evidence
    (the paper's conversation order: '... Assistant: Noted. / User: The flip was: heads')."""
    return (Message("assistant", reply), Message("user", observation))
