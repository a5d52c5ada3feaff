"""Word lists: loading, junk reporting, case-insensitive lookup and blank solving."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from scorer.lexicon import JunkLine, Lexicon, LexiconError, normalise
from scorer.tiles import TileSet

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# -- loading -----------------------------------------------------------------------------------


def test_plain_file_with_comments_blank_lines_and_mixed_case(tmp_path):
    path = write(tmp_path / "words.txt", b"# a comment\ncat\n\n  Dog  \nEMU\n#another\n")
    lex = Lexicon.from_file(path)
    assert lex.words == {"CAT", "DOG", "EMU"}
    assert len(lex) == 3
    assert lex.report.junk == []
    assert lex.report.lines == 6
    assert lex.report.encoding == "utf-8"


def test_gzip_detected_by_magic_bytes_not_name(tmp_path):
    data = gzip.compress("ärger\nqi\n".encode())
    for name in ("words.txt.gz", "words.txt"):
        lex = Lexicon.from_file(write(tmp_path / name, data))
        assert lex.words == {"ÄRGER", "QI"}, name


def test_plain_file_named_gz_is_read_as_text(tmp_path):
    lex = Lexicon.from_file(write(tmp_path / "words.gz", b"qi\n"))
    assert lex.words == {"QI"}


def test_corrupt_gzip_names_the_file(tmp_path):
    data = gzip.compress(b"qi\nza\n" * 100)
    path = write(tmp_path / "bad.gz", data[: len(data) // 2])
    with pytest.raises(LexiconError, match="bad.gz") as info:
        Lexicon.from_file(path)
    assert info.value.source == str(path)


def test_latin1_fallback(tmp_path):
    path = write(tmp_path / "de.txt", "Ärger\nöde\nÜBEL\n".encode("latin-1"))
    lex = Lexicon.from_file(path)
    assert lex.report.encoding == "latin-1"
    assert lex.words == {"ÄRGER", "ÖDE", "ÜBEL"}
    assert "ärger" in lex and "Öde" in lex


def test_utf8_with_bom_and_decomposed_umlauts(tmp_path):
    decomposed = "A\u0308rger"  # A + combining diaeresis
    path = write(tmp_path / "de.txt", ("\ufeff" + decomposed + "\nzug\n").encode())
    lex = Lexicon.from_file(path)
    assert lex.report.encoding == "utf-8"
    assert lex.report.junk == []
    assert lex.words == {"ÄRGER", "ZUG"}
    assert decomposed in lex and "ärger" in lex


def test_crlf_and_cr_line_endings(tmp_path):
    crlf = Lexicon.from_file(write(tmp_path / "crlf.txt", b"cat\r\n\r\nd0g\r\ndog\r\n"))
    assert crlf.words == {"CAT", "DOG"}
    assert crlf.report.junk == [JunkLine(3, "d0g", "contains a digit")]
    cr = Lexicon.from_file(write(tmp_path / "cr.txt", b"cat\rdog\r"))
    assert cr.words == {"CAT", "DOG"}


def test_junk_lines_reported_with_exact_line_numbers(tmp_path):
    lines = [
        "# header",  # 1
        "cat",  # 2
        "c4t",  # 3
        "",  # 4
        "ice cream",  # 5
        "don't",  # 6
        "dog",  # 7
        "x-ray",  # 8
        "42",  # 9
        "emu",  # 10
    ]
    path = write(tmp_path / "words.txt", ("\n".join(lines) + "\n").encode())
    lex = Lexicon.from_file(path)
    assert lex.words == {"CAT", "DOG", "EMU"}
    assert [(j.line_number, j.text) for j in lex.report.junk] == [
        (3, "c4t"),
        (5, "ice cream"),
        (6, "don't"),
        (8, "x-ray"),
        (9, "42"),
    ]
    reasons = [j.reason for j in lex.report.junk]
    assert reasons[0] == "contains a digit"
    assert reasons[1] == "contains a space"
    assert "'" in reasons[2] and "not a letter" in reasons[2]
    assert "lines 3, 5, 6, 8, 9" in lex.report.summary()


def test_letters_outside_the_tile_set_are_junk(tmp_path):
    path = write(tmp_path / "es.txt", "charro\nkiwi\nniño\nÄrger\n".encode())
    lex = Lexicon.from_file(path, tileset="es")
    assert lex.words == {"CHARRO", "NIÑO"}
    assert [(j.line_number, j.reason) for j in lex.report.junk] == [
        (2, "letter 'K' is not in the tile set"),
        (4, "letter 'Ä' is not in the tile set"),
    ]
    # Without a tile set any letter is accepted.
    assert len(Lexicon.from_file(path)) == 4


def test_catalan_middle_dot_allowed_only_with_the_tile_set():
    lex = Lexicon.from_words(["col·legi", "quan"], tileset=TileSet.named("ca"))
    assert "COL·LEGI" in lex
    with pytest.raises(LexiconError, match="not a letter"):
        Lexicon.from_words(["col·legi"])


def test_strict_mode_names_file_and_line(tmp_path):
    path = write(tmp_path / "words.txt", b"cat\n\ndog\nd0g\nemu\n")
    with pytest.raises(LexiconError) as info:
        Lexicon.from_file(path, strict=True)
    assert str(info.value).startswith(f"{path}:4: contains a digit")
    assert info.value.line_number == 4
    assert info.value.source == str(path)


def test_unreadable_file_names_it(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(LexiconError, match="nope.txt"):
        Lexicon.from_file(missing)
    with pytest.raises(LexiconError, match="cannot read"):
        Lexicon.from_file(tmp_path)  # a directory


def test_from_words_is_strict_by_default_and_rejects_a_bare_string():
    with pytest.raises(LexiconError, match="<words>:2"):
        Lexicon.from_words(["cat", "c4t"])
    assert Lexicon.from_words(["cat", "c4t"], strict=False).words == {"CAT"}
    with pytest.raises(TypeError):
        Lexicon.from_words("cat")


def test_duplicates_counted():
    lex = Lexicon.from_words(["cat", "CAT", "Cat", "dog"])
    assert len(lex) == 2
    assert lex.report.duplicates == 2


# -- lookup ------------------------------------------------------------------------------------


def test_membership_is_case_insensitive():
    lex = Lexicon.from_words(["Qi", "za", "ÄRGER", "żółw", "charro"])
    for word in ("qi", "QI", "qI", "ZA", "Za", "ärger", "Ärger", "ŻÓŁW", "żółw", "CHarro"):
        assert word in lex, word
        assert lex.is_valid(word), word
    for word in ("q", "qis", "arger", "zolw", "", "ch"):
        assert word not in lex, word
        assert not lex.is_valid(word), word
    assert 42 not in lex
    assert None not in lex


def test_sharp_s_keeps_its_length():
    # "ß".upper() is "SS": such a letter stays as it is so the word keeps one character per
    # square, and the rest still compares case-insensitively.
    assert normalise("straße") == "STRAßE"
    lex = Lexicon.from_words(["Straße"])
    assert "STRAßE" in lex and "straße" in lex and "sTrAßE" in lex
    assert "STRASSE" not in lex
    assert len(next(iter(lex))) == len("straße")


# -- blanks ------------------------------------------------------------------------------------


@pytest.fixture
def small() -> Lexicon:
    return Lexicon.from_words(
        ["QI", "QIS", "IS", "AS", "ZA", "ZAS", "CAT", "CUT", "COT", "AT", "UT", "TA", "OX", "AX"]
    )


def test_one_blank_unique(small):
    assert small.blank_solutions([["Q", 0]], AZ) == [{0: "I"}]


def test_one_blank_several_letters_sorted(small):
    assert small.blank_solutions([["C", 0, "T"]], AZ) == [{0: "A"}, {0: "O"}, {0: "U"}]


def test_blank_in_main_word_and_cross_word(small):
    # C?T across, the blank also starts a two-letter word down with T below it.
    assert small.blank_solutions([["C", 0, "T"], [0, "T"]], AZ) == [{0: "A"}, {0: "U"}]
    # A cross word ?X allows A and O (AX, OX), which rules out CUT.
    assert small.blank_solutions([["C", 0, "T"], [0, "X"]], AZ) == [{0: "A"}, {0: "O"}]


def test_two_blanks(small):
    assert small.blank_solutions([["Z", 0, 1]], AZ) == [{0: "A", 1: "S"}]
    both = small.blank_solutions([[0, 1]], AZ)
    expected = sorted(
        ({0: w[0], 1: w[1]} for w in small.words if len(w) == 2), key=lambda d: (d[0], d[1])
    )
    assert both == expected
    # Each blank also in its own cross word.
    assert small.blank_solutions([[0, 1], [0, "X"], ["U", 1]], AZ) == [{0: "A", 1: "T"}]


def test_limit_stops_early(small):
    assert small.blank_solutions([["C", 0, "T"]], AZ, limit=2) == [{0: "A"}, {0: "O"}]
    assert small.blank_solutions([["C", 0, "T"]], AZ, limit=0) == []


def test_no_solution(small):
    assert small.blank_solutions([["X", 0]], AZ) == []
    assert small.blank_solutions([["Q", 0], [0, "T"]], AZ) == []
    # A word without blanks that is invalid rules out everything.
    assert small.blank_solutions([["C", 0, "T"], ["Z", "Z"]], AZ) == []


def test_no_blanks_is_one_empty_assignment(small):
    assert small.blank_solutions([["Q", "I"]], AZ) == [{}]
    assert small.blank_solutions([["Q", "X"]], AZ) == []


def test_alphabet_limits_letters_and_accepts_a_tile_set():
    lex = Lexicon.from_words(["CHE", "CE", "LLE"])
    spanish = TileSet.named("es")
    assert lex.blank_solutions([[0, "E"]], spanish) == [{0: "C"}, {0: "CH"}, {0: "LL"}]
    assert lex.blank_solutions([[0, "E"]], ["CH", "LL"]) == [{0: "CH"}, {0: "LL"}]
    assert lex.blank_solutions([[0, "E"]], "AB") == []


def test_lower_case_known_letters_and_bad_items(small):
    assert small.blank_solutions([["q", 0]], AZ) == [{0: "I"}]
    with pytest.raises(TypeError):
        small.blank_solutions([["Q", 1.0]], AZ)
    with pytest.raises(TypeError):
        small.blank_solutions([["Q", True]], AZ)


def test_blank_solutions_on_enable():
    lex = Lexicon.default()
    # QAT: the only Q?T word; a cross word through the blank ("?N") still allows A.
    assert lex.blank_solutions([["Q", 0, "T"]], AZ) == [{0: "A"}]
    assert lex.blank_solutions([["Q", 0, "T"], [0, "N"]], AZ) == [{0: "A"}]
    # Two blanks: every solution spells a word and none is missed.
    found = lex.blank_solutions([["Q", 0, 1, "T"]], AZ)
    words = {"Q" + s[0] + s[1] + "T" for s in found}
    assert words == {w for w in lex.words if len(w) == 4 and w[0] == "Q" and w[3] == "T"}


# -- the bundled list --------------------------------------------------------------------------


def test_bundled_enable():
    lex = Lexicon.default()
    assert len(lex) == 172_820
    assert lex.report.junk == []
    assert Lexicon.default() is lex  # cached
    for word in ("qat", "XI", "xu", "Zyzzyvas", "aa"):
        assert word in lex, word
    # ENABLE (1997) predates the 2006 additions QI and ZA to North American lists.
    for word in ("XYZZY", "QI", "ZA"):
        assert word not in lex, word


def test_bundled_enable_matches_the_shared_copy():
    source = SHARED / "data" / "wordlists" / "enable1.txt"
    if not source.exists():
        pytest.skip(f"shared word list not present at {source}")
    expected = {line.strip().upper() for line in source.read_text().splitlines() if line.strip()}
    assert Lexicon.default().words == expected


def test_a_clean_list_taken_whole_gives_the_same_words_and_report_as_line_by_line():
    from importlib import resources

    from scorer.lexicon import DEFAULT_RESOURCE

    data = gzip.decompress(resources.files("scorer").joinpath(DEFAULT_RESOURCE).read_bytes())
    whole = Lexicon.from_bytes(data + b"qi\r\nCat\n", source="x")
    by_line = Lexicon.from_lines((data + b"qi\r\nCat\n").decode("ascii").split("\n")[:-1],
                                 source="x")
    assert whole.words == by_line.words and "QI" in whole.words
    assert (whole.report.lines, whole.report.duplicates, whole.report.junk) == (
        by_line.report.lines, by_line.report.duplicates, by_line.report.junk) == (172822, 1, [])
    # A junk line anywhere sends the list line by line, and is reported with its number.
    junky = Lexicon.from_bytes(b"cat\nd0g\n\n# note\nemu\n", source="y")
    assert sorted(junky.words) == ["CAT", "EMU"]
    assert [(j.line_number, j.text) for j in junky.report.junk] == [(2, "d0g")]
