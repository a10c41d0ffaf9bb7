"""The public vocabulary of the behavior suite: ten principles, their behaviours, situations.

Every synthetic subject is written with these words, and the offline reader and judge
read with them, as a language model reads with what it knows of people in general. Nothing
here is specific to a subject: which pole a subject holds, how strongly, and which of the
three behaviours of that pole they favour is latent (see `subjects`).

One principle ("axis") per question category of the paper (App. B.1). Pole 0 is the
common way, what most people would do; pole 1 the less common one. Situations come in
two sets: those the training half narrates and the held-out ones the questions ask about
(a held-out situation has a narrative form for the gold passage and a reworded form for
the question, so that no seven-word run of the passage appears in the question). A
held-out situation with `norm` has a common-sense expectation (pole 0, first behaviour),
which a reader with no context may fall back on; the others it cannot guess at.
"""

from __future__ import annotations

from . import axes_fortune, axes_people
from .shapes import Axis, HeldOut, Pole

__all__ = [
    "AXES",
    "AXIS_OF_CATEGORY",
    "CATEGORIES",
    "EXCEPTION_REFLECTION",
    "FILLERS",
    "OPENERS",
    "Axis",
    "HeldOut",
    "Pole",
]

AXES: tuple[Axis, ...] = axes_people.AXES + axes_fortune.AXES

CATEGORIES: tuple[str, ...] = tuple(axis.category for axis in AXES)
AXIS_OF_CATEGORY: dict[str, int] = {axis.category: i for i, axis in enumerate(AXES)}

#: what the subject says after acting against their own principle
EXCEPTION_REFLECTION = "It was not like me, and I still wonder why I did it."

#: openers of a story (no names, no dates)
OPENERS: tuple[str, ...] = (
    "When I was still young,",
    "Soon after my marriage,",
    "During a long wet spring,",
    "In my middle years,",
    "The winter the river froze,",
    "Not long after we moved house,",
    "One autumn,",
    "In the year the old mill burned,",
    "When the children were small,",
    "Late in my working life,",
)

#: biographical sentences of the training half and the facts extracted from them
FILLERS: tuple[tuple[str, str, str], ...] = (
    ("I grew up in a stone house by the river.", "raised_in", "a stone house by the river"),
    ("My mother brought me up after my father went to sea.", "raised_by", "the mother, after the father went to sea"),
    ("For years I kept bees at the bottom of the garden.", "practices", "beekeeping at the bottom of the garden"),
    ("I went to the village school until I was twelve.", "attended", "the village school until the age of twelve"),
    ("On Sundays I played the organ at chapel.", "plays", "the organ at chapel on Sundays"),
    ("I married a miller's daughter from the next valley.", "married_to", "a miller's daughter from the next valley"),
    ("We lived for a time above a baker's shop.", "lives_in", "rooms above a baker's shop"),
    ("I have always been fond of long evening walks.", "enjoys", "long evening walks"),
    ("I worked for some years at the county bank.", "works_at", "the county bank"),
    ("I came to love the moors above the town.", "loves", "the moors above the town"),
    ("I owned a small orchard for most of my life.", "owns", "a small orchard"),
    ("Old maps have interested me since childhood.", "interested_in", "old maps"),
    ("The village schoolmaster was my closest friend.", "friends_with", "the village schoolmaster"),
    ("I studied the stars through a borrowed telescope.", "studies", "the stars, through a borrowed telescope"),
    ("I never liked the noise of the town.", "dislikes", "the noise of the town"),
    ("My brother and I built a boat together one summer.", "builds", "a boat, with a brother, one summer"),
)
