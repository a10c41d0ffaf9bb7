"""python -m pytest_memeval verify: the checks before a rerun (manifest, signature, data
files), the rerun's arguments, and the comparison that names the first difference; each
failure one line and a non-zero exit. The rerun itself: tests/test_verify_replay.py."""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pytest_memeval import plugin
from pytest_memeval.__main__ import main
from pytest_memeval.campaigns.bundle import Bundle, canonical, write_bundle
from pytest_memeval.campaigns.run_bundle import adapter_settings_text
from pytest_memeval.campaigns.verify import (
    INPUT_OPTIONS,
    OUTPUT_OPTIONS,
    VerifyError,
    adapter_config_toml,
    check_data,
    compare,
    rerun_arguments,
    rerun_command,
    rerun_environment,
)

RECORD = {
    "id": "q1",
    "key": {"suite": "locomo", "memsystem": "mem0", "responder": "openai:m", "judge": "m@j", "k": 3},
    "repeat": 0,
    "answer": "Paris",
    "score": 1.0,
    "correct": True,
    "reason": "",
    "memories": [{"id": "8826e450", "text": "Sam lives in Paris", "score": 0.37}],
    "answer_ms": 12.5,
    "llm_tokens": {"answer": {"calls": 1, "cached_calls": 0}},
}
RUN = {"key": RECORD["key"], "metrics": {"accuracy": {"value": 1.0, "ci": [0.2, 1.0], "n": 1}}, "n_items": 1}
LOCOMO = b'[{"qa": []}]'
REPORT: dict[str, Any] = {
    "schema": "memeval-report/2",
    "records": [RECORD],
    "runs": [RUN],
    "session_errors": [],
    "fingerprint": {
        "protocol": {"suites": {"locomo": {"data": {"locomo10.json": hashlib.sha256(LOCOMO).hexdigest()}}}},
        "systems": {"memsystems": {"mem0": {"settings": {"llm_timeout": 600.0, "llm_max_tokens": 256}}}},
    },
}


def changed(**fields: Any) -> dict[str, Any]:
    report = copy.deepcopy(REPORT)
    report["records"][0].update(fields)
    return report


def difference(rerun: dict[str, Any]) -> str:
    with pytest.raises(VerifyError) as caught:
        compare(REPORT, rerun)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_a_rerun_equal_but_for_timings_and_cache_counts_is_reproduced() -> None:
    again = changed(
        answer_ms=99.0,
        llm_tokens={"answer": {"calls": 1, "cached_calls": 1}},
        memories=[{"id": "0b4fba54", "text": "Sam lives in Paris", "score": 0.37}],  # a new UUID per run
    )
    assert compare(REPORT, again).line() == "reproduced: 1 records, every metric equal"


def test_the_first_difference_is_named() -> None:
    assert difference(changed(answer="Rome", correct=False)).startswith(
        'record q1 (locomo | mem0 | openai:m | m@j | k=3): answer is "Rome" in the rerun, "Paris" in the bundle'
    )
    memories = changed(memories=[{"id": "8826e450", "text": "Sam lives in Rome", "score": 0.37}])
    assert "memories is" in difference(memories)
    miss = changed(reason="replay cache miss: memsystem 'mem0' made an LLM call the recording does not hold")
    assert "the recording misses a call of record q1" in difference(miss)
    assert "record q1 (locomo" in difference({**REPORT, "records": []})
    metric = copy.deepcopy(REPORT)
    metric["runs"][0]["metrics"]["accuracy"]["value"] = 0.5
    assert difference(metric) == (
        "run locomo | mem0 | openai:m | m@j | k=3, metric accuracy: value is 0.5 in the rerun, 1.0 in the bundle"
    )
    protocol = copy.deepcopy(REPORT)
    protocol["fingerprint"]["systems"]["memsystems"]["mem0"]["settings"]["llm_max_tokens"] = 128
    assert difference(protocol).startswith("the rerun ran another protocol: fingerprint.systems.memsystems.mem0")


def test_the_rerun_keeps_the_run_and_drops_its_outputs_and_caches() -> None:
    args = [
        "--memsystem=mem0",
        "--memeval-report",
        "out.json",
        "--memeval-bundle=b.json",
        "--memeval-llm-cache-file=calls.sqlite",
        "-k",
        "A1 and not A2",
        "--memeval-resume",
        "--memeval-adapter-config",
        "mem0.toml",
        "-n",
        "2",
    ]
    assert rerun_arguments(args, (*OUTPUT_OPTIONS, *INPUT_OPTIONS)) == [
        "--memsystem=mem0",
        "-k",
        "A1 and not A2",
        "-n",
        "2",
    ]
    assert "--memeval-llm-cache-file=calls.sqlite" in rerun_arguments(args, OUTPUT_OPTIONS)


def test_the_run_keeps_the_arguments_its_ini_file_and_pytest_addopts_gave(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\naddopts = --memeval-seed=5\n")
    monkeypatch.setenv("PYTEST_ADDOPTS", "--memeval-k=3")
    config = pytester.parseconfig("-q")
    args = config.stash[plugin.PARSED_ARGS_KEY]
    assert args[:2] == ("--memeval-seed=5", "--memeval-k=3") and "-q" in args[2:]
    assert config.invocation_params.args[0] != "--memeval-seed=5"  # pytest's own record lacks them


def test_the_rerun_takes_its_arguments_from_the_bundle_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "--memeval-k=5")
    command = rerun_command(["--memeval-k=3"], tmp_path / "rerun.json")
    assert command[3:6] == ["-o", "addopts=", "--memeval-k=3"]  # the verifier's ini addopts emptied
    assert "PYTEST_ADDOPTS" not in rerun_environment()


def test_adapter_settings_keep_their_types_through_the_bundle() -> None:
    text = adapter_settings_text(REPORT)
    bundle = Bundle(REPORT, {"adapter_settings": text})
    # canonical JSON writes 600.0 as 600; the settings' own text keeps the float
    assert (
        json.loads(canonical(json.loads(json.loads(bundle.to_bytes())["parts"]["report"])))["fingerprint"]["systems"][
            "memsystems"
        ]["mem0"]["settings"]["llm_timeout"]
        == 600
    )
    toml = tomllib.loads(adapter_config_toml(json.loads(bundle.to_bytes())["parts"]["run"]["adapter_settings"]))
    assert toml == {"mem0": {"llm_timeout": 600.0, "llm_max_tokens": 256}}
    assert isinstance(toml["mem0"]["llm_timeout"], float) and isinstance(toml["mem0"]["llm_max_tokens"], int)
    assert adapter_config_toml(adapter_settings_text({})) == ""


def test_data_files_are_checked_by_sha256(tmp_path: Path) -> None:
    with pytest.raises(VerifyError, match=r"read 1 released data file \(locomo10.json, ...\): give their directory"):
        check_data(REPORT, None)
    with pytest.raises(VerifyError, match="data file locomo10.json is missing from"):
        check_data(REPORT, tmp_path)
    (tmp_path / "locomo10.json").write_bytes(LOCOMO + b" ")
    with pytest.raises(VerifyError, match="data file locomo10.json has changed: sha256"):
        check_data(REPORT, tmp_path)
    (tmp_path / "locomo10.json").write_bytes(LOCOMO)
    assert check_data(REPORT, tmp_path) == 1


def verify_command(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    status = main(["verify", *args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def test_verify_refuses_a_changed_bundle_a_wrong_key_and_changed_data_before_any_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    public, other_public = tmp_path / "key.pub", tmp_path / "other.pub"
    public.write_bytes(key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH))
    other_public.write_bytes(other.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH))
    path = tmp_path / "run.bundle"
    write_bundle(path, Bundle(REPORT, {"args": ["--memsystem=mem0"]}).signed(key))
    data = tmp_path / "data"
    data.mkdir()
    (data / "locomo10.json").write_bytes(LOCOMO + b"\n")

    status, out, _ = verify_command(capsys, str(path), f"--memeval-public-key={other_public}")
    assert status == 1 and len(out) == 1 and out[0].startswith("memeval verify: the bundle is signed with key ")
    assert out[0].endswith(", not with the key given (" + out[0].rsplit("(", 1)[1])
    status, out, _ = verify_command(capsys, str(path), f"--memeval-public-key={public}", f"--memeval-data={data}")
    assert status == 1 and out[-1].startswith("memeval verify: data file locomo10.json has changed")
    assert "signed with key" in out[0] and "the key given" in out[0]

    tampered = json.loads(path.read_bytes())
    report = json.loads(tampered["parts"]["report"])
    report["runs"][0]["metrics"]["accuracy"]["value"] = 0.99
    tampered["parts"]["report"] = json.dumps(report)
    path.write_text(json.dumps(tampered))
    status, out, _ = verify_command(capsys, str(path))
    assert status == 1 and out == [out[0]] and out[0].startswith("memeval verify: the bundle's report was changed")


def test_verify_usage_errors_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = verify_command(capsys, str(tmp_path / "missing.bundle"))
    assert status == 4 and out == [] and len(err) == 1 and "cannot read" in err[0]
    (tmp_path / "key.pub").write_text("not a key")
    status, _, err = verify_command(capsys, str(tmp_path / "x"), f"--memeval-public-key={tmp_path / 'key.pub'}")
    assert status == 4 and err == [
        f"memeval verify: --memeval-public-key: {tmp_path / 'key.pub'} is not a public key in PEM or OpenSSH form"
    ]


def test_bundle_refuses_a_report_without_its_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "old.json"
    report.write_text(json.dumps({**REPORT, "settings": {"k": [3]}}))
    status = main(["bundle", str(report), f"--memeval-bundle={tmp_path / 'run.bundle'}"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1 and out == [
        "memeval bundle: the report does not keep the arguments of its run (written before they were kept): "
        "run it again with --memeval-bundle"
    ]
    assert not (tmp_path / "run.bundle").exists()
