"""What a full BEAM run costs in LLM calls and tokens, computed from the release's own counts.

    .venv/bin/python benchmarks/beam_costs.py DATA

DATA is a clone of github.com/mohammadtavakoli78/BEAM. Per scale, from every
probing_questions.json: the questions (one answer call each), the rubric items (one judge
call each, the official judge prompt filled with the item and, for the answer, the
question's reference answer where it has one, else the rubric joined), and the event
ordering questions' rubric items (the fewest alignment calls: an answer that lists exactly
the rubric's events in order asks one per line). From every chat present (the truncated
one where it exists, as the suite reads): the messages and their tokens, what a memory
system ingests. Tokens are pytest_memeval.memory.tokens.count_tokens (words and
punctuation). Prints one JSON object per scale.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pytest_memeval.suites.beam.llm import RubricPrompt
from pytest_memeval.suites.beam.released import (
    QUESTIONS_FILE,
    SCALES,
    batches,
    chat_file,
    conversation_dirs,
    read_questions,
)

from pytest_memeval.memory.tokens import count_tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    args = parser.parse_args()
    judge = RubricPrompt().text
    for scale in SCALES:
        directories = conversation_dirs(args.data, scale)
        row = {"scale": scale, "conversations": len(directories), "questions": 0, "rubric_items": 0}
        row |= {
            "event_ordering_items": 0,
            "judge_prompt_tokens": 0,
            "chats_present": 0,
            "messages": 0,
            "chat_tokens": 0,
        }
        for directory in directories:
            for q in read_questions(directory / QUESTIONS_FILE):
                row["questions"] += 1
                row["rubric_items"] += len(q.rubric)
                if q.ability == "event_ordering":
                    row["event_ordering_items"] += len(q.rubric)
                answer = q.reference or "\n".join(q.rubric)
                for entry in q.rubric:
                    prompt = judge.replace("<rubric_item>", entry).replace("<llm_response>", answer)
                    row["judge_prompt_tokens"] += count_tokens(prompt)
            chat = chat_file(directory)
            if chat is not None:
                row["chats_present"] += 1
                for batch in batches(chat):
                    row["messages"] += len(batch)
                    row["chat_tokens"] += sum(count_tokens(m.content) for m in batch)
        print(json.dumps(row))


if __name__ == "__main__":
    main()
