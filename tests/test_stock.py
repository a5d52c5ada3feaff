"""The stock letter classifier: samples learnt from installed typefaces, saved, loaded and
used when no profile is given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.fonts import STOCK_FONTS, FontsMissing, installed_fonts, learn_fonts
from scorer.tiles import TileSet
from sim.typefaces import photograph_letters
from vision.stock import StockError, StockSamples, stock_classifier

GERMAN = set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")


@pytest.fixture(scope="module")
def one_font(tmp_path_factory) -> tuple[Path, str]:
    fonts = installed_fonts()
    if not fonts:
        pytest.skip("none of the stock typefaces is installed (setup.sh installs them)")
    font = next(iter(fonts))
    path = tmp_path_factory.mktemp("stock") / "stock-letters.npz"
    report = learn_fonts(photograph_letters, path, fonts=(font,))
    assert report.per_font == {font.name: report.samples}
    return path, font.name


def test_learnt_samples_cover_the_letters_under_every_blur(one_font):
    from vision.letters import BLURS

    path, name = one_font
    samples = StockSamples.load(path)
    assert samples.fonts == (name,)
    assert set(samples.labels) == GERMAN
    assert set(samples.blurs) == {""} | {blur.tag for blur in BLURS}
    assert samples.features.dtype == np.float32
    norms = np.linalg.norm(samples.features, axis=1)
    assert np.allclose(norms, 1.0, atol=0.01)


def test_samples_are_loaded_in_the_order_the_classifier_keeps_them(one_font, tmp_path):
    """The features are read from the file, read-only, equal to what numpy reads; saved by
    blur then letter, so that learning them copies nothing; a file whose members are
    compressed is read all the same."""
    from vision.letters import LetterClassifier

    path, _ = one_font
    samples = StockSamples.load(path)
    with np.load(path) as data:
        assert np.array_equal(samples.features, data["features"])
    assert not samples.features.flags.writeable
    assert np.array_equal(np.lexsort((samples.labels, samples.blurs)),
                          np.arange(len(samples.labels)))
    classifier = LetterClassifier()
    classifier.fit(None, samples.labels, samples.blurs, samples.features)
    assert np.shares_memory(classifier._features, samples.features)  # noqa: SLF001
    packed = tmp_path / "packed.npz"
    with np.load(path) as data:
        np.savez_compressed(packed, **{k: data[k] for k in data.files})
    assert np.array_equal(StockSamples.load(packed).features, samples.features)


def test_samples_of_some_letters_are_read_alone(one_font, tmp_path):
    """Loaded for a tile set's letters, the samples are those of the whole file that are of
    these letters, bytes and order, from an uncompressed file or a compressed one."""
    path, _ = one_font
    whole = StockSamples.load(path)
    packed = tmp_path / "packed.npz"
    with np.load(path) as data:
        np.savez_compressed(packed, **{k: data[k] for k in data.files})
    for letters in (set(TileSet.named("en").letters), GERMAN, {"Q"}, {"Ä", "Z"}, {"%"}):
        keep = np.isin(whole.labels, np.array(sorted(letters), dtype=str))
        for source in (path, packed):
            some = StockSamples.load(source, frozenset(letters))
            assert np.array_equal(some.features, whole.features[keep])
            assert np.array_equal(some.labels, whole.labels[keep])
            assert np.array_equal(some.blurs, whole.blurs[keep])
            assert np.array_equal(some.font_of, whole.font_of[keep])


def test_stock_classifier_reads_a_font_it_never_saw():
    """The stock samples read the renderer's own DejaVu tiles, a typeface never learnt (with
    one typeface's samples alone, Liberation Sans, the J of JOKES was read as I)."""
    from sim.render import RenderConfig, render_board
    from vision.read import read_board
    from vision.stock import stock_samples

    if stock_samples() is None:
        pytest.skip("no stock letter samples (the stock typefaces are not installed)")
    rows = ["." * 15] * 6 + ["...QUARTZ......", "...U...........", "...JOKES.......",
                             "...B...........", "...WHY.........", "...MAP........."]
    rows += ["." * 15] * 3
    config = RenderConfig(size=(1280, 720), tilt=12.0, font="sans", defocus=0.6)
    photo = render_board(rows, tileset="en", edition="green", seed=5, config=config)
    reading = read_board(photo.image, None, "en")
    assert reading.board == rows
    # Tesseract was not needed for these sharp tiles.
    assert set(reading.sources.values()) == {"classifier"}


def test_classifier_keeps_only_the_tile_sets_letters(one_font, monkeypatch):
    path, _ = one_font
    monkeypatch.setenv("TILECAM_CACHE", str(path.parent))
    english = stock_classifier(set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    assert english is not None and english.letters == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert stock_classifier({"Ñ", "Ł"}) is None  # none learnt: Tesseract reads them


def test_without_samples_there_is_no_stock_classifier(tmp_path, monkeypatch):
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path))
    assert stock_classifier(GERMAN) is None


def test_a_broken_or_foreign_file_is_named(tmp_path, one_font):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(StockError, match="junk.npz: not a stock samples file"):
        StockSamples.load(junk)
    path, _ = one_font
    cut = tmp_path / "cut.npz"
    cut.write_bytes(path.read_bytes()[: 5000])  # a copy that was cut short
    with pytest.raises(StockError, match="cut.npz: not a stock samples file"):
        StockSamples.load(cut)
    samples = StockSamples.load(path)
    old = tmp_path / "old.npz"
    with np.load(path) as data:
        np.savez(old, **{k: data[k] for k in data.files if k != "versions"},
                 versions=np.array([0, 0]))
    with pytest.raises(StockError, match=r"old.npz: stock samples of version \[0, 0\]"):
        StockSamples.load(old)
    assert len(samples.labels) > 0


def test_no_typeface_installed_is_a_clear_error(tmp_path, monkeypatch):
    import calibration.fonts as fonts

    monkeypatch.setattr(fonts, "installed_fonts", lambda fonts=STOCK_FONTS: {})
    with pytest.raises(FontsMissing, match="apt-get install fonts-liberation"):
        learn_fonts(photograph_letters, tmp_path / "stock.npz")
    assert not (tmp_path / "stock.npz").exists()


def test_render_takes_a_font_file_and_names_unknown_fonts():
    from sim.render import RenderConfig, RenderError

    with pytest.raises(RenderError, match="or a .ttf/.otf file"):
        RenderConfig(font="Comic Sans")


class _Tesseract:
    """Tesseract's answers scripted by glyph (each glyph's ink holds its number)."""

    def __init__(self, letters: str) -> None:
        from scorer.tiles import TileSet

        self.letters = letters
        self.tileset = TileSet.named("en")
        self.calls: list[list[int]] = []

    def read(self, inks, known=()):
        from vision.letters import LetterGuess

        numbers = [int(ink[0, 0]) for ink in inks]
        self.calls.append(numbers)
        return [LetterGuess(self.letters[n], 0.9) for n in numbers]


def _scripted(monkeypatch, scripted: list) -> tuple:
    """A classifier of every letter whose guesses are ``scripted``, and as many glyphs (each
    glyph's ink holds its number, for :class:`_Tesseract`)."""
    from vision.glyphs import Glyph
    from vision.letters import LetterClassifier

    classifier = LetterClassifier()
    monkeypatch.setattr(classifier, "predict", lambda glyphs: scripted[: len(glyphs)])
    monkeypatch.setattr(LetterClassifier, "__len__", lambda self: 100)
    monkeypatch.setattr(LetterClassifier, "letters",
                        property(lambda self: set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")))
    glyphs = [Glyph(np.zeros((24, 24), np.float32), np.full((1, 1), n, np.uint8), 0.5)
              for n in range(len(scripted))]
    return classifier, glyphs


def test_tesseract_confirms_middling_stock_letters_only_when_asked(monkeypatch):
    """A tracker asks the players about unsure letters: Tesseract agreeing with a letter the
    stock classifier read with middling confidence makes it sure; disagreeing changes nothing;
    and a board read (no ``confirm``) does not ask about those at all."""
    from vision.letter_choice import ACCEPT, OVERRULE, read_letters
    from vision.letters import LetterGuess

    middling = (OVERRULE + ACCEPT) / 2
    scripted = [LetterGuess("E", middling), LetterGuess("T", middling), LetterGuess("A", 0.95)]
    classifier, glyphs = _scripted(monkeypatch, scripted)
    classifier.stock = True
    tesseract = _Tesseract("EIA")
    read, _ = read_letters(glyphs, classifier, tesseract, confirm=True)
    assert [g.letter for g in read] == ["E", "T", "A"]
    assert read[0].confidence == 0.9 and read[1].confidence == middling
    assert tesseract.calls == [[0, 1]]
    tesseract.calls.clear()
    read, _ = read_letters(glyphs, classifier, tesseract)
    assert [g.confidence for g in read] == [middling, middling, 0.95]
    assert tesseract.calls == []


def test_tesseract_overrules_a_guessing_classifier_only_with_a_letter_it_ranks(monkeypatch):
    """The stock classifier all but guessing (below OVERRULE) is overruled by Tesseract's sure
    letter only when that letter is among the classifier's likeliest for the glyph: a blurred
    E whose arms are lost is a bar to Tesseract (I), while to the classifier it still looks
    like E, F or B."""
    from vision.letter_choice import OVERRULE, read_letters
    from vision.letters import LetterGuess

    guessing = OVERRULE / 2
    scripted = [LetterGuess("E", guessing, 0.7, ("E", "F", "B")),
                LetterGuess("E", guessing, 0.7, ("E", "F", "B"))]
    classifier, glyphs = _scripted(monkeypatch, scripted)
    classifier.stock = True
    read, sources = read_letters(glyphs, classifier, _Tesseract("IF"))
    assert [g.letter for g in read] == ["E", "F"]
    assert sources == ["classifier", "tesseract"]


def test_tesseract_overrules_a_guessing_classifier_only_with_a_letter_nearly_as_like(monkeypatch):
    """Among the classifier's likeliest is not enough: the glyph must look nearly as much like
    Tesseract's letter (within OVERRULE_GAP) as like the classifier's own."""
    from vision.letter_choice import OVERRULE, OVERRULE_GAP, read_letters
    from vision.letters import LetterGuess

    guessing = OVERRULE / 2
    near, far = 0.7 - OVERRULE_GAP / 2, 0.7 - 2 * OVERRULE_GAP
    scripted = [LetterGuess("E", guessing, 0.7, ("E", "F", "B"), (0.7, near, 0.5)),
                LetterGuess("E", guessing, 0.7, ("E", "F", "B"), (0.7, far, 0.5))]
    classifier, glyphs = _scripted(monkeypatch, scripted)
    classifier.stock = True
    read, sources = read_letters(glyphs, classifier, _Tesseract("FF"))
    assert [g.letter for g in read] == ["F", "E"]
    assert sources == ["tesseract", "classifier"]


def test_tesseract_overruling_with_a_letter_less_like_the_glyph_is_named_unsure(monkeypatch):
    """Where the glyph is somewhat less like Tesseract's letter than like the classifier's own
    (OVERRULED_UNSURE_FROM or more, still within OVERRULE_GAP), Tesseract is right about half
    the time: its letter stands, named unsure rather than with its own certainty (a real
    German Q, to the stock classifier O 0.73, G 0.70, Q 0.65, read G by Tesseract with 0.93,
    was a confident misread)."""
    from vision.letter_choice import (
        OVERRULE,
        OVERRULE_GAP,
        OVERRULED_CONFIDENCE,
        OVERRULED_UNSURE_FROM,
        read_letters,
    )
    from vision.letters import LetterGuess
    from vision.read import UNSURE_SHOWN

    assert OVERRULED_UNSURE_FROM < OVERRULE_GAP and OVERRULED_CONFIDENCE < UNSURE_SHOWN
    guessing = OVERRULE / 2
    close = 0.73 - OVERRULED_UNSURE_FROM / 2
    less = 0.73 - (OVERRULED_UNSURE_FROM + OVERRULE_GAP) / 2
    scripted = [LetterGuess("O", guessing, 0.73, ("O", "G", "Q"), (0.73, close, 0.65)),
                LetterGuess("O", guessing, 0.73, ("O", "G", "Q"), (0.73, less, 0.65))]
    classifier, glyphs = _scripted(monkeypatch, scripted)
    classifier.stock = True
    read, sources = read_letters(glyphs, classifier, _Tesseract("GG"))
    assert [g.letter for g in read] == ["G", "G"] and sources == ["tesseract", "tesseract"]
    assert read[0].confidence == 0.9 and read[1].confidence == OVERRULED_CONFIDENCE


def test_a_profiles_letter_is_confirmed_by_tesseract_never_overruled(monkeypatch):
    """A profile's classifier, learnt from the user's own tiles, keeps a letter it has learnt
    however unsure of it: a board read does not ask Tesseract about it, and a tracker's read
    (``confirm``) takes Tesseract's agreement as confidence, its disagreement as nothing."""
    from vision.letter_choice import OVERRULE, read_letters
    from vision.letters import LetterGuess

    guessing = OVERRULE / 2
    scripted = [LetterGuess("E", guessing, 0.7, ("E", "F", "B")),
                LetterGuess("E", guessing, 0.7, ("E", "F", "B"))]
    classifier, glyphs = _scripted(monkeypatch, scripted)
    tesseract = _Tesseract("EF")
    read, sources = read_letters(glyphs, classifier, tesseract)
    assert [g.letter for g in read] == ["E", "E"] and tesseract.calls == []
    read, sources = read_letters(glyphs, classifier, tesseract, confirm=True)
    assert tesseract.calls == [[0, 1]]
    assert [g.letter for g in read] == ["E", "E"] and sources == ["classifier", "classifier"]
    assert read[0].confidence >= 0.9 > read[1].confidence


GAME = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / (
    "scrabscrap-game01")


def _game_boards() -> dict[int, list[str]]:
    """The real game's boards by move (skips where the photos or stock samples are absent)."""
    from vision.stock import stock_samples

    if not GAME.is_dir():
        pytest.skip(f"real photos not available: {GAME} is missing")
    if stock_samples() is None:
        pytest.skip("no stock letter samples (the stock typefaces are not installed)")
    sections = (GAME / "boards_after_each_move.txt").read_text("utf-8").split("## after move ")
    return {int(part.splitlines()[0].split()[0]): [line.strip() for line in
                                                    part.splitlines()[1:16]]
            for part in sections[1:]}


def test_a_letter_the_profile_never_learnt_is_named_by_the_stock_classifier():
    """Real game, frame 3: the profile learnt from frames 1 and 2 has no Ö; the stock
    classifier names the new Ö at C10 (Tesseract read it as S with the grid as it was
    located before the grid refinement fitted the lines between empty squares)."""
    import cv2

    from calibration.profile import Profile
    from vision.read import read_board

    boards = _game_boards()
    profile = Profile(tileset="de")
    for n in (1, 2):
        profile.extend(cv2.imread(str(GAME / f"image-{n}.jpg")), boards[n])
    assert "Ö" not in profile.classifier().letters
    image = cv2.imread(str(GAME / "image-3.jpg"))
    reading = read_board(image, profile)
    assert reading.board == boards[3]
    assert reading.sources[(9, 2)] == "stock"


def test_letters_the_profile_lacks_are_left_to_the_stock_classifier_not_tesseract(monkeypatch):
    """Real game, frame 27, with a profile learnt from frames 2, 5 and 8 (a third of the
    letters unseen): the stock classifier knows every letter the profile lacks, so Tesseract
    is asked only about glyphs that may be of such a letter and that the stock classifier is
    unsure of, not about every glyph the profile is unsure of; no more squares are read
    wrong for it."""
    import cv2

    from calibration.profile import Profile
    from vision.read import read_board
    from vision.tesseract_reader import TesseractReader

    boards = _game_boards()
    profile = Profile(tileset="de")
    for n in (2, 5, 8):
        profile.extend(cv2.imread(str(GAME / f"image-{n}.jpg")), boards[n])
    lacking = set(TileSet.named("de").letters) - {"?"} - profile.classifier().letters
    assert len(lacking) >= 10
    asked: list[int] = []
    real_read = TesseractReader.read

    def counting(self, inks, known=()):
        asked.append(len(inks))
        return real_read(self, inks, known)

    monkeypatch.setattr(TesseractReader, "read", counting)
    image = cv2.imread(str(GAME / "image-27.jpg"))
    expected = ["".join("?" if ch.islower() else ch for ch in row) for row in boards[27]]

    def wrong(board: list[str]) -> list[tuple[int, int, str, str]]:
        return [(r, c, want, got) for r, (row, known) in enumerate(zip(board, expected,
                                                                        strict=True))
                for c, (got, want) in enumerate(zip(row, known, strict=True)) if got != want]

    with_stock = wrong(read_board(image, profile).board)
    asked_with_stock = sum(asked)
    asked.clear()
    without_stock = wrong(read_board(image, profile, stock=False).board)
    assert asked_with_stock <= sum(asked) // 2
    assert len(with_stock) <= len(without_stock) <= 1  # this set's Q, read as G by both


def test_a_glyph_unlike_every_sample_of_the_profile_is_named_by_the_stock_classifier(
        drawn_letters: dict[str, np.ndarray]) -> None:
    # Under a blur heavier than any the profile learnt, a glyph is like none of the user's
    # samples; the stock classifier, learnt from many typefaces, may hold one far closer.
    from vision.glyphs import Glyph
    from vision.letter_choice import UNLIKE_OWN, read_letters
    from vision.letters import LetterClassifier

    bar, tee, comb = drawn_letters["I"], drawn_letters["T"], drawn_letters["E"]
    own = LetterClassifier()
    own.fit(np.stack([bar, tee]), ["I", "T"])
    stock = LetterClassifier()
    stock.stock = True
    stock.fit(np.stack([bar, tee, comb]), ["I", "T", "E"])
    glyphs = [Glyph(shape, np.full((20, 8), 255, np.uint8), 0.5) for shape in (comb, tee)]
    alone, _ = read_letters(glyphs, own, None)
    assert alone[0].letter in "IT" and alone[0].likeness[0] < UNLIKE_OWN
    read, sources = read_letters(glyphs, own, None, stock_where_unlike=lambda: stock)
    assert [g.letter for g in read] == ["E", "T"]
    assert sources == ["stock", "classifier"]
    # A glyph like the profile's own samples keeps the profile's letter, whatever the stock says.
    other = LetterClassifier()
    other.stock = True
    other.fit(np.stack([comb, comb]), ["E", "I"])
    read, sources = read_letters(glyphs[1:], own, None, stock_where_unlike=lambda: other)
    assert [g.letter for g in read] == ["T"] and sources == ["classifier"]
