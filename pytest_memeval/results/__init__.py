"""The typed records of a run and their JSON form, the report schema: a record per item,
metrics with their intervals, run summaries, comparisons, usage, fingerprints; reading a
report (a baseline too) back. What the controller computes from them is
`pytest_memeval.analysis`'s concern, rendering them `pytest_memeval.rendering`'s.
"""
