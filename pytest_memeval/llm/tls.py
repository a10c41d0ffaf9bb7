"""One TLS context for the HTTP clients the plugin builds to reach an LLM endpoint.

An httpx client built with the default `verify=True` loads the CA bundle into a context of
its own: about 80 ms of CPU each on this project's machine. A run that calls an LLM builds
three before its first call (the endpoint probe, the gateway's client, the openai client),
each worker of an xdist run two, and every adapter whose system calls an LLM one more
(`memory.llm_clients`). They share one context, built on first use with httpx's own
defaults (certifi's bundle, or $SSL_CERT_FILE / $SSL_CERT_DIR), so verification is what
each client would have done alone.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
