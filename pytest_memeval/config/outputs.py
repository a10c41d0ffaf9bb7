"""The files a run writes, and the refusal of two of them at one path.

A run writes its JSON report (--memeval-report), the journal beside it, the HTML page
(--memeval-html), pytest's JUnit XML (--junitxml), the LLM call cache
(--memeval-llm-cache-file) and the run bundle (--memeval-bundle); a merge writes its report
and page. Two of them at one file
(named alike, through a symlink or a hard link) would leave only the one written last, or
nothing at all where one is the journal, which a complete run removes at its end. Such a
clash is refused before the run, in one line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError

#: what a journal's name adds to its report's stem
JOURNAL_SUFFIX = ".journal.jsonl"

#: (the option that names the file, the file in words, its path or None when not written)
Output = tuple[str, str, "Path | None"]


def journal_path(report: Path) -> Path:
    """run.json -> run.journal.jsonl, beside the report."""
    return report.with_name(f"{report.stem}{JOURNAL_SUFFIX}")


def run_outputs(
    report: Path | None, html: Path | None, junitxml: str | None, llm_cache: Path | None, bundle: Path | None = None
) -> list[Output]:
    """The files a run writes."""
    return [
        ("--memeval-report", "the JSON report (--memeval-report)", report),
        (
            "--memeval-report",
            "the journal beside --memeval-report, which a complete run removes",
            journal_path(report) if report is not None else None,
        ),
        ("--memeval-html", "the HTML report (--memeval-html)", html),
        ("--junitxml", "the JUnit XML (--junitxml)", Path(junitxml) if junitxml else None),
        ("--memeval-llm-cache-file", "the LLM call cache (--memeval-llm-cache-file)", llm_cache),
        ("--memeval-bundle", "the run bundle (--memeval-bundle)", bundle),
    ]


def check_outputs(outputs: Sequence[Output]) -> None:
    """A ConfigError (one line) when two of the outputs are one file."""
    seen: list[tuple[str, Path]] = []
    for option, what, path in outputs:
        if path is None:
            continue
        resolved = path.expanduser().resolve()  # through symlinks, also a dangling one
        for other, earlier in seen:
            if _same_file(resolved, earlier):
                raise ConfigError(f"{option}: {path} is also {other} ({resolved}): give each output a file of its own")
        seen.append((what, resolved))


def _same_file(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:  # one of them does not exist yet
        return False
