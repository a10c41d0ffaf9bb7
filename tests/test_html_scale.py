"""The HTML page at any size: the headline comparison on the first screen, the explorer's
data in columns (a page that grows by what each record holds), read only when first used
or once the page is idle, and shown a page of rows at a time; the explorer driven in node
against a small stand-in for the DOM (tests/explorer_dom.js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from pytest_memeval.analysis.session_report import Headline
from pytest_memeval.rendering.explorer import DATA_ID, explorer_data, packed_data, page_data, script, unpack
from pytest_memeval.rendering.html import render_html
from pytest_memeval.results.records import (
    JudgeSensitivity,
    Metric,
    Record,
    RecordedMemory,
    Report,
    RunKey,
    RunSummary,
    SuiteSummary,
)

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
DOM = Path(__file__).parent / "explorer_dom.js"
REPORT = Path(__file__).parent / "data" / "html_report.json"
HOSTILE = "<img src=x onerror=alert(1)></script>"
SYSTEMS = ("context", "chroma")
PAGE = 50  # rows per page of the explorer


def small_report() -> Report:
    return Report.from_json(json.loads(REPORT.read_text(encoding="utf-8")))


def large_report(n_items: int) -> Report:
    """Two systems on `n_items` items of one suite, 40 items per persona; the items of a
    persona retrieve from the same 12 memory texts (as the context system does); every 97th
    item has two judges that disagree; one question is hostile markup."""
    keys = [RunKey("multisource", system) for system in SYSTEMS]
    records = []
    for index in range(n_items):
        persona, question = divmod(index, 40)
        texts = [
            f"persona {persona:04d}, event {m}: slept {6 + m % 3} hours on day {m} of the diary" for m in range(12)
        ]
        for run, key in enumerate(keys):
            correct = (index + run) % 5 != 0
            kept = texts[run : run + 10]
            records.append(
                Record(
                    f"p{persona:04d}-q{question:02d}",
                    key,
                    "multisource",
                    f"p{persona:04d}",
                    f"p{persona:04d}",
                    "ABCDEFG"[question % 7] + str(question % 3),
                    "scored",
                    strata={"type": "ABCDEFG"[question % 7], "difficulty": ("stable", "temporal_shift")[index % 2]},
                    answer="20_or_more" if correct else "10_to_19",
                    correct=correct,
                    score=float(correct),
                    gold="20_or_more",
                    n_memories=120,
                    detail={} if correct else {"attribution": "critical_spans"},
                    stage="" if correct else ("retrieval", "reading")[index % 2],
                    answer_detail={"margin": round((index * 7919 % 1000) / 1000, 3), "reader": "nbf-skip"},
                    question=HOSTILE
                    if index == 7
                    else f"In the past 30 days, how many nights (template {question % 18})?",
                    memories=tuple(RecordedMemory.of(text, str(m), None) for m, text in enumerate(kept)),
                    judge_reason=f"gold '20_or_more' (good_nights={index % 31}/30)",
                )
            )
    ids = [f"p{i // 40:04d}-q{i % 40:02d}" for i in range(0, n_items, 97)]
    panel = JudgeSensitivity(("j1", "j2"), n_items, {}, (), tuple((i, 0, {"j1": True, "j2": False}) for i in ids))
    runs = tuple(
        RunSummary(
            key,
            n_items,
            n_items,
            0,
            0,
            SuiteSummary(metrics={"accuracy": Metric(0.8, (0.78, 0.82))}),
            judge_sensitivity=panel if run == 0 else None,
        )
        for run, key in enumerate(keys)
    )
    return Report({}, runs, tuple(records))


# --- the first screen -------------------------------------------------------------------


def section(page: str, name: str) -> str:
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def test_the_headline_comparison_comes_before_every_other_table() -> None:
    page = render_html(small_report())
    headline = section(page, "headline")
    first_table = page.index("<table")
    assert page.index('<section id="headline">') < first_table < page.index("</section>", first_table)
    for later in ('id="gates"', 'id="suite-1-multisource"', 'id="items"', "memeval-data"):
        assert page.index('<section id="headline">') < page.index(later)
    # suites as rows, runs as columns, each cell the headline metric with its interval
    assert "<th>context</th><th>chroma</th>" in headline
    assert "<tr><th>multisource</th><td>accuracy</td>" in headline
    assert '0.709<br><span class="ci">[0.651, 0.766]</span>' in headline
    assert "<tr><th>memfail</th><td>recall@k</td>" in headline and "[0.400, 0.600]" in headline
    # the paired differences: significant in bold, with interval and Holm p
    assert '<tr class="sig"><td>multisource</td><td>context</td><td>chroma</td><td>accuracy</td>' in headline
    assert '+0.128 <span class="ci">[0.078, 0.178]</span></td><td class="num">0.002</td>' in headline
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in headline and "<script>alert" not in page
    assert page.index('<a href="#headline">Headline</a>') < page.index('<a href="#items">Items</a>')


def test_the_headline_metric_is_the_suite_s_choice() -> None:
    report = small_report()
    headlines: dict[RunKey, Headline | None] = {run.key: Headline("coverage") for run in report.runs_of("multisource")}
    headline = section(render_html(report, headlines=headlines), "headline")
    assert "<tr><th>multisource</th><td>coverage</td>" in headline
    assert "<td>context</td><td>chroma</td><td>coverage</td>" in headline  # the difference in that metric
    assert "<tr><th>memfail</th><td>recall@k</td>" not in headline  # no headline named for memfail's runs


# --- the data, in columns ---------------------------------------------------------------


@pytest.fixture(scope="module")
def large() -> tuple[Report, str]:
    report = large_report(3000)
    return report, render_html(report)


def test_packed_data_unpack_to_the_rows(large: tuple[Report, str]) -> None:
    report, page = large
    rows = explorer_data(report)
    assert page_data(page) == json.loads(json.dumps(rows))
    assert unpack(packed_data(report))["items"][7]["question"] == HOSTILE


def test_the_page_grows_by_what_each_record_holds(large: tuple[Report, str]) -> None:
    """Per record, the page carries its own values once: not the keys of every field (the
    rows form of the data, what the page embedded before, 600 bytes a record here), not the
    memory texts again for every item that retrieved them."""
    report, page = large
    n = len(report.records)
    rows = json.dumps(explorer_data(report), ensure_ascii=False, separators=(",", ":"))
    texts = sum(len(text) for text in explorer_data(report)["texts"])
    small = render_html(large_report(40))
    per_record = (len(page) - len(small)) / (n - 80)
    assert len(rows) / n > 550
    # what differs per record here: its id, margin and a few codes (measured: 49 bytes)
    assert per_record < 64 + texts / n, per_record
    assert len(page) < len(rows) / 8


def test_the_data_cannot_break_out_of_its_element(large: tuple[Report, str]) -> None:
    _, page = large
    opening = f'<script type="application/json" id="{DATA_ID}">'
    start = page.index(opening) + len(opening)
    text = page[start : page.index("</script>", start)]
    assert "<" not in text and ">" not in text and "&" not in text
    assert HOSTILE not in page


# --- the explorer in node ---------------------------------------------------------------


class Elements(HTMLParser):
    """The explorer section's elements with an id: their tag and whether they start hidden."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, dict[str, Any]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if named.get("id") and named["id"] != DATA_ID:
            self.found[str(named["id"])] = {"tag": tag, "hidden": "hidden" in named}


def drive(page: str, scenario: str, tmp_path: Path, address: str = "") -> Any:
    """Run the page's explorer script in node against explorer_dom.js; the scenario's result."""
    assert NODE is not None
    start = page.index('<section id="items">')
    elements = Elements()
    elements.feed(page[start : page.index("</section>", start)])
    opening = f'<script type="application/json" id="{DATA_ID}">'
    data = page[page.index(opening) + len(opening) :].split("</script>")[0]
    state = {"elements": elements.found, "hash": address}
    files = {"state.json": json.dumps(state), "data.txt": data, "explorer.js": script(), "scenario.js": scenario}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [NODE, str(DOM), *(str(tmp_path / name) for name in files)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@needs_node
def test_the_data_are_read_only_once_the_page_has_loaded(large: tuple[Report, str], tmp_path: Path) -> None:
    found = drive(
        large[1],
        "const before = {parsed: h.parsed.count, ...h.state()}; h.load();"
        "return {before, after: {parsed: h.parsed.count, ...h.state()}};",
        tmp_path,
    )
    assert found["before"] == {
        "parsed": 0,
        "hidden": True,
        "count": "",
        "page": "",
        "prev": False,
        "next": False,
        "rows": [],
    }
    after = found["after"]
    assert after["parsed"] == 1 and not after["hidden"]
    assert after["count"] == "3000 of 3000 items" and after["page"] == "page 1 of 60"
    assert after["rows"] == [f"p0000-q{i:02d}" for i in range(40)] + [f"p0001-q{i:02d}" for i in range(10)]
    assert (after["prev"], after["next"]) == (False, True)


@needs_node
def test_pages_and_filters_cover_every_item(large: tuple[Report, str], tmp_path: Path) -> None:
    report, page = large
    found = drive(
        page,
        """h.load();
        const pages = [h.state()];
        h.click(h.byId.next); pages.push(h.state());
        h.click(h.byId.prev); pages.push(h.state());
        while (!h.byId.next.hidden) h.click(h.byId.next);
        pages.push(h.state());
        h.set("q", "p0074-q39"); const searched = h.state();
        h.set("q", ""); h.set("f-disagree", true); const disagree = h.state();
        h.click(h.byId.next); const disagreePage2 = h.state();
        h.set("f-disagree", false); h.set("f-status", "failed"); const failed = h.state();
        h.set("f-status", ""); h.set("f-stage", "reading"); const reading = h.state();
        h.set("f-stage", ""); h.set("f-run", "1"); h.set("f-stratum", "difficulty=stable"); const stable = h.state();
        return {pages, searched, disagree, disagreePage2, failed, reading, stable,
                stages: h.options("f-stage"), offered: !h.byId["f-disagree-label"].hidden};""",
        tmp_path,
    )
    first, second, back, last = found["pages"]
    assert second["page"] == "page 2 of 60" and second["prev"] and second["rows"][0] == "p0001-q10"
    assert len(second["rows"]) == PAGE and not set(second["rows"]) & set(first["rows"])
    assert back == first
    assert last["page"] == "page 60 of 60" and last["rows"][-1] == "p0074-q39" and not last["next"]
    # the search, and every filter, go through all 3000 items, not the page shown
    assert found["searched"]["rows"] == ["p0074-q39"] and found["searched"]["count"] == "1 of 3000 items"
    disagreeing = [f"p{i // 40:04d}-q{i % 40:02d}" for i in range(0, 3000, 97)]
    assert found["offered"] and found["disagree"]["count"] == f"{len(disagreeing)} of 3000 items"
    assert found["disagree"]["rows"] == disagreeing  # 31 items, one page
    assert found["disagreePage2"]["page"] == "" and found["disagreePage2"]["rows"] == disagreeing
    wrong = {r.id for r in report.records if r.correct is False}
    assert found["failed"]["count"] == f"{len(wrong)} of 3000 items" and found["failed"]["page"] == "page 1 of 24"
    reading = {r.id for r in report.records if r.stage == "reading"}
    assert found["reading"]["count"] == f"{len(reading)} of 3000 items"
    assert found["stages"] == ["", "reading", "retrieval"]
    assert found["stable"]["count"] == "1500 of 3000 items"


@needs_node
def test_an_item_of_a_later_page_opens_with_its_memories_and_hostile_text_stays_text(
    large: tuple[Report, str], tmp_path: Path
) -> None:
    found = drive(
        large[1],
        """h.load();
        h.click(h.byId.next);
        const link = h.links().find((a) => a.textContent === "p0001-q20");
        h.click(link);
        const detail = h.byId.detail;
        const opened = {hidden: detail.hidden, text: detail.textContent, hash: location.hash,
                        memories: detail.all((n) => n.className === "memory").map((n) => n.textContent)};
        h.set("q", "onerror");
        h.click(h.links()[0]);
        return {opened, hostile: {rows: h.rows(), question: detail.all((n) => n.className === "field")[0].textContent,
                                  markup: detail.all((n) => n.tagName === "IMG").length}};""",
        tmp_path,
    )
    opened = found["opened"]
    assert not opened["hidden"] and opened["hash"] == "#item=multisource%2Fp0001-q20"
    assert "question: In the past 30 days, how many nights (template 2)?" in opened["text"]
    assert "expected: 20_or_more" in opened["text"] and "answer: 20_or_more" in opened["text"]
    assert opened["memories"][0] == "persona 0001, event 0: slept 6 hours on day 0 of the diary"
    assert len(opened["memories"]) == 20  # ten per system, side by side
    assert '"margin"' in opened["text"]  # the reader's detail, printed from its JSON value
    assert found["hostile"]["rows"] == ["p0000-q07"]
    assert found["hostile"]["question"] == f"question: {HOSTILE}" and found["hostile"]["markup"] == 0


@needs_node
def test_an_item_named_in_the_address_opens_without_waiting_for_the_load(tmp_path: Path) -> None:
    """A link into the report (#item=...) reads the data at once and opens the item."""
    found = drive(
        render_html(large_report(80)),
        "return {parsed: h.parsed.count, ...h.state(), detail: h.byId.detail.textContent.slice(0, 9)};",
        tmp_path,
        address="#item=multisource%2Fp0001-q03",
    )
    assert found["parsed"] == 1 and not found["hidden"] and found["count"] == "80 of 80 items"
    assert found["detail"] == "p0001-q03"


def test_a_detail_too_long_is_cut_and_an_empty_one_left_out() -> None:
    report = large_report(2)
    long_detail = {"trace": "x" * 5000}
    records = (replace(report.records[0], answer_detail=long_detail), *report.records[1:])
    rows = page_data(render_html(replace(report, records=records)))
    first = rows["items"][0]["records"][0]
    assert isinstance(first["answer_detail"], str) and first["answer_detail"].endswith(" \u2026")
    assert rows["items"][0]["records"][1]["answer_detail"] == {"margin": 0.0, "reader": "nbf-skip"}
    assert first["detail"] == {"attribution": "critical_spans"} and rows["items"][0]["records"][1]["detail"] == ""
