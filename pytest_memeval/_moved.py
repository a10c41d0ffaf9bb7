"""Old module paths, from before the package was laid out by concern, still import.

Until the layout of issue 26 the modules stood flat at the top of the package (records.py,
options.py, ...) beside `models/`, `report/` and `benchmarks/`. Code outside the plugin
imports some of them by those paths. `install()` puts a finder first on `sys.meta_path`
that answers only for the names in `MOVED`: it imports the module at its new path and
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

#: old module path -> new module path, both below pytest_memeval
MOVED: dict[str, str] = {
    "adapter_guard": "running.adapter_guard",
    "adapter_values": "running.adapter_values",
    "arguments": "config.arguments",
    "atomic_file": "files.atomic_file",
    "benchmarks": "suites",
    "benchmarks.base": "suites.base",
    "benchmarks.bayes": "suites.bayes",
    "benchmarks.bayes.agents": "suites.bayes.agents",
    "benchmarks.bayes.askers": "suites.bayes.askers",
    "benchmarks.bayes.conditions": "suites.bayes.conditions",
    "benchmarks.bayes.dedup_memory": "suites.bayes.dedup_memory",
    "benchmarks.bayes.environments": "suites.bayes.environments",
    "benchmarks.bayes.episode": "suites.bayes.episode",
    "benchmarks.bayes.ess": "suites.bayes.ess",
    "benchmarks.bayes.figures": "suites.bayes.figures",
    "benchmarks.bayes.judge": "suites.bayes.judge",
    "benchmarks.bayes.offline": "suites.bayes.offline",
    "benchmarks.bayes.parse": "suites.bayes.parse",
    "benchmarks.bayes.probes": "suites.bayes.probes",
    "benchmarks.bayes.prompt": "suites.bayes.prompt",
    "benchmarks.bayes.readout": "suites.bayes.readout",
    "benchmarks.bayes.reference": "suites.bayes.reference",
    "benchmarks.bayes.released": "suites.bayes.released",
    "benchmarks.bayes.render": "suites.bayes.render",
    "benchmarks.bayes.suite": "suites.bayes.suite",
    "benchmarks.bayes.summary": "suites.bayes.summary",
    "benchmarks.behavior": "suites.behavior",
    "benchmarks.behavior.aggregate": "suites.behavior.aggregate",
    "benchmarks.behavior.analysis": "suites.behavior.analysis",
    "benchmarks.behavior.axes_fortune": "suites.behavior.axes_fortune",
    "benchmarks.behavior.axes_people": "suites.behavior.axes_people",
    "benchmarks.behavior.catalog": "suites.behavior.catalog",
    "benchmarks.behavior.conditions": "suites.behavior.conditions",
    "benchmarks.behavior.episodes": "suites.behavior.episodes",
    "benchmarks.behavior.evidence": "suites.behavior.evidence",
    "benchmarks.behavior.facts": "suites.behavior.facts",
    "benchmarks.behavior.figures": "suites.behavior.figures",
    "benchmarks.behavior.judge": "suites.behavior.judge",
    "benchmarks.behavior.lexicon": "suites.behavior.lexicon",
    "benchmarks.behavior.llm": "suites.behavior.llm",
    "benchmarks.behavior.markers": "suites.behavior.markers",
    "benchmarks.behavior.pairing": "suites.behavior.pairing",
    "benchmarks.behavior.predicates": "suites.behavior.predicates",
    "benchmarks.behavior.reader": "suites.behavior.reader",
    "benchmarks.behavior.released": "suites.behavior.released",
    "benchmarks.behavior.released_items": "suites.behavior.released_items",
    "benchmarks.behavior.released_scores": "suites.behavior.released_scores",
    "benchmarks.behavior.released_study": "suites.behavior.released_study",
    "benchmarks.behavior.replay": "suites.behavior.replay",
    "benchmarks.behavior.shapes": "suites.behavior.shapes",
    "benchmarks.behavior.spec": "suites.behavior.spec",
    "benchmarks.behavior.spec_llm": "suites.behavior.spec_llm",
    "benchmarks.behavior.subjects": "suites.behavior.subjects",
    "benchmarks.behavior.suite": "suites.behavior.suite",
    "benchmarks.behavior.summary": "suites.behavior.summary",
    "benchmarks.behavior.views": "suites.behavior.views",
    "benchmarks.data_files": "suites.data_files",
    "benchmarks.knowme": "suites.knowme",
    "benchmarks.knowme.catalog": "suites.knowme.catalog",
    "benchmarks.knowme.episodes": "suites.knowme.episodes",
    "benchmarks.knowme.figures": "suites.knowme.figures",
    "benchmarks.knowme.judge": "suites.knowme.judge",
    "benchmarks.knowme.life": "suites.knowme.life",
    "benchmarks.knowme.llm": "suites.knowme.llm",
    "benchmarks.knowme.markers": "suites.knowme.markers",
    "benchmarks.knowme.questions": "suites.knowme.questions",
    "benchmarks.knowme.reader": "suites.knowme.reader",
    "benchmarks.knowme.released": "suites.knowme.released",
    "benchmarks.knowme.released_golds": "suites.knowme.released_golds",
    "benchmarks.knowme.rubric": "suites.knowme.rubric",
    "benchmarks.knowme.scoring": "suites.knowme.scoring",
    "benchmarks.knowme.stream": "suites.knowme.stream",
    "benchmarks.knowme.suite": "suites.knowme.suite",
    "benchmarks.knowme.summary": "suites.knowme.summary",
    "benchmarks.knowme.tasks": "suites.knowme.tasks",
    "benchmarks.knowme.vocab": "suites.knowme.vocab",
    "benchmarks.knowme.vocab_mind": "suites.knowme.vocab_mind",
    "benchmarks.locomo": "suites.locomo",
    "benchmarks.locomo.catalog": "suites.locomo.catalog",
    "benchmarks.locomo.categories": "suites.locomo.categories",
    "benchmarks.locomo.judge": "suites.locomo.judge",
    "benchmarks.locomo.llm": "suites.locomo.llm",
    "benchmarks.locomo.reader": "suites.locomo.reader",
    "benchmarks.locomo.released": "suites.locomo.released",
    "benchmarks.locomo.sample": "suites.locomo.sample",
    "benchmarks.locomo.scoring": "suites.locomo.scoring",
    "benchmarks.locomo.suite": "suites.locomo.suite",
    "benchmarks.locomo.summary": "suites.locomo.summary",
    "benchmarks.longmemeval": "suites.longmemeval",
    "benchmarks.longmemeval.catalog": "suites.longmemeval.catalog",
    "benchmarks.longmemeval.judge": "suites.longmemeval.judge",
    "benchmarks.longmemeval.llm": "suites.longmemeval.llm",
    "benchmarks.longmemeval.reader": "suites.longmemeval.reader",
    "benchmarks.longmemeval.released": "suites.longmemeval.released",
    "benchmarks.longmemeval.sample": "suites.longmemeval.sample",
    "benchmarks.longmemeval.suite": "suites.longmemeval.suite",
    "benchmarks.longmemeval.summary": "suites.longmemeval.summary",
    "benchmarks.memfail": "suites.memfail",
    "benchmarks.memfail.attribution": "suites.memfail.attribution",
    "benchmarks.memfail.coexisting_data": "suites.memfail.coexisting_data",
    "benchmarks.memfail.condition_data": "suites.memfail.condition_data",
    "benchmarks.memfail.conditional_data": "suites.memfail.conditional_data",
    "benchmarks.memfail.conditions": "suites.memfail.conditions",
    "benchmarks.memfail.datasets": "suites.memfail.datasets",
    "benchmarks.memfail.figures": "suites.memfail.figures",
    "benchmarks.memfail.gen_coexisting": "suites.memfail.gen_coexisting",
    "benchmarks.memfail.gen_conditional": "suites.memfail.gen_conditional",
    "benchmarks.memfail.gen_longhop": "suites.memfail.gen_longhop",
    "benchmarks.memfail.gen_persona": "suites.memfail.gen_persona",
    "benchmarks.memfail.gen_update": "suites.memfail.gen_update",
    "benchmarks.memfail.judge": "suites.memfail.judge",
    "benchmarks.memfail.llm_judge": "suites.memfail.llm_judge",
    "benchmarks.memfail.llm_prompt": "suites.memfail.llm_prompt",
    "benchmarks.memfail.longhop_data": "suites.memfail.longhop_data",
    "benchmarks.memfail.markers": "suites.memfail.markers",
    "benchmarks.memfail.model": "suites.memfail.model",
    "benchmarks.memfail.names": "suites.memfail.names",
    "benchmarks.memfail.persona_data": "suites.memfail.persona_data",
    "benchmarks.memfail.phrases": "suites.memfail.phrases",
    "benchmarks.memfail.read_conditional": "suites.memfail.read_conditional",
    "benchmarks.memfail.read_lists": "suites.memfail.read_lists",
    "benchmarks.memfail.read_longhop": "suites.memfail.read_longhop",
    "benchmarks.memfail.read_persona": "suites.memfail.read_persona",
    "benchmarks.memfail.reader": "suites.memfail.reader",
    "benchmarks.memfail.release_build": "suites.memfail.release_build",
    "benchmarks.memfail.release_csv": "suites.memfail.release_csv",
    "benchmarks.memfail.release_rows": "suites.memfail.release_rows",
    "benchmarks.memfail.storage_turns": "suites.memfail.storage_turns",
    "benchmarks.memfail.suite": "suites.memfail.suite",
    "benchmarks.memfail.summary": "suites.memfail.summary",
    "benchmarks.memfail.text": "suites.memfail.text",
    "benchmarks.memfail.update_data": "suites.memfail.update_data",
    "benchmarks.multisource": "suites.multisource",
    "benchmarks.multisource._atom_view": "suites.multisource._atom_view",
    "benchmarks.multisource._atoms_abcd": "suites.multisource._atoms_abcd",
    "benchmarks.multisource._atoms_efgc": "suites.multisource._atoms_efgc",
    "benchmarks.multisource._common": "suites.multisource._common",
    "benchmarks.multisource.atoms": "suites.multisource.atoms",
    "benchmarks.multisource.catalog": "suites.multisource.catalog",
    "benchmarks.multisource.events": "suites.multisource.events",
    "benchmarks.multisource.figures": "suites.multisource.figures",
    "benchmarks.multisource.generator": "suites.multisource.generator",
    "benchmarks.multisource.ground_truth": "suites.multisource.ground_truth",
    "benchmarks.multisource.headings": "suites.multisource.headings",
    "benchmarks.multisource.markers": "suites.multisource.markers",
    "benchmarks.multisource.metrics": "suites.multisource.metrics",
    "benchmarks.multisource.nbf": "suites.multisource.nbf",
    "benchmarks.multisource.parse": "suites.multisource.parse",
    "benchmarks.multisource.personas": "suites.multisource.personas",
    "benchmarks.multisource.questions": "suites.multisource.questions",
    "benchmarks.multisource.reader": "suites.multisource.reader",
    "benchmarks.multisource.released": "suites.multisource.released",
    "benchmarks.multisource.render": "suites.multisource.render",
    "benchmarks.multisource.source_logs": "suites.multisource.source_logs",
    "benchmarks.multisource.sources": "suites.multisource.sources",
    "benchmarks.multisource.suite": "suites.multisource.suite",
    "benchmarks.multisource.summary": "suites.multisource.summary",
    "benchmarks.unreadable": "suites.unreadable",
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
    "models": "llm",
    "models.adaptive": "llm.adaptive",
    "models.budget": "llm.budget",
    "models.cache": "llm.cache",
    "models.caller": "llm.caller",
    "models.calls": "llm.calls",
    "models.client": "llm.client",
    "models.deadline": "llm.deadline",
    "models.exchanges": "llm.exchanges",
    "models.gateway": "llm.gateway",
    "models.judge": "llm.judge",
    "models.llama_cpp": "llm.llama_cpp",
    "models.metering": "llm.metering",
    "models.multisource": "llm.multisource",
    "models.responder": "llm.responder",
    "models.settings": "llm.settings",
    "models.streams": "llm.streams",
    "models.strict_json": "llm.strict_json",
    "models.structured": "llm.structured",
    "models.tally": "llm.tally",
    "models.templates": "llm.templates",
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
        loader = spec.loader if spec is not None else None
        return loader.get_code(self.new_name) if isinstance(loader, importlib.abc.InspectLoader) else None


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths in `MOVED` (and nothing else)."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PACKAGE + "."):
            return None
        new = MOVED.get(fullname[len(_PACKAGE) + 1 :])
        if new is None:
            return None
        new_name = f"{_PACKAGE}.{new}"
        warnings.warn(
            f"{fullname} has moved to {new_name}; import it from there",
            DeprecationWarning,
            stacklevel=2,  # warnings skips importlib's own frames: the importing line
        )
        new_spec = importlib.util.find_spec(new_name)
        new_parent = new_spec.parent if new_spec is not None and new_spec.parent else new_name.rpartition(".")[0]
        return _MovedSpec(fullname, _MovedModuleLoader(new_name), new_parent)


def install() -> None:
    """Put the finder first on sys.meta_path, once."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
