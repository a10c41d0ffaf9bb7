"""The specification pipeline through an LLM: author three layers from the facts, compose a brief.

    python -m pytest_memeval.suites.behavior.spec_llm --model MODEL --out DIR \\
        [--base-url URL] [--seed 2026 ...] [--cache-file FILE]

writes DIR/behavior/specs/<subject>.md for every subject of each seed's cohort; a run with
`--memeval-data=DIR` then serves those specifications (C2a, C2c, C4a, C9, C3) instead of
the offline ones. As in the paper (section 3.7), each layer is written from the facts
alone, one call per layer, and the brief is composed over the three layers; the calls go
through the plugin's client and call cache (temperature 0), so a rebuild replays.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.llm.caller import ModelCaller
from pytest_memeval.llm.calls import ChatRequest
from pytest_memeval.llm.templates import load_template

from .catalog import COHORT, DEFAULT_SEEDS, SubjectRef
from .facts import extract, facts_text
from .views import SPEC_DIR

LAYERS: dict[str, str] = {
    "ANCHORS": (
        "numbered axioms A1, A2, ... ranked by how much each one overrides the others; each one line:\n"
        "A<n>. <TITLE IN CAPITALS>. <the principle>. Active when: <situations>. False positive: <when it does not apply>."
    ),
    "CORE": "one or two paragraphs of prose on the person's values, beliefs and self-view.",
    "PREDICTIONS": (
        "numbered behavioural predictions P1, P2, ..., each one line:\n"
        "P<n>. <TITLE IN CAPITALS>. Detection: <situations>. Directive: expect them to <behaviour>. "
        "False positive: <exceptions the facts show>."
    ),
}


def _text(caller: ModelCaller, settings: LLMSettings, template: str, values: dict[str, str], label: str) -> str:
    prompt = load_template(template)
    completion = caller.call(ChatRequest.build(settings, prompt.render(values), prompt.id), label=label)
    return (completion.content or "").strip()


def build_spec(facts: str, caller: ModelCaller, settings: LLMSettings, label: str) -> str:
    """The specification text: the three layers (each from the facts) and the composed brief."""
    layers = {
        layer: _text(
            caller,
            settings,
            "behavior_spec_layer",
            {"layer": layer, "format": form, "facts": facts},
            f"{label} {layer}",
        )
        for layer, form in LAYERS.items()
    }
    brief = _text(
        caller,
        settings,
        "behavior_spec_compose",
        {"anchors": layers["ANCHORS"], "core": layers["CORE"], "predictions": layers["PREDICTIONS"]},
        f"{label} BRIEF",
    )
    sections = [*layers.items(), ("BRIEF", brief)]
    return "BEHAVIORAL SPECIFICATION\n\n" + "\n\n".join(f"{name}\n{text}" for name, text in sections) + "\n"


def write_specs(out: Path, seeds: Sequence[int], settings: LLMSettings) -> list[Path]:
    directory = out / SPEC_DIR
    directory.mkdir(parents=True, exist_ok=True)
    caller = ModelCaller(settings)
    written = []
    try:
        for seed in seeds:
            for index in range(COHORT):
                subject = SubjectRef(seed, index)
                text = build_spec(facts_text(extract(seed, index)), caller, settings, subject.id)
                path = directory / f"{subject.id}.md"
                path.write_text(text, encoding="utf-8")
                written.append(path)
    finally:
        caller.close()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_memeval.suites.behavior.spec_llm", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"))
    parser.add_argument("--seed", type=int, action="append", dest="seeds")
    parser.add_argument("--cache-file", type=Path)
    args = parser.parse_args(argv)
    settings = LLMSettings(
        model=args.model,
        base_url=args.base_url,
        temperature=0.0,
        cache_mode="readwrite" if args.cache_file else "off",
        cache_path=args.cache_file,
    )
    paths = write_specs(args.out, tuple(args.seeds or DEFAULT_SEEDS), settings)
    print(f"wrote {len(paths)} specifications to {args.out / SPEC_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
