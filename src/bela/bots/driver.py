"""The one game driver: a match whose seats are bots or people, one bot-failure policy.

The terminal, the arena and the server run their games through it.  A bot only ever gets
its seat's view; a person's action comes from outside (:meth:`Driver.apply`).  When a bot
fails, raising or choosing an action that is not legal, the same thing happens everywhere
(:func:`decide`): the heuristic bot chooses for it, seeded, else the first legal action, and
the failure is reported, so a match always goes on and replays the same way.

A bot chooses among the cards the duties allow (R17-R19) even where ``enforce = off``
accepts any card (R24, :func:`bot_view`); only a level that makes deliberate revokes plays
another card, and only where ``revokes`` allows it.  Bot seats claim auzmeš when their
view proves an opponent's revoke (:mod:`bela.bots.claims`), before the next move.

>>> from bela.engine import Match
>>> from bela.bots import RandomBot
>>> d = Driver(Match("bela2", seed=3), {0: RandomBot(1), 1: RandomBot(2)})
>>> d.play_match().winner is not None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..engine.actions import Action, Claim, Play
from ..engine.errors import IllegalAction
from ..engine.events import Event
from ..engine.state import Match, Round
from ..engine.views import SeatView, seat_view
from .base import Bot
from .claims import claim_for
from .heuristic import HeuristicBot


@dataclass(frozen=True)
class Decision:
    """A bot's action, and when the bot failed the reason (the fallback chose then)."""

    action: Action
    failure: BaseException | None = None


def bot_view(view: SeatView, revokes: bool = True) -> SeatView:
    """The view a bot decides on: its ``legal`` actions without the cards the duties refuse
    (R17-R19), also where ``enforce = off`` would accept them (R24), and its ``refusals``
    only those cards it may still play, a deliberate revoke (none with ``enforce = on``,
    none unless ``revokes``).

    >>> from bela.engine import Match, parse_action
    >>> from bela.engine.cards import Card
    >>> m = Match("bela4", {"enforce": "off"}, first_dealer=3)
    >>> _ = m.deal([Card.parse(h) for h in ("KS 7S 8S 9S 7C 8C 9C TC",
    ...     "AS TS JS QS 7D 8D 9D TD", "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")])
    >>> for token in ("H", "KS"):
    ...     _ = m.apply(parse_action(token))
    >>> v = seat_view(m, 1)
    >>> plays = lambda view: [a.token() for a in view.legal if isinstance(a, Play)]
    >>> len(plays(v)), plays(bot_view(v)), len(bot_view(v).refusals)
    (8, ['TS', 'AS'], 6)
    >>> bot_view(v, revokes=False).refusals
    ()
    """
    if not view.refusals:
        return view
    refused = {r.card for r in view.refusals}
    playable = {a.card for a in view.legal if isinstance(a, Play)}
    return replace(
        view, legal=tuple(a for a in view.legal if not (isinstance(a, Play) and a.card in refused)),
        refusals=tuple(r for r in view.refusals if revokes and r.card in playable))


def decide(choose: Callable[[SeatView], Action], view: SeatView,
           seed: int | Callable[[], int], revokes: bool = True) -> Decision:
    """The legal action ``choose`` (a bot's ``act``) picks for ``view``, shown to it as
    :func:`bot_view` (the duties' cards; a deliberate revoke only where ``revokes``).  If it
    raises or picks an action that is not legal for it, the heuristic bot seeded with
    ``seed`` (or what ``seed()`` gives, asked only then) picks, or failing too the first
    legal action, and the decision carries the failure.

    >>> from bela.engine import Match, parse_action
    >>> m = Match("bela4", seed=1); _ = m.deal()
    >>> d = decide(lambda v: parse_action("claim 1"), seat_view(m, 0), seed=0)
    >>> d.action in seat_view(m, 0).legal, type(d.failure).__name__
    (True, 'IllegalAction')
    """
    view = bot_view(view, revokes)
    legal = view.legal
    revoking = {Play(r.card) for r in view.refusals}  # a level's deliberate revoke
    try:
        action = choose(view)
        if action in legal or action in revoking:
            return Decision(action)
        failure: BaseException = IllegalAction(
            f"the bot chose {action.token()!r}, which is not legal here",
            legal=[a.token() for a in legal])
    except Exception as exc:  # any bot error: the match must go on
        failure = exc
    try:
        action = HeuristicBot(seed if isinstance(seed, int) else seed()).act(view)
        if action in legal:
            return Decision(action, failure)
    except Exception:  # noqa: S110 - the first legal action is the last resort
        pass
    return Decision(legal[0], failure)


class Driver:
    """Runs a :class:`Match` with bots at the seats in ``bots``; the other seats are people,
    whose actions come through :meth:`apply`.  ``on_failure(seat, error)`` hears of every
    bot failure (the fallback moved); ``seed`` seeds the fallbacks."""

    def __init__(self, match: Match, bots: Mapping[int, Bot], seed: int | None = None,
                 on_failure: Callable[[int, BaseException], None] | None = None) -> None:
        for seat in bots:
            if not 0 <= seat < match.variant.seats:
                raise ValueError(f"{match.variant.name} has no seat {seat}")
        self.match = match
        self.bots = dict(bots)
        self.seed = match.seed if seed is None else seed
        self.on_failure = on_failure
        self.failures = dict.fromkeys(self.bots, 0)  # fallback moves per bot seat

    @property
    def round(self) -> Round | None:
        """The round being played, or ``None`` between rounds and after the match."""
        rnd = self.match.round
        return rnd if rnd is not None and not rnd.is_over else None

    def to_act(self) -> int | None:
        """The seat to act now, ``None`` when no round is being played."""
        rnd = self.round
        return None if rnd is None else rnd.turn

    def bot_to_act(self) -> int | None:
        """The seat to act if a bot sits there."""
        seat = self.to_act()
        return seat if seat in self.bots else None

    def deal(self, hands: Sequence[Sequence[int]] | None = None,
             extra: Mapping[str, Sequence[int]] | None = None,
             dealer: int | None = None) -> Round:
        """Deal the next round (see :meth:`Match.deal`)."""
        return self.match.deal(hands, extra, dealer)

    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        """A seat's action (a claim names its seat; any other action is the turn's):
        verified, applied, booked; the events it caused."""
        rnd = self.round
        if rnd is None:
            raise IllegalAction("no round is being played: deal first")
        if isinstance(action, Claim) and action.seat != seat:
            raise IllegalAction(f"seat {seat} can only claim for itself (claim {seat})", "R24")
        if not isinstance(action, Claim) and rnd.turn != seat:
            raise IllegalAction(f"it is seat {rnd.turn}'s turn, not seat {seat}'s")
        return self.match.apply(action)

    def bot_decision(self, seat: int, view: SeatView | None = None) -> Decision:
        """What the bot at ``seat`` decides for its view (a failure counted and reported)."""
        view = seat_view(self.match, seat) if view is None else view
        decision = decide(self.bots[seat].act, view, lambda: self.fallback_seed(seat))
        if decision.failure is not None:
            self.failures[seat] += 1
            if self.on_failure is not None:
                self.on_failure(seat, decision.failure)
        return decision

    def fallback_seed(self, seat: int) -> int:
        """The fallback's seed for the next action: the driver's seed, the action's index
        in the match and the seat, so a replay falls back the same way."""
        moves = sum(len(r.log) for r in self.match.rounds)
        return ((self.seed or 0) * 1_000_003 + moves) * 8 + seat

    def bot_claim(self) -> Claim | None:
        """The auzmeš a bot seat makes now (R24, :func:`~bela.bots.claims.claim_for`): the
        first bot seat from the seat to act on whose view proves an opponent's revoke."""
        rnd = self.round
        if rnd is None or not rnd.claim_allowed():
            return None
        n = self.match.variant.seats
        for seat in ((rnd.turn + k) % n for k in range(n)):
            if seat in self.bots and (claim := claim_for(seat_view(self.match, seat))):
                return claim
        return None

    def step(self) -> tuple[Event, ...]:
        """Let a bot seat claim auzmeš if its view proves a revoke (:meth:`bot_claim`),
        else the bot to act make its move; the events."""
        claim = self.bot_claim()
        if claim is not None:
            return self.match.apply(claim)
        seat = self.bot_to_act()
        if seat is None:
            raise IllegalAction("no bot is to act now")
        return self.match.apply(self.bot_decision(seat).action)  # the bot acts in its turn

    def run_bots(self, on_events: Callable[[int, tuple[Event, ...]], None] | None = None
                 ) -> int | None:
        """Play bot moves until a person is to act (return the seat) or the round is over
        (``None``); ``on_events(seat, events)`` hears each move.  Before each move a bot
        seat whose view proves an opponent's revoke claims auzmeš (:meth:`bot_claim`)."""
        match, bots = self.match, self.bots
        while (rnd := match.round) is not None and not rnd.is_over:
            claim = self.bot_claim()
            if claim is not None:
                events = match.apply(claim)
                if on_events is not None:
                    on_events(claim.seat, events)
                continue
            seat = rnd.turn
            if seat not in bots:
                return seat
            events = match.apply(self.bot_decision(seat).action)
            if on_events is not None:
                on_events(seat, events)
        return None

    def play_round(self, hands: Sequence[Sequence[int]] | None = None,
                   extra: Mapping[str, Sequence[int]] | None = None) -> Round:
        """Deal and play a round with bots at every seat."""
        self._require_all_bots()
        rnd = self.deal(hands, extra)
        self.run_bots()
        return rnd

    def play_match(self) -> Match:
        """Play the match to its end with bots at every seat."""
        self._require_all_bots()
        while not self.match.is_over:
            self.play_round()
        return self.match

    def _require_all_bots(self) -> None:
        missing = [s for s in range(self.match.variant.seats) if s not in self.bots]
        if missing:
            raise ValueError(f"seats {missing} have no bot: a person plays there")
