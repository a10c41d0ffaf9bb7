"""locomo: LoCoMo (Maharana et al., 2024) under the protocol memory systems publish.

released.load_release(path)     locomo10.json as shipped, quirks read (notes say how)
sample.sample(seed, n)          a generated sample in the same format, every quirk included
scoring.official_f1             the official F1 of task_eval/evaluation.py, exactly
scoring.mem0_bleu1, mem0_f1     BLEU-1 and F1 as Mem0's evaluation computes them
reader.LocomoReader             the offline reader (an extractive baseline)
llm.LocomoPrompt, j_prompt      Mem0's answer prompt and Mem0's J judge prompt
judge.LocomoJudge               every score of an item, and its evidence recall
suite.LocomoSuite               the Suite the plugin runs
"""

from .categories import READINGS
from .released import Release, load_release
from .sample import sample, write_sample
from .scoring import mem0_bleu1, mem0_f1, official_f1
from .suite import LocomoSuite

__all__ = [
    "READINGS",
    "LocomoSuite",
    "Release",
    "load_release",
    "mem0_bleu1",
    "mem0_f1",
    "official_f1",
    "sample",
    "write_sample",
]
