"""How fast the --memeval-html page of a large run shows its first screen in headless Chromium,
against a small run's page, in A/B pairs alternated in the same minutes.

    python benchmarks/bench_html_report.py --run [--size full] [--split all] [--keep DIR] [--pairs 5]
    python benchmarks/bench_html_report.py LARGE.html SMALL.html [--pairs 5]

--run first runs the plugin itself twice, `pytest --memsystem=context --memeval-suite=multisource
--memeval-size=SIZE --memeval-split=SPLIT -n 0 --memeval-html=...` (full, all: 34,560 items,
about 5 minutes on 2 cores) and the same at --memeval-size=smoke (216 items) for the
reference page, in temporary directories (the pages kept in --keep DIR if given).

Each page is opened in a fresh headless Chromium (`chromium --headless
--remote-debugging-pipe`, no network, a new profile) driven over the DevTools protocol
(JSON messages on file descriptors 3 and 4, so nothing but the standard library is
needed). Each arm (large page, small page) is opened once to warm up, then --pairs pairs
(benchmarks/paired.py: the two pages back to back, their order alternating). What is
read, in ms since the navigation started, by the browser's own clock (`performance`
entries, so the browser's start-up is not counted):

- first paint and first contentful paint (the `paint` entries): the first screen drawn;
- DOMContentLoaded and load (`PerformanceNavigationTiming`): the page parsed / its script ran;
- explorer ready: when the item explorer shows its first page of rows (the explorer marks
  `memeval-explorer-ready`; a page without the mark is polled for the explorer's rows);
- headline on first screen: whether the headline comparison (`#headline`) starts inside
  the first 1280x800 viewport (every open of both pages);

and `dump-dom s`: the wall time of a whole `chromium --headless --dump-dom` process on the
page (start-up included), the figure issue 28 quoted. Prints each run, then per figure the
medians of each page and the median of the per-pair ratios (large / small) with its range
and the load averages.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from paired import Figures, load_average, median_of, ratio_line, run_pairs  # benchmarks/, the script's own directory

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
#: the page is local and its policy forbids every request: no network flags needed; no GPU here
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
FLAGS.append("--window-size=1280,800")  # the first screen the headline must start in
TIMEOUT_S = 180
#: the page's own timings, in ms since navigation started
METRICS = ("first_paint", "first_contentful_paint", "dom_content_loaded", "load", "explorer_ready")
#: what the page reports about itself once loaded (the browser's clock, ms since navigation start)
PROBE = """(() => {
  const paint = Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]));
  const nav = performance.getEntriesByType('navigation')[0] || {};
  const ready = performance.getEntriesByName('memeval-explorer-ready')[0];
  const explorer = document.getElementById('explorer');
  const rows = document.querySelectorAll('#list tbody tr').length;
  const headline = document.getElementById('headline');
  return JSON.stringify({
    first_paint: paint['first-paint'] ?? null,
    first_contentful_paint: paint['first-contentful-paint'] ?? null,
    dom_content_loaded: nav.domContentLoadedEventEnd ?? null,
    load: nav.loadEventEnd || null,
    explorer_ready: ready ? ready.startTime : (explorer && !explorer.hidden && rows ? performance.now() : null),
    rows,
    headline_on_first_screen: headline ? headline.getBoundingClientRect().top < 800 : false,
  });
})()"""


class DevTools:
    """One headless Chromium driven over --remote-debugging-pipe (fd 3: to the browser, fd 4: from it)."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def wire() -> None:  # in the child, before exec: the pipe ends on the fds Chromium expects
            ends = os.dup(to_browser), os.dup(from_browser)  # above 4, so neither dup2 overwrites the other
            os.dup2(ends[0], 3)  # inheritable, unlike the pipe's own ends
            os.dup2(ends[1], 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
            start_new_session=True,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.events: list[tuple[float, dict[str, Any]]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append((time.perf_counter(), reply))

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        os.close(self._write)
        os.close(self._read)


def open_page(path: Path, workdir: Path) -> dict[str, Any]:
    """One fresh browser opens the page; the page's own timings once its explorer is ready."""
    browser = DevTools(workdir / f"profile-{time.monotonic_ns()}")
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.enable", session=session)
        browser.send("Page.bringToFront", session=session)
        browser.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            found = json.loads(
                browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)[
                    "result"
                ]["value"]
            )
            if found["load"] and found["explorer_ready"] is not None and found["first_contentful_paint"] is not None:
                return found
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path}: not loaded after {TIMEOUT_S}s: {found}")
            time.sleep(0.05)
    finally:
        browser.close()


def dump_dom_seconds(path: Path, workdir: Path) -> float:
    """Wall time of one whole `chromium --headless --dump-dom` process on the page."""
    assert CHROMIUM is not None
    started = time.perf_counter()
    subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={workdir / f'dump-{time.monotonic_ns()}'}", "--dump-dom", path.as_uri()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=TIMEOUT_S,
        check=True,
    )
    return time.perf_counter() - started


def measure(path: Path, workdir: Path) -> Figures:
    """One fresh browser's figures of the page, and one --dump-dom process's seconds."""
    opened = open_page(path, workdir)
    figures = {f"{name}_ms": float(opened[name]) for name in METRICS if opened[name] is not None}
    figures["headline_on_first_screen"] = float(opened["headline_on_first_screen"])
    figures["dump_dom_s"] = dump_dom_seconds(path, workdir)
    return figures


def run_plugin(size: str, split: str, target: Path) -> float:
    """The plugin's own page of a real run; the run's wall seconds."""
    with tempfile.TemporaryDirectory(prefix="memeval-html-run-") as tmp:
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--memsystem=context",
                "--memeval-suite=multisource",
                f"--memeval-size={size}",
                f"--memeval-split={split}",
                "-p",
                "no:cacheprovider",
                "-n",
                "0",
                "-q",
                f"--memeval-html={target}",
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode not in (0, 1) or not target.exists():
            raise SystemExit(f"pytest exited {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        return time.perf_counter() - started


def machine() -> str:
    load = os.getloadavg()
    return f"{platform.node()}: {os.cpu_count()} cores, load average {load[0]:.1f}, {platform.machine()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", type=Path, help="LARGE.html SMALL.html (without --run)")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--run", action="store_true", help="first write both pages with real multisource runs")
    parser.add_argument("--size", default="full")
    parser.add_argument("--split", default="all")
    parser.add_argument("--keep", type=Path, help="with --run: keep the pages in this directory")
    parser.add_argument("--json", type=Path, help="also write every pair's figures here")
    options = parser.parse_args()
    if CHROMIUM is None:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    if options.run == bool(options.pages) or (options.pages and len(options.pages) != 2):
        parser.error("give --run, or the two pages LARGE.html SMALL.html")
    print(machine())
    with tempfile.TemporaryDirectory(prefix="memeval-bench-html-") as tmp:
        workdir = Path(tmp)
        if options.run:
            folder = options.keep or workdir
            folder.mkdir(parents=True, exist_ok=True)
            large, small = folder / "report.html", folder / "report-smoke.html"
            for size, split, target in ((options.size, options.split, large), ("smoke", "all", small)):
                print(f"run {size}/{split}: {run_plugin(size, split, target):.1f} s, page {target}", flush=True)
        else:
            large, small = options.pages
        print(
            f"large: {large} ({large.stat().st_size / 1e6:.2f} MB)\nsmall: {small} ({small.stat().st_size / 1e6:.2f} MB)"
        )

        def report(pair: int, arm: str, figures: Figures) -> None:
            cells = ", ".join(f"{name} {value:.0f}" for name, value in figures.items() if name.endswith("_ms"))
            print(f"  pair {pair}, {arm}: {cells}, dump-dom {figures['dump_dom_s']:.2f} s, load {load_average():.1f}")

        arms = {"large": partial(measure, large, workdir), "small": partial(measure, small, workdir)}
        pairs = run_pairs(arms, options.pairs, report)
        for name in (*(f"{m}_ms" for m in METRICS), "dump_dom_s"):
            if not all(name in pair[arm] for pair in pairs for arm in arms):
                print(f"{name}: not reported by every open")
                continue
            ratios = [pair["large"][name] / pair["small"][name] for pair in pairs]
            unit = "s" if name.endswith("_s") else "ms"
            digits = 2 if unit == "s" else 0
            print(
                f"{name}: large {median_of(pairs, 'large', name):.{digits}f} {unit}, small "
                f"{median_of(pairs, 'small', name):.{digits}f} {unit} (medians); "
                + ratio_line("large / small", ratios, pairs)
            )
        on_screen = all(pair[arm]["headline_on_first_screen"] for pair in pairs for arm in arms)
        print(f"headline on the first screen in every open: {on_screen}")
        if options.json:
            options.json.write_text(json.dumps({"machine": machine(), "pairs": [p.arms for p in pairs]}, indent=1))


if __name__ == "__main__":
    main()
