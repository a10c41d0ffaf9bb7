"""The paper's staged LLM judge (D.3), for memory systems that rewrite what they store
(mem0 with infer=True), where the generator's spans no longer match word for word, and for
the released data, which has no spans at all (`detail["attribution"]` is "llm_judge").

Per required fact, one panel call per stage, short-circuiting on the first failure:
storage (is it in the dump?), summary (is it faithful?), retrieval (is a faithful copy in
the top-k?); then the invocation check (or, for a misleading Persona question, the
abstention check). Long-Hop's answer is read deterministically, as in the paper; so is the
answer of a question whose memory stages already failed (no call is spent on it; a released
Persona answer, whose ground truth is prose, is then left unchecked). The answer check
compares with the release's ground-truth text where there is one.
Each stage's wording is a versioned template in pytest_memeval/prompts/memfail_judge_*.toml.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_memeval.llm.judge import TemplateJudgePrompt, parse_score
from pytest_memeval.llm.templates import load_template
from pytest_memeval.protocols import Closes
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .attribution import MEMORY_STAGES, Attribution, FactCheck
from .judge import answer_correct, facts_of, free_text_gold, gold_values, verdict
from .llm_prompt import template_tables
from .model import Fact

STAGE_TEMPLATES = {
    "storage": "memfail_judge_storage",
    "summary": "memfail_judge_summary",
    "retrieval": "memfail_judge_retrieval",
    "answer": "memfail_judge_answer",
}
_VALUES = "judge_values"


def _stage_prompt(stage: str) -> TemplateJudgePrompt:
    return TemplateJudgePrompt(
        load_template(STAGE_TEMPLATES[stage]),
        lambda item, answer: item.private[_VALUES],
        lambda text: parse_score(text, low=0, high=1, key="verdict", pass_at=1),
    )


def numbered(texts: Sequence[str]) -> str:
    return "\n".join(f"[{i + 1}] {t.strip()}" for i, t in enumerate(texts)) or "(none)"


class MemfailLLMJudge:
    def __init__(self, panel_factory: Callable[[Any], Any]) -> None:
        self.panels = {stage: panel_factory(_stage_prompt(stage)) for stage in STAGE_TEMPLATES}
        self.criteria: Mapping[str, Mapping[str, str]] = {
            stage: template_tables(name)["criteria"] for stage, name in STAGE_TEMPLATES.items()
        }

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        facts = facts_of(item)
        retrieved = [m.text for m in trace.memories]
        stored: list[str] | None = []
        if facts:
            dumped = trace.dump()
            stored = None if dumped is None else [m.text for m in dumped]
        checks = tuple(self._check(item, answer, fact, retrieved, stored) for fact in facts)
        failing = [c.stage for c in checks if c.stage != "ok"]
        attribution = Attribution(min(failing, key=MEMORY_STAGES.index) if failing else "ok", checks)
        right: bool | None
        if attribution.stage != "ok" and free_text_gold(item):
            right, how = None, "skipped"
        elif attribution.stage != "ok" or item.view.task == "longhop":
            right, how = answer_correct(item, answer), "deterministic"
        else:
            right, _ = self._ask("answer", item, answer, self._answer_values(item, answer, facts))
            how = "llm"
        result = verdict(item, answer, attribution, stored is not None, right, "llm_judge")
        return replace(result, detail={**result.detail, "judge": "llm", "answer_check": how})

    def _check(
        self, item: Item, answer: Answer, fact: Fact, retrieved: list[str], stored: list[str] | None
    ) -> FactCheck:
        described = f"{fact.label}: {fact.text}"
        dataset = item.strata["dataset"]
        if stored is not None:
            for stage in ("storage", "summary"):
                values = {"criteria": self.criteria[stage][dataset], "fact": described, "memories": numbered(stored)}
                passed, reason = self._ask(stage, item, answer, values)
                if not passed:
                    return FactCheck(fact.label, stage, f"{fact.label} (LLM judge): {reason}")
        values = {
            "criteria": self.criteria["retrieval"][dataset],
            "question": item.view.question,
            "fact": described,
            "memories": numbered(retrieved),
        }
        passed, reason = self._ask("retrieval", item, answer, values)
        if not passed:
            stage = "retrieval" if stored is not None else "unknown"
            prefix = "" if stored is not None else "storage unknown (the memory system cannot list its memories); "
            return FactCheck(fact.label, stage, f"{prefix}{fact.label} (LLM judge): {reason}")
        return FactCheck(fact.label, "ok")

    def _answer_values(self, item: Item, answer: Answer, facts: Sequence[Fact]) -> dict[str, str]:
        misleading = bool(item.private.get("grading", {}).get("distractor"))
        family = "abstention" if misleading else item.view.task
        grading = item.private.get("grading", {})
        gold = grading.get("ground_truth") or ", ".join(gold_values(item))
        return {
            "criteria": self.criteria["answer"][family],
            "question": item.view.question,
            "fact": "\n".join(f.text for f in facts) or "(none: the question names a person no memory mentions)",
            "gold": gold,
            "response": answer.raw or answer.label or "",
        }

    def _ask(self, stage: str, item: Item, answer: Answer, values: Mapping[str, str]) -> tuple[bool, str]:
        staged = replace(item, private={**item.private, _VALUES: dict(values)})
        result = self.panels[stage].score(staged, answer, label=f"{item.id}:{stage}")
        judges = result.detail.get("judges", {})
        reason = (
            next((j.get("reason") for j in judges.values() if j.get("reason")), "") if isinstance(judges, dict) else ""
        )
        return bool(result.correct), reason or result.reason

    def close(self) -> None:
        for panel in self.panels.values():
            if isinstance(panel, Closes):
                panel.close()
