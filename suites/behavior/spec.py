"""The author and compose steps offline: a Behavioral Specification from the facts alone.

Layers as in the paper (section 3.7): anchors (numbered axioms, ranked, with "Active when"
and a false-positive warning), core (values and self-view in prose), predictions (P1..
with detection, directive and false positive) and a brief composed over them. Every
layer is computed from the extracted facts of the training half, never from the
held-out half or the latent principles:

- an anchor holds the pole most of the recorded decisions on a principle took (a tie
  gives no anchor: the record does not say);
- anchors are ranked by the priorities the facts record (each principle scores +1 per
  principle it beat more often than it lost to), then by how consistently the decisions
  followed the pole, then by how many there were;
- a prediction names the behaviour most decisions of the anchor's pole used, when at
  least two did and no other behaviour was as frequent;
- the brief ranks the principles and states each recorded priority.

The text is anonymous (no name, as the paper anonymises specifications) so that a wrong
specification cannot be recognised by a name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .facts import Fact
from .lexicon import AXES

#: decisions of one behaviour needed before the specification predicts it
MIN_PREDICTION_SUPPORT = 2


@dataclass(frozen=True)
class Anchor:
    axis: int
    pole: int
    rank: int
    support: int
    against: int


@dataclass(frozen=True)
class Prediction:
    axis: int
    pole: int
    variant: int


@dataclass(frozen=True)
class Spec:
    anchors: tuple[Anchor, ...]
    predictions: tuple[Prediction, ...]
    #: (winner, loser) of each priority the facts record one way more than the other
    priorities: tuple[tuple[int, int], ...]

    @property
    def text(self) -> str:
        return render(self)


def build_spec(facts: Sequence[Fact]) -> Spec:
    votes: dict[int, Counter[int]] = {a: Counter() for a in range(len(AXES))}
    behaviours: dict[tuple[int, int], Counter[int]] = {}
    wins: Counter[tuple[int, int]] = Counter()
    for fact in facts:
        if fact.predicate == "decided" and fact.action is not None:
            action = fact.action
            votes[action.axis][action.pole] += 1
            behaviours.setdefault((action.axis, action.pole), Counter())[action.variant] += 1
        elif fact.predicate == "prioritizes" and fact.over is not None:
            wins[fact.over] += 1

    held: dict[int, tuple[int, int, int]] = {}  # axis -> (pole, support, against)
    for axis, counts in votes.items():
        if counts[0] != counts[1]:
            pole = 0 if counts[0] > counts[1] else 1
            held[axis] = (pole, counts[pole], counts[1 - pole])
    priorities = tuple(sorted((a, b) for (a, b) in wins if wins[(a, b)] > wins[(b, a)]))
    copeland = Counter({a: 0 for a in held})
    for winner, loser in priorities:
        copeland[winner] += 1
        copeland[loser] -= 1

    def key(axis: int) -> tuple[float, ...]:
        _, support, against = held[axis]
        return (-copeland[axis], -support / (support + against), -support, axis)

    ranked = sorted(held, key=key)
    anchors = tuple(
        Anchor(axis, held[axis][0], rank, held[axis][1], held[axis][2]) for rank, axis in enumerate(ranked, 1)
    )
    predictions = []
    for anchor in anchors:
        ranked_variants = behaviours.get((anchor.axis, anchor.pole), Counter()).most_common()
        if (
            ranked_variants
            and ranked_variants[0][1] >= MIN_PREDICTION_SUPPORT
            and (len(ranked_variants) == 1 or ranked_variants[1][1] < ranked_variants[0][1])
        ):
            predictions.append(Prediction(anchor.axis, anchor.pole, ranked_variants[0][0]))
    return Spec(anchors, tuple(predictions), priorities)


def render(spec: Spec) -> str:
    lines = ["BEHAVIORAL SPECIFICATION", "", "ANCHORS"]
    by_axis = {a.axis: a for a in spec.anchors}
    for anchor in spec.anchors:
        axis, pole = AXES[anchor.axis], AXES[anchor.axis].poles[anchor.pole]
        if anchor.rank == 1:
            warning = "rarely overridden by any other principle"
        else:
            above = spec.anchors[anchor.rank - 2]
            warning = f"gives way to A{above.rank} when {AXES[above.axis].domain} is also at stake"
        lines.append(
            f"A{anchor.rank}. {pole.title}. Holds {pole.value}. Active when: {axis.active}. False positive: {warning}."
        )
    lines += ["", "CORE"]
    if spec.anchors:
        values = [AXES[a.axis].poles[a.pole].value for a in spec.anchors]
        top = AXES[spec.anchors[0].axis].poles[spec.anchors[0].pole]
        lines.append(
            f"At their core they value {_series(values)}. They see themselves as someone who would "
            f"{top.generic}, and they judge others by the same measure."
        )
    else:
        lines.append("The record shows no principle followed consistently.")
    lines += ["", "PREDICTIONS"]
    for number, prediction in enumerate(spec.predictions, 1):
        axis, pole = AXES[prediction.axis], AXES[prediction.axis].poles[prediction.pole]
        anchor = by_axis[prediction.axis]
        lines.append(
            f"P{number}. {pole.title}. Detection: {axis.active}. Directive: expect them to {pole.variants[prediction.variant]}. "
            f"False positive: the record shows {anchor.against} of {anchor.support + anchor.against} decisions going the other way."
        )
    lines += ["", "BRIEF"]
    brief = []
    if spec.anchors:
        brief.append(f"This person ranks {_series([AXES[a.axis].domain for a in spec.anchors], 'then')} in that order.")
    for winner, loser in spec.priorities:
        brief.append(
            f"When {AXES[winner].domain} and {AXES[loser].domain} pull against each other, {AXES[winner].domain} wins."
        )
    for anchor in spec.anchors:
        brief.append(f"In matters of {AXES[anchor.axis].domain} they {AXES[anchor.axis].poles[anchor.pole].generic}.")
    lines.append(" ".join(brief) if brief else "Too little is recorded to say how this person decides.")
    return "\n".join(lines)


def _series(items: Sequence[str], joiner: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    if joiner == "then":
        return ", then ".join(items)
    return ", ".join(items[:-1]) + f" {joiner} " + items[-1]
