"""The bundled suites; installed as pytest_memeval.suites.

Each subpackage (multisource, memfail, knowme, behavior, bayes, locomo, longmemeval,
personamem, halumem,
beam)
implements one, on the framework's contract (`pytest_memeval.framework`); the test_*.py
modules beside them are what pytest collects for a run of the bundled suites.
"""
