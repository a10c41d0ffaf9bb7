"""Old module paths, from before the package was laid out by concern, still import.

Until the layout of issue 26 the modules stood flat at the top of the package (records.py,
options.py, ...) beside `models/`, `report/` and `benchmarks/`. Code outside the plugin
imports some of them by those paths. `install()` puts a finder first on `sys.meta_path`
that answers only for the names in `MOVED` and below `MOVED_PACKAGES`: it imports the module at its new path and
registers that very module object under the old name too (so `isinstance` checks and
monkeypatching through either name see one module), with a `DeprecationWarning` naming the
new path. Any other name, and any old name not in the table, is left to the normal import
system.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import CodeType, ModuleType

_PACKAGE = "pytest_memeval"

#: old module path -> new module path, both below pytest_memeval (single modules, and the
#: modules of report/, which split between results/ and rendering/)
MOVED: dict[str, str] = {
    "adapter_guard": "running.adapter_guard",
    "adapter_values": "running.adapter_values",
    "arguments": "config.arguments",
    "atomic_file": "files.atomic_file",
    "campaign": "campaigns.campaign",
    "child_processes": "running.child_processes",
    "collection": "running.collection",
    "crashes": "running.crashes",
    "errors": "config.errors",
    "estimate": "campaigns.estimate",
    "evaluation": "running.evaluation",
    "exit_watch": "running.exit_watch",
    "extras": "config.extras",
    "fingerprint": "results.fingerprint",
    "fingerprinting": "results.fingerprinting",
    "fixtures": "running.fixtures",
    "gate_syntax": "config.gate_syntax",
    "journal": "campaigns.journal",
    "judge_specs": "config.judge_specs",
    "llm_options": "config.llm_options",
    "local_model": "llm.local_model",
    "local_session": "llm.local_session",
    "merge": "campaigns.merge",
    "option_values": "config.option_values",
    "options": "config.options",
    "prefetch": "running.prefetch",
    "prices": "results.prices",
    "progress": "running.progress",
    "record_values": "results.record_values",
    "records": "results.records",
    "redaction": "llm.redaction",
    "registry": "config.registry",
    "repetition": "running.repetition",
    "report": "results",
    "report.baseline": "results.baseline",
    "report.clusters": "results.clusters",
    "report.collector": "results.collector",
    "report.comparisons": "results.comparisons",
    "report.explorer": "rendering.explorer",
    "report.failures": "rendering.failures",
    "report.figures": "rendering.figures",
    "report.flakiness": "results.flakiness",
    "report.gates": "results.gates",
    "report.html": "rendering.html",
    "report.html_tables": "rendering.html_tables",
    "report.judge_sensitivity": "results.judge_sensitivity",
    "report.progress_display": "rendering.progress_display",
    "report.reading": "results.reading",
    "report.report_figures": "rendering.report_figures",
    "report.session_report": "results.session_report",
    "report.svg": "rendering.svg",
    "report.svg_layout": "rendering.svg_layout",
    "report.terminal": "rendering.terminal",
    "report.usage_rows": "rendering.usage_rows",
    "report.usage_summary": "results.usage_summary",
    "run_setup": "config.run_setup",
    "runner": "running.runner",
    "scheduling": "running.scheduling",
    "settings": "config.settings",
    "settings_checks": "config.settings_checks",
    "shards": "campaigns.shards",
    "snapshots": "running.snapshots",
    "sqlite_wal": "files.sqlite_wal",
    "state": "running.state",
    "terminal_text": "rendering.terminal_text",
    "usage": "results.usage",
    "worker_share": "running.worker_share",
}

#: packages moved whole: each module below the old package sits at the same place below the new one
MOVED_PACKAGES: dict[str, str] = {"benchmarks": "suites", "models": "llm"}


def new_path(old: str) -> str | None:
    """Where the module `old` (below pytest_memeval) is now; None when it did not move."""
    if old in MOVED:
        return MOVED[old]
    package, dot, rest = old.partition(".")
    moved = MOVED_PACKAGES.get(package)
    return None if moved is None else moved + dot + rest


class _MovedSpec(importlib.machinery.ModuleSpec):
    """An old name's spec. Its `parent` is the new module's package: runpy (`python -m` of an
    old path) takes `__package__` from it, which the module's relative imports need."""

    def __init__(self, name: str, loader: importlib.abc.Loader, new_parent: str) -> None:
        super().__init__(name, loader)
        self._new_parent = new_parent

    @property
    def parent(self) -> str:
        return self._new_parent


class _MovedModuleLoader(importlib.abc.Loader):
    """Hands the import system the module already imported at its new path."""

    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new_name)
        # the import system overwrites __spec__ with the old name's spec; exec_module puts
        # the module's own one back
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._own_spec

    def get_code(self, fullname: str) -> CodeType | None:
        """For `python -m` of an old path (runpy runs this code as __main__): the code of the
        module at its new path."""
        spec = importlib.util.find_spec(self.new_name)
        if spec is None:
            return None
        if isinstance(spec.loader, importlib.abc.InspectLoader):
            return spec.loader.get_code(self.new_name)
        if spec.origin is None or not spec.origin.endswith(".py"):
            return None
        # imported by a loader that gives no code (pytest's assertion rewriter, in a test
        # run): the code of its source file
        return importlib.machinery.SourceFileLoader(self.new_name, spec.origin).get_code(self.new_name)


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths (`new_path`) and nothing else."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PACKAGE + "."):
            return None
        new = new_path(fullname[len(_PACKAGE) + 1 :])
        if new is None:
            return None
        new_name = f"{_PACKAGE}.{new}"
        new_spec = importlib.util.find_spec(new_name)
        if new_spec is None:  # below a moved package, a module that never existed
            return None
        warnings.warn(
            f"{fullname} has moved to {new_name}; import it from there",
            DeprecationWarning,
            stacklevel=2,  # warnings skips importlib's own frames: the importing line
        )
        return _MovedSpec(fullname, _MovedModuleLoader(new_name), new_spec.parent or new_name.rpartition(".")[0])


def install() -> None:
    """Put the finder first on sys.meta_path, once."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
