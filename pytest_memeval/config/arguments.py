"""What a run collects: the bundled suites when no test path is given, and bundled suite
files named the way pytest printed them.

With --memsystem and no test paths, a run collects the bundled suites from the installed
package. When that package lies outside the rootdir (a user's repository), pytest prints
their ids relative to the package's directory: `test_memfail.py::test_memfail[s42-...]`.
Pasted back from any directory, such an id names a file that is not there; it is resolved
here to the bundled module of that name (when the invocation directory has no file of
that name), collected from the same directory, so its items keep the ids that were printed.

Both happen in `pytest_load_initial_conftests`, before pytest decides its arguments: the
header names no testpaths, and a repository's own test conftests (found through its
`testpaths`) are not loaded for a run of the bundled suites.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: the separator of a node id's parts
SEP = "::"


@dataclass(frozen=True)
class BundledSelection:
    """Items of one bundled module: all of them (`within` empty), or those whose id within
    the module is `within` (a test function or class, with or without its parameters)."""

    module: str
    within: str = ""

    def matches(self, module: str, id_within: str) -> bool:
        if module != self.module:
            return False
        if not self.within:
            return True
        return id_within == self.within or id_within.startswith((self.within + "[", self.within + SEP))


@dataclass(frozen=True)
class Collection:
    """The positional arguments a run collects, and what of the bundled suites it selects."""

    args: tuple[str, ...]
    #: True when the run collects the bundled suites because no test path was given
    bundled_default: bool = False
    #: items of bundled modules named by a pasted id; empty: every bundled item collected
    selections: tuple[BundledSelection, ...] = ()

    @property
    def bundled_only(self) -> bool:
        """Whether the run collects nothing but bundled suites (so every suite it runs is known now)."""
        return self.bundled_default or (bool(self.selections) and len(self.args) == 1)

    def selects(self, module: str, id_within: str) -> bool:
        return not self.selections or any(s.matches(module, id_within) for s in self.selections)


def resolve(args: Sequence[str], memsystem: str | None, invocation_dir: Path, bundled_dir: Path) -> Collection:
    """The run's positional arguments. With --memsystem: the bundled directory when no path
    is given; each argument naming a bundled module that does not exist where pytest was
    started, replaced by the bundled directory (once) and a selection."""
    if not memsystem:  # the plugin stays out of the way
        return Collection(tuple(args))
    if not args:
        return Collection((str(bundled_dir),), bundled_default=True)
    modules = {path.name for path in bundled_dir.glob("test_*.py")}
    kept: list[str] = []
    selections: list[BundledSelection] = []
    for arg in args:
        path, _, within = arg.partition(SEP)
        name = Path(path).name
        if name in modules and not (invocation_dir / path).exists():
            selections.append(BundledSelection(name, within))
        else:
            kept.append(arg)
    if selections:
        kept.append(str(bundled_dir))
    return Collection(tuple(kept), selections=tuple(selections))
