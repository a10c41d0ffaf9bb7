"""HaluMem (Chen et al. 2025): the released files as shipped, its three stages scored by its official rules."""
