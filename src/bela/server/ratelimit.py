"""Rate limits per client address, kept by the ``limits`` library in a moving window, and
the login attempts per account name.

The storage is chosen by URL in one place (:class:`RateLimits`, from
``ServerConfig.rate_limit_storage``): ``memory://`` keeps the counts in this process;
``redis://host:6379`` (or any other ``limits`` storage) shares them between the processes
of one site.  A check over a limit raises :class:`~bela.server.errors.TooMany`.  A storage
that cannot be reached lets requests through (logged once a minute): a Redis restart must
not lock every player out, nor fail the health checks.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import time
from collections.abc import Callable

from limits import RateLimitItem, parse_many
from limits.errors import ConfigurationError
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from .errors import TooMany
from .model import ServerConfig

log = logging.getLogger("bela.server")
WARN_EVERY = 60.0  # seconds between two warnings that the storage cannot be reached


def address_key(host: str | None) -> str:
    """The key a client address counts under: an IPv6 address by its /64 (what one
    subscriber gets), any other address as it is.

    >>> address_key("2001:db8:1:2:3:4:5:6"), address_key("::ffff:10.0.0.1")
    ('2001:db8:1:2::/64', '10.0.0.1')
    """
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class RateLimits:
    """The server's named limits, each one or more ``limits`` items, counted by :meth:`hit`:
    ``requests``, ``guests``, ``tables``, ``logins``, ``websockets`` per client address,
    ``login_attempts`` per account name (each login, and each check of an old password,
    before its password is verified), ``talk`` per player and ``talk_address`` per address
    (phrases and lines of table talk)."""

    def __init__(self, config: ServerConfig) -> None:
        url = config.rate_limit_storage
        try:
            storage = storage_from_string(url)
        except ConfigurationError as exc:
            raise ValueError(f"rate_limit_storage {url!r}: {exc}") from None
        if not isinstance(storage, Storage):
            raise ValueError(f"rate_limit_storage {url!r}: give the URL without 'async+' "
                             "(memory://, redis://host:6379)")
        self.storage = storage
        self._warned = -WARN_EVERY
        self.limiter = MovingWindowRateLimiter(storage)
        self.items: dict[str, list[RateLimitItem]] = {
            name: parse_many(spec) if spec.strip() else []
            for name, spec in (("requests", config.rate_requests),
                               ("guests", config.rate_guests),
                               ("tables", config.rate_tables),
                               ("logins", config.rate_logins),
                               ("websockets", config.rate_websockets),
                               ("login_attempts", config.rate_login_attempts),
                               ("talk", config.rate_talk),
                               ("talk_address", config.rate_talk_address))}

    async def hit(self, name: str, key: str) -> None:
        """Count one ``name`` for ``key`` (an address, an account name); raises
        :class:`TooMany` over a limit (the limit that refuses does not count it).  Testing
        and counting are one step of the storage, so requests at the same time cannot all
        pass a limit that only some of them fit."""
        await self._guarded(self._hit, name, key)

    async def _guarded(self, op: Callable[[str, str], None], name: str, key: str) -> None:
        """Run ``op(name, key)``: on the event loop for the memory storage, else in a
        worker thread, where a storage that fails lets the request through uncounted."""
        if not self.items[name]:
            return
        if isinstance(self.storage, MemoryStorage):  # no I/O: on the event loop
            op(name, key)
            return
        try:  # a network storage: off the event loop
            await asyncio.to_thread(op, name, key)
        except TooMany:
            raise
        except Exception as exc:  # the storage is down: not counted, let through
            now = time.monotonic()
            if now - self._warned >= WARN_EVERY:
                self._warned = now
                log.warning("the rate limits' storage cannot be reached (%s: %s): requests "
                            "are let through uncounted", type(exc).__name__, exc)

    def _hit(self, name: str, key: str) -> None:
        for item in self.items[name]:
            if not self.limiter.hit(item, name, key):
                self._refuse(item, name, key)

    def _refuse(self, item: RateLimitItem, name: str, key: str) -> None:
        reset = self.limiter.get_window_stats(item, name, key).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        raise TooMany("rate_limited", f"too many {_WHAT[name]} (at most {item}); try again "
                      f"in {wait} s", retry_after=wait)


_WHAT = {"requests": "requests from your address", "guests": "new guests from your address",
         "tables": "new tables from your address",
         "logins": "logins and password changes from your address",
         "websockets": "WebSocket connections from your address",
         "login_attempts": "logins with this name",
         "talk": "phrases and lines from you",
         "talk_address": "phrases and lines from your address"}
