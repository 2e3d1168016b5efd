"""A tournament game's table: made from the stored game with the id stored for it, seated
by its entries, started at once (the lobby's
:meth:`~bela.server.factory.TableFactory.create_seated`, quick play's path too).

Seats by side: in ``bela4`` side 0's two players at seats 0 and 2 and side 1's at 1 and 3
(the engine's ``side_of``), in the other variants side ``i`` at seat ``i``.  A bot entry's
seats are played by bots of its level (the seats' own bot); the table's bot, who plays for
an absent player, is the level nearest the mean rating of the table's human entries
(:func:`~bela.server.quickplay.nearest_bot`), as quick play picks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...bots.levels import LEVELS
from ...engine.variants import TARGET_RANGE, VARIANTS
from ..lobby import Lobby
from ..model import Seat, Table
from ..quickplay import level_ratings, nearest_bot
from ..ratings import bot_entry, shown

Row = Mapping[str, Any]
FALLBACK_BOT = "heuristic"  # a server that runs no level


def game_seats(variant: str, entries: Sequence[Row], names: Mapping[str, str]) -> list[Seat]:
    """The seats of a game's ``entries`` (by side, side 0 first); ``names``: player id ->
    name.

    >>> pair = lambda i, a, b: {"id": i, "player_id": a, "partner_id": b, "bot": None}
    >>> seats = game_seats("bela4", [pair(1, "a", "b"), pair(2, "c", "d")],
    ...                    {"a": "Ana", "b": "Bo", "c": "Cvita", "d": "Dino"})
    >>> [s.name for s in seats]
    ['Ana', 'Cvita', 'Bo', 'Dino']
    >>> bot = {"id": 3, "player_id": None, "partner_id": None, "bot": "club", "name": "Bot"}
    >>> [(s.name, s.bot) for s in game_seats("bela2", [bot, pair(1, "a", None)], {"a": "Ana"})]
    [('Bot', 'club'), ('Ana', None)]
    >>> practice = {"id": 4, "player_id": "a", "partner_id": None, "bot": "club", "name": "A"}
    >>> [(s.name, s.bot) for s in game_seats("bela4", [practice, bot], {"a": "Ana"})]
    [('Ana', None), ('Bot', 'club'), ('Bot club', 'club'), ('Bot', 'club')]
    """
    v = VARIANTS[variant]
    seats: list[Seat] = []
    taken = [0] * v.sides
    for seat in range(v.seats):
        side = v.side_of(seat)
        entry = entries[side]
        k, taken[side] = taken[side], taken[side] + 1
        players = [p for p in (entry["player_id"], entry["partner_id"]) if p]
        if k < len(players):
            seats.append(Seat(player_id=players[k], name=names.get(players[k], players[k])))
            continue
        # a bot entry's seats; a practice entry's (a player with a bot partner) the rest
        seats.append(Seat(name=f"Bot {entry['bot']}" if players else str(entry["name"]),
                          is_bot=True, bot=str(entry["bot"])))
    return seats


def table_seed(seed: int, rnd: int, table_no: int) -> int:
    """The seed of a game's table (its deals and its bots' choices; table 0: the seed of
    every table of a duplicate round) from the tournament's secret seed, so a tournament
    replayed from its seed plays the very same games.  A hash: a finished table's record
    shows its seed, which tells nothing of the other tables' or rounds' deals.

    >>> table_seed(7, 1, 2) == table_seed(7, 1, 2) != table_seed(7, 2, 1)
    True
    """
    digest = hashlib.sha256(f"bela-tournament:{seed}:{rnd}:{table_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 2 ** 62


@dataclass(frozen=True)
class Seating:
    """What a game's table is made of, read from the database (:meth:`GameTables.seating`,
    off the event loop): its seats by entry, the table's bot."""

    game: Row
    seats: list[Seat]
    bot: str


class GameTables:
    """Makes the tables of a tournament's games in ``lobby``."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def levels(self) -> list[str]:
        """The bot levels this server runs, weakest first."""
        bots = self.lobby.catalog.available_bots()
        return [b for b in LEVELS if b in bots]

    def seating(self, tournament: Row, games: Sequence[Row], entries: Mapping[int, Row]
                ) -> list[Seating]:
        """The seats and the table's bot of each of ``games`` (database reads: run it off
        the event loop), the levels' ratings and the players' names read once for all
        (a player not found is named by his id)."""
        variant = tournament["variant"]
        levels = self.levels()
        db = self.lobby.store.db
        stored = db.ratings.ratings([bot_entry(b) for b in levels], variant) if levels else {}
        ratings = level_ratings(levels, variant, {
            b: shown(stored[bot_entry(b)]["mu"], stored[bot_entry(b)]["sigma"])
            for b in levels if bot_entry(b) in stored})
        names = db.tournaments.player_names(
            p for g in games for e in g["entries"]
            for p in (entries[int(e)]["player_id"], entries[int(e)]["partner_id"]) if p)
        out = []
        for game in games:
            at = [entries[int(e)] for e in game["entries"]]
            out.append(Seating(game, game_seats(variant, at, names),
                               table_bot(levels, ratings, at)))
        return out

    async def make(self, tournament: Row, seating: Seating) -> Table:
        """The started table of a game (its stored ``table_id``) of ``tournament``."""
        settings, variant, game = tournament["settings"], tournament["variant"], seating.game
        v = VARIANTS[variant]
        options = dict(settings["options"])
        boards = tuple(int(b) for b in game["boards"])
        if boards:  # a duplicate table ends after its boards, never at a target
            options["target"] = TARGET_RANGE[1]
        target = int(v.make_options(options).target)
        shortest = self.lobby.config.rated_min_target or v.default_target
        rated = bool(settings["rated"]) and not boards and target >= shortest
        # a duplicate round's tables share their seed: the same boards (Table.deal)
        seed = table_seed(int(settings["seed"]), int(game["round"]),
                          0 if boards else int(game["table_no"]))
        return await self.lobby.factory.create_seated(
            variant, options, list(seating.seats), seating.bot, seed=seed,
            turn_clock=settings["turn_clock"], rated=rated, table_id=str(game["table_id"]),
            boards=boards)


def table_bot(levels: Sequence[str], ratings: Mapping[str, int], entries: Sequence[Row]
              ) -> str:
    """Who plays a game's absent players (see the module): the level nearest the mean
    rating of its human entries.

    >>> table_bot([], {}, [])
    'heuristic'
    >>> table_bot(["beginner", "club"], {"beginner": 900, "club": 1100},
    ...           [{"bot": None, "rating": 1080.0}, {"bot": "beginner", "rating": 900.0}])
    'club'
    """
    if not levels:
        return FALLBACK_BOT
    people = [e for e in entries if e["bot"] is None] or list(entries)
    mean = sum(float(e["rating"] or 0.0) for e in people) / len(people)
    return nearest_bot(levels, ratings, mean)
