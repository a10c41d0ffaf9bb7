"""The LLM path of the personamem suite: the official question with the retrieved memories.

The messages: the template's system message with the memories, the ongoing session's
messages from the view as released (role and content), and the official question message
(`personamem_answer.toml`: question, instruction, all_options). They are then merged as
`convert_role_system_to_user` of the official inference.py merges them for every model
whose name holds an "o" (gpt-4o, the paper's default, o1, o3-mini) and for Claude: each
system message becomes "[System]: <content>\\n" before the next message, and consecutive
messages of one role are joined with a newline. A system message that nothing follows is
dropped, as there.

The reply is read by the official rule (judge.py); every reply is scored, an empty one as
wrong, as the official results count it. A reply cut at the run's max_tokens is invalid:
the official calls set no limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, ItemView, Memory

from .scoring import predicted_tail

TEMPLATE = "personamem_answer"
NO_MEMORIES = "(none)"


def memories_block(memories: Sequence[Memory]) -> str:
    return "\n".join(m.text for m in memories) or NO_MEMORIES


def merge_system_messages(messages: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The official convert_role_system_to_user, reimplemented from its description."""
    merged: list[dict[str, str]] = []
    pending = ""
    for message in messages:
        role, content = message["role"], message["content"]
        if role == "system":
            pending += f"[System]: {content}\n"
            continue
        content, pending = pending + content, ""
        if merged and merged[-1]["role"] == role:
            merged[-1] = {"role": role, "content": merged[-1]["content"] + "\n" + content}
        else:
            merged.append({"role": role, "content": content})
    return merged


class PersonaMemPrompt:
    """A `ResponsePrompt`: the memories, the ongoing session, the official question."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        system, question = self.template.render(
            {
                "memories": memories_block(memories),
                "question": view.question,
                "all_options": str(view.extra["all_options"]),
            }
        )
        conversation = [{"role": role, "content": content} for role, content in view.extra.get("conversation", ())]
        return merge_system_messages([system, *conversation, question])

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        raw = completion.content or ""
        if completion.truncated:
            return Answer(None, valid=False, raw=raw, detail={"invalid": "output cut at max_tokens"})
        tail = predicted_tail(raw)
        return Answer(tail or None, abstained=not tail, raw=raw)
