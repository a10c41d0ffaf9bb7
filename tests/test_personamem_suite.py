"""The personamem suite: the generated sample's format, the release reader's checks, what each
question's prefix becomes (the stored sessions and the ongoing conversation, under both fill
protocols), the offline reader, the LLM prompt, the summary, and two runs through pytest
(-n 2 offline; an LLM responder against a loopback server)."""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from msgspec.structs import replace
from pytest_memeval.suites.personamem.catalog import canonical_type
from pytest_memeval.suites.personamem.llm import PersonaMemPrompt, merge_system_messages
from pytest_memeval.suites.personamem.released import cut, read_questions
from pytest_memeval.suites.personamem.sample import HEADER, main, sample_files, write_sample
from pytest_memeval.suites.personamem.scoring import INSTRUCTIONS
from pytest_memeval.suites.personamem.suite import PersonaMemSuite

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm.calls import Completion
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.none import NoMemory
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.types import Memory, Message, Trace


def _suite(cache: Path, data: Path | None = None, size: str = "smoke", **params: str) -> PersonaMemSuite:
    options = SuiteOptions(
        size=size, split=None, seeds=None, k=10, data_dir=data, cache_dir=cache, bootstrap=50, params=params
    )
    return PersonaMemSuite(options)


def _contexts(data: bytes) -> dict[str, list[dict[str, str]]]:
    return {k: v for line in data.decode().splitlines() for k, v in json.loads(line).items()}


# --- the generated sample is in the release's format -----------------------------------------


@pytest.mark.parametrize("length", ["32k", "128k", "1M"])
def test_the_sample_is_written_as_the_authors_scripts_write_the_release(length: str) -> None:
    questions, contexts = sample_files("smoke", length, 0)
    assert (questions, contexts) == sample_files("smoke", length, 0)
    assert questions != sample_files("smoke", length, 1)[0]
    text = questions.decode()
    assert text.startswith(",".join(HEADER) + "\r\n") and text.endswith("\r\n")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    shared = _contexts(contexts)
    for key, messages in shared.items():
        # the id is the sha256 of the messages' Python reprs joined by spaces
        assert key == hashlib.sha256(" ".join(map(str, messages)).encode()).hexdigest()
        assert messages[0] == {"role": "system", "content": messages[0]["content"]}
        assert messages[0]["content"].startswith("Current user persona: ")
    for row in rows:
        options = ast.literal_eval(row["all_options"])
        assert row["all_options"] == str(options) and row["all_options"].startswith("['(a) ")
        assert [o[:4] for o in options] == ["(a) ", "(b) ", "(c) ", "(d) "]
        assert row["correct_answer"] in ("(a)", "(b)", "(c)", "(d)")
        assert row["distance_to_ref_proportion_in_context"].endswith("%")
        messages = shared[row["shared_context_id"]]
        end = int(row["end_index_in_shared_context"])
        # asked at the end of the text (the last message left out) or at a user turn of the last session
        last_session = max(i for i, m in enumerate(messages) if m["role"] == "system")
        assert end == len(messages) - 1 or (end > last_session and messages[end]["role"] == "user")
        assert int(row["context_length_in_letters"]) == len("".join(m["content"] for m in messages[:end]))
        assert int(row["distance_to_ref_in_blocks"]) > 0


def test_the_sample_written_out_reads_as_a_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 4 and "usage: python -m pytest_memeval.suites.personamem.sample DIR" in capsys.readouterr().err
    assert main([str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        f"{kind}_{n}.{ext}"
        for n in ("32k", "128k", "1M")
        for kind, ext in (("questions", "csv"), ("shared_contexts", "jsonl"))
    )
    release = _suite(tmp_path, tmp_path / "out", size="full", file="32k,128k,1M")
    generated = _suite(tmp_path, file="32k,128k,1M")
    assert [e.id for e in release.index()] == [e.id for e in generated.index()]
    assert not release.sample() and generated.sample()


# --- the release reader ------------------------------------------------------------------------


def _release(tmp_path: Path, edit: Any = None) -> Path:
    """The 32k sample written as a release directory, its questions' rows edited by `edit`."""
    data = tmp_path / "release"
    write_sample(data, "smoke", "32k", 0)
    if edit is not None:
        path = data / "questions_32k.csv"
        rows = list(csv.DictReader(io.StringIO(path.read_bytes().decode(), newline="")))
        edit(rows)
        out = io.StringIO(newline="")
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        path.write_bytes(out.getvalue().encode())
    return data


def _set(column: str, value: str) -> Any:
    def edit(rows: list[dict[str, str]]) -> None:
        rows[1][column] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set("all_options", "['(a) x', (b)"), "line 3: all_options is not a Python list of strings"),
        (_set("all_options", "{'a': 1}"), "line 3: all_options is not a list of strings"),
        (_set("correct_answer", "(e)"), "line 3: correct_answer '(e)' is not one of the 4 options"),
        (_set("end_index_in_shared_context", "ten"), "line 3: end_index_in_shared_context 'ten' is not an integer"),
        (
            lambda rows: [r.pop("shared_context_id") for r in rows],
            "not a PersonaMem questions file (no column shared_context_id)",
        ),
    ],
)
def test_a_bad_row_is_one_line_naming_it(tmp_path: Path, edit: Any, message: str) -> None:
    data = _release(tmp_path, edit)
    with pytest.raises(DataError) as raised:
        read_questions(data / "questions_32k.csv")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_missing_file_names_the_release(tmp_path: Path) -> None:
    data = _release(tmp_path)
    (data / "shared_contexts_32k.jsonl").unlink()
    with pytest.raises(DataError, match=r"shared_contexts_32k.jsonl: no such file; --memeval-data DIR holds"):
        _suite(tmp_path, data)
    with pytest.raises(ConfigError, match="personamem.file='64k': name one or more of 32k, 128k, 1M"):
        _suite(tmp_path, file="64k")


def test_a_question_naming_no_shared_context_is_its_own_error(tmp_path: Path) -> None:
    suite = _suite(tmp_path, _release(tmp_path, _set("shared_context_id", "f" * 64)))
    entry = next(e for e in suite.index() if e.context_id.startswith("32k-ffff"))
    with pytest.raises(DataError, match=r"no shared context ffffffffffffffff\.\.\. \(a question names it\)"):
        suite.item(entry.id)


def test_the_end_index_slices_as_python_does() -> None:
    assert [cut(end, 10) for end in (0, 3, 9, 10, 12, -1, -3, -12)] == [0, 3, 9, 10, 10, 9, 7, 0]


# --- what a question sees -----------------------------------------------------------------------


def _visible(suite: PersonaMemSuite, item_id: str) -> tuple[list[Message], list[list[str]]]:
    item = suite.item(item_id)
    stored = [m for session in suite.context(item.context_id).sessions for m in session]
    return stored, [list(pair) for pair in item.view.extra["conversation"]]


@pytest.mark.parametrize("length", ["32k", "128k"])
def test_session_fill_stores_the_earlier_sessions_and_hands_on_the_ongoing_one(tmp_path: Path, length: str) -> None:
    suite = _suite(tmp_path, file=length)
    shared = _contexts(sample_files("smoke", length, 0)[1])
    stored_lengths = set()
    for entry in suite.index():
        item = suite.item(entry.id)
        messages = shared[item.private["shared_context_id"]]
        visible = messages[: item.private["end_index_in_shared_context"]]
        stored, conversation = _visible(suite, entry.id)
        # the store and the conversation are the visible prefix, split at a session's start
        assert [m.content for m in stored] + [c for _, c in conversation] == [m["content"] for m in visible]
        assert [m.id for m in stored] == [f"m{i}" for i in range(len(stored))]
        assert conversation and conversation[0][0] == "system" and conversation[0][1].startswith("Current user persona")
        stored_lengths.add((item.context_id, len(stored)))
    # one store per shared context, whatever the question
    assert len(stored_lengths) == len({c for c, _ in stored_lengths}) == 2


def test_prefix_fill_stores_each_distinct_prefix_whole(tmp_path: Path) -> None:
    suite = _suite(tmp_path, fill="prefix")
    shared = _contexts(sample_files("smoke", "32k", 0)[1])
    for entry in suite.index():
        item = suite.item(entry.id)
        stored, conversation = _visible(suite, entry.id)
        visible = shared[item.private["shared_context_id"]][: item.private["end_index_in_shared_context"]]
        assert [(m.role, m.content) for m in stored] == [(m["role"], m["content"]) for m in visible]
        assert conversation == []
    assert len({e.context_id for e in suite.index()}) == 6  # 2 personas x 3 distinct prefixes


def test_a_negative_end_index_cuts_from_the_end(tmp_path: Path) -> None:
    suite = _suite(tmp_path, _release(tmp_path, _set("end_index_in_shared_context", "-1")))
    item = suite.item(suite.index()[1].id)
    stored, conversation = _visible(suite, item.id)
    total = len(_contexts(sample_files("smoke", "32k", 0)[1])[item.private["shared_context_id"]])
    assert len(stored) + len(conversation) == total - 1


def test_ids_markers_clusters_and_sizes(tmp_path: Path) -> None:
    suite = _suite(tmp_path, file="32k,1M")
    entries = suite.index()
    assert {e.marks[-1] for e in entries} == {"context_32k", "context_1M"}
    assert all(set(e.marks) <= set(suite.markers) for e in entries)
    item = suite.item(entries[0].id)
    assert item.id.startswith("32k-") and item.cluster == f"persona-{item.strata['persona']}"
    assert canonical_type("recalling_facts_mentioned_by_the_user") == "recall_user_shared_facts"
    assert canonical_type("track_full_preference_updates") == "track_full_preference_evolution"
    assert canonical_type("something new") == "other"
    release = _release(tmp_path)
    assert len(_suite(tmp_path, release, size="smoke").index()) == 14  # 2 per type of 7
    assert len(_suite(tmp_path, release, size="full").index()) == 18


def test_nothing_private_reaches_the_memory_system_or_the_view(tmp_path: Path) -> None:
    suite = _suite(tmp_path, file="128k")
    for entry in suite.index():
        item = suite.item(entry.id)
        assert set(item.view.extra) == {"options", "all_options", "conversation"}
        public = json.dumps([item.view.question, item.view.task, dict(item.view.extra)])
        stored = json.dumps([m.__dict__ for s in suite.context(item.context_id).sessions for m in s])
        for secret in (item.private["shared_context_id"], item.strata["question_type"], item.id.split("-", 1)[1]):
            assert secret not in public and secret not in stored


# --- the offline reader ---------------------------------------------------------------------------


def _read_all(suite: PersonaMemSuite, system: Any) -> list[bool]:
    judge, outcomes = suite.judge(), []
    for entry in suite.index():
        system.reset(entry.context_id)
        for session in suite.context(entry.context_id).sessions:
            system.ingest(entry.context_id, session)
        item = suite.item(entry.id)
        memories = system.retrieve(entry.context_id, item.view.question, 10)
        answer = suite.reader().answer(item.view, memories)
        assert not answer.memory_unreadable
        outcomes.append(bool(judge.score(item, answer, Trace(tuple(memories))).correct))
    return outcomes


def test_the_offline_reader_answers_from_the_memories_and_the_conversation(tmp_path: Path) -> None:
    suite = _suite(tmp_path, file="128k")
    assert all(_read_all(suite, ContextMemory(token_budget=10**6)))
    without = _read_all(suite, NoMemory())
    # the ongoing session alone answers what it states; nothing else
    assert 0 < sum(without) < len(without)


def test_the_offline_reader_picks_by_distinguishing_words_and_abstains_on_a_tie(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    view = suite.item(suite.index()[0].id).view
    options = ["(a) You enjoy glass blowing.", "(b) You enjoy spicy curries.", "(c) You enjoy raw oysters.", "(d) x"]
    reader = suite.reader()
    picked = reader.answer(
        type(view)("personamem", "choice", "q", extra={"options": options, "conversation": []}),
        [Memory("User: Lately I really enjoy spicy curries.")],
    )
    assert (picked.label, picked.raw) == ("(b)", "<final_answer>(b)")
    tie = reader.answer(
        type(view)("personamem", "choice", "q", extra={"options": options, "conversation": []}),
        [Memory("User: glass blowing or spicy curries?")],
    )
    assert tie.abstained and tie.label is None
    rewritten = reader.answer(view, [Memory("The user likes mild food")])
    assert rewritten.memory_unreadable


# --- the LLM prompt -------------------------------------------------------------------------------


def test_the_official_conversion_merges_system_messages_into_the_next_one() -> None:
    merged = merge_system_messages(
        [
            {"role": "system", "content": "S1"},
            {"role": "system", "content": "S2"},
            {"role": "user", "content": "U1"},
            {"role": "user", "content": "U2"},
            {"role": "assistant", "content": "A1"},
            {"role": "system", "content": "S3"},
            {"role": "user", "content": "U3"},
        ]
    )
    assert merged == [
        {"role": "user", "content": "[System]: S1\n[System]: S2\nU1\nU2"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "[System]: S3\nU3"},
    ]


def test_the_prompt_is_the_memories_the_ongoing_session_and_the_official_question(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    item = suite.item(suite.index()[-1].id)
    conversation = item.view.extra["conversation"]
    messages = PersonaMemPrompt().messages(item.view, [Memory("User: I like tea."), Memory("Assistant: Noted.")])
    question = f"{item.view.question}\n\n{INSTRUCTIONS}\n\n{item.view.extra['all_options']}"
    assert messages[0]["content"].startswith(
        "[System]: Memories of earlier conversations with this user:\nUser: I like tea.\nAssistant: Noted.\n"
        f"[System]: {conversation[0][1]}\n{conversation[1][1]}"
    )
    assert messages[-1]["role"] == "user" and messages[-1]["content"].endswith(question)
    assert [m["role"] for m in messages] == ["user", "assistant"] * (len(messages) // 2) + ["user"] * (
        len(messages) % 2
    )
    empty = PersonaMemPrompt().messages(suite.item(suite.index()[0].id).view, [])
    assert "this user:\n(none)\n" in empty[0]["content"]


@pytest.mark.parametrize(
    ("content", "finish", "label", "valid"),
    [
        ("I pick <final_answer>(c)</final_answer>", "stop", "(c)", True),
        ("", "stop", None, True),
        ("<final_answer>(c", "length", None, False),
    ],
)
def test_every_reply_is_scored_but_one_cut_at_max_tokens(
    tmp_path: Path, content: str, finish: str, label: str | None, valid: bool
) -> None:
    suite = _suite(tmp_path)
    view = suite.item(suite.index()[0].id).view
    answer = PersonaMemPrompt().parse(Completion(content, finish_reason=finish), view)
    assert (answer.label, answer.valid, answer.raw) == (label, valid, content)


# --- the summary --------------------------------------------------------------------------------


def test_the_summary_breaks_accuracy_down_by_type_and_context_length(tmp_path: Path) -> None:
    suite = _suite(tmp_path, file="32k,128k")
    records = []
    for n, entry in enumerate(suite.index()):
        item = suite.item(entry.id)
        records.append(
            Record(
                id=item.id,
                key=RunKey("personamem", "context"),
                suite_ref="personamem",
                context=item.context_id,
                cluster=item.cluster,
                task="choice",
                status="scored",
                strata=dict(item.strata),
                answer=None,
                correct=n % 2 == 0,
                score=float(n % 2 == 0),
            )
        )
    summary = suite.summarize(records)
    accuracy = summary.metrics["accuracy"]
    assert accuracy.value == pytest.approx(sum(bool(r.correct) for r in records) / len(records))
    assert accuracy.ci[0] <= accuracy.value <= accuracy.ci[1]
    assert set(summary.breakdown["context_length"]) == {"32k", "128k"}
    assert sum(c.n for c in summary.breakdown["question_type"].values()) == len(records)
    assert "generated sample" in summary.note and "a floor for retrieval" in summary.note
    llm = [replace(r, key=RunKey("personamem", "context", "openai:m")) for r in records]
    assert "offline reader" not in suite.summarize(llm).note
    assert suite.sample() and not _suite(tmp_path, _release(tmp_path)).sample()


# --- through pytest ---------------------------------------------------------------------------


def _report(pytester: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        "--memeval-suite=personamem", f"--memeval-report={report}", "-p", "no:cacheprovider", *args
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    return json.loads(report.read_text())


def _run(report: dict[str, Any], system: str) -> dict[str, Any]:
    return next(r for r in report["runs"] if r["key"]["memsystem"] == system)


ITEMS = 18  # the 32k smoke sample: 2 personas x 9 questions


@pytest.mark.slow
def test_offline_on_two_workers_and_through_an_llm_responder(suite_pytester: pytest.Pytester) -> None:
    parallel = _report(suite_pytester, "parallel", "--memsystem=context,none", "-n", "2")
    context, none = _run(parallel, "context"), _run(parallel, "none")
    assert context["n_scored"] == none["n_scored"] == ITEMS
    assert context["metrics"]["accuracy"]["value"] == 1.0 > none["metrics"]["accuracy"]["value"]
    assert context["labels"] == ["sample"]

    def answer_a(request: Request) -> str:
        return "Thinking it over. <final_answer>(a)"

    with LLMServer(answer_a) as server:
        llm = _report(
            suite_pytester,
            "llm",
            "--memsystem=context",
            "--memeval-responder=openai:reader-model",
            f"--memeval-base-url={server.base_url}",
            "--memeval-llm-cache=off",
        )
        requests = server.requests
    run = _run(llm, "context")
    assert len(requests) == ITEMS and run["n_scored"] == ITEMS
    golds = [r["gold"] for r in llm["records"]]
    assert run["metrics"]["accuracy"]["value"] == pytest.approx(golds.count("(a)") / ITEMS)
    for request in requests:
        last = request.messages[-1]["content"]
        assert f"\n\n{INSTRUCTIONS}\n\n['(a) " in last and last.endswith("']")
        assert request.messages[0]["content"].startswith("[System]: Memories of earlier conversations")
