"""The --memeval-html page: figure specs, SVG, page structure, escaping, determinism, the
item explorer's data, and a real headless browser (Debian's chromium) that must render
every figure, fetch nothing, and let a reader find an item and open it."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from msgspec.structs import replace

from pytest_memeval.framework.figures import (
    BarChart,
    DotPlot,
    Figure,
    ForestPlot,
    LineChart,
    LineSeries,
    ReferenceLine,
    Series,
    StackedBarChart,
    figure_from_json,
    figure_to_json,
)
from pytest_memeval.rendering.explorer import DATA_ID, explorer_data, script, script_hash, stage, unpack
from pytest_memeval.rendering.html import CSP, render_html, write_html
from pytest_memeval.rendering.report_figures import comparison_figure
from pytest_memeval.rendering.svg import render_svg
from pytest_memeval.results.records import RecordedMemory, Report, RunKey, RunSummary

#: two systems on multisource (3 breakdowns x 4 metrics, a paired comparison and one against a
#: baseline, gates) and a memfail run by a system with a hostile name
REPORT = Path(__file__).parent / "data" / "html_report.json"
HOSTILE = "<script>alert('x')</script>"
#: multisource: 3 breakdowns x 4 metrics + 1 forest; memfail: 1 breakdown x 1 metric (its only
#: comparison has no difference, so no forest); plus the 5 suite figures
EXPECTED_FIGURES = 12 + 1 + 1 + 5


def make_report() -> Report:
    return Report.from_json(json.loads(REPORT.read_text(encoding="utf-8")))


LATENCY = ("write session", "update facts", "delete facts", "search", "rerank", "compose", "answer", "judge")


def _risk_coverage(centre: float) -> tuple[tuple[float, float], ...]:
    return tuple((c / 20, round((1 - centre) * (c / 20) ** 1.6, 4)) for c in range(1, 21))


def extra_figures() -> list[Figure]:
    bayes = tuple((t, round(1 - 0.5 * 0.7**t, 4)) for t in range(11))
    observed = tuple((t, round(1 - 0.5 * 0.75**t + (0.03 if t % 3 == 0 else -0.02), 4)) for t in range(11))
    return [
        LineChart(
            title="multisource: risk-coverage",
            x_label="coverage",
            y_label="selective risk",
            x_range=(0.0, 1.0),
            y_range=(0.0, 0.5),
            series=[
                LineSeries("context", _risk_coverage(0.74)),
                LineSeries("chroma", _risk_coverage(0.61)),
                LineSeries(HOSTILE, _risk_coverage(0.5), markers=True),
            ],
            reference_lines=[ReferenceLine(0.26, "y", "context risk at full coverage")],
            caption="Selective risk when answering only the most confident share of items.",
        ),
        LineChart(
            title="Belief trajectory of the model over ten evidence steps, against the posterior of an ideal "
            "Bayesian observer who starts from the same prior and reads the same evidence",
            x_label="evidence step",
            y_label="P(hypothesis)",
            y_range=(0.0, 1.0),
            series=[
                LineSeries("model belief", observed, markers=True),
                LineSeries("Bayesian posterior", bayes, reference=True),
            ],
            reference_lines=[ReferenceLine(0.5, "y", "prior")],
        ),
        StackedBarChart(
            title="memfail: where retrieval fails",
            categories=["LoCoMo / context", "LoCoMo / chroma", "LongMemEval / context", "LongMemEval / chroma"],
            segments=["ok", "not written", "not retrieved", "misread"],
            values=[[70, 5, 15, 10], [52, 8, 30, 10], [64, 3, 21, 12], [40, 9, 41, 10]],
            caption="Share of items by the first stage at which they failed.",
        ),
        DotPlot(
            title="Per-subject accuracy by condition",
            rows=[f"subject {i:02d}" for i in range(1, 9)],
            series=[
                Series(
                    "with memory", [{"value": 0.6 + 0.03 * i, "ci": [0.5 + 0.03 * i, 0.7 + 0.03 * i]} for i in range(8)]
                ),
                Series("without memory", [0.45 + 0.02 * i for i in range(7)] + [None]),
            ],
            value_label="accuracy",
            value_range=(0.0, 1.0),
        ),
        BarChart(
            title="Latency per operation",
            categories=[f"{verb} per item" for verb in LATENCY],
            series=[
                Series("context", [12.0, 3.1, 410.5, 2.2, 4.4, 1.1, 8.0, 9.9]),
                Series(
                    "chroma",
                    [
                        {"value": 35.2, "ci": [30.1, 40.9]},
                        {"value": 18.7, "ci": [15.0, 22.4]},
                        None,
                        5.0,
                        6.0,
                        7.0,
                        8.0,
                        9.0,
                    ],
                ),
            ],
            value_label="ms per item",
            category_label="operation",
        ),
    ]


class Tags(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def parse(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(make_report(), extra_figures())


# --- figure specs -----------------------------------------------------------------------


@pytest.mark.parametrize("figure", extra_figures(), ids=lambda f: f.kind)
def test_figure_specs_round_trip_through_json(figure: Any) -> None:
    data = json.loads(json.dumps(figure_to_json(figure)))
    assert data["kind"] == figure.kind
    assert figure_from_json(data) == figure


def test_figure_specs_take_report_estimates_and_lists() -> None:
    chart = BarChart("t", ["a", "b"], [Series("s", [{"value": 0.5, "ci": [0.4, 0.6]}, None])])
    assert chart.series[0].values[0].label() == "0.500 [0.400, 0.600]"
    assert chart.series[0].values[1] is None
    assert hash(chart)  # frozen, tuples throughout
    nan = Series("s", [float("nan")])
    assert nan.values[0].value is None


def test_figure_specs_reject_inconsistent_shapes() -> None:
    with pytest.raises(ValueError, match="2 categories"):
        BarChart("t", ["a", "b"], [Series("s", [0.1])])
    with pytest.raises(ValueError, match="range"):
        LineChart("t", [LineSeries("s", [(0, 0)])], x_range=(1.0, 0.0))
    with pytest.raises(ValueError, match="negative"):
        StackedBarChart("t", ["a"], ["x", "y"], [[1, -1]])
    with pytest.raises(ValueError, match="unknown figure kind"):
        figure_from_json({"kind": "pie"})


# --- SVG --------------------------------------------------------------------------------


@pytest.mark.parametrize("figure", extra_figures(), ids=lambda f: f.kind)
def test_svg_is_well_formed_labelled_and_deterministic(figure: Any) -> None:
    svg = render_svg(figure, "fig-x", xmlns=True)
    assert svg == render_svg(figure, "fig-x", xmlns=True)
    root = ElementTree.fromstring(svg)  # well-formed XML, so also valid inline in HTML
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("role") == "img" and root.get("aria-labelledby") == "fig-x-title fig-x-desc"
    assert root.find(f"{ns}title").text == figure.title
    assert root.find(f"{ns}desc").text
    assert len(root.findall(f".//{ns}text")) >= 5  # title, ticks, labels
    assert "<script" not in svg.lower()


def test_svg_escapes_every_label() -> None:
    figure = DotPlot(HOSTILE, [HOSTILE], [Series(HOSTILE, [0.5])], value_label=HOSTILE, caption=HOSTILE)
    svg = render_svg(figure, "x", xmlns=True)
    assert "<script" not in svg
    ElementTree.fromstring(svg)


def test_forest_plot_shows_every_comparison_cell() -> None:
    forest = comparison_figure(make_report(), "multisource")
    assert isinstance(forest, ForestPlot)
    labels = [row.label for row in forest.rows]
    assert labels[:2] == ["accuracy: context \u2212 chroma", "coverage: context \u2212 chroma"]
    assert forest.rows[-1].label == "coverage: chroma \u2212 baseline chroma"
    assert forest.rows[0].note == "+0.128  p(Holm)=0.002"


# --- the page ---------------------------------------------------------------------------


def test_page_has_every_section_and_figure(page: str) -> None:
    tags = parse(page)
    svgs = [attrs for tag, attrs in tags if tag == "svg"]
    assert len(svgs) == EXPECTED_FIGURES
    ids = [attrs["id"] for attrs in svgs]
    assert ids == [f"fig-{i}" for i in range(1, EXPECTED_FIGURES + 1)]
    section_ids = {attrs.get("id") for tag, attrs in tags if tag in ("section", "details")}
    assert {"settings", "gates", "suite-1-multisource", "suite-2-memfail", "suite-figures", "items"} <= section_ids
    # each suite folds; its figures and breakdowns are folded shut, so the page opens short
    suites = [attrs for tag, attrs in tags if tag == "details" and "suite" in (attrs.get("class") or "")]
    assert len(suites) == 2 and all("open" in attrs for attrs in suites)
    folded = [attrs for tag, attrs in tags if tag == "details" and not attrs.get("class")]
    assert folded and not any("open" in attrs for attrs in folded)
    titles = [html.unescape(t) for t in re.findall(r'<title id="fig-\d+-title">([^<]*)</title>', page)]
    assert len(titles) == EXPECTED_FIGURES
    assert titles[-5:] == [figure.title for figure in extra_figures()]
    expected = {"multisource: accuracy by type", "multisource: paired differences", "memfail: recall@k by stage"}
    assert expected <= set(titles)


def test_page_shows_the_numbers(page: str) -> None:
    report = make_report()
    context = report.runs[0].metrics["accuracy"]
    assert context.value is not None and context.ci[0] is not None and context.ci[1] is not None
    assert f"{context.value:.3f}" in page and f"[{context.ci[0]:.3f}, {context.ci[1]:.3f}]" in page
    assert "+0.128" in page and "[0.078, 0.178]" in page  # difference and its CI
    assert "&lt;0.001" in page and "0.002" in page  # p and Holm p
    assert "paired bootstrap" in page and "0.061" in page  # test and MDE
    assert "0.950" in page  # a suite's extra scalar (source_reachability)
    assert page.count('class="badge pass">PASS') == 1 and page.count('class="badge fail">FAIL') == 1
    assert "gates: 1 passed, 1 failed" in page
    assert "no-regression" in page and "context 0.741 &gt;= 0.6" in page


def test_page_escapes_hostile_strings(page: str) -> None:
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    scripts = [attrs for tag, attrs in parse(page) if tag == "script"]
    assert scripts == [{"type": "application/json", "id": DATA_ID}, {}]  # the data, then the explorer
    assert page.count("<script") == 2 and page.count("</script>") == 2
    for tag, attrs in parse(page):
        assert tag not in ("img", "iframe", "object", "embed", "link", "base")
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)


def test_explorer_data_cannot_close_its_element() -> None:
    hostile = "</script><script>alert(1)</script>\u2028&amp;"
    report = make_report()
    record = replace(
        report.records[0],
        question=hostile,
        answer=hostile,
        judge_reason=hostile,
        memories=(RecordedMemory.of(hostile, "m1", 0.5),),
    )
    page = render_html(replace(report, records=(record, *report.records[1:])))
    opening = f'<script type="application/json" id="{DATA_ID}">'
    start = page.index(opening) + len(opening)
    text = page[start : page.index("</script>", start)]
    assert "<" not in text and ">" not in text and "&" not in text
    data = unpack(json.loads(text))
    item = next(i for i in data["items"] if i["id"] == record.id)
    assert item["question"] == hostile and item["records"][0]["answer"] == hostile
    assert data["texts"][item["records"][0]["memories"][0][0]] == hostile


def test_explorer_data_holds_what_a_reviewer_needs() -> None:
    report = make_report()
    memories = (RecordedMemory.of("The capital is Oslo.", "c-1", 0.91), RecordedMemory.of("x" * 1500, None, None))
    record = replace(
        report.records[0],
        question="What is the capital?",
        answer="Lima",
        correct=False,
        judge_reason="expected Oslo",
        memories=memories,
        n_memories=12,
    )
    data = explorer_data(replace(report, records=(record, *report.records[1:])))
    item = next(i for i in data["items"] if i["id"] == record.id and i["suite"] == record.key.suite)
    assert item["question"] == "What is the capital?"
    runs = {data["runs"][r["run"]]["label"] for r in item["records"]}
    assert runs == {"context", "chroma"}  # both systems of the run on the same item
    mine = next(r for r in item["records"] if data["runs"][r["run"]]["label"] == "context")
    assert (mine["answer"], mine["correct"], mine["judge"], mine["stage"]) == (
        "Lima",
        False,
        "expected Oslo",
        "wrong answer",
    )
    assert [data["texts"][m[0]] for m in mine["memories"]][0] == "The capital is Oslo."
    assert mine["memories"][1][3] == 1500 and len(data["texts"][mine["memories"][1][0]]) == 1000
    assert mine["n_memories"] == 12


def test_a_failure_stage_comes_from_the_judge_or_the_status() -> None:
    record = make_report().records[0]
    assert stage(replace(record, correct=True)) == "passed"
    assert stage(replace(record, correct=False, stage="retrieval")) == "retrieval"
    assert stage(replace(record, correct=False, abstained=True)) == "abstained"
    assert stage(replace(record, status="error", correct=None, reason="boom")) == "error"


def test_page_loads_nothing(page: str) -> None:
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert "default-src 'none'" in CSP and f"script-src {script_hash()};" in CSP  # the explorer only
    assert "unsafe" not in CSP.replace("style-src 'unsafe-inline'", "")
    assert f"<script>{script()}</script>" in page
    assert not re.search(r"https?:|//[a-z0-9]|\burl\((?!#)|@import", page, re.IGNORECASE)
    for tag, attrs in parse(page):
        assert "src" not in attrs and "srcset" not in attrs
        href = attrs.get("href")
        assert href is None or href.startswith("#"), (tag, href)


def test_suite_figures_go_into_their_suite_section() -> None:
    figures = extra_figures()
    page = render_html(make_report(), {"multisource": figures[:1], "memfail": figures[1:2], "gone": figures[2:3]})
    multisource = page.index('id="suite-1-multisource"')
    memfail = page.index('id="suite-2-memfail"')
    closing = page.index('id="suite-figures"')
    assert multisource < page.index("multisource: risk-coverage</title>") < memfail
    assert memfail < page.index("Belief trajectory of the model") < closing
    assert closing < page.index("memfail: where retrieval fails</title>")  # a suite without runs
    assert page.count("<svg") == EXPECTED_FIGURES - 2


def test_page_is_deterministic(page: str) -> None:
    again = render_html(Report.from_json(make_report().to_json()), extra_figures())
    assert again == page


def test_write_html_writes_the_page(tmp_path: Path, page: str) -> None:
    target = tmp_path / "report.html"
    write_html(target, make_report(), extra_figures())
    assert target.read_text(encoding="utf-8") == page


def test_a_bare_report_still_renders() -> None:
    page = render_html(Report(settings={}, runs=(), records=()))
    assert page.startswith("<!DOCTYPE html>") and "<svg" not in page
    errored = RunSummary(RunKey("s", "m", "r"), n_items=3, n_scored=0, n_invalid=0, n_errors=3)
    assert ">3</td>" in render_html(Report(settings={}, runs=(errored,), records=()))


# --- a real browser ---------------------------------------------------------------------

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="no headless browser on PATH: apt-get install chromium to run the rendering checks"
)
WINDOW = (1280, 2000)
#: runs inside the page (allowed by its hash only) once it has loaded, and writes what it
#: measured into the DOM for --dump-dom
CHECK = """
const found = {violations: [], svgs: [], overflow: []};
document.addEventListener('securitypolicyviolation',
                          e => found.violations.push(e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('load', () => {
  for (const details of document.querySelectorAll('details')) details.open = true;
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    found.svgs.push([svg.id, box.width, box.height, svg.querySelectorAll('rect, line, circle, polyline').length]);
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBoundingClientRect();
      const outside = b.left < box.left - 1 || b.top < box.top - 1
                      || b.right > box.right + 1 || b.bottom > box.bottom + 1;
      if (b.width && outside)
        found.overflow.push([svg.id, t.textContent]);
    }
  }
  found.resources = performance.getEntriesByType('resource').map(e => e.name);
  found.width = document.documentElement.scrollWidth;
  const out = document.createElement('pre');
  out.id = 'memeval-check';
  out.textContent = JSON.stringify(found);
  document.body.append(out);
});
"""


def run_browser(profile: Path, *args: str, timeout: float = 90) -> str:
    """One headless chromium run with no network; the whole process group dies on timeout."""
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--hide-scrollbars",
        *args,
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"chromium did not finish within {timeout}s: {' '.join(command)}")
    if process.returncode != 0:
        pytest.fail(f"chromium exited with {process.returncode}: {err[-2000:]}")
    return out


def with_check(page: str, extra_body: str = "", check: str = CHECK) -> str:
    """The page with a check script inlined, allowed by its hash beside the explorer's: the
    policy still forbids everything else."""
    digest = base64.b64encode(hashlib.sha256(check.encode()).digest()).decode()
    page = page.replace(f"script-src {script_hash()}", f"script-src {script_hash()} 'sha256-{digest}'", 1)
    page = page.replace("</title>", f"</title><script>{check}</script>", 1)
    return page.replace("</main>", f"{extra_body}</main>", 1)


def measured(tmp_path: Path, page: str, url_suffix: str = "") -> dict[str, Any]:
    path = tmp_path / "check.html"
    path.write_text(page, encoding="utf-8")
    dom = run_browser(tmp_path / "profile", "--dump-dom", path.as_uri() + url_suffix)
    match = re.search(r'<pre id="memeval-check">(.*?)</pre>', dom, re.DOTALL)
    if not match:
        (tmp_path / "dumped.html").write_text(dom, encoding="utf-8")
    assert match, f"the check did not run; dumped DOM starts: {dom[:300]!r}"
    return json.loads(html.unescape(match.group(1)))


@needs_browser
def test_browser_renders_every_figure_and_fetches_nothing(tmp_path: Path, page: str) -> None:
    found = measured(tmp_path, with_check(page))
    assert [svg[0] for svg in found["svgs"]] == [f"fig-{i}" for i in range(1, EXPECTED_FIGURES + 1)]
    for name, width, height, marks in found["svgs"]:
        assert width > 300 and height > 100 and marks > 5, (name, width, height, marks)
    assert found["overflow"] == [], "text drawn outside its figure"
    assert found["violations"] == [] and found["resources"] == []
    assert found["width"] <= WINDOW[0], "the page is wider than the window"


@needs_browser
def test_browser_check_catches_a_request(tmp_path: Path, page: str) -> None:
    """The policy blocks an external image and the check reports it: the test above can fail."""
    found = measured(tmp_path, with_check(page, '<img alt="" src="http://192.0.2.1/pixel.png">'))
    assert found["violations"] and "192.0.2.1" in found["violations"][0]


@needs_browser
def test_browser_screenshot_is_not_blank(tmp_path: Path, page: str) -> None:
    path, shot = tmp_path / "report.html", tmp_path / "report.png"
    path.write_text(page, encoding="utf-8")
    run_browser(tmp_path / "profile", f"--screenshot={shot}", path.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == WINDOW
    # A blank page filters to a handful of byte values; text, bars and lines give hundreds.
    assert distinct_bytes(data) > 64


#: drives the explorer like a reader: search an id, open the first match, read what is shown;
#: then puts the opened item at the top of the page (a headless screenshot shows the top)
EXPLORE = """
window.addEventListener('load', () => {
  const found = {};
  const search = document.getElementById('q');
  search.value = 'ada-city';
  search.dispatchEvent(new Event('input'));
  found.rows = [...document.querySelectorAll('#list tbody tr')].map(row => row.cells[0].textContent);
  found.count = document.getElementById('count').textContent;
  document.querySelector('#list tbody a.item-link').click();
  const detail = document.getElementById('detail');
  found.hidden = detail.hidden;
  found.title = detail.querySelector('h3').textContent;
  found.sides = [...detail.querySelectorAll('.side')].map(side => ({
    run: side.querySelector('h4').textContent,
    verdicts: [...side.querySelectorAll('.record > div > .badge')].map(b => b.textContent),
    memories: [...side.querySelectorAll('.memory')].map(m => m.textContent),
    text: side.innerText,
  }));
  found.question = detail.querySelector('.field').textContent;
  found.lines = detail.innerText.split('\\n').map(line => line.trim());
  document.querySelector('main').prepend(detail);
  window.scrollTo(0, 0);
  const out = document.createElement('pre');
  out.id = 'memeval-check';
  out.textContent = JSON.stringify(found);
  document.body.append(out);
});
"""


def run_two_systems(toy_pytester: pytest.Pytester) -> str:
    """The HTML page of a real two-system run (toy suite, context against none)."""
    html_path = toy_pytester.path / "report.html"
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context,none", f"--memeval-html={html_path}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]  # none answers nothing
    return html_path.read_text(encoding="utf-8")


@pytest.mark.slow
@needs_browser
def test_browser_finds_an_item_opens_it_and_shows_memories_and_verdicts(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    page = with_check(run_two_systems(toy_pytester), check=EXPLORE)
    found = measured(tmp_path, page)
    assert found["rows"] == ["ada-city"] and found["count"] == "1 of 12 items"
    assert not found["hidden"] and found["title"] == "ada-city"
    assert found["question"] == "question: What is the city of ada?"
    context, none = found["sides"]
    assert (context["run"], none["run"]) == ("context", "none")  # side by side on the same item
    assert context["verdicts"] == ["passed"] and none["verdicts"] == ["failed (abstained)"]
    assert "The city of ada is lima." in context["memories"]
    assert "answer: lima" in context["text"] and none["memories"] == []
    shot = tmp_path / "item.png"
    path = tmp_path / "item.html"
    path.write_text(page, encoding="utf-8")
    run_browser(tmp_path / "profile-shot", f"--screenshot={shot}", path.as_uri())
    assert distinct_bytes(shot.read_bytes()) > 64  # the opened item is drawn, not a blank page


@pytest.mark.slow
@needs_browser
def test_an_item_of_a_one_system_run_shows_no_stray_null(toy_pytester: pytest.Pytester, tmp_path: Path) -> None:
    """With one run there is nothing to compare: the explorer leaves the controls out
    (it once wrote the missing node as the text "null" under the expected answer)."""
    html_path = toy_pytester.path / "report.html"
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", f"--memeval-html={html_path}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    found = measured(tmp_path, with_check(html_path.read_text(encoding="utf-8"), check=EXPLORE))
    assert found["title"] == "ada-city" and "expected: lima" in found["lines"]
    assert "null" not in found["lines"]


def distinct_bytes(png: bytes) -> int:
    """How many byte values the image data holds: a blank page has a handful, text hundreds."""
    chunks, offset = [], 8
    while offset < len(png):
        length, kind = int.from_bytes(png[offset : offset + 4], "big"), png[offset + 4 : offset + 8]
        if kind == b"IDAT":
            chunks.append(png[offset + 8 : offset + 8 + length])
        offset += 12 + length
    return len(set(zlib.decompress(b"".join(chunks))))
