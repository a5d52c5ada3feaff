"""scorer.game: turn order, every event, rule settings, the end of the game, and undo."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.game import (
    FINISH_LINE_TARGETS,
    ChallengeRule,
    EndReason,
    EventKind,
    Game,
    GameError,
    OutBonus,
    Rules,
)
from scorer.squares import Square
from scorer.tiles import TileSet

ENABLE_SAMPLE = {"HORN", "FARM", "PASTE", "FARMS", "MOB", "NOT", "BE", "QI", "AT"}


def tiny_set() -> TileSet:
    """20 tiles (10 A worth 1, 10 B worth 3): a game reaches an empty bag in two plays."""
    return TileSet("xx", "tiny", {"A": 10, "B": 10}, {"A": 1, "B": 3}, frozenset({"A"}))


def snapshot(game: Game) -> dict:
    """Everything observable about a game's state."""
    return {
        "board": game.board.rows(),
        "scores": game.scores,
        "turn": game.turn,
        "over": game.over,
        "reason": game.end_reason,
        "out": game.out_player,
        "scoreless": game.consecutive_scoreless,
        "bag": game.bag_count(),
        "racks": game.rack_counts,
        "known": [game.known_rack(p) for p in range(len(game.players))],
        "unseen": [game.unseen(p) for p in [None, *range(len(game.players))]],
        "events": game.events,
        "pending": game.pending_challenge(),
        "last_play": game.last_play(),
        "settled": game.racks_settled(),
    }


def refused(game: Game, call, code: str) -> None:
    """``call`` raises GameError(code) and leaves the game exactly as it was."""
    before = snapshot(game)
    with pytest.raises(GameError) as info:
        call()
    assert info.value.code == code, info.value
    assert snapshot(game) == before


def went_out_game(rules: Rules | None = None) -> Game:
    """Two players, tiny tile set: Ann opens, Ben plays his seven tiles with the bag empty."""
    game = Game(["Ann", "Ben"], tiny_set(), rules or Rules())
    assert game.bag_count() == 6
    game.play("8C", "AAABBB")  # Ann draws the last 6
    assert game.bag_count() == 0
    game.play("I2", "AAAAAAB")  # Ben: 7 tiles, I2..I8, touching H8
    return game


# ------------------------------------------------------------------ rules settings


def test_rules_round_trip_and_validation():
    rules = Rules(challenge="five", rack_size=9, scoreless_turns_to_end=4, finish_line=120,
                  out_bonus="double")  # fmt: skip
    assert rules.challenge is ChallengeRule.FIVE_POINT and rules.out_bonus is OutBonus.DOUBLE
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert sorted(rules.bingo_sizes) == [7, 8, 9] and sorted(Rules().bingo_sizes) == [7]
    for bad in ({"rack_size": 8}, {"challenge": "maybe"}, {"finish_line": 0},
                {"scoreless_turns_to_end": -1}):  # fmt: skip
        with pytest.raises(ValueError):
            Rules(**bad)
    with pytest.raises(ValueError):
        Rules.from_dict({"rack": 7})


def test_finish_line_targets_from_the_rule_sheet():
    assert Rules.finish_line_for(2, "expert") == 200
    assert Rules.finish_line_for(3, "intermediate") == 100
    assert Rules.finish_line_for(4, "beginner") == 50
    assert FINISH_LINE_TARGETS[3]["expert"] == 180
    with pytest.raises(ValueError):
        Rules.finish_line_for(5, "expert")


# ------------------------------------------------------------------ set-up and turn order


def test_players_and_initial_bag():
    assert Game(["A", "B"]).bag_count() == 100 - 14
    assert Game(["A", "B", "C", "D"]).bag_count() == 100 - 28
    assert Game(["A", "B"], rules=Rules(rack_size=9)).bag_count() == 100 - 18
    assert Game(["A", "B"], "de").bag_count() == TileSet.named("de").total_tiles - 14
    for players in (["solo"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(GameError) as info:
            Game(players)
        assert info.value.code == "bad_players"


def test_turns_go_round_and_out_of_turn_is_refused():
    game = Game(["A", "B", "C"])
    game.play("8F", "HORN")
    assert game.turn == 1
    refused(game, lambda: game.play("H6", "FA.M", player=2), "not_your_turn")
    game.play("H6", "FA.M", player=1)
    game.pass_turn()
    assert game.turn == 0 and game.scores == [14, 9, 0]


def test_illegal_plays_are_refused_with_the_rule_code():
    game = Game(["A", "B"])
    refused(game, lambda: game.play("1A", "AT"), "first_play_off_star")
    game.play("8F", "HORN")
    refused(game, lambda: game.play("1A", "AT"), "not_connected")
    refused(game, lambda: game.play("8F", "HORN"), "no_tiles")
    refused(game, lambda: game.play("H8", "SAPIENT"), "square_taken")
    refused(game, lambda: game.play("Q8", "AT"), "bad_position")
    refused(game, lambda: game.play("8J", ".S"), "played_through_mismatch")
    refused(game, lambda: game.play("8J", "STRAINED"), "off_board")


def test_rack_checks():
    game = Game(["A", "B"])
    refused(game, lambda: game.play("8G", "QI", rack="QQIAEST"), "rack_not_in_bag")
    refused(game, lambda: game.play("8G", "QI", rack="AEIRST"), "tiles_not_in_rack")
    refused(game, lambda: game.play("8G", "QI", rack="QI3"), "rack_malformed")
    refused(game, lambda: game.play("8G", "QI", rack="QIAEIRST"), "rack_malformed")
    event = game.play("8G", "QI", rack="AEIQRST")
    assert event.rack == "AEIQRST" and game.known_rack(0) == "AERST"
    assert game.unseen(0)["Q"] == 0 and game.unseen(0)["A"] == 8 and game.unseen(1)["A"] == 9


def test_placing_more_tiles_than_the_rack_holds():
    game = Game(["A", "B"], tiny_set())
    game.play("8C", "AAABBB")  # the bag is empty now
    game.play("I7", "AA")  # Ben keeps 5 tiles and draws none
    game.pass_turn()
    assert game.rack_counts == [7, 5]
    refused(game, lambda: game.play("9A", "BBBBBB"), "too_many_tiles")


def test_place_infers_direction_and_needs_named_blanks():
    game = Game(["A", "B"])
    game.place({Square.parse("H8"): "H", Square.parse("H9"): "O"})
    assert game.last_play().play.position == "H8"
    refused(game, lambda: game.place({Square.parse("I8"): "?"}), "blank_unknown")
    event = game.place({Square.parse("I8"): "i"})
    assert event.play.main.text == "HI" and event.score == 4


# ------------------------------------------------------------------ exchange and pass


def test_exchange_and_the_seven_in_the_bag_rule():
    game = Game(["A", "B"])
    event = game.exchange("QV", rack="AEIQRSV")
    assert (event.kind, event.tiles, event.count, event.score) == (EventKind.EXCHANGE, "QV", 2, 0)
    assert game.known_rack(0) == "AEIRS" and game.consecutive_scoreless == 1
    assert game.exchange(3).count == 3
    refused(game, lambda: game.exchange("ZZ"), "tiles_not_in_bag")
    refused(game, lambda: game.exchange(0), "nothing_to_exchange")
    refused(game, lambda: game.exchange(8), "too_many_tiles")
    small = Game(["A", "B"], tiny_set())  # 6 tiles in the bag
    refused(small, lambda: small.exchange(1), "exchange_bag_too_small")
    lax = Game(["A", "B"], tiny_set(), Rules(exchange_min_bag=1))
    assert lax.exchange(2).count == 2


def test_six_scoreless_turns_end_the_game_and_each_loses_their_rack():
    game = Game(["A", "B"])
    game.play("8F", "HORN")
    for _ in range(5):
        game.pass_turn()
    assert not game.over
    game.exchange(2)
    assert game.over and game.end_reason is EndReason.SCORELESS
    refused(game, lambda: game.pass_turn(), "game_over")
    refused(game, lambda: game.end_game({0: "AEIRST?"}), "rack_required")
    events = game.end_game({0: "AEIRST?", 1: "QUIZJAX"})
    assert game.turn == 1  # the player to move is settled first
    assert [(e.kind, e.player, e.score) for e in events] == [
        (EventKind.END_RACK_PENALTY, 1, -(10 + 1 + 1 + 10 + 8 + 1 + 8)),
        (EventKind.END_RACK_PENALTY, 0, -6),
    ]
    assert game.racks_settled() and game.end_game() == []


def test_scoreless_limit_is_a_setting():
    game = Game(["A", "B"], rules=Rules(scoreless_turns_to_end=2))
    game.pass_turn()
    game.pass_turn()
    assert game.over
    never = Game(["A", "B"], rules=Rules(scoreless_turns_to_end=0))
    for _ in range(20):
        never.pass_turn()
    assert not never.over


# ------------------------------------------------------------------ challenges


def test_withdrawn_phony_restores_board_bag_and_rack():
    game = Game(["A", "B"])
    game.play("8F", "HORN")
    before = snapshot(game)
    game.play("H6", "FA.M", rack="AFMEIST")
    event = game.withdraw(note="phony")
    assert (event.kind, event.player, event.score, event.total) == (EventKind.WITHDRAWN, 1, -9, 0)
    assert event.tiles == "FAM" and event.play.main.text == "FARM"
    assert game.board.rows() == before["board"] and game.bag_count() == before["bag"]
    assert game.turn == 0 and game.consecutive_scoreless == 1
    assert game.known_rack(1) == "AFMEIST"
    refused(game, game.withdraw, "no_play_to_withdraw")


def test_challenge_invalid_word_withdraws():
    game = Game(["A", "B"])
    game.play("8G", "QI")
    result = game.challenge(lambda w: w != "QI")
    assert not result.valid and result.words == [("QI", False)]
    assert [e.kind for e in result.events] == [EventKind.WITHDRAWN]
    assert game.board.tile_count == 0 and game.scores == [0, 0] and game.turn == 1


@pytest.mark.parametrize(
    ("rule", "kinds", "scores", "turn"),
    [
        (ChallengeRule.DOUBLE, [EventKind.LOST_TURN], [22, 0], 0),
        (ChallengeRule.FIVE_POINT, [EventKind.CHALLENGE_BONUS], [27, 0], 1),
        (ChallengeRule.TEN_POINT, [EventKind.CHALLENGE_BONUS], [32, 0], 1),
        (ChallengeRule.SINGLE, [], [22, 0], 1),
    ],
)
def test_challenge_valid_play_per_rule(rule, kinds, scores, turn):
    game = Game(["A", "B"], rules=Rules(challenge=rule))
    game.play("8G", "QI")
    result = game.challenge(ENABLE_SAMPLE.__contains__)
    assert result.valid and result.rule is rule
    assert [e.kind for e in result.events] == kinds
    assert game.scores == scores and game.turn == turn


def test_void_rule_refuses_challenges_and_own_play_cannot_be_challenged():
    void = Game(["A", "B"], rules=Rules(challenge="void"))
    void.play("8G", "QI")
    refused(void, lambda: void.challenge(ENABLE_SAMPLE.__contains__), "challenges_void")
    game = Game(["A", "B"])
    refused(game, lambda: game.challenge(ENABLE_SAMPLE.__contains__), "no_play_to_challenge")
    game.play("8G", "QI")
    refused(game, lambda: game.challenge(ENABLE_SAMPLE.__contains__, 0), "own_play")


def test_challenge_bonus_needs_a_play_and_goes_to_its_player():
    game = Game(["A", "B"])
    refused(game, lambda: game.challenge_bonus(5), "no_play_to_challenge")
    game.play("8G", "QI")
    refused(game, game.challenge_bonus, "no_bonus_rule")  # double rule: no bonus
    event = game.challenge_bonus(5)
    assert (event.player, event.score, event.total) == (0, 5, 27)
    refused(game, game.withdraw, "no_play_to_withdraw")  # a bonus means the play stood
    game.pass_turn()
    refused(game, lambda: game.challenge_bonus(5), "no_play_to_challenge")


def test_lost_turn_of_a_player_not_to_move_is_taken_at_their_turn():
    game = Game(["A", "B", "C"])
    game.play("8G", "QI")  # A; B to move
    game.lose_turn(2)  # C challenged and lost
    assert game.turn == 1
    game.pass_turn()  # B; C's turn is skipped
    assert game.turn == 0 and game.consecutive_scoreless == 2


# ------------------------------------------------------------------ end of the game


def test_going_out_with_the_bag_empty_ends_the_game():
    game = went_out_game()
    assert game.over and game.end_reason is EndReason.OUT and game.out_player == 1
    assert game.last_play().play.bingo
    refused(game, lambda: game.pass_turn(), "game_over")
    refused(game, lambda: game.time_penalty(0, 1), "premature_time_penalty")


def test_two_player_end_needs_no_input_transfer_rule():
    game = went_out_game()
    before = game.scores
    events = game.end_game()
    rack_value = 1 * 1 + 6 * 3  # Ann keeps A BBBBBB: everything not on the board
    assert [(e.kind, e.player, e.score) for e in events] == [
        (EventKind.END_RACK_POINTS, 1, rack_value),
        (EventKind.END_RACK_PENALTY, 0, -rack_value),
    ]
    assert sorted(events[0].tiles) == sorted("ABBBBBB")
    assert game.scores == [before[0] - rack_value, before[1] + rack_value]


def test_two_player_end_double_convention():
    game = went_out_game(Rules(out_bonus=OutBonus.DOUBLE))
    before = game.scores
    (event,) = game.end_game()
    assert event.kind is EventKind.END_RACK_POINTS and event.score == 2 * 19
    assert game.scores == [before[0], before[1] + 38]
    refused(game, lambda: game.end_rack_points(1), "end_points_repeated")


def test_end_rack_checks():
    game = went_out_game()
    refused(game, lambda: game.end_rack_points(0), "not_out_player")
    refused(game, lambda: game.end_rack_points(1, "AB"), "end_rack_mismatch")
    refused(game, lambda: game.end_rack_penalty(1), "went_out")
    refused(game, lambda: game.end_game({1: "A"}), "went_out")
    assert game.derived_rack(0) == "ABBBBBB" and game.derived_rack(1) == ""
    playing = Game(["A", "B"])
    refused(playing, lambda: playing.end_game(), "game_not_over")
    refused(playing, lambda: playing.end_rack_points(0), "game_not_over")
    refused(playing, lambda: playing.time_penalty(0, 2), "game_not_over")


def test_end_game_is_atomic():
    game = Game(["A", "B", "C"], rules=Rules(scoreless_turns_to_end=3))
    for _ in range(3):
        game.pass_turn()
    refused(game, lambda: game.end_game({0: "AEI"}), "rack_required")


def test_lost_turn_after_the_last_play_then_settle():
    game = went_out_game()
    event = game.lose_turn(0)
    assert event.kind is EventKind.LOST_TURN and game.over
    refused(game, lambda: game.lose_turn(0), "game_over")
    game.end_game()
    assert game.racks_settled()


def test_withdrawing_the_last_play_reopens_the_game():
    game = went_out_game()
    game.withdraw()
    assert not game.over and game.turn == 0 and game.rack_counts == [7, 7]


def test_time_penalty_per_started_minute_once_each():
    game = went_out_game()
    game.end_game()
    before = game.scores[0]
    event = game.time_penalty(0, 3)
    assert (event.kind, event.score, event.count) == (EventKind.TIME_PENALTY, -30, 3)
    assert game.scores[0] == before - 30
    refused(game, lambda: game.time_penalty(0, 1), "redundant_time_penalty")
    assert game.time_penalty(1, 0, score=-20).score == -20


def test_finish_line_ends_the_game_without_rack_settlement():
    game = Game(["A", "B"], rules=Rules(finish_line=20))
    game.play("8F", "HORN")  # 14
    game.play("F7", "A.")  # AH, 5
    assert not game.over
    game.play("8J", "S")  # HORNS, 8: A reaches 22
    assert game.over and game.end_reason is EndReason.FINISH_LINE
    refused(game, lambda: game.pass_turn(), "game_over")
    assert game.end_game() == [] and game.racks_settled()
    game.withdraw()
    assert not game.over


def test_adjustment_any_time_and_tie_break_on_score_before_rack_adjustments():
    game = went_out_game()
    ann = game.scores[0]
    event = game.adjust(0, 7, "miscounted tile")
    assert (event.kind, event.note) == (EventKind.ADJUSTMENT, "miscounted tile")
    assert event.total == ann + 7
    game.end_game()  # Ann -19, Ben +19
    diff = game.scores[1] - game.scores[0]
    game.adjust(0, diff, "to make a tie")
    assert game.scores[0] == game.scores[1]
    # Before the rack settlement Ann had 19 more than her final total and Ben 19 less.
    assert game.winner() == [0]


# ------------------------------------------------------------------ undo


def test_undo_restores_the_exact_state_and_refuses_when_empty():
    game = Game(["A", "B"])
    refused(game, game.undo, "nothing_to_undo")
    states = [snapshot(game)]
    game.play("8F", "HORN", rack="EHNORSU")
    states.append(snapshot(game))
    game.play("H6", "FA.M")
    states.append(snapshot(game))
    game.withdraw()
    states.append(snapshot(game))
    game.exchange(7)
    for expected in reversed(states):
        game.undo()
        assert snapshot(game) == expected


def test_events_are_json_able_for_the_web_page():
    game = went_out_game()
    game.end_game()
    for event in game.events:
        data = json.loads(json.dumps(event.to_dict()))
        assert data["kind"] == event.kind.value and data["total"] == event.total
    play = game.events[0].to_dict()["play"]
    assert play["position"] == "8C" and play["words"][0]["word"] == "AAABBB"


# ------------------------------------------------------------------ property: any sequence

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["play", "place", "pass", "exchange", "withdraw", "bonus", "lose",
                         "adjust", "end", "time", "undo"]),
        st.integers(0, 224), st.booleans(), st.integers(1, 7), st.text("ABEIRST", max_size=4),
    ),  # fmt: skip
    max_size=25,
)


def act(game: Game, action: tuple) -> None:
    name, index, across, n, letters = action
    square = Square(index // 15, index % 15)
    if name in ("play", "place"):
        word = letters or "AT"
        if name == "play":
            position = f"{square.row + 1}{'ABCDEFGHIJKLMNO'[square.col]}"
            if not across:
                position = f"{'ABCDEFGHIJKLMNO'[square.col]}{square.row + 1}"
            game.play(position, word)
        else:
            game.place({square: word[0]})
    elif name == "pass":
        game.pass_turn()
    elif name == "exchange":
        game.exchange(n)
    elif name == "withdraw":
        game.withdraw()
    elif name == "bonus":
        game.challenge_bonus(n)
    elif name == "lose":
        game.lose_turn(index % 2)
    elif name == "adjust":
        game.adjust(index % 2, n - 4, "test")
    elif name == "end":
        game.end_game({0: letters} if letters else None)
    elif name == "time":
        game.time_penalty(index % 2, n)
    else:
        game.undo()


@settings(max_examples=150, deadline=None)
@given(ACTIONS, st.sampled_from(["en", "tiny"]))
def test_any_action_either_applies_and_undoes_exactly_or_changes_nothing(actions, tiles):
    game = Game(["A", "B"], tiny_set() if tiles == "tiny" else "en",
                Rules(scoreless_turns_to_end=4))  # fmt: skip
    for action in actions:
        before = snapshot(game)
        count = len(game.events)
        try:
            act(game, action)
        except GameError:
            assert snapshot(game) == before
            continue
        if action[0] == "undo":
            continue
        added = len(game.events) - count
        after = snapshot(game)
        for _ in range(added):
            game.undo()
        assert snapshot(game) == before
        # ... and doing it again gives the same state (every call is deterministic).
        act(game, action)
        assert snapshot(game) == after


def test_nine_tile_racks_bingo_for_seven_eight_or_nine_tiles():
    game = Game(["A", "B"], rules=Rules(rack_size=9))
    assert game.rack_counts == [9, 9]
    eight = game.play("8A", "STEARINE")
    # A8 triple word, H8 double word, D8 double letter under the first E.
    assert eight.play.bingo and eight.score == (8 + 1) * 3 * 2 + 50
    seven_tile_game = Game(["A", "B"])
    refused(seven_tile_game, lambda: seven_tile_game.play("8A", "STEARINE"), "too_many_tiles")
    assert Game(["A", "B"], rules=Rules(rack_size=9)).play("8B", "RETAINS").play.bingo
