"""pytest-memeval: evaluate LLM memory systems as pytest tests."""

from .fixtures import check
from .protocols import Judge, MemorySystem, ResponseModel
from .runner import Outcome
from .types import Answer, Context, Item, ItemView, Memory, Message, Verdict

__all__ = [
    "Answer",
    "Context",
    "Item",
    "ItemView",
    "Judge",
    "Memory",
    "MemorySystem",
    "Message",
    "Outcome",
    "ResponseModel",
    "Verdict",
    "check",
]
