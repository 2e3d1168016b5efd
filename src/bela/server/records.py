"""The records of finished matches and the players' histories, as the API publishes them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import Conflict, Forbidden, NotFound
from .model import Table, TableStatus
from .offload import Offload, json_bytes

if TYPE_CHECKING:
    from .lobby import Lobby


class Records:
    """The lookups of records and histories: the tables in the ``lobby``'s memory, else the
    database."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def record(self, table_id: str, viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        """The record of a finished match (it holds every hand: not before the end), read
        from the database when the table is not in memory (and not kept there).  A private
        table's record is for its creator and its players only."""
        table = self.lobby.tables.get(table_id) or self.lobby.ended.get(table_id)
        row = (self.lobby.store.db.tables.load_table(table_id)
               if table is None and len(table_id) <= 32 else None)
        return self._published(table_id, viewer, table, row)

    async def record_json(self, table_id: str, viewer: dict[str, Any] | None,
                          offload: Offload) -> bytes:
        """:meth:`record` as its JSON, read and written in ``offload``'s threads (a long
        match's record is megabytes: not on the event loop)."""
        table = self.lobby.tables.get(table_id) or self.lobby.ended.get(table_id)
        row = (await offload.run(self.lobby.store.db.tables.load_table, table_id)
               if table is None and len(table_id) <= 32 else None)
        return await offload.run(json_bytes, self._published(table_id, viewer, table, row))

    def _published(self, table_id: str, viewer: dict[str, Any] | None, table: Table | None,
                   row: dict[str, Any] | None) -> dict[str, Any]:
        """The record of the table in memory or of its stored row, if ``viewer`` may have
        it."""
        if table is not None:
            status, record, private = table.status, table.record, table.private
            players = {table.owner_id, *(s.player_id for s in table.seats)}
            boards = bool(table.boards)
        else:
            if row is None:
                raise NotFound("unknown_table", f"there is no table {table_id!r}")
            status, record, private = row["status"], row["record"], bool(row["private"])
            players = {row["owner_id"], *(s["player_id"] for s in row["seats"])}
            boards = bool(row.get("boards"))
        if private and (viewer is None or viewer["id"] not in players):
            raise Forbidden("private_record", "the table is private: its record is for its "
                            "players (send the token of one)")
        if status == TableStatus.CLOSED:
            raise Conflict("closed", "the table was closed before its match was over: "
                           "it has no record")
        if status != TableStatus.FINISHED or record is None:
            raise Conflict("not_finished", "the record is published when the match is over "
                           "(it holds every hand)")
        if boards and self.lobby.store.db.tournaments.round_playing(table_id):
            raise Conflict("round_playing", "a duplicate table's record is published when "
                           "every table of its round has played its boards")
        return dict(record)

    def history(self, player: dict[str, Any], limit: int = 100, offset: int = 0
                ) -> tuple[list[dict[str, Any]], int]:
        """A page of the player's finished matches, newest first, as summaries whose
        ``record`` is the address of the match's record, and how many there are in all
        (database reads only: it may run off the event loop)."""
        rows, total = self.lobby.store.db.tables.history(player["id"], limit, offset)
        out = []
        for row in rows:
            result = row["result"] or {}
            out.append({
                "table": row["id"], "variant": row["variant"], "options": row["options"],
                "seat": row["seat"], "players": row["players"],
                "totals": result.get("totals"), "winner": result.get("winner"),
                "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
                "play_on": row["origin"] == "analysis",
                "record": f"/api/tables/{row['id']}/record",
            })
        return out, total
