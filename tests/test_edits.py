"""Edits of past events (scorer.edits) and the endings a game can have now (agreement,
resignation, a loss on time), over generated games: an edit rescores the game exactly as a
fresh replay of the edited record does, a refused edit changes nothing, and the inverse edit
restores the game exactly."""

from __future__ import annotations

import functools
import string
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.edits import Action, Edit, EditError, actions_of, edit_game, replay_actions
from scorer.game import EndReason, EventKind, Game, GameError
from scorer.gcg import read_gcg, replay, write_gcg
from scorer.lexicon import Lexicon
from scorer.movegen import generate_game

#: Generated games the edits are made on (about a second each to generate).
SEEDS = (1, 2, 3, 4, 5)
#: Edits tried by the property test; at least these many must be made and refused each.
EXAMPLES = 300
MIN_MADE, MIN_REFUSED = 40, 40
#: Letters a changed letter is mostly drawn from.
COMMON = "AEIOSTRNL"


@functools.cache
def games() -> tuple[Game, ...]:
    """Each generated game twice: with every rack recorded (a changed letter then often
    contradicts a later rack, and is refused) and with none (as a camera records it)."""
    lexicon = Lexicon.default()
    out = []
    for seed in SEEDS:
        game = replay(read_gcg(generate_game(seed, lexicon, choose_among=3).to_gcg())).game
        rackless = [a.but(rack=None) for a in actions_of(game)]
        out += [game, replay_actions(game, rackless)]
    return tuple(out)


def some_edit(game: Game, pick: Callable[[int], int]) -> Edit:
    """An edit of one of the kinds people make: a letter or a blank's letter changed, a play
    moved or given to the other player, an event deleted, a pass, an adjustment, a
    withdrawal or a lost turn inserted.  Many are impossible; those must be refused."""
    actions = actions_of(game)
    k = pick(len(actions))
    action = actions[k]
    how = pick(12)
    if action.kind is EventKind.PLAY and how < 6:
        assert action.word is not None and action.position is not None
        word = list(action.word)
        new = [i for i, t in enumerate(word) if t != "."]
        i = new[pick(len(new))]
        if how == 0:  # a blank named, or a blank that was a letter
            word[i] = word[i].swapcase()
        elif how in (1, 2, 3):  # another letter read (mostly a common one: most are misread)
            letters = COMMON if how < 3 else string.ascii_uppercase
            letter = letters[pick(len(letters))]
            word[i] = letter if word[i].isupper() else letter.lower()
        elif how == 4:  # one square along
            position = action.position
            number = "".join(c for c in position if c.isdigit())
            column = "".join(c for c in position if c.isalpha())
            shifted = str(min(15, int(number) + 1))
            position = shifted + column if position[0].isdigit() else column + shifted
            return Edit.replace(k, action.but(position=position, rack=None))
        else:  # the other player's
            return Edit.replace(k, action.but(player=1 - (action.player or 0)))
        return Edit.replace(k, action.but(word="".join(word), rack=None))
    if how in (6, 7):
        return Edit.delete(k)
    if how in (8, 9):
        return Edit.insert(k, Action(EventKind.ADJUSTMENT, pick(2), score=pick(41) - 20,
                                     note="scorekeeper's slip"))
    if how == 10:
        return Edit.insert(k, Action(EventKind.PASS, pick(2)))
    outcome = (Action(EventKind.WITHDRAWN), Action(EventKind.LOST_TURN, pick(2)))[pick(2)]
    return Edit.insert(k + 1, outcome)


def position(game: Game) -> tuple:
    """Everything a game's state is made of that a person sees."""
    return (game.events, game.scores, game.board.cells, game.turn, game.bag_count(),
            game.end_reason, game.rack_counts)


def check_edit(game: Game, edit: Edit, outcomes: Counter[str]) -> None:
    before = position(game)
    actions = actions_of(game)
    try:
        edited = edit_game(game, edit)
    except EditError as exc:
        outcomes["refused"] += 1
        outcomes["refused " + exc.code] += 1
        assert position(game) == before  # nothing changed
        assert 1 <= exc.number <= len(edit.applied_to(actions))
        assert str(exc).startswith(f"event {exc.number} (")
        return
    outcomes["made"] += 1
    assert position(game) == before  # the edited game is a new one
    # Events before the edit are untouched; the rest is exactly a fresh replay of the record.
    assert edited.events[: edit.index] == game.events[: edit.index]
    again = replay(read_gcg(write_gcg(edited)), edited.rules).game
    assert [(e.kind, e.player, e.score, e.total) for e in again.events] == [
        (e.kind, e.player, e.score, e.total) for e in edited.events]
    assert again.events == edited.events
    assert position(again) == position(edited)
    # Undo: the inverse edit, made on the edited list, restores the game exactly.
    undone = edit.inverse(actions).applied_to(edit.applied_to(actions))
    assert position(replay_actions(game, undone)) == before


def test_edits_rescore_like_a_fresh_replay_and_undo_exactly():
    outcomes: Counter[str] = Counter()
    pool = games()

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        game = pool[data.draw(st.integers(0, len(pool) - 1))]
        edit = some_edit(game, lambda n: data.draw(st.integers(0, max(n - 1, 0))))
        check_edit(game, edit, outcomes)

    check()
    print(f"{EXAMPLES} edits: {dict(outcomes)}")
    assert outcomes["made"] >= MIN_MADE and outcomes["refused"] >= MIN_REFUSED, outcomes


def test_every_generated_game_replays_from_its_actions():
    for game in games():
        assert edit_game(game, Edit.insert(len(game.events), Action(
            EventKind.ADJUSTMENT, 0, score=0, note="nothing"))).events[:-1] == game.events


def test_refusal_names_the_event_and_the_rules_reason():
    game = Game(["Ann", "Ben"])
    game.play("8F", "HORN")
    game.play("H6", "FA.M")
    game.play("10F", "PASTE")
    with pytest.raises(EditError) as caught:  # FARM's A gone: PASTE hangs in the air
        edit_game(game, Edit.replace(1, Action(EventKind.PLAY, 1, "7I", "AN")))
    assert caught.value.number == 3
    assert str(caught.value) == (
        "event 3 (Ann's play 10F PASTE): not_connected: the play touches no tile already on "
        "the board")
    with pytest.raises(GameError, match="no_such_event: there is no event 9"):
        edit_game(game, Edit.delete(8))


def test_a_challenge_outcome_is_changed_and_later_scores_follow():
    game = Game(["Ann", "Ben"])
    game.play("8F", "HORN")
    game.lose_turn(1)  # the challenge of HORN failed: Ben loses his turn
    game.play("H6", "FA.M")  # ... so Ann plays again
    assert game.scores == [23, 0]
    withdrawn = Action(EventKind.WITHDRAWN)
    # Withdrawn, HORN is off the board and the turn is Ben's: the play through its R fails.
    with pytest.raises(EditError, match=r"event 3 \(Ben's play H6 FA.M\): played_through"):
        edit_game(game, Edit.replace(1, withdrawn))
    shorter = edit_game(game, Edit.delete(2))
    phony = edit_game(shorter, Edit.replace(1, withdrawn))
    assert phony.scores == [0, 0] and phony.turn == 1
    assert edit_game(phony, Edit.replace(1, actions_of(shorter)[1])).events == shorter.events


# -- endings: agreement, resignation, a loss on time ----------------------------------------


def started() -> Game:
    game = Game(["Ann", "Ben"])
    game.play("8F", "HORN")
    game.play("G6", "FA.M")
    return game


def read_back(game: Game) -> Game:
    again = replay(read_gcg(write_gcg(game)), game.rules)
    assert not again.mismatches, again.mismatches
    return again.game


def test_end_by_agreement_deducts_each_own_rack_and_nobody_gains():
    game = started()
    game.end_by_agreement()
    events = game.end_game({0: "QAEIRST", 1: "EEIIOOU"})
    assert [(e.player, e.score) for e in events] == [(0, -16), (1, -7)]
    assert game.scores == [14 - 16, 13 - 7] and game.end_reason is EndReason.AGREEMENT
    assert game.racks_settled() and game.winner() == [1]
    again = read_back(game)
    assert again.scores == game.scores and again.events == game.events
    assert ">Ann: (agreed) +0 14" in write_gcg(game)


def test_end_by_agreement_needs_every_rack_in_full():
    game = started()
    game.end_by_agreement()
    with pytest.raises(GameError, match="rack_required: .*missing: Ben"):
        game.end_game({0: "QAEIRST"})
    with pytest.raises(GameError, match="rack_size_mismatch: Ben holds 7 tiles, but the rack"):
        game.end_game({0: "QAEIRST", 1: "EEI"})
    assert len(game.events) == 3 and not game.racks_settled()
    with pytest.raises(GameError, match="game_over"):
        game.pass_turn()


@pytest.mark.parametrize(("end", "reason"), [("resign", EndReason.RESIGNED),
                                             ("lose_on_time", EndReason.TIMEOUT)])
def test_resignation_and_loss_on_time_lose_whatever_the_scores(end, reason):
    game = started()
    getattr(game, end)(0)  # Ann leads 14 to 13 and loses all the same
    assert game.end_reason is reason and game.loser == 0 and game.winner() == [1]
    game.time_penalty(1, 2)
    again = read_back(game)
    assert again.scores == game.scores == [14, 13 - 20]
    assert again.winner() == [1] and again.end_reason is reason
    # Taking the ending back leaves the time penalty in a game not over: refused, named.
    with pytest.raises(EditError, match=r"event 3 \(Ben's time penalty\): game_not_over"):
        edit_game(game, Edit.delete(2))
    assert edit_game(game, Edit.delete(3)).loser == 0


def test_a_pass_nobody_saw_inserted_passes_the_later_turns_on():
    # The camera could not see Ben pass after HORN: every later turn was given to the wrong
    # player.  Inserting the pass gives them back, each scored as a fresh replay scores it.
    game = Game(["Ann", "Ben"])
    game.play("8F", "HORN")
    game.play("H6", "FA.M")  # really Ann's second turn
    game.play("10F", "PASTE")  # really Ben's
    fixed = edit_game(game, Edit.insert(1, Action(EventKind.PASS)))
    assert [(e.kind.value, e.player) for e in fixed.events] == [
        ("play", 0), ("pass", 1), ("play", 0), ("play", 1)]
    assert fixed.scores == [14 + 9, 25]
    assert replay(read_gcg(write_gcg(fixed)), fixed.rules).game.scores == fixed.scores
    # Deleting it again restores the game as it was.
    assert edit_game(fixed, Edit.delete(1)).events == game.events
