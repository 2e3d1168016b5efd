"""A game's result given by people rather than by its table: a score pad's
(:meth:`~bela.server.tournaments.Scheduler.record_result`) and the director's correction
(:func:`correct`, docs/TOURNAMENTS.md "Corrections").  Both build the stored result with
:func:`given_result` (the scores checked against the game, the winner the side with the
most points); a correction keeps a mark of who made it, when and why.

A correction is refused (409, nothing written) where it would contradict what was done
from the result: a game of a round whose following round is paired (its pairings, a
knockout's bracket, depend on it), or, in a finished tournament, a result after which the
core would plan another round (a knockout tie that would need its third partija).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ...storage.repos import Tournaments
from ...tournament import Entry, TournamentError, plan_round
from ..errors import Conflict, InvalidInput, NotFound
from .director import Director
from .stored import entries_of, result_json, results_of, settings_of

log = logging.getLogger("bela.server.tournaments")

Row = Mapping[str, Any]
DONE = ("finished", "void")  # a game that has ended
REASON_MAX = 200


def find_game(rounds: Sequence[Row], rnd: int, table_no: int) -> Row:
    """The stored game of ``rounds`` at round ``rnd``, table ``table_no`` (404
    ``unknown_game``)."""
    game: Row | None = next((g for r in rounds if r["round"] == rnd for g in r["games"]
                             if g["table_no"] == table_no), None)
    if game is None:
        raise NotFound("unknown_game", f"round {rnd} has no table {table_no}")
    return game


def given_result(game: Row, scores: Sequence[int],
                 board_scores: Sequence[tuple[int, Sequence[int]]] | None = None,
                 bot_played: Sequence[int] = ()) -> dict[str, Any]:
    """The stored result of ``game`` given its ``scores`` per side (side 0 first) and, for
    a duplicate game, each of its boards' (422 ``bad_scores`` / ``bad_boards`` when they do
    not fit the game).  The winner is the side with the most points (none on equal points,
    nor at a duplicate table).

    >>> given_result({"entries": [11, 12], "boards": []}, [501, 320])["winner"]
    11
    >>> given_result({"entries": [11, 12], "boards": []}, [501, 501])["winner"] is None
    True
    >>> given_result({"entries": [11, 12], "boards": [1]}, [90, 72], [(1, [90, 72])]
    ...              )["board_scores"]
    [[1, [90, 72]]]
    """
    entries = [int(e) for e in game["entries"]]
    if len(scores) != len(entries):
        raise InvalidInput("bad_scores", f"{len(entries)} scores, one a side")
    boards = sorted(b for b, _ in board_scores or ())
    if boards != sorted(int(b) for b in game["boards"]) or any(
            len(sc) != len(entries) for _, sc in board_scores or ()):
        raise InvalidInput("bad_boards", f"the scores of boards {list(game['boards'])}, "
                           "each with one score a side")
    best = max(scores)
    winners = [e for e, s in zip(entries, scores) if s == best]
    winner = winners[0] if len(winners) == 1 and not game["boards"] else None
    return result_json(scores, winner, (), bot_played, board_scores or ())


def finish_game(rows: Tournaments, row: Row, game: Row, result: dict[str, Any]) -> None:
    """Store a pending or playing game's result (a database write: off the loop; the
    caller wakes the scheduler): its table's, a forfeit's or a pad's."""
    if rows.update_game(row["id"], int(game["round"]), int(game["table_no"]),
                        ["pending", "playing"], status="finished", result=result,
                        finished_at=datetime.now(UTC)):
        log.info("tournament %s: round %s table %s finished %s", row["id"],
                 game["round"], game["table_no"], result["scores"])


def correct(director: Director, tournament_id: str, player: Mapping[str, Any], rnd: int,
            table_no: int, scores: Sequence[int],
            board_scores: Sequence[tuple[int, Sequence[int]]] | None, reason: str) -> None:
    """The director corrects a finished game's result (see the module): stored with its
    mark (``corrected``: by whom, when, why, and the result it replaced), in one
    transaction that also checks that no later round was paired meanwhile.  Run it while
    no step of the tournament runs (:meth:`~bela.server.tournaments.Scheduler.locked`)."""
    why = " ".join(reason.split())
    if not why or not why.isprintable() or len(why) > REASON_MAX:
        raise InvalidInput("bad_reason", f"say why, in 1 to {REASON_MAX} printable "
                           "characters")
    row = director.directed(tournament_id, dict(player))
    rows = director.rows
    rounds = rows.rounds(row["id"])
    game = find_game(rounds, rnd, table_no)
    if game["status"] != "finished" or game["result"] is None:
        raise Conflict("not_finished", f"round {rnd} table {table_no} is {game['status']}: "
                       "only a finished game's result is corrected")
    if any(int(r["round"]) > rnd for r in rounds):
        raise Conflict("next_round_paired", f"round {rnd + 1} is paired from round {rnd}'s "
                       "results: they can no longer be corrected")
    old = game["result"]
    result = given_result(game, scores, board_scores, old.get("bot_played", ()))
    result["corrected"] = {"by": player["id"], "name": player.get("name", ""),
                           "at": datetime.now(UTC).isoformat(), "reason": why,
                           "was": {"scores": list(old["scores"]),
                                   "winner": old.get("winner"),
                                   "forfeit": list(old.get("forfeit", ()))}}
    if row["status"] == "finished":
        after = [{**r, "games": [{**g, "result": result} if g is game else g
                                 for g in r["games"]]} for r in rounds]
        entries = entries_of(rows.entries(row["id"]))
        if not _more(row, entries, rounds) and _more(row, entries, after):
            raise Conflict("tournament_over", "the tournament is over and this result "
                           "would call for another round")
    if not rows.correct_game(row["id"], rnd, table_no, result):
        raise Conflict("next_round_paired", f"round {rnd + 1} was paired meanwhile: round "
                       f"{rnd}'s results can no longer be corrected")


def _more(row: Row, entries: Sequence[Entry], rounds: Sequence[Row]) -> bool:
    """Whether the core would plan another round after ``rounds``' results (a tournament
    its director ended midway, with void games, would)."""
    try:
        return plan_round(settings_of(row), entries, results_of(rounds)) is not None
    except TournamentError:
        return True


def correctable(row: Row, rounds: Sequence[Row], rnd: int, game: Row) -> bool:
    """Whether the director may correct ``game`` of round ``rnd`` now (the page's button;
    the finished tournament's check of the plan is left to the request)."""
    return (row["status"] in ("running", "paused", "finished")
            and game["status"] == "finished" and game["result"] is not None
            and not any(int(r["round"]) > rnd for r in rounds))
