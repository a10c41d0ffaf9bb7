"""Fixtures: the memory system filled for the item's context, the item, and its outcome.

`memeval_result` does all the work during setup, so that adapter and response failures
are reported as errors (not as wrong answers) and the test body only asserts.
"""

from __future__ import annotations

import json
from typing import Iterator

import pytest

from .errors import MemevalError
from .report.collector import RECORD_PROPERTY
from .runner import Outcome, error_record, failure_message, namespace_for, run_item
from .state import RunState

STATE_KEY = pytest.StashKey[RunState]()


def run_state(config: pytest.Config) -> RunState:
    return config.stash[STATE_KEY]


@pytest.fixture(scope="session")
def memeval_state(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunState]:
    """This process's suites and memory systems; systems are closed at the end of the session."""
    state = run_state(request.config)
    state.use_workdir(tmp_path_factory.mktemp("memeval"))
    yield state
    state.close()


@pytest.fixture
def memeval_item_id() -> str:
    raise pytest.UsageError("memeval_item_id is parametrized by @pytest.mark.memeval('<suite>')")


@pytest.fixture
def memeval_memsystem(request: pytest.FixtureRequest) -> str:
    """The memory system of this test (parametrized when several are compared)."""
    return run_state(request.config).settings.memsystems[0]


@pytest.fixture
def memeval_result(
    request: pytest.FixtureRequest, memeval_state: RunState, memeval_item_id: str, memeval_memsystem: str
) -> Outcome:
    """Fill the context, retrieve, answer and judge; the record goes to the session report."""
    marker = request.node.get_closest_marker("memeval")
    assert marker is not None and marker.args, "memeval_result needs @pytest.mark.memeval('<suite>')"
    suite_ref = marker.args[0]
    suite = memeval_state.suite(suite_ref)
    item = suite.item(memeval_item_id)
    responder_name = memeval_state.settings.responder
    try:
        namespace = namespace_for(suite.name, "shared" if suite.shared_store else item.context_id)
        filler = memeval_state.filler(memeval_memsystem)
        filler.ensure(namespace, lambda: suite.context(item.context_id))
        outcome = run_item(
            suite_ref,
            item,
            namespace,
            memeval_memsystem,
            filler.system,
            responder_name,
            memeval_state.responder(suite),
            memeval_state.judge(suite),
            memeval_state.settings.k,
        )
    except MemevalError as exc:
        error = str(exc)
    else:
        error = None
    if error is not None:  # failing outside the except block keeps the chained traceback out
        _attach(request, error_record(suite_ref, item, memeval_memsystem, responder_name, error))
        pytest.fail(error, pytrace=False)
    _attach(request, outcome.record)
    if not outcome.answer.valid:
        pytest.fail(f"{item.id}: invalid answer from {responder_name!r}: {outcome.answer.raw[:200]!r}", pytrace=False)
    return outcome


def check(outcome: Outcome) -> None:
    """Pass when the judge accepted the answer; fail with a readable message otherwise."""
    __tracebackhide__ = True
    if not outcome.verdict.correct:
        pytest.fail(failure_message(outcome), pytrace=False)


def _attach(request: pytest.FixtureRequest, record: dict) -> None:
    request.node.user_properties.append((RECORD_PROPERTY, json.dumps(record, sort_keys=True)))

