"""The seats of the open tables: players sit and leave, the creator fills seats with bots;
who may watch a table and take a seat (a private table's invite code)."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from .errors import Conflict, Forbidden, InvalidInput
from .hub import Conn
from .model import Seat, Table, TableStatus

if TYPE_CHECKING:
    from .lobby import Lobby


def require_open(table: Table) -> None:
    """Raises :class:`Conflict` unless ``table`` is open."""
    if table.status != TableStatus.OPEN:
        raise Conflict("not_open", f"table {table.id} has already started"
                       if table.status == TableStatus.RUNNING else f"table {table.id} is over")

def require_owner(table: Table, player: dict[str, Any]) -> None:
    """Raises :class:`Forbidden` unless ``player`` created ``table``."""
    if player["id"] != table.owner_id:
        raise Forbidden("not_owner", "only the table's creator may do that")


class Seating:
    """Who sits where at the ``lobby``'s open tables, each seat stored first."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def sit(self, table: Table, player: dict[str, Any], seat: int,
            code: str | None = None) -> None:
        """Seat ``player`` (moving from another seat frees that one); at a private table a
        newcomer gives the invite ``code``."""
        require_open(table)
        if not 0 <= seat < len(table.seats):
            raise InvalidInput("bad_seat", f"this table has seats 0..{len(table.seats) - 1}")
        current = table.seat_of(player["id"])
        if current is None and not self.admits(table, player["id"], code):
            raise Forbidden("invite_required", "this table is private: sit with the invite "
                            "code its creator shares")
        if current == seat:
            return
        if not table.seats[seat].free:
            raise Conflict("seat_taken", f"seat {seat} is taken")
        table.active_at = time.time()
        if current is not None:
            self._clear_seat(table, current)
        self.set_seat(table, seat, Seat(player_id=player["id"], name=player["name"],
                                         address=player.get("address")))
        for conn in self.lobby.hub.conns(table):  # a watching connection of this player takes it
            if conn.player_id == player["id"]:
                conn.seat = seat
        self.lobby.changed(table)

    def leave(self, table: Table, player: dict[str, Any]) -> None:
        require_open(table)
        seat = table.seat_of(player["id"])
        if seat is None:
            raise Conflict("not_seated", "you are not seated at this table")
        table.active_at = time.time()
        self._clear_seat(table, seat)
        self.lobby.changed(table)

    def fill_bots(self, table: Table, player: dict[str, Any], which: list[int] | None) -> None:
        """Bots in the seats ``which`` (``None``: every free seat); the creator's call."""
        require_open(table)
        require_owner(table, player)
        targets = range(len(table.seats)) if which is None else which
        for seat in targets:
            if not 0 <= seat < len(table.seats):
                raise InvalidInput("bad_seat",
                                   f"this table has seats 0..{len(table.seats) - 1}")
            if which is not None and not table.seats[seat].free:
                raise Conflict("seat_taken", f"seat {seat} is taken")
        table.active_at = time.time()
        try:
            for seat in targets:
                if table.seats[seat].free:
                    self.set_seat(table, seat, Seat(name=f"Bot {seat + 1}", is_bot=True))
        finally:  # the seats stored before a refusal of the database stay
            self.lobby.changed(table)

    def admit(self, table: Table, conn: Conn, code: str | None) -> None:
        """Let ``conn`` (its ``player_id`` set) watch ``table``, in its player's seat if he
        has one; raises :class:`Forbidden` at a private table without the invite code."""
        if not self.admits(table, conn.player_id, code):
            raise Forbidden("invite_required", "this table is private: watch it with its "
                            "invite code")
        conn.seat = table.seat_of(conn.player_id)

    def admits(self, table: Table, player_id: str | None, code: str | None) -> bool:
        """Whether ``table`` lets this player (``None``: anonymous) with this invite ``code``
        watch it and take a seat: anyone at a public table; at a private one its creator,
        its seated players and whoever has the code."""
        if not table.private or (player_id is not None and (
                player_id == table.owner_id or table.seat_of(player_id) is not None)):
            return True
        return (code is not None and table.invite_code is not None
                and secrets.compare_digest(code.encode(), table.invite_code.encode()))

    def _clear_seat(self, table: Table, seat: int) -> None:
        self.set_seat(table, seat, Seat())
        for conn in self.lobby.hub.conns(table):
            if conn.seat == seat:
                conn.seat = None

    def set_seat(self, table: Table, seat: int, new: Seat) -> None:
        """Put ``new`` in ``seat``, stored first (raises, changing nothing, when the database
        refuses)."""
        old, table.seats[seat] = table.seats[seat], new
        try:
            self.lobby.store.save_seat(table, seat)
        except Exception:
            table.seats[seat] = old
            raise
