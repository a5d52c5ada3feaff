"""Benchmark of the word list: loading ENABLE, lookups per second, blank solving.

Run as ``python bench/bench_lexicon.py``.  The process is pinned to one core where the platform
allows it.  Each figure is the median of several runs; the ratio to target is >= 1 when the target
is met (for times, target / measured; for rates, measured / target).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.lexicon import Lexicon  # noqa: E402

LOAD_RUNS = 7
LOAD_TARGET_S = 0.5
LOOKUP_RUNS = 5
LOOKUPS = 1_000_000
LOOKUP_TARGET_PER_S = 1_000_000
BLANK_RUNS = 21
AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def pin_to_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return f"pinned to core {core}"


def median_time(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def lookup_queries(lex: Lexicon, count: int, rng: random.Random) -> list[str]:
    """Half hits (words in lower, upper and mixed case), half misses (a word with one letter
    changed, or a word with a letter appended), shuffled."""
    words = sorted(lex.words)
    queries: list[str] = []
    while len(queries) < count:
        word = rng.choice(words)
        kind = rng.randrange(4)
        if kind == 0:
            queries.append(word.lower())
        elif kind == 1:
            queries.append(word.capitalize())
        else:
            miss = word + rng.choice("QXZJ") if kind == 2 else "Q" + word[1:] + "Q"
            queries.append(miss.lower())
    rng.shuffle(queries)
    return queries


def bench_lookups(lex: Lexicon, queries: list[str]) -> tuple[float, float, float]:
    """Median lookups per second for ``in`` and ``is_valid``, and the hit fraction."""

    def with_in() -> int:
        hits = 0
        for word in queries:
            if word in lex:
                hits += 1
        return hits

    def with_is_valid() -> int:
        is_valid = lex.is_valid
        hits = 0
        for word in queries:
            if is_valid(word):
                hits += 1
        return hits

    hit_fraction = with_in() / len(queries)
    rate_in = len(queries) / median_time(with_in, LOOKUP_RUNS)
    rate_is_valid = len(queries) / median_time(with_is_valid, LOOKUP_RUNS)
    return rate_in, rate_is_valid, hit_fraction


def main() -> int:
    print(f"Python {sys.version.split()[0]}, {pin_to_one_core()}")

    load = median_time(Lexicon.load_default, LOAD_RUNS)
    lex = Lexicon.default()
    print(
        f"load ENABLE ({len(lex):,} words, cold, median of {LOAD_RUNS}): {load * 1000:.1f} ms"
        f"  target < {LOAD_TARGET_S * 1000:.0f} ms  ratio {LOAD_TARGET_S / load:.1f}x"
    )

    queries = lookup_queries(lex, LOOKUPS, random.Random(20240501))
    rate_in, rate_is_valid, hits = bench_lookups(lex, queries)
    for label, rate in (("word in lex", rate_in), ("lex.is_valid(word)", rate_is_valid)):
        print(
            f"lookups, {label} ({LOOKUPS:,} queries, {hits:.0%} hits, median of {LOOKUP_RUNS}):"
            f" {rate / 1e6:.2f} M/s  target >= {LOOKUP_TARGET_PER_S / 1e6:.0f} M/s"
            f"  ratio {rate / LOOKUP_TARGET_PER_S:.1f}x"
        )

    cases: list[tuple[str, list[list[str | int]]]] = [
        ("1 blank, main word + cross word (Q?T / ?N)", [["Q", 0, "T"], [0, "N"]]),
        ("1 blank, 7-letter word (RE?AINS)", [["R", "E", 0, "A", "I", "N", "S"]]),
        ("2 blanks in one word (?ET?ING)", [[0, "E", "T", 1, "I", "N", "G"]]),
        (
            "2 blanks, each in a cross word (S??RE / ?A / ?O)",
            [["S", 0, 1, "R", "E"], [0, "A"], [1, "O"]],
        ),
        ("2 blanks, two-letter word (??)", [[0, 1]]),
    ]
    for label, words in cases:
        solutions = lex.blank_solutions(words, AZ)
        took = median_time(lambda words=words: lex.blank_solutions(words, AZ), BLANK_RUNS)
        print(
            f"blank solve, {label}: {took * 1e6:.0f} us (median of {BLANK_RUNS}),"
            f" {len(solutions)} solution(s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
