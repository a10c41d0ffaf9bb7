"""Before a run that calls an LLM: is there a key, is the endpoint there, does it take the key?

Asked once, on the controller, before any item runs (one GET /models with the run's key),
so that a missing key or a wrong URL is one usage line instead of an error record per
item. An endpoint that answers anything but a refusal of the key is there: a server
without /models (404) passes, and what it does with each call is the run's business. A
replayed run (`--memeval-llm-cache=replay`) never touches the network and is not asked.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..config.llm_settings import LLMSettings
from ..errors import ConfigError
from .secret import api_key_from_env

#: the most a probe may wait for the endpoint, whatever the run's per-call timeout
PROBE_TIMEOUT_S = 10.0


def check_endpoint(settings: LLMSettings, option: str) -> None:
    """Raise a one-line ConfigError, naming `option` (what asked for the LLM), when the
    endpoint cannot be called: no key, unreachable, or the key refused."""
    # imported here, not with the module: openai takes seconds to import, and every pytest
    # process (each xdist worker too) imports the plugin, most of them never calling an LLM
    import openai

    base_url = settings.resolved_base_url()
    try:
        secret = api_key_from_env(base_url)
    except ConfigError as exc:
        raise ConfigError(f"{option}: {exc}") from None
    client = openai.OpenAI(
        api_key=secret.reveal(), base_url=base_url, max_retries=0, timeout=min(settings.timeout_s, PROBE_TIMEOUT_S)
    )
    where = _where(str(client.base_url))
    try:
        client.models.list()
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise ConfigError(
            f"{option}: {where} refused the API key (HTTP {exc.status_code}: {secret.scrub(_first_line(exc.message))}); "
            "set OPENAI_API_KEY to a key it takes"
        ) from None
    except openai.APIConnectionError as exc:
        if isinstance(exc, openai.APITimeoutError):
            why = f"no answer within {client.timeout:g} s"
        else:
            why = type(exc.__cause__).__name__ if exc.__cause__ is not None else "connection failed"
        raise ConfigError(
            f"{option}: cannot reach {where} ({why}); check --memeval-base-url or $OPENAI_BASE_URL, "
            "or replay a recorded run with --memeval-llm-cache=replay"
        ) from None
    except openai.APIStatusError:
        pass  # it answered: a server without /models, or one busy now
    finally:
        client.close()


def _where(url: str) -> str:
    """The endpoint without userinfo or query."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path.rstrip('/')}"


def _first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
