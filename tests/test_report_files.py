"""The report files: written atomically, strict JSON, and the HTML explorer renders.

The audit's cases: SIGKILL during a report write left the previous good JSON or HTML
report at 0 bytes (`write_html` truncated the file before rendering), and a memory score of
NaN or inf wrote bare `NaN`/`Infinity` into the JSON report and killed the HTML explorer
(`JSON.parse` failed and the explorer stayed hidden).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_memeval.rendering import html as html_module
from pytest_memeval.rendering.explorer import data_element, script
from pytest_memeval.rendering.html import write_html
from pytest_memeval.results.records import Record, RecordedMemory, Report, RunKey

TIMEOUT_S = 300
NODE = shutil.which("node")


def _report(score: float | None = 0.5) -> Report:
    key = RunKey("toy", "context")
    memory = RecordedMemory("The city of ada is lima.", "m1", score, 24)
    record = Record("ada-city", key, "toy", "ada", "ada", "city", "scored", correct=True, memories=(memory,))
    return Report({}, (), (record,))


def test_a_failing_render_leaves_the_previous_page_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "report.html"
    write_html(page, _report())
    before = page.read_text()

    def killed(*args: object) -> str:
        raise KeyboardInterrupt  # the run is interrupted while the page renders

    monkeypatch.setattr(html_module, "packed_element", killed)
    with pytest.raises(KeyboardInterrupt):
        write_html(page, _report())
    assert page.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file left


def test_a_report_is_replaced_in_one_rename_never_rewritten_in_place(tmp_path: Path) -> None:
    """A second name of the old file keeps the old content: the new one is a new file that
    was complete before it took the name (a write in place would have changed both)."""
    from pytest_memeval.files.atomic_file import write_atomic

    target, other_name = tmp_path / "report.json", tmp_path / "old.json"
    target.write_text('{"old": true}\n')
    os.link(target, other_name)
    write_atomic(target, '{"new": true}\n')
    assert target.read_text() == '{"new": true}\n' and other_name.read_text() == '{"old": true}\n'


def test_an_atomic_write_follows_a_link_and_keeps_the_permissions_of_open(tmp_path: Path) -> None:
    from pytest_memeval.files.atomic_file import write_atomic

    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old")
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    made = tmp_path / "made.json"
    with open(tmp_path / "by-open.json", "w"):
        pass
    write_atomic(made, "x")
    assert made.stat().st_mode == (tmp_path / "by-open.json").stat().st_mode


def test_pieces_larger_than_a_slice_are_written_whole_and_a_failing_piece_leaves_the_old_file(
    tmp_path: Path,
) -> None:
    """The writer encodes a slice of a piece at a time; the file holds every character, a
    character outside the BMP across a slice's edge included."""
    from pytest_memeval.files import atomic_file

    target = tmp_path / "page.html"
    big = "a" * (atomic_file._SLICE - 1) + "\U0001f600" + "é" * (atomic_file._SLICE + 3)
    atomic_file.write_atomic(target, ["<p>", big, "</p>"])
    assert target.read_text(encoding="utf-8") == f"<p>{big}</p>"

    def pieces_then_interrupted() -> Iterator[str]:
        yield big
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_file.write_atomic(target, pieces_then_interrupted())
    assert target.read_text(encoding="utf-8") == f"<p>{big}</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_non_finite_scores_never_reach_the_explorer_data() -> None:
    for score in (math.nan, math.inf, -math.inf):
        memory = RecordedMemory.of("text", "m", score)
        assert memory.score is None
    with pytest.raises(ValueError):  # a value that slipped past the guards is refused, not written
        data_element(_report(math.nan))


@pytest.mark.slow
def test_nan_and_inf_scores_give_strict_reports_and_an_explorer_that_renders(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    report, page = toy_pytester.path / "report.json", toy_pytester.path / "report.html"
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py",
        "--memsystem=faulty_adapters:NaNScore",
        f"--memeval-report={report}",
        f"--memeval-html={page}",
        timeout=TIMEOUT_S,
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    text = report.read_text()
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"the JSON report holds {c}"))
    assert {m["score"] for r in data["records"] for m in r["memories"]} == {None}
    if NODE is not None:
        assert explorer_shows(page.read_text(), tmp_path) == {"hidden": False, "count": "12 of 12 items"}


#: the explorer's script against a minimal stand-in for the DOM: what it needs is that the
#: data parse and the script run to its end, where it shows the explorer and counts items
FAKE_DOM = r"""
const fs = require("fs");
const page = fs.readFileSync(process.argv[2], "utf8");
const script = fs.readFileSync(process.argv[3], "utf8");
const data = page.split('id="memeval-data">')[1].split("</script>")[0];
function fake(props = {}) {
  const target = function () {};
  Object.assign(target, props);
  return new Proxy(target, {
    get(t, p) {
      if (p in t) return t[p];
      if (p === Symbol.iterator) return function* () {};
      if (p === Symbol.toPrimitive) return () => "";
      return fake();
    },
    set(t, p, v) { t[p] = v; return true; },
    apply() { return fake(); },
  });
}
const elements = {"memeval-data": fake({textContent: data})};
const byId = (id) => elements[id] || (elements[id] = fake({value: "", checked: false, hidden: true,
                                                             tHead: fake(), tBodies: [fake()]}));
global.document = fake({getElementById: byId, createElement: () => fake()});
global.window = fake();
global.location = {hash: "#item=toy%2Fada-city"};
global.history = fake();
new Function(script)();
console.log(JSON.stringify({hidden: byId("explorer").hidden, count: byId("count").textContent}));
"""


def explorer_shows(page: str, tmp_path: Path) -> dict:
    assert NODE is not None
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    (tmp_path / "explorer.js").write_text(script(), encoding="utf-8")
    (tmp_path / "dom.js").write_text(FAKE_DOM, encoding="utf-8")
    done = subprocess.run(
        [NODE, str(tmp_path / "dom.js"), str(tmp_path / "page.html"), str(tmp_path / "explorer.js")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        return {"hidden": True, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_fake_dom_check_sees_a_broken_explorer(tmp_path: Path) -> None:
    """The check above can fail: the page the audit saw (NaN in the data) stays hidden."""
    page = html_module.render_html(_report())
    assert explorer_shows(page, tmp_path)["hidden"] is False
    broken = page.replace('"memory_scores":["k",[0.5]]', '"memory_scores":["k",[NaN]]')
    assert broken != page
    assert explorer_shows(broken, tmp_path)["hidden"] is True


@pytest.mark.slow
def test_a_run_replaces_its_report_files_instead_of_rewriting_them(toy_pytester: pytest.Pytester) -> None:
    """Each report file gets a second name before the run: after it, that name still holds
    the old content, so the run never wrote into the old file (where a kill leaves it empty)."""
    report, page = toy_pytester.path / "report.json", toy_pytester.path / "report.html"
    for target in (report, page):
        target.write_text("the previous report\n")
        os.link(target, target.with_name(target.name + ".previous"))
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=context", f"--memeval-report={report}", f"--memeval-html={page}", timeout=TIMEOUT_S
    )
    assert result.ret == pytest.ExitCode.OK
    assert json.loads(report.read_text())["schema"] == "memeval-report/2" and "<html" in page.read_text()
    for target in (report, page):
        assert target.with_name(target.name + ".previous").read_text() == "the previous report\n"
    assert sorted(p.name for p in toy_pytester.path.glob(".*.tmp")) == []
