"""memfail: which operation of a memory system failed (MemFail, seed 001).

Public API:
    MemfailSuite            the Suite (registered as "memfail")
    DATASETS, build         the six datasets and their cached builds (seed, dataset, size)
    MemfailReader           the offline reader (answers from retrieved memories only)
    MemfailJudge            deterministic staged attribution + answer check
    MemfailLLMJudge         the paper's staged LLM judge (D.3), for rewritten memories
    attribute, STAGES       staged attribution of facts against retrieved and stored texts
    summarize, compare      metrics of a run and paired differences between runs
"""

from .attribution import STAGES, Attribution, FactCheck, attribute
from .datasets import DATASETS, Dataset, build
from .judge import MemfailJudge, answer_correct
from .llm_judge import MemfailLLMJudge
from .model import DEFAULT_SEED, DatasetBuild, Fact, Piece, Question
from .reader import MemfailReader
from .suite import MemfailSuite
from .summary import METRIC_NAMES, compare, summarize

__all__ = [
    "DATASETS",
    "DEFAULT_SEED",
    "METRIC_NAMES",
    "STAGES",
    "Attribution",
    "Dataset",
    "DatasetBuild",
    "Fact",
    "FactCheck",
    "MemfailJudge",
    "MemfailLLMJudge",
    "MemfailReader",
    "MemfailSuite",
    "Piece",
    "Question",
    "answer_correct",
    "attribute",
    "build",
    "compare",
    "summarize",
]
