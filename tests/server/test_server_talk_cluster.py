"""Talk across instances (issue 44, part 6): two players at one table, one connected to the
instance that runs it and one relayed through another, say phrases and write lines to each
other; a report made through the relay is stored.  Needs PostgreSQL and ``redis-server``,
like test_server_cluster.py, whose site it uses."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import test_server_cluster
from test_server_cluster import URL, Site, _owner
from test_server_cluster import site as site  # noqa: F401  (the fixture)

from bela.server.talk import PHRASES

pytestmark = test_server_cluster.pytestmark  # PostgreSQL and redis-server, or skipped


async def _until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg["type"] == kind:
            return msg


def test_talk_is_relayed_between_instances_and_reports_are_stored(site: Site) -> None:
    import httpx
    from sqlalchemy import create_engine, select

    from bela.storage.models import talk_reports

    runner, relay = site.instances[0].url, site.instances[1].url

    async def scenario() -> str:
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(timeout=10) as http:
            heads = []
            for name in ("Vesna", "Zoran"):
                token = (await http.post(f"{runner}/api/guests", json={"name": name})
                         ).json()["token"]
                head = {"Authorization": f"Bearer {token}"}
                r = await http.post(f"{runner}/api/accounts", headers=head,
                                    json={"password": "lozinka-za-belu-7"})
                assert r.status_code == 200, r.text
                heads.append((token, head))
            r = await http.post(f"{runner}/api/tables", headers=heads[0][1],
                                json={"variant": "bela4", "seat": 0})
            tid = r.json()["id"]
            assert _owner(site, tid) == site.instances[0].name
            r = await http.post(f"{relay}/api/tables/{tid}/sit", headers=heads[1][1],
                                json={"seat": 1})
            assert r.status_code == 200, r.text
            here = connect(f"{runner.replace('http://', 'ws://')}/ws/tables/{tid}"
                           f"?token={heads[0][0]}", open_timeout=5, ping_interval=None)
            there = connect(f"{relay.replace('http://', 'ws://')}/ws/tables/{tid}"
                            f"?token={heads[1][0]}", open_timeout=5, ping_interval=None)
            async with here as vesna, there as zoran:
                for ws in (vesna, zoran):
                    await _until(ws, "welcome")
                for phrase in PHRASES[:3]:
                    await zoran.send(json.dumps({"type": "say", "phrase": phrase}))
                    for ws in (vesna, zoran):
                        said = await _until(ws, "said")
                        assert said == {"type": "said", "seat": 1, "phrase": phrase}
                await vesna.send(json.dumps({"type": "chat", "text": "<i>bok</i> Zorane"}))
                line = await _until(zoran, "chat")
                assert line["text"] == "<i>bok</i> Zorane" and line["seat"] == 0
                await zoran.send(json.dumps({"type": "report", "id": line["id"]}))
                assert (await _until(zoran, "reported"))["id"] == line["id"]
            return str(tid)

    tid = asyncio.run(scenario())
    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        rows = [dict(r._mapping) for r in conn.execute(select(talk_reports))]
    engine.dispose()
    assert [(r["table_id"], r["text"]) for r in rows] == [(tid, "<i>bok</i> Zorane")]


def test_the_lobby_room_spans_the_instances(site: Site) -> None:
    """A line written in the lobby at one instance reaches the lobby's connections at
    another (told over Redis), and is reported there."""
    import httpx

    first, second = site.instances[0].url, site.instances[2].url

    async def scenario() -> None:
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(timeout=10) as http:
            tokens = []
            for name in ("Vesna", "Zoran"):
                token = (await http.post(f"{first}/api/guests", json={"name": name})
                         ).json()["token"]
                r = await http.post(f"{first}/api/accounts",
                                    headers={"Authorization": f"Bearer {token}"},
                                    json={"password": "lozinka-za-belu-7"})
                assert r.status_code == 200, r.text
                tokens.append(token)
        here = connect(f"{first.replace('http://', 'ws://')}/ws/lobby?token={tokens[0]}",
                       open_timeout=5, ping_interval=None)
        there = connect(f"{second.replace('http://', 'ws://')}/ws/lobby?token={tokens[1]}",
                        open_timeout=5, ping_interval=None)
        async with here as vesna, there as zoran:
            for ws in (vesna, zoran):  # both are in the room before the line
                await ws.send(json.dumps({"type": "ping"}))
                await _until(ws, "pong")
            await vesna.send(json.dumps({"type": "chat", "text": "netko za belu?"}))
            line = await _until(zoran, "chat")
            assert line["text"] == "netko za belu?" and line["name"] == "Vesna"
            await zoran.send(json.dumps({"type": "report", "id": line["id"]}))
            assert (await _until(zoran, "reported"))["id"] == line["id"]

    asyncio.run(scenario())
