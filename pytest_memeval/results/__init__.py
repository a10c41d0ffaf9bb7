"""The results of a run and their analysis: records and their JSON form, usage and prices,
fingerprints, and what the controller computes from records (comparisons, gates,
baselines, flakiness, clusters, judge sensitivity, the session's report). Rendering them
is `pytest_memeval.rendering`'s concern.
"""
