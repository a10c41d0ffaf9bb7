"""The local model server of a pytest run: started once, on the controller, before any
worker; xdist workers get its address through their workerinput and never start one.

It is not started when nothing would call it (no memory system, or a replayed cache). It is
stopped at unconfigure, by a config cleanup (which also runs after a usage error or
Ctrl-C), at interpreter exit, and on Linux when the pytest process dies.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ..config.settings import Settings
from ..errors import ConfigError
from .local_model import LocalServer

WORKER_KEY = "memeval_local_base_url"
PLUGIN_NAME = "memeval-local-model"


class LocalModelSession:
    """Hooks of a run with a local model server (registered only then)."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKER_KEY] = self.server.base_url

    def pytest_report_header(self, config: pytest.Config) -> str:
        server = self.server
        return (
            f"memeval: local model server {', '.join(server.aliases)} at {server.base_url} "
            f"(n_ctx {server.n_ctx}, pid {server.pid})"
        )

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.server.stop()


def attach_local_model(config: pytest.Config, settings: Settings) -> Settings:
    """`settings` pointing at the run's local model server, started here on the controller."""
    llm = settings.llm
    if not settings.local_models or llm is None or not settings.active or llm.cache_mode == "replay":
        return settings
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        base_url = workerinput.get(WORKER_KEY)
        if base_url is None:
            raise ConfigError("--memeval-local-model: this xdist worker got no server address from the controller")
        return _served_at(settings, base_url)
    server = LocalServer(settings.local_models, cache_dir=settings.cache_dir, n_ctx=settings.local_n_ctx)
    server.start()
    config.add_cleanup(server.stop)
    config.pluginmanager.register(LocalModelSession(server), PLUGIN_NAME)
    return _served_at(settings, server.base_url)


def _served_at(settings: Settings, base_url: str) -> Settings:
    """The run's LLM (and its gateway's upstream) at the local server."""
    llm = settings.llm
    assert llm is not None  # attach_local_model returned early otherwise
    served = replace(llm, base_url=base_url)
    return replace(settings, llm=served, gateway=served)
