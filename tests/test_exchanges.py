"""The key of a gateway exchange: what determines an answer is in it, the time of the call
and the random ids a memory system draws are not."""

from __future__ import annotations

import json
import uuid
from datetime import date, timedelta

from pytest_memeval.llm.exchanges import exchange_key, mask_now, rename_ids, restore_ids

TODAY = date(2026, 11, 25)


def body(text: str, **extra: object) -> dict[str, object]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], **extra}


def test_the_time_of_the_call_is_masked_in_every_form_the_systems_write() -> None:
    text = (
        "Current Date: 2026-11-25 | edited 2026-11-24 09:40:21 PM UTC+0000 | now 2026-11-25T21:40:21.123456+00:00 "
        "| The current system date is: November 25, 2026 | talk start time:202611252140"
    )
    assert mask_now(text, TODAY) == (
        "Current Date: <now> | edited <now> | now <now> | The current system date is: <now> | talk start time:<now>"
    )


def test_dates_of_the_data_stay_in_the_key() -> None:
    text = "I moved on 2024-03-01 and on March 3, 2019; call 202403011200; version 2026-13-45"
    assert mask_now(text, TODAY) == text
    assert exchange_key("chat/completions", body("moved on 2024-03-01"), today=TODAY) != exchange_key(
        "chat/completions", body("moved on 2024-03-02"), today=TODAY
    )


def test_a_replay_on_another_day_has_the_recordings_key() -> None:
    recorded = exchange_key("chat/completions", body(f"Observation Date: {TODAY.isoformat()}"), today=TODAY)
    later = TODAY + timedelta(days=40)
    assert exchange_key("chat/completions", body(f"Observation Date: {later.isoformat()}"), today=later) == recorded


def test_random_ids_are_renamed_in_order_of_appearance() -> None:
    a, b, cut = str(uuid.uuid4()), uuid.uuid4().hex, str(uuid.uuid4())[:29]
    renamed, ids = rename_ids(f"update {a} then {b}, not {a}; call {cut}")
    assert (renamed, ids) == ("update <id-1> then <id-2>, not <id-1>; call <id-3>", [a, b, cut])
    assert exchange_key("chat/completions", body(f"memory {a}")) == exchange_key(
        "chat/completions", body(f"memory {uuid.uuid4()}")
    )
    # which id goes where still counts
    assert exchange_key("chat/completions", body(f"{a} {a}")) != exchange_key("chat/completions", body(f"{a} {b}"))


def _trustcall_request(ids: list[str]) -> dict[str, object]:
    """LangMem's extraction request as trustcall builds it: the existing memories in the order
    LangMem found them, and the ones the LLM may remove listed sorted by id."""
    shown = "".join(f"<instance id={i}>{{'content': 'fact {n}'}}</instance>" for n, i in enumerate(ids))
    remove = {"name": "RemoveDoc", "description": f"Must be one of: {tuple(sorted(ids))}"}
    errors = f"Available IDs: {json.dumps(sorted(ids))}"
    return body(f"<existing>{shown}</existing> {errors}", tools=[{"type": "function", "function": remove}])


def test_a_list_of_random_ids_sorted_by_their_values_has_one_key() -> None:
    keys = {
        exchange_key("chat/completions", _trustcall_request([uuid.uuid4().hex for _ in range(5)])) for _ in range(8)
    }
    assert len(keys) == 1
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    # which memory is shown first still counts: the list is sorted, the memories are not
    first = exchange_key("chat/completions", body(f"shown {a} then {b}; ids ({a!r}, {b!r})"))
    assert first == exchange_key("chat/completions", body(f"shown {a} then {b}; ids ({b!r}, {a!r})"))
    assert first != exchange_key("chat/completions", body(f"shown {a} then {a}; ids ({a!r}, {b!r})"))


def test_an_id_a_validation_error_elides_in_the_middle_is_renamed_whole() -> None:
    """trustcall shows the LLM pydantic's error on a bad tool call, which cuts a long input
    in the middle: `input_value='./session_932b44c8-8df8-...-b2bf-43f6843421c4.json'`."""

    def error(session: str) -> str:
        cut = f"{session[:14]}...{session[-18:]}"
        return f"Document ID './session_{session}.json' not found [input_value='./session_{cut}.json']"

    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    assert (
        rename_ids(error(first))[0]
        == "Document ID './session_<id-1>.json' not found [input_value='./session_<id-2>.json']"
    )
    assert exchange_key("chat/completions", body(error(first))) == exchange_key("chat/completions", body(error(second)))
    assert rename_ids("wait... then 2...3 and abc...")[0] == "wait... then 2...3 and abc..."


def test_a_replayed_answer_names_the_current_runs_ids() -> None:
    old, new = str(uuid.uuid4()), str(uuid.uuid4())
    response = json.dumps({"tool": "patch", "id": old, "other": "kept"})
    restored = restore_ids(response, json.dumps(body(f"existing: {old}")), json.dumps(body(f"existing: {new}")))
    assert json.loads(restored) == {"tool": "patch", "id": new, "other": "kept"}


def test_how_the_answer_travels_is_not_in_the_key() -> None:
    plain = exchange_key("chat/completions", body("q"))
    assert exchange_key("chat/completions", body("q", stream=True, stream_options={"include_usage": True})) == plain
    assert exchange_key("completions", body("q")) != plain
    assert exchange_key("chat/completions", body("q"), repeat=1) != plain
    assert exchange_key("chat/completions", {**body("q"), "model": "other"}) != plain


def _letta_prompt(*names: str) -> str:
    blocks = "\n\n".join(
        f"<{n}>\n<description>\nThe {n} block.\n</description>\n<value>\n{n} text\n</value>\n</{n}>" for n in names
    )
    return f"You are Letta.\n<memory_blocks>\nThe following memory blocks:\n\n{blocks}\n\n</memory_blocks>\nthe end"


def test_lettas_memory_blocks_in_either_order_have_one_key_and_their_contents_count() -> None:
    human_first = body(_letta_prompt("human", "persona"))
    persona_first = body(_letta_prompt("persona", "human"))
    assert exchange_key("chat/completions", human_first, today=TODAY) == exchange_key(
        "chat/completions", persona_first, today=TODAY
    )
    edited = body(_letta_prompt("human", "persona").replace("human text", "human likes red"))
    assert exchange_key("chat/completions", edited, today=TODAY) != exchange_key(
        "chat/completions", human_first, today=TODAY
    )
