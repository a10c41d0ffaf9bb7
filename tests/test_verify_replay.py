"""A published run verified end to end: mem0 (its own LLM calls through the gateway) and an
LLM responder, replayed from the committed recording, bundled and signed (its k given by
PYTEST_ADDOPTS, which the bundle keeps); the bundle is rerun offline to the same records and
metrics, refused with another key, and a recorded response edited (the manifest recomputed,
unsigned) is found by the rerun. A finished run bundled from its report (`python -m
pytest_memeval bundle REPORT`): the bundle holds the report as published, signed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from pytest_memeval.__main__ import main
from pytest_memeval.campaigns.bundle import Bundle, BundleError, read_bundle, write_bundle
from pytest_memeval.config.signing_keys import read_public_key
from pytest_memeval.llm import CallCache

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
RECORDING = ROOT / "fixtures" / "llm-local.sqlite"
ITEM = "stable_121-A1"


def write_keys(directory: Path) -> tuple[Path, Path, Path]:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    private, public, other_public = directory / "key.pem", directory / "key.pub", directory / "other.pub"
    private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    other_public.write_bytes(other.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    return private, public, other_public


@pytest.mark.skipif(not RECORDING.is_file(), reason="no recording committed: make record-local")
def test_a_bundled_mem0_run_reruns_offline_to_the_same_numbers_and_an_edit_is_found(
    suite_pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = suite_pytester.path
    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    monkeypatch.setenv("PYTEST_ADDOPTS", f"{addopts} --memeval-k=3")  # not the default: the bundle must keep it
    shutil.copy(ROOT / "fixtures" / "local-systems" / "mem0.toml", path / "mem0.toml")
    private, public, other_public = write_keys(path)
    recorded = suite_pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--memsystem=mem0",
        "--memeval-adapter-config=mem0.toml",
        "--memeval-suite=multisource",
        "-k",
        ITEM,
        "--memeval-responder=openai:smollm2-135m",
        "--memeval-llm-cache=replay",
        f"--memeval-llm-cache-file={RECORDING}",
        "--memeval-base-url=http://127.0.0.1:9/v1",  # nothing listens there: replay must not call
        "--memeval-bundle=run.bundle",
        f"--memeval-sign={private}",
        timeout=900,
    )
    assert recorded.ret == pytest.ExitCode.OK, recorded.stdout.str()[-3000:]
    bundle = read_bundle(path / "run.bundle")
    templates = {template for _, _, template, _, _ in bundle.calls}
    assert {"memsystem 'mem0' chat/completions", "multisource_direct@1"} <= templates, templates
    cache = CallCache(RECORDING, readonly=True)
    assert 0 < len(bundle.calls) < len(cache)  # this run's calls, not the whole recording
    cache.close()

    assert "--memeval-k=3" in bundle.run["args"]
    monkeypatch.setenv("PYTEST_ADDOPTS", addopts)
    capsys.readouterr()  # pytester's own lines
    status = main(["verify", "run.bundle", f"--memeval-public-key={public}"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, lines
    assert lines[-1] == "reproduced: 1 records, every metric equal"
    assert "the key given" in lines[0]

    assert main(["verify", "run.bundle", f"--memeval-public-key={other_public}"]) == 1
    assert "not with the key given" in capsys.readouterr().out

    # the responder's recorded answer edited, the manifest made again: only the rerun can tell
    answer = bundle.report["records"][0]["answer"]
    other = next(label for label in ("fewer_than_10", "10_to_19", "20_or_more") if label != answer)
    calls = tuple(
        (
            key,
            model,
            template,
            request,
            completion.replace(answer, other) if template == "multisource_direct@1" else completion,
        )
        for key, model, template, request, completion in bundle.calls
    )
    assert calls != bundle.calls
    write_bundle(path / "edited.bundle", Bundle(bundle.report, bundle.run, calls, bundle.embeddings))
    assert main(["verify", "edited.bundle"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("memeval verify: record gen20260321-stable_121-A1 (multisource | mem0 |"), last
    assert f'answer is "{other}" in the rerun, "{answer}" in the bundle' in last, last


def test_a_finished_run_is_bundled_from_its_report_and_a_changed_bundle_is_refused(
    toy_pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    path = toy_pytester.path
    private, public, other_public = write_keys(path)
    ran = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "-k", "ada", "--memeval-report=run.json")
    assert ran.ret == pytest.ExitCode.OK
    capsys.readouterr()  # pytester's own lines

    status = main(["bundle", "run.json", "--memeval-bundle=after.bundle", f"--memeval-sign={private}"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, lines
    assert lines == ["reproduced: 3 records, every metric equal", f"bundle: {path / 'after.bundle'} (signed)"]
    bundle = read_bundle(path / "after.bundle", read_public_key("key", public))  # manifest and signature hold
    assert bundle.report == json.loads((path / "run.json").read_text(encoding="utf-8"))  # as published
    assert "--memsystem=context" in bundle.run["args"]
    with pytest.raises(BundleError, match="not with the key given"):
        read_bundle(path / "after.bundle", read_public_key("key", other_public))

    tampered = json.loads((path / "after.bundle").read_bytes())
    report = json.loads(tampered["parts"]["report"])
    report["records"][0]["correct"] = not report["records"][0]["correct"]
    tampered["parts"]["report"] = json.dumps(report)
    (path / "tampered.bundle").write_text(json.dumps(tampered), encoding="utf-8")
    assert main(["verify", "tampered.bundle", f"--memeval-public-key={public}"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("memeval verify: the bundle's report was changed: its sha256 is ")
