"""One OpenAI-compatible chat call, retried by us with exponential back-off.

The openai client is built with max_retries=0 so that every attempt is ours to count:
429, 408/409/425, 5xx, timeouts, connection errors and unreadable response bodies are
retried, honouring Retry-After, until `max_attempts` or the call's wall-clock budget is
spent; anything else (400, 401, 404, ...) fails at once. Failures are one-line
`ResponseError`s raised outside the `except` block, so neither the message nor a chained
exception carries the request (whose headers hold the API key).
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable
from urllib.parse import urlsplit

import openai

from ..errors import ResponseError
from .calls import ChatRequest, Completion, TokenLogprob
from .settings import LLMSettings, Secret, api_key_from_env

log = logging.getLogger("pytest_memeval.models")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
#: an attempt is not started with less time than this left in the budget
_MIN_ATTEMPT_S = 0.01


@dataclass(frozen=True)
class _Failure:
    reason: str
    retryable: bool
    retry_after: float | None = None


class ChatClient:
    """Thread-safe: one instance serves the whole prefetch pool."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        api_key: Secret | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.base_url = settings.resolved_base_url()
        self._secret = api_key if api_key is not None else api_key_from_env(self.base_url)
        self._openai = openai.OpenAI(
            api_key=self._secret.reveal(),
            base_url=self.base_url,
            max_retries=0,
            timeout=settings.timeout_s,
        )
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self.attempts = 0
        self.retries = 0

    def __repr__(self) -> str:
        return f"ChatClient(model={self.settings.model!r}, base_url={self.base_url!r})"

    def scrub(self, text: str) -> str:
        return self._secret.scrub(text)

    def complete(self, request: ChatRequest, *, label: str | None = None) -> Completion:
        settings = self.settings
        started = self._clock()
        deadline = started + settings.retry_budget_s
        failure = _Failure("no attempt made", retryable=False)
        attempt = 0
        while attempt < settings.max_attempts:  # bounded by max_attempts
            remaining = deadline - self._clock()
            if remaining < _MIN_ATTEMPT_S:
                failure = _Failure(f"retry budget of {settings.retry_budget_s:g}s spent; last: {failure.reason}", False)
                break
            attempt += 1
            with self._lock:
                self.attempts += 1
            completion, failure = self._attempt(request, min(settings.timeout_s, remaining))
            if completion is not None:
                return replace(completion, attempts=attempt)
            if not failure.retryable or attempt == settings.max_attempts:
                break
            delay = self._delay(attempt, failure.retry_after)
            if self._clock() + delay >= deadline:
                what = "Retry-After" if failure.retry_after is not None else "back-off"
                failure = _Failure(f"{failure.reason}; {what} of {delay:.2f}s exceeds the retry budget", False)
                break
            log.debug("retrying %s in %.2fs (attempt %d/%d): %s", settings.model, delay, attempt, settings.max_attempts, failure.reason)
            with self._lock:
                self.retries += 1
            self._sleep(delay)
        elapsed = self._clock() - started
        target = f" for {label}" if label else ""
        message = (
            f"LLM call{target} to model {settings.model!r} at {self._where()} failed after "
            f"{attempt} attempt{'s' if attempt != 1 else ''} in {elapsed:.1f}s: {failure.reason}"
        )
        raise ResponseError(self.scrub(message))

    def _attempt(self, request: ChatRequest, timeout: float) -> tuple[Completion | None, _Failure]:
        failure: _Failure | None = None
        try:
            response = self._openai.chat.completions.create(**_arguments(request), timeout=timeout)
        except openai.APITimeoutError:
            failure = _Failure(f"timed out after {timeout:.2f}s", retryable=True)
        except openai.APIConnectionError as exc:
            failure = _Failure(f"connection error ({_cause_name(exc)})", retryable=True)
        except openai.APIStatusError as exc:
            status = exc.status_code
            retryable = status in RETRYABLE_STATUS or status >= 500
            failure = _Failure(
                f"HTTP {status}: {_one_line(self.scrub(str(exc.message)))}",
                retryable,
                _retry_after(exc.response.headers) if retryable else None,
            )
        except openai.APIError as exc:  # e.g. a response that fails the client's validation
            failure = _Failure(f"unreadable response ({type(exc).__name__})", retryable=True)
        except ValueError as exc:  # the openai client raises json's error on a bad body
            failure = _Failure(f"unreadable response body ({type(exc).__name__})", retryable=True)
        if failure is not None:
            return None, failure
        try:
            return _completion(response), _Failure("", False)
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            return None, _Failure(f"malformed completion ({type(exc).__name__})", retryable=True)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        base = min(self.settings.backoff_max_s, self.settings.backoff_s * 2 ** (attempt - 1))
        return base * self._rng.uniform(0.5, 1.0)

    def _where(self) -> str:
        if not self.base_url:
            return "the default endpoint"
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"  # no userinfo

    def close(self) -> None:
        self._openai.close()


def _arguments(request: ChatRequest) -> dict[str, Any]:
    params = request.params
    args: dict[str, Any] = {
        "model": request.model,
        "messages": [dict(m) for m in request.messages],
        "temperature": params["temperature"],
    }
    if params.get("max_tokens") is not None:
        args["max_tokens"] = params["max_tokens"]
    if params.get("logprobs"):
        args["logprobs"] = True
        if params.get("top_logprobs") is not None:
            args["top_logprobs"] = params["top_logprobs"]
    if params.get("extra"):
        args["extra_body"] = dict(params["extra"])
    return args


def _completion(response: Any) -> Completion:
    choice = response.choices[0]
    logprobs = None
    content_logprobs = getattr(choice.logprobs, "content", None) if choice.logprobs is not None else None
    if content_logprobs is not None:
        logprobs = tuple(
            TokenLogprob(t.token, float(t.logprob), tuple((a.token, float(a.logprob)) for a in (t.top_logprobs or ())))
            for t in content_logprobs
        )
    usage = response.usage
    counts = {}
    if usage is not None:
        counts = {k: int(v) for k in ("prompt_tokens", "completion_tokens", "total_tokens") if isinstance(v := getattr(usage, k, None), int)}
    content = choice.message.content
    if content is not None and not isinstance(content, str):
        raise TypeError("message content is not a string")
    return Completion(content, choice.finish_reason, logprobs, getattr(response, "model", None), counts)


def _retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms`, or `retry-after` in seconds or as an HTTP date."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return float(raw_ms) / 1000
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _cause_name(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ if cause is not None else type(exc).__name__


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
