"""knowme: person understanding over a flashback-aware life stream (KnowMe-Bench, seed 002).

life.generate_life(seed, index)   a synthetic life in the released stream schema
questions.life_questions(life)    its questions for T1..T7 with generator-computed golds
released.load_dataset(path)       one dataset<N>/ of the KnowMe-Bench release, as shipped
reader.KnowmeReader               the offline reader (answers from memories, or ABSTAIN)
judge.KnowmeJudge                 our diagnostics: deterministic T1-T5, approximate (labelled) T6/T7
judge.KnowmeLLMJudge              the paper's rubric judge for all seven tasks (rubric.py)
suite.KnowmeSuite                 the Suite the plugin runs
"""

from .life import Life, generate_life
from .questions import Question, life_questions
from .reader import KnowmeReader
from .suite import KnowmeSuite
from .tasks import ABSTAIN, LEVELS, TASKS

__all__ = [
    "ABSTAIN",
    "LEVELS",
    "TASKS",
    "KnowmeReader",
    "KnowmeSuite",
    "Life",
    "Question",
    "generate_life",
    "life_questions",
]
