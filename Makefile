# Two entry points, both work on a fresh machine: `make main` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: main test setup letta-venv

$(BIN)/pytest: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e ".[all]"
	touch $@

setup: $(BIN)/pytest

# The main job: the bundled suites on embedded chroma with the local MiniLM embedder and
# the offline reader, smoke size, two workers. Exit status 1 means that some items were
# answered wrongly, which is what the benchmark measures (it is in the summary and the
# reports); any other failure (usage, collection, an interrupted run) fails the job.
main: setup
	$(BIN)/pytest --memsystem=chroma -n 2 --memeval-report=memeval-report.json --memeval-html=memeval-report.html \
		|| [ $$? -eq 1 ]

# Letta's server for the letta adapter's live tests, in an environment of its own: its
# dependencies (openai 1.x, pydantic < 2.12) do not fit beside the plugin's. Letta 0.11.7 is
# the last release with SQLite storage; its own lock pins the rest.
LETTA_VENV ?= .letta-venv

$(LETTA_VENV)/bin/letta: constraints-letta-server.txt
	$(PYTHON) -m venv $(LETTA_VENV)
	$(LETTA_VENV)/bin/pip install --quiet --upgrade pip
	$(LETTA_VENV)/bin/pip install --quiet -c constraints.txt -c constraints-letta-server.txt "letta[sqlite,server]==0.11.7" asyncpg
	touch $@

letta-venv: $(LETTA_VENV)/bin/letta

# The plugin's own tests.
test: setup letta-venv
	$(BIN)/pytest -n 2
