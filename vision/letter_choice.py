"""Which letter each glyph is: the calibrated or stock classifier and Tesseract combined (one
batched Tesseract call for the glyphs whose reading it could change), and the marks of
letters such as Ä.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from scorer.tiles import TileSet
from vision.glyphs import BLANK, Glyph
from vision.letters import LetterClassifier, LetterGuess
from vision.medians import median
from vision.tesseract_reader import TesseractReader

if TYPE_CHECKING:
    pass


#: Classifier confidence above which Tesseract is not asked.
ACCEPT = 0.7


#: Stock classifier confidence below which a surer Tesseract answer overrules it.  A profile's
#: classifier, learnt from the user's own tiles, is not overruled on a letter it has learnt:
#: on 300 rendered photos Tesseract's overrules broke 57 of its letters for 18 they mended
#: (``bench/eval_rendered.py``), and on the real game none mattered.
OVERRULE = 0.3


#: ... with a letter among this many of the glyph's likeliest to the stock classifier (the
#: glyph looks like it at all)...
OVERRULE_AMONG = 3


#: ... and nearly as like the glyph as the stock classifier's own letter: no less similar by
#: this much.  On the 1,800 rendered photos of six seeds of ``bench/eval_rendered.py``, of
#: Tesseract's 966 overrules, where the glyph was under 0.02 less like its letter Tesseract
#: was right 365 times and the stock classifier 30; from 0.02 to 0.04, 52 and 50; from 0.04 to
#: 0.06, 31 and 42; from 0.16, 21 and 167.
OVERRULE_GAP = 0.04


#: A stock classifier's letter overruled by Tesseract's, though the glyph is this much or more
#: less like Tesseract's letter, is named unsure (:data:`OVERRULED_CONFIDENCE` at most): in
#: that band Tesseract was right about half the time on rendered photos (0.02 to 0.04: 52
#: times, the stock classifier 50, above) and on the labelled real photos, as taken and seen
#: otherwise (``bench/eval_real_views.py``: 5 right, 8 wrong, a German Q read G with
#: confidence 0.93 to 0.99 among them); below it, right nine times in ten.
OVERRULED_UNSURE_FROM = 0.02
OVERRULED_CONFIDENCE = 0.45


#: Similarity to a learnt glyph from which a glyph read with some confidence (at least
#: OVERRULE) is taken for a letter the classifier knows, not one it has never seen, unless
#: Tesseract (asked whenever letters are unseen and the classifier is below ACCEPT) reads an
#: unseen letter more surely: a P matched an R at 0.82 when P was not learnt yet.  On the
#: real game's photos (profile grown frame by frame) letters already learnt matched at 0.80
#: or more in 99.5 % of cases; of letters not yet learnt but read with some confidence, only
#: an Ü taken for U (0.82, its dots tell it) and a Q taken for O (0.91, read as certain, which
#: no threshold here would catch) matched above 0.74.
KNOWN_SIMILARITY = 0.8


#: Glyph height, relative to the photo's median, above which a letter carries marks above it.
MARKED_HEIGHT = 1.15


#: A letter found on a premium square taken for empty (:func:`missed_tiles`) is a tile's only
#: where a classifier finds it at least this like a letter it knows: a premium label's letters
#: (a deluxe board's "DL") are in another typeface and lie 0.2 to 0.3 from any.  Tiles missed
#: there under glare on the rendered photos were 0.72 and 0.88 like their letters.
LABEL_UNLIKE = 0.5


def like_a_letter(glyphs: Sequence[Glyph], classifiers: Sequence[LetterClassifier | None]
                  ) -> np.ndarray:
    """Whether each glyph is at least :data:`LABEL_UNLIKE` like some letter of some of the
    ``classifiers`` (none known: no glyph is): a tile's letter rather than a premium label's.

    >>> like_a_letter([], [None]).tolist()
    []
    """
    best = np.full(len(glyphs), -2.0)
    if not glyphs:
        return best >= LABEL_UNLIKE
    stacked = np.stack([glyph.normalised for glyph in glyphs])
    for classifier in classifiers:
        if classifier is None:
            continue
        letters, similarity = classifier.likeness(stacked)
        if letters:
            best = np.maximum(best, similarity.max(axis=1))
    return best >= LABEL_UNLIKE


def read_letters(
    glyphs: list[Glyph | None],
    classifier: LetterClassifier | None,
    tesseract: TesseractReader | None,
    tileset: TileSet | None = None,
    confirm: bool = False,
    stock: Callable[[], LetterClassifier | None] | None = None,
    stock_where_unlike: Callable[[], LetterClassifier | None] | None = None,
) -> tuple[list[LetterGuess], list[str]]:
    """A letter (``?`` for a blank) and confidence for each occupied square's glyph.

    The classifier answers where it is sure; every other glyph whose reading Tesseract could
    change goes to Tesseract, all in one call.  Tesseract can overrule the stock classifier
    where that all but guesses, never a profile's classifier on a letter the profile has
    learnt (see :func:`_combine`).  A letter the classifier has never seen comes from
    Tesseract or the stock classifier (``stock``, below).  With ``tileset``, marks seen
    above a glyph decide between a letter and its umlaut (:func:`with_marks`).

    With ``confirm`` and the stock classifier (:mod:`vision.stock`), the letters it read with
    some confidence but below :data:`ACCEPT` are shown to Tesseract in a call of their own,
    whose answer only raises the confidence of a letter it agrees with: a tracker asks the
    players about unsure letters, and the stock classifier is unsure of many a letter of tiles
    it never saw that Tesseract reads the same.  (In the same call as the unsure glyphs, the
    extra glyphs changed how Tesseract read those: more letters went wrong on rendered and
    real photos alike.)

    ``stock`` gives the stock classifier (loaded only when needed, a few tens of milliseconds
    in a fresh process), which names letters that a calibrated ``classifier`` has never learnt
    (:func:`_unseen_from_stock`).  Where it knows every such letter, Tesseract is not asked
    about them (unless ``confirm``): only the glyphs that may be of such a letter and that it
    is unsure of go to Tesseract, and with ``confirm`` those the calibrated classifier all but
    guesses, for Tesseract to confirm.

    ``stock_where_unlike`` gives the stock classifier too, for the glyphs that look like none
    of a calibrated ``classifier``'s samples (:func:`_closer_in_stock`).
    """
    guesses: list[LetterGuess | None] = [None] * len(glyphs)
    sources = [""] * len(glyphs)
    unsure: list[int] = []
    known = classifier is not None and len(classifier) > 0
    calibrated = classifier.predict(
        np.stack([g.normalised for g in glyphs if g is not None])
    ) if known and any(g is not None for g in glyphs) else []
    from_stock = set() if not calibrated or stock_where_unlike is None else _closer_in_stock(
        glyphs, calibrated, stock_where_unlike)
    # Tesseract is asked only where its answer could change the reading (see _combine): where
    # the classifier all but guesses, or where the letter may be one it has never seen.
    unseen = set() if tesseract is None else (
        set(tesseract.tileset.letters) - {BLANK} - (classifier.letters if known else set())  # type: ignore[union-attr]
    )
    # The stock classifier, where it knows every letter the profile has not learnt, names
    # those instead of Tesseract (sure of them, and a tenth of the time) in a board read; a
    # tracker (``confirm``) keeps Tesseract loaded and asks it, as each letter it confirms
    # spares the players a question.
    by_stock = None
    if unseen and known and not confirm and stock is not None and not classifier.stock:  # type: ignore[union-attr]
        by_stock = stock()
        if by_stock is not None and not unseen <= by_stock.letters:
            by_stock = None
    unseen_possible = bool(unseen) and by_stock is None
    it = iter(calibrated)
    below_accept: list[int] = []
    ranked: list[LetterGuess | None] = [None] * len(glyphs)  # the classifier's, where it ranked
    for i, glyph in enumerate(glyphs):
        if glyph is None:
            guesses[i], sources[i] = LetterGuess(BLANK, 1.0), "blank"
            continue
        guess = next(it) if known else None
        guesses[i] = guess
        if guess is not None and guess.likeliest:
            ranked[i] = guess
        if guess is not None and guess.confidence >= ACCEPT:
            sources[i] = "classifier"
        else:
            below_accept.append(i)
    maybe_unseen: set[int] = set()
    if by_stock is not None:
        maybe_unseen = _unseen_from_stock(below_accept, glyphs, guesses, sources,
                                          classifier, lambda: by_stock)  # type: ignore[arg-type]
    # Tesseract may overrule the stock classifier where that all but guesses; a profile's
    # classifier it can only confirm (worth asking for a tracker, whose players are asked
    # about unsure letters) or tell a letter the profile has not learnt.
    ask_below = OVERRULE if confirm or (known and classifier.stock) else 0.0  # type: ignore[union-attr]
    for i in below_accept:
        guess = guesses[i]
        if sources[i]:
            continue
        if guess is not None and not unseen_possible and i not in maybe_unseen and (
            guess.confidence >= ask_below
        ):
            sources[i] = "classifier"
        else:
            unsure.append(i)
    unlearnt: list[tuple[int, LetterGuess]] = []
    if unsure and tesseract is not None:
        # Alone on its sheet, a glyph is read far worse than among others (see
        # TesseractReader): where the reader remembers too few, letters read surely here
        # go before it.
        sure = [(glyphs[i].ink, g) for i, g in enumerate(guesses)  # type: ignore[union-attr]
                if sources[i] == "classifier" and g is not None]
        answers = tesseract.read([glyphs[i].ink for i in unsure], sure)  # type: ignore[union-attr]
        for i, answer in zip(unsure, answers, strict=True):
            # A letter the stock classifier named is weighed against Tesseract's as the
            # stock classifier's own are: Tesseract, sure of a blurred glyph it cannot read,
            # turned letters the profile had not learnt into others unlike the glyph (R into
            # F, Z into B, D into B on a real blurred photo, with confidence 0.69-0.97).
            reader = stock_where_unlike() if i in from_stock else classifier  # type: ignore[misc]
            before = guesses[i]
            guesses[i], sources[i] = _combine(before, answer, reader)
            if sources[i] == "tesseract" and before is not None and before.letter != BLANK:
                unlearnt.append((i, before))
        if unlearnt and known and not classifier.stock:  # type: ignore[union-attr]
            _unlearnt_checked(unlearnt, glyphs, guesses, sources, stock_where_unlike or stock)
        if known and stock is not None and by_stock is None and not classifier.stock:  # type: ignore[union-attr]
            _unseen_from_stock(unsure, glyphs, guesses, sources, classifier, stock)  # type: ignore[arg-type]
    for i in unsure:
        if not sources[i]:
            sources[i] = "classifier"
    for i in from_stock:
        if sources[i] == "classifier":
            sources[i] = "stock"
    if confirm and known and classifier.stock and tesseract is not None:  # type: ignore[union-attr]
        middling = [i for i, g in enumerate(guesses) if sources[i] == "classifier"
                    and g is not None and OVERRULE <= g.confidence < ACCEPT]
        if middling:
            answers = tesseract.read([glyphs[i].ink for i in middling])  # type: ignore[union-attr]
            for i, answer in zip(middling, answers, strict=True):
                guess = guesses[i]
                if guess is not None and answer.letter == guess.letter:
                    guesses[i] = LetterGuess(guess.letter,
                                             max(guess.confidence, answer.confidence),
                                             guess.similarity)
    # Whichever reader's letter stands, the classifier's likeliest letters go with it: they
    # are what the glyph looks like, for the words on the board to choose among.
    final = [LetterGuess(BLANK, 0.0) if g is None
             else g if r is None
             else replace(g, likeliest=r.likeliest, likeness=r.likeness)
             for g, r in zip(guesses, ranked, strict=True)]
    if tileset is not None:
        marked = marks_above(glyphs)
        final = [
            LetterGuess(with_marks(g.letter, m, tileset), g.confidence, likeliest=g.likeliest,
                        likeness=g.likeness)
            if g.letter != BLANK else g
            for g, m in zip(final, marked, strict=True)
        ]
    return final, sources


#: A glyph whose nearest sample among a profile's lies below this similarity looks like none
#: of the user's tiles (a blur heavier than the profile learnt, glare): the stock classifier,
#: learnt from many typefaces, names it where it finds a closer sample.  On rendered photos of
#: heavy motion blur its letters were right more often; on sharp ones no glyph lies so far.
UNLIKE_OWN = 0.5


def _closer_in_stock(
    glyphs: list[Glyph | None], calibrated: list[LetterGuess],
    stock_of: Callable[[], LetterClassifier | None],
) -> set[int]:
    """Replace in place the guesses (``calibrated``, one per glyph that is not None) of the
    glyphs unlike the profile's samples (:data:`UNLIKE_OWN`) by the stock classifier's where
    its nearest sample is closer; the indices into ``glyphs`` of those replaced."""
    shown = [i for i, g in enumerate(glyphs) if g is not None]
    far = [k for k, guess in enumerate(calibrated)
           if guess.likeness and guess.likeness[0] < UNLIKE_OWN]
    if not far:
        return set()
    stock = stock_of()
    if stock is None:
        return set()
    # All the photo's glyphs, as the stock classifier matches the photo's blur on all of them.
    named = stock.predict(np.stack([glyphs[i].normalised for i in shown]))  # type: ignore[union-attr]
    replaced = set()
    for k in far:
        guess = named[k]
        if guess.letter != BLANK and guess.likeness and (
                guess.likeness[0] > calibrated[k].likeness[0]):
            calibrated[k] = guess
            replaced.add(shown[k])
    return replaced


def marks_above(glyphs: list[Glyph | None]) -> list[bool]:
    """Whether each glyph carries marks above its letter (the dots of Ä, Ö, Ü).

    Dots far enough from the letter are separate ink (``Glyph.marked``); dots that touch it
    make the glyph taller than the photo's other letters: on real tiles umlauts stand 1.27
    times the median letter height and every other letter at most 1.09 times.

    >>> from vision.glyphs import Glyph
    >>> def g(height): return Glyph(np.zeros((24, 24), np.float32), np.zeros((1, 1)), height)
    >>> marks_above([g(0.46), g(0.47), g(0.58), None, g(0.45)])
    [False, False, True, False, False]
    """
    heights = [g.height for g in glyphs if g is not None]
    typical = float(median(heights)) if len(heights) >= 3 else None
    return [
        g is not None and (g.marked or (typical is not None and g.height > MARKED_HEIGHT * typical))
        for g in glyphs
    ]


def with_marks(letter: str, marked: bool, tileset: TileSet) -> str:
    """The tile-set letter matching the marks seen above a glyph.

    Readers tend to lose an umlaut's two small dots; when the glyph's own ink shows marks
    above the letter, the letter with those marks is meant.  (No marks seen proves nothing:
    dots touching the letter join its stroke.)  Only letters of the tile set are returned.

    >>> de = TileSet.named("de")
    >>> with_marks("A", True, de), with_marks("Ö", False, de), with_marks("E", True, de)
    ('Ä', 'Ö', 'E')
    """
    base = unicodedata.normalize("NFD", letter)
    if marked and len(base) == 1:
        above = [
            tile for tile in tileset.letters
            if len(decomposed := unicodedata.normalize("NFD", tile)) == 2
            and decomposed[0] == letter and unicodedata.combining(decomposed[1]) == 230
        ]
        return above[0] if len(above) == 1 else letter
    return letter


def _unseen_from_stock(
    unsure: list[int], glyphs: list[Glyph | None], guesses: list[LetterGuess | None],
    sources: list[str], classifier: LetterClassifier,
    stock_of: Callable[[], LetterClassifier | None],
) -> set[int]:
    """Where the stock classifier surely reads a letter that the calibrated one has never
    learnt, that letter, unless the glyph matches the user's own samples of the letter chosen
    so far (:data:`KNOWN_SIMILARITY`): Tesseract's letter is then not the glyph's either, had
    the user's tiles of it been learnt.  (On the real game, Tesseract read an Ö as S and a Z as
    Y that no profile had learnt yet; the stock classifier read them right, with confidence
    0.95 and 0.84.)  ``guesses`` and ``sources`` are changed in place.

    Returns the glyphs left that may still be of an unseen letter: the stock classifier's
    guess is one, or the glyph matches none of the user's samples of the letter chosen."""
    lettered = [i for i in unsure if glyphs[i] is not None]
    if not lettered:
        return set()
    stock = stock_of()
    unseen = set() if stock is None else set(stock.letters) - classifier.letters - {BLANK}
    if stock is None or not unseen:
        return set()
    shapes = np.stack([glyphs[i].normalised for i in lettered])  # type: ignore[union-attr]
    named = stock.predict(shapes)
    chosen = [g.letter if g is not None else BLANK for g in (guesses[i] for i in lettered)]
    own = classifier.similarity_to(shapes, chosen)
    maybe: set[int] = set()
    for i, guess, similarity in zip(lettered, named, own, strict=True):
        if guess.letter in unseen and guess.confidence >= ACCEPT and (
            similarity < KNOWN_SIMILARITY
        ):
            guesses[i], sources[i] = guess, "stock"
        elif guess.letter in unseen or similarity < KNOWN_SIMILARITY:
            maybe.add(i)
    return maybe


def _unlearnt_checked(
    named: list[tuple[int, LetterGuess]], glyphs: list[Glyph | None],
    guesses: list[LetterGuess | None], sources: list[str],
    stock_of: Callable[[], LetterClassifier | None] | None,
) -> None:
    """Where Tesseract named a letter a profile has not learnt in place of the profile's
    (``named``: index and the profile's guess), keep the profile's letter unless the stock
    classifier, which has learnt every letter, finds the glyph nearly as like Tesseract's
    letter as like its own likeliest (:func:`_nearly_as_like`).  ``guesses`` and ``sources``
    change in place.

    Tesseract is sure of letters in blurred glyphs that look nothing like them (on a real
    motion-blurred photo: S read T, Z read B, D read B, R read F, with confidence up to
    0.94); the stock classifier is a second witness that has seen every letter."""
    stock = None if stock_of is None else stock_of()
    if stock is None:
        return
    seen = [glyphs[i] for i, _ in named]
    ranked = stock.predict(np.stack([g.normalised for g in seen]))  # type: ignore[union-attr]
    for (i, before), witness in zip(named, ranked, strict=True):
        letter = guesses[i].letter  # type: ignore[union-attr]
        if witness.likeliest and not _nearly_as_like(witness, letter):
            guesses[i], sources[i] = before, "classifier"


def _combine(
    calibrated: LetterGuess | None, uncalibrated: LetterGuess, classifier: LetterClassifier | None
) -> tuple[LetterGuess, str]:
    if calibrated is None or calibrated.letter == BLANK:
        return uncalibrated, "tesseract"
    if uncalibrated.letter == calibrated.letter:
        surest = max(calibrated.confidence, uncalibrated.confidence)
        return LetterGuess(calibrated.letter, surest), "classifier"
    if uncalibrated.letter == BLANK:
        return calibrated, "classifier"
    if classifier is not None and uncalibrated.letter not in classifier.letters and (
        (calibrated.similarity or 0.0) < KNOWN_SIMILARITY
        or uncalibrated.confidence > calibrated.confidence
    ):
        return uncalibrated, "tesseract"  # a letter never seen: only Tesseract can know it
    # Both readers know the letter they propose.  A profile's classifier, learnt from the
    # user's own tiles, is right far more often than Tesseract even where it all but guesses:
    # it keeps its letter.  The stock classifier is overruled where it all but guesses, with
    # a letter the glyph looks like to it at all (among its likeliest).
    if classifier is not None and not classifier.stock:
        return calibrated, "classifier"
    if calibrated.confidence < OVERRULE and uncalibrated.confidence > calibrated.confidence and (
        not calibrated.likeliest or _nearly_as_like(calibrated, uncalibrated.letter)
    ):
        if _gap(calibrated, uncalibrated.letter) >= OVERRULED_UNSURE_FROM:
            # Right about half the time in this band: said so, not with Tesseract's certainty.
            return LetterGuess(uncalibrated.letter,
                               min(uncalibrated.confidence, OVERRULED_CONFIDENCE)), "tesseract"
        return uncalibrated, "tesseract"
    return calibrated, "classifier"


def _gap(guess: LetterGuess, letter: str) -> float:
    """How much less like ``letter`` the classifier finds the glyph than like its likeliest
    (0 where it has no similarities for it).

    >>> round(_gap(LetterGuess("O", 0.1, 0.7, ("O", "G", "Q"), (0.73, 0.70, 0.65)), "G"), 6)
    0.03
    """
    if letter not in guess.likeliest or len(guess.likeness) <= guess.likeliest.index(letter):
        return 0.0
    return guess.likeness[0] - guess.likeness[guess.likeliest.index(letter)]


def _nearly_as_like(guess: LetterGuess, letter: str) -> bool:
    """Whether ``letter`` is among the :data:`OVERRULE_AMONG` likeliest of a classifier's
    ``guess`` and the glyph no more than :data:`OVERRULE_GAP` less like it than like the
    likeliest (without similarities, being among them is enough).

    >>> guess = LetterGuess("E", 0.1, 0.8, ("E", "F", "L"), (0.8, 0.78, 0.6))
    >>> _nearly_as_like(guess, "F"), _nearly_as_like(guess, "L"), _nearly_as_like(guess, "O")
    (True, False, False)
    """
    ranked = guess.likeliest[:OVERRULE_AMONG]
    if letter not in ranked:
        return False
    if len(guess.likeness) < len(ranked):
        return True
    return _gap(guess, letter) <= OVERRULE_GAP
