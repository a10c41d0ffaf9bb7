"""The run bundle's file: canonical JSON with a sha256 manifest and an optional Ed25519
signature; every change to a part, to the signature or to the key is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from harness import make_record

from pytest_memeval.campaigns.bundle import Bundle, BundleError, canonical, read_bundle, write_bundle
from pytest_memeval.config.signing_keys import read_private_key, read_public_key
from pytest_memeval.errors import ConfigError
from pytest_memeval.results.fingerprint import Fingerprint
from pytest_memeval.results.records import Report

CALL = ("k1", "smollm2", "memsystem 'mem0' chat/completions", '{"body": {}}', '{"choices": [{"text": "Paris"}]}')
VECTOR = bytes(range(16))


def make_bundle() -> Bundle:
    report = Report(settings={"k": [3]}, runs=(), records=(make_record("q1", score=0.5, correct=True),))
    run = {"args": ["--memsystem=mem0"], "python": "3.11.9", "packages": {"pytest": "8.3.0"}, "locks": {}}
    return Bundle(report.to_json(), run, (CALL,), (("minilm", "ab" * 32, VECTOR),))


def edited(path: Path, change: Any) -> Path:
    data = json.loads(path.read_bytes())
    change(data)
    path.write_bytes(json.dumps(data).encode())
    return path


def edit_report(data: dict[str, Any], change: Any) -> None:
    report = json.loads(data["parts"]["report"])
    change(report)
    data["parts"]["report"] = json.dumps(report)


def one_line_error(path: Path, **kwargs: Any) -> str:
    with pytest.raises(BundleError) as caught:
        read_bundle(path, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_bundle_is_canonical_json_that_reads_back_as_written(tmp_path: Path) -> None:
    bundle = make_bundle()
    path = tmp_path / "run.bundle.json"
    write_bundle(path, bundle)
    raw = path.read_bytes()
    assert raw == canonical(json.loads(raw))  # RFC 8785: sorted keys, no spaces
    back = read_bundle(path)
    assert back == bundle and back.signature is None
    assert back.report_value().records[0].id == "q1"


def test_a_report_with_float_settings_reads_back_with_its_fingerprint(tmp_path: Path) -> None:
    # canonical JSON writes 0.0 as 0: inside it, the report keeps its own text, and so the
    # digest its fingerprint holds of the protocol as written (a judge's temperature 0.0)
    report = make_bundle().report_value()
    fingerprint = Fingerprint(responder="openai:m", llm={"temperature": 0.0, "max_tokens": 64})
    bundle = Bundle(msgspec.structs.replace(report, fingerprint=fingerprint).to_json(), make_bundle().run)
    path = tmp_path / "run.bundle.json"
    write_bundle(path, bundle)
    back = read_bundle(path).report_value()
    assert back.fingerprint is not None and back.fingerprint.protocol_digest() == fingerprint.protocol_digest()


@pytest.mark.parametrize(
    "part, change",
    [
        ("report", lambda d: edit_report(d, lambda r: r["records"][0].update(score=1.0))),  # an edited metric
        ("report", lambda d: edit_report(d, lambda r: r["records"][0].update(answer="Rome"))),  # an edited record
        ("calls", lambda d: d["parts"]["calls"][0].__setitem__(4, '{"choices": [{"text": "Rome"}]}')),
        ("embeddings", lambda d: d["parts"]["embeddings"][0].__setitem__(2, "AAAA")),
        ("run", lambda d: d["parts"]["run"]["args"].append("-k q2")),
    ],
)
def test_a_changed_part_is_refused_naming_it(tmp_path: Path, part: str, change: Any) -> None:
    path = tmp_path / "run.bundle.json"
    write_bundle(path, make_bundle())
    assert f"the bundle's {part} was changed" in one_line_error(edited(path, change))


def test_a_signed_bundle_verifies_with_its_key_and_fails_with_another(tmp_path: Path) -> None:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    path = tmp_path / "run.bundle.json"
    write_bundle(path, make_bundle().signed(key))
    assert read_bundle(path, key.public_key()).signature is not None
    assert "not with the key given" in one_line_error(path, public_key=other.public_key())
    # a manifest recomputed after an edit no longer matches the signature
    changed = make_bundle()
    changed = Bundle({**changed.report, "settings": {"k": [5]}}, changed.run, changed.calls, changed.embeddings)
    data = json.loads(path.read_bytes())
    data["parts"], data["manifest"] = json.loads(changed.to_bytes())["parts"], changed.manifest()
    path.write_bytes(json.dumps(data).encode())
    assert "signature does not match its manifest" in one_line_error(path)


def test_an_edited_signature_or_a_missing_one_is_refused(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "run.bundle.json"
    write_bundle(path, make_bundle().signed(key))

    def flip(data: dict[str, Any]) -> None:
        value = data["signature"]["value"]
        data["signature"]["value"] = ("B" if value[0] == "A" else "A") + value[1:]

    assert "signature does not match" in one_line_error(edited(path, flip))
    write_bundle(path, make_bundle())
    assert "not signed" in one_line_error(path, public_key=key.public_key())


def test_what_is_no_bundle_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json")
    assert "not JSON" in one_line_error(path)
    path.write_text(json.dumps({"schema": "memeval-report/2"}))
    assert "not a run bundle" in one_line_error(path)


def test_key_files_in_pem_and_openssh_form(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    pem, ssh, pub = tmp_path / "key.pem", tmp_path / "key", tmp_path / "key.pub"
    pem.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    ssh.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    pub.write_bytes(key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH))
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    for path in (pem, ssh):
        assert read_private_key("--memeval-sign", path).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) == raw
    assert read_public_key("--memeval-public-key", pub).public_bytes(Encoding.Raw, PublicFormat.Raw) == raw
    locked = tmp_path / "locked.pem"
    locked.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pass")))
    with pytest.raises(ConfigError, match="passphrase"):
        read_private_key("--memeval-sign", locked)
    with pytest.raises(ConfigError, match="not a public key"):
        read_public_key("--memeval-public-key", pem)
    with pytest.raises(ConfigError, match="cannot read"):
        read_private_key("--memeval-sign", tmp_path / "missing.pem")


def test_the_plugin_imports_cryptography_only_to_read_or_check_a_key() -> None:
    """cryptography is about 7 MiB of every process that loads the plugin (the xdist
    controller's peak counts it); a run that signs and verifies nothing never imports it."""
    import subprocess
    import sys

    probe = (
        "import sys, pytest_memeval.plugin, pytest_memeval.campaigns.bundle_report; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cryptography'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"
