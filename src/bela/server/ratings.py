"""Ratings: every rated entry's skill per variant, Weng-Lin (OpenSkill, Plackett-Luce).

An entry is a player (his id) or a bot spec (``bot-<name>``, e.g. ``bot-heuristic``): bots
are rated like players, so a player sees where he stands against them.  A skill is a mean
``mu`` and an uncertainty ``sigma``; the rating shown is :func:`shown` of the two, a
cautious estimate that starts at 1000 and rises as the uncertainty falls.

A finished match gives each seat a line (:func:`lines`: won, left, points, deals, contracts,
the stats of a profile); a rated one with a human seat also moves the ratings of its
entries in its variant (:func:`rate_fn`), in the transaction that stores its result.

What keeps ratings from being farmed (docs/SECURITY.md, "Fair shares and ratings"): only
public tables to the variant's default target and quick play are rated (the lobby makes
other tables unrated); a match where two human seats were taken from one client address
moves nothing (stored unrated); a player's change is damped by the rated matches he
played with the same human players in the last :data:`PAIR_WINDOW` (:func:`damping`); the
leaderboard lists an account once it met ``board_opponents`` (a server setting) distinct
opponents in rated matches; quick play never seats one address twice at a table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce

from ..engine.variants import get_variant
from ..storage import RateFn
from .model import Table

MU = 25.0  # a new entry's skill (OpenSkill's defaults)
SIGMA = MU / 3
BASE, SCALE = 1000, 40  # shown = BASE + SCALE * (mu - 3 sigma)
PROVISIONAL_GAMES = 5  # fewer rated matches than this: the rating is provisional
BOT_PREFIX = "bot-"
PAIR_WINDOW = 24 * 3600.0  # seconds back that earlier matches with the same players count
PAIR_MATCHES = 3  # earlier matches with the same players after which a match moves nothing


def damping(met: int) -> float:
    """The share of his rating change a player gets from a match when he played ``met``
    rated matches with the same human players (any of them) in the last
    :data:`PAIR_WINDOW`: halved for each, nothing from the :data:`PAIR_MATCHES`-th on.

    >>> [damping(n) for n in range(5)]
    [1.0, 0.5, 0.25, 0.0, 0.0]
    """
    return 0.0 if met >= PAIR_MATCHES else 0.5 ** met


def shown(mu: float, sigma: float) -> int:
    """The rating shown for a skill: ``mu - 3 sigma`` (the skill is above it with 99.7 %
    confidence), scaled so that a new entry has 1000.

    >>> shown(MU, SIGMA), shown(30.0, 2.0)
    (1000, 1960)
    """
    return round(BASE + SCALE * (mu - 3 * sigma))


def bot_entry(bot: str) -> str:
    """The rating entry of a bot spec.

    >>> bot_entry("heuristic")
    'bot-heuristic'
    """
    return BOT_PREFIX + bot


def bot_of(entry: str) -> str | None:
    """The bot spec of an entry, ``None`` for a player.

    >>> bot_of("bot-pimc"), bot_of("3f75e0567cb07dfa")
    ('pimc', None)
    """
    return entry[len(BOT_PREFIX):] if entry.startswith(BOT_PREFIX) else None


# -- a finished match ----------------------------------------------------------------------
UNPLAYED = ("redeal", "unfinished")  # outcomes of rounds that are not a deal played out
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def seat_entry(table: Table, seat: int) -> str:
    """The rating entry of a seat: its player, or its bot."""
    s = table.seats[seat]
    if s.is_bot:
        return bot_entry(table.bot_of(seat))
    assert s.player_id is not None, f"seat {seat} of table {table.id} is empty"
    return s.player_id


def lines(table: Table, result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lines of a finished table (its ``result``: the ``bela score --json`` object), one
    per seat: ``seat``, ``entry``, ``won`` (his side won the match, R25, and he had not
    left), ``left`` (a human seat a bot played at the end), ``points`` (his side's points
    over the match: its total), ``deals`` (rounds played out; redeals, R35, not counted)
    and ``contracts`` (``{trump: count}`` of the rounds he called).

    >>> from .model import Seat, TableStatus
    >>> t = Table(id="t", variant="bela2", options={}, seed=1, bot="heuristic",
    ...           status=TableStatus.FINISHED, owner_id="ana",
    ...           seats=[Seat("ana", "Ana"), Seat(name="Bot 2", is_bot=True)])
    >>> ana, bot = lines(t, {"rounds": [{"caller": 1, "trump": "H", "outcome": "fall",
    ...                                  "scores": [162, 0]}], "totals": [162, 0], "winner": 0})
    >>> ana["won"], ana["points"], ana["contracts"], bot["entry"], bot["contracts"]
    (True, 162, {}, 'bot-heuristic', {'H': 1})
    """
    sides = get_variant(table.variant).sides
    played = [r for r in result["rounds"] if r["outcome"] not in UNPLAYED]
    out = []
    for seat, s in enumerate(table.seats):
        side = seat % sides
        left = s.autopilot and not s.is_bot
        contracts: dict[str, int] = {}
        for r in played:
            if r["caller"] == seat and r["trump"] is not None:
                contracts[r["trump"]] = contracts.get(r["trump"], 0) + 1
        out.append({"seat": seat, "entry": seat_entry(table, seat),
                    "won": result["winner"] == side and not left, "left": left,
                    "points": sum(int(r["scores"][side]) for r in result["rounds"]),
                    "deals": len(played), "contracts": contracts})
    return out


def standings(variant: str, lines: Sequence[Mapping[str, Any]]) -> list[tuple[list[int], int]]:
    """The teams of a finished match's seats with their ranks (0 best, equal ranks tie),
    from its :func:`lines`: the sides (bela4: seats 0+2 and 1+3; else each seat alone), the
    winner first (R25), then by points (the sides' totals).  A seat that left stays in his
    side here (his partner's result is the side's); :func:`rate_fn` rates him apart.

    >>> won = {"won": True, "left": False, "points": 1001}
    >>> lost = {"won": False, "left": False, "points": 700}
    >>> standings("bela4", [dict(won, seat=0), dict(lost, seat=1), dict(won, seat=2),
    ...                     dict(lost, seat=3)])
    [([0, 2], 0), ([1, 3], 1)]
    >>> standings("bela3", [dict(lost, seat=0), dict(won, seat=1), dict(lost, seat=2)])
    [([0], 1), ([1], 0), ([2], 1)]
    """
    sides = get_variant(variant).sides
    teams: dict[int, list[int]] = {}
    keys: dict[int, tuple[bool, int]] = {}  # side -> (lost, -points): lower is better
    for line in sorted(lines, key=lambda ln: int(ln["seat"])):
        seat = int(line["seat"])
        side = seat % sides
        teams.setdefault(side, []).append(seat)
        lost, points = keys.get(side, (True, -int(line["points"])))
        keys[side] = (lost and not line["won"], points)  # a leaver's line never won
    order = sorted(set(keys.values()))
    return [(seats, order.index(keys[side])) for side, seats in sorted(teams.items())]


class RatingFailed(Exception):
    """The rating update of a match failed (a fault of this module, not of the database):
    the match is stored without moving ratings rather than left unfinished."""


def same_address(table: Table) -> bool:
    """Whether two human seats of ``table`` were taken from one client address."""
    seen = [s.address for s in table.seats if not s.is_bot and s.address is not None]
    return len(seen) != len(set(seen))


def rate_fn(table: Table, lines: Sequence[Mapping[str, Any]],
            met: Mapping[str, int] | None = None) -> RateFn | None:
    """The rating update of a finished table with these :func:`lines`, for
    :meth:`Tables.finish_table`; ``None`` when the table is not rated, no human sat at
    it (bots alone move no rating) or two human seats came from one address
    (:func:`same_address`).  ``met``: per player entry, his earlier rated matches with the
    same human players (:meth:`Ratings.meetings`): his change is :func:`damping`'s share.

    The teams and ranks are :func:`standings`', and every seat that did not leave moves
    by them.  A seat that left moves as if his side had come last (his own update of a
    second rating where his side's rank is below all others): he loses the match, and
    his partner's result is his side's, as played.  Each seat is rated as its own copy, so
    a bot entry in several seats gets the mean of its copies' new ``mu`` and ``sigma``."""
    if not table.rated or all(s.is_bot for s in table.seats) or same_address(table):
        return None
    shares = {entry: damping(n) for entry, n in (met or {}).items()}
    entries = {int(line["seat"]): str(line["entry"]) for line in lines}
    leavers = [int(line["seat"]) for line in lines if line["left"]]
    ranked = standings(table.variant, lines)

    def rate(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        try:
            return _rate(current)
        except Exception as exc:
            raise RatingFailed(f"{type(exc).__name__}: {exc}") from exc

    def moved(before: dict[str, tuple[float, float]], ranks: list[int]
              ) -> dict[int, tuple[float, float]]:
        """Each seat's new skill when the teams of ``ranked`` come in ``ranks``."""
        teams = [[_MODEL.rating(*before[entries[seat]]) for seat in seats]
                 for seats, _rank in ranked]
        new = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
        return {seat: (r.mu, r.sigma)
                for (seats, _rank), team in zip(ranked, new) for seat, r in zip(seats, team)}

    def _rate(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        before = {e: current.get(e, (MU, SIGMA)) for e in entries.values()}
        played = [rank for _seats, rank in ranked]
        after = moved(before, played)
        last = max(played) + 1
        for seat in leavers:
            ranks = [last if seat in seats else rank for seats, rank in ranked]
            after[seat] = moved(before, ranks)[seat]
        copies: dict[str, list[tuple[float, float]]] = {}
        for seat, skill in sorted(after.items()):
            copies.setdefault(entries[seat], []).append(skill)
        out = {}
        for entry, got in copies.items():
            mu = sum(c[0] for c in got) / len(got)
            sigma = sum(c[1] for c in got) / len(got)
            share = shares.get(entry, 1.0)
            mu0, sigma0 = before[entry]
            mu, sigma = mu0 + share * (mu - mu0), sigma0 + share * (sigma - sigma0)
            out[entry] = {"mu": mu, "sigma": sigma, "before": shown(*before[entry]),
                          "after": shown(mu, sigma)}
        return out

    return rate
