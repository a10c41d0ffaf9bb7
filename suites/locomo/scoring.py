"""The three deterministic scores of a LoCoMo answer, each as its source computes it.

- `official_f1`: `eval_question_answering` of snap-research/LoCoMo `task_eval/evaluation.py`.
  The gold is `str()` of the released answer (some are integers); the answer is normalised
  (commas dropped, lower case, ASCII punctuation stripped, the words a/an/the/and removed
  with the `regex` module's word boundaries, whitespace collapsed), each token stemmed by
  nltk's PorterStemmer, and F1 is taken over the multiset of stems. Category 1 splits
  answer and gold on commas and averages, over the gold parts, the best F1 against any
  answer part; category 3 keeps the gold up to its first ';'; categories 2-4 are plain F1;
  category 5 is 1 when the answer contains "no information available" or "not mentioned"
  (case-insensitive), else 0. tests/test_locomo_scoring.py holds it to the official
  scorer's outputs on 2,400 cases.
- `mem0_bleu1`: BLEU-1 of Mem0's evaluation (`evaluation/metrics/utils.py`): nltk's
  `word_tokenize` of the lower-cased texts, `sentence_bleu` with weights (1, 0, 0, 0) and
  smoothing method 1. `word_tokenize` splits sentences first with the Punkt tables
  (`punkt_tab`), a data download; where they are not installed the answer is tokenised as
  one sentence, which differs only for answers with a sentence break inside, and
  `bleu_tokenizer()` says which ran.
- `mem0_f1`: Mem0's own F1 (the same file): lower case, '.', ',', '!', '?' turned into
  spaces, F1 over the *sets* of words, no stemming. Not the official metric.
"""

from __future__ import annotations

import string
from collections import Counter
from functools import cache, lru_cache
from typing import Any

import numpy as np
import regex

#: the answers category 5 (adversarial) accepts, matched inside the lower-cased answer
ADVERSARIAL_PHRASES = ("no information available", "not mentioned")

_PUNCTUATION = frozenset(string.punctuation)
_FILLER_WORDS = regex.compile(r"\b(a|an|the|and)\b")


# nltk is imported when LoCoMo is scored, not when the plugin lists its suites (~1.5 s a run)
@cache
def _stemmer() -> Any:
    from nltk.stem import PorterStemmer

    return PorterStemmer()


@cache
def _smoothing() -> Any:
    from nltk.translate.bleu_score import SmoothingFunction

    return SmoothingFunction().method1


def normalize_answer(text: str) -> str:
    """The official normalisation (before stemming)."""
    lowered = text.replace(",", "").lower()
    no_punctuation = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    return " ".join(_FILLER_WORDS.sub(" ", no_punctuation).split())


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


def _stems(text: str) -> list[str]:
    return [_stem(word) for word in normalize_answer(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """The official F1 of one answer against one gold (stemmed multiset overlap)."""
    predicted, expected = _stems(prediction), _stems(gold)
    overlap = sum((Counter(predicted) & Counter(expected)).values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(predicted)
    recall = overlap / len(expected)
    return (2 * precision * recall) / (precision + recall)


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Category 1: each comma-separated gold part against its best-matching answer part."""
    parts = [p.strip() for p in prediction.split(",")]
    best = [max(token_f1(part, g.strip()) for part in parts) for g in gold.split(",")]
    return float(np.mean(best))


def official_f1(prediction: str, gold: object, category: int) -> float:
    """The official score of `prediction` for an item of `category` whose released gold is `gold`."""
    expected = str(gold)
    if category == 5:
        lowered = prediction.lower()
        return 1.0 if any(phrase in lowered for phrase in ADVERSARIAL_PHRASES) else 0.0
    if category == 3:
        expected = expected.split(";")[0].strip()
    if category == 1:
        return multi_answer_f1(prediction, expected)
    if category in (2, 3, 4):
        return token_f1(prediction, expected)
    raise ValueError(f"LoCoMo has no category {category!r}")


@cache
def bleu_tokenizer() -> str:
    """'punkt' when nltk's English Punkt tables are installed (Mem0's tokenisation), else
    'treebank' (the same word tokenizer on the whole answer as one sentence)."""
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        return "treebank"
    return "punkt"


def _words(text: str) -> list[str]:
    from nltk.tokenize import word_tokenize

    return list(word_tokenize(text.lower(), preserve_line=bleu_tokenizer() == "treebank"))


def mem0_bleu1(prediction: str, gold: object) -> float:
    """Mem0's BLEU-1 of `prediction` against `str(gold)` (0.0 where nltk raises, as Mem0's code does)."""
    from nltk.translate.bleu_score import sentence_bleu

    try:
        return float(
            sentence_bleu(
                [_words(str(gold))], _words(prediction), weights=(1, 0, 0, 0), smoothing_function=_smoothing()
            )
        )
    except (ValueError, ZeroDivisionError):
        return 0.0


def _word_set(text: str) -> set[str]:
    lowered = text.lower()
    for mark in ".,!?":
        lowered = lowered.replace(mark, " ")
    return set(lowered.split())


def mem0_f1(prediction: str, gold: object) -> float:
    """Mem0's set-based, unstemmed F1 of `prediction` against `str(gold)`."""
    expected = str(gold)
    if not prediction or not expected:
        return 0.0
    predicted, reference = _word_set(prediction.strip()), _word_set(expected.strip())
    if not predicted or not reference:
        return 0.0
    common = len(predicted & reference)
    precision, recall = common / len(predicted), common / len(reference)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
