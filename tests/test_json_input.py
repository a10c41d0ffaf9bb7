"""JSON from a user's file (files/json_input.py): nesting too deep to read and NaN or
Infinity are one `JSONDecodeError` naming the place, never a RecursionError; the suites'
readers of released files turn it into their one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memeval.errors import DataError
from pytest_memeval.files.json_input import UnreadableJSON, loads, raw_decode
from pytest_memeval.framework.data_files import read_json

DEEP = "[" * 200_000 + "]" * 200_000


def test_nesting_too_deep_is_a_decode_error_at_the_deepest_bracket() -> None:
    with pytest.raises(UnreadableJSON) as raised:
        loads('{"a": "[[[", "b": ' + DEEP + "}")
    assert raised.value.msg == "nested 200,001 levels deep, too deep to read"
    assert raised.value.pos == len('{"a": "[[[", "b": ') + 199_999  # brackets inside a string do not count
    assert isinstance(raised.value, json.JSONDecodeError)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_constant_json_has_not_is_refused_where_it_stands(constant: str) -> None:
    text = '{"note": "NaN and Infinity in a string are text",\n "score": ' + constant + "}"
    with pytest.raises(UnreadableJSON) as raised:
        loads(text)
    assert (raised.value.msg, raised.value.lineno, raised.value.colno) == (
        f"{constant} is not a number JSON allows",
        2,
        11,
    )
    kept = loads(text, constants=True)["score"]  # a released file's reader checks the numbers it reads
    assert repr(kept) == repr(float(constant))


def test_bytes_and_a_value_inside_a_text_are_read_as_json_reads_them() -> None:
    assert loads('{"x": [1, 2.5, "\\u0073k"]}'.encode("utf-16")) == {"x": [1, 2.5, "sk"]}
    assert raw_decode('xx {"a": 1} tail', 3) == ({"a": 1}, 11)
    with pytest.raises(UnreadableJSON, match="nested 200,000 levels deep"):
        raw_decode("xx" + DEEP, 2)


def test_a_released_data_file_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "event_table.json"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(DataError) as raised:
        read_json(path)
    assert str(raised.value).startswith(f"{path}: not JSON (nested 200,000 levels deep, too deep to read")
    assert "\n" not in str(raised.value)
