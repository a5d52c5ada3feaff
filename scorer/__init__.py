"""The rules of the game, without I/O: tile sets, squares, placement and scoring, the game with
every event, word lists, GCG records and a move generator."""
