"""The HTML page's item explorer: every record as JSON data, and the small script that
shows them a page of rows at a time (search; filter by suite, run, status, failure stage,
stratum, flaky, judges disagreeing; one item with its question, memories, answer and
verdict, each judge's verdict where a panel graded it, two runs side by side).

The data go into a `<script type="application/json">` element, which the browser never
runs; every `<`, `>` and `&` in it is written as a JSON escape, so no text of a record can
close the element or open another. The data are columns (`packed_data`): no key repeats
per record, and memory texts are stored once and referred to by index (the items of one
context retrieve from the same few hundred texts). The script parses them only when the
reader first uses the explorer, opens an `#item=` address, or the browser is idle after
the page has loaded, so the first screen never waits on them. The script is
a constant file of this package, allowed by its SHA-256 in the page's
Content-Security-Policy; nothing else may run and nothing may be fetched.
"""

from __future__ import annotations

import base64
import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib.resources import files
from typing import Any

from ..analysis.judge_sensitivity import panel_verdicts
from ..results.records import Record, Report, RunKey
from .failures import stage_of

#: characters of a record's detail (and answer detail) shown, as compact JSON
DETAIL_CHARS = 1500
DATA_ID = "memeval-data"


@lru_cache(maxsize=1)
def script() -> str:
    return files("pytest_memeval.rendering").joinpath("explorer.js").read_text(encoding="utf-8")


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
    """Runs, memory texts and items (each with its records, one per run and repeat): the
    rows `packed_data` packs and `unpack` gives back."""
    runs = _Runs(report)
    texts: dict[str, int] = {}
    items: dict[tuple[str, str], dict[str, Any]] = {}
    for record in report.records:
        item = items.setdefault((record.key.suite, record.id), {**_item(record), "records": []})
        item["question"] = item["question"] or record.question
        item["records"].append(_record(record, runs.index(record.key), texts))
    flaky = _flaky(items.values())
    disagree = _disagreeing(report)
    return {
        "runs": runs.table,
        "texts": list(texts),
        "items": [dict(item, flaky=key in flaky, disagree=key in disagree) for key, item in items.items()],
        "flips": _flips(report, runs),
    }


class _Runs:
    """The explorer's table of runs: the report's, then any run only a record names."""

    def __init__(self, report: Report) -> None:
        self.keys = {suite: report.keys_of(suite) for suite in report.suites()}
        self.numbers: dict[Any, int] = {}
        self.table: list[dict[str, str]] = []
        for run in report.runs:
            self.numbers[run.key] = len(self.table)
            label = run.key.label(self.keys[run.key.suite] or None)
            self.table.append({"suite": run.key.suite, "label": label, "full": run.key.label()})

    def index(self, key: RunKey) -> int:
        if key not in self.numbers:  # a record of a run the report does not list
            self.numbers[key] = len(self.table)
            self.table.append({"suite": key.suite, "label": key.label(), "full": key.label()})
        return self.numbers[key]


def _item(record: Record) -> dict[str, Any]:
    """An item's fields, from its first record (the question: the first one not empty)."""
    return {
        "suite": record.key.suite,
        "id": record.id,
        "question": record.question,
        "task": record.task,
        "strata": dict(record.strata),
        "gold": _short_json(record.gold),
    }


def _disagreeing(report: Report) -> set[tuple[str, str]]:
    """Items whose judges disagreed, by (suite, item id)."""
    return {
        (run.key.suite, item)
        for run in report.runs
        if run.judge_sensitivity is not None
        for item, _, _ in run.judge_sensitivity.disagreements
    }


def _flips(report: Report, runs: _Runs) -> list[dict[str, Any]]:
    return [
        {
            "suite": c.suite,
            "a": runs.numbers.get(c.a),
            "b": runs.numbers.get(c.b),
            "source": c.source,
            "labels": list(c.labels(runs.keys.get(c.suite) or None)),
            "items": [[f.id, f.a, f.b] for f in c.flipped],
        }
        for c in report.comparisons
        if c.flipped
    ]


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
        "detail": _short_value(record.detail),
        "answer_detail": _short_value(record.answer_detail),
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


def _short_value(value: Any) -> Any:
    """A judge's or reader's detail as a JSON value when short (the explorer prints it), else
    its compact JSON cut at DETAIL_CHARS; "" when empty. As a value, not a string of JSON,
    it needs no escaped quotes: a third less to carry on multisource's reader detail."""
    if value is None or value == {} or value == "":
        return ""
    if isinstance(value, str):
        return _short_json(value)
    text = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=isinstance(value, Mapping), default=str
    )
    return json.loads(text) if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + " \u2026"


#: the fields of an item and of a record, each stored as one column (see `packed_data`)
ITEM_COLUMNS = ("suite", "id", "question", "task", "strata", "gold", "flaky", "disagree")
RECORD_COLUMNS = (
    "run",
    "repeat",
    "status",
    "stage",
    "correct",
    "score",
    "answer",
    "abstained",
    "reason",
    "judge",
    "raw",
    "n_memories",
    "detail",
    "answer_detail",
    "judges",
)


def packed_data(report: Report) -> dict[str, Any]:
    """The explorer's data in columns: items, then their records (contiguous, item by item),
    each field one column; a record's memories are four columns of lists (text indexes, ids,
    scores, characters not kept). A column of few distinct values is stored as a dictionary
    and codes (the items of one context mostly get the same memories), a column of one value
    once. No key repeats per record, so the page grows by what each record holds (`unpack`
    reverses it).

    Made in one pass over the records, one at a time (the report's records may be read from
    disk as they come): each column keeps its distinct values and a code per record; the
    records are put in item order at the end."""
    runs = _Runs(report)
    texts: dict[str, int] = {}
    items: dict[tuple[str, str], int] = {}
    item_columns = {name: _Column() for name in ITEM_COLUMNS[:6]}
    questions: dict[int, str] = {}  # items whose first record had no question
    record_columns = {name: _Column() for name in (*RECORD_COLUMNS, *MEMORY_COLUMNS)}
    item_of = array("q")
    verdicts: dict[tuple[int, int], set[Any]] = {}
    for record in report.records:
        key = (record.key.suite, record.id)
        if key not in items:
            items[key] = len(items)
            for name, value in _item(record).items():
                item_columns[name].add(value)
            if not record.question:
                questions[items[key]] = ""
        number = items[key]
        if number in questions and not questions[number]:
            questions[number] = record.question
        item_of.append(number)
        row = _record(record, runs.index(record.key), texts)
        for name in RECORD_COLUMNS:
            record_columns[name].add(row[name])
        for name, values in _memory_columns(record, row["memories"]).items():
            record_columns[name].add(values)
        if row["correct"] is not None:
            verdicts.setdefault((number, row["run"]), set()).add(row["correct"])
    for number, question in questions.items():
        item_columns["question"].set(number, question)
    n_records = Counter(item_of)
    flaky = {number for (number, _), seen in verdicts.items() if len(seen) > 1}
    disagree = _disagreeing(report)
    order = sorted(range(len(item_of)), key=item_of.__getitem__)  # stable: each item's records in report order
    item_keys = list(items)
    packed_items = {name: column.packed() for name, column in item_columns.items()}
    packed_items["flaky"] = _Column.of([number in flaky for number in range(len(items))]).packed()
    packed_items["disagree"] = _Column.of([key in disagree for key in item_keys]).packed()
    packed_items["n_records"] = _Column.of([n_records[number] for number in range(len(items))]).packed()
    return {
        "runs": runs.table,
        "texts": list(texts),
        "flips": _flips(report, runs),
        "counts": {"items": len(items), "records": len(item_of)},
        "items": {name: packed_items[name] for name in (*ITEM_COLUMNS, "n_records")},
        "records": {name: column.packed(order) for name, column in record_columns.items()},
    }


#: a record's memories, as four columns of lists (see `packed_data`)
MEMORY_COLUMNS = ("memory_texts", "memory_ids", "memory_scores", "memory_cuts")


def _memory_columns(record: Record, memories: list[list[Any]]) -> dict[str, list[Any]]:
    """Text indexes, ids, scores and the characters not kept (0 unless the text was
    shortened) of the record's `memories` (as `_record` lists them)."""
    return {
        "memory_texts": [m[0] for m in memories],
        "memory_ids": [m[1] for m in memories],
        "memory_scores": [m[2] for m in memories],
        "memory_cuts": [m.length - len(m.text) for m in record.memories],
    }


class _Column:
    """One column as it is filled: its distinct values (by `_key`) and each row's code."""

    def __init__(self) -> None:
        self._codes: dict[Any, int] = {}
        self._values: list[Any] = []
        self._rows = array("q")

    def add(self, value: Any) -> None:
        key = _key(value)
        if key not in self._codes:
            self._codes[key] = len(self._values)
            self._values.append(value)
        self._rows.append(self._codes[key])

    def set(self, row: int, value: Any) -> None:
        """Row `row` holds `value` instead."""
        key = _key(value)
        if key not in self._codes:
            self._codes[key] = len(self._values)
            self._values.append(value)
        self._rows[row] = self._codes[key]

    @classmethod
    def of(cls, values: Sequence[Any]) -> _Column:
        column = cls()
        for value in values:
            column.add(value)
        return column

    def packed(self, order: Sequence[int] | None = None) -> list[Any]:
        """The column, its rows in `order` (None: as added): ["k", value] when every value
        is the same, ["d", dictionary, codes] when at most half of them are distinct (the
        dictionary in the order the rows first hold them), else ["v", values]."""
        rows: Sequence[int] = self._rows if order is None else [self._rows[i] for i in order]
        codes: dict[int, int] = {}
        indexes = []
        for code in rows:
            if code not in codes:
                codes[code] = len(codes)
            indexes.append(codes[code])
        dictionary = [self._values[code] for code in codes]
        if len(dictionary) == 1:
            return ["k", dictionary[0]]
        if 2 * len(dictionary) <= len(rows):
            return ["d", dictionary, indexes]
        return ["v", [self._values[code] for code in rows]]


_CANONICAL = json.JSONEncoder(sort_keys=True, default=str)


def _key(value: Any) -> Any:
    """A hashable key equal only for equal JSON values (True and 1 differ, as in JSON)."""
    if isinstance(value, list):
        if not any(isinstance(v, (dict, list)) for v in value):  # a record's memories: fast
            return (list, tuple(map(type, value)), tuple(value))
    elif isinstance(value, dict):
        if not any(isinstance(v, (dict, list)) for v in value.values()):  # an item's strata
            return (dict, tuple(value), tuple(map(type, value.values())), tuple(value.values()))
    else:
        return (type(value), value)
    return _CANONICAL.encode(value)


def unpack(packed: Mapping[str, Any]) -> dict[str, Any]:
    """The rows `packed_data` packed, as `explorer_data` gives them (what the script rebuilds)."""
    counts, texts = packed["counts"], packed["texts"]
    items, records = _table(packed["items"], counts["items"]), _table(packed["records"], counts["records"])
    record_rows = []
    for index in range(counts["records"]):
        row = {name: records[name][index] for name in RECORD_COLUMNS}
        lists = (records[f"memory_{name}"][index] for name in ("texts", "ids", "scores", "cuts"))
        row["memories"] = [[t, i, s, len(texts[t]) + c] for t, i, s, c in zip(*lists)]
        record_rows.append(row)
    item_rows, start = [], 0
    for index in range(counts["items"]):
        row = {name: items[name][index] for name in ITEM_COLUMNS}
        row["records"] = record_rows[start : start + items["n_records"][index]]
        start += items["n_records"][index]
        item_rows.append(row)
    rest = {k: v for k, v in packed.items() if k not in ("counts", "items", "records")}
    return {**rest, "items": item_rows}


def _table(columns: Mapping[str, list[Any]], n: int) -> dict[str, list[Any]]:
    decoded = {}
    for name, (kind, *rest) in columns.items():
        decoded[name] = [rest[0]] * n if kind == "k" else [rest[0][c] for c in rest[1]] if kind == "d" else rest[0]
    return decoded


def page_data(page: str) -> dict[str, Any]:
    """The explorer's data read back from a page, as rows (for checks of a written page)."""
    opening = f'<script type="application/json" id="{DATA_ID}">'
    start = page.index(opening) + len(opening)
    return unpack(json.loads(page[start : page.index("</script>", start)]))


def data_element(report: Report) -> str:
    return packed_element(packed_data(report))


def packed_element(packed: Mapping[str, Any]) -> str:
    """The data as a JSON script element that no record's text can break out of."""
    # strict: JSON.parse in the browser rejects NaN and Infinity, and the explorer with it
    text = json.dumps(packed, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
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


def explorer_section(packed: Mapping[str, Any]) -> str:
    """The explorer's controls; the script fills them once it has read the data (when the
    reader first uses them, else when the browser is idle after the page loaded)."""
    n = packed["counts"]["items"]
    disagree = any(_table({"disagree": packed["items"]["disagree"]}, n)["disagree"])
    return f"""<section id="items"><h2>Items</h2>
<p class="note">Every item of the run ({n:,}): search by id, question or answer; filter; open one to see
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
<label id="f-disagree-label"{"" if disagree else " hidden"}><input id="f-disagree" type="checkbox"> judges disagree</label>
</div>
<div id="detail" hidden></div>
<p id="count" class="note" aria-live="polite"></p>
<div class="scroll"><table id="list"><thead></thead><tbody></tbody></table></div>
<div class="controls"><button id="prev" type="button" hidden>previous</button>
<span id="page" class="note"></span><button id="next" type="button" hidden>next</button></div>
</div></section>"""
