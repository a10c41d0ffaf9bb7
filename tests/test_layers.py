"""The package's layers point one way: a module imports only from its own layer or below.

Every import statement of every module counts: at the top of a module, inside a function,
under `if TYPE_CHECKING:` (a type names what a module knows as much as a call does). The
graph comes from the source text (ast), in this process, in well under a second. The
order is written here once; docs/contributing.md shows the same table, and the second test
keeps the two equal.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "pytest_memeval"

#: the layers from the bottom up: (name, the modules in it as patterns of dotted names; a
#: pattern covers the module and everything below it)
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "types and errors",
        ("pytest_memeval.types", "pytest_memeval.errors", "pytest_memeval.printable", "pytest_memeval.child_processes"),
    ),
    ("files", ("pytest_memeval.files",)),
    ("configuration", ("pytest_memeval.config",)),
    ("results", ("pytest_memeval.results",)),
    ("statistics", ("pytest_memeval.stats",)),
    ("LLM clients and the gateway", ("pytest_memeval.llm", "pytest_memeval.prompts")),
    ("memory adapters", ("pytest_memeval.memory",)),
    ("the framework's contract for suites", ("pytest_memeval.protocols", "pytest_memeval.framework")),
    ("running", ("pytest_memeval.running",)),
    ("the bundled suites", ("pytest_memeval.suites",)),
    ("analysis", ("pytest_memeval.analysis",)),
    ("campaigns", ("pytest_memeval.campaigns",)),
    ("rendering", ("pytest_memeval.rendering",)),
    (
        "the entry points and the public API",
        ("pytest_memeval.plugin", "pytest_memeval.__main__", "pytest_memeval.suites.test_*", "pytest_memeval"),
    ),
    ("the conformance kit", ("pytest_memeval.testing",)),
)


def source_files() -> Iterator[tuple[str, Path]]:
    """(dotted module name, file) of every module the package installs; the repository's
    suites/ installs as pytest_memeval.suites (pyproject's package-dir)."""
    for root, name in ((REPO / PACKAGE, PACKAGE), (REPO / "suites", f"{PACKAGE}.suites")):
        for path in sorted(root.rglob("*.py")):
            parts = [name, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def imports(module: str, path: Path, known: set[str]) -> Iterator[tuple[int, str]]:
    """(line, imported module of the package) for every import statement in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in statements(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` imports the module
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in dict.fromkeys(names):
            if name == PACKAGE or name.startswith(f"{PACKAGE}."):
                yield node.lineno, name


def statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement, however deeply nested in others (an import is a statement: the
    expressions, most of the tree, need not be walked)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        statement = pending.pop()
        yield statement
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(statement, field, ()):
                pending.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])


def layer_of(module: str) -> int:
    """The index of the module's layer: the layer of its most specific pattern."""
    best: tuple[int, int] | None = None
    for index, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            covers = fnmatchcase(module, pattern) or fnmatchcase(module, f"{pattern}.*")
            if covers and (best is None or len(pattern) > best[0]):
                best = (len(pattern), index)
    assert best is not None, f"{module} is in no layer: place it in LAYERS (and docs/contributing.md)"
    return best[1]


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    modules = dict(source_files())
    assert len(modules) > 300  # the whole package, the bundled suites included
    known = set(modules)
    upward = []
    for module, path in modules.items():
        own = layer_of(module)
        for line, imported in imports(module, path, known):
            target = layer_of(imported)
            if target > own:
                where = path.relative_to(REPO)
                upward.append(f"{where}:{line} imports {imported} ({LAYERS[target][0]} is above {LAYERS[own][0]})")
    assert upward == [], "\n".join(upward)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "if TYPE_CHECKING:\n"
        "    from ..rendering.html import write_html\n"
        "def later():\n"
        "    import pytest_memeval.campaigns.merge\n"
        "    from .. import analysis\n",
        encoding="utf-8",
    )
    known = {"pytest_memeval.config.sibling", "pytest_memeval.analysis"}
    assert sorted(imports("pytest_memeval.config.probe", module, known)) == [
        (2, "pytest_memeval.config.sibling"),
        (4, "pytest_memeval.rendering.html"),
        (6, "pytest_memeval.campaigns.merge"),
        (7, "pytest_memeval.analysis"),
    ]
    assert layer_of("pytest_memeval.suites.test_locomo") > layer_of("pytest_memeval.suites.locomo.suite")
    assert layer_of("pytest_memeval") > layer_of("pytest_memeval.rendering.html")


def test_the_contributors_guide_shows_the_layers_in_this_order() -> None:
    page = (REPO / "docs" / "contributing.md").read_text(encoding="utf-8")
    section = page[page.index("## Layers") :]
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \| ([^|]+) \|$", section, re.MULTILINE)
    shown = [(int(number), name.strip(), tuple(re.findall(r"`([^`]+)`", modules))) for number, name, modules in rows]
    expected = [
        (index + 1, name, tuple(p if p == PACKAGE else p.removeprefix(f"{PACKAGE}.") for p in patterns))
        for index, (name, patterns) in enumerate(LAYERS)
    ]
    assert shown == expected
