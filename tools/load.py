"""Load test: N concurrent tables whose players are bots behind real WebSocket connections.

``python tools/load.py --tables 200`` starts a server on 127.0.0.1 (a subprocess with a
temporary SQLite database) or uses ``--url`` (loopback addresses only), creates the tables
through the REST API, connects one WebSocket per seat, and lets each seat act with a bot on
the views it receives (random by default, ``--bot heuristic``), after a think time.  It
reports the latency from an action to every seat's update (p50/p99: the time from sending
an action until the resulting state has reached all seats of the table), the errors, the
actions per second and the server's memory per table (growth of its RSS / tables).

Strong bots at the tables: ``--table-bot pimc`` makes every table's bot ``pimc`` and fills all
but ``--humans`` seats of each table (default 1) with the SERVER's bots, which think in its bot
worker processes (``bela serve --bot-workers``: ``--bot-workers N`` here is passed on to the
servers it starts, ``0`` for threads); the load clients play the other seats as above, and the
latency is theirs (does a table's strong bot slow the other tables' players?).  The report adds
the server bots' moves per second and mean think time (from the servers' ``/metrics``).
``python tools/load.py --tables 50 --table-bot pimc --duration 60``.

Several instances of one site: ``--url`` given several times, or ``--cluster N --db
postgresql://... --redis redis://...`` (N server subprocesses on that database and Redis).
Tables are made round-robin over the instances and the seats of a table connect through
different instances (seat i of table k through instance (k + i) mod N), so every update
crosses instances; memory and CPU are summed over the started processes, and given per
instance in the JSON report.

The load itself runs in ``--clients`` processes (default: one per 400 tables; table k in
process k mod N), so that the generator's own stalls stay out of the figures: one event loop
serving 3,200 WebSockets stalls for 100 ms and more, and every action it sees late counts as
the servers' latency.  The servers are measured once, from when every load process has its
tables set up until all have stopped; each process's loop lag is in the report.

Bounded in time: play stops after ``--duration`` seconds (or when every match is over).

A tool of the repository, not part of the package: run it from a clone where bela is
installed with the ``server`` extra (``pip install -e '.[server]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import orjson
import wsclient  # tools/wsclient.py: the seats' WebSockets

from bela.bots import make_bot
from bela.engine.variants import VARIANTS, get_variant
from bela.server.protocol import view_from_json

# The load processes' collector during play: young collections every 100,000 objects, not
# 700 (measured at 600 tables: a load process's collections took 2.2 s of CPU in a 40 s run
# with the default, 0.35 s with this); cycles still go at each young collection.
_PLAY_GC = (100_000, 50, 10)


@dataclass
class TableRun:
    tid: str
    n: int
    sent: dict[int, float] = field(default_factory=dict)  # seq of the result -> send time
    arrived: dict[int, list[float]] = field(default_factory=dict)
    done: bool = False


@dataclass
class Window:
    """The time of play: it ends at ``at`` (``time.monotonic()``), set once every table has
    started."""

    at: float = float("inf")

    def over(self) -> bool:
        return time.monotonic() >= self.at


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # action -> every seat updated
    seat_latencies: list[float] = field(default_factory=list)  # action -> one seat updated
    actions: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    finished: int = 0

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)


def _percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc), 0 where unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def child_pids(pid: int) -> list[int]:
    """The child processes of a process (Linux /proc): a server's worker processes."""
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out.extend(int(c) for c in (task / "children").read_text().split())
    except (OSError, ValueError):
        pass
    return out


def workers_cpu(pids: Sequence[int | None]) -> dict[int, float]:
    """The CPU seconds of each child process of the processes ``pids``."""
    return {c: cpu_seconds(c) for pid in pids if pid for c in child_pids(pid)}


# the processes whose CPU the report gives beside the servers' (by their name in /proc)
SERVICES = {"postgres": ("postgres",), "redis": ("redis-server",)}


def box_snapshot() -> tuple[int, int, dict[int, tuple[str, float]]] | None:
    """The box's CPU time so far (Linux /proc/stat: busy and total ticks, all cores) and
    each :data:`SERVICES` process's CPU seconds with its service; ``None`` where unknown.

    >>> snap = box_snapshot()
    >>> snap is None or snap[0] <= snap[1]
    True
    """
    try:
        ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    procs: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        for service, names in SERVICES.items():
            if name.startswith(names):
                procs[int(entry.name)] = (service, cpu_seconds(int(entry.name)))
    return sum(ticks) - idle, sum(ticks), procs


def box_cpu_pct(before: tuple[int, int, dict[int, tuple[str, float]]] | None,
                after: tuple[int, int, dict[int, tuple[str, float]]] | None,
                elapsed: float, cores: int | None = None) -> dict[str, float] | None:
    """Between two :func:`box_snapshot`: how busy the box was (% of one core, all its
    cores together: 200 is a full 2-core box) and each service's CPU (% of a core; a
    process started meanwhile counts whole, one that ended is left out).

    >>> box_cpu_pct((100, 1000, {7: ("postgres", 1.0)}),
    ...             (250, 1200, {7: ("postgres", 1.5), 9: ("postgres", 0.25)}), 10.0, cores=2)
    {'busy': 150.0, 'cores': 2, 'postgres': 7.5, 'redis': 0.0}
    """
    if before is None or after is None or after[1] <= before[1] or elapsed <= 0:
        return None
    cores = cores or os.cpu_count() or 1
    out: dict[str, float] = {
        "busy": round(100 * cores * (after[0] - before[0]) / (after[1] - before[1]), 1),
        "cores": cores}
    for service in SERVICES:
        used = sum(cpu - (before[2][pid][1] if pid in before[2] else 0.0)
                   for pid, (name, cpu) in after[2].items() if name == service)
        out[service] = round(100 * used / elapsed, 1)
    return out


def check_loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"the load test runs on loopback only, not on {host!r}")


_ADDRESS = re.compile(r"http://[^\s/\"']+")
_LOAD_ARGS = ["--host", "127.0.0.1", "--port", "0", "--bot-delay", "0", "--round-pause", "0",
              "--grace", "3600", "--no-rate-limits"]


def _spawn(args: list[str], data_dir: str) -> subprocess.Popen[str]:
    """``python -m bela.server`` on 127.0.0.1 (any free port) with the load settings (no bot
    delay, no rate limits: the load comes from one address) and ``args``."""
    env = {**os.environ, "BELA_DATA_DIR": data_dir}
    return subprocess.Popen([sys.executable, "-m", "bela.server", *_LOAD_ARGS, *args],
                            stdout=subprocess.PIPE, text=True, env=env)


def _address(proc: subprocess.Popen[str], timeout: float = 120.0) -> str:
    """The URL a started server prints; its output is drained from then on."""
    seen: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not ready.is_set():
                seen.append(line)
                if _ADDRESS.search(line):
                    ready.set()
        ready.set()  # the process ended

    threading.Thread(target=drain, daemon=True).start()
    found = _ADDRESS.search(seen[-1]) if ready.wait(timeout) and seen else None
    if found is None:
        stop_servers([proc])
        raise SystemExit(f"the server did not start: {''.join(seen[-5:])!r}")
    return found.group(0)


def warm_kernels() -> None:
    """Compile the solver's kernels into Numba's cache on disk, in a process of its own,
    before the servers start: on a cold cache (a fresh clone, an upgrade) each bot and
    analysis worker of every server compiles them as it warms up, during play (at 600
    tables over three instances, six niced workers took a third of the box for the whole
    run, and the p99 went from ~110-170 ms to ~300 ms).  That is a server's first start,
    not its work per action; with the cache warm the workers load the kernels at once."""
    from bela.solver import kernels_cached

    if not kernels_cached():
        print("compiling the solver's kernels once (Numba's cache is cold)...",
              file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", "from bela.solver import warm_up; warm_up()"],
                       check=True)


def start_instance(args: list[str], data_dir: str) -> tuple[subprocess.Popen[str], str]:
    """One server subprocess (see :func:`_spawn`) once it listens: its process and URL."""
    proc = _spawn(args, data_dir)
    return proc, _address(proc)


def start_server(db_dir: str, args: Sequence[str] = ()) -> tuple[subprocess.Popen[str], str]:
    """A server subprocess on 127.0.0.1 with a fresh SQLite database in ``db_dir``, no
    rate limits and more ``args`` (``bela serve`` options); its process and URL."""
    return start_instance(["--db", f"sqlite:///{db_dir}/load.db", *args], db_dir)


def start_cluster(n: int, db: str, redis: str, data_dir: str,
                  args: Sequence[str] = ()) -> list[tuple[subprocess.Popen[str], str]]:
    """``n`` server subprocesses (instances ``load-0``...) on one database and one Redis,
    started together (more ``args``: ``bela serve`` options); their processes and URLs once
    all listen."""
    procs = [_spawn(["--db", db, "--redis", redis, "--instance", f"load-{i}", *args],
                    data_dir) for i in range(n)]
    try:
        return [(proc, _address(proc)) for proc in procs]
    except BaseException:
        stop_servers(procs)
        raise


def stop_servers(procs: Sequence[subprocess.Popen[str]]) -> None:
    """Terminate the processes, together; kill those still there after 10 s."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def seat_url(urls: Sequence[str], table_index: int, seat: int) -> str:
    """The instance through which a seat connects: seat i of table k through ``urls[(k + i)
    mod n]``, so a table's updates cross instances; seat 0's is also the instance that
    creates and starts the table (round-robin over the tables).

    >>> [[seat_url(["a", "b", "c"], k, i) for i in range(4)] for k in range(2)]
    [['a', 'b', 'c', 'a'], ['b', 'c', 'a', 'b']]
    """
    return urls[(table_index + seat) % len(urls)]


async def _wait_up(http: Any, url: str) -> None:
    for _ in range(300):
        try:
            if (await http.get(f"{url}/api/variants")).status_code == 200:
                return
        except Exception:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("the server does not answer")


async def _setup_table(http: Any, url: str, variant: str, target: int | None,
                       index: int, table_bot: str | None = None,
                       humans: int = 1) -> tuple[str, list[str]]:
    """A table whose seat i is taken by guest i: every seat, or with ``table_bot`` the
    first ``humans`` seats, the server's ``table_bot`` bots in the others.  Its id and the
    guests' tokens."""
    n = get_variant(variant).seats
    people = n if table_bot is None else max(1, min(humans, n))
    tokens = []
    for i in range(people):
        r = await http.post(f"{url}/api/guests", json={"name": f"load{index}-{i}"})
        r.raise_for_status()
        tokens.append(r.json()["token"])
    body: dict[str, Any] = {"variant": variant, "bot": table_bot or "random"}
    if target:
        body["options"] = {"target": target}
    owner = {"Authorization": f"Bearer {tokens[0]}"}
    r = await http.post(f"{url}/api/tables", json=body, headers=owner)
    r.raise_for_status()
    tid = r.json()["id"]
    for i in range(1, people):
        r = await http.post(f"{url}/api/tables/{tid}/sit", json={"seat": i},
                            headers={"Authorization": f"Bearer {tokens[i]}"})
        r.raise_for_status()
    if people < n:
        r = await http.post(f"{url}/api/tables/{tid}/bots", headers=owner)
        r.raise_for_status()
    return tid, tokens


_METRIC = re.compile(r'^(bela_actions_total\{by="bot"\}|bela_bot_think_seconds_sum|'
                     r"bela_bot_think_seconds_count|bela_bot_jobs) (\S+)$", re.M)


async def _scrape(http: Any, urls: Sequence[str]) -> dict[str, float]:
    """The servers' bot figures (``GET /metrics``), summed over the distinct URLs: bot
    moves, think time and decisions, decisions in the bot workers' queues now."""
    out: dict[str, float] = {}
    for u in set(urls):
        try:
            text = (await http.get(f"{u}/metrics")).text
        except Exception:  # noqa: S112 - figures of a server that does not answer: none
            continue
        for name, value in _METRIC.findall(text):
            out[name] = out.get(name, 0.0) + float(value)
    return out


_HEAD = '{"type":"state","seq":'  # how the server writes a state message (hub.py)
_RUNNING = ',"status":"running",'


def glance(text: str) -> int | None:
    """The ``seq`` of a state message of a running table in which the seat has nothing to
    do (``legal`` empty), read from the text without parsing it; ``None`` for every other
    message, which the seat reads in full.  Three of a table's four seats get such a
    message at each action, and the load processes' CPU is the box's too: parsing all of
    them cost a load process a fifth of its CPU.  A message written otherwise is read in
    full (slower, never wrong).

    >>> glance('{"type":"state","seq":12,"status":"running","view":{"legal":[]}}')
    12
    >>> glance('{"type":"state","seq":12,"status":"running","view":{"legal":["7S"]}}')
    >>> glance('{"type":"state","seq":12,"status":"finished","view":{"legal":[]}}')
    >>> glance('{"type":"error","code":"not_your_turn"}')
    """
    end = text.find(",", len(_HEAD))
    if (not text.startswith(_HEAD) or not text.startswith(_RUNNING, end)
            or text.count('"legal":') != 1 or '"legal":[]' not in text):
        return None
    digits = text[len(_HEAD):end]
    return int(digits) if digits.isdigit() else None


class Seat:
    """One seat of a table, played through its own WebSocket (:mod:`wsclient`): each state
    message is read as it arrives (its ``seq`` timed against the action that made it), and
    where the seat is to act, its bot (``random``: a random legal action) acts after the
    think time.  :attr:`ended` is done once the seat stops: its match is over, play's window
    has closed, or the connection ended (an error unless play has stopped)."""

    def __init__(self, run: TableRun, seat: int, stats: Stats, bot_name: str, think: float,
                 rng: random.Random, window: Window) -> None:
        self.run, self.seat, self.stats, self.think = run, seat, stats, think
        self.rng, self.window = rng, window
        self.bot = make_bot(bot_name, seed=rng.randrange(1 << 30)) \
            if bot_name != "random" else None
        self.ws: wsclient.WebSocket | None = None
        self.loop = asyncio.get_running_loop()
        self.ended: asyncio.Future[None] = self.loop.create_future()
        self.pending: asyncio.TimerHandle | None = None

    async def open(self, url: str) -> None:
        """Connect (``url``: the table's ``ws://`` address with the seat's token)."""
        self.ws = await wsclient.connect(url, self.on_text, self.on_closed,
                                         max_size=2 ** 20, timeout=30)

    async def close(self) -> None:
        self._end()
        if self.ws is not None:
            await self.ws.close()

    def _end(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
        if not self.ended.done():
            self.ended.set_result(None)

    def _error(self, what: str) -> None:
        if not self.window.over() and not self.run.done:
            self.stats.error(f"table {self.run.tid} seat {self.seat}: {what}")

    def on_closed(self, why: str | None) -> None:
        if why is not None and not self.ended.done():
            self._error(why)
        self._end()

    def on_text(self, text: str) -> None:
        if self.ended.done():
            return
        try:
            self._read(text)
        except Exception as exc:  # a message it cannot read ends the seat, as an error
            self._error(f"{type(exc).__name__}: {exc}")
            self._end()

    def _read(self, text: str) -> None:
        now = time.perf_counter()
        run = self.run
        msg = None
        seq = glance(text)  # most messages: the seq alone, read without parsing them
        if seq is None:
            msg = orjson.loads(text)
            kind = msg.get("type")
            if kind == "error":
                self.stats.error(f"table {run.tid} seat {self.seat}: {msg}")
                return
            if kind != "state":
                return
            seq = msg["seq"]
        if seq in run.sent:
            self.stats.seat_latencies.append(now - run.sent[seq])
            arr = run.arrived.setdefault(seq, [])
            arr.append(now)
            if len(arr) == run.n:
                self.stats.latencies.append(max(arr) - run.sent.pop(seq))
                del run.arrived[seq]
        if msg is not None:
            if msg["status"] == "finished":
                if not run.done:
                    run.done = True
                    self.stats.finished += 1
                self._end()
                return
            view = msg["view"]
            # a lone keep in the exchange: the server answers it (R32, R35)
            if view["legal"] and view["legal"] != ["keep"] and not self.window.over():
                delay = self.think * (0.5 + self.rng.random()) if self.think > 0 else 0.0
                self.pending = self.loop.call_later(delay, self._act, seq, view)
        if self.window.over():
            self._end()

    def _act(self, seq: int, view: dict[str, Any]) -> None:
        if self.window.over() or self.run.done or self.ws is None:
            return
        try:
            if self.bot is not None:
                token = self.bot.act(view_from_json(view)).token()
            else:
                legal = view["legal"]
                token = legal[self.rng.randrange(len(legal))]
            self.run.sent[seq + 1] = time.perf_counter()
            self.ws.send(json.dumps({"type": "act", "action": token, "seq": seq}))
            self.stats.actions += 1
        except Exception as exc:
            self._error(f"{type(exc).__name__}: {exc}")


@dataclass
class Part:
    """What one load process saw of its share of the tables (merged by :func:`_report`)."""

    tables: int = 0
    connections: int = 0
    setup_s: float = 0.0
    per_url_tables: list[int] = field(default_factory=list)
    per_url_sockets: list[int] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    lags: list[float] = field(default_factory=list)  # its event loop's stalls
    cpu_s: float = 0.0  # its CPU during play

    def plain(self) -> dict[str, Any]:
        """As plain data, to cross a process boundary (:meth:`from_plain` back)."""
        return asdict(self)

    @classmethod
    def from_plain(cls, d: dict[str, Any]) -> Part:
        return cls(**{**d, "stats": Stats(**d["stats"])})


class Gate(Protocol):
    """Where a load process meets the one measuring the servers: :meth:`ready` once its
    tables are set up and their seats connected (play starts when it returns), :meth:`ended`
    once play has stopped (its sockets close when it returns)."""

    async def ready(self) -> None: ...

    async def ended(self, part: Part) -> None: ...


async def play_part(urls: Sequence[str], indexes: Sequence[int], variant: str, think: float,
                    duration: float, bot: str, target: int | None, rng: random.Random,
                    table_bot: str | None, humans: int, gate: Gate,
                    stop: asyncio.Future[Any] | None = None, requests: int = 16) -> Part:
    """Set up and play the tables of ``indexes`` (of all the load's tables: their names and
    instances, :func:`seat_url`) from this process, meeting ``gate`` before and after play;
    play lasts ``duration`` seconds after the last of them has started, or until every match
    is over or ``stop`` is done; ``requests``: at most this many of its HTTP requests (set
    up, start) under way at once."""
    import httpx

    part = Part(per_url_tables=[0] * len(urls), per_url_sockets=[0] * len(urls))
    stats = part.stats
    # idle connections closed before the server does (its keep-alive: 5 s), so that a
    # request never goes out on one the server is closing
    limits = httpx.Limits(max_connections=32, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        sem = asyncio.Semaphore(requests)

        async def one(k: int) -> tuple[int, str, list[str]]:
            async with sem:
                return (k, *await _setup_table(http, seat_url(urls, k, 0), variant, target, k,
                                               table_bot, humans))

        t_setup = time.perf_counter()
        made = await asyncio.gather(*(one(k) for k in indexes), return_exceptions=True)
        setups = [m for m in made if not isinstance(m, BaseException)]
        for m in made:
            if isinstance(m, BaseException):
                stats.error(f"setup: {type(m).__name__}: {m}")
        window = Window()
        seats: list[Seat] = []
        for k, tid, tokens in setups:
            part.per_url_tables[k % len(urls)] += 1
            run = TableRun(tid, len(tokens))
            for seat, tok in enumerate(tokens):
                ws_url = seat_url(urls, k, seat).replace("http://", "ws://", 1)
                player = Seat(run, seat, stats, bot, think, random.Random(rng.random()), window)
                try:
                    await player.open(f"{ws_url}/ws/tables/{tid}?token={tok}")
                except Exception as exc:
                    stats.error(f"connect: {type(exc).__name__}: {exc}")
                    continue
                seats.append(player)
                part.per_url_sockets[(k + seat) % len(urls)] += 1
        part.tables, part.connections = len(setups), len(seats)
        part.setup_s = time.perf_counter() - t_setup
        gc.collect()
        gc.freeze()  # the clients' own long-lived objects: keep GC pauses out of the numbers
        gc.set_threshold(*_PLAY_GC)
        await gate.ready()
        own0 = cpu_seconds(os.getpid())

        async def start(k: int, tid: str, tokens: list[str]) -> None:
            # each start on a connection of its own: they go out while the first deals
            # load this process too, and an idle connection kept for one could be one the
            # server closed (its 5 s keep-alive) before this process got round to reusing
            # it (a ReadError that says nothing of the server's capacity)
            at = time.perf_counter()
            try:
                async with sem:
                    r = await http.post(f"{seat_url(urls, k, 0)}/api/tables/{tid}/start",
                                        headers={"Authorization": f"Bearer {tokens[0]}",
                                                 "Connection": "close"})
            except Exception as exc:
                stats.error(f"start: {type(exc).__name__} after "
                            f"{time.perf_counter() - at:.1f} s: {exc}")
                return
            if r.status_code != 200:
                stats.error(f"start: {r.text}")

        await asyncio.gather(*(start(k, tid, tokens) for k, tid, tokens in setups))
        window.at = time.monotonic() + duration  # play runs this long after the last start

        async def watch_loop() -> None:  # this process's own stalls, for honesty
            while True:
                t = time.perf_counter()
                await asyncio.sleep(0.01)
                part.lags.append(time.perf_counter() - t - 0.01)

        watcher = asyncio.create_task(watch_loop())
        while not window.over() and not all(s.ended.done() for s in seats) and not (
                stop is not None and stop.done()):
            await asyncio.sleep(0.1)
        window.at = min(window.at, time.monotonic())  # ended by ``stop``: the seats stop
        part.cpu_s = cpu_seconds(os.getpid()) - own0
        watcher.cancel()
        await gate.ended(part)
        await asyncio.gather(*(s.close() for s in seats))
    return part


class ServerWatch:
    """The servers' figures over play: CPU (theirs and their worker processes'), peak
    memory (sampled every half second) and, with ``table_bot``, their bots' moves and queue
    (``/metrics``).  Made before the tables are set up: memory grows from there."""

    def __init__(self, http: Any, urls: Sequence[str], pids: Sequence[int | None],
                 table_bot: str | None) -> None:
        self.http, self.urls, self.pids, self.table_bot = http, urls, pids, table_bot
        self.known = [i for i, pid in enumerate(pids) if pid]
        self.rss0 = [rss_bytes(pid) if pid else 0 for pid in pids]
        self.rss_peak = [0] * len(urls)
        self.queue_peak = 0.0
        self.box: dict[str, float] | None = None  # box_cpu_pct over the play
        self._poller: asyncio.Task[None] | None = None

    async def begin(self) -> None:
        self.bots0 = await _scrape(self.http, self.urls)
        self.t0 = time.perf_counter()
        self.cpu0 = [cpu_seconds(pid) if pid else 0.0 for pid in self.pids]
        self.kids0 = workers_cpu(self.pids)
        self.box0 = box_snapshot()
        self._poller = asyncio.create_task(self._poll())

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            for i in self.known:
                self.rss_peak[i] = max(self.rss_peak[i], rss_bytes(self.pids[i] or 0))
            if self.table_bot is not None:
                self.queue_peak = max(self.queue_peak, (await _scrape(self.http, self.urls))
                                      .get("bela_bot_jobs", 0.0))

    async def end(self) -> None:
        self.elapsed = time.perf_counter() - self.t0
        if self._poller is not None:
            self._poller.cancel()
        for i in self.known:
            self.rss_peak[i] = max(self.rss_peak[i], rss_bytes(self.pids[i] or 0))
        self.bots1 = await _scrape(self.http, self.urls)
        self.cpu = [cpu_seconds(pid) - c0 if pid else 0.0
                    for pid, c0 in zip(self.pids, self.cpu0)]
        self.kids = sum(c - self.kids0.get(k, 0.0) for k, c in workers_cpu(self.pids).items())
        self.box = box_cpu_pct(self.box0, box_snapshot(), self.elapsed)


class _Local:
    """One load process: the servers are measured from this one."""

    def __init__(self, watch: ServerWatch) -> None:
        self.watch = watch

    async def ready(self) -> None:
        await self.watch.begin()

    async def ended(self, part: Part) -> None:
        await self.watch.end()


class _Piped:
    """A load process of several: it meets the measuring process over a pipe."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def _expect(self, what: str) -> None:
        got = await asyncio.to_thread(self.conn.recv)
        if got != what:
            raise RuntimeError(f"load process: {what!r} expected, {got!r} came")

    async def ready(self) -> None:
        self.conn.send("ready")
        await self._expect("go")

    async def ended(self, part: Part) -> None:
        self.conn.send(part.plain())
        await self._expect("close")


def _load_process(conn: Any, kwargs: dict[str, Any]) -> None:
    """The body of one load process (:func:`run_load` with ``clients`` > 1)."""
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    try:
        asyncio.run(play_part(**kwargs, gate=_Piped(conn)))
    except BaseException as exc:
        conn.send(f"failed: {type(exc).__name__}: {exc}")
        raise


async def _processes(ctx: Any, n: int, parts: list[dict[str, Any]], watch: ServerWatch
                     ) -> list[Part]:
    """Play the ``parts`` in ``n`` load processes, measuring the servers from when all are
    ready until all have ended."""
    conns, procs = [], []
    for kwargs in parts:
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_load_process, args=(theirs, kwargs), daemon=True)
        proc.start()
        theirs.close()
        conns.append(mine)
        procs.append(proc)

    async def recv(i: int) -> Any:
        try:
            got = await asyncio.to_thread(conns[i].recv)
        except EOFError:
            got = f"failed: exit code {procs[i].join(5) or procs[i].exitcode}"
        if isinstance(got, str) and got.startswith("failed"):
            raise RuntimeError(f"load process {i + 1} of {n} {got}")
        return got

    try:
        await asyncio.gather(*(recv(i) for i in range(n)))  # "ready"
        await watch.begin()
        for c in conns:
            c.send("go")
        done = await asyncio.gather(*(recv(i) for i in range(n)))
        await watch.end()
        for c in conns:
            c.send("close")
        for proc in procs:
            await asyncio.to_thread(proc.join, 60)
        return [Part.from_plain(d) for d in done]
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()


def default_clients(tables: int) -> int:
    """Load processes for ``tables`` tables: one per 400 (one event loop serving 1,600
    WebSockets at a human's pace stalls for tens of milliseconds; more, and its own stalls
    count as the servers' latency).

    >>> [default_clients(n) for n in (1, 200, 400, 401, 800, 2000)]
    [1, 1, 1, 2, 2, 5]
    """
    return max(1, -(-tables // 400))


async def run_load(url: str | Sequence[str], tables: int, variant: str, think: float,
                   duration: float, bot: str, target: int | None,
                   server_pid: int | Sequence[int | None] | None,
                   seed: int = 1, table_bot: str | None = None, humans: int = 1,
                   bot_workers: int | None = None,
                   stop: asyncio.Future[Any] | None = None,
                   clients: int = 1) -> dict[str, Any]:
    """Play ``tables`` tables on the server at ``url``, or spread over the instances of one
    site at the URLs (see :func:`seat_url`); ``server_pid``: the process of each, where known,
    for its memory and CPU; ``table_bot``: the server's bots of that spec take all but
    ``humans`` seats of each table (``bot_workers``: how the servers were started, for the
    report); ``clients``: the load processes playing them (table k in process k mod
    ``clients``; 1: this one); ``stop`` (one load process only): play also ends once it is
    done.  The report (a dict, as JSON)."""
    import httpx

    urls = [url] if isinstance(url, str) else list(url)
    pids = (list(server_pid) if isinstance(server_pid, Sequence)
            else [server_pid] * len(urls))
    if not urls or len(pids) != len(urls):
        raise ValueError("one server process (or None) per URL")
    if not 1 <= clients <= max(1, tables):
        raise ValueError(f"between 1 and {max(1, tables)} load processes, not {clients}")
    if stop is not None and clients != 1:
        raise ValueError("stop is for one load process")
    for u in urls:
        check_loopback(u)
    async with httpx.AsyncClient(timeout=30) as http:
        await asyncio.gather(*(_wait_up(http, u) for u in set(urls)))
        watch = ServerWatch(http, urls, pids, table_bot)
        # the load processes' HTTP requests under way at once: 16 in all, however many
        common: dict[str, Any] = {"urls": urls, "variant": variant, "think": think,
                                  "duration": duration, "bot": bot, "target": target,
                                  "table_bot": table_bot, "humans": humans,
                                  "requests": max(1, 16 // clients)}
        if clients == 1:
            parts = [await play_part(indexes=range(tables), rng=random.Random(seed),
                                     gate=_Local(watch), stop=stop, **common)]
        else:
            import multiprocessing

            parts = await _processes(
                multiprocessing.get_context("spawn"), clients,
                [{**common, "indexes": list(range(i, tables, clients)),
                  "rng": random.Random(seed + 1_000_003 * i)} for i in range(clients)],
                watch)
    return _report(parts, watch, variant, bot, think, table_bot, humans, bot_workers)


def _report(parts: Sequence[Part], watch: ServerWatch, variant: str, bot: str, think: float,
            table_bot: str | None, humans: int, bot_workers: int | None) -> dict[str, Any]:
    urls, known, elapsed = watch.urls, watch.known, watch.elapsed
    stats = Stats(latencies=[x for p in parts for x in p.stats.latencies],
                  seat_latencies=[x for p in parts for x in p.stats.seat_latencies],
                  actions=sum(p.stats.actions for p in parts),
                  errors=sum(p.stats.errors for p in parts),
                  error_samples=[e for p in parts for e in p.stats.error_samples][:10],
                  finished=sum(p.stats.finished for p in parts))
    lags = [x for p in parts for x in p.lags]
    n_tables = sum(p.tables for p in parts)
    per_url_tables = [sum(p.per_url_tables[i] for p in parts) for i in range(len(urls))]
    per_url_sockets = [sum(p.per_url_sockets[i] for p in parts) for i in range(len(urls))]
    growth = sum(watch.rss_peak[i] - watch.rss0[i] for i in known)
    per_table = growth / max(1, n_tables) if known else None
    instances = [{"url": u, "tables": per_url_tables[i], "connections": per_url_sockets[i],
                  "rss_mb": round(watch.rss_peak[i] / 2 ** 20, 1) if i in known else None,
                  "cpu_pct": round(100 * watch.cpu[i] / elapsed, 1) if i in known else None}
                 for i, u in enumerate(urls)]
    moves = {k: watch.bots1.get(k, 0.0) - watch.bots0.get(k, 0.0) for k in watch.bots1}
    decisions = moves.get("bela_bot_think_seconds_count", 0.0)
    server_bots = None if table_bot is None else {
        "bot": table_bot, "seats_per_table": get_variant(variant).seats - humans,
        "bot_workers": bot_workers,
        "moves_per_s": round(moves.get('bela_actions_total{by="bot"}', 0.0) / elapsed, 1),
        "think_ms_mean": round(1000 * moves.get("bela_bot_think_seconds_sum", 0.0)
                               / decisions, 1) if decisions else None,
        "queue_peak": int(watch.queue_peak)}
    return {
        "tables": n_tables, "connections": sum(p.connections for p in parts),
        "variant": variant, "bot": bot, "server_bots": server_bots,
        "think_s": think, "duration_s": round(elapsed, 1),
        "setup_s": round(max(p.setup_s for p in parts), 1),
        "actions": stats.actions, "actions_per_s": round(stats.actions / elapsed, 1),
        "latency_ms": {"p50": round(_percentile(stats.latencies, 50) * 1000, 2),
                       "p99": round(_percentile(stats.latencies, 99) * 1000, 2),
                       "max": round(max(stats.latencies, default=float("nan")) * 1000, 2),
                       "samples": len(stats.latencies)},
        "seat_latency_ms": {"p50": round(_percentile(stats.seat_latencies, 50) * 1000, 2),
                            "p99": round(_percentile(stats.seat_latencies, 99) * 1000, 2)},
        "load_processes": len(parts),
        "client_loop_lag_ms": {"p99": round(_percentile(lags, 99) * 1000, 2),
                               "max": round(max(lags, default=0.0) * 1000, 2)},
        "errors": stats.errors, "error_samples": stats.error_samples,
        "matches_finished": stats.finished,
        # over the processes known: the sum of their peaks, of their growth, of their CPU
        "server_rss_mb": round(sum(watch.rss_peak) / 2 ** 20, 1) if known else None,
        "memory_per_table_kb": round(per_table / 1024, 1) if per_table is not None else None,
        "server_cpu_pct": round(100 * sum(watch.cpu) / elapsed, 1) if known else None,
        # their worker processes (bots, analysis), which server_cpu_pct leaves out
        "workers_cpu_pct": round(100 * watch.kids / elapsed, 1) if known else None,
        # the load processes' CPU during play, all together
        "client_cpu_pct": round(100 * sum(p.cpu_s for p in parts) / elapsed, 1),
        # the whole box during play (busy: % of one core, all cores together) and the CPU
        # of the database's and Redis's processes on it (% of a core); None off Linux
        "box_cpu_pct": watch.box,
        "instances": instances,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python tools/load.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--url", action="append", default=None,
                   help="a running server (loopback only); several times: instances of one "
                   "site, the load spread over them; default: start one with a temporary "
                   "database")
    p.add_argument("--cluster", type=int, default=None, metavar="N",
                   help="start N server instances on --db and --redis, the load spread over "
                   "them")
    p.add_argument("--db", default=None, help="PostgreSQL URL for --cluster")
    p.add_argument("--redis", default=None, help="Redis URL for --cluster")
    p.add_argument("--variant", default="bela4", choices=list(VARIANTS))
    p.add_argument("--think", type=float, default=0.5,
                   help="mean seconds a seat thinks before acting (uniform 0.5x-1.5x)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    p.add_argument("--bot", default="random", choices=["random", "heuristic"],
                   help="the bot of the load clients' seats")
    p.add_argument("--table-bot", default=None, metavar="BOT",
                   help="the tables' bot (a name the server offers: pimc, ismcts, ...): the "
                   "server's bots take all but --humans seats of each table")
    p.add_argument("--humans", type=int, default=1,
                   help="with --table-bot: the seats of each table the load clients play")
    p.add_argument("--bot-workers", type=int, default=None, metavar="N",
                   help="bela serve --bot-workers for the servers started here (0: the "
                   "bots think in threads; default: the server's, or 0 without --table-bot)")
    p.add_argument("--target", type=int, default=None, help="match target (default: the "
                   "variant's)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clients", type=int, default=None, metavar="N",
                   help="load processes playing the tables (default: one per 400 tables, "
                   "so that the load generator's own stalls stay out of the latency)")
    p.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = p.parse_args(argv)
    if args.cluster is not None:
        if args.url:
            p.error("--cluster starts its own servers: not with --url")
        if args.cluster < 1:
            p.error("--cluster needs at least 1 instance")
        if not args.db or not args.db.startswith("postgresql"):
            p.error("--cluster needs --db postgresql://...")
        if not args.redis:
            p.error("--cluster needs --redis redis://...")
    elif args.db or args.redis:
        p.error("--db and --redis are for --cluster")
    if args.url and args.bot_workers is not None:
        p.error("--bot-workers is for the servers started here: not with --url")
    if args.humans < 1:
        p.error("--humans needs at least 1 seat a table")
    if args.tables < 1:
        p.error("--tables needs at least 1 table")
    clients = default_clients(args.tables) if args.clients is None else args.clients
    if not 1 <= clients <= args.tables:
        p.error(f"--clients: between 1 and --tables ({args.tables})")
    bot_workers = args.bot_workers
    if bot_workers is None and args.table_bot is None and not args.url:
        bot_workers = 0  # no bot of the server plays: no worker processes to start
    serve_args = [] if bot_workers is None else ["--bot-workers", str(bot_workers)]
    for u in args.url or []:
        check_loopback(u)
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    procs: list[subprocess.Popen[str]] = []
    tmp = None
    urls: list[str] = args.url or []
    try:
        if not urls:
            warm_kernels()
            tmp = tempfile.TemporaryDirectory(prefix="bela-load-")
            started = (start_cluster(args.cluster, args.db, args.redis, tmp.name, serve_args)
                       if args.cluster is not None else [start_server(tmp.name, serve_args)])
            procs = [proc for proc, _ in started]
            urls = [u for _, u in started]
        pids: list[int | None] = [proc.pid for proc in procs] or [None] * len(urls)
        report = asyncio.run(run_load(urls, args.tables, args.variant, args.think,
                                      args.duration, args.bot, args.target, pids, args.seed,
                                      args.table_bot, args.humans, bot_workers,
                                      clients=clients))
    finally:
        stop_servers(procs)
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(report))
    else:
        lat = report["latency_ms"]
        n = len(report["instances"])
        print(f"{report['tables']} tables over {n} instance{'s' * (n != 1)} "
              f"({report['connections']} WebSockets, {args.variant}, "
              f"think {args.think}s), {report['duration_s']}s: {report['actions']} actions "
              f"({report['actions_per_s']}/s)")
        print(f"latency action -> every seat: p50 {lat['p50']} ms, p99 {lat['p99']} ms, "
              f"max {lat['max']} ms ({lat['samples']} actions)")
        sb = report["server_bots"]
        if sb is not None:
            w, seats = sb["bot_workers"], sb["seats_per_table"]
            how = ("default" if w is None else "threads" if w == 0
                   else f"{w} process{'es' * (w != 1)}")
            print(f"server bots: {sb['bot']} in {seats} seat{'s' * (seats != 1)} a table "
                  f"(bot workers: {how}): {sb['moves_per_s']} moves/s, think "
                  f"{sb['think_ms_mean']} ms mean, queue peak {sb['queue_peak']}")
        k, lag = report["load_processes"], report["client_loop_lag_ms"]
        print(f"errors: {report['errors']}  finished matches: {report['matches_finished']}  "
              f"({k} load process{'es' * (k != 1)}, their loops' lag: p99 {lag['p99']} ms, "
              f"max {lag['max']} ms)")
        if report["memory_per_table_kb"] is not None:
            print(f"server{'s' * (n != 1)}: RSS {report['server_rss_mb']} MB, "
                  f"{report['memory_per_table_kb']} KB per table, "
                  f"CPU {report['server_cpu_pct']}% + workers {report['workers_cpu_pct']}% "
                  f"(load clients: {report['client_cpu_pct']}%)")
        box = report["box_cpu_pct"]
        if box is not None:
            print(f"the box: {box['busy']}% busy of {100 * box['cores']:.0f}%; PostgreSQL "
                  f"{box['postgres']}%, Redis {box['redis']}%")
        if n > 1:
            for inst in report["instances"]:
                figures = (f", RSS {inst['rss_mb']} MB, CPU {inst['cpu_pct']}%"
                           if inst["rss_mb"] is not None else "")
                print(f"  {inst['url']}: {inst['tables']} tables, "
                      f"{inst['connections']} WebSockets{figures}")
        for e in report["error_samples"]:
            print("  error:", e)
    return 0 if report["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
