"""Rendering results for people: the terminal summary, the self-contained HTML page (its
tables, the item explorer and its script), SVG figures, and the progress line.
"""
