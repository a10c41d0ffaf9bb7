# Two entry points, both work on a fresh machine: `make main` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: main test setup

$(BIN)/pytest: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e ".[all]"
	touch $@

setup: $(BIN)/pytest

# The main job: the bundled suites on embedded chroma with the local MiniLM embedder and
# the offline reader, smoke size, two workers.
main: setup
	$(BIN)/pytest --memsystem=chroma -n 2 --memeval-report=memeval-report.json

# The plugin's own tests.
test: setup
	$(BIN)/pytest -n 2
