"""The protocol fingerprint of a run: what must be equal for two numbers to be comparable.

A `Fingerprint` has two parts:

- the **protocol**: per suite, its protocol version, the sha256 of every data file it
  read (or, for generated data, the generator's size, split and seeds), its settings
  (--memeval-suite-option), the judges that grade it (model@prompt) and the sha256 of every
  prompt template its LLM path may use; then the answer model, the LLM output parameters
  (temperature, max_tokens, ...), the retrieval depths k and, with --memeval-token-budget,
  the budget and the tokenizer that counts it (absent without one);
- the **systems**: each memory system's import target and its --memeval-adapter-config
  settings (secrets excluded), and the embedder of the built-in stores.

A baseline comparison needs equal protocols on the suites both reports ran (the memory
systems are what is being compared); a merge of shards and a resumed journal need equal
fingerprints, systems included. pytest's own selection (-k, -m, --lf, --deselect) and
--memeval-shard are not part of it: they pick items of one protocol, and the report's
`subset` says how many. `short()` names both parts in a dozen characters each.

Every value is written in one form per meaning (analysis/comparability.py and each suite's
`protocol_params`): equal meanings give equal fingerprints. A fingerprint of format 1
(settings, seeds and judges as spelled) is read, and compared once a run has read its
suites' part in its own terms (`comparability.in_terms_of`).

Plain values only: this module imports nothing of the plugin but the schema's reader
(schema.py), so records.py can hold it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import msgspec

from .schema import SchemaError, convert

FORMAT = "memeval-fingerprint/2"
#: format 1 kept the settings as spelled and the judges once for all suites
OLD_FORMAT = "memeval-fingerprint/1"
#: hex digits of a digest in the short form
SHORT = 12
#: settings whose name says they hold a secret never enter a fingerprint
_SECRET_NAME = re.compile(r"key|token|secret|passw|credential|auth|cookie", re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


#: how a difference names its two sides, e.g. ("in this run", "in base.json")
Names = tuple[str, str]


class FingerprintError(ValueError):
    """A fingerprint's JSON does not fit; one line naming the field."""


@dataclass(frozen=True)
class SuiteProtocol:
    """What one suite contributes to the fingerprint (see `Suite.protocol_version`,
    `Suite.data_files` and `Suite.prompt_files`)."""

    suite: str
    version: str
    size: str
    split: str | None = None
    seeds: tuple[int, ...] | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    #: sha256 of each data file read, by its path under --memeval-data; empty: generated
    data: Mapping[str, str] = field(default_factory=dict)
    #: sha256 of each prompt template file, by template name (empty without an LLM)
    prompts: Mapping[str, str] = field(default_factory=dict)
    #: the LLM judges that grade the suite, as its records name them (MODEL@PROMPT, or MODEL
    #: in a suite without named prompts); empty: its deterministic judge
    judges: tuple[str, ...] = ()
    #: sha256 of the --memeval-errata entries of the suite (empty: none; absent from the JSON)
    errata: str = ""

    def to_json(self) -> dict[str, Any]:
        data = {
            "version": self.version,
            "data": dict(sorted(self.data.items())) if self.data else "generated",
            "size": self.size,
            "split": self.split,
            "seeds": list(self.seeds) if self.seeds is not None else None,
            "params": dict(sorted(self.params.items())),
            "judges": list(self.judges),
            "prompts": dict(sorted(self.prompts.items())),
        }
        return data | ({"errata": self.errata} if self.errata else {})

    @classmethod
    def of(cls, suite: str, data: SuiteJSON, judges: tuple[str, ...] = ()) -> SuiteProtocol:
        """`judges`: the run's, for a format-1 fingerprint, which named them once for all suites."""
        return cls(
            suite,
            data.version,
            data.size,
            data.split,
            tuple(data.seeds) if data.seeds is not None else None,
            data.params,
            {} if data.data == "generated" else data.data,
            data.prompts,
            tuple(data.judges) if data.judges is not None else judges,
            data.errata,
        )


@dataclass(frozen=True)
class Fingerprint:
    suites: tuple[SuiteProtocol, ...] = ()
    #: the answer model: reader (each suite's offline reader) or openai:MODEL
    responder: str = "reader"
    #: output parameters of the LLM calls (temperature, max_tokens, ...); empty without an LLM
    llm: Mapping[str, Any] = field(default_factory=dict)
    ks: tuple[int, ...] = (10,)
    #: per memory system: its import target and settings, secrets excluded
    systems: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    embedder: str = ""
    #: --memeval-token-budget: {"tokens": N, "tokenizer": NAME}; empty without a budget
    token_budget: Mapping[str, Any] = field(default_factory=dict)

    def suite(self, name: str) -> SuiteProtocol | None:
        return next((s for s in self.suites if s.suite == name), None)

    def with_suite(self, protocol: SuiteProtocol) -> Fingerprint:
        """This fingerprint with `protocol` added (or replacing the suite's), suites by name."""
        others = [s for s in self.suites if s.suite != protocol.suite]
        return replace(self, suites=tuple(sorted([*others, protocol], key=lambda s: s.suite)))

    def protocol_json(self) -> dict[str, Any]:
        protocol = {
            "suites": {s.suite: s.to_json() for s in sorted(self.suites, key=lambda s: s.suite)},
            "responder": self.responder,
            "llm": dict(sorted(self.llm.items())),
            "k": list(self.ks),
        }
        # absent without a budget: a run without one keeps the digest it always had
        return protocol | ({"token_budget": dict(sorted(self.token_budget.items()))} if self.token_budget else {})

    def systems_json(self) -> dict[str, Any]:
        return {"memsystems": {name: dict(v) for name, v in sorted(self.systems.items())}, "embedder": self.embedder}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "protocol": self.protocol_json(),
            "systems": self.systems_json(),
            "digest": self.protocol_digest(),
            "systems_digest": self.systems_digest(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Fingerprint:
        try:
            written = convert(data, FingerprintJSON, "fingerprint")
        except SchemaError as exc:
            raise FingerprintError(str(exc)) from None
        if written.format not in (FORMAT, OLD_FORMAT):
            raise FingerprintError(f"fingerprint: format {written.format!r} is not {FORMAT!r}")
        protocol, systems = written.protocol, written.systems
        judges = tuple(protocol.judges)  # format 1: the run's, for every suite
        fingerprint = cls(
            suites=tuple(SuiteProtocol.of(name, value, judges) for name, value in protocol.suites.items()),
            responder=protocol.responder,
            llm=protocol.llm,
            ks=tuple(protocol.k),
            systems=systems.memsystems,
            embedder=systems.embedder,
            token_budget=protocol.token_budget or {},
        )
        # the digest of the protocol as written (a format-1 protocol is read into today's form)
        if written.digest not in (None, _digest(data["protocol"])):
            raise FingerprintError("fingerprint: its digest does not match its protocol (edited by hand?)")
        return fingerprint

    def protocol_digest(self) -> str:
        return _digest(self.protocol_json())

    def systems_digest(self) -> str:
        return _digest(self.systems_json())

    def short(self) -> str:
        """The protocol and the systems in a few characters: what a published number names."""
        return f"protocol {self.protocol_digest()[:SHORT]}, systems {self.systems_digest()[:SHORT]}"

    def protocol_difference(
        self, other: Fingerprint, names: Names = ("here", "there"), *, shared_suites_only: bool = False
    ) -> str | None:
        """Where the protocols first differ, in a few words; None when they agree. `names`
        say where each side comes from; with `shared_suites_only`, suites that only one side
        ran are not a difference."""
        mine, theirs = self.protocol_json(), other.protocol_json()
        if shared_suites_only:
            shared = mine["suites"].keys() & theirs["suites"].keys()
            mine["suites"] = {k: v for k, v in mine["suites"].items() if k in shared}
            theirs["suites"] = {k: v for k, v in theirs["suites"].items() if k in shared}
        return first_difference(mine, theirs, names)

    def difference(
        self, other: Fingerprint, names: Names = ("here", "there"), *, shared_suites_only: bool = False
    ) -> str | None:
        """Where the whole fingerprints (protocol, then systems) first differ; None when equal.
        Shards of one run compare `shared_suites_only`: a shard may hold no context of a suite."""
        return self.protocol_difference(other, names, shared_suites_only=shared_suites_only) or first_difference(
            self.systems_json(), other.systems_json(), names, "systems"
        )

    def union(self, other: Fingerprint) -> Fingerprint:
        """This fingerprint with the suites only `other` holds (shards of one run)."""
        joined = self
        for protocol in other.suites:
            if joined.suite(protocol.suite) is None:
                joined = joined.with_suite(protocol)
        return joined


def first_difference(mine: Any, theirs: Any, names: Names = ("here", "there"), path: str = "") -> str | None:
    """The first path at which two JSON values differ, with both values: 'suites.toy.prompts.
    toy_judge is sha256 1a2b3c4d5e6f here, sha256 9f8e7d6c5b4a there'."""
    here, there = names
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in [*mine, *(k for k in theirs if k not in mine)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in theirs:
                return f"{where} is {_shown(mine[key])} {here}, absent {there}"
            if key not in mine:
                return f"{where} is absent {here}, {_shown(theirs[key])} {there}"
            found = first_difference(mine[key], theirs[key], names, where)
            if found is not None:
                return found
        return None
    if mine != theirs:
        return f"{path or 'value'} is {_shown(mine)} {here}, {_shown(theirs)} {there}"
    return None


def public_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Adapter settings without secrets: a text or a table whose name says key, token,
    secret, password, credential or auth is left out (a number or a flag so named, such as
    `llm_max_tokens`, is no secret and can change the results: it stays), and URLs lose
    their user:password@ part."""
    public: dict[str, Any] = {}
    for name, value in sorted(settings.items()):
        if _SECRET_NAME.search(str(name)) and not isinstance(value, (bool, int, float)):
            continue
        if isinstance(value, Mapping):
            public[str(name)] = public_settings(value)
        elif isinstance(value, str):
            public[str(name)] = _URL_USERINFO.sub("", value)
        else:
            public[str(name)] = json.loads(json.dumps(value, default=str))
    return public


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "present"
    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value):
        return f"sha256 {value[:SHORT]}"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# --- the fingerprint's JSON form, declared (read by `Fingerprint.from_json`) -----------------


class SuiteJSON(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    version: str = ""
    #: sha256 by path, or "generated"
    data: dict[str, str] | Literal["generated"] = "generated"
    size: str = ""
    split: str | None = None
    seeds: list[int] | None = None
    params: dict[str, str] = {}
    #: absent in format 1, which named the judges once for all suites
    judges: list[str] | None = None
    prompts: dict[str, str] = {}
    errata: str = ""


class ProtocolJSON(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    suites: dict[str, SuiteJSON] = {}
    responder: str = ""
    llm: dict[str, Any] = {}
    k: list[int] = []
    #: format 1: the run's judges, for every suite
    judges: list[str] = []
    token_budget: dict[str, Any] | None = None


class SystemsJSON(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    memsystems: dict[str, dict[str, Any]] = {}
    embedder: str = ""


class FingerprintJSON(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    format: str
    protocol: ProtocolJSON
    systems: SystemsJSON
    digest: str | None = None
    systems_digest: str | None = None
