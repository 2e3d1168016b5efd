"""Presence, invitations and blocks across instances (issue 44, part 6): a friend
connected at one instance is shown online, at his table, to a player at another; when his
instance is killed he drops off after its marks expire; an invitation sent at one instance
waits for its player at a third; a block made at one instance holds at the others.  Needs
PostgreSQL and ``redis-server``, like test_server_cluster.py, whose site it uses."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import test_server_cluster
from test_server_cluster import LEASE_TTL, Site
from test_server_cluster import site as site  # noqa: F401  (the fixture)

pytestmark = test_server_cluster.pytestmark  # PostgreSQL and redis-server, or skipped

PASSWORD = "lozinka-za-belu-7"


async def _until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg["type"] == kind:
            return msg


async def _account(http: Any, url: str, name: str) -> tuple[str, str, dict[str, str]]:
    token = (await http.post(f"{url}/api/guests", json={"name": name})).json()["token"]
    head = {"Authorization": f"Bearer {token}"}
    r = await http.post(f"{url}/api/accounts", headers=head, json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    return r.json()["player_id"], token, head


async def _friend_until(http: Any, url: str, head: dict[str, str], shown: Any,
                        seconds: float) -> dict[str, Any]:
    """The first friend as ``url`` shows him, polled until ``shown(friend)`` (the marks
    reach Redis right after the connection opens, not before its welcome)."""
    deadline = time.monotonic() + seconds
    while True:
        friend: dict[str, Any] = (await http.get(f"{url}/api/friends", headers=head)
                                  ).json()["friends"][0]
        if shown(friend):
            return friend
        assert time.monotonic() < deadline, friend
        await asyncio.sleep(0.1)


def test_presence_and_invitations_span_the_instances(site: Site) -> None:
    import httpx

    first, second, third = (i.url for i in site.instances)

    async def scenario() -> None:
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(timeout=10) as http:
            vesna_id, _vt, vesna = await _account(http, first, "Vesna")
            zoran_id, ztoken, zoran = await _account(http, second, "Zoran")
            await http.post(f"{first}/api/friends/{zoran_id}", headers=vesna)
            r = await http.post(f"{second}/api/friends/{vesna_id}", headers=zoran)
            assert r.json() == {"friends": True}
            r = await http.post(f"{second}/api/tables", headers=zoran,
                                json={"variant": "bela4", "seat": 0})
            his_table = r.json()["id"]
            ws_url = (f"{second.replace('http://', 'ws://')}/ws/tables/{his_table}"
                      f"?token={ztoken}")
            async with connect(ws_url, open_timeout=5, ping_interval=None) as ws:
                await asyncio.wait_for(ws.recv(), 10)  # welcome: he is connected
                friend = await _friend_until(http, first, vesna,
                                             lambda f: f["table"] is not None, 5)
                assert (friend["player_id"], friend["online"], friend["table"]) == (
                    zoran_id, True, his_table)
                # counted at every instance: Vesna asked, Zoran is connected
                assert (await http.get(f"{third}/api/presence")).json() == {"online": 2}
                site.instances[1].kill()  # his instance dies with his connection
            friend = await _friend_until(http, first, vesna, lambda f: not f["online"],
                                         4 * LEASE_TTL + 10)
            assert friend["table"] is None
            # an invitation sent at the first instance waits for him at the third
            r = await http.post(f"{first}/api/tables", headers=vesna,
                                json={"variant": "bela4", "seat": 0})
            her_table = r.json()["id"]
            r = await http.post(f"{first}/api/friends/{zoran_id}/invite", headers=vesna,
                                json={"table": her_table})
            assert r.status_code == 200, r.text
            his = (await http.get(f"{third}/api/friends", headers=zoran)).json()
            assert his["invites"] == [{"from_id": vesna_id, "from_name": "Vesna",
                                       "table": her_table}]
            # the invitation joins the table, through the third instance
            r = await http.post(f"{third}/api/tables/{her_table}/sit", headers=zoran,
                                json={"seat": 1})
            assert r.status_code == 200, r.text
            assert r.json()["seats"][1]["player_id"] == zoran_id
            # an invitation to a table run by another instance is taken there too
            r = await http.post(f"{third}/api/friends/{vesna_id}/invite", headers=zoran,
                                json={"table": her_table})
            assert r.status_code == 200, r.text
            r = await http.post(f"{third}/api/friends/{vesna_id}/invite", headers=zoran,
                                json={"table": "nijedan"})
            assert r.status_code == 404

    asyncio.run(scenario())


async def _chat_until(ws: Any, text: str) -> list[dict[str, Any]]:
    """The lines ``ws`` receives up to the one saying ``text``."""
    lines = []
    while True:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg["type"] == "chat":
            lines.append(msg)
            if msg["text"] == text:
                return lines


def test_a_block_holds_at_every_instance(site: Site) -> None:
    """Vesna blocks Zoran: at a table run by the first instance, her connection relayed
    through the second gets none of his lines (Ivo's does); in the lobby's room at the third
    neither."""
    import httpx

    first, second, third = (i.url for i in site.instances)

    async def scenario() -> None:
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(timeout=10) as http:
            _vid, vtoken, vesna = await _account(http, first, "Vesna")
            zoran_id, ztoken, zoran = await _account(http, first, "Zoran")
            _iid, itoken, ivo = await _account(http, first, "Ivo")
            r = await http.put(f"{second}/api/blocks/{zoran_id}", headers=vesna)
            assert r.json() == {"blocked": True}
            r = await http.post(f"{first}/api/tables", headers=zoran,
                                json={"variant": "bela4", "seat": 0})
            tid = r.json()["id"]
            for head, seat in ((vesna, 1), (ivo, 2)):
                r = await http.post(f"{first}/api/tables/{tid}/sit", headers=head,
                                    json={"seat": seat})
                assert r.status_code == 200, r.text

        def ws(url: str, path: str, token: str) -> Any:
            return connect(f"{url.replace('http://', 'ws://')}{path}?token={token}",
                           open_timeout=5, ping_interval=None)

        table = f"/ws/tables/{tid}"
        async with ws(first, table, ztoken) as z, ws(second, table, vtoken) as v, \
                ws(third, table, itoken) as i:
            for c in (z, v, i):
                await _until(c, "welcome")
            await z.send(json.dumps({"type": "chat", "text": "kupujem zlato"}))
            assert [m["text"] for m in await _chat_until(i, "kupujem zlato")] == [
                "kupujem zlato"]
            await i.send(json.dumps({"type": "chat", "text": "ajmo"}))
            assert [m["text"] for m in await _chat_until(v, "ajmo")] == ["ajmo"]
        async with ws(third, "/ws/lobby", vtoken) as v, ws(first, "/ws/lobby", ztoken) as z, \
                ws(second, "/ws/lobby", itoken) as i:
            for c in (v, z, i):  # all in the room before the lines
                await c.send(json.dumps({"type": "ping"}))
                await _until(c, "pong")
            await z.send(json.dumps({"type": "chat", "text": "tko igra?"}))
            assert [m["text"] for m in await _chat_until(i, "tko igra?")] == ["tko igra?"]
            await i.send(json.dumps({"type": "chat", "text": "ja"}))
            assert [m["text"] for m in await _chat_until(v, "ja")] == ["ja"]

    asyncio.run(scenario())
