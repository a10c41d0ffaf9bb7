"""How much there is to store in each context group of a run: the measure of the ETA.

Filling contexts is most of a run's work, and contexts differ a hundredfold (a locomo
conversation against a knowme life stream), so the progress line weighs each context
group (`scheduling.group_name`) by the characters of its messages. Contexts whose sessions
are streamed from disk as they are stored (longmemeval's haystacks) are read for this up
to READ_SESSIONS sessions in all; beyond, a context counts its sessions at the mean
characters per session of those measured (a released file of gigabytes is not read twice).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..types import Context
from .scheduling import group_name
from .state import RunState

#: sessions of streamed contexts read to measure them, at most, per run
READ_SESSIONS = 5000


def context_chars(context: Context, may_stream: bool = True) -> int | None:
    """The characters of the context's messages; None when its sessions are streamed from
    disk and `may_stream` is False."""
    if not may_stream and not isinstance(context.sessions, (tuple, list)):
        return None
    return sum(len(message.content) for session in context.sessions for message in session)


def group_sizes(state: RunState, wanted: Collection[str] | None = None) -> dict[str, int]:
    """Each context group of the run's selected suites -> the characters it stores (at least
    1); only the `wanted` groups when given (those the run collected: a run of one test
    module builds no other suite's contexts)."""
    settings = state.settings
    measured: dict[tuple[str, str], int | None] = {}
    sessions: dict[tuple[str, str], int] = {}
    streamed = 0
    for suite_ref in settings.suites:
        split = len(settings.ks) > 1 and state.suite(suite_ref).splits_by_k
        groups = [(system, k) for system in settings.memsystems for k in _depths(settings.ks, split)]
        suite = state.suite(suite_ref)
        if suite.responder_stores_replies:  # built with the LLM responder, a context costs calls
            suite = state.offline_suite(suite_ref)
        looked_at: set[str] = set()  # each context once, not once per item
        for entry in state.index(suite_ref):
            if entry.context_id in looked_at:
                continue
            looked_at.add(entry.context_id)
            key = (suite_ref, entry.context_id)
            if wanted is not None and not any(group_name(*key, system, k) in wanted for system, k in groups):
                continue
            context = suite.context(entry.context_id)
            sessions[key] = len(context.sessions)
            measured[key] = context_chars(context, may_stream=streamed + sessions[key] <= READ_SESSIONS)
            if not isinstance(context.sessions, (tuple, list)) and measured[key] is not None:
                streamed += sessions[key]
    known = [(chars, sessions[key]) for key, chars in measured.items() if chars is not None]
    per_session = sum(c for c, _ in known) / max(1, sum(n for _, n in known)) if known else 1.0
    sizes: dict[str, int] = {}
    for (suite_ref, context_id), chars in measured.items():
        size = max(1, chars if chars is not None else round(sessions[(suite_ref, context_id)] * per_session))
        split = len(settings.ks) > 1 and state.suite(suite_ref).splits_by_k
        for system in settings.memsystems:
            for k in _depths(settings.ks, split):
                sizes[group_name(suite_ref, context_id, system, k)] = size
    return sizes


def _depths(ks: Sequence[int], split: bool) -> Sequence[int | None]:
    return tuple(ks) if split else (None,)
