"""Running games: seeded randomness, the random player, batch simulation."""
