"""Plain-text presentation of games (replays, score tables)."""
