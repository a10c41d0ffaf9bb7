"""Files that several processes share: replaced atomically (reports) or written under
SQLite's WAL journal (the call cache, the embedding cache).
"""
