"""Which file, users and sessions a run uses, and its items.

The file: `--memeval-data DIR` holds the release as downloaded from Hugging Face
(IAAR-Shanghai/HaluMem): `HaluMem-Medium.jsonl` (the `file` suite option's default, `medium`)
or `HaluMem-Long.jsonl` (`long`), also read under the official scripts' lower-case names.
Without it the generated sample (sample.py), written once under the cache directory for the
run's seed and size, is read by the same code.

Sizes on the release: smoke runs the first user's first 6 sessions, small the first 2 users'
first 20 sessions, full everything; the sample's size is chosen when it is generated (all of
it runs).

One context per user (the cluster of every item of the user); its items, by session:
- each memory point: `UUID/sPOS/mJ` (marks `halumem_recall`, `halumem_interference` or
  `halumem_update`, by the point's gold kind; an update point whose probe returns nothing is
  scored in recall, as evaluation.py routes it);
- the session's extraction: `UUID/sPOS/extraction` (`halumem_precision`), one accuracy
  judgement per memory the session added;
- each question: `UUID/sPOS/qJ` (`halumem_qa` and its type's mark).
Generated filler sessions (Long) have none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.data_files import released_file
from pytest_memeval.framework.suite import IndexEntry, SuiteOptions
from pytest_memeval.types import Evidence, Item, ItemView

from .protocol import messages
from .released import QUESTION_TYPES, Question, ReleasedFile, Session, UserEntry, scan, user_sessions
from .sample import DEFAULT_SEED, FILES, VERSION, write_sample
from .scoring import dialogue_text, golden_text

DOWNLOAD = "https://huggingface.co/datasets/IAAR-Shanghai/HaluMem"
#: the names a released file may have: Hugging Face's, then the official scripts'
RELEASED_NAMES = {"medium": (FILES["medium"], "HaluMem-medium.jsonl"), "long": (FILES["long"], "HaluMem-long.jsonl")}
#: size -> (users, sessions per user) on the release; None = all
SIZES: dict[str, tuple[int | None, int | None]] = {"smoke": (1, 6), "small": (2, 20), "full": (None, None)}
STAGE_MARKS = {
    "halumem_recall": "halumem memory point scored for extraction recall (integrity)",
    "halumem_interference": "halumem interference point: passes when the system did not store it",
    "halumem_update": "halumem updated memory point, probed with the updated memory as the query",
    "halumem_precision": "halumem session's extraction, each memory judged for accuracy",
    "halumem_qa": "halumem question",
}


def marker_of(question_type: str) -> str:
    return "halumem_" + "_".join("".join(c if c.isalnum() else " " for c in question_type.lower()).split())


def file_setting(raw: str | None) -> str:
    """--memeval-suite-option halumem.file (None: the default, medium)."""
    variant = "medium" if raw is None else raw.strip().lower()
    if variant not in FILES:
        raise ConfigError(
            f"--memeval-suite-option halumem.file={raw}: one of {', '.join(FILES)} ({', '.join(FILES.values())})"
        )
    return variant


class Catalog:
    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
        self.variant = file_setting(options.params.get("file"))
        self.sample = options.data_dir is None
        self.seed = options.seeds[0] if options.seeds else DEFAULT_SEED
        released = options.data_dir
        self.path = (
            self._sample_path() if released is None else released_file(released, RELEASED_NAMES[self.variant], DOWNLOAD)
        )
        self.file: ReleasedFile = scan(self.path)
        users, sessions = (None, None) if self.sample else SIZES[options.size]
        self.users = {u.uuid: u for u in self.file.users[:users]}
        self.limit = sessions
        self._loaded: tuple[str, tuple[Session, ...]] | None = None

    def _sample_path(self) -> Path:
        directory = self.options.cache_dir / "halumem" / f"sample-v{VERSION}-seed{self.seed}-{self.options.size}"
        path = directory / FILES[self.variant]
        if not path.is_file():
            write_sample(directory, self.seed, self.options.size)
        return path

    def index(self) -> list[IndexEntry]:
        entries = []
        for user in self.users.values():
            for position, session in self.scored_sessions(user):
                for j, point in enumerate(session.points):
                    entries.append(
                        IndexEntry(
                            f"{user.uuid}/s{position}/m{j}",
                            user.uuid,
                            (point_mark(point.is_update, point.interference),),
                        )
                    )
                entries.append(IndexEntry(f"{user.uuid}/s{position}/extraction", user.uuid, ("halumem_precision",)))
                for j, question in enumerate(session.questions or ()):
                    marks = ("halumem_qa", marker_of(question.question_type))
                    entries.append(IndexEntry(f"{user.uuid}/s{position}/q{j}", user.uuid, marks))
        return entries

    def scored_sessions(self, user: UserEntry) -> list[tuple[int, Session]]:
        return [(p, s) for p, s in enumerate(user.sessions[: self.limit]) if not s.generated]

    def user(self, uuid: str) -> UserEntry:
        try:
            return self.users[uuid]
        except KeyError:
            raise DataError(f"no halumem user {uuid!r} in this run") from None

    def sessions(self, user: UserEntry) -> tuple[Session, ...]:
        """The user's sessions the run stores, with their dialogues (the last user's kept)."""
        if self._loaded is None or self._loaded[0] != user.uuid:
            self._loaded = (user.uuid, user_sessions(self.path, user)[: self.limit])
        return self._loaded[1]

    def view(self, user: UserEntry, question: Question) -> ItemView:
        """A question's public face: its text and the user's name (the answer prompt's)."""
        return ItemView(suite="halumem", task="qa", question=question.question, extra={"user": user.name})

    def item(self, item_id: str) -> Item:
        uuid, _, rest = item_id.partition("/")
        user = self.user(uuid)
        where, _, what = rest.partition("/")
        try:
            position = int(where.removeprefix("s"))
            session = user.sessions[position]
        except (ValueError, IndexError):
            raise DataError(f"no halumem item {item_id!r} in this run") from None
        common: dict[str, Any] = {"user": uuid, "name": user.name, "session": position}
        strata = {"user": uuid}
        if what == "extraction":
            dialogue = self.sessions(user)[position].dialogue
            view = ItemView("halumem", "extraction", f"session {position}: what it added to memory")
            private = {
                **common,
                "kind": "session",
                "dialogue": dialogue_text(dialogue),
                "golden": golden_text(session.points),
            }
            return Item(
                item_id, uuid, uuid, view, golden_text(session.points), {**strata, "stage": "accuracy"}, private
            )
        kind, number = what[:1], what[1:]
        if kind == "q" and number.isdigit() and int(number) < len(session.questions or ()):
            q = (session.questions or ())[int(number)]
            evidence = self.evidence(user, q, position)
            private = {
                **common,
                "kind": "qa",
                "position": int(number),
                "question_type": q.question_type,
                "evidence": list(q.evidence),
            }
            strata = {**strata, "stage": "qa", "question_type": q.question_type, "difficulty": q.difficulty}
            return Item(item_id, uuid, uuid, self.view(user, q), q.answer, strata, private, evidence)
        if kind == "m" and number.isdigit() and int(number) < len(session.points):
            p = session.points[int(number)]
            private = {
                **common,
                "kind": "point",
                "position": int(number),
                "content": p.content,
                "original": list(p.original),
                "is_update": p.is_update,
                "source": p.source,
                "importance": p.importance,
                "memory_type": p.memory_type,
            }
            stage = point_mark(p.is_update, p.interference).removeprefix("halumem_")
            view = ItemView("halumem", "memory point", f"session {position}: memory point {int(number) + 1}")
            return Item(
                item_id, uuid, uuid, view, p.content, {**strata, "stage": stage, "memory_type": p.memory_type}, private
            )
        raise DataError(f"no halumem item {item_id!r} in this run")

    def evidence(self, user: UserEntry, question: Question, asked_after: int) -> Evidence | None:
        """The messages of the sessions (up to the question's) holding a memory point that the
        question cites: HaluMem names its evidence by the points' text, not by turns, so the
        evidence is session-level."""
        cited = set(question.evidence)
        sessions = self.sessions(user)
        held = [
            message
            for position in range(min(asked_after + 1, len(sessions)))
            if any(p.content in cited for p in user.sessions[position].points)
            for message in messages(user.uuid, position, sessions[position])
        ]
        return Evidence(tuple(held)) if held else None

    def describe(self) -> dict[str, Any]:
        """What the report says about the data."""
        return {
            "file": self.path.name,
            "sha256": self.file.sha256,
            "sample": self.sample,
            "users_in_file": len(self.file.users),
            "users_run": len(self.users),
            "sessions_per_user": self.limit,
        }


def point_mark(is_update: str, interference: bool) -> str:
    return "halumem_update" if is_update == "True" else "halumem_interference" if interference else "halumem_recall"


def markers() -> dict[str, str]:
    out = dict(STAGE_MARKS)
    out.update({marker_of(t): f"halumem question type {t}" for t in QUESTION_TYPES})
    return out
