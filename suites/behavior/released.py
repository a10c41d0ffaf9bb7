"""Where things are in the authors' release (agulaya24/beyond-recall, Apache-2.0).

The layout, as the release's docs/FILE_NAMING.md and folder READMEs describe it:

    data/global_subjects/<subject>/     facts.json, spec_production.md (the paper's specification)
    data/hamerton/                      facts.json, battery.json (the paper's), spec/<layer>.md
    data/source_corpora/<subject>/raw.txt    the whole public-domain text
    results/global_<subject>/           battery_v2.json (the paper's battery), heldout.txt, every
                                        response and judge score of the subject
    results/hamerton/                   the same for Hamerton, in an older, fragmented layout
    results/_s114_backfills/            <subject>__<condition>__<judge>.json: re-judged cells
    results/_wrong_spec_v2/wrong_spec_v2_manifest.json    the v2 derangement (seed 42)

The 14 subjects of the main study are Hamerton and the 13 globals (Franklin is a reference
outside the tests). The globals' own data/global_subjects/<subject>/battery.json is an
earlier 40-question battery; the paper's 39 questions per subject, whose ids the judge files
use, are results/global_<subject>/battery_v2.json.
"""

from __future__ import annotations

from pathlib import Path

from pytest_memeval.errors import ConfigError

HAMERTON = "hamerton"
GLOBALS_DIR = Path("data") / "global_subjects"
RESULTS_DIR = Path("results")
PRIMARY_JUDGES = ("haiku", "sonnet", "opus", "gpt4o", "gpt54")
GEMINI_JUDGES = ("gemini_flash", "gemini_pro")
#: the memory systems of the study (baselayer is the authors' own retrieval floor)
SYSTEMS = ("mem0", "letta", "zep", "supermemory", "baselayer")
#: the release's names of the direct conditions -> ours (Hamerton's older names included)
DIRECT_CONDITIONS = {
    "C5_baseline": "C5",
    "C2a_full_spec": "C2a",
    "C2c_wrong_spec": "C2c_v1",
    "C2c_full_wrong_spec": "C2c_v1",
    "C4_factdump": "C4",
    "C4a_full_facts_plus_spec": "C4a",
    "C4a_full_all_facts_plus_spec": "C4a",
    "C8_raw_corpus": "C8",
    "C9_raw_corpus_plus_spec": "C9",
}


def check_root(root: Path) -> Path:
    """`root` when it looks like a checkout of the release; a one-line usage error otherwise."""
    if not (root / GLOBALS_DIR).is_dir() or not (root / RESULTS_DIR).is_dir():
        raise ConfigError(
            f"--memeval-data: {root} is not a beyond-recall checkout (no {GLOBALS_DIR}/ and {RESULTS_DIR}/ in it)"
        )
    return root


def subjects(root: Path) -> tuple[str, ...]:
    """The main-study subjects present: Hamerton first (when its folders are there), then the globals."""
    found = sorted(d.name for d in (root / GLOBALS_DIR).iterdir() if d.is_dir() and not d.name.startswith((".", "_")))
    hamerton = (root / "data" / HAMERTON).is_dir() and results_dir(root, HAMERTON).is_dir()
    return ((HAMERTON,) if hamerton else ()) + tuple(found)


def results_dir(root: Path, subject: str) -> Path:
    return root / RESULTS_DIR / (subject if subject == HAMERTON else f"global_{subject}")


def data_dir(root: Path, subject: str) -> Path:
    return root / "data" / HAMERTON if subject == HAMERTON else root / GLOBALS_DIR / subject


def battery_path(root: Path, subject: str) -> Path:
    if subject == HAMERTON:
        return data_dir(root, subject) / "battery.json"
    return results_dir(root, subject) / "battery_v2.json"


def condition_of(name: str) -> tuple[str, str | None] | None:
    """A release condition name as (our condition, memory system or None); None when the study
    reports it nowhere we reproduce (e.g. Hamerton's early `C3_full_mem0`).

    C1_<system> and C3_<system> are the controlled configuration, C1_<system>_fp and
    C3_<system>_fp the native one (each system's own ingestion of the corpus).
    """
    if name in DIRECT_CONDITIONS:
        return DIRECT_CONDITIONS[name], None
    head, _, system = name.partition("_")
    native = system.endswith("_fp")
    system = system.removesuffix("_fp")
    if head not in ("C1", "C3") or system not in SYSTEMS:
        return None
    return head + ("_native" if native else ""), system
