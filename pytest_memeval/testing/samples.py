"""What the conformance kit stores: facts that carry unique code words, unicode, long text.

Every fact holds a code word that appears nowhere else, so a check can tell which
namespace a retrieved memory came from even when a system rewrites what it stores
(an LLM extractor keeps "ZX-alpha-03-..." but may reword the sentence around it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..types import Message

SUBJECTS = (
    "harbour ferry timetable",
    "violin lesson invoice",
    "greenhouse tomato seeds",
    "mountain cabin key",
    "dentist appointment card",
    "library reading room pass",
    "bicycle frame number",
    "wedding photographer contract",
    "chess club membership",
    "passport renewal form",
    "kitchen tap warranty",
    "telescope lens cap",
)


@dataclass(frozen=True)
class Fact:
    code: str
    text: str


def facts(label: str, n: int = len(SUBJECTS)) -> tuple[Fact, ...]:
    """`n` facts on distinct subjects; their codes are unique to `label`."""
    out = []
    for i in range(n):
        digest = hashlib.sha256(f"{label}\0{i}".encode()).hexdigest()[:6]
        code = f"ZX-{label}-{i:02d}-{digest}"
        subject = SUBJECTS[i % len(SUBJECTS)]
        out.append(Fact(code, f"The {subject} is filed under the code {code}."))
    return tuple(out)


def session(items: tuple[Fact, ...]) -> tuple[Message, ...]:
    return tuple(Message("user", fact.text) for fact in items)


#: (text, a fragment that must survive storage) in scripts a store may mishandle
UNICODE_SAMPLES = (
    ("Zoë's café serves crème brûlée by the naïve façade ☕", "crème brûlée"),
    ("東京の倉庫の暗証番号は「桜七七」です。", "桜七七"),
    ("Пароль от сейфа на даче: ёлка-сорок-два", "ёлка-сорок-два"),
    ("رمز الخزنة في المكتب هو نخلة-٤٢", "نخلة-٤٢"),
    ("The team mascot emoji is 🦦🔑 and the flag is 🇳🇴", "🦦🔑"),
    ("Maths notes: ∮ E⋅da = Q/ε₀ and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
    ("Combining marks: cafe\u0301 · zero\u200bwidth · tab\tand\nnewline", "zero\u200bwidth"),
)


def long_text(code: str, words: int = 12_000) -> str:
    """A multi-line text of about `words` words whose last line names `code`."""
    line = "the quarterly inventory lists crates of copper wire and spare fuses in aisle"
    lines = [f"{line} {i}." for i in range(words // 13)]
    lines.append(f"The final locker code is {code}.")
    return "\n".join(lines)


def long_line(code: str, chars: int = 100_000) -> str:
    """One line of `chars` characters without a break, with `code` at its end."""
    filler = "lorem ipsum dolor sit amet "
    return (filler * (chars // len(filler) + 1))[:chars] + f" {code}"


#: namespace names a store must treat as opaque (spaces, slashes, unicode, length)
ODD_NAMESPACES = ("a", "with spaces/and:colons", "ünï-cødé ✓", "x" * 300)
