"""Kill and restart: a server process killed with SIGKILL in the middle of a round resumes
exactly where it was, and the match ends as an uninterrupted run of the same seed and the
same choices ends (same record, same result)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")

SEED = 4242
HUMANS = 2  # seats 0 and 1 are WebSocket clients; seats 2 and 3 are the server's bots


class Server:
    def __init__(self, db: Path, tmp: Path) -> None:
        env = {**os.environ, "BELA_DATA_DIR": str(tmp)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bela.server", "--port", "0", "--db", f"sqlite:///{db}",
             "--bot-delay", "0", "--round-pause", "0", "--grace", "60", "--allow-seed"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "http://" in line, line + (self.proc.stderr.read() if self.proc.stderr else "")
        self.base = line.split("http://", 1)[1].split("/", 1)[0]
        self.output: list[str] = []
        for f in (self.proc.stdout, self.proc.stderr):  # keep the pipes drained
            threading.Thread(target=lambda f=f: self.output.extend(f), daemon=True).start()
        deadline = time.time() + 30
        while True:
            try:
                if httpx.get(f"http://{self.base}/api/variants", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "the server did not come up"
            time.sleep(0.05)

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.request(method, f"http://{self.base}{path}", headers=headers, timeout=10,
                          **kw)
        assert r.status_code == 200, r.text
        return r.json()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.close()

    def close(self) -> None:
        """The pipes close with the process (their reader threads end at EOF)."""


class Seat:
    def __init__(self, server: Server, tid: str, token: str) -> None:
        self.ws = ws_client.connect(f"ws://{server.base}/ws/tables/{tid}?token={token}",
                                    open_timeout=10)
        self.state: dict[str, Any] | None = None

    def pump(self, timeout: float) -> bool:
        try:
            msg = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return False
        assert msg["type"] != "error", msg
        if msg["type"] == "state":
            self.state = msg
        return True

    def close(self) -> None:
        self.ws.close()


def choice(seq: int, legal: list[str]) -> str:
    """The players' choices: a function of the state number only (reproducible)."""
    return legal[random.Random(SEED * 7919 + seq).randrange(len(legal))]


def play(seats: list[Seat], stop: Any = None, limit: float = 60) -> dict[str, Any] | None:
    """Play until the match ends (its last state) or ``stop(state)`` says so (``None``)."""
    deadline = time.time() + limit
    acted = -1
    while time.time() < deadline:
        for s in seats:
            while s.pump(0.002):
                pass
        states = [s.state for s in seats if s.state is not None]
        if not states:
            seats[0].pump(0.5)
            continue
        newest = max(states, key=lambda st: st["seq"])
        if newest["status"] == "finished":
            return newest
        if all(st["seq"] == newest["seq"] for st in states):
            if stop is not None and stop(newest):
                return None
            turn = newest["view"]["turn"]
            if turn is not None and turn < HUMANS and acted != newest["seq"]:
                own = seats[turn].state
                assert own is not None
                action = choice(own["seq"], own["view"]["legal"])
                seats[turn].ws.send(json.dumps({"type": "act", "action": action,
                                                "seq": own["seq"]}))
                acted = newest["seq"]
        seats[0].pump(0.01)
    raise AssertionError("the match did not finish in time")


def setup(server: Server) -> tuple[str, list[str]]:
    tokens = [server.api("POST", "/api/guests", json={"name": f"P{i}"})["token"]
              for i in range(HUMANS)]
    table = server.api("POST", "/api/tables", tokens[0], json={
        "variant": "bela4", "options": {"target": 501}, "bot": "heuristic", "seed": SEED})
    tid = table["id"]
    server.api("POST", f"/api/tables/{tid}/sit", tokens[1], json={"seat": 1})
    server.api("POST", f"/api/tables/{tid}/bots", tokens[0])
    server.api("POST", f"/api/tables/{tid}/start", tokens[0])
    return tid, tokens


def finish(server: Server, tid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = server.api("GET", f"/api/tables/{tid}/record")
    record.pop("table")
    return record, server.api("GET", f"/api/tables/{tid}")


def uninterrupted(tmp: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    server = Server(tmp / "calm.db", tmp)
    try:
        tid, tokens = setup(server)
        seats = [Seat(server, tid, t) for t in tokens]
        last = play(seats)
        for s in seats:
            s.close()
        record, table = finish(server, tid)
        assert last is not None
        return record, table, last
    finally:
        server.stop()


def test_sigkill_mid_round_then_resume(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    server = Server(db, tmp_path)
    try:
        tid, tokens = setup(server)
        seats = [Seat(server, tid, t) for t in tokens]

        def mid_round(st: dict[str, Any]) -> bool:
            v = st["view"]
            return (v["round_index"] >= 1 and v["phase"] == "play" and len(v["tricks"]) >= 2
                    and v["turn"] is not None and v["turn"] < HUMANS)

        assert play(seats, stop=mid_round) is None
        before = [s.state for s in seats]
        assert before[0] is not None
        server.kill()  # SIGKILL: no shutdown code runs
        for s in seats:
            try:
                s.close()
            except Exception:
                pass
    finally:
        server.stop()
    server = Server(db, tmp_path)
    try:
        again = server.api("GET", f"/api/tables/{tid}")
        assert again["status"] == "running" and again["seq"] == before[0]["seq"]
        seats = [Seat(server, tid, t) for t in tokens]
        for s, old in zip(seats, before):
            while s.state is None:
                assert s.pump(5)
            assert old is not None
            assert s.state["seq"] == old["seq"]
            assert s.state["view"] == old["view"]  # exactly where it was, each seat's view
        last = play(seats)
        for s in seats:
            s.close()
        record, table = finish(server, tid)
    finally:
        server.stop()
    calm_record, calm_table, calm_last = uninterrupted(tmp_path)
    assert record == calm_record
    assert last is not None and last["seq"] == calm_last["seq"]
    assert last["view"]["totals"] == calm_last["view"]["totals"]
    assert table["totals"] == calm_table["totals"] and table["winner"] == calm_table["winner"]
    assert table["winner"] is not None
