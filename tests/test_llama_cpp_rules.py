"""The request rewrites for llama-cpp-python's server that are pure functions of the body."""

from __future__ import annotations

from pytest_memeval.llm.llama_cpp import with_bounded_tool_strings


def _tool(parameters: dict, **function: object) -> dict:
    return {"type": "function", "function": {"name": "Memory", "parameters": parameters, **function}}


def test_each_string_of_a_tool_is_bounded_at_any_depth_and_nothing_else_changes() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "kept": {"type": "string", "maxLength": 10},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "count": {"type": "integer"},
            "nested": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }
    body = {"model": "m", "tools": [_tool(parameters)], "max_tokens": 64}
    out = with_bounded_tool_strings(body, 512)
    props = out["tools"][0]["function"]["parameters"]["properties"]
    assert props["content"] == {"type": "string", "maxLength": 512}
    assert props["kept"] == {"type": "string", "maxLength": 10}  # its own bound is kept
    assert props["kind"] == {"type": "string", "enum": ["a", "b"]}
    assert props["tags"]["items"] == {"type": "string", "maxLength": 512}
    assert props["count"] == {"type": "integer"}
    assert props["nested"]["anyOf"][0] == {"type": "string", "maxLength": 512}
    assert body["tools"][0]["function"]["parameters"]["properties"]["content"] == {"type": "string"}  # a copy
    assert {k: v for k, v in out.items() if k != "tools"} == {"model": "m", "max_tokens": 64}


def test_a_strict_tool_and_a_body_without_tools_are_left_as_they_are() -> None:
    strict = _tool({"type": "object", "properties": {"content": {"type": "string"}}}, strict=True)
    assert with_bounded_tool_strings({"tools": [strict]}, 512) == {"tools": [strict]}
    assert with_bounded_tool_strings({"messages": []}, 512) == {"messages": []}
