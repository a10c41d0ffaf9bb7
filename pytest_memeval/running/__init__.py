"""Running an item and the session's machinery: collection into parametrized items,
scheduling on xdist workers, fixtures, the runner (fill, retrieve, answer, judge, record),
prefetching, the guard around adapter calls, crashes and the process's exit.
"""
