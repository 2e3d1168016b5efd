"""Work done once per state: the views of a state's seats built from one shared public part
(:func:`bela.engine.views.seat_views`) equal the views built seat by seat
(:func:`~bela.engine.views.seat_view`), and the state messages the hub builds from them
(:meth:`bela.server.hub.Hub.state_texts`) are byte for byte those built seat by seat from
:func:`~bela.server.protocol.view_json`, in every variant, over random matches (claims and,
with ``enforce = off``, revokes included, R24)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bela.engine import Claim, Match
from bela.engine.events import Event, seen_by
from bela.engine.variants import VARIANTS, get_variant
from bela.engine.views import seat_view, seat_views
from bela.server.hub import Hub, dumps
from bela.server.model import Seat, Table, TableStatus
from bela.server.protocol import event_json, public_token, view_json

OPTIONS = st.fixed_dictionaries({
    "enforce": st.sampled_from(["on", "off"]),
    "tie": st.sampled_from(["fall", "hang"]),
})


def reference_text(table: Table, seat: int | None, events: tuple[Event, ...]) -> str:
    """The state message built seat by seat, as the hub built it before it shared work."""
    m = table.match
    assert m is not None
    last = None
    if table.last is not None:
        actor, token = table.last
        shown = public_token(token, actor == seat)
        last = None if shown is None else {"seat": actor, "action": shown}
    return dumps({"type": "state", "seq": table.seq, "status": table.status, "last": last,
                  "clock": None,
                  "events": [event_json(e, m.variant) for e in seen_by(events, seat)],
                  "view": view_json(seat_view(m, seat))})


def check_state(hub: Hub, table: Table, events: tuple[Event, ...]) -> None:
    m = table.match
    assert m is not None
    seats: list[int | None] = [*range(m.variant.seats), None]
    views = seat_views(m, seats)
    for s in seats:
        assert views[s] == seat_view(m, s), s
    texts = hub.state_texts(table, seats, events)
    for s in seats:
        assert texts[s] == reference_text(table, s, events), s
    assert hub.state_text(table, seats[0], events) == texts[seats[0]]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32 - 1),
       options=OPTIONS)
def test_shared_views_and_texts_equal_the_seat_by_seat_ones(
        variant: str, seed: int, options: dict[str, str]) -> None:
    v = get_variant(variant)
    allowed = {k: val for k, val in options.items() if k in v.options}
    m = Match(variant, allowed, seed=seed)
    table = Table(id="t", variant=variant, options=allowed, seed=seed, bot="random",
                  status=TableStatus.RUNNING, owner_id=None,
                  seats=[Seat() for _ in range(v.seats)], match=m)
    hub, rng = Hub(), random.Random(seed)
    for _round in range(2):
        if m.is_over:
            break
        rnd = m.deal()
        table.seq += 1
        table.last = None
        check_state(hub, table, ())
        while not rnd.is_over:
            if rnd.claim_allowed() and rng.random() < 0.03:
                action = Claim(rng.randrange(v.seats))
                seat = action.seat
            else:
                seat = rnd.turn
                action = rng.choice(rnd.legal_actions())
            events = m.apply(action)
            table.seq += 1
            table.last = (seat, action.token())
            check_state(hub, table, events)
