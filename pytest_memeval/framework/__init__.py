"""The framework's contract for suites, beside protocols.py: what a suite implements
(`Suite` and its four roles, suite.py), what it hands back (figures.py: figures as plain
specs), and what every suite's loaders, readers and summaries share (data_files.py,
memory_text.py, unreadable.py, canonical.py). The bundled suites (pytest_memeval.suites)
are built on it, as a third party's are.
"""
