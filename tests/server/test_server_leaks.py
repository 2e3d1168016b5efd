"""Privacy: over complete matches of every variant, no message to a seat (or a spectator)
names a card that seat may not see (other hands, the own talon before the own bid (R6),
the stock, the caller's discards (R27), declarations not yet shown (R13)), in its view or in
the events of its state messages.

The truth comes from replaying the server's stored log through the engine, and the check is
made twice: on the parsed JSON (every string field) and on the raw text of each message.
And the view and events JSON of a seat (and of a spectator) are the same for every deal
that agrees with what that seat saw."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from server_helpers import CARD_RE, Reader, guest, play_out, server, start, table_with

from bela.engine import Match, parse_action
from bela.engine.actions import Action
from bela.engine.cards import Card, iter_cards
from bela.engine.events import Event, seen_by
from bela.engine.scoring import strongest_side
from bela.engine.state import Round
from bela.engine.views import seat_view

if TYPE_CHECKING:
    from bela.engine.variants import Variant
    from bela.solver.sampler import SampledDeal

SEATS = {"bela4": 4, "bela3": 3, "bela2": 2, "belot2": 2}


def _known(rnd: Round, viewer: int | None) -> tuple[int, int]:
    """(cards the viewer may see, the viewer's own visible hand) as masks."""
    v = rnd.variant
    known = 0
    for _seats, cards, _w in rnd.tricks:
        for c in cards:
            known |= 1 << c
    for c in rnd.trick:
        known |= 1 << c
    for c in rnd.public.values():
        known |= 1 << c
    for c in rnd.deal.extra.get("turned", ()):  # turned up at the deal: seen by all (R30, R34)
        known |= 1 << c
    own = 0
    if viewer is not None:
        own = rnd.hands[viewer] & ~rnd.hidden[viewer]
        known |= own
        if viewer == rnd.caller:
            known |= rnd.discards
    shown = strongest_side(rnd) if rnd.tricks or rnd.is_over else None
    for seat, decls in enumerate(rnd.declared):
        for d in decls or ():
            if seat == viewer or (shown is not None and v.side_of(seat) == shown):
                known |= d.mask
    return known, own


def _truth(db: Any, tid: str) -> dict[int, tuple[Round, dict[int | None, tuple[int, int]]]]:
    """For every state seq: the round and, per viewer, (known cards, own hand)."""
    row = db.tables.load_table(tid, with_log=True)
    m = Match(row["variant"], row["options"], seed=row["seed"])
    events = sorted([(r["seq"], "deal", r) for r in row["rounds"]]
                    + [(a["seq"], "act", a) for a in row["actions"]], key=lambda e: e[0])
    viewers: list[int | None] = [None, *range(len(row["seats"]))]
    out = {}
    for seq, kind, ev in events:
        if kind == "deal":
            deal = ev["deal"]
            m.deal([[int(c) for c in Card.parse(h)] for h in deal["hands"]],
                   {k: [int(c) for c in Card.parse(x)] for k, x in deal["extra"].items()},
                   dealer=ev["dealer"])
        else:
            m.apply(parse_action(ev["token"]))
        rnd = m.round
        assert rnd is not None
        out[seq] = (rnd, {w: _known(rnd, w) for w in viewers})
    return out


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (_strings(k) + _strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _codes(text: str) -> set[int]:
    return {int(Card.from_code(c)) for c in CARD_RE.findall(text)}


def _check(reader: Reader, viewer: int | None,
           truth: dict[int, tuple[Round, dict[int | None, tuple[int, int]]]]) -> int:
    checked = 0
    for text in reader.raw:
        msg = json.loads(text)
        if msg["type"] != "state":
            assert not _codes(text), f"a {msg['type']} message names cards: {text}"
            continue
        rnd, per_viewer = truth[msg["seq"]]
        known, own = per_viewer[viewer]
        for e in msg["events"]:  # others' secrets as null, others' keeping not at all
            if e["type"] in ("talon_taken", "discarded"):
                assert (e["cards"] is None) == (e["seat"] != viewer), e
            assert e["type"] != "kept" or e["seat"] == viewer, e
            if e["type"] == "declared" and e["seat"] != viewer:
                assert all(d["suit"] is None for d in e["declarations"]
                           if d["kind"] == "sequence"), e
        # ruled_out names cards a seat does NOT hold (public facts): true, then left out
        ruled_out = msg["view"].pop("ruled_out")
        for seat, codes in enumerate(ruled_out):
            assert not _mask(rnd.hands[seat]) & {int(Card.from_code(c)) for c in codes}
        text = json.dumps(msg)
        named = _codes(text)  # the raw scan
        for s in _strings(msg):  # the parsed scan
            named |= _codes(s)
        leaked = named - _mask(known)
        assert not leaked, (f"seat {viewer} was told {[str(Card.ALL[c]) for c in leaked]} "
                            f"at seq {msg['seq']}: {text}")
        hand = msg["view"]["hand"]
        assert hand == [str(c) for c in iter_cards(own)], "the hand is the seat's own cards"
        assert hand == sorted(hand, key=lambda c: int(Card.from_code(c))), "no deal order"
        checked += 1
    return checked


def _mask(m: int) -> set[int]:
    return {int(c) for c in iter_cards(m)}


@pytest.mark.parametrize("variant,options", [
    ("bela4", {}), ("bela3", {}), ("bela2", {}), ("belot2", {}),
    ("bela4", {"enforce": "off", "target": 501}),
])
def test_no_message_names_a_hidden_card(tmp_path: Any, variant: str,
                                        options: dict[str, Any]) -> None:
    n = SEATS[variant]
    with server(tmp_path) as client:
        players = [guest(client, f"p{i}") for i in range(n)]
        heads = [h for _, h in players]
        tid = table_with(client, variant, heads, seed=11 + n, options=options)
        with ExitStack() as stack:
            readers = [Reader(stack.enter_context(
                client.websocket_connect(f"/ws/tables/{tid}?token={tok}"))) for tok, _ in players]
            watcher = Reader(stack.enter_context(client.websocket_connect(f"/ws/tables/{tid}")))
            for r in [*readers, watcher]:
                assert r.recv()["type"] == "welcome"
            start(client, tid, heads[0])
            final = play_out([*readers, watcher], dict(enumerate(readers)),
                             random.Random(variant))
            assert final["view"]["winner"] is not None
        truth = _truth(client.app.state.db, tid)
        total = sum(_check(r, seat, truth) for seat, r in enumerate(readers))
        total += _check(watcher, None, truth)
        assert total > 50 * n
        record = client.get(f"/api/tables/{tid}/record").json()
        assert len(record["rounds"]) >= 1 and record["variant"] == variant


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Event, ...]]]:
    """The events of every :meth:`Round.apply` from now on, one entry per action (the
    sampler's :func:`to_round` replays a round without handing them out)."""
    log: list[tuple[Event, ...]] = []
    apply = Round.apply

    def recording(self: Round, action: Action) -> tuple[Event, ...]:
        events = apply(self, action)
        log.append(events)
        return events

    monkeypatch.setattr(Round, "apply", recording)
    yield log


def _events_json(history: list[tuple[Event, ...]], seat: int | None,
                 variant: Variant) -> list[list[dict[str, Any]]]:
    """The events JSON the server sends ``seat``, one list per action (actions it is told
    nothing of left out: others' keeping, R32, R35)."""
    from bela.server.protocol import event_json

    out = [[event_json(e, variant) for e in seen_by(evs, seat)] for evs in history]
    return [evs for evs in out if evs]


def _as_dealt(deal: SampledDeal, seat: int, rnd: Round, first: int) -> SampledDeal:
    """The sampled ``deal`` with ``seat``'s own cards dealt as in ``rnd``, ``first`` being
    those it saw at the deal: its view no longer tells which cards it picked up (the talon,
    R6; bela3's extra cards, R27), the seat does."""
    dealt, seen, extra = list(deal.dealt), list(deal.seen), deal.extra
    if first & ~dealt[seat]:  # bela3: the caller holds the extra cards, known to him
        dealt[seat] = sum(1 << c for c in rnd.deal.hands[seat])
        extra = tuple((k, sum(1 << c for c in rnd.deal.extra[k])) for k, _ in extra)
    seen[seat] = first
    return replace(deal, dealt=tuple(dealt), seen=tuple(seen), extra=extra)


@pytest.mark.parametrize("variant", sorted(SEATS))
def test_view_json_is_the_same_for_deals_that_differ_only_in_hidden_cards(
        variant: str, recorded: list[tuple[Event, ...]]) -> None:
    """At every step of random rounds, each seat's view JSON and the JSON of every event it
    was sent (and the spectator's) are identical for other deals that agree with everything
    that seat saw: deals drawn by the sampler (the seat's own cards dealt as they were) and
    replayed through the engine (information-state equality)."""
    from bela.server.protocol import view_json
    from bela.solver.sampler import sample_deals, to_round

    for seed in range(2):
        rng = random.Random(seed)
        m = Match(variant, seed=seed)
        rnd = m.deal()
        seen = [h & ~hid for h, hid in zip(rnd.hands, rnd.hidden)]  # each seat's first look
        history: list[tuple[Event, ...]] = []
        step = 0
        while not rnd.is_over:
            if step % 3 == 0:
                public = view_json(seat_view(m, None))
                for seat in range(SEATS[variant]):
                    view = seat_view(m, seat)
                    for deal in sample_deals(view, 2, rng):
                        recorded.clear()
                        other = to_round(view, _as_dealt(deal, seat, rnd, seen[seat]))
                        replayed = Match(variant)  # match-level fields: a first round
                        replayed.rounds.append(other)
                        assert view_json(seat_view(replayed, seat, other)) == view_json(view)
                        assert view_json(seat_view(replayed, None, other)) == public
                        for viewer in (seat, None):
                            assert (_events_json(recorded, viewer, m.variant)
                                    == _events_json(history, viewer, m.variant)), viewer
            recorded.clear()
            m.apply(rng.choice(rnd.legal_actions()))
            history.append(recorded[-1])
            step += 1


def test_a_keep_is_named_only_to_its_own_seat() -> None:
    """R32, R35: another seat's decision to keep its cards is never named, not even in
    ``last``; swaps and everything else are."""
    from bela.server.protocol import public_token

    assert public_token("keep", own=True) == "keep"
    assert public_token("keep", own=False) is None
    assert public_token("swap", own=False) == "swap"
    assert public_token("discard 7H 8H", own=False) == "discard"
