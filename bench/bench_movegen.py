"""Benchmark of the move generator: word-graph build, plays per second, games per second.

Run as ``python bench/bench_movegen.py`` (``--quick`` for fewer runs).  The process is pinned to
one core where the platform allows it.  Protocol:

* build: :meth:`WordGraph.build` from the bundled ENABLE list (loaded beforehand), median of
  several runs; its memory is measured once more under ``tracemalloc`` (retained after the
  build, and the peak during it).
* plays: a mid-game board (the board of a generated game once it holds 40 or more tiles) and
  racks drawn at random from the tiles not on it (so some hold blanks), plus three fixed racks.
  For each rack, the median time of :func:`generate_plays` (every play, each built into a
  ``ScoredPlay``) and of :func:`best_play` (the same search, one play built).  Plays per second
  is the number of plays over that median time; the summary divides all plays by the sum of the
  median times.
* games: :func:`generate_game` with ENABLE for consecutive seeds, timed one after the other.

Times are process CPU time unless ``--wall`` is given (see :func:`median_time`).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.board import Board  # noqa: E402
from scorer.lexicon import Lexicon  # noqa: E402
from scorer.movegen import WordGraph, best_play, generate_game, generate_plays  # noqa: E402
from scorer.tiles import TileSet, face  # noqa: E402

BOARD_SEED = 2024
RACK_SEED = 7
FIXED_RACKS = ("AEINRST", "AEIRST?", "??AEIRS")


def pin_to_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return f"pinned to core {core}"


def load() -> str:
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return "/".join(f"{x:.1f}" for x in os.getloadavg()) + " (1/5/15 min)"


def median_time(action: Callable[[], object], runs: int) -> float:
    """Median over ``runs`` of the process CPU time (or wall time with ``--wall``) of one run.

    CPU time is the default because the machine may be shared: another process on the same core
    stretches wall time but not the CPU time this process used.
    """
    times = []
    for _ in range(runs):
        start = CLOCK()
        action()
        times.append(CLOCK() - start)
    return statistics.median(times)


CLOCK: Callable[[], float] = time.process_time


def midgame_board(lex: Lexicon, min_tiles: int = 40) -> Board:
    """The board of a generated game after the first turn that leaves ``min_tiles`` on it."""
    game = generate_game(BOARD_SEED, lex)
    for turn in game.turns:
        if turn.board.tile_count >= min_tiles:
            return turn.board
    return game.board


def random_racks(board: Board, tileset: TileSet, count: int) -> list[str]:
    """Racks of seven drawn from the tiles that are not on the board (bag and opponent rack)."""
    unseen = tileset.bag() - Counter(face(t) for t in board.cells if t is not None)
    pool = sorted(unseen.elements())
    rng = random.Random(RACK_SEED)
    return ["".join(sorted(rng.sample(pool, 7))) for _ in range(count)]


def bench_build(lex: Lexicon, runs: int) -> None:
    build = median_time(lambda: WordGraph.build(lex.words), runs)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    graph = WordGraph.build(lex.words)
    after, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"build WordGraph from ENABLE ({len(graph):,} words): {build:.2f} s (median of {runs});"
        f" {graph.node_count:,} nodes, {graph.edge_count:,} edges;"
        f" memory retained {(after - before) / 2**20:.1f} MiB, peak {(peak - before) / 2**20:.1f}"
        " MiB (tracemalloc)"
    )


def bench_plays(lex: Lexicon, board: Board, racks: list[str], runs: int) -> None:
    WordGraph.cached(lex)  # built before timing
    print(f"mid-game board ({board.tile_count} tiles):")
    for row in board.rows():
        print(f"    {row}")
    print(f"{'rack':<9} {'plays':>7} {'all plays ms':>13} {'plays/s':>9} {'best ms':>9}  best play")
    total_plays = 0
    total_time = 0.0
    total_best = 0.0
    rates: list[float] = []
    for rack in racks:
        plays = generate_plays(board, rack, lex)
        took = median_time(lambda rack=rack: generate_plays(board, rack, lex), runs)
        best = median_time(lambda rack=rack: best_play(board, rack, lex), runs)
        rate = len(plays) / took
        rates.append(rate)
        total_plays += len(plays)
        total_time += took
        total_best += best
        top = plays[0].seed_notation if plays else "-"
        print(
            f"{rack:<9} {len(plays):>7} {took * 1000:>13.1f} {rate:>9,.0f} {best * 1000:>9.1f}"
            f"  {top}"
        )
    print(
        f"summary over {len(racks)} racks (median of {runs} runs each): {total_plays:,} plays in"
        f" {total_time:.2f} s = {total_plays / total_time:,.0f} plays/s with ScoredPlay objects"
        f" (median per rack {statistics.median(rates):,.0f}/s); search alone (best_play, one"
        f" play built) {total_plays / total_best:,.0f} plays/s;"
        f" mean time per rack {total_time / len(racks) * 1000:.1f} ms for all plays,"
        f" {total_best / len(racks) * 1000:.1f} ms for the best play"
    )


def bench_games(lex: Lexicon, games: int) -> None:
    WordGraph.cached(lex)
    turns = 0
    times: list[float] = []
    for seed in range(1, games + 1):
        start = CLOCK()
        game = generate_game(seed, lex)
        times.append(CLOCK() - start)
        turns += len(game.turns)
    total = sum(times)
    print(
        f"generate_game with ENABLE, seeds 1..{games}: {games / total:.2f} games/s"
        f" ({total / games:.2f} s per game, median {statistics.median(times):.2f} s,"
        f" slowest {max(times):.2f} s; {turns / games:.1f} turns per game,"
        f" {turns / total:.0f} turns/s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, racks and games")
    parser.add_argument("--wall", action="store_true", help="time by wall clock, not CPU time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    build_runs, runs, rack_count, games = (1, 3, 6, 3) if args.quick else (5, 5, 20, 20)

    clock = "wall-clock time" if args.wall else "process CPU time"
    print(f"Python {sys.version.split()[0]}, {pin_to_one_core()}, {clock}, load {load()}")
    lex = Lexicon.default()
    tileset = TileSet.named("en")
    bench_build(lex, build_runs)
    board = midgame_board(lex)
    racks = list(FIXED_RACKS) + random_racks(board, tileset, rack_count)
    bench_plays(lex, board, racks, runs)
    bench_games(lex, games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
