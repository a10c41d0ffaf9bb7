"""Which personas a run evaluates, their item ids, and where their data comes from.

Personas come from our generator (default) or from a released benchmark directory
(--memeval-data). Item ids name the origin, seed, difficulty class and number of the persona,
and the question: `s20260324-stable_017-A1` is persona stable_017 of the release's directory
`s20260324`; `gen20260324-stable_017-A1` is our generator's persona of that seed and number,
a different person drawn from the same process. The two can never be confused.
Markers that depend on the gold labels are computed once per persona and cached on disk, so
a warm collection of 34,560 items generates nothing. The cache also keeps what a run needs
of each persona (its gold derivations; a generated persona's rendered memory units), so a
warm run generates nothing either: generating and rendering one costs ~2 ms, reading its
cached units 0.06 ms.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.data_files import regular_files
from pytest_memeval.framework.suite import SuiteOptions

from . import released
from .atoms import reachable, source_atoms
from .generator import (
    SEEDS,
    Persona,
    PersonaRef,
    generate,
    index_of,
    is_generated,
    parse_persona_id,
    persona_index,
    public_sources,
    split_of,
)
from .personas import DIFFICULTIES
from .questions import QUESTIONS
from .render import render_units, units_from_markdown

#: personas per difficulty class in a smoke run (3 classes x 4 x 18 questions = 216 items)
SMOKE_PER_CLASS = 4
#: context id prefixes: the release's seed directory name (s<seed>) or ours (gen<seed>)
RELEASED_PREFIX, GENERATED_PREFIX = "s", "gen"
_CONTEXT = re.compile(rf"^({RELEASED_PREFIX}|{GENERATED_PREFIX})(\d+)-(stable|shift|stated)_(\d{{3}})$")


def short_name(persona_id: str) -> str:
    """'stable_017' for 'bench_stable_017_avery_adams' or 'gen_stable_017_avery_adams'."""
    _, kind, number, *_ = persona_id.split("_")
    return f"{kind}_{number}"


def context_id(ref: PersonaRef) -> str:
    prefix = GENERATED_PREFIX if is_generated(ref.persona_id) else RELEASED_PREFIX
    return f"{prefix}{ref.seed}-{short_name(ref.persona_id)}"


def split_item_id(item_id: str) -> tuple[str, str]:
    """('s20260324-stable_017', 'A1') for 's20260324-stable_017-A1'."""
    context, _, qid = item_id.rpartition("-")
    if not _CONTEXT.match(context) or qid not in QUESTIONS:
        raise ConfigError(f"not a multisource item id: {item_id!r}")
    return context, qid


def seed_of_item(item_id: str) -> int:
    """The seed of an item or context id (20260324 for 'gen20260324-stable_017-A1')."""
    m = _CONTEXT.match(item_id.rpartition("-")[0]) or _CONTEXT.match(item_id)
    if m is None:
        raise ValueError(f"not a multisource item id: {item_id!r}")
    return int(m.group(2))


@dataclass(frozen=True)
class PersonaFacts:
    """What collection and the items need from a persona: gold labels, reachability, how
    each gold label was derived, and per question the sources whose readout gives a label
    (its evidence: evidence.py)."""

    gold: dict[str, str]
    unreachable: tuple[str, ...]
    derivation: dict[str, str]
    readable: dict[str, tuple[str, ...]]


#: a context's memory as the suite stores it: (source, text) units in render order
Units = tuple[tuple[str, str], ...]


class Catalog:
    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
        self.data_dir = options.data_dir
        self.seeds = self.used_seeds(options.seeds)
        self.split = self.used_split(options.split)
        self._refs = {context_id(ref): ref for ref in self._all_refs()}
        self._facts: dict[tuple[int, str], PersonaFacts] = {}

    def used_seeds(self, given: tuple[int, ...] | None) -> tuple[int, ...]:
        """The seeds the items come from when --memeval-seed is `given` (None: the default):
        the first one below --memeval-size=full."""
        available = self._available_seeds(given)
        seeds = given or available
        unknown = [s for s in seeds if s not in available]
        if unknown:
            where = f"in {self.data_dir}" if self.data_dir else "for the generator"
            raise ConfigError(f"--memeval-seed: no multisource data for seed {unknown[0]} {where}")
        return seeds if self.options.size == "full" else seeds[:1]

    def used_split(self, given: str | None) -> str:
        """The split the items come from when --memeval-split is `given` (None: the default)."""
        return given or ("all" if self.options.size == "full" else "test")

    def _available_seeds(self, given: tuple[int, ...] | None) -> tuple[int, ...]:
        if self.data_dir is None:
            return tuple(given or SEEDS)
        try:
            return tuple(int(d.name[1:]) for d in released.seed_dirs(self.data_dir))
        except DataError as exc:
            raise ConfigError(f"--memeval-data: {exc}") from None

    def _all_refs(self) -> list[PersonaRef]:
        refs: list[PersonaRef] = []
        for seed in self.seeds:
            refs.extend(persona_index(seed) if self.data_dir is None else self._released_refs(self.data_dir, seed))
        return refs

    def _released_refs(self, data_dir: Path, seed: int) -> list[PersonaRef]:
        seed_dir = next(d for d in released.seed_dirs(data_dir) if d.name == f"s{seed}")
        ids = sorted(p.name for p in seed_dir.iterdir() if p.is_dir() and p.name.startswith("bench_"))
        try:
            return [_released_ref(seed, pid) for pid in ids]
        except ValueError as exc:
            raise ConfigError(f"--memeval-data: {seed_dir}: {exc}") from None

    def selected(self) -> list[PersonaRef]:
        """The personas evaluated in this run, in a stable order."""
        refs = [r for r in self._refs.values() if self.split in ("all", r.split)]
        if self.options.size != "smoke":
            return refs
        picked: list[PersonaRef] = []
        for difficulty in DIFFICULTIES:
            picked.extend([r for r in refs if r.difficulty == difficulty][:SMOKE_PER_CLASS])
        return sorted(picked, key=lambda r: r.index)

    def of_split(self, split: str) -> list[PersonaRef]:
        return [r for r in self._refs.values() if r.split == split]

    def ref(self, context: str) -> PersonaRef:
        try:
            return self._refs[context]
        except KeyError:
            raise ConfigError(f"unknown multisource persona {context!r} in this run") from None

    def persona(self, ref: PersonaRef) -> Persona:
        return _load(self.data_dir, ref.seed, ref.index, ref.persona_id)

    def personas(self, refs: list[PersonaRef]) -> Iterator[Persona]:
        for ref in refs:
            yield self.persona(ref)

    def facts(self, refs: list[PersonaRef]) -> dict[tuple[int, str], PersonaFacts]:
        """Gold labels and reachability of `refs`, cached on disk per seed."""
        refs = [r for r in refs if (r.seed, r.persona_id) not in self._facts]
        for seed in sorted({r.seed for r in refs}):
            path = self.cache_path(f"facts-s{seed}.json")
            cached = _read_json(path) or {}
            wanted = [r for r in refs if r.seed == seed]
            missing = [r for r in wanted if r.persona_id not in cached]
            for ref, persona in zip(missing, self.personas(missing), strict=True):
                cached[persona.persona_id] = _facts_of(persona)
                if self.data_dir is None:  # generated here anyway: its units are kept too
                    self._write_units(ref, render_units(persona.sources))
            if missing:
                _write_json(path, cached)
            # every persona of the file is kept, not only those asked for: a run's items ask
            # one persona at a time, and would otherwise read the whole file once each
            for persona_id, entry in cached.items():
                self._facts[(seed, persona_id)] = PersonaFacts(
                    entry["gold"],
                    tuple(entry["unreachable"]),
                    entry["derivation"],
                    {qid: tuple(sources) for qid, sources in entry["readable"].items()},
                )
        return self._facts

    def units(self, ref: PersonaRef) -> Units:
        """The persona's memory units. A generated persona's are read from the cache (written
        when its facts were computed, or here on a miss); a released persona's come from its
        own render file, which is read anyway."""
        if self.data_dir is not None:
            persona = self.persona(ref)
            if persona.nl_render is not None:
                return tuple(units_from_markdown(persona.nl_render))
            return tuple(render_units(persona.sources))
        cached = _cached_units(_read_json(self._units_path(ref)))
        if cached is not None:
            return cached
        persona_units = tuple(render_units(self.persona(ref).sources))
        self._write_units(ref, persona_units)
        return persona_units

    def _units_path(self, ref: PersonaRef) -> Path:
        return self.cache_path(f"units-{context_id(ref)}.json")

    def _write_units(self, ref: PersonaRef, units: Iterable[tuple[str, str]]) -> None:
        _write_json(self._units_path(ref), {"units": [list(unit) for unit in units]})

    def cache_path(self, name: str) -> Path:
        return self.options.cache_dir / "multisource" / f"{self.origin()}-{name}"

    def input_stamp(self, refs: list[PersonaRef]) -> str:
        """A digest of the personas `refs` as read: their ids and, for released data, the
        size and modification time of every file in their directories (a generated persona
        is fixed by its seed and the code, which `origin` already names)."""
        digest = hashlib.sha256()
        seed_dirs = released.seed_dirs(self.data_dir) if self.data_dir is not None else []
        for ref in sorted(refs, key=lambda r: (r.seed, r.persona_id)):
            digest.update(f"{ref.seed}/{ref.persona_id}\n".encode())
            if self.data_dir is None:
                continue
            seed_dir = next(d for d in seed_dirs if d.name == f"s{ref.seed}")
            for path in regular_files(sorted((seed_dir / ref.persona_id).rglob("*"))):
                stat = path.stat()
                digest.update(f"{path.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
        return digest.hexdigest()[:12]

    def origin(self) -> str:
        """Where the data comes from, including the code version that shapes it."""
        if self.data_dir is None:
            return f"gen-{code_version()}"
        digest = hashlib.sha256(str(self.data_dir.resolve()).encode()).hexdigest()[:12]
        return f"data-{digest}-{code_version()}"


def _released_ref(seed: int, persona_id: str) -> PersonaRef:
    difficulty, _ = parse_persona_id(persona_id)
    return PersonaRef(persona_id, seed, index_of(persona_id), difficulty, split_of(seed, persona_id))


@lru_cache(maxsize=32)
def _load(data_dir: Path | None, seed: int, index: int, persona_id: str) -> Persona:
    if data_dir is None:
        return generate(seed, index)
    seed_dir = next(d for d in released.seed_dirs(data_dir) if d.name == f"s{seed}")
    return released.load_released_persona(seed_dir / persona_id, seed)


def _cached_units(data: object) -> Units | None:
    """The units a cache file holds; None for anything else (a file from elsewhere, damaged):
    the persona is then rendered again and the file rewritten."""
    units = data.get("units") if isinstance(data, dict) else None
    if not isinstance(units, list) or not all(
        isinstance(unit, list) and len(unit) == 2 and all(isinstance(part, str) for part in unit) for unit in units
    ):
        return None
    return tuple((source, text) for source, text in units)


def _facts_of(persona: Persona) -> dict[str, object]:
    gold = persona.answers
    atoms = source_atoms(public_sources(persona))
    unreachable = sorted(q for q in QUESTIONS if not reachable(atoms[q], gold[q]))
    derivation = {qid: truth.get("derivation_detail", "") for qid, truth in persona.ground_truth.items()}
    readable = {q: [source for source, atom in atoms[q].items() if atom is not None] for q in QUESTIONS}
    return {"gold": gold, "unreachable": unreachable, "derivation": derivation, "readable": readable}


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of this package's source: a change to the generator invalidates its caches."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: dict) -> None:
    """Write atomically: concurrent xdist workers computing the same cache never see a torn file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)
