"""A belot (R10) at a duplicate table (docs/RULES.md "Readings", duplicate): it wins the
board it is shown on — the holder's side books the variant's match-winning value (its
default target), the other side 0 — and the table plays on to its next board; a table
without boards keeps the engine's rule (the belot wins the match)."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_helpers import guest, server, until

from bela.engine import IllegalAction, Match, parse_action
from bela.engine.cards import Card
from bela.engine.events import MatchWon, RoundBooked
from bela.engine.variants import VARIANTS, Deal
from bela.server import model
from bela.server.board_match import table_match

# seat 1 holds all eight spades (R10)
BELOT = ["7H 8H 9H TH 7D 8D 9D TD", "7S 8S 9S TS JS QS KS AS",
         "JH QH KH AH JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
VALUE = VARIANTS["bela4"].default_target


def hands(spec: list[str]) -> list[list[Card]]:
    return [list(Card.parse(h)) for h in spec]




def test_a_belot_wins_the_board_and_play_goes_on() -> None:
    m = Match("bela4", {"target": 5001}, first_dealer=3, belot_board=VALUE)
    rnd = m.deal(hands=hands(BELOT))
    m.apply(parse_action("H"))
    m.apply(parse_action("7H"))
    events = m.apply(parse_action("declare 7S 8S 9S TS JS QS KS AS"))
    assert rnd.is_over and rnd.result is not None and rnd.result.outcome == "belot"
    assert m.winner is None and not m.is_over
    assert m.sheet == [(0, VALUE)] and m.totals == [0, VALUE]
    booked = [e for e in events if isinstance(e, RoundBooked)]
    assert booked == [RoundBooked((0, VALUE), (0, VALUE), 0)]
    assert not any(isinstance(e, MatchWon) for e in events)
    m.deal()  # the next board
    assert len(m.rounds) == 2
    # undone, the board is booked no more
    m2 = Match("bela4", {"target": 5001}, first_dealer=3, belot_board=VALUE)
    m2.deal(hands=hands(BELOT))
    m2.apply(parse_action("H"))
    m2.apply(parse_action("7H"))
    m2.apply(parse_action("declare 7S 8S 9S TS JS QS KS AS"))
    m2.undo()
    assert m2.sheet == [] and m2.totals == [0, 0] and m2.winner is None


def test_a_table_without_boards_keeps_the_engine_rule() -> None:
    m = table_match("bela4", {}, 1, ())
    assert type(m) is Match
    m.deal(hands=hands(BELOT))
    m.apply(parse_action("H"))
    m.apply(parse_action("7H"))
    m.apply(parse_action("declare 7S 8S 9S TS JS QS KS AS"))
    assert m.winner == 1 and m.totals == [0, 0]
    with pytest.raises(IllegalAction):
        m.deal()
    assert table_match("bela4", {}, 1, (1, 2)).belot_board == VALUE


def test_a_duplicate_table_plays_on_after_a_planted_belot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Board 1 of the round is planted with a belot at every table: both tables book it
    to the holder's side and play board 2; its matchpoints are equal."""
    dealt = model.Table.board_deal

    def planted(self: model.Table, idx: int) -> Deal:
        if self.boards[idx] == 1:
            return Deal(tuple(tuple(h) for h in hands(BELOT)))
        return dealt(self, idx)

    monkeypatch.setattr(model.Table, "board_deal", planted)
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        r = c.post("/api/tournaments", json={"name": "Duplikat", "variant": "bela4",
                                             "format": "duplicate", "rounds": 1,
                                             "boards": 2, "seed": 5}, headers=d)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        for level in ("club", "beginner", "club", "beginner"):
            assert c.post(f"/api/tournaments/{tid}/entries", json={"bot": level},
                          headers=d).status_code == 200
        assert c.post(f"/api/tournaments/{tid}/start", headers=d).status_code == 200
        done = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
            c.get(f"/api/tournaments/{tid}").json()), "the duplicate's end")
        games = done["rounds"][0]["games"]
        assert len(games) == 2
        for g in games:
            scores = dict((b, sc) for b, sc in g["result"]["board_scores"])
            assert scores[1] == [0, VALUE]  # seat 1's side showed the belot
            assert sum(scores[2]) > 0  # board 2 was played after it
        board1 = next(b for b in done["boards"][0]["boards"] if b["board"] == 1)
        assert [(f["margin"], f["count"], f["matchpoints"]) for f in board1["frequencies"]] \
            == [(-VALUE, 2, [1, 1])]
