"""The bundled suites; installed as pytest_memeval.suites.

`base` (the `Suite` base class every suite implements), `data_files` and `unreadable` are
shared by the suites; each subpackage (multisource, memfail, knowme, behavior, bayes, locomo,
longmemeval) implements one. The test_*.py modules beside them are what pytest collects
for a run of the bundled suites.
"""
