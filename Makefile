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
# the offline reader, smoke size, two workers. Exit status 1 means that some items were
# answered wrongly, which is what the benchmark measures (it is in the summary and the
# reports); any other failure (usage, collection, an interrupted run) fails the job.
main: setup
	$(BIN)/pytest --memsystem=chroma -n 2 --memeval-report=memeval-report.json --memeval-html=memeval-report.html \
		|| [ $$? -eq 1 ]

# The plugin's own tests.
test: setup
	$(BIN)/pytest -n 2
