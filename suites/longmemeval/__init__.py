"""LongMemEval (Wu et al., ICLR 2025): the released files as shipped, the official judge and metrics."""
