"""Response models and judges behind any OpenAI-compatible endpoint, with a call cache.

    settings = LLMSettings(model="qwen3", base_url="http://127.0.0.1:8000/v1",
                           cache_mode="readwrite", cache_path=Path("fixtures/llm-cache.sqlite"))
    responder = LLMResponder(MultisourcePrompt(), settings)
    responder.prefetch([(item.id, item.view, memories), ...])   # a context's items
    answer = responder.answer(view, memories, label=item.id)

Modules: settings (LLMSettings, the API-key Secret), calls (request/completion data and
the cache key), client (one call with retries), cache (SQLite), caller (cache modes),
templates (versioned prompt files), responder (prefetching ResponseModel), judge (LLM
judges and panels), multisource (that suite's prompt and strict parser).
"""

from ..config.judge_specs import PanelMember
from ..config.llm_settings import CACHE_MODES, LLMSettings
from ..types import PrefetchRequest
from .cache import CallCache
from .caller import ModelCaller, ReplayMissError
from .calls import ChatRequest, Completion, TokenLogprob
from .judge import (
    JudgeFailure,
    JudgeOutputError,
    JudgePanel,
    JudgePrompt,
    LLMJudge,
    PanelFactory,
    ProtocolPrompt,
    TemplateJudgePrompt,
    cut,
    parse_score,
)
from .multisource import MultisourcePrompt, parse_answer
from .responder import LLMResponder, ResponsePrompt
from .secret import Secret
from .strict_json import InvalidOutput, read_object
from .templates import PromptTemplate, available_templates, load_template


def __getattr__(name: str) -> object:
    if name == "ChatClient":  # needs openai; replay-only runs never import it
        from .client import ChatClient

        return ChatClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CACHE_MODES",
    "CallCache",
    "ChatClient",
    "ChatRequest",
    "Completion",
    "InvalidOutput",
    "JudgeFailure",
    "JudgeOutputError",
    "JudgePanel",
    "JudgePrompt",
    "LLMJudge",
    "LLMResponder",
    "LLMSettings",
    "ModelCaller",
    "MultisourcePrompt",
    "PanelFactory",
    "PanelMember",
    "PrefetchRequest",
    "PromptTemplate",
    "ProtocolPrompt",
    "ReplayMissError",
    "ResponsePrompt",
    "Secret",
    "TemplateJudgePrompt",
    "TokenLogprob",
    "available_templates",
    "cut",
    "load_template",
    "parse_answer",
    "parse_score",
    "read_object",
]
