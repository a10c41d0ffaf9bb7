"""The locomo scores against their sources: the official F1 on a 2,400-case corpus, Mem0's
BLEU-1 and F1 against hand computations."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from locomo_f1_cases import cases
from pytest_memeval.suites.locomo import scoring
from pytest_memeval.suites.locomo.scoring import mem0_bleu1, mem0_f1, normalize_answer, official_f1

REFERENCE = Path(__file__).parent / "data" / "locomo" / "official_f1.json"


def test_official_f1_equals_the_official_scorer_on_2400_cases() -> None:
    """tests/data/locomo/official_f1.json holds the cases of `locomo_f1_cases.cases(2024, 2400)`
    and the scores the official scorer gave them: `eval_question_answering` of
    snap-research/LoCoMo task_eval/evaluation.py at commit 3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376
    (the file's last change: cbfbc1dba6bc), run once in a scratch directory (not in this
    repository) on rows {"prediction", "answer": gold, "category", "evidence": []}, with
    nltk 3.10.4, regex 2026.11.19 and numpy 2.4.6 (bert_score, which it imports and
    eval_question_answering does not use, stubbed). Its scores are compared here to 1e-12."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    expected = reference["cases"]
    assert len(expected) >= 2000
    generated = cases(reference["seed"], len(expected))
    assert [{k: c[k] for k in ("prediction", "gold", "category")} for c in expected] == generated
    kinds = {(c["category"], type(c["gold"]).__name__) for c in expected}
    assert {(1, "int"), (2, "int"), (5, "str")} <= kinds
    assert any(";" in str(c["gold"]) for c in expected if c["category"] == 3)
    assert {c["official_f1"] for c in expected} > {0.0, 1.0}  # fractional scores too
    for case in expected:
        mine = official_f1(case["prediction"], case["gold"], case["category"])
        assert math.isclose(mine, case["official_f1"], rel_tol=0, abs_tol=1e-12), case


def test_the_official_normalisation_and_its_quirks() -> None:
    assert normalize_answer("The Cat, and a DOG!") == "cat dog"
    assert normalize_answer("Andes theater") == "andes theater"  # whole words only
    # category 3 keeps the gold before its first ';'
    assert official_f1("Likely yes", "Likely yes; she loves hiking", 3) == 1.0
    assert official_f1("Likely yes", "Likely yes; she loves hiking", 4) < 1.0
    # category 1: the mean over gold parts of the best answer part
    assert official_f1("pottery", "pottery, hiking", 1) == 0.5
    assert official_f1("hiking, pottery", "pottery, hiking", 1) == 1.0
    # an integer gold is scored as its text; stems fold plurals and tenses
    assert official_f1("in 2022", 2022, 2) == pytest.approx(2 / 3)
    assert official_f1("she runs", "running", 4) == pytest.approx(2 / 3)
    # category 5 by its phrases, whatever the gold
    assert official_f1("That is NOT mentioned anywhere", "Oscar", 5) == 1.0
    assert official_f1("Oscar", "Oscar", 5) == 0.0
    with pytest.raises(ValueError):
        official_f1("x", "x", 6)


def test_mem0_bleu1_by_hand() -> None:
    # unigram precision 2/2, brevity penalty exp(1 - 3/2)
    assert mem0_bleu1("The cat", "the cat sat") == pytest.approx(math.exp(-0.5))
    assert mem0_bleu1("Paris", "paris") == 1.0
    assert mem0_bleu1("", "paris") == 0.0
    assert mem0_bleu1("7 May 2023", 2023) == pytest.approx(1 / 3)  # an integer gold as text


def test_bleu1_without_punkt_reads_the_answer_as_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoring, "bleu_tokenizer", lambda: "treebank")
    # the Treebank tokenizer splits only a final period off the whole text
    assert scoring._words("Went to Paris. Liked it.") == ["went", "to", "paris.", "liked", "it", "."]


def test_mem0_f1_is_set_based_and_unstemmed() -> None:
    assert mem0_f1("Paris, France!", "paris") == pytest.approx(2 / 3)
    assert mem0_f1("runs runs", "running") == 0.0
    assert mem0_f1("dog dog cat", "dog") == pytest.approx(2 / 3)  # {dog, cat} against {dog}
    assert mem0_f1("", "x") == 0.0
    assert mem0_f1("2022", 2022) == 1.0
