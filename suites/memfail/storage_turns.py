"""The storage phase as the paper runs it (§5.1, App. D.2): each stored message is a user turn
that the response model answers, and the memory system stores both.

In the release's harness the test-taker LLM answers every storage message with the ungraded
prompt and `update_memory(query, response, conversation)` stores the pair. Here the
response model of the run (`--memeval-responder openai:MODEL`) writes the replies through
the call cache, so a replayed run stores the same replies; the offline reader has no voice,
so with it a session holds the user turns only (the record's detail says which).
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.llm.caller import ModelCaller
from pytest_memeval.llm.calls import ChatRequest
from pytest_memeval.llm.tally import count
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Message

TEMPLATE = "memfail_storage_turn"
HISTORY_HEADING = "Conversation History:"
#: what the record's detail says about the stored sessions
WITH_REPLIES, USER_ONLY = "user+assistant", "user"


def message_id(session: int, turn: int) -> str:
    """The id of a stored user message ("s3.2": session 3, its third message); its reply's
    is the same with "r" after it."""
    return f"s{session}.{turn}"


def user_sessions(sessions: Sequence[Sequence[str]]) -> tuple[tuple[Message, ...], ...]:
    return tuple(
        tuple(Message("user", text, id=message_id(s, t)) for t, text in enumerate(session))
        for s, session in enumerate(sessions)
    )


def converse(
    sessions: Sequence[Sequence[str]], settings: LLMSettings, context_id: str
) -> tuple[tuple[Message, ...], ...]:
    """Every session with the model's reply after each user message (conversations run in
    parallel, turns within one in order, since a turn's prompt holds the earlier ones)."""
    template = load_template(TEMPLATE)
    caller = ModelCaller(settings)
    pool = ThreadPoolExecutor(settings.concurrency, thread_name_prefix="memeval-storage")
    try:
        futures = [
            # in a copy of the item's context: the turns count for the item whose fill needs them
            pool.submit(
                contextvars.copy_context().run,
                _session,
                caller,
                template,
                settings,
                session,
                i,
                f"{context_id} storage conversation {i + 1}",
            )
            for i, session in enumerate(sessions)
        ]
        return tuple(future.result() for future in futures)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        caller.close()


def storage_prompt(template: PromptTemplate, history: Sequence[tuple[str, str]], query: str) -> list[dict[str, str]]:
    """The ungraded turn for `query` after the earlier (user, assistant) turns of its conversation."""
    lines = "\n".join(f"User: {user}\nAssistant: {assistant}" for user, assistant in history)
    block = f"{HISTORY_HEADING}\n{lines}\n\n" if history else ""
    return template.render({"history": block, "query": query})


def _session(
    caller: ModelCaller, template: PromptTemplate, settings: LLMSettings, texts: Sequence[str], index: int, label: str
) -> tuple[Message, ...]:
    turns: list[tuple[str, str]] = []
    for text in texts:
        request = ChatRequest.build(settings, storage_prompt(template, turns, text), template.id)
        completion = caller.call(request, label=label)
        count("ingest", settings.model, completion)
        turns.append((text, (completion.content or "").strip()))
    return tuple(
        message
        for t, (user, reply) in enumerate(turns)
        for message in (
            Message("user", user, id=message_id(index, t)),
            Message("assistant", reply, id=message_id(index, t) + "r"),
        )
    )
