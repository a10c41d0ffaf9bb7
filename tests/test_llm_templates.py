"""Versioned prompt templates: loading, strict rendering, versions in the cache key."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_memeval.errors import ConfigError
from pytest_memeval.llm import ChatRequest, LLMSettings, available_templates, load_template


def write(directory: Path, name: str, body: str) -> Path:
    path = directory / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_bundled_templates_load_and_render():
    assert "multisource_direct" in available_templates()
    template = load_template("multisource_direct", version="1")
    assert template.id == "multisource_direct@1"
    assert template.variables == {"heading", "question", "labels", "memories"}
    assert template.source


def test_rendering_is_strict_and_keeps_json_braces(tmp_path: Path):
    write(
        tmp_path,
        "judge",
        "name = \"judge\"\nversion = 3\nsystem = '''\nReply {\"score\": <1-5>} for $$5 of $what\n'''\nuser = \"$answer\"\n",
    )
    template = load_template("judge", directory=tmp_path)
    assert template.version == "3"
    messages = template.render({"what": "work", "answer": "an $answer with {braces}"})
    assert messages == [
        {"role": "system", "content": 'Reply {"score": <1-5>} for $5 of work'},
        {"role": "user", "content": "an $answer with {braces}"},
    ]
    with pytest.raises(ValueError, match="missing"):
        template.render({"what": "x"})
    with pytest.raises(ValueError, match="unknown"):
        template.render({"what": "x", "answer": "y", "extra": "z"})
    with pytest.raises(TypeError):
        template.render({"what": "x", "answer": 3})  # type: ignore[dict-item]


def test_multi_turn_templates(tmp_path: Path):
    write(
        tmp_path,
        "few",
        'name = "few"\nversion = "1"\n[[messages]]\nrole = "user"\ncontent = "q: $q"\n'
        '[[messages]]\nrole = "assistant"\ncontent = "a"\n[[messages]]\nrole = "user"\ncontent = "again"\n',
    )
    assert [m["role"] for m in load_template("few", directory=tmp_path).render({"q": "x"})] == [
        "user",
        "assistant",
        "user",
    ]


@pytest.mark.parametrize(
    "body, message",
    [
        ('name = "t"\nuser = "x"\n', "version"),
        ('name = "other"\nversion = "1"\nuser = "x"\n', "does not match"),
        ('name = "t"\nversion = "1"\n', "user"),
        ('name = "t"\nversion = "1"\nuser = "costs $ 5"\n', "placeholder"),
        ('name = "t"\nversion = "1"\n[[messages]]\nrole = "robot"\ncontent = "x"\n', "role"),
        ('name = "t" version', "t.toml"),
    ],
)
def test_bad_templates_are_config_errors(tmp_path: Path, body: str, message: str):
    write(tmp_path, "t", body)
    with pytest.raises(ConfigError, match=message):
        load_template("t", directory=tmp_path)


def test_missing_template_and_version_pin(tmp_path: Path):
    with pytest.raises(ConfigError, match="not found"):
        load_template("nope", directory=tmp_path)
    with pytest.raises(ConfigError, match="expected 2"):
        load_template("multisource_direct", version="2")


def test_a_new_version_of_the_same_wording_is_a_new_cache_key(tmp_path: Path):
    body = 'name = "t"\nversion = "{v}"\nuser = "$x"\n'
    write(tmp_path, "t", body.format(v=1))
    first = load_template("t", directory=tmp_path)
    write(tmp_path, "t", body.format(v=2))
    second = load_template("t", directory=tmp_path)
    settings = LLMSettings(model="m")
    messages = first.render({"x": "same"})
    assert messages == second.render({"x": "same"})
    assert (
        ChatRequest.build(settings, messages, first.id).key() != ChatRequest.build(settings, messages, second.id).key()
    )
