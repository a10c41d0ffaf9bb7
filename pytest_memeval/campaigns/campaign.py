"""On the controller: the run's fingerprint as suites join it, its journal, and what a
resumed run starts with (see journal.py and fingerprint.py).

Registered as a plugin on the controller of an active run; the workers learn from it,
through their workerinput, which items a resumed run does not run again.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..analysis.comparability import in_terms_of, protocol_note, run_fingerprint, suite_protocol
from ..config.outputs import journal_path
from ..config.prices import cost
from ..config.shard_syntax import Shard
from ..errors import ConfigError
from ..framework.suite import Suite
from ..results.baseline import Baseline
from ..results.fingerprint import Fingerprint
from ..results.records import ItemKey, Record
from ..running.adapter_guard import describe
from ..running.state import RunState
from .journal import RESUME, Journal, Resumed

PLUGIN_NAME = "memeval-campaign"
#: the workerinput entry holding the items a resumed run does not run again
DONE_KEY = "memeval_done"
#: the workerinput entry naming the file whose existence tells xdist workers to stop
STOP_KEY = "memeval_stop_file"
STOPPED = "memeval: --memeval-max-cost reached"


class Campaign:
    def __init__(
        self, state: RunState, fingerprint: Fingerprint, journal: Journal | None = None, bundled: bool = False
    ) -> None:
        self.state = state
        #: the run collects the bundled suites alone: the suites it runs are --memeval-suite's
        self.bundled = bundled
        self.fingerprint = fingerprint
        self.journal = journal
        self.resumed: tuple[Record, ...] = ()
        self.done: frozenset[ItemKey] = frozenset()
        #: lines for the report header (what was resumed, what was set aside)
        self.header: list[str] = []
        #: comparisons made across protocols, one line each (the report keeps them)
        self.protocol_notes: list[str] = []
        #: failures of the campaign's own machinery, one line each (session errors)
        self.errors: list[str] = []
        self._refs: set[str] = set()
        #: whether this run started its journal (rather than resuming one)
        self._started = False
        #: what this run's LLM calls cost so far (cache misses, priced), against --memeval-max-cost
        self.spent = 0.0
        #: why the run was stopped early ("" while it runs)
        self.stopped = ""
        self._session: pytest.Session | None = None
        #: with --memeval-max-cost, created when the run stops: each xdist worker stops after its current item
        self.stop_file: Path | None = None
        if state.settings.max_cost is not None:
            self.stop_file = Path(tempfile.mkdtemp(prefix="memeval-stop-")) / "stop"

    @classmethod
    def open(cls, state: RunState, collect_only: bool, bundled: bool) -> Campaign:
        """The run's campaign: the baseline's protocol checked, then a fresh journal beside
        --memeval-report, or with --memeval-resume the one there; every refusal is a
        one-line ConfigError that changes nothing. `bundled`: the run collects the bundled
        suites (no test paths given), so the suites it runs are known now."""
        settings = state.settings
        campaign = cls(state, run_fingerprint(settings, state.memsystems), bundled=bundled)
        if state.baseline is not None:
            campaign.check_baseline(state.baseline, bundled)
        if settings.report is None or collect_only:
            return campaign
        path = journal_path(settings.report)
        if settings.resume and path.exists():
            campaign.journal, resumed = Journal.resume(path, campaign._check_resumed)
            campaign._take(resumed)
            campaign.header.append(
                f"memeval: resuming {path}: {len(resumed.records)} records kept, "
                f"{len(campaign.done)} items not run again ({campaign.fingerprint.short()})"
            )
            campaign.header.extend(filter(None, [resumed.torn]))
        else:
            if settings.resume:
                campaign.header.append(f"memeval: {RESUME}: no journal at {path} yet; this run starts it")
            campaign.journal = Journal.start(path, campaign.fingerprint, _shard_name(settings.shard))
            campaign._started = True
        return campaign

    def abandon(self) -> None:
        """The run failed to start after its campaign opened: a journal it started goes (it
        holds nothing), a resumed one stays as it was."""
        if self.journal is not None:
            self.finish(complete=self._started)

    def _fingerprint_with(self, refs: Sequence[str]) -> Fingerprint:
        settings = self.state.settings
        return run_fingerprint(settings, self.state.memsystems, [self.state.suite(ref) for ref in refs])

    def _check_resumed(self, resumed: Resumed) -> None:
        """The journal is this run's: its shard, every record's item, then its protocol."""
        path = journal_path(self.state.settings.report) if self.state.settings.report else "the journal"
        shard = _shard_name(self.state.settings.shard)
        if resumed.shard != shard:
            raise ConfigError(
                f"{path} was written by {_shard_words(resumed.shard)}, this run is {_shard_words(shard)}: "
                "resume with the same --memeval-shard, or remove the journal to start over"
            )
        items: dict[str, frozenset[str]] = {}
        for record in resumed.records:
            foreign = self._foreign(record, items)
            if foreign is not None:
                raise ConfigError(
                    f"{path}: line {resumed.lines.get(record.item_key, '?')}: a record of another run: {foreign} "
                    "(remove the journal to start over)"
                )
        refs = sorted({r.suite_ref for r in resumed.records})
        journal = in_terms_of(resumed.fingerprint, [self.state.suite(ref) for ref in refs])
        difference = self._fingerprint_with(refs).difference(journal, ("in this run", "in the journal"))
        if difference is not None:
            raise ConfigError(
                f"{path} was written under another protocol: {difference} (rerun with that protocol, "
                "or remove the journal to start over)"
            )

    def _foreign(self, record: Record, items: dict[str, frozenset[str]]) -> str | None:
        """Why a journal's record is not one of this run's items (None when it is); `items`
        caches each suite's item ids."""
        settings, ref = self.state.settings, record.suite_ref
        if self.bundled and ref not in settings.suites:
            return f"suite {ref!r} is not selected (--memeval-suite: {', '.join(settings.suites)})"
        if record.key.memsystem not in settings.systems:
            return f"memory system {record.key.memsystem!r} is not in --memsystem ({', '.join(settings.memsystems)})"
        if record.key.k not in settings.ks:
            return f"k={record.key.k} is not in --memeval-k ({', '.join(map(str, settings.ks))})"
        if not 0 <= record.repeat < settings.repeats:
            return f"repeat {record.repeat} is beyond --memeval-repeat {settings.repeats}"
        if ref not in items:
            try:
                items[ref] = frozenset(entry.id for entry in self.state.index(ref))
            except Exception as exc:  # a suite this process cannot build or index
                return f"suite {ref!r}: {describe(exc)}"
        if record.id not in items[ref]:
            return f"{ref} has no item {record.id!r} in this run's selection of data"
        return None

    def _take(self, resumed: Resumed) -> None:
        refs = sorted({r.suite_ref for r in resumed.records})
        self.fingerprint = self._fingerprint_with(refs)
        self._refs.update(refs)
        self.resumed = resumed.records
        self.done = resumed.done()

    def check_baseline(self, baseline: Baseline, bundled: bool) -> None:
        """Before the run: the baseline's protocol against this run's on the suites both
        ran. A run of the bundled suites knows its suites now; a run of named test files
        does not, and checks each suite of the baseline it can build (`baseline_records`
        checks again, on the suites that ran)."""
        settings = self.state.settings
        refs = settings.suites if bundled else sorted({r.suite_ref for r in baseline.records})
        suites = self._built(refs)
        known = run_fingerprint(settings, self.state.memsystems, suites)
        self._note(protocol_note(baseline, known, settings.any_protocol, suites))

    def baseline_records(self, baseline: Baseline | None) -> Sequence[Record] | None:
        """After the run: the baseline's records when its protocol is this run's (or the
        difference is allowed); else None, with the refusal as a session error."""
        if baseline is None:
            return None
        try:
            suites = self._built(sorted(self._refs))
            self._note(protocol_note(baseline, self.fingerprint, self.state.settings.any_protocol, suites))
        except ConfigError as exc:
            self.errors.append(f"{exc}; the baseline was not compared")
            return None
        return baseline.records

    def _built(self, refs: Sequence[str]) -> list[Suite]:
        """The suites of `refs` this process can build (one that is not importable here is
        checked after the run, if it runs)."""
        suites = []
        for ref in refs:
            try:
                suites.append(self.state.suite(ref))
            except Exception:  # any failure of a suite's own code: left out, never the run's end
                continue
        return suites

    def _note(self, note: str | None) -> None:
        if note is not None and note not in self.protocol_notes:
            self.protocol_notes.append(note)

    def record_arrived(self, record: Record, wire: str | None = None) -> None:
        """A record reached the controller (`wire`: its `record_to_wire` form, when made):
        its suite joins the fingerprint, the record goes to the journal (a journal that
        cannot be written is one error; the run goes on), and its cost counts against
        --memeval-max-cost."""
        if record.suite_ref not in self._refs:
            self._refs.add(record.suite_ref)
            self._join(record.suite_ref)
        self._journal_write(lambda journal: journal.append_record(record, wire))
        self._count_cost(record)

    def _count_cost(self, record: Record) -> None:
        settings = self.state.settings
        if settings.max_cost is None:
            return
        for models in record.llm_tokens.values():
            self.spent += cost({m: t.spent for m, t in models.items() if m in settings.prices}, settings.prices) or 0.0
        if self.spent > settings.max_cost and not self.stopped:
            where = f" in {self.journal.path}" if self.journal is not None else ""
            self.stopped = (
                f"memeval: stopped: this run's LLM calls cost {self.spent:.4f}, over --memeval-max-cost "
                f"{settings.max_cost:g}; the records so far are kept{where}"
                + (" (--memeval-resume continues the run)" if self.journal is not None else "")
            )
            self._stop(STOPPED)

    def _stop(self, reason: str) -> None:
        """Stop after the items running now: every xdist worker after its current item (it
        looks for the stop file), and pytest's or xdist's loop on the controller."""
        if self.stop_file is not None:
            self.stop_file.touch()
        if self._session is None:
            return
        distributed = self._session.config.pluginmanager.getplugin("dsession")
        if distributed is not None:
            distributed.shouldstop = reason
        else:
            self._session.shouldstop = reason

    def _join(self, ref: str) -> None:
        try:
            protocol = suite_protocol(self.state.suite(ref), self.state.settings)
        except Exception as exc:  # the run goes on; the fingerprint lacks the suite, and says why
            self.errors.append(f"fingerprint: suite {ref}: {describe(exc)}")
            return
        joined = self.fingerprint.with_suite(protocol)
        if joined == self.fingerprint:
            return
        self.fingerprint = joined
        self._journal_write(lambda journal: journal.append_fingerprint(joined))

    def _journal_write(self, write: Callable[[Journal], None]) -> None:
        """One line to the journal; one that cannot be written is one error, and the run goes
        on without a journal."""
        if self.journal is None:
            return
        try:
            write(self.journal)
        except OSError as exc:
            self.errors.append(
                f"journal {self.journal.path}: cannot write: {exc.strerror or exc}; the run went on without it"
            )
            self.journal.close()
            self.journal = None

    def status_with_resumed(self, status: int, kept: Sequence[Record]) -> int:
        """pytest's exit status as if the resumed items had run now: one of them not judged
        correct fails the run, as its test did; a run that had nothing left to run is OK.
        `kept`: the resumed records the report holds (those no record of this run replaced)."""
        if not self.resumed or status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            return status
        if any(r.correct is not True for r in kept):
            return pytest.ExitCode.TESTS_FAILED
        return pytest.ExitCode.OK

    def finish(self, complete: bool) -> None:
        """A complete run's report holds every record: its journal goes; otherwise it stays,
        for --memeval-resume."""
        if self.journal is None:
            return
        if complete:
            self.journal.remove()
        else:
            self.journal.close()

    # -- hooks --------------------------------------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[DONE_KEY] = [list(key) for key in sorted(self.done)]
        if self.stop_file is not None:
            node.workerinput[STOP_KEY] = str(self.stop_file)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return self.header

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.stopped:
            terminalreporter.write_line(self.stopped, yellow=True)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.journal is not None:
            self.journal.close()
        if self.stop_file is not None:
            shutil.rmtree(self.stop_file.parent, ignore_errors=True)


def _shard_name(shard: Shard | None) -> str | None:
    return str(shard) if shard is not None else None


def _shard_words(shard: str | None) -> str:
    return f"shard {shard}" if shard is not None else "an unsharded run"


def stop_on_worker(item: pytest.Item) -> None:
    """On an xdist worker, after each item: stop when the controller said so."""
    stop_file = getattr(item.config, "workerinput", {}).get(STOP_KEY)
    if stop_file is not None and os.path.exists(stop_file):
        item.session.shouldstop = STOPPED


def done_on_worker(config: pytest.Config) -> frozenset[ItemKey]:
    """On an xdist worker: the items the controller's journal holds."""
    raw = getattr(config, "workerinput", {}).get(DONE_KEY, [])
    return frozenset((str(s), str(m), int(k), str(i), int(r)) for s, m, k, i, r in raw)
