# Two entry points, both work on a fresh machine: `make main` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
UV := $(BIN)/uv

.PHONY: main test fast-test lint docs setup setup-main setup-test lock letta-venv memos-venv lock-memos

# Every dependency is pinned in requirements.lock (compiled from pyproject.toml by `make
# lock`); installs use it as constraints, so each target installs only its extras, at the
# versions CI tested, and resolves in seconds. uv installs (pip's resolver took over 35
# minutes for the same set on a fresh machine). torch is the CPU build: from pip's
# find-links directory where this machine has one ($PIP_FIND_LINKS), else PyTorch's CPU index.
TORCH_SOURCE ?= $(if $(PIP_FIND_LINKS),--find-links $(PIP_FIND_LINKS),--extra-index-url https://download.pytorch.org/whl/cpu --index-strategy unsafe-best-match)
# llama.cpp (the [llm-local] extra) compiles for this CPU, but without AMX: a host can
# advertise AMX tiles that its sandbox does not let a process use, and then llama.cpp's server
# dies with SIGILL at its first completion (seen on this project's machines). CMAKE_ARGS
# reaches llama-cpp-python's build through uv; -mno-* wins over the -march=native it adds.
# LLAVA_BUILD=OFF: llama-cpp-python's multimodal library (mtmd, 53 of its 193 compile steps)
# is left out; nothing here serves images, and the server loads it only for a vision model.
# Installing llama-cpp-python[server] with an empty uv cache: 373 s without it, 473 s with it
# (one run each, 2026-11-29, load 2-3).
NO_AMX := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
LLAMA_CMAKE_ARGS ?= -DCMAKE_C_FLAGS='$(NO_AMX)' -DCMAKE_CXX_FLAGS='$(NO_AMX)' -DLLAVA_BUILD=OFF
INSTALL = CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(UV) pip install --python $(BIN)/python -c requirements.lock $(TORCH_SOURCE)

# Python writes the bytecode of what it imports (__pycache__, git-ignored) even where the
# machine sets PYTHONDONTWRITEBYTECODE: uv installs no .pyc, and without them every process
# a run starts (xdist workers, the tests' own pytest runs) compiled numpy, scipy and the
# plugin from source again: 8.3 s of CPU for a 12-item toy run, 4.1 s with them.
export PYTHONDONTWRITEBYTECODE :=

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check "uv==$(UV_VERSION)"

# what `make main` runs: the plugin, embedded chroma and the offline MiniLM embedder
$(VENV)/.main-installed: $(UV) pyproject.toml requirements.lock
	$(INSTALL) -e ".[chroma,local]"
	touch $@

# what `make test` runs: every extra (the memory systems' SDKs, llama.cpp's server, which
# compiles on first install, the linters, the docs builder)
$(VENV)/.test-installed: $(UV) pyproject.toml requirements.lock
	$(INSTALL) -e ".[all]"
	touch $@ $(VENV)/.main-installed

setup-main: $(VENV)/.main-installed
setup-test: $(VENV)/.test-installed
setup: setup-test

# Recompile the lock after a change of pyproject.toml's dependencies (the header of the
# file records this command).
lock: $(UV)
	$(UV) pip compile pyproject.toml --extra all -c constraints.txt --python-version 3.11 $(TORCH_SOURCE) \
		--no-emit-find-links --no-emit-index-url --custom-compile-command "make lock" -o requirements.lock

# The main job: the bundled suites on embedded chroma with the local MiniLM embedder and
# the offline reader, smoke size, two workers; the reports go to memeval-report.json and
# memeval-report.html here, as every run's do. Exit status 1 means that some items were
# answered wrongly, which is what the benchmark measures (it is in the summary and the
# reports); any other failure (usage, collection, an interrupted run) fails the job.
main: setup-main
	$(BIN)/pytest --memsystem=chroma -n 2 || [ $$? -eq 1 ]

# Letta's server for the letta adapter's live tests, in an environment of its own: its
# dependencies (openai 1.x, pydantic < 2.12) do not fit beside the plugin's. Letta 0.11.7 is
# the last release with SQLite storage; its own lock pins the rest.
LETTA_VENV ?= .letta-venv

$(LETTA_VENV)/bin/letta: $(UV) constraints-letta-server.txt
	$(PYTHON) -m venv $(LETTA_VENV)
	$(UV) pip install --python $(LETTA_VENV)/bin/python -c constraints.txt -c constraints-letta-server.txt $(TORCH_SOURCE) \
		"letta[sqlite,server]==0.11.7" asyncpg
	touch $@

letta-venv: $(LETTA_VENV)/bin/letta

# MemOS (the memos adapter runs MemoryOS in a process of its own, under this environment's
# Python): MemoryOS pins openai 1.x, transformers 4.x and fastapi 0.115, which do not fit
# beside the plugin. constraints-memos.txt pins every package (`make lock-memos` recompiles it).
MEMOS_VENV ?= .memos-venv
MEMOS_REQUIREMENTS = MemoryOS==2.0.33 qdrant-client>=1.16,<2

$(MEMOS_VENV)/bin/memos: $(UV) constraints-memos.txt
	$(PYTHON) -m venv $(MEMOS_VENV)
	$(UV) pip install --python $(MEMOS_VENV)/bin/python -c constraints-memos.txt $(foreach r,$(MEMOS_REQUIREMENTS),"$(r)")
	touch $@

memos-venv: $(MEMOS_VENV)/bin/memos

lock-memos: $(UV)
	printf '%s\n' $(foreach r,$(MEMOS_REQUIREMENTS),"$(r)") | $(UV) pip compile - --python-version 3.11 \
		--custom-compile-command "make lock-memos" -o constraints-memos.txt

# The plugin's own tests, after the linters and the documentation site. loadgroup hands tests
# out one at a time, slow ones first (tests/conftest.py), so that both workers finish together
# (xdist's default, load, gives each worker half of the first quarter of the tests at the start:
# every slow test, whatever their lengths). With the locked pytest 9.2 and xdist 3.8 the
# xdist_group marks reach no node id (a group's tests ran on both workers): they group nothing.
TEST_WORKERS = -n 2 --dist loadgroup
# the 25 slowest tests are listed at the end, so that a CI log says where its minutes went
test: setup letta-venv memos-venv lint docs
	$(BIN)/pytest $(TEST_WORKERS) --durations=25

# The contributors' fast tier: every test not marked slow (no pytest subprocess or pytester
# run, no server, no real model), on two workers; see docs/contributing.md.
fast-test: setup-test
	$(BIN)/pytest -m "not slow" $(TEST_WORKERS)

# The documentation site from docs/ (mkdocs.yml): a broken link or anchor fails the build.
docs: setup-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# ruff (lint and format) and mypy, configured in pyproject.toml; part of `make test`
lint: setup-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Real small models (the [llm-local] extra): `make record-local` records a selection of
# every suite through SmolLM2-135M and Gemma 3 270M (one loopback llama.cpp server per
# suite run) into one committed cache, fixtures/llm-local.sqlite (WAL merged), with syrupy
# snapshots of the verdicts under snapshots/; `make replay-local` replays it offline (no
# server, no network) and compares the snapshots. A prompt or schema change shows as a
# replay cache miss naming the item and, once re-recorded, as a snapshot diff.
# LOCAL_SELECT_<suite> is the -k selection of each suite ('' records its whole smoke size).
LOCAL_CACHE ?= fixtures/llm-local.sqlite
LOCAL_SELECT_multisource ?= A1
LOCAL_SELECT_memfail ?= cond_easy and (000 or 001 or 002)
LOCAL_SELECT_knowme ?= life00
LOCAL_SELECT_behavior ?= p01 and C5 and (q01 or q02 or q03 or q04)
LOCAL_SELECT_bayes ?= coin-single_turn
LOCAL_SELECT_locomo ?= sample-2024-0
LOCAL_BASE = $(BIN)/pytest -p no:cacheprovider --memeval-k=3 --memeval-snapshot \
	--memeval-llm-cache-file=$(LOCAL_CACHE) --memeval-max-errors=100000
LOCAL_RUN = $(LOCAL_BASE) --memsystem=chroma
SMOL = --memeval-responder=openai:smollm2-135m
LOCAL_ARGS_multisource = $(SMOL)
LOCAL_ARGS_memfail = $(SMOL) --memeval-judge=openai:smollm2-135m
LOCAL_ARGS_knowme = $(SMOL) --memeval-judge=openai:smollm2-135m
# behavior.judge_call=schema: neither small model answers the authors' bare judge call (8 tokens
# of free text) with a digit, so every item would be a judge error; the schema makes them answer one
# (one line: tests/test_local_replay.py reads these variables)
LOCAL_ARGS_behavior = $(SMOL) --memeval-judge=openai:smollm2-135m,openai:gemma3-270m --memeval-max-tokens=160 --memeval-suite-option=behavior.judge_call=schema
LOCAL_ARGS_bayes = --memeval-responder=openai:gemma3-270m --memeval-api=completions --memeval-suite-option=bayes.probe_every=25
# locomo: the judge audit (issue 37) of SmolLM2 under Mem0's J prompt, on the suite's reader
LOCAL_ARGS_locomo = --memeval-judge=openai:smollm2-135m@mem0-j --memeval-judge-audit=4
LOCAL_SUITES = multisource memfail knowme behavior bayes locomo
# exit status 1 (wrong answers, changed snapshots on record) is a finding, not a failed step
LOCAL_MODELS = --memeval-local-model=smollm2-135m,smollm2-135m-tools,gemma3-270m
local_run = $(LOCAL_RUN) --memeval-suite=$(1) -k "$(LOCAL_SELECT_$(1))" $(LOCAL_ARGS_$(1)) $(2) || [ $$? -eq 1 ]

# The memory systems whose own LLM writes their memories, on one small context of every suite
# (SYSTEM_SELECT_<suite>), recorded into the same cache: their calls go through the run's LLM
# gateway, and their snapshots hold the memories they stored beside the verdicts. Each system's
# settings are fixtures/local-systems/<system>.toml. Letta's server comes from `make letta-venv`.
# letta-agent (Letta's agent mode, named by import path so that its snapshots stay apart from
# the archival mode's) is not in the default list: SmolLM2 answers Letta's tool-calling steps
# without a tool call, which Letta refuses (docs/memory-systems.md); with a model that calls
# tools, `make record-local LOCAL_SYSTEMS=letta-agent`. Record one system or suite with e.g.
# `make record-local LOCAL_SUITES=memfail LOCAL_SYSTEMS=mem0 RECORD_CHROMA=no`.
LOCAL_SYSTEMS ?= mem0 amem langmem graphiti letta memos
# the systems recorded on each suite (those of LOCAL_SYSTEMS among them): what the committed
# recording holds (tests/test_local_replay.py replays each). SmolLM2 on two cores takes tens of
# minutes per system and context; `make record-local LOCAL_SUITES=behavior LOCAL_SYSTEMS=amem
# RECORD_CHROMA=no SYSTEMS_behavior=amem` records one more (then add it here).
SYSTEMS_multisource ?= mem0 memos letta langmem amem graphiti
SYSTEMS_memfail ?= mem0 amem langmem graphiti letta memos
SYSTEMS_knowme ?= letta memos graphiti mem0 amem langmem
SYSTEMS_behavior ?= mem0 memos letta amem graphiti langmem
SYSTEMS_bayes ?= mem0 amem memos letta graphiti langmem
SYSTEMS_locomo ?=
SYSTEM_SELECT_multisource ?= stable_121-A1
SYSTEM_SELECT_memfail ?= cond_easy-000
SYSTEM_SELECT_knowme ?= dataset1-T1-1
SYSTEM_SELECT_behavior ?= p01-q01-C1_native
SYSTEM_SELECT_bayes ?= coin-passive_b10-identical-unknown_bias-theta50
# knowme's embedded smoke life is 107 sessions: the systems record on a short life of our own
# generator in the release's layout instead (fixtures/local-recording/knowme/generate.py)
SYSTEM_ARGS_knowme ?= --memeval-data=fixtures/local-recording/knowme
MEMSYSTEM_mem0 = mem0
MEMSYSTEM_amem = amem
MEMSYSTEM_langmem = langmem
MEMSYSTEM_graphiti = graphiti
MEMSYSTEM_letta = letta
MEMSYSTEM_memos = memos
MEMSYSTEM_letta-agent = pytest_memeval.memory.letta:LettaMemory
# a 135M model on two cores: an episode or a note can take many minutes
SYSTEM_TIMEOUT = --memeval-adapter-timeout=7200
system_run = $(LOCAL_BASE) --memsystem=$(MEMSYSTEM_$(2)) --memeval-adapter-config=fixtures/local-systems/$(2).toml \
	$(SYSTEM_TIMEOUT) --memeval-suite=$(1) -k "$(SYSTEM_SELECT_$(1))" $(LOCAL_ARGS_$(1)) $(SYSTEM_ARGS_$(1)) $(3) || [ $$? -eq 1 ]
RECORD_CHROMA ?= yes
# a replay's verdict: errors and wrong answers are findings (pytest's exit 1: MemOS on SmolLM2
# is an error item, chroma answers some multisource items wrong), a replay miss or a
# snapshot diff fails it
replay_verdict = rc=$$?; printf '%s\n' "$$out"; [ $$rc -le 1 ] && \
	! printf '%s\n' "$$out" | grep -q -e 'replay cache miss' -e 'differs from its snapshot'
# (each in a subshell, so that `&&` chains the replays' verdicts, not their last commands)
local_replay = (out=$$($(LOCAL_RUN) --memeval-llm-cache=replay --memeval-suite=$(1) -k "$(LOCAL_SELECT_$(1))" \
	$(LOCAL_ARGS_$(1)) 2>&1); $(replay_verdict))
system_replay = (out=$$($(LOCAL_BASE) --memeval-llm-cache=replay --memsystem=$(MEMSYSTEM_$(2)) \
	--memeval-adapter-config=fixtures/local-systems/$(2).toml $(SYSTEM_TIMEOUT) --memeval-suite=$(1) -k "$(SYSTEM_SELECT_$(1))" \
	$(LOCAL_ARGS_$(1)) $(SYSTEM_ARGS_$(1)) 2>&1); $(replay_verdict))

.PHONY: record-local replay-local
record-local: setup-test letta-venv memos-venv
	$(if $(filter yes,$(RECORD_CHROMA)),$(foreach suite,$(LOCAL_SUITES),$(call local_run,$(suite),--snapshot-update $(LOCAL_MODELS)) &&)) true
	$(foreach suite,$(LOCAL_SUITES),$(foreach system,$(filter $(LOCAL_SYSTEMS),$(SYSTEMS_$(suite))),$(call system_run,$(suite),$(system),--snapshot-update $(LOCAL_MODELS)) &&)) true
	$(BIN)/python -c "import sqlite3; sqlite3.connect('$(LOCAL_CACHE)').execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchall()"

replay-local: setup-test letta-venv memos-venv
	$(foreach suite,$(LOCAL_SUITES),$(call local_replay,$(suite)) &&) true
	$(foreach suite,$(LOCAL_SUITES),$(foreach system,$(filter $(LOCAL_SYSTEMS),$(SYSTEMS_$(suite))),$(call system_replay,$(suite),$(system)) &&)) true
