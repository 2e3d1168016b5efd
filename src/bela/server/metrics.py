"""The server's metrics in the Prometheus text format (``GET /metrics``), one registry per app.

Each server process counts what it does itself; Prometheus scrapes every instance and adds
them up.  Names are ``bela_*``:

- ``bela_live_tables`` (tables whose match this process runs), ``bela_open_tables``,
  ``bela_connections`` (WebSockets this process holds);
- ``bela_actions_total{by="human"|"bot"}`` (its rate is the actions per second);
- ``bela_action_update_seconds``: from an action reaching the table's process to its new
  state being handed to every connection (queue wait, engine, database write, views);
- ``bela_bot_think_seconds``, ``bela_store_write_seconds{what=...}`` (a table's log
  event: the time of the transaction that committed it);
- ``bela_store_batch_events``: the tables' log events in one group-committed transaction
  (:mod:`bela.server.writer`; its sum over its count: events a commit);
- ``bela_bot_jobs``: strong bots' decisions waiting for or running in the bot worker
  processes (:mod:`bela.server.botpool`);
- ``bela_errors_total{kind=...}``: ``storage`` (a write the database refused), ``bot`` (a
  bot's move made by the fallback), ``internal`` (a message a table could not handle),
  ``cluster`` (a call to another instance or to Redis that failed), ``lease_lost`` (a
  table another instance took over), ``log_conflict`` (a write fenced off because another
  process appended to the table).

They are served only to this machine and private networks (:func:`internal_address`; the
Prometheus of ``deploy/`` scrapes each instance on its private network): the timings would
tell anyone polling them how long each bot move took (docs/SECURITY.md).

>>> m = Metrics()
>>> m.actions.labels(by="bot").inc()
>>> b"bela_actions_total" in m.render()[0]
True
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
WRITE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Metrics:
    """The metrics of one server app (its own registry: several apps in one process, as in
    the tests, do not share counts)."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.live_tables = Gauge("bela_live_tables", "Tables whose match this process runs",
                                 registry=r)
        self.open_tables = Gauge("bela_open_tables", "Open tables this process keeps",
                                 registry=r)
        self.connections = Gauge("bela_connections", "WebSocket connections this process "
                                 "holds", registry=r)
        self.actions = Counter("bela_actions", "Actions applied at this process's tables",
                               ["by"], registry=r)
        self.action_update = Histogram(
            "bela_action_update_seconds", "From an action reaching its table's process to "
            "the new state handed to every connection", buckets=LATENCY_BUCKETS, registry=r)
        self.bot_think = Histogram("bela_bot_think_seconds", "Time a bot took to decide",
                                   buckets=LATENCY_BUCKETS, registry=r)
        self.bot_jobs = Gauge("bela_bot_jobs", "Bot decisions waiting for or running in the "
                              "bot worker processes", registry=r)
        self.store_write = Histogram("bela_store_write_seconds", "Time of one database write",
                                     ["what"], buckets=WRITE_BUCKETS, registry=r)
        self.store_batch = Histogram("bela_store_batch_events", "Log events in one "
                                     "group-committed transaction",
                                     buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
                                     registry=r)
        self.errors = Counter("bela_errors", "Errors by kind", ["kind"], registry=r)

    def watch(self, tables: Callable[[], float], open_tables: Callable[[], float]) -> None:
        """Read the two table gauges from ``tables()`` and ``open_tables()`` at each
        scrape."""
        self.live_tables.set_function(tables)
        self.open_tables.set_function(open_tables)

    def watch_bots(self, pending: Callable[[], float]) -> None:
        """Read ``bela_bot_jobs`` from ``pending()`` at each scrape."""
        self.bot_jobs.set_function(pending)

    @contextmanager
    def writing(self, what: str) -> Iterator[None]:
        """Time a database write of ``what`` (the time counts whether or not it worked)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.store_write.labels(what=what).observe(time.perf_counter() - start)

    def render(self) -> tuple[bytes, str]:
        """The text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


INTERNAL_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
    "::1/128", "fc00::/7", "fe80::/10"))


def internal_address(host: str | None) -> bool:
    """Whether a client address is this machine's or a private network's (loopback,
    RFC 1918, link-local, IPv6 unique local): who may read ``GET /metrics``.

    >>> [internal_address(h) for h in ("127.0.0.1", "10.1.2.3", "::ffff:192.168.0.9", "fd00::1")]
    [True, True, True, True]
    >>> [internal_address(h) for h in ("8.8.8.8", "2606:4700::1111", "172.32.0.1", "x", None)]
    [False, False, False, False, False]
    """
    try:
        ip = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in INTERNAL_NETWORKS)
