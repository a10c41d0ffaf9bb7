"""Before anything is spent: the LLM calls and tokens a run will make, per phase and model
(printed by `pytest --collect-only` when the run has an LLM responder or judge).

For each selected item the suite's own prompts are rendered, so the prompt's wording, the
question and its options count as they will be sent. What cannot be known before the run
is assumed, and the output says so:

- the memories a system will return: the context's first k turns (every turn for a system
  that declares `honours_k = False`, the `context` ceiling), each turn one memory;
- the answer the judge grades: the item's gold, with the prompt the suite's judge gives
  each of the run's judges (a suite with a prompt per kind of item, knowme's families, is
  approximated by the first), once per call the prompt says it makes for the item
  (`AsksSeveralTimes`: beam's, once per rubric item);
- the completion: ANSWER_TOKENS per answer call, VERDICT_TOKENS per judge call (the
  suites' answers are a label or a short phrase, their verdicts a small JSON object);
- the responder's storage turns of a suite that declares them (memfail): one call per
  stored message, its prompt the message after the session's earlier turns, each reply
  ANSWER_TOKENS long (the template's own words are not counted). The contexts are built
  without the responder, so the estimate itself makes no call.

An interactive suite counts when it plans each item's calls (`Suite.plans_calls` and
`planned_calls`, given what a retrieval of n is assumed to return: the context's first n
turns, or every turn from a system that does not honour k): its `answer` calls for the
responder, its `judge` calls once per judge of the run that fits the suite. One that plans
none is skipped before its items and contexts are built.

Tokens are counted as `memory.tokens.count_tokens` counts them (words and punctuation,
close to BPE counts on English). Interactive suites that plan no calls (their protocol
decides them as it goes), a judge that asks from what the run retrieved (memfail's staged
judge) and the memory systems' own LLM calls are not estimated; the ingest line says what there is to
store. A run of several repeats makes each call once per repeat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pytest

from ..config.judge_specs import fitting, panel_members
from ..config.prices import Prices
from ..config.settings import oracle_base, responder_model
from ..framework.suite import Suite
from ..llm.judge import AsksSeveralTimes
from ..memory.tokens import count_tokens
from ..protocols import honours_k as declares_honours_k
from ..results.usage import Tokens
from ..running.collection import item_key
from ..running.state import RunState
from ..types import Answer, Item, Memory

if TYPE_CHECKING:
    from ..config.judge_specs import JudgeSpec, PanelMember
    from ..llm.judge import PanelFactory, ProtocolPrompt

ANSWER_TOKENS = 16
VERDICT_TOKENS = 32


@dataclass(frozen=True)
class PhaseEstimate:
    phase: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def estimate(state: RunState, items: Sequence[pytest.Item]) -> tuple[list[PhaseEstimate], list[str]]:
    """Per phase and model, the calls and tokens of these items; and what was not estimated."""
    settings = state.settings
    totals: dict[tuple[str, str], Tokens] = {}
    notes: dict[str, None] = {}
    sessions: dict[tuple[str, str, str], tuple[int, int]] = {}
    memories: dict[tuple[str, str, bool, int | None], list[Memory]] = {}
    judge_prompts: dict[str, list[Any]] = {}
    for node in items:
        key = item_key(node, settings.memsystems[0], settings.k)
        if key is None:
            continue
        suite_ref, system, k, item_id, _ = key
        suite = state.suite(suite_ref)
        if suite.interactive and not suite.plans_calls:
            notes[f"{suite.name}: interactive (its protocol decides its calls): not estimated"] = None
            continue
        item = suite.item(item_id)
        model = responder_model(settings.responder)
        # never the responder's storage turns: they would be spent here
        source = state.offline_suite(suite_ref) if suite.responder_stores_replies else suite
        # an oracle run (--memeval-oracle) is counted as its system's whole fill: an upper bound
        honours_k = declares_honours_k(state.memsystems[oracle_base(system)[0]].load())
        if suite.interactive:
            turns = (suite_ref, item.context_id, honours_k, None)
            if turns not in memories:
                memories[turns] = _memories(source, item.context_id, None)
            _add_planned(totals, suite, item, memories[turns], honours_k, k, model, settings.judges)
        context = (suite_ref, item.context_id, honours_k, k)
        if context not in memories:
            memories[context] = _memories(source, item.context_id, k if honours_k else None)
        if (suite_ref, item.context_id, system) not in sessions:
            context_sessions = source.context(item.context_id).sessions
            sessions[(suite_ref, item.context_id, system)] = (
                len(context_sessions),
                _tokens_of_sessions(context_sessions),
            )
            if model is not None and suite.responder_stores_replies:
                for prompt_tokens in _storage_turns(context_sessions):
                    _add(totals, "ingest", model, prompt_tokens, ANSWER_TOKENS)
        if suite.interactive:
            continue  # its calls were added above
        if model is not None:
            prompt = suite.llm_prompt()
            if prompt is not None:  # a suite without an LLM path is refused before any test runs
                rendered = prompt.messages(item.view, memories[context])
                _add(totals, "answer", model, _tokens(rendered), ANSWER_TOKENS)
        # the judges of --memeval-judge that fit the suite (none: it keeps its own judge)
        specs = fitting(settings.judges, suite.judge_prompts, suite.name)
        if specs and suite.judge_reads_the_run:
            notes[f"{suite.name}: its judge asks from what the run retrieves and stores: judge calls not estimated"] = (
                None
            )
        elif specs:
            if suite_ref not in judge_prompts:
                members = panel_members(specs, suite.judge_prompts, suite.name)
                judge_prompts[suite_ref] = _judge_prompts(suite, members)
                if not judge_prompts[suite_ref]:
                    notes[f"{suite.name}: its judge builds its prompts per item: judge calls not estimated"] = None
            for model, judge_prompt in judge_prompts[suite_ref]:
                answer = _gold_answer(item)
                calls = (
                    judge_prompt.calls(item, answer)
                    if isinstance(judge_prompt, AsksSeveralTimes)
                    else [judge_prompt.messages(item, answer)]
                )
                for rendered in calls:
                    _add(totals, "judge", model, _tokens(rendered), VERDICT_TOKENS)
    stored = list(sessions.values())
    if stored:
        count, text = sum(n for n, _ in stored), sum(t for _, t in stored)
        notes[
            f"ingest: {count} sessions ({text:,} tokens of text) to store; a memory system's own LLM calls "
            "are not estimated"
        ] = None
    phases = [
        PhaseEstimate(phase, model, t.calls, t.prompt_tokens, t.completion_tokens)
        for (phase, model), t in totals.items()
    ]
    return phases, list(notes)


def estimate_lines(phases: Sequence[PhaseEstimate], notes: Sequence[str], prices: Prices | None = None) -> list[str]:
    """The estimate for people; with `prices` (--memeval-prices), each phase's cost and the
    total's, in the price table's currency (a model without a price: its cost unknown)."""
    lines = ["memeval estimate (before anything is spent; see docs/campaigns.md for what is assumed):"]
    costs = [_cost(phase, prices) for phase in phases] if prices else []
    for n, phase in enumerate(phases):
        money = ""
        if prices:
            money = f", cost {costs[n]:.4f}" if costs[n] is not None else f", cost unknown (no price for {phase.model})"
        lines.append(
            f"  {phase.phase:<7}{phase.model}: {phase.calls} calls, {phase.prompt_tokens:,} prompt + "
            f"{phase.completion_tokens:,} completion tokens{money}"
        )
    if phases:
        total = sum(p.tokens for p in phases)
        money = ""
        if prices:
            known = sum(cost for cost in costs if cost is not None)
            money = f", cost {known:.4f}" if all(c is not None for c in costs) else f", cost at least {known:.4f}"
        lines.append(f"  total: {sum(p.calls for p in phases)} calls, {total:,} tokens{money}")
    lines.extend(f"  {note}" for note in notes)
    return lines


def _cost(phase: PhaseEstimate, prices: Prices | None) -> float | None:
    price = prices.get(phase.model) if prices else None
    return None if price is None else price.of(Tokens(phase.calls, phase.prompt_tokens, phase.completion_tokens))


def _add(totals: dict[tuple[str, str], Tokens], phase: str, model: str, prompt: int, completion: int) -> None:
    totals[(phase, model)] = totals.get((phase, model), Tokens()) + Tokens(1, prompt, completion)


def _add_planned(
    totals: dict[tuple[str, str], Tokens],
    suite: Suite,
    item: Item,
    turns: Sequence[Memory],
    honours_k: bool,
    k: int,
    responder: str | None,
    judges: Sequence[JudgeSpec],
) -> None:
    """The calls an interactive suite plans for `item` (`Suite.planned_calls`), added to
    `totals` for the responder and each of the run's judges that fit the suite."""
    planned = suite.planned_calls(item, lambda n: turns[:n] if honours_k else turns, k)
    specs = fitting(judges, suite.judge_prompts, suite.name)
    judge_models = [member.model for member in panel_members(specs, suite.judge_prompts, suite.name)] if specs else []
    for call in planned:
        if call.phase == "answer":
            callers, completion = [responder] if responder else [], ANSWER_TOKENS
        else:
            callers, completion = judge_models, VERDICT_TOKENS
        for model in callers:
            _add(totals, call.phase, model, _tokens(call.messages), completion)


def _memories(suite: Suite, context_id: str, k: int | None) -> list[Memory]:
    turns = [message.content for session in suite.context(context_id).sessions for message in session]
    texts = [text for text in turns if text.strip()]
    return [Memory(text) for text in (texts if k is None else texts[:k])]


def _tokens_of_sessions(sessions: Sequence[Sequence[Any]]) -> int:
    return sum(count_tokens(message.content) for session in sessions for message in session)


def _storage_turns(sessions: Sequence[Sequence[Any]]) -> list[int]:
    """The prompt tokens of the responder's reply to each stored message: the message after
    the earlier turns of its session, each earlier reply ANSWER_TOKENS long."""
    prompts = []
    for session in sessions:
        history = 0
        for message in session:
            tokens = count_tokens(message.content)
            prompts.append(history + tokens)
            history += tokens + ANSWER_TOKENS
    return prompts


def _tokens(messages: Sequence[dict[str, str]]) -> int:
    return sum(count_tokens(message["content"]) for message in messages)


def _judge_prompts(suite: Suite, members: Sequence[PanelMember]) -> list[tuple[str, Any]]:
    """(model, prompt) of each judge of the suite's panel: the prompt the suite's LLM judge
    gives that judge (captured, never called)."""
    capture = _CapturedPanel(members)
    suite.llm_judge(cast("PanelFactory", capture))  # it only keeps the prompts it is given
    return capture.prompts


class _CapturedPanel:
    """Stands in for PanelFactory with the run's judges: keeps the prompt each judge would
    grade with (for a suite with a prompt per kind of item, knowme's families, the first
    one it builds) and builds no panel."""

    def __init__(self, members: Sequence[PanelMember]) -> None:
        self.members = tuple(members)
        self.prompts: list[tuple[str, Any]] = []

    def __call__(self, prompt: Any, **call: Any) -> None:
        if not self.prompts:
            self.prompts = [(member.model, prompt) for member in self.members]

    def named(self, prompts: Mapping[str, ProtocolPrompt]) -> None:
        if not self.prompts:
            self.prompts = [
                (member.model, prompts[member.prompt].prompt)
                for member in self.members
                if member.prompt is not None and member.prompt in prompts
            ]


def _gold_answer(item: Item) -> Answer:
    gold = item.gold
    return Answer(label=str(gold[0] if isinstance(gold, (list, tuple)) and gold else gold))
