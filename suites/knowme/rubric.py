"""The paper's LLM-judge rubrics, one prompt per task family, graded 0-5 (tables: 20 x score).

The release groups the seven tasks into four rubric families in `evaluate/evaluate prompt.md`:
facts (T1, T2: entity accuracy; T2 full marks only for the abstention the reference gives),
values (T3, T5: 0/3/5), ordering (T4) and insight (T6, T7). The release has no licence, so
its wording is never shipped: when the user's copy of the release holds that file, it is
read at run time (each `# type <Task>[、<Task>]` section becomes one prompt, its
`{{question}}`, `{{reference_answer}}` and `{{model_answer}}` filled in) and the judge
answers {"score", "reasoning"} as there. The system line is read from the release's
`evaluate/run_eval.py` when present. Otherwise our own paraphrase of the same rubrics
(prompts/knowme_judge_*.toml) is used. Either way every verdict names its rubric.

The judge reads the reference answer as text: a released answer as shipped (a ranked
list one line per rank), a generated gold written out; and an abstention as a sentence.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.data_files import read_text
from pytest_memeval.llm.judge import JudgePrompt, TemplateJudgePrompt, parse_score
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, Verdict

from .released import task_of_name
from .stream import format_duration

#: where the release keeps its judge prompt and its evaluation script
RUBRIC_FILE = Path("evaluate") / "evaluate prompt.md"
EVAL_SCRIPT = Path("evaluate") / "run_eval.py"
#: our rubric templates by family (the release's grouping)
OUR_TEMPLATES = {
    "T1+T2": "knowme_judge_facts",
    "T3+T5": "knowme_judge_value",
    "T4": "knowme_judge_ordering",
    "T6+T7": "knowme_judge_insight",
}
#: the system line when the release's script is not there to read it from
OUR_SYSTEM = "You are an impartial judge. Grade the answer strictly by the criteria you are given."
#: what the judge reads for an answer that abstained
ABSTENTION_ANSWER = "I don't know: the records do not mention this."
#: the reference of a generated T2 item (a false premise)
ABSTENTION_REFERENCE = (
    "The records do not contain this: the question's premise is false, so the only right answer "
    "is to say that it is not mentioned (I don't know)."
)
INSIGHT_FAMILIES = {
    "T6": "mind-body interaction: how the narrator's outward behaviour relates to an inner state it hides or expresses",
    "T7": "a lasting principle of the narrator: the motive behind choices, and where it comes from",
}
_SECTION = re.compile(r"^# type\s+(.+?)\s*$", re.M)
_PLACEHOLDERS = {"{{question}}": "$question", "{{reference_answer}}": "$reference", "{{model_answer}}": "$answer"}
_SYSTEM_LINE = re.compile(r"""["']role["']\s*:\s*["']system["']\s*,\s*["']content["']\s*:\s*("(?:[^"\\]|\\.)*")""")


@dataclass(frozen=True)
class Rubric:
    """The judge prompt of each family, which family grades each task, and where the wording came from."""

    prompts: Mapping[str, JudgePrompt]
    family_of: Mapping[str, str]
    source: str


def find_rubric_file(data_dir: Path | None) -> Path | None:
    """`evaluate/evaluate prompt.md` of the release `data_dir` is in (the repository, its
    KnowmeBench/ folder or one dataset<N>/ folder)."""
    if data_dir is None:
        return None
    for folder in (data_dir, *list(data_dir.resolve().parents)[:2]):
        if (folder / RUBRIC_FILE).is_file():
            return folder / RUBRIC_FILE
    return None


def our_rubric() -> Rubric:
    prompts: dict[str, JudgePrompt] = {}
    family_of = {}
    for family, name in OUR_TEMPLATES.items():
        template = load_template(name)
        parse = _parse_band if family == "T3+T5" else _parser("reason")
        prompts[family] = TemplateJudgePrompt(template, _values_for(template), parse)
        family_of.update({task: family for task in family.split("+")})
    ids = ", ".join(load_template(n).id for n in OUR_TEMPLATES.values())
    return Rubric(
        prompts,
        family_of,
        f"ours: a paraphrase of the paper's rubrics ({ids}); no {RUBRIC_FILE} of the release was found",
    )


def release_rubric(path: Path) -> Rubric:
    """One prompt per `# type` section of the release's rubric file; every task needs one."""
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the judge rubric ({exc})") from None
    system, system_from = _system_line(path.parent / EVAL_SCRIPT.name)
    parts = _SECTION.split(text)
    prompts: dict[str, JudgePrompt] = {}
    family_of: dict[str, str] = {}
    for header, body in zip(parts[1::2], parts[2::2]):
        tasks = []
        for name in (n.strip() for n in re.split(r"[、,]", header) if n.strip()):
            task = task_of_name(name)
            if task is None:
                raise ConfigError(f"{path}: section '# type {header}': cannot tell which task {name!r} is")
            if task in family_of:
                raise ConfigError(f"{path}: a second rubric for {name!r}")
            tasks.append(task)
        missing = [p for p in _PLACEHOLDERS if p not in body]
        if missing:
            raise ConfigError(f"{path}: section '# type {header}' has no {missing[0]} placeholder")
        family = "+".join(sorted(tasks))
        user = body.strip().replace("$", "$$")
        for placeholder, name in _PLACEHOLDERS.items():
            user = user.replace(placeholder, name)
        digest = hashlib.sha256(f"{system}\n{user}".encode()).hexdigest()[:12]
        template = PromptTemplate(
            name=f"knowme_release_{family.lower().replace('+', '_')}",
            version=digest,
            messages=(("system", system), ("user", user)),
            source=f"{path}: # type {header}",
        )
        prompts[family] = TemplateJudgePrompt(template, _values_for(template), _parser("reasoning"))
        family_of.update({task: family for task in tasks})
    missing_tasks = [t for t in ("T1", "T2", "T3", "T4", "T5", "T6", "T7") if t not in family_of]
    if missing_tasks:
        raise ConfigError(f"{path}: no '# type' rubric for {', '.join(missing_tasks)}")
    return Rubric(prompts, family_of, f"the authors' rubric, read at run time from {path} (system line {system_from})")


def _system_line(script: Path) -> tuple[str, str]:
    """The judge's system message as the release's script sends it, or ours."""
    try:
        found = _SYSTEM_LINE.search(read_text(script))
    except (OSError, UnicodeDecodeError):
        found = None
    if found:
        try:
            return str(json.loads(found.group(1))), f"from {script}"
        except ValueError:
            pass
    return OUR_SYSTEM, "ours"


def _values_for(template: PromptTemplate) -> Callable[[Item, Answer], Mapping[str, str]]:
    with_family = "family" in template.variables

    def values(item: Item, answer: Answer) -> dict[str, str]:
        out = {"question": item.view.question, "reference": reference_of(item), "answer": judged_answer(answer)}
        if with_family:
            out["family"] = INSIGHT_FAMILIES.get(item.strata.get("task", ""), INSIGHT_FAMILIES["T7"])
        return out

    return values


def _parser(reason_key: str) -> Callable[[str], Verdict]:
    return lambda text: parse_score(text, low=0, high=5, reason_key=reason_key)


def _parse_band(text: str) -> Verdict:
    verdict = parse_score(text, low=0, high=5)
    if verdict.score not in (0.0, 3.0, 5.0):
        raise InvalidOutput(f"score {verdict.score:g} is not one of 0, 3, 5")
    return verdict


def judged_answer(answer: Answer) -> str:
    return ABSTENTION_ANSWER if answer.abstained else (answer.label or "")


def reference_of(item: Item) -> str:
    """The reference answer the judge reads (set by the catalog for every item)."""
    return str(item.private["reference"])


def generated_reference(scoring: str, gold: Any, slots: Mapping[str, Any]) -> str:
    """A generated gold written out as a reference answer."""
    options: Mapping[str, str] = slots.get("options") or {}

    def ordered(letters: list[str]) -> str:
        return " > ".join(f"({x}) {options[x]}" if x in options else x for x in letters)

    if scoring == "entities":
        return "; ".join(gold["entities"])
    if scoring == "abstain":
        return ABSTENTION_REFERENCE
    if scoring == "duration":
        return format_duration(gold["seconds"])
    if scoring == "years":
        return f"{gold['years']} years"
    if scoring in ("order", "ranking"):
        return ordered(list(gold["order"]))
    if scoring == "state":
        return str(gold["value"])
    if scoring == "cue":
        return f"the {gold['modality']} of {gold['cue']}"
    return str(gold["reference"])
