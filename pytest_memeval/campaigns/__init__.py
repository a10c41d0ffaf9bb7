"""Runs that span processes or machines: the controller's campaign and journal (resume),
--memeval-shard and merging shard reports, and the estimate of a run's calls before it
starts.
"""
