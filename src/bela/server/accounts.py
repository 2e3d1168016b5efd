"""Accounts: a guest claims his name with a password; logins, logouts, password changes.

A guest is a player known by his token only.  Claiming his name makes him an account: the
same player id (his history and ratings stay his), and from then on the name is his alone
(names are compared by :func:`~bela.storage.names.name_key`, a confusable skeleton:
``Мirnаd121`` with a Cyrillic ``М`` and ``а`` is ``Mirnad121``) and a login with the
password gives him a new token in any browser.  Passwords are kept as Argon2id hashes
(argon2-cffi), never logged.

Guessing is slowed down twice: the server's middleware limits logins, claims and password
changes per client address (``ServerConfig.rate_logins``), and :class:`RateLimits` counts
every login attempt of each account name, right or wrong, from wherever it comes
(``ServerConfig.rate_login_attempts``), before its password is verified: a guesser spread
over many addresses is stopped too, however many guesses he sends at once.  A login with an
unknown name spends a hash's time as a wrong password does, so the answer's time does not
tell which names have accounts.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from argon2.low_level import ARGON2_VERSION
from fastapi import APIRouter, Header, Request

from ..storage import NameTaken
from ..storage.names import name_key as name_key  # re-exported: compared by it
from ..storage.repos import Accounts
from .answers import Claimed, Done, LoggedIn, NewPassword
from .auth import Player, bearer_token
from .errors import Conflict, Forbidden, InvalidInput, Unauthenticated
from .protocol import MAX_NAME, ClaimIn, LoginIn, PasswordIn
from .ratelimit import RateLimits

if TYPE_CHECKING:
    from .cluster import Cluster
    from .lobby import Lobby

log = logging.getLogger("bela.server")

router = APIRouter()

MIN_PASSWORD, MAX_PASSWORD = 8, 128  # characters
HASHES_AT_ONCE = 2  # Argon2 hashes computed at the same time (each ~0.1 s of CPU and 64 MiB)
MAX_KEY = 64  # characters of a name's key the database keeps (players.name_key)
REVOKED = 4401  # WebSocket close code of a player logged out everywhere (4000 + HTTP 401)


def clean_name(name: str) -> str:
    """A player's name as kept: its runs of spaces made one; raises :class:`InvalidInput`
    for an empty name or one with characters that do not print."""
    text = " ".join(name.split())
    if not text or any(not ch.isprintable() for ch in text):
        raise InvalidInput("bad_name", f"a name is 1 to {MAX_NAME} printable characters")
    return text


def name_taken(name: str) -> Conflict:
    """The refusal of a name an account holds (to a new guest, to a claim)."""
    return Conflict("name_taken", f"the name {name!r} belongs to an account: log in with its "
                    "password, or choose another name")


class Passwords:
    """Argon2id hashes (argon2-cffi's default cost) made in worker threads, at most
    ``at_once`` at a time: a burst of logins waits its turn instead of taking every core and
    the memory the tables need."""

    def __init__(self, at_once: int = HASHES_AT_ONCE) -> None:
        self.hasher = PasswordHasher()
        self._slots = asyncio.Semaphore(at_once)
        self.unknown = _unmatched_hash(self.hasher)

    async def hash(self, password: str) -> str:
        async with self._slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made of; ``None`` (an unknown
        name) is verified against :attr:`unknown`, which takes as long and matches
        nothing."""
        async with self._slots:
            return await asyncio.to_thread(self._verify, stored or self.unknown, password)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except VerificationError:  # the wrong password
            return False
        except InvalidHashError:
            log.warning("a stored password hash is not one argon2 reads: nobody can log in "
                        "to that account")
            return False

    def outdated(self, stored: str) -> bool:
        """Whether ``stored`` was made at another cost than today's (made again at the next
        login)."""
        return self.hasher.check_needs_rehash(stored)


def _unmatched_hash(hasher: PasswordHasher) -> str:
    """An encoded hash at ``hasher``'s cost with a random salt and a random tag: no known
    password gives it, and verifying a password against it costs a real verification."""
    def b64(size: int) -> str:
        return base64.b64encode(secrets.token_bytes(size)).decode("ascii").rstrip("=")

    return (f"$argon2id$v={ARGON2_VERSION}$m={hasher.memory_cost},t={hasher.time_cost},"
            f"p={hasher.parallelism}${b64(hasher.salt_len)}${b64(hasher.hash_len)}")


@dataclass
class _Shared:
    """What the routes of one app share: its password hashing and the login attempts'
    counts (in the storage of the rate limits)."""

    passwords: Passwords
    limits: RateLimits


def _shared(request: Request) -> _Shared:
    """The app's :class:`_Shared`, made at its first use (on the app's event loop, where the
    semaphore of its hashes belongs), with the app's rate limits."""
    state = request.app.state
    shared: _Shared | None = getattr(state, "accounts", None)
    if shared is None:
        shared = state.accounts = _Shared(Passwords(), state.rate_limits)
    return shared


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def _accounts(request: Request) -> Accounts:
    return _lobby(request).store.db.accounts


def _strong(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidInput("weak_password", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} "
                           "characters")
    if "\x00" in password:  # a NUL is no character anyone types
        raise InvalidInput("weak_password", "a password has no NUL characters")


def _account_only(player: dict[str, Any], what: str) -> None:
    if not player["account"]:
        raise Forbidden("not_account", f"{what} needs an account: claim your name with a "
                        "password first (POST /api/accounts)")


def _bad_login(message: str = "wrong name or password") -> Unauthenticated:
    return Unauthenticated("bad_login", message)


async def _attempt(shared: _Shared, key: str) -> None:
    """Count a login attempt of the name ``key`` (raises :class:`TooMany` over its limit),
    before its password is verified.  A key longer than any account's counts by its first
    ``MAX_KEY + 1`` characters: it is nobody's, and the counts stay small."""
    await shared.limits.hit("login_attempts", key[:MAX_KEY + 1])


async def _close_sockets(request: Request, player_id: str) -> int:
    """Close the player's WebSockets with :data:`REVOKED`: those this process holds, and
    in a cluster those of every other instance too; how many were closed here."""
    cluster: Cluster | None = request.app.state.router.cluster
    if cluster is None:
        return _lobby(request).hub.close_player(player_id, REVOKED)
    return await cluster.relays.close_player_everywhere(player_id, REVOKED)


@router.post("/api/accounts")
async def claim(body: ClaimIn, p: Player, request: Request) -> Claimed:
    """Make the guest an account: his name (or ``name``) with a password.  He stays the
    same player, and his token keeps working."""
    if p["account"]:
        raise Conflict("already_account", "this player already has an account (change its "
                       "password at POST /api/players/me/password)")
    _strong(body.password)
    name = clean_name(p["name"] if body.name is None else body.name)
    key = name_key(name)
    if len(key) > MAX_KEY:  # a few characters grow when made plain or case-folded
        raise InvalidInput("bad_name", "this name is too long for an account: choose a "
                           "shorter one")
    accounts = _accounts(request)
    if await asyncio.to_thread(accounts.name_taken, key):  # before the hash is spent
        raise name_taken(name)
    digest = await _shared(request).passwords.hash(body.password)
    try:
        claimed = await asyncio.to_thread(accounts.claim, p["id"], name, key, digest)
    except NameTaken:  # another player claimed it meanwhile
        raise name_taken(name) from None
    if not claimed:  # his other browser claimed a name meanwhile
        raise Conflict("already_account", "this player already has an account")
    log.info("player %s made an account", p["id"])
    return Claimed(player_id=p["id"], name=name, account=True,
                   device=await asyncio.to_thread(accounts.add_device, p["id"]))


@router.post("/api/login")
async def login(body: LoginIn, request: Request) -> LoggedIn:
    """A new token of the account with this name and password (its other tokens keep
    working: one for each browser).  Every attempt counts for the name, right or wrong."""
    shared, accounts = _shared(request), _accounts(request)
    key = name_key(body.name)
    found = await asyncio.to_thread(accounts.account, key) if len(key) <= MAX_KEY else None
    # a browser that logged in to this account before (its device secret) is not held by
    # the name's lock that others' failures set; the per-address limit still counts it
    known = (body.device is not None and found is not None
             and await asyncio.to_thread(accounts.known_device, found["id"], body.device))
    if not known:
        await _attempt(shared, key)
    if len(body.password) > MAX_PASSWORD:  # nobody's, and not worth a hash
        raise _bad_login()
    stored = None if found is None else found["password_hash"]
    matched = await shared.passwords.verify(stored, body.password)  # spent for any name
    if found is None or stored is None or not matched:
        raise _bad_login()
    if shared.passwords.outdated(stored):
        await asyncio.to_thread(accounts.set_password, found["id"],
                                await shared.passwords.hash(body.password))
    return LoggedIn(player_id=found["id"], name=found["name"],
                    token=await asyncio.to_thread(accounts.add_session, found["id"]),
                    account=True,
                    device=body.device if known and body.device is not None
                    else await asyncio.to_thread(accounts.add_device, found["id"]))


@router.post("/api/logout")
async def logout(p: Player, request: Request,
                 authorization: Annotated[str | None, Header()] = None) -> Done:
    """The token sent stops working (a guest's only one too: he is gone for good)."""
    await asyncio.to_thread(_accounts(request).drop_token, bearer_token(authorization))
    return Done(ok=True)


@router.post("/api/logout-all")
async def logout_all(p: Player, request: Request) -> Done:
    """Every token of the account stops working, this one too, and its WebSockets are
    closed, on every instance of a cluster (a lost phone, a shared computer)."""
    _account_only(p, "logging out everywhere")
    await asyncio.to_thread(_accounts(request).drop_tokens, p["id"])
    closed = await _close_sockets(request, p["id"])
    log.info("player %s logged out everywhere (%d connections closed)", p["id"], closed)
    return Done(ok=True)


@router.post("/api/players/me/password")
async def change_password(body: PasswordIn, p: Player, request: Request) -> NewPassword:
    """A new password: every token of the account stops working but the one answered,
    which replaces the one sent, and the player's WebSockets are closed (his browser
    connects again with the new token).  The check of ``old`` counts as a login attempt of
    the name."""
    _account_only(p, "changing a password")
    _strong(body.new)
    shared, accounts = _shared(request), _accounts(request)
    await _attempt(shared, name_key(p["name"]))
    if (len(body.old) > MAX_PASSWORD  # nobody's, and not worth a hash
            or not await shared.passwords.verify(
                await asyncio.to_thread(accounts.password_hash, p["id"]), body.old)):
        raise _bad_login("the old password is wrong")
    token = await asyncio.to_thread(accounts.change_password, p["id"],
                                    await shared.passwords.hash(body.new))
    closed = await _close_sockets(request, p["id"])
    log.info("player %s changed his password (%d connections closed)", p["id"], closed)
    return NewPassword(player_id=p["id"], name=p["name"], token=token, account=True)
