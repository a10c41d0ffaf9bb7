"""One OpenAI-compatible chat call, retried by us with exponential back-off.

The openai client is built with max_retries=0 so that every attempt is ours to count:
429, 408/409/425, 5xx, timeouts, connection errors and unreadable response bodies are
retried, honouring Retry-After, until `max_attempts` or the call's wall-clock budget is
spent; anything else (400, 401, 404, ...) fails at once. Failures are one-line
`ResponseError`s raised outside the `except` block, so neither the message nor a chained
exception carries the request (whose headers hold the API key).

Before the first attempt the call is planned (budget.py): a prompt over the endpoint's
context window fails with a `ContextWindowError` and no call, and the attempt timeout
grows with the prompt when `timeout_per_1k_tokens_s` is set (the retry budget grows in
proportion). A request with an answer schema carries it in the form the endpoint takes
(structured.py); in mode auto a refusal of the OpenAI form switches the endpoint to
llama-cpp-python's form at once, without a back-off. With `api` completions the messages
go to /completions as one plain text (calls.plain_prompt), for base models.
"""

from __future__ import annotations

import email.utils
import logging
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import openai
import pydantic

from ..config.llm_settings import LLMSettings
from ..errors import ResponseError
from .budget import ContextWindowError, PromptBudget, says_too_long
from .calls import ChatRequest, Completion, TokenLogprob, plain_prompt
from .deadline import DeadlineExceeded, call_within
from .secret import Secret, api_key_from_env
from .structured import FORMS, JSON_SCHEMA, refuses_schema_form, response_format
from .tls import tls_context

log = logging.getLogger("pytest_memeval.llm")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
#: an attempt is not started with less time than this left in the budget
_MIN_ATTEMPT_S = 0.01


@dataclass(frozen=True)
class _Failure:
    reason: str
    retryable: bool
    retry_after: float | None = None
    #: the endpoint refused the structured-output form that was sent
    refused_form: bool = False
    #: the server said the prompt exceeds its context window
    too_long: bool = False


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
            http_client=openai.DefaultHttpxClient(verify=tls_context()),
        )
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self.budget = PromptBudget(settings, self.base_url, {"Authorization": f"Bearer {self._secret.reveal()}"})
        self.attempts = 0
        self.retries = 0

    def __repr__(self) -> str:
        return f"ChatClient(model={self.settings.model!r}, base_url={self.base_url!r})"

    def scrub(self, text: str) -> str:
        return self._secret.scrub(text)

    def complete(self, request: ChatRequest, *, label: str | None = None) -> Completion:
        settings = self.settings
        plan = self.budget.plan(request, label=label)  # may raise ContextWindowError: no call
        started = self._clock()
        deadline = started + settings.retry_budget_s * plan.timeout_s / settings.timeout_s
        failure = _Failure("no attempt made", retryable=False)
        attempt = 0
        switched_form = False
        while attempt < settings.max_attempts:  # bounded by max_attempts (plus one form switch)
            remaining = deadline - self._clock()
            if remaining < _MIN_ATTEMPT_S:
                failure = _Failure(f"retry budget of {deadline - started:g}s spent; last: {failure.reason}", False)
                break
            attempt += 1
            with self._lock:
                self.attempts += 1
            form = self._form(request)
            completion, failure = self._attempt(request, min(plan.timeout_s, remaining), form)
            if completion is not None:
                # a server that echoes the key must not get it into the cache or the report
                return replace(completion.scrubbed(self._secret), attempts=attempt)
            auto = request.structured is not None and request.structured[0] == "auto"
            if failure.refused_form and form == JSON_SCHEMA and auto and not switched_form:
                FORMS.refused(self._endpoint())
                log.info("%s refuses response_format json_schema; sending json_object with the schema", self._where())
                switched_form, attempt = True, attempt - 1  # not a failure of the call: ask again at once
                continue
            if failure.refused_form:
                failure = _Failure(
                    f"{failure.reason} (the endpoint does not take response_format {form}; "
                    "try --memeval-structured=auto or off)",
                    False,
                )
            if failure.too_long:
                raise ContextWindowError(self.scrub(self._message(label, attempt, started, failure)))
            if not failure.retryable or attempt == settings.max_attempts:
                break
            delay = self._delay(attempt, failure.retry_after)
            if self._clock() + delay >= deadline:
                what = "Retry-After" if failure.retry_after is not None else "back-off"
                failure = _Failure(f"{failure.reason}; {what} of {delay:.2f}s exceeds the retry budget", False)
                break
            log.debug(
                "retrying %s in %.2fs (attempt %d/%d): %s",
                settings.model,
                delay,
                attempt,
                settings.max_attempts,
                failure.reason,
            )
            with self._lock:
                self.retries += 1
            self._sleep(delay)
        raise ResponseError(self.scrub(self._message(label, attempt, started, failure)))

    def _message(self, label: str | None, attempt: int, started: float, failure: _Failure) -> str:
        elapsed = self._clock() - started
        target = f" for {label}" if label else ""
        return (
            f"LLM call{target} to model {self.settings.model!r} at {self._where()} failed after "
            f"{attempt} attempt{'s' if attempt != 1 else ''} in {elapsed:.1f}s: {failure.reason}"
        )

    def _form(self, request: ChatRequest) -> str | None:
        spec = request.structured
        return None if spec is None else FORMS.form(spec[0], self._endpoint())

    def _endpoint(self) -> str:
        return self.base_url or "(default)"

    def _attempt(
        self, request: ChatRequest, timeout: float, form: str | None = None
    ) -> tuple[Completion | None, _Failure]:
        failure: _Failure | None = None

        def call() -> Any:
            if self.settings.api == "completions":
                return self._openai.completions.create(**_completion_arguments(request), timeout=timeout)
            return self._openai.chat.completions.create(**_arguments(request, form), timeout=timeout)

        try:
            response = call_within(timeout, call)  # httpx's timeout bounds each read, not the whole reply
        except openai.APITimeoutError:
            failure = _Failure(f"timed out after {timeout:.2f}s", retryable=True)
        except DeadlineExceeded as exc:
            failure = _Failure(f"timed out after {timeout:.2f}s: {exc}", retryable=True)
        except openai.APIConnectionError as exc:
            failure = _Failure(f"connection error ({_cause_name(exc)})", retryable=True)
        except openai.APIStatusError as exc:
            status = exc.status_code
            message = self.scrub(str(exc.message))
            refused = form is not None and refuses_schema_form(status, message)
            too_long = not refused and says_too_long(message)
            retryable = (status in RETRYABLE_STATUS or status >= 500) and not (refused or too_long)
            failure = _Failure(
                f"HTTP {status}: {_one_line(message)}",
                retryable,
                _retry_after(exc.response.headers) if retryable else None,
                refused_form=refused,
                too_long=too_long,
            )
        except openai.APIError as exc:  # e.g. a response that fails the client's validation
            failure = _Failure(f"unreadable response ({type(exc).__name__})", retryable=True)
        except ValueError as exc:  # the openai client raises json's error on a bad body
            failure = _Failure(f"unreadable response body ({type(exc).__name__})", retryable=True)
        if failure is not None:
            return None, failure
        failure = self._error_in_body(response)
        if failure is not None:
            return None, failure
        try:
            if self.settings.api == "completions":
                return _text_completion(response), _Failure("", False)
            return replace(_completion(response), structured=form), _Failure("", False)
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            return None, _Failure(f"malformed completion ({type(exc).__name__})", retryable=True)

    def _error_in_body(self, response: Any) -> _Failure | None:
        """A 200 whose body is an error object instead of a completion (a spent quota, a
        proxy's upstream failure): the server's message, retried only when its code says
        the error is transient."""
        extra = response.model_extra if isinstance(response, pydantic.BaseModel) else None
        error = (extra or {}).get("error")
        if error is None:
            return None
        fields = error if isinstance(error, dict) else {"message": error}
        message = _one_line(self.scrub(str(fields.get("message") or fields.get("type") or error)))
        kind = " ".join(str(fields[k]) for k in ("type", "code") if fields.get(k) is not None)
        code = fields.get("code")
        retryable = isinstance(code, int) and (code in RETRYABLE_STATUS or code >= 500)
        return _Failure(f"HTTP 200 with an error body{f' ({self.scrub(kind)})' if kind else ''}: {message}", retryable)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        base = min(self.settings.backoff_max_s, self.settings.backoff_s * 2 ** (attempt - 1))
        return base * self._rng.uniform(0.5, 1.0)

    def _where(self) -> str:
        """The endpoint the user configured, without its userinfo (not the gateway's port)."""
        url = self.settings.shown_url or self.base_url
        if not url:
            return "the default endpoint"
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"  # no userinfo

    def close(self) -> None:
        self.budget.close()
        self._openai.close()


#: OpenAI's reasoning models (gpt-5*, o1, o3, o4-mini, ...), named alone or after a provider prefix
_REASONING_MODEL = re.compile(r"(^|/)(gpt-5|o[1-9])([-.:]|$)")


def takes_reasoning_parameters(model: str) -> bool:
    """Whether the model refuses `max_tokens` and any temperature but its default (it takes
    `max_completion_tokens`): OpenAI's reasoning models do."""
    return _REASONING_MODEL.search(model) is not None


def _arguments(request: ChatRequest, form: str | None = None) -> dict[str, Any]:
    params = request.params
    args: dict[str, Any] = {"model": request.model, "messages": [dict(m) for m in request.messages]}
    reasoning = takes_reasoning_parameters(request.model)
    if not reasoning:
        args["temperature"] = params["temperature"]
    if params.get("max_tokens") is not None:
        args["max_completion_tokens" if reasoning else "max_tokens"] = params["max_tokens"]
    if params.get("logprobs"):
        args["logprobs"] = True
        if params.get("top_logprobs") is not None:
            args["top_logprobs"] = params["top_logprobs"]
    extra = dict(params.get("extra") or {})
    if form is not None and request.structured is not None:
        extra["response_format"] = response_format(form, request.structured[1], request.template)
    if extra:
        args["extra_body"] = extra
    return args


def _completion_arguments(request: ChatRequest) -> dict[str, Any]:
    """/completions: the messages as one plain text; `logprobs` is the number of alternatives."""
    params = request.params
    args: dict[str, Any] = {
        "model": request.model,
        "prompt": plain_prompt(request.messages),
        "temperature": params["temperature"],
    }
    if params.get("max_tokens") is not None:
        args["max_tokens"] = params["max_tokens"]
    if params.get("logprobs"):
        args["logprobs"] = params.get("top_logprobs") or 0
    if params.get("extra"):
        args["extra_body"] = dict(params["extra"])
    return args


def _text_completion(response: Any) -> Completion:
    choice = response.choices[0]
    logprobs = None
    raw = choice.logprobs
    if raw is not None and raw.tokens is not None:
        tops = raw.top_logprobs or [None] * len(raw.tokens)
        logprobs = tuple(
            TokenLogprob(
                token,
                float(logprob),
                tuple(sorted(((t, float(lp)) for t, lp in (top or {}).items()), key=lambda pair: -pair[1])),
            )
            for token, logprob, top in zip(raw.tokens, raw.token_logprobs, tops, strict=True)
        )
    text = choice.text
    if text is not None and not isinstance(text, str):
        raise TypeError("completion text is not a string")
    return Completion(text, choice.finish_reason, logprobs, getattr(response, "model", None), _usage(response))


def _usage(response: Any) -> dict[str, int]:
    usage = response.usage
    if usage is None:
        return {}
    return {
        k: int(v)
        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(v := getattr(usage, k, None), int)
    }


def _completion(response: Any) -> Completion:
    choice = response.choices[0]
    logprobs = None
    content_logprobs = getattr(choice.logprobs, "content", None) if choice.logprobs is not None else None
    if content_logprobs is not None:
        logprobs = tuple(
            TokenLogprob(t.token, float(t.logprob), tuple((a.token, float(a.logprob)) for a in (t.top_logprobs or ())))
            for t in content_logprobs
        )
    content = choice.message.content
    if content is not None and not isinstance(content, str):
        raise TypeError("message content is not a string")
    return Completion(content, choice.finish_reason, logprobs, getattr(response, "model", None), _usage(response))


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
