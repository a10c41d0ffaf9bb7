"""docs/index.md lists every page of the documentation, and the README links the FAQ."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def test_the_index_lists_every_page() -> None:
    linked = set(re.findall(r"\]\(([\w./-]+\.md)\)", (DOCS / "index.md").read_text(encoding="utf-8")))
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.glob("*.md")} - {"index.md"}
    assert sorted(pages - linked) == [], "pages docs/index.md does not list"
    assert "suites/index.md" in linked  # which lists each suite's page


def test_the_readme_links_the_faq() -> None:
    assert "(docs/faq.md)" in (REPO / "README.md").read_text(encoding="utf-8")
