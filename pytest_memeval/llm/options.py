"""The options of response models, judges and their LLM calls (the call cache, timeouts,
concurrency, structured outputs, the completions API, context windows, the local model
server), in their `pytest --help` group; config/llm_options.py reads them into `LLMSettings`."""

from __future__ import annotations

import pytest

from ..config.model_specs import DEFAULT_N_CTX

GROUP, TITLE = "memeval-llm", "memeval: response models, judges and LLM calls"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, TITLE)
    group.addoption(
        "--memeval-responder",
        default="reader",
        metavar="NAME",
        help="response model: reader (each suite's offline, deterministic reader) or openai:MODEL "
        "(any OpenAI-compatible endpoint) (default: reader)",
    )
    group.addoption(
        "--memeval-judge",
        metavar="JUDGE[,...]",
        help="LLM judge(s) for suites graded by rubric; several form a panel: openai:MODEL, openai:MODEL@PROMPT "
        "(one of the suite's judge prompts, e.g. mem0-j or longmemeval), default or default@PROMPT (the model "
        "the suite's protocol names); each applies to the selected suites it fits, the others keep their own judge",
    )
    group.addoption(
        "--memeval-base-url",
        metavar="URL",
        help="OpenAI-compatible endpoint for responders and judges (default: $OPENAI_BASE_URL); "
        "the key is read from $OPENAI_API_KEY",
    )
    group.addoption(
        "--memeval-llm-cache",
        default="readwrite",
        metavar="MODE",
        help="LLM call cache: readwrite, replay (never touches the network; a miss is an error) or off "
        "(default: readwrite)",
    )
    group.addoption(
        "--memeval-llm-cache-file",
        metavar="PATH",
        help="the LLM call cache, one SQLite file a team can commit "
        "(default: $MEMEVAL_LLM_CACHE_FILE or <cache dir>/llm-calls.sqlite)",
    )
    group.addoption(
        "--memeval-max-tokens", default="1024", metavar="N", help="LLM max tokens per answer (default: 1024)"
    )
    group.addoption(
        "--memeval-timeout", metavar="SECONDS", help="LLM timeout per attempt (default: 60; 120 with a local model)"
    )
    group.addoption(
        "--memeval-concurrency",
        metavar="N",
        help="LLM calls in flight for the whole run, split between xdist workers; lowered on HTTP 429 and "
        "raised again (default: 16; 1 with a local model, whose server answers one call at a time)",
    )
    group.addoption(
        "--memeval-timeout-per-1k-tokens",
        metavar="SECONDS",
        help="added to the timeout per 1,000 tokens of prompt and max tokens (default: 0; 60 with a local model)",
    )
    group.addoption(
        "--memeval-structured",
        default="auto",
        metavar="MODE",
        help="constrain answers to each prompt's JSON schema: auto (the OpenAI json_schema form, or "
        "llama-cpp-python's json_object form where an endpoint refuses it), json_schema, json_object or off "
        "(default: auto)",
    )
    group.addoption(
        "--memeval-api",
        default="chat",
        metavar="API",
        help="chat (/chat/completions) or completions (/completions with the prompt as plain text, for base "
        "models such as gemma3-270m) (default: chat)",
    )
    group.addoption(
        "--memeval-context-window",
        metavar="TOKENS",
        help="the endpoint's context window; a prompt that does not fit is an error record, not a call "
        "(default: what the server says, else no check; the local model's n_ctx)",
    )
    group.addoption(
        "--memeval-local-model",
        metavar="NAME|PATH|ALIAS=PATH[,...]",
        help="start a llama.cpp server on 127.0.0.1 for the run with these models (smollm2-135m, gemma3-270m, "
        "or a GGUF file; needs the [llm-local] extra) and use it as the endpoint",
    )
    group.addoption(
        "--memeval-local-n-ctx",
        default=str(DEFAULT_N_CTX),
        metavar="TOKENS",
        help=f"context window of each local model (default: {DEFAULT_N_CTX})",
    )
