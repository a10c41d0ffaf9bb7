"""What the controller computes from the records once per session: each run's summary,
paired comparisons and their Holm family, gates, flakiness, judge sensitivity, partial-run
labels, usage totals and costs, whether two runs ran one protocol, and the session's report
built from them (rendering/ writes it for people).
"""
