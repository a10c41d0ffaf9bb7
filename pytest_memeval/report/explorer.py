"""The HTML page's item explorer: every record as JSON data, and the small script that
shows them (search; filter by suite, run, status, failure stage, stratum, flaky, judges
disagreeing; one item with its question, memories, answer and verdict, each judge's verdict
where a panel graded it, two runs side by side).

The data go into a `<script type="application/json">` element, which the browser never
runs; every `<`, `>` and `&` in it is written as a JSON escape, so no text of a record can
close the element or open another. Memory texts are stored once and referred to by
index (the items of one context retrieve from the same few hundred texts). The script is
a constant file of this package, allowed by its SHA-256 in the page's
Content-Security-Policy; nothing else may run and nothing may be fetched.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from importlib.resources import files
from typing import Any

from ..records import Record, Report
from .failures import stage_of
from .judge_sensitivity import panel_verdicts

#: characters of a record's detail (and answer detail) shown, as compact JSON
DETAIL_CHARS = 1500
DATA_ID = "memeval-data"


@lru_cache(maxsize=1)
def script() -> str:
    return files("pytest_memeval.report").joinpath("explorer.js").read_text(encoding="utf-8")


def script_hash() -> str:
    """The CSP source that allows exactly the explorer's script."""
    digest = base64.b64encode(hashlib.sha256(script().encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def stage(record: Record) -> str:
    """Where an item ended: passed, a judge's failure stage, abstained, wrong, invalid or error."""
    if record.status != "scored":
        return record.status
    if record.correct is None:
        return "scored"
    if record.correct:
        return "passed"
    return stage_of(record)


def explorer_data(report: Report) -> dict[str, Any]:
    """Runs, memory texts and items (each with its records, one per run and repeat)."""
    keys = {suite: report.keys_of(suite) for suite in report.suites()}
    runs: dict[Any, int] = {}
    run_list: list[dict[str, str]] = []
    for run in report.runs:
        runs[run.key] = len(run_list)
        run_list.append(
            {"suite": run.key.suite, "label": run.key.label(keys[run.key.suite] or None), "full": run.key.label()}
        )
    texts: dict[str, int] = {}
    items: dict[tuple[str, str], dict[str, Any]] = {}
    for record in report.records:
        if record.key not in runs:  # a record of a run the report does not list
            runs[record.key] = len(run_list)
            run_list.append({"suite": record.key.suite, "label": record.key.label(), "full": record.key.label()})
        item = items.setdefault(
            (record.key.suite, record.id),
            {
                "suite": record.key.suite,
                "id": record.id,
                "question": record.question,
                "task": record.task,
                "strata": dict(record.strata),
                "gold": _short_json(record.gold),
                "records": [],
            },
        )
        item["question"] = item["question"] or record.question
        item["records"].append(_record(record, runs[record.key], texts))
    flaky = _flaky(items.values())
    disagree = {
        (run.key.suite, item)
        for run in report.runs
        if run.judge_sensitivity is not None
        for item, _, _ in run.judge_sensitivity.disagreements
    }
    return {
        "runs": run_list,
        "texts": list(texts),
        "items": [dict(item, flaky=key in flaky, disagree=key in disagree) for key, item in items.items()],
        "flips": [
            {
                "suite": c.suite,
                "a": runs.get(c.a),
                "b": runs.get(c.b),
                "source": c.source,
                "labels": list(c.labels(keys.get(c.suite) or None)),
                "items": [[f.id, f.a, f.b] for f in c.flipped],
            }
            for c in report.comparisons
            if c.flipped
        ],
    }


def _record(record: Record, run: int, texts: dict[str, int]) -> dict[str, Any]:
    memories = [[texts.setdefault(m.text, len(texts)), m.id, m.score, m.length] for m in record.memories]
    verdicts = panel_verdicts(record)
    return {
        "run": run,
        "repeat": record.repeat,
        "status": record.status,
        "stage": stage(record),
        "correct": record.correct,
        "score": record.score,
        "answer": record.answer,
        "abstained": record.abstained,
        "reason": record.reason,
        "judge": record.judge_reason,
        "raw": record.raw[:DETAIL_CHARS],
        "n_memories": record.n_memories,
        "memories": memories,
        "detail": _short_json(record.detail),
        "answer_detail": _short_json(record.answer_detail),
        # each judge's verdict where a panel of several graded the record
        "judges": [[name, verdict] for name, verdict in verdicts.items()] if len(verdicts) > 1 else [],
    }


def _flaky(items: Any) -> set[tuple[str, str]]:
    """Items whose verdict differs between repeats of one run."""
    flaky = set()
    for item in items:
        verdicts: dict[int, set[Any]] = {}
        for record in item["records"]:
            if record["correct"] is not None:
                verdicts.setdefault(record["run"], set()).add(record["correct"])
        if any(len(v) > 1 for v in verdicts.values()):
            flaky.add((item["suite"], item["id"]))
    return flaky


def _short_json(value: Any) -> str:
    """Compact JSON, cut at DETAIL_CHARS (the JSON report keeps it whole)."""
    if value is None or value == {} or value == "":
        return ""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=isinstance(value, Mapping), default=str)
    )
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + " \u2026"


def data_element(report: Report) -> str:
    """The data as a JSON script element that no record's text can break out of."""
    # strict: JSON.parse in the browser rejects NaN and Infinity, and the explorer with it
    text = json.dumps(explorer_data(report), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return f'<script type="application/json" id="{DATA_ID}">{text}</script>'


def script_element() -> str:
    return f"<script>{script()}</script>"


EXPLORER_SECTION = """<section id="items"><h2>Items</h2>
<p class="note">Every item of the run: search by id, question or answer; filter; open one to see
what the memory system returned, the answer and the verdict, two runs side by side.</p>
<noscript><p class="note">The item explorer needs JavaScript; the JSON report
(--memeval-report) holds the same records.</p></noscript>
<div id="explorer" hidden>
<div class="controls">
<input id="q" type="search" placeholder="search id, question, answer" aria-label="search">
<select id="f-suite" aria-label="suite"></select>
<select id="f-run" aria-label="run"></select>
<select id="f-status" aria-label="status"></select>
<select id="f-stage" aria-label="failure stage"></select>
<select id="f-stratum" aria-label="stratum"></select>
<label><input id="f-flaky" type="checkbox"> flaky only</label>
<label id="f-disagree-label" hidden><input id="f-disagree" type="checkbox"> judges disagree</label>
</div>
<div id="detail" hidden></div>
<p id="count" class="note" aria-live="polite"></p>
<div class="scroll"><table id="list"><thead></thead><tbody></tbody></table></div>
<button id="more" type="button" hidden>show more</button>
</div></section>"""
