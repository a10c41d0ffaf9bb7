"""Fixtures: the memory system filled for the item's context, the item, and its outcome.

`memeval_result` does all the work during setup, so that adapter and response failures
are reported as errors (not as wrong answers) and the test body only asserts. Whatever
happens, the item's record (scored, invalid or error) goes to the session report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from ..config.settings import Settings
from ..printable import printable
from ..results.records import Record
from .evaluation import Components, evaluate_wired
from .prefetch import Prefetcher, Stage, items_by_context, stage_of, upcoming_in_order, upcoming_in_queue
from .record_collector import RECORD_PROPERTY, RecordCollector, record_to_wire
from .runner import Outcome, failure_message
from .snapshots import VerdictSnapshot, extension_for
from .state import RunState
from .wrong_answers import WrongAnswer, summary_line

STATE_KEY = pytest.StashKey[RunState]()
#: set on a memeval item once its record is attached (the catch-all hook checks it)
RECORDED_KEY = pytest.StashKey[bool]()
#: the item's record and its wire form, shipped once, on its teardown report (`teardown_properties`)
RECORD_KEY = pytest.StashKey[tuple[Record, str]]()


def run_state(config: pytest.Config) -> RunState:
    return config.stash[STATE_KEY]


@pytest.fixture(scope="session")
def memeval_state(request: pytest.FixtureRequest) -> Iterator[RunState]:
    """This process's suites and memory systems; systems are closed at the end of the
    session, and a failure to close is a session error, not a traceback."""
    state = run_state(request.config)
    # asked for here, not as an argument: pytest walks every argument of every fixture of
    # every item again (a session fixture's too), and this one is needed once
    tmp_path_factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    state.use_workdir(tmp_path_factory.mktemp("memeval"))
    yield state
    state.close()


#: the session's state, once its first item asked for `memeval_state`
SESSION_STATE_KEY = pytest.StashKey[RunState]()


def session_state(request: pytest.FixtureRequest) -> RunState:
    """The session's state, set up by `memeval_state` when the first item asks for it here
    (and closed when the session ends): `memeval_result` does not take it as an argument,
    because pytest resolves every argument of every fixture again for each item, a cached
    session fixture's too, and for one that takes `request` it builds a new fixture
    definition every time (`inspect.signature` of a lambda)."""
    stash = request.session.stash
    if SESSION_STATE_KEY not in stash:
        stash[SESSION_STATE_KEY] = request.getfixturevalue("memeval_state")
    return stash[SESSION_STATE_KEY]


#: the session's prefetcher, made when its first item is set up
PREFETCHER_KEY = pytest.StashKey[Prefetcher]()


def session_prefetcher(request: pytest.FixtureRequest) -> Prefetcher:
    """The session's prefetcher, made once (`memeval_result` reads it here, not as a fixture
    argument: pytest resolves every fixture of every item again, a session fixture's too)."""
    stash = request.session.stash
    if PREFETCHER_KEY not in stash:
        stash[PREFETCHER_KEY] = _new_prefetcher(request)
    return stash[PREFETCHER_KEY]


def _new_prefetcher(request: pytest.FixtureRequest) -> Prefetcher:
    """Prefetching needs every item of a context on this worker: no xdist, or our scheduler.
    With an LLM responder the stages scheduled next are filled ahead (prefetch.py)."""
    from .scheduling import contexts_stay_together, queued_items

    if not contexts_stay_together(request.config):
        return Prefetcher({})
    items = request.session.items
    settings = run_state(request.config).settings
    contexts = items_by_context(items)
    if settings.responder == "reader" or settings.llm is None:
        return Prefetcher(contexts)

    def stage(item: pytest.Item) -> Stage | None:
        return stage_of(item, settings.memsystems[0], settings.k)

    if not hasattr(request.config, "workerinput"):
        return Prefetcher(contexts, settings.llm.concurrency, upcoming_in_order([s for s in map(stage, items) if s]))
    queued = queued_items(request.config, request.session)
    return Prefetcher(contexts, settings.llm.concurrency, queued and upcoming_in_queue(queued, stage))


@pytest.fixture(scope="session")
def memeval_prefetcher(request: pytest.FixtureRequest) -> Prefetcher:
    """The session's prefetcher (`session_prefetcher`)."""
    return session_prefetcher(request)


@pytest.fixture
def memeval_item_id() -> str:
    raise pytest.UsageError("memeval_item_id is parametrized by @pytest.mark.memeval('<suite>')")


@pytest.fixture(scope="session")  # a default: parametrizing the name overrides it per test
def memeval_memsystem(memeval_state: RunState) -> str:
    """The memory system of this test (parametrized when several are compared)."""
    return memeval_state.settings.memsystems[0]


@pytest.fixture(scope="session")  # a default: parametrizing the name overrides it per test
def memeval_k(memeval_state: RunState) -> int:
    """The retrieval depth of this test (parametrized when --memeval-k names several)."""
    return memeval_state.settings.k


@pytest.fixture(scope="session")  # a default: parametrizing the name overrides it per test
def memeval_repeat() -> int:
    """Which repeat of the item this test is (parametrized r0..rN-1 by --memeval-repeat N)."""
    return 0


@pytest.fixture
def memeval_result(request: pytest.FixtureRequest, memeval_item_id: str) -> Outcome:
    """Fill the context, retrieve, answer and judge; the record goes to the session report.
    This is a run of one memory system, depth and repeat; a run of several overrides it
    (`ComparedRuns`)."""
    state = session_state(request)
    settings = state.settings
    return evaluated_outcome(request, state, memeval_item_id, settings.memsystems[0], settings.k, 0)


def compares_runs(settings: Settings) -> bool:
    """Whether the run parametrizes its tests by memory system, depth or repeat."""
    return len(settings.systems) > 1 or len(settings.ks) > 1 or settings.repeats > 1


class ComparedRuns:
    """Registered (as a plugin) by a run that `compares_runs`: its `memeval_result` overrides
    the plugin's by one that takes the names such a run parametrizes. Only then are they in
    every item's fixture closure, where pytest resolves each name again for every item, a
    cached session fixture's too (the three cost about 0.05 s per 2,160 items)."""

    @pytest.fixture
    def memeval_result(
        self,
        request: pytest.FixtureRequest,
        memeval_state: RunState,
        memeval_item_id: str,
        memeval_memsystem: str,
        memeval_k: int,
        memeval_repeat: int,
    ) -> Outcome:
        """`memeval_result` for the test's memory system, depth and repeat."""
        return evaluated_outcome(request, memeval_state, memeval_item_id, memeval_memsystem, memeval_k, memeval_repeat)


def evaluated_outcome(
    request: pytest.FixtureRequest, state: RunState, item_id: str, memsystem: str, k: int, repeat: int
) -> Outcome:
    """`memeval_result`'s work, for one memory system, depth and repeat."""
    marker = request.node.get_closest_marker("memeval")
    assert marker is not None and marker.args, "memeval_result needs @pytest.mark.memeval('<suite>')"
    suite_ref = marker.args[0]
    suite = state.suite(suite_ref)
    key = state.run_key(suite, memsystem, k)
    prefetcher = session_prefetcher(request)
    evaluated = evaluate_wired(
        lambda: Components.of_state(state, prefetcher, suite_ref, memsystem),
        suite_ref,
        item_id,
        key,
        repeat,
    )
    record, outcome = evaluated.record, evaluated.outcome
    attach(request.node, record, evaluated.wire)
    state.progress.item_done()
    if outcome is None:
        pytest.fail(record.reason, pytrace=False)
    if state.settings.snapshot:
        assertion = request.getfixturevalue("snapshot").use_extension(
            extension_for(request.config.rootpath, key, record.id)
        )
        outcome = replace(outcome, snapshot=VerdictSnapshot(assertion, request.node))
    if record.status == "invalid":
        pytest.fail(f"{record.id}: invalid answer from {key.responder!r}: {record.raw[:200]!r}", pytrace=False)
    return outcome


def check(outcome: Outcome, note: str = "") -> None:
    """Pass when the judge accepted the answer; fail with a readable message otherwise
    (a wrong answer is one line in the terminal; `note`, e.g. the condition the item was
    served under, is a line of its whole message, which `-v` shows).

    With --memeval-snapshot, a changed verdict fails first, with syrupy's diff.
    """
    __tracebackhide__ = True
    diff = outcome.snapshot.differences(outcome) if outcome.snapshot is not None else None
    if diff is not None:
        pytest.fail(printable(f"{outcome.item.id}: the verdict differs from its snapshot\n{diff}", True), pytrace=False)
    if not outcome.verdict.correct:
        first, _, rest = failure_message(outcome).partition("\n")
        message = printable("\n".join(filter(None, [first, note, rest])), multiline=True)
        raise WrongAnswer(message, summary_line(outcome))


#: record fields also shown as separate JUnit XML properties, for CI viewers
JUNIT_FIELDS = ("status", "answer", "abstained", "correct", "score", "reason")


def attach(node: pytest.Item, record: Record, wire: str | None = None) -> None:
    """Keep the item's record until its teardown report, the one report the controller
    reads (setup and call reports no longer carry it); `wire`: its `record_to_wire` form,
    when made already."""
    node.stash[RECORD_KEY] = (record, record_to_wire(record) if wire is None else wire)
    node.stash[RECORDED_KEY] = True


def teardown_properties(item: pytest.Item, collector: RecordCollector | None = None) -> list[tuple[str, object]] | None:
    """The teardown report's user properties: the item's own, the record in its compact
    wire form, and with --junitxml a few fields repeated as readable JUnit properties.
    None for an item without a record. The item lets go of its record: the report holds it
    now (a run keeps every item until its end, the records need not stay with them).
    `collector`: the controller's, when it runs in this process (`-n 0`); it is handed the
    record itself instead of parsing the wire form back."""
    attached = item.stash.get(RECORD_KEY, None)
    if attached is None:
        return None
    del item.stash[RECORD_KEY]
    record, wire = attached
    if collector is not None:
        collector.hand_over(wire, record)
    properties: list[tuple[str, object]] = [*item.user_properties, (RECORD_PROPERTY, wire)]
    if getattr(item.config.option, "xmlpath", None):
        properties.append(("memeval_memsystem", record.key.memsystem))
        properties.append(("memeval_k", record.key.k))
        properties.extend(
            (f"memeval_{name}", getattr(record, name))
            for name in JUNIT_FIELDS
            if getattr(record, name) not in (None, "")
        )
    return properties
