"""HaluMem's scoring, case by case against the rules of its official code (MemTensor/HaluMem at
59402b9d6625: eval/llms.py's parser, eval/evaluation.py's routing and aggregate_eval_results,
eval/eval_tools.py's prompts), in this process."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from pytest_memeval.suites.halumem.judge import NA_DUMP, Judged, OfflineRules, StageJudge
from pytest_memeval.suites.halumem.llm import TEMPLATE_MEM0, HaluMemPrompt, ReplyPrompt, mem0_context
from pytest_memeval.suites.halumem.released import MemoryPoint, Turn
from pytest_memeval.suites.halumem.scoring import (
    UnreadableReply,
    accuracy_result,
    as_int,
    dialogue_text,
    golden_text,
    integrity_score,
    label_of,
    reply_object,
    routes_to_update,
)
from pytest_memeval.suites.halumem.summary import estimates, memory_type_cells

from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import load_template
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

#: sha256 of each official prompt as Python source holds it (a str.format template)
OFFICIAL_SHA256 = {
    "halumem_judge_integrity": "ff25d77b5ed119180e9604c6717a12140476e79cfaf15ed18dc2cf2ef5595ceb",
    "halumem_judge_accuracy": "6d213f20db1eac7d2f6837b6b1801de2dcc5b9d242abc6128773e871c563986e",
    "halumem_judge_update": "76f3ed47ec8194d4558a562b7dcd99f7d4c0611acd7cb5c908864655825c6fb3",
    "halumem_judge_question": "95e3648135b580ff0a266b65fb025e68c16a6900d587113e60a3d02a361feadf",
    "halumem_answer": "8e80438e37c2213d6d10f07d5f1a515388bd4731dafe89299f2ef0a9813cc005",
}


def as_format_template(text: str) -> str:
    """A string.Template text written back as the str.format template it reproduces."""
    return re.sub(r"\$([a-z_]+)", r"{\1}", text.replace("{", "{{").replace("}", "}}"))


@pytest.mark.parametrize("name", sorted(OFFICIAL_SHA256))
def test_the_prompts_are_the_official_bytes(name: str) -> None:
    ((role, text),) = load_template(name).messages
    assert role == "user"
    assert hashlib.sha256(as_format_template(text).encode()).hexdigest() == OFFICIAL_SHA256[name]


def test_the_answer_prompt_fills_mem0s_context_as_str_format_does() -> None:
    assert TEMPLATE_MEM0 == "Memories for user {user_id}:\n\n    {memories}\n"
    memories = [Memory("2025-01-06: Ada likes tea"), Memory("Ada lives in Lisbon")]
    view = ItemView("halumem", "qa", "Where does Ada live?", extra={"user": "Ada Lind"})
    (message,) = HaluMemPrompt().messages(view, memories)
    text = load_template("halumem_answer").messages[0][1]
    context = 'Memories for user Ada Lind:\n\n    [\n    "2025-01-06: Ada likes tea",\n    "Ada lives in Lisbon"\n]\n'
    assert mem0_context("Ada Lind", memories) == context
    assert message["content"] == as_format_template(text).format(context=context, question="Where does Ada live?")
    assert message["content"].startswith("\n    You are an intelligent memory assistant")
    assert message["content"].endswith("Question: Where does Ada live?\n\n    Answer:\n    ")


# --- the reply parser (llms.py, llm_request_for_json) -------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('```json\n{"score": "2"}\n```', {"score": "2"}),
        ('Reasoning first.\n```json {"score": 1} ``` then more ```json {"score": 0} ```', {"score": 1}),
        ('```json\n{\n  "a": {"b": 1}\n}\n```', {"a": {"b": 1}}),
    ],
)
def test_the_first_fenced_json_block_is_read(content: str, expected: dict[str, Any]) -> None:
    assert reply_object(content) == expected


@pytest.mark.parametrize(
    "content",
    ['{"score": "2"}', '```\n{"score": "2"}\n```', '```json\n{"score": 2,}\n```', "", None, "```JSON\n{}\n```"],
)
def test_a_reply_without_a_readable_json_fence_is_no_verdict(content: str | None) -> None:
    with pytest.raises(UnreadableReply):
        reply_object(content)
    with pytest.raises(InvalidOutput):
        ReplyPrompt("qa").parse(Completion(content=content), _item("qa"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2", 2), (2, 2), (" 1 ", 1), (2.9, 2), (True, 1), ("2.0", None), ("2|1|0", None), (None, None), ([2], None)],
)
def test_scores_are_read_as_python_int_reads_them(value: Any, expected: int | None) -> None:
    assert as_int(value) == expected
    assert integrity_score({"score": value}) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ({"accuracy_score": "2", "is_included_in_golden_memories": "true"}, (2, True, "true")),
        ({"accuracy_score": "1", "is_included_in_golden_memories": "True"}, (1, True, "True")),
        ({"accuracy_score": 2, "is_included_in_golden_memories": True}, (2, False, "true")),  # a JSON true is no target
        ({"accuracy_score": "2", "is_included_in_golden_memories": "TRUE"}, (2, False, "TRUE")),
        ({"accuracy_score": "0"}, (0, False, "false")),
        ({"accuracy_score": "x", "is_included_in_golden_memories": "true"}, (None, False, "false")),
    ],
)
def test_the_accuracy_reply(reply: dict[str, Any], expected: tuple[int | None, bool, str]) -> None:
    assert accuracy_result(reply) == expected


def test_labels_are_compared_exactly() -> None:
    assert label_of({"evaluation_result": "Correct"}) == "Correct"
    assert label_of({}) is None
    for label, scored_as, valid in [
        ("Correct", "qa", True),
        ("correct", "qa", False),
        (" Correct", "qa", False),
        ("Other", "qa", False),
        ("Other", "update", True),
        ("Correct | Hallucination | Omission", "qa", False),
    ]:
        records = [_record(scored_as, label=label)]
        prefix = "q" if scored_as == "qa" else "u"
        metric = "qa_correct_valid" if prefix == "q" else "update_correct_valid"
        assert (estimates(records, 20)[metric].value is not None) == valid, (label, scored_as)


# --- routing and what the judges see (evaluation.py, process_user) -----------------------------


def _point(is_update: str = "False", original: Sequence[str] = (), source: str = "system") -> MemoryPoint:
    return MemoryPoint("Ada's job is chef.", "Persona Memory", source, is_update, tuple(original), 1.0)


def test_is_update_is_a_string_and_routes_by_the_probe() -> None:
    assert routes_to_update(_point("True", ["old"]), ["a memory"])
    assert not routes_to_update(_point("True", ["old"]), [])  # an empty probe: scored as recall
    assert not routes_to_update(_point("False", ["old"]), ["a memory"])
    assert _point("True", ["old"]).probed and not _point("True").probed and not _point("False", ["old"]).probed


def test_the_dialogue_and_gold_texts() -> None:
    turns = [Turn("user", "Hi", "Jan 01, 2025, 10:00:00"), Turn("assistant", "Hello", "Jan 01, 2025, 10:00:00")]
    turns += [Turn("user", "Bye", "Jan 01, 2025, 10:05:00"), Turn("assistant", "Ciao", "Jan 01, 2025, 10:05:00")]
    assert dialogue_text(turns) == (
        "[Jan 01, 2025, 10:00:00]user: Hi\n[Jan 01, 2025, 10:00:00]assistant: Hello\n\n"
        "[Jan 01, 2025, 10:05:00]user: Bye\n[Jan 01, 2025, 10:05:00]assistant: Ciao\n"
    )
    points = [_point(), MemoryPoint("Ada's pet is a cat.", "Persona Memory", "interference", "False", (), None)]
    assert golden_text(points) == "Ada's job is chef."


class Scripted(StageJudge):
    """Every judgement scripted; calls counted."""

    def __init__(self, value: Any) -> None:
        self.value, self.calls = value, 0

    def _judged(self) -> Judged:
        self.calls += 1
        return Judged(self.value)

    def integrity(self, item: Item, memories: str, point: str) -> Judged:
        return self._judged()

    def accuracy(self, item: Item, dialogue: str, golden: str, memory: str) -> Judged:
        return self._judged()

    def update(self, item: Item, memories: str, updated: str, original: str) -> Judged:
        return self._judged()

    def question(self, item: Item, response: str, abstained: bool) -> Judged:
        return self._judged()


def _item(kind: str, **private: Any) -> Item:
    defaults = {
        "kind": kind,
        "name": "Ada Lind",
        "content": "Ada's job is chef.",
        "original": ["Ada's job is baker."],
        "is_update": "False",
        "source": "system",
        "importance": 0.5,
        "memory_type": "Persona Memory",
        "question_type": "Basic Fact Recall",
        "evidence": [],
        "dialogue": "",
        "golden": "",
    }
    return Item(
        "u/s0/x", "u", "u", ItemView("halumem", kind, "What is Ada's job?"), "chef", private={**defaults, **private}
    )


@pytest.mark.parametrize(("source", "correct"), [("system", False), ("interference", True)])
def test_an_empty_extraction_scores_0_without_a_judge(source: str, correct: bool) -> None:
    judge = Scripted(2)
    verdict = judge.score(_item("point", source=source), Answer("", detail={"extracted": [" "]}), Trace())
    assert judge.calls == 0 and verdict.detail["score"] == 0 and verdict.correct is correct


def test_an_update_point_with_a_probe_is_judged_as_an_update() -> None:
    judge = Scripted("Hallucination")
    item = _item("point", is_update="True")
    verdict = judge.score(item, Answer("x", detail={"extracted": [], "probe": ["Ada is a chef"]}), Trace())
    assert (verdict.detail["scored_as"], verdict.detail["label"], verdict.correct) == ("update", "Hallucination", False)
    recall = Scripted(2).score(item, Answer("x", detail={"extracted": ["m"], "probe": []}), Trace())
    assert recall.detail["scored_as"] == "integrity"


def test_an_unreadable_reply_is_no_score_and_no_pass() -> None:
    verdict = Scripted(None).score(_item("point"), Answer("m", detail={"extracted": ["m"]}), Trace())
    assert verdict.correct is None and verdict.detail["score"] is None and "(all)" in verdict.reason


def test_without_a_dump_extraction_is_not_available_not_zero() -> None:
    for kind in ("point", "session"):
        verdict = OfflineRules().score(_item(kind), Answer(None, detail={"extracted": None, "probe": None}), Trace())
        assert verdict.correct is None and verdict.detail["na"] == NA_DUMP
    records = [_record("integrity", na=NA_DUMP), _record("accuracy", na=NA_DUMP)]
    assert estimates(records, 20)["recall"].value is None and estimates(records, 20)["target_accuracy"].value is None


# --- aggregate_eval_results ---------------------------------------------------------------------


def _record(scored_as: str, user: str = "u1", **detail: Any) -> Record:
    return Record(
        f"{user}-{scored_as}-{json.dumps(detail, sort_keys=True)}",
        RunKey("halumem", "m"),
        "halumem",
        user,
        user,
        scored_as,
        "scored",
        detail={"scored_as": scored_as, **detail},
    )


def _values(records: Sequence[Record]) -> Mapping[str, float | None]:
    return {name: metric.value for name, metric in estimates(records, 20).items()}


def test_integrity_and_interference_with_all_and_valid() -> None:
    records = [
        _record("integrity", score=2, importance=1.0),
        _record("integrity", score=1, importance=0.5),
        _record("integrity", score=None, importance=0.75),
        _record("integrity", score=0, importance=0.25, user="u2"),
        _record("interference", score=0),
        _record("interference", score=2),
        _record("interference", score=None),
    ]
    v = _values(records)
    assert v["recall"] == pytest.approx(1 / 4) and v["recall_valid"] == pytest.approx(1 / 3)
    numerator = 0.5 * 2 * 1.0 + 0.5 * 1 * 0.5 + 0.0
    assert v["weighted_recall"] == pytest.approx(numerator / 2.5)
    assert v["weighted_recall_valid"] == pytest.approx(numerator / 1.75)
    assert v["interference_accuracy"] == pytest.approx(1 / 3) and v["interference_accuracy_valid"] == pytest.approx(
        1 / 2
    )


def test_accuracy_targets_and_f1() -> None:
    memories = [
        {"score": 2, "target": True},
        {"score": 1, "target": True},
        {"score": 0, "target": False},
        {"score": None, "target": False},
    ]
    records = [_record("accuracy", memories=memories), _record("integrity", score=2, importance=1.0)]
    records.append(_record("integrity", score=0, importance=1.0))
    v = _values(records)
    precision = (0.5 * 2 + 0.5 * 1) / 2
    assert v["target_accuracy"] == pytest.approx(precision) == v["target_accuracy_valid"]
    assert v["weighted_accuracy"] == pytest.approx(1.5 / 4) and v["weighted_accuracy_valid"] == pytest.approx(1.5 / 3)
    assert v["extraction_f1"] == pytest.approx(2 * precision * 0.5 / (precision + 0.5))
    nothing = _values([_record("accuracy", memories=[{"score": 0, "target": True}]), _record("integrity", score=0)])
    assert nothing["extraction_f1"] == 0.0


def test_update_and_qa_shares() -> None:
    labels = ["Correct", "Correct", "Hallucination", "Omission", "Other", None, "Wrong"]
    v = _values([_record("update", label=label) for label in labels])
    assert v["update_correct"] == pytest.approx(2 / 7) and v["update_correct_valid"] == pytest.approx(2 / 5)
    assert v["update_other"] == pytest.approx(1 / 7)
    q = _values([_record("qa", label=label) for label in ["Correct", "Omission", "Other", None]])
    assert q["qa_correct"] == pytest.approx(1 / 4) and q["qa_correct_valid"] == pytest.approx(1 / 2)
    assert q["qa_omission"] == pytest.approx(1 / 4)


def test_a_stage_without_items_is_not_available() -> None:
    v = _values([_record("qa", label="Correct")])
    assert v["qa_correct"] == 1.0 and v["recall"] is None and v["update_correct"] is None


def test_memory_type_accuracy_shares_one_denominator() -> None:
    records = [
        _record("integrity", score=2, importance=1.0, memory_type="Event Memory"),
        _record("integrity", score=None, importance=1.0, memory_type="Event Memory"),
        _record("interference", score=2, importance=0.5, memory_type="Event Memory"),
        _record("interference", score=0, importance=None, memory_type="Event Memory"),  # no importance: skipped
        _record("update", label="Correct", importance=0.75, memory_type="Event Memory"),
    ]
    cell = memory_type_cells(records, 20)["Event Memory"]
    assert cell.n == 4
    assert cell.metrics["integrity_acc"].value == pytest.approx(2 / 4)
    assert cell.metrics["update_acc"].value == pytest.approx(1 / 4)
    assert cell.metrics["memory_acc"].value == pytest.approx(3 / 4)


# --- the offline rules: floors ------------------------------------------------------------------


def test_the_offline_rules() -> None:
    rules = OfflineRules()
    item = _item("qa")
    assert rules.integrity(item, "my job is chef", "Ada Lind's job is chef.").value == 2
    assert rules.integrity(item, "my job is baker", "Ada Lind's job is chef.").value == 1
    assert rules.question(item, "I work as a chef", False).value == "Correct"
    assert rules.question(item, "", True).value == "Omission"
    assert rules.question(item, "a baker", False).value == "Hallucination"
    boundary = _item("qa", question_type="Memory Boundary")
    assert rules.question(boundary, "", True).value == "Correct"
    assert rules.question(boundary, "O negative", False).value == "Hallucination"
    assert rules.update(item, "x\nmy job is chef now", "Ada Lind's job is chef.", "").value == "Correct"
    assert rules.update(item, "nothing related", "Ada Lind's job is chef.", "").value == "Omission"
