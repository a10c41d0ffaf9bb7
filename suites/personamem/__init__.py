"""PersonaMem (Jiang et al., COLM 2025): personalised answers from a user's long history."""
