"""The camera pipeline into the game: rendered stills (dictionary-inferred blank, a turn without
tiles), the real photographed German game, and (with the readers scripted) how the word list
and the tiles left settle or question the letters read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import Profile
from pipeline import Pipeline, RecordAnswers
from pipeline.reading import PLAUSIBLE_RANK
from pipeline.several_moves import SeveralMovesSteps
from scorer.game import EventKind, Game
from scorer.lexicon import Lexicon
from scorer.squares import Square
from scorer.tiles import TileSet
from sim.render import RenderConfig, render_board
from tracker import MoveCommitted, TilesAdded, TilesRemoved
from vision.glyphs import GLYPH_PX, Glyph
from vision.letters import LetterGuess, features
from vision.sources import open_source

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
CALIBRATION = (
    ["." * 15] * 2 + ["..ABCDEFGHIJK.."] + ["." * 15] * 3 + ["..LMNOPQRSTUV.."]
    + ["." * 15] * 3 + ["..WXYZEAIONRT.."] + ["." * 15] * 4
)
ZEBRA = ["." * 15] * 7 + ["...ZEBRa......."] + ["." * 15] * 7


def camera() -> RenderConfig:
    return replace(RenderConfig.random(11, max_tilt=10), hand=False, motion_blur=0.0,
                   board_scale=0.9, board_offset=(0.0, 0.0), rotation=1.0, glare=0.0,
                   noise=2.0, defocus=0.4)


@pytest.fixture(scope="module")
def rendered_profile() -> Profile:
    profile = Profile(tileset="en")
    profile.extend(render_board(CALIBRATION, seed=11, config=camera()).image, CALIBRATION)
    return profile


def still(rows: list[str], seed: int) -> tuple[float, object]:
    return float(seed), render_board(rows, seed=11, config=replace(camera(), scene_seed=seed)
                                     ).image


def test_blank_inferred_from_the_dictionary_and_a_repeat_is_a_pass(rendered_profile):
    pipeline = Pipeline(["ann", "ben"], profile=rendered_profile, lexicon=Lexicon.default(),
                        stills=True)
    first = pipeline.feed(*still(ZEBRA, 1))
    assert len(first) == 1
    move = first[0]
    assert (move.kind, move.position, move.word) == ("play", "8D", "ZEBRa")
    expected = Game(["ann", "ben"]).place(
        {Square(7, 3 + i): t for i, t in enumerate("ZEBRa")}).score
    assert move.score == expected and move.totals == {"ann": expected, "ben": 0}
    assert any("blank on H8 is A" in note for note in move.notes), move.notes
    assert not move.unconfirmed and not pipeline.pending
    again = pipeline.feed(*still(ZEBRA, 2))
    assert [r.kind for r in again] == ["pass"] and again[0].unconfirmed
    assert again[0].questions[0].kind == "no_placement"
    # The confirmed move taught the profile the new tiles.
    assert rendered_profile.counts().get("Z", 0) >= 2


def test_a_photo_after_the_game_ended_showing_nothing_new_is_no_turn(rendered_profile):
    # (It was asked as a pass and recorded as one, which the ended game refused: a crash.)
    pipeline = Pipeline(["ann", "ben"], profile=rendered_profile, lexicon=Lexicon.default(),
                        stills=True)
    pipeline.feed(*still(ZEBRA, 1))
    pipeline.game.end_by_agreement()
    events = len(pipeline.game.events)
    assert pipeline.feed(*still(ZEBRA, 2)) == []
    assert pipeline.finish(3.0) == [] and len(pipeline.game.events) == events


def test_held_question_waits_for_the_players(rendered_profile):
    pipeline = Pipeline(["ann", "ben"], profile=rendered_profile, lexicon=None, stills=True,
                        hold=True)
    assert pipeline.feed(*still(ZEBRA, 3)) == []  # no dictionary: the blank is asked
    [question] = pipeline.pending
    assert question.kind == "blank" and question.square == Square(7, 7)
    assert pipeline.game.events == []  # nothing scored while the question is open
    assert pipeline.state()["pending"][0]["square"] == "H8"
    [report] = pipeline.answer(question.id, "a")
    assert report.word == "ZEBRa" and report.questions[0].answered_by == "players"
    state = pipeline.state()
    assert state["pending"] == [] and state["moves"][0]["word"] == "ZEBRa"
    assert state["scores"] == {"ann": report.score, "ben": 0}


def _known_boards() -> dict[int, list[str]]:
    text = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    boards = {}
    for section in text.split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = [line.strip() for line in lines[1:16]]
    return boards


def test_real_game_as_stills_with_the_record_answering():
    if not GAME.is_dir():
        pytest.skip(f"the photographed game is not at {GAME}")
    boards = _known_boards()
    profile = Profile(tileset="de")
    profile.extend(cv2.imread(str(GAME / "image-27.jpg")), boards[27])
    answers = RecordAnswers(GAME / "nu19_stefan-hanns.gcg", lettered_rows=True, tileset="de")
    pipeline = Pipeline(["Stefan", "Hanns"], profile=profile, tileset="de", stills=True,
                        answers=answers)
    reports = pipeline.run(open_source(str(GAME)))
    assert len(reports) == 27
    kinds = [r.kind for r in reports]
    assert kinds[14] == "exchange" and kinds.count("play") == 26
    recorded = [e.score for e in answers.result.record.events if e.kind != "end_points"]
    scores = [r.score for r in reports]
    assert scores[:24] == recorded[:24] and scores[25:] == recorded[25:27]
    assert scores[24] == 22 and recorded[24] == 32  # the record's known error
    assert pipeline.game.scores == [377, 374]
    # Every placement's squares and letters as the record has them.
    for report in reports:
        truth = answers.placement(report.turn)
        if truth is not None:
            assert dict(report.event.play.placement.tiles) == truth, report.turn
    # Both blanks were asked (no German word list) and answered from the record.
    blanks = [q for q in pipeline.questions if q.kind == "blank"]
    assert [(q.turn, q.answer) for q in blanks] == [(23, "e"), (24, "s")]
    assert all(q.answered_by == "record" for q in pipeline.questions)
    assert [e.kind for e in pipeline.game.events].count(EventKind.EXCHANGE) == 1


# ------------------------------------------------------------------ letters settled by the words
#
# The camera's part is scripted: the tracker reports the squares a move settled on, and the
# readers read each square as the script says (the classifier's letter and confidence, and
# Tesseract's letter when it is asked for a second reading).  Everything after that (inference,
# questions, the word list, the tiles left, the game) is the pipeline's own.


class ScriptedTracker:
    """Stands in for :class:`tracker.Tracker`: each frame fed returns the events
    queued for it."""

    def __init__(self) -> None:
        self.queued: list[object] = []
        self.counters: dict[str, int] = {}
        self.provisional_squares: list[tuple[int, int]] = []
        self.orientation = 0
        self.boards: list[list[str]] = []

    def update(self, time: float, frame: object) -> list[object]:
        out, self.queued = self.queued, []
        return out

    def finish(self, time: float) -> list[object]:
        return self.update(time, None)

    def confirm_board(self, rows: list[str]) -> None:
        self.boards.append(list(rows))

    def refit_occupancy(self, base: object = ()) -> bool:
        return False


class Readers:
    """The letters the readers see: ``first[square] = (letter, confidence)`` for the
    classifier, ``second[square]`` for Tesseract (where not given, it reads what the classifier
    read); each glyph carries its square in its ink so that a reading can be told apart."""

    def __init__(self) -> None:
        self.first: dict[Square, tuple[str, float]] = {}
        self.second: dict[Square, str] = {}
        self.second_calls = 0
        #: what the glyph on a square looks like (see :func:`looks`), where it matters
        self.looks: dict[Square, np.ndarray] = {}
        #: squares whose tile shows its point value in the lower right corner
        self.values: set[Square] = set()

    def glyph(self, square: Square) -> Glyph:
        ink = np.array([[square.row, square.col]], np.uint8)
        shape = self.looks.get(square, np.zeros((GLYPH_PX, GLYPH_PX), np.float32))
        return Glyph(shape, ink, 0.5, (0.35, 0.35) if square in self.values else None)

    @staticmethod
    def square_of(ink: np.ndarray) -> Square:
        return Square(int(ink[0, 0]), int(ink[0, 1]))

    def read(self, inks: list[np.ndarray]) -> list[LetterGuess]:  # Tesseract
        self.second_calls += 1
        squares = [self.square_of(ink) for ink in inks]
        return [LetterGuess(self.second.get(sq) or self.first[sq][0] or "?", 0.9)
                for sq in squares]


class ScriptedFinder:
    """A glyph finder that finds the scripted glyphs (each square shows one)."""

    def __init__(self, script: Readers) -> None:
        self.script = script

    def glyphs(self, squares: list[tuple[int, int]], quarter_turns: int = 0) -> list[Glyph]:
        return [self.script.glyph(Square(r, c)) for r, c in squares]


@pytest.fixture()
def readers(monkeypatch) -> Readers:
    # Modules that take these names at their import are imported before they are patched:
    # imported while patched, they would keep the stand-ins for every later test.
    import calibration.profile  # noqa: F401
    import vision.letter_choice
    import vision.read  # noqa: F401
    import vision.rectified
    import vision.stock

    script = Readers()
    # The readers are scripted: no classifier of the stock samples ranks the letters either.
    monkeypatch.setattr(vision.stock, "stock_classifier", lambda letters: None)
    monkeypatch.setattr(vision.rectified, "rectify_with_margin",
                        lambda frame, corners: np.zeros((8, 8, 3), np.uint8))
    monkeypatch.setattr(vision.rectified, "finder_of_frame",
                        lambda frame, corners, turns, **_: ScriptedFinder(script))
    monkeypatch.setattr(vision.letter_choice, "read_letters", lambda glyphs, *_, **__: (
        [LetterGuess(*script.first[script.square_of(g.ink)]) for g in glyphs], []))
    return script


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return Lexicon.default()


def scripted(readers: Readers, lexicon: Lexicon, tileset: object = "en",
             **options: object) -> Pipeline:
    pipeline = Pipeline(["ann", "ben"], lexicon=lexicon, tileset=tileset, hold=True,
                        **options)
    pipeline.tracker = ScriptedTracker()  # type: ignore[assignment]
    pipeline.orientation = 0
    pipeline.tesseract = readers  # type: ignore[assignment]
    return pipeline


def lay(pipeline: Pipeline, readers: Readers, start: str, reads: list[tuple[str, float]],
        down: bool = False, second: str = "") -> list:
    """A move laid from square ``start`` (``"D8"``) across (or down), each tile read as
    ``reads`` says; ``second``: Tesseract's letters, one per tile ("." = as the classifier)."""
    first = Square.parse(start)
    squares = [Square(first.row + i, first.col) if down else Square(first.row, first.col + i)
               for i in range(len(reads))]
    for n, (square, read) in enumerate(zip(squares, reads, strict=True)):
        readers.first[square] = read
        if second and second[n] != ".":
            readers.second[square] = second[n]
    cells = tuple((sq.row, sq.col) for sq in squares)
    pipeline.tracker.queued = [TilesAdded(1.0, cells, np.zeros((8, 8, 3), np.uint8), None),
                               MoveCommitted(2.0, cells)]
    return pipeline.feed(2.0, np.zeros((8, 8, 3), np.uint8))


def answer_all(pipeline: Pipeline, truth: dict[str, str]) -> list:
    """The players answer every question, one at a time, as they come (a letter by square
    name, or ``truth["play"]`` for what was played)."""
    reports = []
    while pipeline.pending:
        question = pipeline.pending[0]
        key = "play" if question.kind == "placement" else str(question.square)
        reports += pipeline.answer(question.id, truth[key])
    return reports


def test_every_word_is_checked_after_several_questions_in_one_turn(readers, enable):
    # LINTY: L and I read without confidence (both asked), T read as I with confidence.
    pipeline = scripted(readers, enable)
    held = lay(pipeline, readers, "D8", [("L", 0.4), ("I", 0.4), ("N", 0.95), ("I", 0.95),
                                         ("Y", 0.95)], second="...T.")
    assert held == [] and [q.square for q in pipeline.pending] == [Square.parse("D8"),
                                                                  Square.parse("E8")]
    [report] = answer_all(pipeline, {"D8": "L", "E8": "I"})
    assert (report.kind, report.word) == ("play", "LINTY")
    assert report.score == Game(["ann", "ben"]).place(
        {Square(7, 3 + i): t for i, t in enumerate("LINTY")}).score
    assert any("G8: read I, corrected to T by the dictionary" in n for n in report.notes), \
        report.notes
    # Both questions were answered and used; none was added for the corrected letter.
    assert [q.answer for q in report.questions] == ["L", "I"] and not report.unconfirmed


@pytest.mark.parametrize("second", ["...F.", "...I."])
def test_a_word_in_no_list_that_no_close_letter_mends_stands_as_laid(readers, enable, second):
    # JOKIR read with confidence, its I not shown close to an E (no classifier of the glyph,
    # Tesseract reading another letter or the same): E would make JOKER, but a real board holds
    # names, misspellings and phonies.  The game goes on with the play as laid, the word named
    # as in no list; a challenge decides.
    pipeline = scripted(readers, enable)
    [report] = lay(pipeline, readers, "D8", [(c, 0.95) for c in "JOKIR"], second=second)
    assert report.word == "JOKIR" and report.questions == [] and not pipeline.pending
    assert not report.unconfirmed
    assert "not in the word list: JOKIR (as laid; the players may challenge it)" in report.notes


def test_several_fitting_letters_and_none_close_leave_the_play_as_laid(readers, enable):
    # LINIY: LINTY and LINNY both fit, no reader proposes either: played as laid, named.
    pipeline = scripted(readers, enable)
    [report] = lay(pipeline, readers, "D8", [(c, 0.95) for c in "LINIY"])
    assert report.word == "LINIY" and report.questions == [] and not report.unconfirmed
    assert any("not in the word list: LINIY" in n for n in report.notes), report.notes


def one_i() -> TileSet:
    """The English set with a single I, so that one misread I uses them all up."""
    english = TileSet.named("en")
    return replace(english, counts={**english.counts, "I": 1})


def test_a_tile_used_up_by_an_earlier_misread_corrects_that_move(readers, enable):
    # BET read as BIT with confidence (a valid word: nothing to notice then) uses the only I.
    pipeline = scripted(readers, enable, tileset=one_i())
    [first] = lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"], second=".E.")
    assert first.word == "BIT"
    pipeline.game.pass_turn()  # entered on the page: the correction replays them too
    pipeline.game.exchange(3)
    # TI down from I8 needs the I, of which none is left: the earlier I was the misread.
    [report] = lay(pipeline, readers, "I9", [("I", 0.95)], down=True)
    assert (report.kind, report.word) == ("play", "(T)I")
    [correction] = report.corrected
    assert (correction.square, correction.turn, correction.was, correction.letter) == (
        Square.parse("H8"), 1, "I", "E")
    assert any("no I is left" in n and "corrected to E by the dictionary" in n
               for n in report.notes), report.notes
    # The game is as played: BET, the pass, the exchange, TI; the first report says so.
    expected = Game(["ann", "ben"], one_i())
    expected.place({Square(7, 6): "B", Square(7, 7): "E", Square(7, 8): "T"})
    expected.pass_turn()
    expected.exchange(3)
    expected.place({Square(8, 8): "I"})
    assert [e.kind for e in pipeline.game.events] == [e.kind for e in expected.events]
    assert pipeline.game.scores == expected.scores
    assert pipeline.game.board.rows() == expected.board.rows()
    assert first.word == "BET" and any("corrected in turn 2" in n for n in first.notes)
    assert first.event is pipeline.game.events[0]


def test_without_a_reading_to_go_by_the_players_say_which_earlier_tile_was_misread(readers,
                                                                                    enable):
    pipeline = scripted(readers, enable, tileset=one_i())
    lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"])  # Tesseract reads BIT too
    assert lay(pipeline, readers, "I9", [("I", 0.95)], down=True) == []
    [question] = pipeline.pending
    assert question.kind == "letter" and question.square == Square.parse("H8")
    assert "no I is left" in question.prompt
    assert set(question.choices) == {"A", "E", "O", "U", "I"}  # BAT BET BOT BUT, or as read
    [report] = pipeline.answer(question.id, "E")
    assert report.word == "(T)I" and pipeline.game.board[Square.parse("H8")] == "E"
    assert [c.letter for c in report.corrected] == ["E"]


def test_a_word_made_invalid_by_an_earlier_misread_corrects_that_move(readers, enable):
    # BET read as BIT with confidence; Tesseract, asked once X makes (I)X, reads E there.
    pipeline = scripted(readers, enable)
    readers.second[Square.parse("H8")] = "E"
    [first] = lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"])
    assert first.word == "BIT" and readers.second_calls == 0  # nothing to doubt yet
    [report] = lay(pipeline, readers, "H9", [("X", 0.95)], down=True)
    assert report.word == "(E)X" and report.questions == []
    assert [(c.square, c.was, c.letter) for c in report.corrected] == [
        (Square.parse("H8"), "I", "E")]
    assert first.word == "BET" and pipeline.game.scores == [10, report.score]


def test_a_blank_inferred_before_the_answers_is_solved_again_with_them(readers, enable):
    # JErKER (a blank for the R): J read as Q with confidence, the E after it without; the word
    # list makes that QUaKER, but the players say the unsure tile is an E.
    pipeline = scripted(readers, enable)
    reads = [("Q", 0.95), ("E", 0.4), ("?", 1.0), ("K", 0.95), ("E", 0.95), ("R", 0.95)]
    assert lay(pipeline, readers, "C8", reads, second="J.....") == []
    [unsure] = pipeline.pending
    assert unsure.square == Square.parse("D8") and unsure.guess == "U"
    assert pipeline.answer(unsure.id, "E") == []
    # QE?KER: no letter for the blank makes it a word; its letter is asked now ...
    [blank] = pipeline.pending
    assert blank.kind == "blank" and blank.square == Square.parse("E8")
    [report] = pipeline.answer(blank.id, "r")
    # ... and then JERKER is the one word: the Q was a misread J.
    assert report.word == "JErKER", report.notes
    assert any("C8: read Q, corrected to J by the dictionary" in n for n in report.notes)


def test_a_phony_stands_as_laid_with_its_blank_asked(readers, enable):
    # QErKER laid as a phony (to be challenged off): both readers see the Q.  What the tiles
    # are is asked (the unsure E, the blank's letter); whether the word stands is not.
    pipeline = scripted(readers, enable)
    reads = [("Q", 0.95), ("E", 0.4), ("?", 1.0), ("K", 0.95), ("E", 0.95), ("R", 0.95)]
    lay(pipeline, readers, "C8", reads, second="Q.....")
    [report] = answer_all(pipeline, {"D8": "E", "E8": "r"})
    assert report.word == "QErKER"
    assert [(q.kind, str(q.square)) for q in report.questions] == [
        ("letter", "D8"), ("blank", "E8")]
    assert any("not in the word list" in n and "may challenge" in n for n in report.notes), \
        report.notes


def looks() -> dict[str, np.ndarray]:
    """A made-up glyph for every letter of the alphabet (fixed noise)."""
    rng = np.random.default_rng(7)
    return {c: (rng.random((GLYPH_PX, GLYPH_PX)) > 0.6).astype(np.float32)
            for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def likeliest(glyph: np.ndarray, samples: dict[str, np.ndarray]) -> list[str]:
    """Letters by their sample's likeness to ``glyph``, as the classifier's features see it."""
    mine = features(glyph[None])[0]
    return sorted(samples, key=lambda c: -float(features(samples[c][None])[0] @ mine))


@pytest.mark.parametrize("look, word", [("I", "JOKIR"), ("E", "JOKER")])
def test_a_confident_reading_is_changed_only_to_a_letter_the_glyph_could_be(readers, enable,
                                                                             look, word):
    # G8 read as I with confidence; Tesseract reads E there, and JOKER is a word.  When the
    # glyph looks like the I the classifier has learnt (and nothing like its E), the play
    # stands as laid (a phony, for a challenge); when it looks like the E, the dictionary
    # corrects it.
    shapes = looks()
    assert "E" not in likeliest(shapes["I"], shapes)[:PLAUSIBLE_RANK]  # as this test needs
    profile = Profile(tileset="en")
    profile.add_samples(np.stack(list(shapes.values())), list(shapes))
    pipeline = scripted(readers, enable, profile=profile, learn=False)
    readers.looks[Square.parse("G8")] = shapes[look]
    reports = lay(pipeline, readers, "D8", [(c, 0.95) for c in "JOKIR"], second="...E.")
    if word == "JOKER":
        assert [r.word for r in reports] == ["JOKER"] and not pipeline.questions
        return
    [report] = reports
    assert report.word == "JOKIR" and not pipeline.questions
    assert any("not in the word list: JOKIR" in n for n in report.notes), report.notes


def learnt(readers: Readers, enable: Lexicon) -> tuple[Pipeline, dict[str, np.ndarray]]:
    """A scripted pipeline whose classifier has learnt one made-up glyph per letter."""
    shapes = looks()
    profile = Profile(tileset="en")
    profile.add_samples(np.stack(list(shapes.values())), list(shapes))
    return scripted(readers, enable, profile=profile, learn=False), shapes


@pytest.mark.parametrize("shows_value", [True, False])
def test_an_unsure_letter_stands_where_no_letter_like_its_glyph_fits(readers, enable,
                                                                     shows_value):
    # BIT with its I read without confidence: BAT, BET, BOT and BUT are words too, but the
    # glyph is the I the classifier learnt and like none of them, so the word list has nothing
    # to choose between: the I stands.  A tile showing its point value is no blank; a bare one
    # might be a blank with a mark, so that alone is asked.
    pipeline, shapes = learnt(readers, enable)
    square = Square.parse("H8")
    readers.looks[square] = shapes["I"]
    if shows_value:
        readers.values.add(square)
    reports = lay(pipeline, readers, "G8", [("B", 0.95), ("I", 0.4), ("T", 0.95)])
    if shows_value:
        [report] = reports
        assert report.word == "BIT" and not pipeline.questions
        assert any("kept as read" in n and "H8 I" in n for n in report.notes), report.notes
        return
    [question] = pipeline.pending
    assert question.kind == "letter" and question.square == square
    assert question.choices == ["I", "i"]


def test_an_unsure_letter_is_asked_where_a_letter_like_its_glyph_fits_too(readers, enable):
    # The glyph is a shade more the learnt A than the learnt I (read as I all the same): BAT
    # and BIT are both words and the glyph leaves both close, so the players say which.
    pipeline, shapes = learnt(readers, enable)
    square = Square.parse("H8")
    readers.looks[square] = 0.45 * shapes["I"] + 0.55 * shapes["A"]
    readers.values.add(square)
    assert lay(pipeline, readers, "G8", [("B", 0.95), ("I", 0.4), ("T", 0.95)]) == []
    [question] = pipeline.pending
    assert question.kind == "letter" and question.square == square
    assert "without confidence" in question.prompt


def test_a_correction_of_an_earlier_move_reaches_the_page(readers, enable, tmp_path):
    # BET read as BIT and sent to the page; the next turn shows the I was an E: the page must
    # hold BET and (E)X with the pipeline's scores, not BIT and a refused or wrong (I)X.
    from tilecam.live import PageLink
    from webui import STORE_KEY, create_app

    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    client = app.test_client()
    created = client.post("/api/games", json={"players": ["ann", "ben"], "pin": "2468"})
    game_id = created.json["id"]
    pipeline = scripted(readers, enable)
    link = PageLink(app, game_id, "2468", pipeline)
    readers.second[Square.parse("H8")] = "E"
    link.send(lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"]))
    page = app.extensions[STORE_KEY].live(game_id).game
    assert page.board.rows()[7][6:9] == "BIT"
    [report] = lay(pipeline, readers, "H9", [("X", 0.95)], down=True)
    assert [c.letter for c in report.corrected] == ["E"]
    link.send([report])
    assert link.refused == []
    page = app.extensions[STORE_KEY].live(game_id).game
    assert page.board.rows() == pipeline.game.board.rows()
    assert page.board.rows()[7][6:9] == "BET" and page.board.rows()[8][7] == "X"
    assert page.scores == pipeline.game.scores == [10, report.score]
    assert len(pipeline.game.events) == len(page.events) == 2
    app.extensions[STORE_KEY].close()


def test_a_play_of_tiles_that_were_none_is_taken_back_on_the_page(readers, enable, tmp_path):
    # BET, then a faceless "tile" beside its T (a finger, taken for a blank: BETs).  The next
    # photo shows that square empty: it never held a tile, and its play is taken back, on
    # the page too; the next play is the same player's turn again.
    from tilecam.live import PageLink
    from webui import STORE_KEY, create_app

    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    created = app.test_client().post("/api/games", json={"players": ["ann", "ben"],
                                                         "pin": "2468"})
    pipeline = scripted(readers, enable)
    link = PageLink(app, created.json["id"], "2468", pipeline)

    def page() -> Game:
        return app.extensions[STORE_KEY].live(created.json["id"]).game

    link.send(lay(pipeline, readers, "G8", [(c, 0.95) for c in "BET"]))
    assert lay(pipeline, readers, "J8", [("?", 0.0)]) == []  # its blank's letter asked
    [question] = pipeline.pending
    link.send(pipeline.answer(question.id, "s"))
    assert page().board.rows()[7][6:10] == "BETs" and len(page().events) == 2
    finger = Square.parse("J8")
    pipeline.tracker.queued = [TilesRemoved(3.0, ((finger.row, finger.col),), misread=True)]
    reports = pipeline.feed(3.0, np.zeros((8, 8, 3), np.uint8))
    assert [(r.kind, r.turn, r.player) for r in reports] == [("undone", 2, "ben")]
    assert "J8, taken for tiles in the photo before, are empty" in reports[0].notes[0]
    link.send(reports)
    assert link.refused == []
    assert page().board.rows() == pipeline.game.board.rows()
    assert page().board.rows()[7][6:10] == "BET."
    assert len(page().events) == len(pipeline.game.events) == 1
    assert [r.turn for r in pipeline.reports] == [1]
    [again] = lay(pipeline, readers, "H9", [(c, 0.95) for c in "AX"], down=True)
    assert (again.turn, again.player, again.word) == (2, "ben", "(E)AX")
    link.send([again])
    assert page().scores == pipeline.game.scores
    app.extensions[STORE_KEY].close()


def test_without_a_word_list_the_tile_count_still_finds_an_earlier_misread(readers):
    # No word list (a language without one): BET read as BIT uses the only I; a later play
    # needing an I shows that an earlier I was misread.  Tesseract reads H8 as E: corrected.
    pipeline = scripted(readers, None, tileset=one_i())  # type: ignore[arg-type]
    readers.second[Square.parse("H8")] = "E"
    [first] = lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"])
    assert first.word == "BIT"  # read with confidence: Tesseract not asked
    [report] = lay(pipeline, readers, "I9", [("I", 0.95)], down=True)
    assert report.word == "(T)I" and report.questions == []
    assert [(c.square, c.was, c.letter) for c in report.corrected] == [
        (Square.parse("H8"), "I", "E")]
    assert any("corrected to E by the tile count" in n for n in report.notes), report.notes
    assert first.word == "BET" and pipeline.game.board[Square.parse("H8")] == "E"


def test_without_a_word_list_the_players_say_which_earlier_tile_was_misread(readers):
    pipeline = scripted(readers, None, tileset=one_i())  # type: ignore[arg-type]
    lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"])  # Tesseract reads BIT too
    assert lay(pipeline, readers, "I9", [("I", 0.95)], down=True) == []
    [question] = pipeline.pending
    assert question.kind == "letter" and question.square == Square.parse("H8")
    assert "no I is left" in question.prompt and question.choices[-1] == "I"
    [report] = pipeline.answer(question.id, "E")
    assert report.word == "(T)I" and pipeline.game.board[Square.parse("H8")] == "E"
    assert pipeline.game.scores == [10, report.score]


def test_an_earlier_tile_confirmed_leaves_this_plays_own_tile_asked(readers):
    # As above, but the players confirm H8's I: this play's own I is then the misread (no I
    # is left for it), and is asked about too.  It stood as read, a tile nobody has.
    pipeline = scripted(readers, None, tileset=one_i())  # type: ignore[arg-type]
    lay(pipeline, readers, "G8", [(c, 0.95) for c in "BIT"])
    assert lay(pipeline, readers, "I9", [("I", 0.95)], down=True) == []
    [earlier] = pipeline.pending
    assert earlier.square == Square.parse("H8")
    assert pipeline.answer(earlier.id, "I") == []
    [own] = pipeline.pending
    assert own.kind == "letter" and own.square == Square.parse("I9")
    assert "H8 confirmed as I" in own.prompt and own.choices[-1] == "I", own.prompt
    [report] = pipeline.answer(own.id, "E")
    assert report.word == "(T)E" and report.corrected == []
    assert pipeline.game.board[Square.parse("H8")] == "I"
    assert pipeline.game.board[Square.parse("I9")] == "E"


def test_a_confirmed_move_is_learnt_off_the_frame_loop(rendered_profile, monkeypatch):
    # Each tile is learnt under many blurs (about a tenth of a second a move): a thread of its
    # own does it, and the next read waits for it.
    import copy
    import threading

    profile = copy.deepcopy(rendered_profile)
    zs_before = profile.labels.count("Z")
    threads: list[str] = []
    learn = Profile.extend_from_squares

    def spied(self, *args, **kwargs):
        threads.append(threading.current_thread().name)
        return learn(self, *args, **kwargs)

    monkeypatch.setattr(Profile, "extend_from_squares", spied)
    pipeline = Pipeline(["ann", "ben"], profile=profile, lexicon=Lexicon.default(), stills=True)
    [move] = pipeline.feed(*still(ZEBRA, 1))
    assert move.word == "ZEBRa"
    pipeline.finish_learning()
    assert threads and all(name.startswith("tilecam-learn") for name in threads), threads
    assert profile.labels.count("Z") > zs_before
    assert Square(7, 3) in pipeline._learnt  # kept to rename if the Z proves misread


def test_a_letter_corrected_on_the_page_is_renamed_in_the_profile(rendered_profile, tmp_path):
    # ZEBRa confirmed and learnt; the players then correct the Z on the page (say it was an
    # S): the samples learnt from that tile are an S's now.
    import copy

    from tilecam.live import PageLink
    from webui import STORE_KEY, create_app

    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    created = app.test_client().post("/api/games", json={"players": ["ann", "ben"],
                                                         "pin": "2468"})
    profile = copy.deepcopy(rendered_profile)
    pipeline = Pipeline(["ann", "ben"], profile=profile, lexicon=Lexicon.default(), stills=True)
    link = PageLink(app, created.json["id"], "2468", pipeline)
    link.send(pipeline.feed(*still(ZEBRA, 1)))
    pipeline.finish_learning()
    tile = pipeline._learnt[Square.parse("D8")]

    def labels_of_the_tile() -> set[str]:
        return {label for glyph, label in zip(profile.glyphs, profile.labels, strict=True)
                if any(np.array_equal(glyph, sample) for sample in tile)}

    assert labels_of_the_tile() == {"Z"}
    link.post("correct", {"square": "D8", "letter": "S"})  # as the page's correction does
    link.poll()
    assert pipeline.game.board[Square.parse("D8")] == "S"
    assert labels_of_the_tile() == {"S"}
    app.extensions[STORE_KEY].close()


def test_a_refused_placement_names_its_squares_as_the_game_does(readers, enable):
    # A lettered-rows game (row letter first: G8 of the standard naming is H7): the question
    # and the rules' reason beside it name the squares the same way.
    pipeline = scripted(readers, enable, lettered_rows=True)
    squares = [Square.parse("D8"), Square.parse("F10")]
    for square in squares:
        readers.first[square] = ("A", 0.95)
    cells = tuple((sq.row, sq.col) for sq in squares)
    pipeline.tracker.queued = [TilesAdded(1.0, cells, np.zeros((8, 8, 3), np.uint8), None),
                               MoveCommitted(2.0, cells)]
    assert pipeline.feed(2.0, np.zeros((8, 8, 3), np.uint8)) == []
    [question] = pipeline.pending
    assert question.kind == "placement"
    assert "(H4:A J6:A)" in question.prompt, question.prompt
    assert "one row or one column: H4, J6" in question.prompt, question.prompt
    assert "D8" not in question.prompt and "F10" not in question.prompt


class _FacesOfAnotherColour(SeveralMovesSteps):
    """The several-moves steps with the squares of another colour than the tiles' faces
    given, as a photo's reading would find them."""

    def __init__(self, unlike: set[Square]) -> None:
        self.unlike = unlike

    def _unlike_a_tile(self, square: Square) -> bool:
        return square in self.unlike


def test_faces_without_a_letter_touching_one_of_another_colour_go_with_it():
    """A finger over three empty squares apart from the move, one of them of skin's colour,
    two cream-ish: all three are set aside together (set aside alone, the other two were
    split off the move as blanks played alone).  A face without a letter touching the move's
    letters may be a blank of the move: it stays, even beside a pen; and one touching no such
    face stays likewise."""
    finger = [Square(14, 7), Square(14, 8), Square(13, 9)]
    move = [Square(4, 2), Square(4, 3), Square(4, 4)]
    steps = _FacesOfAnotherColour({Square(14, 7)})
    assert steps._unlike_groups([*finger, Square(9, 9)], move) == finger
    pen, blank = Square(1, 5), Square(0, 6)
    steps = _FacesOfAnotherColour({pen})
    assert steps._unlike_groups([pen, blank], [Square(0, 7), Square(0, 8)]) == [pen]
    assert _FacesOfAnotherColour(set())._unlike_groups(finger, move) == []
