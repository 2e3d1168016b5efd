"""A club night with real cards: each game of a ``real_cards`` tournament is played with
cards on a table in the room and scored on a phone's score pad (``/pad``) bound to that
game by its scorer link; the pad's result goes to
:meth:`~bela.server.tournaments.Scheduler.record_result` (docs/TOURNAMENTS.md "Real
cards").

A game's key is an HMAC of the tournament's secret seed, its round and table number: the
director's view shows it (in the link and its QR code), nothing is stored, and nobody
without the link can guess it or derive another game's.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from ...engine.pad import Pad
from ...engine.variants import VARIANTS
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..pads import MAX_NAME, read_pad

Row = Mapping[str, Any]


def real_cards(row: Row) -> bool:
    """Whether the tournament's games are played with real cards (no tables online)."""
    return bool(row["settings"].get("real_cards"))


def scorer_key(row: Row, rnd: int, table_no: int) -> str:
    """The key of a game's scorer link (see the module).

    >>> row = {"id": "T1", "settings": {"seed": 7}}
    >>> len(scorer_key(row, 1, 2)), scorer_key(row, 1, 2) == scorer_key(row, 2, 1)
    (22, False)
    """
    secret = str(row["settings"]["seed"]).encode()
    digest = hmac.new(secret, f"bela-scorer:{row['id']}:{rnd}:{table_no}".encode(),
                      hashlib.sha256).digest()
    return digest[:16].hex()[:22]


def scorer_link(row: Row, rnd: int, table_no: int) -> str:
    """The path of a game's scorer (the pad bound to it).

    >>> scorer_link({"id": "T1", "settings": {"seed": 7}}, 1, 2).startswith(
    ...     "/pad?tournament=T1&round=1&table=2&key=")
    True
    """
    return "/pad?" + urlencode({"tournament": row["id"], "round": rnd, "table": table_no,
                                "key": scorer_key(row, rnd, table_no)})


def scorer_game(row: Row, rounds: Sequence[Row], rnd: int, table_no: int, key: str) -> Row:
    """The game a scorer link names, its key checked: 404 ``unknown_game`` for a game that
    is not there (or a tournament not played with real cards), 403 ``bad_key``."""
    game: Row | None = next((g for r in rounds if r["round"] == rnd for g in r["games"]
                             if g["table_no"] == table_no), None)
    if game is None or not real_cards(row):
        raise NotFound("unknown_game", f"round {rnd} has no table {table_no} scored on a "
                       "pad")
    if not hmac.compare_digest(key.encode(), scorer_key(row, rnd, table_no).encode()):
        raise Forbidden("bad_key", "this link's key is not this game's: ask the director "
                        "for the table's link")
    return game


def scorer_view(row: Row, game: Row, names: Mapping[int, str]) -> dict[str, Any]:
    """What the bound pad is set up from: the tournament, the game, its sides' names (side
    0 first), the variant and its options, the game's status and result."""
    return {"tournament": row["id"], "name": row["name"], "variant": row["variant"],
            "options": dict(row["settings"]["options"]), "round": int(game["round"]),
            "table_no": int(game["table_no"]),
            "entries": [int(e) for e in game["entries"]],
            "names": [names.get(int(e), str(e))[:MAX_NAME] for e in game["entries"]],
            "status": game["status"], "result": game["result"]}


def pad_scores(row: Row, game: Row, record: Any) -> list[int]:
    """The match totals per side of a bound pad's record, scored by the engine: 422
    ``bad_pad`` for a record that is not valid or not of this tournament's variant and
    options (or with other sides), 409 ``not_playing`` for a game not being played."""
    if game["status"] != "playing":
        raise Conflict("game_over" if game["status"] in ("finished", "void")
                       else "not_playing", f"round {game['round']} table "
                       f"{game['table_no']} is {game['status']}")
    pad: Pad = read_pad(record)
    variant = VARIANTS[row["variant"]]
    rules = variant.make_options(dict(row["settings"]["options"])).as_dict()
    if pad.variant.name != variant.name or pad.table_options.as_dict() != rules:
        raise InvalidInput("bad_pad", "the pad's variant and options are not the "
                           "tournament's: open the table's link again")
    if not pad.deals:
        raise InvalidInput("bad_pad", "the pad has no deal written")
    return list(pad.totals)
