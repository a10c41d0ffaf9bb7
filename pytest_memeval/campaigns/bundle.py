"""A run bundle: one file holding what anyone needs to check a published run and rerun it
offline (`python -m pytest_memeval verify BUNDLE`).

The file is one JSON object in RFC 8785 canonical form (the `rfc8785` library):

    {"format": "memeval-bundle/1",
     "parts": {
        "report":     the run's JSON report (its settings, fingerprint, records, metrics), as
                      a string of JSON text: canonical JSON writes 0.0 as 0, and the
                      fingerprint's digest is of the protocol as the report wrote it
        "run":        how to run it again: pytest's arguments, the Python and package
                      versions, the sha256 of the lock files beside the project
        "calls":      every LLM call cache row the run used (responder, judges and the memory
                      systems' own calls through the gateway), sorted by key:
                      [key, model, template, request, completion]
        "embeddings": every embedding the run used: [model, sha256 of the text, vector
                      (float32, little-endian, base64)]
     },
     "manifest": {part: sha256 of the part's canonical JSON},
     "signature": null, or {"algorithm": "ed25519", "public_key": base64 of its 32 bytes,
                            "value": base64 of the signature of the canonical
                            {"format": ..., "manifest": ...}}}

The data files the run read are never in it: their sha256 are in the report's fingerprint.

Reading (`read_bundle`) checks, in this order, and stops at the first problem with one line
(a `BundleError`): the form, every part against the manifest, the signature against the
key in the bundle, and, given the key the reader trusts (`public_key`), that the bundle is
signed with it. A key in the bundle proves only that the bundle was not changed since
someone holding that key signed it; who that is, a reader learns from the key the
publisher gives out beside the bundle (docs/verifying.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import rfc8785

from ..errors import MemevalError
from ..files import json_input
from ..files.atomic_file import write_atomic
from ..files.user_files import read_bytes
from ..llm.cache import CallRow
from ..memory.embedding_cache import EmbeddingRow
from ..results.records import Report, SchemaError

if TYPE_CHECKING:  # imported where a signature is checked: cryptography is about 7 MiB
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

FORMAT = "memeval-bundle/1"
PARTS = ("report", "run", "calls", "embeddings")
ALGORITHM = "ed25519"
#: hex digits of a key's sha256 that name it in messages
KEY_ID = 16


class BundleError(MemevalError):
    """The bundle is not what it says it is (changed, unsigned, another key's): one line."""


@dataclass(frozen=True)
class Signature:
    public_key: bytes
    value: bytes

    @property
    def key_id(self) -> str:
        return key_id(self.public_key)

    def to_json(self) -> dict[str, str]:
        return {
            "algorithm": ALGORITHM,
            "public_key": base64.b64encode(self.public_key).decode(),
            "value": base64.b64encode(self.value).decode(),
        }


@dataclass(frozen=True)
class Bundle:
    """What a bundle holds; `report` is the report's JSON as written (`report_value()` types it)."""

    report: Mapping[str, Any]
    run: Mapping[str, Any]
    calls: tuple[CallRow, ...] = ()
    embeddings: tuple[EmbeddingRow, ...] = ()
    signature: Signature | None = field(default=None, compare=False)

    def parts(self) -> dict[str, Any]:
        return {
            "report": json.dumps(self.report, sort_keys=True, ensure_ascii=False, allow_nan=False),
            "run": self.run,
            "calls": [list(row) for row in sorted(self.calls)],
            "embeddings": [
                [model, text_sha256, base64.b64encode(vector).decode()]
                for model, text_sha256, vector in sorted(self.embeddings)
            ],
        }

    def manifest(self) -> dict[str, str]:
        return {name: _sha256(canonical(value)) for name, value in self.parts().items()}

    def signed(self, key: Ed25519PrivateKey) -> Bundle:
        value = key.sign(_signed_bytes(self.manifest()))
        return replace(self, signature=Signature(public_bytes(key.public_key()), value))

    def to_bytes(self) -> bytes:
        return canonical(
            {
                "format": FORMAT,
                "parts": self.parts(),
                "manifest": self.manifest(),
                "signature": self.signature.to_json() if self.signature is not None else None,
            }
        )

    def report_value(self) -> Report:
        """The report, typed (a BundleError when it is no report)."""
        try:
            return Report.from_json(self.report)
        except SchemaError as exc:
            raise BundleError(f"the bundle's report does not fit the report schema: {exc}") from None


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON (a value it cannot hold, e.g. NaN, raises ValueError)."""
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        raise ValueError(f"not canonical JSON: {exc}") from None


def write_bundle(path: Path, bundle: Bundle) -> None:
    """Write the bundle in one step (a reader sees the old file or the new one)."""
    write_atomic(path, bundle.to_bytes().decode())


def read_bundle(path: Path, public_key: Ed25519PublicKey | None = None) -> Bundle:
    """The bundle at `path`, checked against its manifest and its signature; with
    `public_key`, it must be signed with that key. OSError when it cannot be read."""
    data = _bundle_object(read_bytes(path))
    parts = _mapping(data.get("parts"), "parts")
    manifest = _mapping(data.get("manifest"), "manifest")
    for name in PARTS:
        if name not in parts:
            raise BundleError(f"the bundle has no {name!r} part")
        found = _sha256(canonical(parts[name]))
        if manifest.get(name) != found:
            raise BundleError(
                f"the bundle's {name} was changed: its sha256 is {found[:KEY_ID]}..., "
                f"the manifest says {str(manifest.get(name))[:KEY_ID]}..."
            )
    bundle = Bundle(
        _report(parts["report"]),
        _mapping(parts["run"], "run"),
        tuple(_call_row(row, i) for i, row in enumerate(_list(parts["calls"], "calls"))),
        tuple(_embedding_row(row, i) for i, row in enumerate(_list(parts["embeddings"], "embeddings"))),
        _signature(data.get("signature")),
    )
    _check_signature(bundle.signature, {name: str(manifest[name]) for name in PARTS}, public_key)
    return bundle


def key_id(public_key: bytes) -> str:
    """How messages name a public key: the first hex digits of its sha256."""
    return hashlib.sha256(public_key).hexdigest()[:KEY_ID]


def public_bytes(key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _check_signature(signature: Signature | None, manifest: dict[str, str], trusted: Ed25519PublicKey | None) -> None:
    if signature is None:
        if trusted is not None:
            raise BundleError(f"the bundle is not signed; key {key_id(public_bytes(trusted))} was expected")
        return
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(signature.public_key).verify(signature.value, _signed_bytes(manifest))
    except (InvalidSignature, ValueError):
        raise BundleError(f"the bundle's signature does not match its manifest (key {signature.key_id})") from None
    if trusted is not None and public_bytes(trusted) != signature.public_key:
        raise BundleError(
            f"the bundle is signed with key {signature.key_id}, not with the key given "
            f"({key_id(public_bytes(trusted))})"
        )


def _signed_bytes(manifest: Mapping[str, str]) -> bytes:
    return canonical({"format": FORMAT, "manifest": dict(manifest)})


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bundle_object(raw: bytes) -> dict[str, Any]:
    try:
        data = json_input.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BundleError(f"not a run bundle: not JSON ({str(exc).splitlines()[0] if str(exc) else exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise BundleError(f"not a run bundle: format {found!r}, expected {FORMAT!r}")
    return data


def _signature(value: Any) -> Signature | None:
    if value is None:
        return None
    data = _mapping(value, "signature")
    if data.get("algorithm") != ALGORITHM:
        raise BundleError(f"the bundle's signature algorithm is {data.get('algorithm')!r}, expected {ALGORITHM!r}")
    try:
        return Signature(
            base64.b64decode(str(data.get("public_key")), validate=True),
            base64.b64decode(str(data.get("value")), validate=True),
        )
    except ValueError:
        raise BundleError("the bundle's signature is not base64") from None


def _call_row(value: Any, index: int) -> CallRow:
    row = _list(value, f"calls[{index}]")
    if len(row) != 5 or not all(isinstance(part, str) for part in row):
        raise BundleError(f"the bundle's calls[{index}] is not [key, model, template, request, completion]")
    return (row[0], row[1], row[2], row[3], row[4])


def _embedding_row(value: Any, index: int) -> EmbeddingRow:
    row = _list(value, f"embeddings[{index}]")
    if len(row) != 3 or not all(isinstance(part, str) for part in row):
        raise BundleError(f"the bundle's embeddings[{index}] is not [model, text sha256, vector]")
    try:
        return row[0], row[1], base64.b64decode(row[2], validate=True)
    except ValueError:
        raise BundleError(f"the bundle's embeddings[{index}] vector is not base64") from None


def _report(value: Any) -> dict[str, Any]:
    if not isinstance(value, str):
        raise BundleError("the bundle's report is not the report's JSON text")
    try:
        return _mapping(json.loads(value), "report")
    except ValueError:
        raise BundleError("the bundle's report is not JSON") from None


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BundleError(f"the bundle's {where} is not a JSON object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BundleError(f"the bundle's {where} is not a JSON array")
    return value
