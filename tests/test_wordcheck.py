"""The word check after reading: letters that break words are mended only when one change is
cheapest of those the dictionary allows."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scorer.lexicon import Lexicon
from scorer.tiles import TileSet
from vision.read import BoardReading
from vision.wordcheck import check_reading, correct_words, words_on


def board(*placed: tuple[int, int, str]) -> list[str]:
    """An empty board with words written from (row, col) across (a ``|`` before the word
    writes it down)."""
    rows = [["."] * 15 for _ in range(15)]
    for r, c, word in placed:
        down = word.startswith("|")
        for k, letter in enumerate(word.lstrip("|")):
            rows[r + k * down][c + k * (not down)] = letter
    return ["".join(row) for row in rows]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.from_words(["CAT", "COT", "CUT", "AT", "TA", "TO", "ACT", "HAT", "HATS",
                               "OX", "AX", "EX", "ZA", "QI", "IT", "IS", "SIT", "SAT"])


def test_words_are_runs_of_two_or_more_across_and_down() -> None:
    rows = board((7, 7, "CAT"), (7, 8, "|AT"))
    assert words_on(rows) == [[(7, 7), (7, 8), (7, 9)], [(7, 8), (8, 8)]]


def test_a_misread_crossing_letter_is_mended_where_the_reader_was_unsure(
        lexicon: Lexicon) -> None:
    # HATS across, AT down from its A: the A read as O gives HOTS (not a word) and OT.  A
    # reader that ranks no alternatives (Tesseract alone) and was unsure: the words choose.
    rows = board((7, 5, "HOTS"), (8, 6, "|T"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 6] = 0.4
    fixed, changes = correct_words(rows, confidence, lexicon)
    assert fixed[7][5:9] == "HATS"
    assert changes == [((7, 6), "O", "A")]
    # Read with confidence, the O stands: HOTS is reported, not made a word.
    assert correct_words(rows, np.full((15, 15), 0.9), lexicon) == (rows, [])


def test_an_ambiguous_letter_is_left_as_read(lexicon: Lexicon) -> None:
    # CXT alone: CAT, COT and CUT all mend it, so the reading stays (and stays visible as wrong).
    rows = board((7, 6, "CXT"))
    fixed, changes = correct_words(rows, np.full((15, 15), 0.9), lexicon)
    assert fixed == rows and changes == []


def test_valid_words_are_never_touched_even_when_unsure(lexicon: Lexicon) -> None:
    rows = board((7, 6, "CAT"), (6, 7, "|TAX"))
    confidence = np.full((15, 15), 0.05)
    assert correct_words(rows, confidence, lexicon) == (rows, [])


def test_the_least_confident_letter_is_doubted_first(lexicon: Lexicon) -> None:
    # SIT read as SXT: with X the least sure, the crossing QI settles it as I (SAT has no QA).
    rows = board((7, 6, "SXT"), (6, 7, "|QX"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 7] = 0.2
    fixed, changes = correct_words(rows, confidence, lexicon)
    assert changes == [((7, 7), "X", "I")]
    assert fixed[7][6:9] == "SIT"


def test_a_misread_letter_that_is_not_the_least_sure_is_mended_by_its_lookalike() -> None:
    """BRIEF read BRTFF: its two least sure letters are the B and R, which mend nothing, and
    the I and E were read as their glyphs' first guesses T and F.  Their second guesses mend
    the word."""
    lexicon = Lexicon.from_words(["BRIEF", "BRIEFS", "REEF", "TREF"])
    rows = board((7, 3, "BRTFF"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 3], confidence[7, 4] = 0.05, 0.1
    likeliest = {(7, 3): ("B", "R", "E"), (7, 4): ("R", "K", "A"), (7, 5): ("T", "I", "L"),
                 (7, 6): ("F", "E", "T"), (7, 7): ("F", "P", "E")}
    fixed, changes = correct_words(rows, confidence, lexicon, likeliest=likeliest)
    assert fixed[7][3:8] == "BRIEF"
    assert changes == [((7, 5), "T", "I"), ((7, 6), "F", "E")]


def test_only_lookalikes_mend_and_a_sure_letter_keeps_its_first_guess() -> None:
    """XRIEF with its R and I the least sure letters (they mend nothing): BRIEF and GRIEF
    both mend it at the X; the glyph's own guesses choose, and a letter read with near
    certainty is not changed to a lesser guess."""
    lexicon = Lexicon.from_words(["BRIEF", "GRIEF"])
    rows = board((7, 3, "XRIEF"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 3], confidence[7, 4], confidence[7, 5] = 0.6, 0.1, 0.2
    # Ranked without similarities, each rank down is 0.045 less like the glyph: the second
    # guess is close enough for the words to choose it, the third is not.
    mended = {"XKB": "XRIEF", "XGB": "GRIEF", "XBG": "BRIEF", "XKY": "XRIEF"}
    for guesses, word in mended.items():
        fixed, _ = correct_words(rows, confidence, lexicon, likeliest={(7, 3): tuple(guesses)})
        assert fixed[7][3:8] == word, guesses
    confidence[7, 3] = 0.999
    assert correct_words(rows, confidence, lexicon, likeliest={(7, 3): ("X", "B", "G")}) \
        == (rows, [])
    # ... but to the glyph's likeliest letter, which another reader overruled, it is.
    fixed, _ = correct_words(rows, confidence, lexicon, likeliest={(7, 3): ("G", "X", "B")})
    assert fixed[7][3:8] == "GRIEF"


def test_letters_read_with_near_certainty_are_not_doubted(lexicon: Lexicon) -> None:
    """HATS with its A's tile missed reads H.TS: the TS is no word, but its letters were read
    for sure; changing them (to IS, a word) would add errors to the missing tile."""
    rows = board((7, 5, "H"), (7, 7, "TS"))
    confidence = np.full((15, 15), 0.995)
    assert correct_words(rows, confidence, lexicon) == (rows, [])
    confidence[7, 7] = 0.5
    assert correct_words(rows, confidence, lexicon)[0][7][7:9] == "IS"


def test_a_blank_stays_a_blank_and_leaves_its_word_free(lexicon: Lexicon) -> None:
    rows = board((7, 6, "C?T"))
    assert correct_words(rows, np.full((15, 15), 0.9), lexicon) == (rows, [])
    # A misread letter beside a blank is still mended when the blank's word allows one letter.
    rows = board((7, 5, "H?TX"), (6, 8, "|IX"))
    unsure = np.full((15, 15), 0.9)
    unsure[7, 8] = 0.4
    fixed, changes = correct_words(rows, unsure, lexicon)
    assert changes == [((7, 8), "X", "S")] and fixed[7][5:9] == "H?TS"


def test_check_reading_marks_what_it_changed(lexicon: Lexicon) -> None:
    rows = board((7, 5, "HOTS"), (8, 6, "|T"))
    reading = BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                           confidence=np.full((15, 15), 0.95), seconds=0.0,
                           sources={(7, 6): "classifier"},
                           likeliest={(7, 6): ("O", "A", "Q")},
                           likeness={(7, 6): (0.81, 0.76, 0.52)})
    checked = check_reading(reading, lexicon, TileSet.named("en"))
    assert checked.board[7][5:9] == "HATS"
    assert checked.sources[(7, 6)] == "dictionary"
    assert checked.confidence[7, 6] <= 0.5
    assert reading.board[7][5:9] == "HOTS"  # the reading it was given is unchanged


def test_a_glyph_tesseract_read_nothing_in_is_solved_but_a_blank_tile_is_not(
        lexicon: Lexicon) -> None:
    # H?TS with a T down from the ?: only HATS/AT fits.  Read by Tesseract as "?" (ink found,
    # no letter made out) it becomes A; as a blank tile (no glyph) it stays a blank.
    rows = board((7, 5, "H?TS"), (8, 6, "|T"))

    def reading(source: str) -> BoardReading:
        return BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                            confidence=np.full((15, 15), 0.95), seconds=0.0,
                            sources={(7, 6): source})

    checked = check_reading(reading("tesseract"), lexicon, TileSet.named("en"))
    assert checked.board[7][5:9] == "HATS" and checked.sources[(7, 6)] == "dictionary"
    assert check_reading(reading("blank"), lexicon, TileSet.named("en")).board == rows
    # A tile whose face a letter marks, with no glyph found in it (a motion blur's smear), is
    # unread too.
    assert check_reading(reading("unread"), lexicon, TileSet.named("en")).board[7][5:9] == "HATS"
    # Where the words allow several letters (CAT, COT, CUT) the glyph stays unread.
    rows = board((7, 6, "C?T"))
    assert check_reading(reading("tesseract"), lexicon, TileSet.named("en")).board == rows


def test_of_several_mending_letters_the_one_the_glyph_looks_like_is_chosen(
        lexicon: Lexicon) -> None:
    # CXT alone: CAT, COT and CUT all mend it; the classifier ranked the glyph X, then O,
    # then K: COT.  A ranking that names none of them leaves the reading as it was.
    rows = board((7, 6, "CXT"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 7] = 0.3
    reading = BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                           confidence=confidence, seconds=0.0,
                           sources={(7, 6): "classifier", (7, 7): "classifier",
                                    (7, 8): "classifier"},
                           likeliest={(7, 7): ("X", "O", "K")})
    checked = check_reading(reading, lexicon, TileSet.named("en"))
    assert checked.board[7][6:9] == "COT" and checked.sources[(7, 7)] == "dictionary"
    elsewhere = replace(reading, likeliest={(7, 7): ("X", "K", "Y")})
    assert check_reading(elsewhere, lexicon, TileSet.named("en")).board == rows
    # Of the mending letters close to the one read, the likeliest wins.
    assert correct_words(rows, confidence, lexicon, likeliest={(7, 7): ("X", "U", "O")})[0] \
        == board((7, 6, "CUT"))
    assert correct_words(rows, confidence, lexicon, likeliest={(7, 7): ("X", "O", "U")})[0] \
        == board((7, 6, "COT"))
    # A letter the classifier did not rank (another reader named it) has no close one.
    assert correct_words(rows, confidence, lexicon, likeliest={(7, 7): ("U", "O", "A")})[0] \
        == rows


def test_a_reading_carries_the_classifiers_likeliest_letters_and_their_likeness(
        drawn_letters: dict[str, np.ndarray]) -> None:
    from vision.glyphs import Glyph
    from vision.letter_choice import read_letters
    from vision.letters import LetterClassifier

    bar, tee, ell = drawn_letters["I"], drawn_letters["T"], drawn_letters["L"]
    classifier = LetterClassifier()
    classifier.fit(np.stack([bar, tee, ell]), ["I", "T", "L"])
    glyphs = [Glyph(shape, np.full((20, 8), 255, np.uint8), 0.5) for shape in (tee, bar)]
    guesses, _ = read_letters(glyphs, classifier, None)
    assert [g.letter for g in guesses] == ["T", "I"]
    assert [g.likeliest[0] for g in guesses] == ["T", "I"]
    assert all(sorted(g.likeliest) == ["I", "L", "T"] for g in guesses)
    # ... with how like each the glyph is: its own letter most, the others less.
    for guess in guesses:
        assert len(guess.likeness) == 3 and guess.likeness[0] > 0.99
        assert list(guess.likeness) == sorted(guess.likeness, reverse=True)


def test_a_blank_taken_for_an_empty_square_is_found_where_its_word_needs_it() -> None:
    """ENDARCH down with its C a blank that looked like an empty square: ENDAR and H are not
    words, and a blank between them makes one; the H's word across (HA) stays valid."""
    from vision.wordcheck import missed_blanks

    lexicon = Lexicon.from_words(["ENDARCH", "HA", "AN", "AH"])
    rows = board((0, 3, "|ENDAR"), (6, 3, "HA"))
    assert missed_blanks(rows, lexicon) == [(5, 3)]
    reading = BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                           confidence=np.full((15, 15), 0.95), seconds=0.0,
                           sources={(r, 3): "classifier" for r in range(5)})
    checked = check_reading(reading, lexicon, TileSet.named("en"))
    assert checked.board[5][3] == "?"
    assert checked.sources[(5, 3)] == "dictionary" and checked.confidence[5, 3] <= 0.5
    # The set's two blanks already on the board: no third one is made up.
    both = board((0, 3, "|ENDAR"), (6, 3, "HA"), (10, 0, "??"))
    assert check_reading(replace(reading, board=both), lexicon,
                         TileSet.named("en")).board == both


def test_no_blank_is_made_up_where_words_are_valid_or_either_end_would_do() -> None:
    from vision.wordcheck import missed_blanks

    lexicon = Lexicon.from_words(["CAT", "CATS", "SCAT", "DOG"])
    # Two valid words in one row with a gap: nothing is missing.
    assert missed_blanks(board((7, 2, "CAT"), (7, 6, "DOG")), lexicon) == []
    # CA and AT are no words: a blank mends each at one end only (CA? and ?AT).
    assert missed_blanks(board((7, 5, "CA")), lexicon) == [(7, 7)]
    assert missed_blanks(board((7, 6, "AT")), lexicon) == [(7, 5)]
    # CAT? and ?CAT both valid for an invalid word: settles nothing.
    lexicon = Lexicon.from_words(["CATS", "SCAT"])
    assert missed_blanks(board((7, 6, "CAT")), lexicon) == []


def test_a_blank_joining_two_pieces_into_one_word_wins_over_one_lengthening_a_piece() -> None:
    """CADENT with its E a blank that glare washed out: NT mends at either end (CAD?NT, NT?),
    but only the blank between the pieces makes one word of both."""
    from vision.wordcheck import missed_blanks

    lexicon = Lexicon.from_words(["CAD", "CADENT", "NTH"])
    assert missed_blanks(board((7, 3, "CAD"), (7, 7, "NT")), lexicon) == [(7, 6)]
    # Alone, NT still settles nothing: a blank could stand at either end.
    lexicon = Lexicon.from_words(["ANT", "NTH"])
    assert missed_blanks(board((7, 7, "NT")), lexicon) == []


def test_a_blank_between_two_pieces_is_found_before_a_letter_mends_a_piece() -> None:
    """ARGOTIC across with its O a blank read as an empty square (rendered photo 128 of seed
    15): ARG is no word, but its G read as a C makes ARC, and the letters were mended first,
    leaving ARC TIC, both words, and no blank to find.  The blank that joins the pieces into
    one word is found first."""
    lexicon = Lexicon.from_words(["ARGOTIC", "ARC", "TIC"])
    rows = board((7, 3, "ARG"), (7, 7, "TIC"))
    reading = BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                           confidence=np.full((15, 15), 0.9), seconds=0.0,
                           sources={(7, c): "classifier" for c in (3, 4, 5, 7, 8, 9)},
                           likeliest={(7, 5): ("G", "C", "O")},
                           likeness={(7, 5): (0.83, 0.60, 0.39)})
    checked = check_reading(reading, lexicon, TileSet.named("en"))
    assert checked.board[7][3:10] == "ARG?TIC"
    assert checked.sources[(7, 6)] == "dictionary"
    # With the set's blanks all on the board already, no blank is found, and the G, far more
    # like a G than a C, is not made ARC: ARG is reported as read.
    spent = replace(reading, board=board((7, 3, "ARG"), (7, 7, "TIC"), (12, 0, "?"), (12, 5, "?")))
    assert check_reading(spent, lexicon, TileSet.named("en")).board[7][3:10] == "ARG.TIC"
    # A piece of one tile read unsurely does not choose the word: its letter may be misread.
    lexicon = Lexicon.from_words(["GAUD", "CAUDAL", "EL"])
    rows = board((7, 3, "CAUD"), (7, 8, "|LL"))
    confidence = np.full((15, 15), 0.9)
    confidence[7, 8] = 0.01
    unsure = replace(reading, board=rows, confidence=confidence, likeliest={}, likeness={})
    assert check_reading(unsure, lexicon, TileSet.named("en")).board[7][7] == "."
    confidence[7, 8] = 0.9
    assert check_reading(replace(unsure, confidence=confidence), lexicon,
                         TileSet.named("en")).board[7][7] == "?"


def test_misread_letters_spread_over_crossing_words_are_mended_together() -> None:
    """FLEY (its L a blank) read F?FY: the E was read F, as was the E of VENAE crossing it,
    whose last E is also in JOES.  Mending FLEY alone fails (VE?AF stays no word), and so did
    its lesser guesses POET; the E's of both words, the glyphs' first guesses, mend all
    three words at once."""
    lexicon = Lexicon.from_words(["FLEY", "POET", "VENAE", "JOES", "PEAT", "VENA"])
    rows = board((5, 2, "F?FY"), (4, 4, "|VF?AF"), (8, 2, "JO"), (8, 5, "S"))
    confidence = np.full((15, 15), 0.9)
    confidence[5, 4], confidence[8, 4] = 0.82, 0.78  # Tesseract overruled the classifier
    likeliest = {(5, 2): ("F", "E", "P"), (5, 4): ("E", "F", "I"), (5, 5): ("Y", "V", "T"),
                 (4, 4): ("V", "Y", "W"), (7, 4): ("A", "R", "N"), (8, 4): ("E", "F", "L"),
                 (8, 2): ("J", "I", "T"), (8, 3): ("O", "D", "Q"), (8, 5): ("S", "B", "G")}
    fixed, changes = correct_words(rows, confidence, lexicon, likeliest=likeliest)
    assert fixed[5][2:6] == "F?EY" and fixed[8][2:6] == "JOES"
    assert "".join(fixed[r][4] for r in range(4, 9)) == "VE?AE"
    assert sorted(changes) == [((5, 4), "F", "E"), ((8, 4), "F", "E")]


def test_a_clearly_read_letter_is_not_changed_to_mend_a_word_misread_elsewhere() -> None:
    """BONED down read BONET, its D the end of LED across, read HUT (a word too): every glyph
    of LED looks nearly as much like the right letter.  The B of BONED (and of BAFF) was read
    clearly, yet its second guess R and the N's second guess S make ROSET and RAFF, two
    changes where LED takes three; what the glyphs look like says the three."""
    lexicon = Lexicon.from_words(["BAFF", "RAFF", "BONED", "ROSET", "LED", "HUT"])
    rows = board((7, 4, "BAFF"), (7, 4, "|BONET"), (11, 2, "HUT"))
    confidence = np.full((15, 15), 0.9)
    confidence[11, 4], confidence[11, 3] = 0.05, 0.3
    likeliest = {(7, 4): ("B", "R", "H"), (9, 4): ("N", "S", "Q"), (11, 2): ("H", "L", "K"),
                 (11, 3): ("U", "E", "O"), (11, 4): ("T", "D", "G")}
    likeness = {(7, 4): (0.95, 0.70, 0.60), (9, 4): (0.90, 0.80, 0.60),
                (11, 2): (0.80, 0.78, 0.60), (11, 3): (0.70, 0.69, 0.60),
                (11, 4): (0.80, 0.79, 0.60)}
    fixed, changes = correct_words(rows, confidence, lexicon, likeliest=likeliest,
                                   likeness=likeness)
    assert "".join(fixed[r][4] for r in range(7, 12)) == "BONED"
    assert fixed[7][4:8] == "BAFF" and fixed[11][2:5] == "LED"
    assert sorted(changes) == [((11, 2), "H", "L"), ((11, 3), "U", "E"), ((11, 4), "T", "D")]


def test_a_letter_misread_in_one_word_is_read_again_by_the_photos_own_letters() -> None:
    """THE read THF: the reader took the E's glyph for an F, and THO and THY mend the word as
    well as THE.  The E's of BEES and SEE, valid words of the same photo, look just like the
    glyph, so it is read as theirs."""
    from vision.glyphs import GLYPH_PX

    def shape(k: int) -> np.ndarray:
        glyph = np.zeros((GLYPH_PX, GLYPH_PX), np.float32)
        glyph[2:-2, 2 + 2 * k:5 + 2 * k] = 1
        glyph[3 + 2 * k:6 + 2 * k, 2:-2] = 1
        return glyph

    lexicon = Lexicon.from_words(["THE", "THO", "THY", "TO", "BEES", "SEE"])
    rows = board((7, 6, "THF"), (8, 6, "O"), (3, 2, "BEES"), (11, 3, "SEE"))
    shapes = {letter: shape(k) for k, letter in enumerate("THEOBSF")}
    squares = [(r, c) for r in range(15) for c in range(15) if rows[r][c] != "."]
    confidence = np.full((15, 15), 0.9)
    confidence[7, 8] = 0.5
    likeliest = {sq: (rows[sq[0]][sq[1]], "P", "I") for sq in squares}
    likeness = {sq: (0.95, 0.7, 0.6) for sq in squares}
    likeliest[7, 8], likeness[7, 8] = ("F", "P", "T"), (0.8, 0.7, 0.6)
    glyphs = {sq: shapes[rows[sq[0]][sq[1]]] for sq in squares}
    glyphs[7, 8] = shapes["E"]
    reading = BoardReading(rows, np.zeros((4, 2), np.float32), confidence, 0.1,
                           sources={sq: "classifier" for sq in squares},
                           likeliest=likeliest, likeness=likeness)
    assert check_reading(reading, lexicon, TileSet.named("en")).board == rows
    checked = check_reading(replace(reading, glyphs=glyphs), lexicon, TileSet.named("en"))
    assert checked.board[7][6:9] == "THE"
    assert checked.sources[7, 8] == "dictionary" and checked.confidence[7, 8] <= 0.5


def test_a_premium_label_read_as_a_letter_at_a_words_end_is_taken_off() -> None:
    """AT down ending on K4, the double-word square L4 beside its T: the label's print, read
    as an E like no letter at all, made TE, which an A would mend into TA as readily; the
    label is taken off.  Ending CAT instead, one letter would mend CATE into CATS, but only a
    glyph about as like an S as an E may be mended so; being like no letter at all, the glyph
    is the label there too."""
    lexicon = Lexicon.from_words(["AT", "TA", "CAT", "CATS"])

    def read_with(rows: list[str], square: tuple[int, int],
                  likeness: tuple[float, ...]) -> BoardReading:
        return BoardReading(board=rows, corners=np.zeros((4, 2), np.float32),
                            confidence=np.full((15, 15), 0.9), seconds=0.0,
                            sources={square: "classifier"},
                            likeliest={square: ("E", "A", "S")}, likeness={square: likeness})

    short = board((2, 10, "|AT"), (3, 11, "E"))
    label = check_reading(read_with(short, (3, 11), (-0.3, -0.35, -0.4)), lexicon,
                          TileSet.named("en"))
    assert label.board[3][10:12] == "T."
    assert (3, 11) not in label.sources
    tile = check_reading(read_with(short, (3, 11), (0.35, 0.3, 0.2)), lexicon,
                         TileSet.named("en"))
    assert tile.board[3][10:12] == "TA"
    longer = check_reading(read_with(board((3, 8, "CATE")), (3, 11), (-0.3, -0.35, -0.4)),
                           lexicon, TileSet.named("en"))
    # No letter close to the glyph mends CATE: like no letter at all, it is the label.
    assert longer.board[3][8:12] == "CAT."
