"""The bundled word list looked up in its sorted text gives the answers of the set of its words."""

from __future__ import annotations

import gzip
import random
from importlib import resources

import pytest

import scorer.lexicon as lexicon_module
from scorer.lexicon import DEFAULT_RESOURCE, Lexicon, _in_sorted_lines

AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def bundled_bytes() -> bytes:
    return resources.files("scorer").joinpath(DEFAULT_RESOURCE).read_bytes()


@pytest.fixture(scope="module")
def as_set() -> Lexicon:
    """The bundled list read the general way (a set of its words)."""
    return Lexicon.from_bytes(bundled_bytes(), source="ENABLE (bundled)", strict=True)


def test_the_bundled_list_is_what_load_default_trusts():
    text = gzip.decompress(bundled_bytes()).decode("ascii")
    assert text.endswith("\n") and "\r" not in text
    words = text[:-1].split("\n")
    assert all(word.isalpha() and word.islower() for word in words)
    assert all(a < b for a, b in zip(words, words[1:], strict=False))  # sorted, each once


def test_load_default_is_the_list_read_as_a_set(as_set):
    fast = Lexicon.load_default()
    assert fast.report == as_set.report
    assert len(fast) == len(as_set) == 172_820
    assert fast.word_lines() == as_set.word_lines()
    assert fast.words == as_set.words  # made from the text when asked for


def test_lookups_in_the_text_answer_as_the_set(as_set):
    fast = Lexicon.load_default()
    rng = random.Random(5)
    words = sorted(as_set.words)
    probes = [words[0], words[-1], "", "A", "AA", "ZZZ", "zyzzyvas", "Qi", "straße", "ÄRGER"]
    for word in rng.sample(words, 3000):
        probes += [word, word.lower(), word + "S", word[:-1], word[1:],
                   word[:-1] + rng.choice(AZ)]
    assert [p in fast for p in probes] == [p in as_set for p in probes]
    assert [fast.is_valid(p) for p in probes[:500]] == [as_set.is_valid(p) for p in probes[:500]]
    assert 12 not in fast  # not a word at all


def test_many_lookups_make_the_set_and_answer_alike(as_set, monkeypatch):
    monkeypatch.setattr(lexicon_module, "SET_AFTER_LOOKUPS", 5)
    fast = Lexicon.load_default()
    probes = ["CAT", "CATS", "XQZ", "ZA", "QI", "DOG", "DOGX", "AARDVARK"]
    answers = [p in fast for p in probes]
    assert fast._words is not None  # past five lookups: the set
    assert answers == [p in as_set for p in probes]


def test_blank_solutions_in_the_text_are_the_sets(as_set):
    fast = Lexicon.load_default()
    for words in ([["Q", 0]], [[0, "S"], ["Q", 0]], [["Z", 0, 1]], [["C", "A", "T"], [0, "X"]]):
        assert fast.blank_solutions(words, AZ) == as_set.blank_solutions(words, AZ)


@pytest.mark.parametrize("seed", range(5))
def test_halving_the_text_finds_every_line_and_nothing_else(seed):
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice("ABC") for _ in range(rng.randint(1, 4)))
                    for _ in range(rng.randint(1, 40))})
    text = "".join(word + "\n" for word in words)
    every = {"".join(p) for n in range(0, 5) for p in _strings("ABCD", n)}
    for candidate in every:
        assert _in_sorted_lines(text, candidate) == (candidate in words), candidate


def _strings(alphabet: str, length: int) -> list[str]:
    if length == 0:
        return [""]
    return [s + ch for s in _strings(alphabet, length - 1) for ch in alphabet]


def test_a_lexicon_without_words_needs_its_sorted_lines():
    with pytest.raises(ValueError):
        Lexicon(None, lexicon_module.LexiconReport("x"), "CAT\n")
