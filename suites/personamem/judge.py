"""The judge: the official rule (scoring.py) on the whole reply, for every responder.

The offline reader's reply is "<final_answer>(x)", an LLM's is its text as it came back;
both are read by the one rule, as run_evaluation reads the model's response. An abstention
(no reply) names no option and is wrong, as an empty response is in the official results.
"""

from __future__ import annotations

from pytest_memeval.types import Answer, Item, Trace, Verdict

from .scoring import read_reply


class PersonaMemJudge:
    """A `Judge`: correct when the reply names exactly the gold option (extract_answer's rule)."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        reading = read_reply(answer.raw, str(item.gold))
        named = sorted(reading.tail_options) or sorted(reading.reply_options)
        reason = "" if reading.correct else f"gold {item.gold}; the reply names {', '.join(named) or 'no option'}"
        return Verdict(
            correct=reading.correct,
            score=float(reading.correct),
            reason=reason,
            detail={
                "predicted_answer": reading.tail[:200],
                "tail_options": sorted(reading.tail_options),
                "reply_options": sorted(reading.reply_options),
            },
        )
