"""Before a run that calls an LLM: is there a key, is the endpoint there, does it take the key?

Asked once, on the controller, before any item runs (one GET /models with the run's key),
so that a missing key or a wrong URL is one usage line instead of an error record per
item. An endpoint that answers anything but a refusal of the key is there: a server
without /models (404) passes, and what it does with each call is the run's business. A
replayed run (`--memeval-llm-cache=replay`) never touches the network and is not asked.

The probe is one plain GET with httpx (which the run's gateway uses anyway), not the openai
client: importing and building that takes over a second of CPU, and on the controller of an
xdist run, which makes no call, it delayed the workers' start by as much.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from ..config.llm_settings import LLMSettings
from ..errors import ConfigError
from .secret import api_key_from_env
from .tls import tls_context

#: the most a probe may wait for the endpoint, whatever the run's per-call timeout
PROBE_TIMEOUT_S = 10.0
#: where the openai client sends calls when neither the run nor $OPENAI_BASE_URL names an endpoint
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
REFUSED = (401, 403)


def check_endpoint(settings: LLMSettings, option: str) -> None:
    """Raise a one-line ConfigError, naming `option` (what asked for the LLM), when the
    endpoint cannot be called: no key, unreachable, or the key refused."""
    base_url = settings.resolved_base_url()
    try:
        secret = api_key_from_env(base_url)
    except ConfigError as exc:
        raise ConfigError(f"{option}: {exc}") from None
    url = httpx.URL(base_url or OPENAI_DEFAULT_BASE_URL)
    where = _where(str(url))
    timeout = min(settings.timeout_s, PROBE_TIMEOUT_S)
    models = url.copy_with(path=url.path.rstrip("/") + "/models")  # its userinfo and query kept, as openai's
    try:
        response = httpx.get(
            models, headers={"Authorization": f"Bearer {secret.reveal()}"}, timeout=timeout, verify=tls_context()
        )
    except httpx.TimeoutException:
        why = f"no answer within {timeout:g} s"
    except httpx.TransportError as exc:
        why = type(exc).__name__
    else:
        if response.status_code in REFUSED:
            raise ConfigError(
                f"{option}: {where} refused the API key (HTTP {response.status_code}: "
                f"{secret.scrub(_first_line(_error_message(response)))}); set OPENAI_API_KEY to a key it takes"
            )
        return  # it answered: a server without /models, or one busy now
    raise ConfigError(
        f"{option}: cannot reach {where} ({why}); check --memeval-base-url or $OPENAI_BASE_URL, "
        "or replay a recorded run with --memeval-llm-cache=replay"
    )


def _error_message(response: httpx.Response) -> str:
    """The message of an OpenAI-style error body (`{"error": {"message": ...}}`), else the body."""
    try:
        body = response.json()
    except ValueError:
        return response.text
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else response.text


def _where(url: str) -> str:
    """The endpoint without userinfo or query."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path.rstrip('/')}"


def _first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
