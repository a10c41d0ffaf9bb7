"""`python -m pytest_memeval bundle REPORT --memeval-bundle OUT [--memeval-sign KEYFILE]`:
the bundle of a run that was made without --memeval-bundle.

Which of the cache files' entries that run used is not written anywhere, and the cache may
hold other runs' calls too. So the run is run again, in the current directory, with the
arguments its report keeps, replayed from the same cache files (`--memeval-llm-cache=replay`:
nothing is forwarded) and logging what it uses; once the rerun reproduces the report
(verify.py's comparison), the bundle holds the report as it was published and the calls and
embeddings the rerun used. Its package versions are those of the environment that
reproduced it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bundle import Bundle, read_bundle, write_bundle
from .run_bundle import run_info
from .verify import OUTPUT_OPTIONS, Reproduced, VerifyError, compare, rerun_arguments, run_again

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def bundle_report(
    report: dict[str, Any],
    out: Path,
    key: Ed25519PrivateKey | None,
    data_dir: Path | None,
    timeout_s: float,
) -> Reproduced:
    """Rerun the report's run from its caches, compare, and write the bundle to `out`."""
    args = (report.get("settings") or {}).get("args")
    if not isinstance(args, list) or not args:
        raise VerifyError(
            "the report does not keep the arguments of its run (written before they were kept): "
            "run it again with --memeval-bundle"
        )
    dropped = (*OUTPUT_OPTIONS, "--memeval-llm-cache", *(["--memeval-data"] if data_dir is not None else []))
    with tempfile.TemporaryDirectory(prefix="memeval-bundle-") as workdir:
        logged = Path(workdir) / "logged.json"
        rerun = [
            *rerun_arguments([str(arg) for arg in args], dropped),
            "--memeval-llm-cache=replay",
            f"--memeval-bundle={logged}",
            *([f"--memeval-data={data_dir}"] if data_dir is not None else []),
        ]
        reproduced = compare(report, run_again(rerun, Path(workdir), timeout_s))
        used = read_bundle(logged)
    bundle = Bundle(report, run_info([str(arg) for arg in args], Path.cwd(), report), used.calls, used.embeddings)
    write_bundle(out, bundle.signed(key) if key is not None else bundle)
    return reproduced
