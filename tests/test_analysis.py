"""Post-game analysis (scorer.analysis): what each play could have been.

- the analysis against an independent brute force on small positions: every placement of a few
  tiles on a board with few tiles, scored with scorer.rules directly;
- what counts as a known rack, withdrawn plays, bingos missed, ties, summaries, the next turn;
- a greedy generated game, whose every play was the best: nothing left on the table;
- every play of the clean English records of ../shared analysed, every suggestion a legal play
  of words in the list, scored as the rules score it (skipped, with the reason, without it).
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from scorer.analysis import (
    GameAnalysis,
    PlayAnalysis,
    analyse_game,
    known_rack,
    rack_options,
)
from scorer.board import Board
from scorer.game import EventKind, Game
from scorer.gcg import load_gcg, read_gcg, replay
from scorer.lexicon import Lexicon
from scorer.movegen import generate_game, generate_plays
from scorer.rules import IllegalPlay, Placement, score_play
from scorer.squares import SIZE, Square
from scorer.tiles import BLANK, TileSet

EN = TileSet.named("en")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GCG_DIR = SHARED / "data" / "gcg"
MANIFEST = GCG_DIR / "MANIFEST.csv"
NO_SHARED = "the shared GCG corpus (../shared/data/gcg/MANIFEST.csv) is not beside the repository"

#: Positions the brute force checks, in each of its two tests (200 together at least).
GAMES_CHECKED = 45
RACKS_CHECKED = 110


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return Lexicon.default()


# -- the reference: every placement, scored by the rules ------------------------------------------


def covered_squares(board: Board, most: int, exactly: bool) -> set[tuple[Square, ...]]:
    """Every choice of empty squares a play of up to ``most`` tiles (exactly ``most`` when
    ``exactly``) could cover: walking from each empty square along its row or its column and
    taking the empty squares met, in turn (tiles already there are played through)."""
    out: set[tuple[Square, ...]] = set()
    for start in range(SIZE * SIZE):
        if board.cells[start] is not None:
            continue
        for dr, dc in ((0, 1), (1, 0)):
            r, c = divmod(start, SIZE)
            taken: list[Square] = []
            while r < SIZE and c < SIZE and len(taken) < most:
                if board.get(r, c) is None:
                    taken.append(Square(r, c))
                    if not exactly or len(taken) == most:
                        out.add(tuple(taken))
                r, c = r + dr, c + dc
    return out


def brute_force_best(board: Board, tiles: str, words: Lexicon, *, exactly: bool,
                     bingo_sizes: frozenset[int] = frozenset({7})) -> int | None:
    """The best score of any legal play of ``tiles`` (all of them when ``exactly``, else any
    of them) whose every word is in ``words``; None when there is none.  Each square choice
    is checked by the rules once, with stand-in letters; then every order of the tiles on it
    and every letter for each blank, kept when its words are all valid, scored by the rules.
    """
    best: int | None = None
    for squares in covered_squares(board, len(tiles), exactly):
        try:
            shape = score_play(board, Placement.of(dict.fromkeys(squares, "E")), EN)
        except IllegalPlay:
            continue
        slot = {sq: i for i, sq in enumerate(squares)}
        # Each word formed as a list of: the index of a new tile, or the letter already there.
        spelled = [[slot.get(sq, board[sq]) for sq in w.squares] for w in shape.words]
        for order in set(itertools.permutations(tiles, len(squares))):
            blanks = [i for i, t in enumerate(order) if t == BLANK]
            for letters in itertools.product(EN.letters, repeat=len(blanks)):
                faces = list(order)
                for i, letter in zip(blanks, letters, strict=True):
                    faces[i] = letter.lower()
                if not all(
                    "".join(faces[x] if isinstance(x, int) else x for x in w).upper() in words
                    for w in spelled
                ):
                    continue
                play = score_play(board, Placement.of(dict(zip(squares, faces, strict=True))),
                                  EN, bingo_sizes)  # fmt: skip
                if best is None or play.score > best:
                    best = play.score
    return best


def draw(rng: random.Random, bag: list[str], count: int) -> str:
    return "".join(bag.pop(rng.randrange(len(bag))) for _ in range(min(count, len(bag))))


def small_board(rng: random.Random, words: Lexicon, bag: list[str], plays: int) -> Board:
    """A board with a few plays, each drawn at random among a random rack's plays."""
    board = Board()
    for _ in range(plays):
        rack = draw(rng, bag, 7)
        options = generate_plays(board, rack, words, limit=30)
        if not options:
            continue
        play = rng.choice(options)
        board.place(play.placement.as_dict())
        left = list(rack)
        for _, tile in play.placement.tiles:
            left.remove(BLANK if tile.islower() else tile)
        bag.extend(left)
    return board


def test_best_with_the_same_tiles_agrees_with_brute_force_in_small_games(enable):
    """Small games of plays laying 1 to 4 tiles (racks unknown): for every play, the best
    score with the same tiles is the brute force's."""
    checked = 0
    for seed in range(GAMES_CHECKED):
        rng = random.Random(seed)
        bag = list(EN.bag().elements())
        game = Game(["A", "B"])
        boards: dict[int, Board] = {}
        for _ in range(rng.randint(2, 4)):
            rack = draw(rng, bag, rng.randint(2, 4))
            options = generate_plays(game.board, rack, enable, limit=25)
            if not options:
                continue
            boards[len(game.events)] = game.board
            game.place(rng.choice(options).placement.as_dict())
        for p in analyse_game(game, enable).plays:
            expected = brute_force_best(boards[p.event], p.tiles, enable, exactly=True)
            assert expected is not None  # the play itself is one
            assert p.best_same_tiles is not None and p.best_same_tiles.score == expected, (
                seed, p.played.seed_notation, p.best_same_tiles, expected)
            assert p.points_left == expected - p.played_score
            checked += 1
    assert checked >= 100


def test_best_from_a_rack_and_its_bingos_agree_with_brute_force(enable):
    """Racks of 2 to 4 tiles (some with a blank) on boards of 0 to 3 plays: the best play from
    the rack, and the best bingo (here: a play of the whole rack), are the brute force's.
    (A board may hold both blanks already: the brute force does not mind a third.)"""
    checked = 0
    for seed in range(RACKS_CHECKED):
        rng = random.Random(1000 + seed)
        bag = list(EN.bag().elements())
        board = small_board(rng, enable, bag, rng.randint(0, 3))
        size = rng.randint(2, 4)
        rack = draw(rng, [t for t in bag if t != BLANK], size)
        if size <= 3 and seed % 3 == 0:
            rack = rack[1:] + BLANK  # a blank in one rack of three or fewer tiles in three
        whole = frozenset({len(rack)})
        options = rack_options(board, rack, enable, bingo_sizes=whole)
        best = brute_force_best(board, rack, enable, exactly=False, bingo_sizes=whole)
        bingo = brute_force_best(board, rack, enable, exactly=True, bingo_sizes=whole)
        assert (options.best[0].score if options.best else None) == best, (seed, rack)
        assert (options.bingos[0].score if options.bingos else None) == bingo, (seed, rack)
        assert all(p.bingo and p.tiles_used == len(rack) for p in options.bingos)
        checked += 1
    assert checked >= 100


# -- what the analysis says ----------------------------------------------------------------------


def test_a_rack_is_known_only_when_whole():
    assert known_rack("AEINRST", 7, "RAT", EN) == "AEINRST"
    assert known_rack("ART", 7, "RAT", EN) is None  # only the tiles played
    assert known_rack("?", 7, "", EN) is None
    assert known_rack("AEINRS?", 7, "RAT", EN) is None  # the rack does not hold the T
    assert known_rack("ART", 3, "RAT", EN) == "ART"  # the bag ran out: 3 tiles is the rack
    assert known_rack(None, 7, "RAT", EN) is None and known_rack("", 0, "", EN) is None


def analysed(text: str, words) -> GameAnalysis:
    return analyse_game(replay(read_gcg(text)).game, words)


HEAD = "#player1 ada Ada\n#player2 ben Ben\n"


def test_a_missed_bingo_and_the_points_left(enable):
    analysis = analysed(HEAD + ">ada: AEINRST 8G TEN +6 6\n", enable)
    (play,) = analysis.plays
    assert play.rack == "AEINRST" and play.best_from_rack[0].bingo
    assert play.bingos_missed and all(b.bingo for b in play.bingos_missed)
    assert play.points_left == play.best_from_rack[0].score - 6
    assert play.best_same_tiles.score >= 6
    summary = analysis.summaries[0]
    assert (summary.bingos_missed, summary.racks_known, summary.best_plays) == (1, 1, 0)


def test_a_bingo_played_misses_none_and_ties_show_the_play_made(enable):
    analysis = analysed(HEAD + ">ada: AEINRST 8B RETAINS +66 66\n", enable)
    (play,) = analysis.plays
    assert play.played.bingo and play.bingos_missed == () and analysis.summaries[0].bingos == 1
    # Several bingos of the rack score 66 (RETINAS, RETAINS, ...): the one played comes first.
    assert play.best_from_rack[0] is play.played and play.best_same_tiles is play.played
    assert play.points_left == 0 and len(play.best_from_rack) == 5
    assert len({p.placement for p in play.best_from_rack}) == 5


def test_a_withdrawn_phony_kept_nothing(enable):
    text = HEAD + ">ada: ADEQRTU 8D QADTU +48 48\n>ada: ADEQRTU -- -48 0\n"
    (play,) = analysed(text, enable).plays
    assert play.withdrawn and play.played_score == 0 and play.unknown_words == ("QADTU",)
    assert play.points_left == play.best_from_rack[0].score > 0
    assert play.played not in play.best_from_rack


def test_a_blank_laid_may_stand_for_another_letter(enable):
    """HOrN laid with the blank as an R: the same tiles are H, O, N and a blank, which may
    stand for any letter."""
    (play,) = analysed(HEAD + ">ada: HNO?XYZ 8E HOrN +12 12\n", enable).plays
    assert sorted(play.tiles) == sorted("HNO?")
    best = play.best_same_tiles
    assert best.score == brute_force_best(Board(), "HNO?", enable, exactly=True)
    assert sum(t.islower() for _, t in best.placement.tiles) == 1


def test_racks_are_followed_through_the_end_game_of_a_greedy_game(enable):
    """A generated game plays the best-scoring play every turn and writes every rack whole,
    short ones in the end game too: every rack is known and nothing is left on the table."""
    game = generate_game(11, enable)
    replayed = replay(read_gcg(game.to_gcg()))
    analysis = analyse_game(replayed.game, enable)
    plays = [t for t in game.turns if t.kind == "play"]
    assert len(analysis.plays) == len(plays)
    assert any(len(t.rack) < 7 for t in plays)  # the bag ran out before the end
    for p, turn in zip(analysis.plays, plays, strict=True):
        assert p.rack is not None, turn.describe()
        assert p.points_left == 0 and p.same_tiles_left == 0, turn.describe()
        assert p.best_from_rack[0].score == turn.score
    for s in analysis.summaries:
        assert s.racks_known == s.plays and s.points_left == 0 and s.best_plays == s.plays


def test_the_next_turn_of_an_unfinished_record(enable):
    text = HEAD + ">ada: AEHNORT 8D HORNET +26 26\n#rack2 AEINRST\n"
    analysis = analysed(text, enable)
    turn = analysis.next_turn
    assert turn is not None and turn.player == 1 and turn.rack == "AEINRST"
    assert turn.best[0].bingo and turn.bingos[0].score == turn.best[0].score
    assert analysed(HEAD + ">ada: AEHNORT 8D HORNET +26 26\n#rack1 AEINRST\n",
                    enable).next_turn is None  # not ada's turn


def test_summaries_add_up_and_everything_is_json(enable):
    game = generate_game(5, enable, choose_among=4)
    analysis = analyse_game(replay(read_gcg(game.to_gcg())).game, enable)
    for s in analysis.summaries:
        mine = [p for p in analysis.plays if p.player == s.player]
        assert s.plays == len(mine) > 0
        assert s.points_scored == sum(p.played_score for p in mine)
        assert s.points_left == sum(p.points_left for p in mine) > 0
        assert s.same_tiles_left == sum(p.same_tiles_left for p in mine)
    data = json.loads(json.dumps(analysis.to_dict()))
    assert [p["turn"] for p in data["plays"]] == [p.turn for p in analysis.plays]
    best = data["plays"][0]["best_from_rack"][0]["notation"]
    assert best == analysis.plays[0].best_from_rack[0].seed_notation


def test_an_empty_game_and_a_game_without_words():
    assert analyse_game(Game(["A", "B"]), ["AA"]).plays == ()
    game = Game(["A", "B"])
    game.play("8H", "QI", rack="IQ")
    (play,) = analyse_game(game, ["AA"]).plays
    assert play.unknown_words == ("QI",) and play.best_same_tiles is None and play.points_left == 0


# -- the shared corpus ---------------------------------------------------------------------------


def clean_english() -> list[dict[str, str]]:
    if not MANIFEST.exists():
        return []
    with MANIFEST.open(encoding="utf-8") as f:
        return [r for r in csv.DictReader(f)
                if r["replay"] == "clean" and r["language"] == "english"]  # fmt: skip


#: Clean records read with an option: one declares ISO8859-6 but is UTF-8 (see test_gcg_corpus).
READ_OPTIONS = {
    "domino14__macondo/gcgio__testdata__name_weird_encoding_with_header.gcg": {"encoding": "utf-8"},
}


def check_suggestions(analysis: PlayAnalysis, board: Board, words: Lexicon) -> None:
    """Every play the analysis suggests is legal on the board before, forms only words of the
    list, and scores what the rules give."""
    suggested = [analysis.best_same_tiles, *analysis.best_from_rack, *analysis.bingos_missed]
    for play in suggested:
        if play is None or play is analysis.played:
            continue
        rescored = score_play(board, play.placement, EN)
        assert rescored.score == play.score, play.seed_notation
        assert all(w.text in words for w in play.words), play.seed_notation
    if analysis.rack is not None:
        rack = Counter(analysis.rack)
        for play in analysis.best_from_rack:
            assert Counter(BLANK if t.islower() else t for _, t in play.placement.tiles) <= rack


@pytest.mark.skipif(not MANIFEST.exists(), reason=NO_SHARED)
def test_every_play_of_the_clean_english_records(enable):
    """Every play of every clean English record analysed (with ENABLE, whatever list the
    record was played with): one analysis per play, the best never below the play when its
    words are in the list, every suggestion legal and scored as the rules score it."""
    rows = clean_english()
    assert rows
    plays = known = 0
    for row in rows:
        name = row["file"]
        game = replay(load_gcg(GCG_DIR / name, **READ_OPTIONS.get(name, {}))).game
        analysis = analyse_game(game, enable)
        boards: dict[int, Board] = {}
        board = Board()
        for index, event in enumerate(game.events):
            if event.kind is EventKind.PLAY:
                boards[index] = board.copy()
                board.place(event.play.placement.as_dict())
            elif event.kind is EventKind.WITHDRAWN:
                board.remove(event.play.placement.squares)
        assert [p.event for p in analysis.plays] == sorted(boards), name
        for p in analysis.plays:
            where = f"{name} turn {p.turn} {p.played.seed_notation}"
            if not p.unknown_words and not p.withdrawn:
                assert p.best_same_tiles is not None and p.points_left >= 0, where
                assert p.best_same_tiles.score >= p.played_score, where
            if p.rack is not None and p.best_same_tiles is not None:
                assert p.best_from_rack[0].score >= p.best_same_tiles.score, where
            check_suggestions(p, boards[p.event], enable)
        plays += len(analysis.plays)
        known += sum(p.rack is not None for p in analysis.plays)
    assert plays > 900 and known > 700, (plays, known)
