"""The analysis board's heavy work, run in the server's worker processes.

Every function here takes JSON-able arguments and returns a JSON-able answer, so that
:mod:`bela.server.analysis` runs it in a :class:`~concurrent.futures.ProcessPoolExecutor`
off the event loop (:func:`init` is the workers' initializer: it loads the solver's
compiled kernels, :mod:`bela.solver.warm`).  A refusal is returned, not raised:
``{"error": {"code": ..., "message": ...}}`` (``bad_record``, ``bad_position``,
``bad_seat``, ``position_over``, ``no_turn``), which the web layer turns into its HTTP
status.

A *position* is a record (docs/RECORD.md), a round index and ``step``, the number of that
round's record actions applied (the declined exchanges a record leaves out are applied
before the next action, as :func:`bela.engine.record.replay` does, never after the last).
A *match log* is what a server table stores (its deals and every action with its seat,
declined exchanges included): ``{"variant", "options", "first_dealer", "rounds": [{"dealer",
"hands": [cards], "extra": {key: cards}, "actions": [[seat, token], ...]}]}``; a play-on
table is written from one (:func:`log_at`), a hint is worked out from one
(:func:`hint`).
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

from ..analysis.hints import advise
from ..analysis.review import review_match
from ..bots.contracts import estimate
from ..bots.heuristic import HeuristicBot
from ..bots.pimc import PimcBot
from ..engine.actions import Call, Pass, Play, parse_action
from ..engine.cards import Card, CardSet, format_cards
from ..engine.enums import Phase
from ..engine.record import Record, RecordError, read_record, replay, skip_declined_exchanges
from ..engine.state import Match
from ..engine.variants import get_variant
from ..engine.views import SeatView, seat_view
from .protocol import view_json

SAMPLES = 24  # sampled deals for a position's values and a hint (at least MIN_SAMPLES,
MIN_SAMPLES = 10  # then until SAMPLE_BUDGET seconds are spent)
SAMPLE_BUDGET = 0.3
BID_SAMPLES = 10  # sampled deals per bid of a bidding simulation (at least BID_MIN,
BID_MIN = 4  # then until BID_BUDGET seconds are spent on that bid)
BID_BUDGET = 0.25
BIGGEST = 5  # the costliest plays listed apart in a review

Answer = dict[str, Any]
P = ParamSpec("P")


class Refusal(Exception):
    """What the work cannot be done on: returned as ``{"error": ...}`` by the public
    functions."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def answer(self) -> Answer:
        return {"error": {"code": self.code, "message": self.message}}


# -- the worker ----------------------------------------------------------------------------
def init() -> None:
    """The initializer of a worker process: its end with the server's (a server killed
    with SIGKILL leaves no worker behind), the solver's kernels loaded (or compiled, the
    first time after an install) before the first job."""
    from ..solver.warm import warm_up
    from .botpool import end_with_server

    end_with_server()

    warm_up()


def ready() -> Answer:
    """A job that only waits for the worker to be warm: ``seconds`` it still needed (0
    once the initializer loaded the solver)."""
    from ..solver.warm import warm_up

    return {"seconds": warm_up()}


# -- records and positions -----------------------------------------------------------------
def load(data: Mapping[str, Any]) -> Record:
    """A record, replayed whole under the rules (raises :class:`Refusal` ``bad_record``
    saying where the record is wrong)."""
    try:
        record = read_record(dict(data))
        replay(record)
    except RecordError as exc:
        raise Refusal("bad_record", f"invalid record: {exc}") from None
    return record


def at(record: Record, round: int, step: int) -> Match:
    """The match of a valid record at a position: every round before ``round``, then
    ``step`` actions of it (raises :class:`Refusal` ``bad_position``)."""
    if not 0 <= round < len(record.rounds):
        raise Refusal("bad_position", f"round {round} is not in the record (it has "
                      f"{len(record.rounds)} rounds, from 0)")
    actions = record.rounds[round].actions
    if not 0 <= step <= len(actions):
        raise Refusal("bad_position", f"round {round} has {len(actions)} actions: step is "
                      f"0..{len(actions)}, not {step}")
    match = Match(record.variant, record.options, first_dealer=record.rounds[0].dealer)
    for i, rr in enumerate(record.rounds[:round + 1]):
        rnd = match.deal(rr.hands, rr.deal_extra, dealer=rr.dealer)
        for token in rr.actions[:step] if i == round else rr.actions:
            action = parse_action(token)
            skip_declined_exchanges(rnd, action)
            match.apply(action)
    return match


def _seat(match: Match, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < match.variant.seats:
        raise Refusal("bad_seat", f"{match.variant.name} has seats 0..{match.variant.seats - 1}")


def _codes(mask: int) -> list[str]:
    return [str(c) for c in CardSet(mask)]


def _values(values: Mapping[Any, float], digits: int = 1) -> dict[str, float]:
    return {str(k): round(v, digits) for k, v in values.items()}


def _pimc(seed: int) -> PimcBot:
    return PimcBot(seed=seed, samples=SAMPLES, budget=SAMPLE_BUDGET, min_samples=MIN_SAMPLES)


def _answers(fn: Callable[P, Answer]) -> Callable[P, Answer]:
    """``fn`` answering its refusals (the wrapper keeps its name: pickled by name, a job
    finds it in the worker)."""
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> Answer:
        try:
            return fn(*args, **kwargs)
        except Refusal as exc:
            return exc.answer()

    return run


# -- the jobs ------------------------------------------------------------------------------
@_answers
def position(data: Mapping[str, Any], round: int, step: int, seat: int | None,
             seed: int = 0) -> Answer:
    """A position of a record: every hand face up, the view of ``seat`` (the public view
    without one), the legal actions of the seat to act, the record's next action, the
    double-dummy values of the legal cards in the play (``dd``: card points the side to
    play takes in the round with best play by all; ``minimize`` in raspas, where the
    lowest is best) and, when ``seat`` is the seat to play, the values sampled over the
    deals consistent with what it knows (``sampled``, :meth:`PimcBot.card_values`)."""
    from ..solver import dd

    record = load(data)
    match = at(record, round, step)
    _seat(match, seat)
    rnd = match.round
    assert rnd is not None
    actions = record.rounds[round].actions
    over = rnd.is_over
    out: Answer = {
        "round": round, "step": step, "steps": len(actions), "phase": rnd.phase,
        "turn": None if over else rnd.turn, "over": over,
        "next": actions[step] if step < len(actions) else None,
        "hands": [_codes(h) for h in rnd.hands],
        "view": view_json(seat_view(match, seat)),
        "legal": [] if over else [a.token() for a in rnd.legal_actions()],
        "trick": [{"seat": s, "card": str(Card.ALL[c])}
                  for s, c in zip(rnd.trick_seats, rnd.trick)],
        "scores": list(match.totals), "sheet": [list(s) for s in match.sheet],
        "dd": None, "dd_best": None, "dd_line": None, "minimize": bool(rnd.raspas),
        "sampled": None,
    }
    if rnd.phase == Phase.PLAY:
        sol = dd.solve(rnd, line=True)
        out["dd"] = {str(c): v for c, v in sol.values.items()}
        out["dd_best"] = str(sol.best)
        out["dd_line"] = [str(c) for c in sol.line]
        out["minimize"] = sol.minimize
        if seat is not None and seat == rnd.turn:
            view = seat_view(match, seat)
            if any(isinstance(a, Play) for a in view.legal):
                out["sampled"] = _values(_pimc(seed).card_values(view))
    return out


@_answers
def check(data: Mapping[str, Any]) -> Answer:
    """A record to review: its ``rounds`` and ``seats`` once it replays."""
    record = load(data)
    return {"rounds": len(record.rounds), "seats": get_variant(record.variant).seats}


@_answers
def review_round(data: Mapping[str, Any], index: int) -> Answer:
    """The costly plays of one round of a valid record (``bela review``'s
    :func:`~bela.analysis.review.review_match` on that round alone: a round's double-dummy
    values do not depend on the others)."""
    record = read_record(dict(data))
    one = Record(record.variant, record.options, [record.rounds[index]], record.players)
    return {"plays": [{"round": index, "index": p.action, "seat": p.seat, "trick": p.trick,
                       "played": p.played, "best": p.best, "loss": p.loss,
                       "values": p.values} for p in review_match(one)]}


def summary(plays: list[dict[str, Any]], seats: int) -> Answer:
    """The points lost by seat and the costliest plays of a review's plays."""
    return {"loss_by_seat": [sum(p["loss"] for p in plays if p["seat"] == s)
                             for s in range(seats)],
            "biggest": sorted(plays, key=lambda p: -p["loss"])[:BIGGEST]}


@_answers
def bidding(data: Mapping[str, Any], round: int, seed: int = 0) -> Answer:
    """Each bid of a round with what the bots' simulation gave every contract the bidder
    could order, from his own view (the caller's mean margin over sampled deals solved
    double-dummy, as :class:`~bela.bots.pimc.PimcBot` bids; bela3, whose discards the
    simulation cannot play, the heuristic's fitted estimate), ``pass`` counting 0; ``bot``:
    the heuristic bot's choice there."""
    record = load(data)
    if not 0 <= round < len(record.rounds):
        raise Refusal("bad_position", f"round {round} is not in the record (it has "
                      f"{len(record.rounds)} rounds, from 0)")
    rng = random.Random(seed)
    bids = []
    for index, token in enumerate(record.rounds[round].actions):
        match = at(record, round, index)
        rnd = match.round
        assert rnd is not None
        skip_declined_exchanges(rnd, parse_action(token))
        if rnd.phase != Phase.BIDDING:
            break
        view = seat_view(match, rnd.turn)
        values, samples, method = bid_values(view, rng)
        bids.append({"seat": rnd.turn, "index": index, "action": token, "values": values,
                     "best": max(values, key=values.__getitem__) if values else None,
                     "bot": HeuristicBot(rng.randrange(2 ** 32)).act(view).token(),
                     "samples": samples, "method": method})
    return {"round": round, "bids": bids}


def bid_values(view: SeatView, rng: random.Random) -> tuple[dict[str, float], int, str]:
    """The values of a bidder's legal bids (see :func:`bidding`), the deals sampled and the
    method (``sim`` or ``estimate``)."""
    calls = [a for a in view.legal if isinstance(a, Call)]
    values: dict[str, float] = {}
    samples, method = 0, "sim"
    if get_variant(view.variant).discards:
        method = "estimate"
        turned = view.public.get("turned")
        for c in calls:
            values[c.token()] = estimate(view.variant, c.contract, view.hand.mask,
                                         view.seat == view.first,
                                         -1 if turned is None else int(turned))
    elif calls:
        bot = PimcBot(seed=rng.randrange(2 ** 32))
        sampler = bot._sampler(view)
        totals = dict.fromkeys(calls, 0.0)
        start = time.perf_counter()
        while samples < BID_SAMPLES and (samples < BID_MIN
                                         or time.perf_counter() - start < BID_BUDGET):
            deal = sampler.draw(bot.rng)
            for c in calls:
                totals[c] += bot.margin(view, deal.start, c.contract)
            samples += 1
        values = {c.token(): totals[c] / samples for c in calls}
    if any(isinstance(a, Pass) for a in view.legal):
        values["pass"] = 0.0
    return _values(values), samples, method


# -- match logs: play-on tables and hints --------------------------------------------------
def match_log(match: Match) -> Answer:
    """The match log (see the module) of a match."""
    options = {k: v for k, v in match.options.as_dict().items() if k in match.variant.options}
    return {"variant": match.variant.name, "options": options,
            "first_dealer": match.first_dealer,
            "rounds": [{"dealer": rnd.dealer,
                        "hands": [format_cards(h) for h in rnd.deal.hands],
                        "extra": {k: format_cards(v) for k, v in rnd.deal.extra.items()},
                        "actions": [[s, a.token()] for s, a in zip(rnd.actors, rnd.log)]}
                       for rnd in match.rounds]}


def from_log(log: Mapping[str, Any]) -> Match:
    """The match of a match log."""
    match = Match(log["variant"], log["options"], first_dealer=log["first_dealer"])
    for rd in log["rounds"]:
        match.deal([[int(c) for c in Card.parse(h)] for h in rd["hands"]],
                   {k: [int(c) for c in Card.parse(v)] for k, v in rd["extra"].items()},
                   dealer=rd["dealer"])
        for _, token in rd["actions"]:
            match.apply(parse_action(token))
    return match


@_answers
def log_at(data: Mapping[str, Any], round: int, step: int) -> Answer:
    """The match log of a record's position, to go on playing from (``position_over``
    when that round or the match is over there)."""
    match = at(load(data), round, step)
    rnd = match.round
    assert rnd is not None
    if rnd.is_over or match.is_over:
        raise Refusal("position_over", f"round {round} is over at step {step}: choose a "
                      "position before its end")
    return {"log": match_log(match), "turn": rnd.turn}


@_answers
def hint(log: Mapping[str, Any], seat: int, seed: int = 0) -> Answer:
    """What the ``pimc`` bot would do in ``seat``'s place, from that seat's view of a
    match log's last position: ``best`` (a card, or the action's token) and the
    ``values`` it chose from (sampled card values in the play; at a bid the estimates of
    :func:`~bela.analysis.hints.bid_advice`; none for other decisions), as ``bela play``'s
    hint (:func:`bela.analysis.hints.advise`)."""
    match = from_log(log)
    view = seat_view(match, seat)
    if not view.legal:
        raise Refusal("no_turn", f"seat {seat} has nothing to do now")
    advice = advise(view, seed, SAMPLES, SAMPLE_BUDGET, MIN_SAMPLES)
    action = advice.choice
    values = _values({a.token(): v for a, v in advice.bid.values.items()} if advice.bid
                     else advice.cards)
    best = str(action.card) if isinstance(action, Play) else action.token()
    return {"seat": seat, "phase": view.phase, "values": values, "best": best,
            "action": action.token(), "minimize": view.raspas}
