"""memfail's prompts against the paper (App. D.2): the default answer prompt is the graded turn
word for word, our additions live only in the guided variant (a suite option), and storage
turns are the ungraded turn, answered by the model and stored with its reply."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from llm_server import LLMServer, Reply, Request
from pytest_memeval.suites.memfail.llm_prompt import MemfailPrompt, template_tables
from pytest_memeval.suites.memfail.storage_turns import TEMPLATE, converse, storage_prompt
from pytest_memeval.suites.memfail.suite import MemfailSuite
from reference_data import SHARED_DIR

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm import LLMSettings
from pytest_memeval.llm.templates import load_template
from pytest_memeval.types import ItemView, Memory

PAPER = SHARED_DIR / "seeds" / "001_dee94d7bb0c13f93.txt"
needs_paper = pytest.mark.skipif(not PAPER.is_file(), reason=f"the MemFail paper's text not found at {PAPER}")

#: App. D.2, "Evaluation: graded turn", as printed in the paper (placeholders in its braces)
GRADED_TURN = """You are an intelligent memory assistant tasked with answering questions using information from past conversation memories.

CONTEXT:

You have access to memories from previous conversations as well as the conversation history that may be helpful in answering the question.

INSTRUCTIONS:

Answer the user's question. You may use the provided memories if they are helpful. If you use the memories above to answer a question, please EXPLICITLY RESTATE which memories you used below, or state that you used no memories. You should only use and restate those memories if you explicitly used them to draw conclusions from them.

Conversation History:

{history}

Relevant Memories:

{memories}

END of Relevant Memories

User Question:

{query}

Answer:"""
#: App. D.2, the Long-Hop MCQ wrapper appended to each graded question
MCQ_WRAPPER = """{question_with_choices}

Choose exactly one option above. The correct answer is uniquely determined by chaining the relevant remembered facts together; the other four options cannot be inferred from those facts.

Respond with a single JSON object on its own line and nothing else, using this exact schema:
{"selected_choice": "<one of A, B, C, D, E>"}"""
UNGRADED_INSTRUCTION = (
    "You are a helpful chat assistant. Read the user's message carefully and remember any new personal "
    "information, preferences, or facts they share that you feel are important to remember. They may be "
    "recalled in future conversations."
)
OPTIONS = ("fold the laundry", "take scenic photos", "water the ferns", "read old diaries", "bake oat cookies")


def _filled(template: str, **values: str) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def test_the_default_prompt_is_the_papers_graded_turn_word_for_word():
    prompt = MemfailPrompt()
    view = ItemView("memfail", "conditional", "It's pouring — would Mira sketch floor plans?", ("yes", "no"))
    [message] = prompt.messages(
        view, [Memory("Mira sketches floor plans only when it rains."), Memory("  "), Memory("Mira likes tea.")]
    )
    answer_format = template_tables("memfail_answer")["formats"]["conditional"]
    query = f"{view.question}\n\n{answer_format}"
    memories = "- Mira sketches floor plans only when it rains.\n- Mira likes tea."
    assert message == {"role": "user", "content": _filled(GRADED_TURN, history="", memories=memories, query=query)}
    # the format only says how to write the answer down: no abstention option, no instruction of ours
    assert (
        answer_format.splitlines()[0]
        == "Respond with a single JSON object on its own line and nothing else, using this exact schema:"
    )
    assert "unknown" not in message["content"] and "I don't have information" not in message["content"]
    assert "do not assume" not in message["content"]


def test_long_hop_questions_get_the_papers_mcq_wrapper():
    view = ItemView("memfail", "longhop", "When I sip morning espresso, what do I end up doing?", OPTIONS)
    [message] = MemfailPrompt().messages(view, [])
    listed = "\n".join(f"{letter}. {option}" for letter, option in zip("ABCDE", OPTIONS))
    question = f"{view.question}\n\nOptions:\n{listed}"  # how the release's graded_question reads
    assert message["content"] == _filled(
        GRADED_TURN, history="", memories="", query=_filled(MCQ_WRAPPER, question_with_choices=question)
    )


def _paper_block(start: str, end: str) -> str:
    text = PAPER.read_text(encoding="utf-8")
    block = text[text.index(start) + len(start) : text.index(end)]
    return re.sub(r"\n[\u21b3\u21aa] ", " ", block).strip()  # join the listing's wrapped lines


@needs_paper
def test_the_prompts_match_the_papers_own_text():
    graded = _paper_block("Evaluation: graded turn", "Evaluation: *Long-Hop* MCQ wrapper")
    assert graded == GRADED_TURN
    wrapper = _paper_block("(appended to each graded question)", "D.3 Grading prompts")
    assert wrapper.replace("```\n", "").replace("\n```", "") == MCQ_WRAPPER  # the listing fences its placeholder
    ungraded = _paper_block("Evaluation: ungraded turn (storage phase)", "Evaluation: graded turn")
    blocks = "Relevant Past Memories:\n{memories}\n\nConversation History:\n{history}\n\nUser: {query}"
    assert ungraded == f"{UNGRADED_INSTRUCTION}\n\n{blocks}"


def test_the_guided_variant_adds_exactly_our_three_instructions():
    views = [
        ItemView("memfail", task, "Q?", OPTIONS if task == "longhop" else ())
        for task in ("conditional", "coexisting", "persona", "update", "longhop")
    ]
    added = set()
    for view in views:
        paper = MemfailPrompt().messages(view, [Memory("m")])[0]["content"]
        guided = MemfailPrompt("guided").messages(view, [Memory("m")])[0]["content"]
        paper_lines, guided_lines = paper.splitlines(), guided.splitlines()
        added |= {line for line in guided_lines if line not in paper_lines}
        assert {line for line in paper_lines if line not in guided_lines} <= {
            line for line in paper_lines if line.startswith(("Answer the user's question.", '{"answer": "<yes or no>"'))
        }
    assert added == {
        "Answer the user's question. You may use the provided memories if they are helpful. If you use the memories above to answer "
        "a question, please EXPLICITLY RESTATE which memories you used below, or state that you used no memories. You should only "
        "use and restate those memories if you explicitly used them to draw conclusions from them. Answer only from what the "
        "memories say about the people and things the question names; do not assume that details about one person apply to another.",
        'Answer yes or no. If the memories do not let you tell, answer "unknown".',
        '{"answer": "<yes, no or unknown>", "memories_used": "<the memories you used, restated, or none>"}',
        "If no memory is about the person the question names, answer exactly \"I don't have information about <that person's name>.\"",
    }
    assert load_template("memfail_answer").version == "2"  # v1 was the prompt with our additions (and no history block)


def test_the_suite_option_picks_the_prompt_and_rejects_anything_else(tmp_path: Path):
    def suite(**params: str) -> MemfailSuite:
        return MemfailSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path, params=params))

    assert suite().llm_prompt().template.id == "memfail_answer@2"
    assert suite(prompt="paper").llm_prompt().template.id == "memfail_answer@2"
    assert suite(prompt="guided").llm_prompt().template.id == "memfail_answer_guided@1"
    with pytest.raises(ConfigError, match="memfail.prompt: 'ours' is not one of paper, guided"):
        suite(prompt="ours")


@pytest.mark.slow
def test_a_bad_prompt_option_is_a_usage_error(suite_pytester: pytest.Pytester):
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=memfail", "--memeval-suite-option=memfail.prompt=x"
    )
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*memfail.prompt: 'x' is not one of paper, guided*"])


def test_a_storage_turn_is_the_papers_ungraded_turn():
    template = load_template(TEMPLATE)
    [first] = storage_prompt(template, [], "I keep bees on the roof.")
    assert first == {"role": "user", "content": f"{UNGRADED_INSTRUCTION}\n\nUser: I keep bees on the roof."}
    [second] = storage_prompt(template, [("I keep bees on the roof.", "Lovely!")], "They hate rain.")
    history = "Conversation History:\nUser: I keep bees on the roof.\nAssistant: Lovely!"
    assert second["content"] == f"{UNGRADED_INSTRUCTION}\n\n{history}\n\nUser: They hate rain."


def test_the_model_answers_every_stored_message_and_both_turns_are_stored(tmp_path: Path):
    def script(request: Request) -> str:
        said = request.messages[0]["content"].rsplit("User: ", 1)[1]
        return f"Noted: {said.lower()}"

    sessions = (("I keep bees.", "They hate rain."), ("I play the oboe.",))
    with LLMServer(script) as server:
        settings = LLMSettings(
            model="answerer",
            base_url=server.base_url,
            cache_mode="readwrite",
            cache_path=tmp_path / "calls.sqlite",
            concurrency=2,
        )
        stored = converse(sessions, settings, "s42-coexisting")
        prompts = [r.messages[0]["content"] for r in server.requests]
        replayed = converse(
            sessions,
            LLMSettings(model="answerer", cache_mode="replay", cache_path=tmp_path / "calls.sqlite"),
            "s42-coexisting",
        )
        assert server.count == 3  # the replay never called
    assert [[(m.role, m.content) for m in s] for s in stored] == [
        [
            ("user", "I keep bees."),
            ("assistant", "Noted: i keep bees."),
            ("user", "They hate rain."),
            ("assistant", "Noted: they hate rain."),
        ],
        [("user", "I play the oboe."), ("assistant", "Noted: i play the oboe.")],
    ]
    assert replayed == stored
    assert any(
        "Conversation History:\nUser: I keep bees.\nAssistant: Noted: i keep bees.\n\nUser: They hate rain." in p
        for p in prompts
    )


def test_the_offline_reader_stores_user_turns_only_and_the_record_says_so(tmp_path: Path):
    suite = MemfailSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path))
    sessions = suite.context("s42-coexisting").sessions
    assert all(m.role == "user" for s in sessions for m in s)
    assert suite.item("s42-coexisting-000").private["stored_turns"] == "user"
    with_llm = MemfailSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path, responder_llm=LLMSettings(model="m")))
    assert with_llm.item("s42-coexisting-000").private["stored_turns"] == "user+assistant"


def test_a_failing_storage_turn_is_one_line(tmp_path: Path):
    with LLMServer(lambda request: Reply.error(400, "no such model")) as server:
        with pytest.raises(ResponseError) as raised:
            converse(
                (("I keep bees.",),),
                LLMSettings(model="answerer", base_url=server.base_url, max_attempts=1),
                "s42-coexisting",
            )
    assert "s42-coexisting storage conversation 1" in str(raised.value) and "\n" not in str(raised.value)
