"""The learned bot: its features see only the seat's view, its network files, its play."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from bela.bots import make_bot
from bela.bots.driver import Driver
from bela.bots.heuristic import HeuristicBot
from bela.bots.learned import (
    ENDGAME_NODES,
    LearnedBot,
    Mlp,
    ModelError,
    Network,
    load_models,
    model_for,
    save_models,
    shipped_model_path,
)
from bela.bots.learned.features import (
    FEATURES_VERSION,
    bid_feature_size,
    bid_features,
    card_parts,
    feature_size,
    play_features,
    suit_counts_index,
    suit_orders,
    turn_card,
    turn_mask,
    unturn_card,
)
from bela.bots.profiles import profile
from bela.engine import Match
from bela.engine.actions import Play
from bela.engine.cards import Card
from bela.engine.enums import Phase
from bela.engine.rules import play_table, trick_winner_index
from bela.engine.variants import VARIANTS, get_variant
from bela.engine.views import SeatView, seat_view
from bela.solver.sampler import DealSampler, replay_view
from bela.training.data import play_samples


def play_views(variant: str, rounds: int, seed: int) -> list[tuple[Match, SeatView]]:
    """Card-play views (seat to play) of the first round of random heuristic matches,
    each with its match stopped there."""
    out = []
    rng = random.Random(seed)
    for g in range(rounds):
        m = Match(variant, seed=seed * 1000 + g)
        bot = HeuristicBot(g)
        rnd = m.deal()
        stop = rng.randrange(30)
        while not rnd.is_over:
            if rnd.phase == Phase.PLAY and len(rnd.log) >= stop:
                out.append((m, seat_view(m, rnd.turn)))
                break
            m.apply(bot.act(seat_view(m, rnd.turn)))
    return out


def test_turning_suits_round_trips() -> None:
    for turn in range(4):
        assert [unturn_card(turn_card(c, turn), turn) for c in range(32)] == list(range(32))
        for c in range(32):
            assert turn_mask(1 << c, turn) == 1 << turn_card(c, turn)


@pytest.mark.parametrize("variant", VARIANTS)
def test_features_are_the_view_only(variant: str) -> None:
    """Two deals that differ only in cards the seat cannot see give the same features: the
    other deal is drawn from the seat's view and the round replayed on it."""
    rng = random.Random(2)
    checked = 0
    for m, view in play_views(variant, 25, 5):
        x, turn = play_features(view)
        assert x.shape == (feature_size(variant),) and x.dtype == np.float32
        assert turn == (view.contract if view.contract is not None and view.contract < 4
                        else 0)
        legal = {a.card for a in view.legal if isinstance(a, Play)}
        assert {unturn_card(i, turn) for i in np.flatnonzero(x[32:64])} == legal
        deal = DealSampler(view).draw(rng)
        assert m.round is not None
        if list(deal.hands) == list(m.round.hands):
            continue
        other, _ = play_features(replay_view(view, deal))
        assert (x == other).all()
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_parts_say_what_wins_and_where_cards_are(variant: str) -> None:
    """The cards that take the trick now are those the engine's trick rule (R20) makes the
    winner; every card of another seat's hand is among those it may hold, and every card
    said to be surely held is in its hand (checked against the true deal).  These parts
    close the card parts: the trick's winners, then per other seat what it may hold, then
    what it surely holds."""
    n = get_variant(variant).seats
    first = card_parts(variant) - 1 - 2 * (n - 1)
    deduced = 0
    for m, view in play_views(variant, 60, 7):
        x, turn = play_features(view)
        assert view.seat is not None and m.round is not None

        def part(k: int, x: np.ndarray = x, turn: int = turn) -> int:
            bits = x[32 * k:32 * k + 32]
            return sum(1 << unturn_card(i, turn) for i in np.flatnonzero(bits))

        table = play_table(view.contract if view.contract is not None else 0)
        trick = [c for _, c in view.trick]
        wins = {a.card for a in view.legal if isinstance(a, Play) and trick
                and trick_winner_index([*trick, a.card], table) == len(trick)}
        assert part(first) == sum(1 << c for c in wins)
        for r in range(1, n):
            seat = (view.seat + r) % n
            hand = m.round.hands[seat]
            possible, certain = part(first + r), part(first + n - 1 + r)
            assert hand & ~possible == 0 and certain & ~hand == 0
            deduced += certain.bit_count()
    assert deduced > 0


def tiny_model(tmp_path: Path, variant: str, seed: int = 0, target: str = "points") -> Path:
    rng = np.random.default_rng(seed)
    meta = {"variant": variant, "scale": 100.0, "features": FEATURES_VERSION,
            "target": target}
    nets = {"play": Mlp.initial([feature_size(variant), 16, 32], rng, meta)}
    if variant != "bela3":
        nets["bid"] = Mlp.initial([bid_feature_size(variant), 8, 1], rng, meta)
    path = tmp_path / f"{variant}-{target}.npz"
    save_models(path, nets)
    return path


def test_model_files_round_trip_and_are_checked(tmp_path: Path) -> None:
    path = tiny_model(tmp_path, "bela2")
    nets = load_models(path)
    assert nets["play"].sizes == [feature_size("bela2"), 16, 32]
    assert nets["bid"].sizes == [bid_feature_size("bela2"), 8, 1]
    x = np.random.default_rng(1).random((3, feature_size("bela2")), dtype=np.float32)
    again = load_models(path.read_bytes())["play"]
    assert np.allclose(nets["play"].forward(x), again.forward(x))
    with pytest.raises(ModelError, match="not bela4"):
        model_for("bela4", str(path))
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot read"):
        load_models(tmp_path / "bad.npz")
    save_models(tmp_path / "bid-only.npz", {"bid": nets["bid"]})
    with pytest.raises(ModelError, match="no card-play network"):
        load_models(tmp_path / "bid-only.npz")


@pytest.mark.parametrize("meta", [{"features": 1}, {}], ids=["layout-1", "no-layout"])
def test_a_model_of_another_feature_layout_is_refused(tmp_path: Path,
                                                      meta: dict[str, int]) -> None:
    """A model whose metadata names another feature layout (or none: those were layout
    1) is refused with a clear error naming the file and the layout, not misread."""
    net = Mlp.initial([feature_size("bela4"), 8, 32], np.random.default_rng(0),
                      {"variant": "bela4", "scale": 100.0, **meta})
    path = tmp_path / "old.npz"
    save_models(path, {"play": net})
    with pytest.raises(ModelError) as info:
        model_for("bela4", str(path))
    assert str(path) in str(info.value) and "layout 1" in str(info.value)
    assert "retrain it with bela train" in str(info.value)
    good = tmp_path / "new.npz"
    save_models(good, {"play": Mlp.initial([feature_size("bela4"), 8, 32],
                                           np.random.default_rng(0),
                                           {"variant": "bela4", "features": FEATURES_VERSION})})
    assert set(model_for("bela4", str(good))) == {"play"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_model_plays_whole_matches(tmp_path: Path, variant: str) -> None:
    """Every decision is legal (the driver counts a failure otherwise), cards by the
    network's values: the best for the seat (the lowest in raspas)."""
    path = tiny_model(tmp_path, variant)
    bot = make_bot(f"learned:model={path},endgame=0", 1)
    assert isinstance(bot, LearnedBot)
    m = Match(variant, seed=4)
    driver = Driver(m, {s: bot if s % 2 == 0 else HeuristicBot(s)
                        for s in range(m.variant.seats)})
    for _ in range(3):
        if m.is_over:
            break
        rnd = driver.deal()
        while not rnd.is_over:
            seat = rnd.turn
            view = seat_view(m, seat)
            if seat % 2 == 0 and all(isinstance(a, Play) for a in view.legal):
                values = bot.card_values(view)
                if len(values) > 1:
                    pick = min if view.raspas else max
                    best = pick(values.values())
                    action = bot.act(view)
                    assert isinstance(action, Play) and values[action.card] == best
            driver.step()
    assert driver.failures == {s: 0 for s in driver.bots}


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_models_fit_their_variant(variant: str) -> None:
    """A model ships for every variant, small (all four together well under 10 MB), with a
    bid network where the bot bids by it (not bela3, whose bids the heuristic makes)."""
    assert shipped_model_path(variant).stat().st_size < 2_000_000
    nets = model_for(variant)
    assert nets["play"].meta["variant"] == variant and nets["play"].sizes[-1] == 32
    assert ("bid" in nets) == (variant != "bela3")


@pytest.mark.parametrize("variant", ["bela4", "belot2"])
def test_side_suit_orders_rename_the_suits_of_a_position(variant: str) -> None:
    """Shuffling the side suits moves every card part, the per-suit counts and the card
    values together: the legal-card part still marks the cards that have values, and the
    count of unknown cards per suit still counts the unknown-card part."""
    s = play_samples(variant, deals=3, seed=5)
    counts = suit_counts_index(variant)
    orders = suit_orders(variant, "play")
    assert len({tuple(c) for c, _ in orders}) == 6
    for cols, outs in orders:
        x, v = s.x[:, cols].astype(np.float32), s.values[:, outs]
        assert ((x[:, 32:64] > 0.5) == ~np.isnan(v)).all()
        unknown = x[:, 64:96].reshape(-1, 4, 8).sum(axis=2) / 8
        assert np.allclose(x[:, counts:counts + 4], unknown)
        assert (x[:, :8] == s.x[:, :8]).all()  # the trump suit stays
    for cols, outs in suit_orders(variant, "bid"):
        assert list(outs) == [0] and sorted(cols) == list(range(len(cols)))


@pytest.mark.parametrize("variant", ["bela4", "bela3", "belot2"])
def test_symmetric_values_do_not_depend_on_how_the_side_suits_are_named(
        tmp_path: Path, variant: str) -> None:
    """With ``symmetric`` (the default) a card's value is the mean over the six namings of
    the side suits, so renaming them in the inputs renames the values and changes nothing
    else; one pass of the network alone does depend on the naming."""
    net = model_for(variant, str(tiny_model(tmp_path, variant, seed=4)))["play"]
    x = play_samples(variant, deals=2, seed=3).x[:6].astype(np.float32)
    mean, single = Network(), Network(symmetric=False)
    base = mean.forward(net, variant, "play", x)
    assert np.allclose(single.forward(net, variant, "play", x), net.forward(x) * 100)
    for cols, outs in suit_orders(variant, "play")[1:]:
        assert np.allclose(mean.forward(net, variant, "play", x[:, cols]), base[:, outs],
                           atol=1e-4)
        assert not np.allclose(single.forward(net, variant, "play", x[:, cols]),
                               single.forward(net, variant, "play", x)[:, outs], atol=1e-4)
    assert make_bot("learned:symmetric=off", 1).symmetric is False  # type: ignore[attr-defined]
    assert make_bot("learned:symmetric=off", 1).network.symmetric is False  # type: ignore[attr-defined]


def test_symmetric_bidding_margins_are_the_mean_of_the_namings(tmp_path: Path) -> None:
    path = str(tiny_model(tmp_path, "bela2", seed=2))
    net, bot = model_for("bela2", path)["bid"], LearnedBot(0, model=path)
    m = Match("bela2", seed=1)
    rnd = m.deal()
    view = seat_view(m, rnd.turn)
    margins = bot.call_margins(view)
    assert margins
    for call, margin in margins.items():
        x = bid_features(view, call.contract)
        each = [float(net.forward(x[None, cols])[0, 0]) * 100
                for cols, _ in suit_orders("bela2", "bid")]
        assert margin == pytest.approx(sum(each) / 6, abs=1e-3)
        assert len({round(e, 3) for e in each}) > 1  # the namings differ one by one


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_last_tricks_are_played_by_search(tmp_path: Path, variant: str) -> None:
    """With ``endgame=3`` the cards of the last three tricks are the best by the sampled
    deals' double-dummy values (the search's own seeded values: a twin bot asked the same
    questions gets them), the earlier ones by the network."""
    path = str(tiny_model(tmp_path, variant))
    bot = LearnedBot(5, model=path, endgame=3)
    twin = LearnedBot(5, model=path, endgame=3)
    m = Match(variant, seed=6)
    driver = Driver(m, {s: bot if s == 0 else HeuristicBot(s) for s in range(m.variant.seats)})
    searched = networked = 0
    while (searched < 6 or networked < 6) and not m.is_over:
        rnd = driver.deal()
        while not rnd.is_over:
            view = seat_view(m, rnd.turn)
            cards = {a.card for a in view.legal if isinstance(a, Play)}
            if rnd.turn == 0 and len(cards) > 1 and len(cards) == len(view.legal):
                late = len(view.hand) <= 3
                values = twin.search_values(view) if late else twin.card_values(view)
                assert set(values) == cards
                action = bot.act(view)
                assert isinstance(action, Play)
                assert action.card == twin.choose(values, view.raspas)
                searched += late
                networked += not late
            driver.step()
    assert searched >= 6 and networked >= 6
    assert driver.failures == {s: 0 for s in driver.bots}


def test_the_endgame_default_is_the_variants() -> None:
    bot = LearnedBot(1)
    assert {v: bot.endgame_tricks(v) for v in VARIANTS} == {v: profile(v).endgame
                                                             for v in VARIANTS}
    assert bot.endgame_tricks("bela2") == 0 < bot.endgame_tricks("bela4")  # bela2: the network
    assert LearnedBot(1, endgame=0).endgame_tricks("bela4") == 0
    assert make_bot("learned:endgame=2", 1).endgame_tricks("bela2") == 2  # type: ignore[attr-defined]
    for bad in ("-1", "on", "3.5"):
        with pytest.raises(ValueError, match="endgame"):
            make_bot(f"learned:endgame={bad}", 1)


def test_the_endgame_search_stops_at_its_node_budget() -> None:
    """The endgame search is ``pimc``'s over the same seeded deals: with ``nodes=0`` all 16,
    with a budget spent at the first deal the six it always draws, by default up to
    :data:`ENDGAME_NODES` solver nodes."""
    from bela.bots.pimc import PimcBot

    m = Match("bela3", seed=3)
    driver = Driver(m, {s: HeuristicBot(s) for s in range(3)})
    rnd = driver.deal()
    while (rnd.phase != Phase.PLAY or len(seat_view(m, rnd.turn).hand) > 6
           or len(seat_view(m, rnd.turn).legal) < 2):  # six cards: a quick search
        driver.step()
    view = seat_view(m, rnd.turn)
    seed = random.Random(5).randrange(1 << 31)  # the bot's first draw seeds its search
    assert LearnedBot(5, nodes=0).search_values(view) == PimcBot(seed).card_values(view)
    assert LearnedBot(5, nodes=1).search_values(view) == PimcBot(seed, samples=6).card_values(view)
    assert LearnedBot(5, nodes=1).search_values(view) != PimcBot(seed).card_values(view)
    assert make_bot("learned", 1).nodes == ENDGAME_NODES > 0  # type: ignore[attr-defined]
    for bad in ("-1", "on", "2.5"):
        with pytest.raises(ValueError, match="nodes"):
            make_bot(f"learned:nodes={bad}", 1)


def test_temperature_keeps_plausible_cards_and_zero_takes_the_best() -> None:
    values = {Card(0): 60.0, Card(1): 58.0, Card(2): 10.0}
    best = LearnedBot(1)
    assert {best.choose(values, False) for _ in range(20)} == {Card(0)}
    assert best.choose(values, True) == Card(2)  # raspas: the lowest
    warm = LearnedBot(1, temperature=4)
    picks = [warm.choose(values, False) for _ in range(400)]
    assert 0.5 < picks.count(Card(0)) / 400 < 0.8  # e^(-2/4): the close second often
    assert picks.count(Card(2)) == 0  # 50 points worse: practically never
    again = LearnedBot(1, temperature=4)
    assert [again.choose(values, False) for _ in range(400)] == picks  # seeded


def test_a_missed_count_forgets_one_suit_of_the_earlier_tricks() -> None:
    bot = LearnedBot(3, forget=1.0)
    seen = 0
    for _, view in play_views("bela4", 30, 8):
        if len(view.tricks) < 2:
            continue
        lost = bot.forgetful(view)
        before = {c for cards, _ in view.tricks for _, c in cards}
        after = {c for cards, _ in lost.tricks for _, c in cards}
        gone = before - after
        assert gone and len({c >> 3 for c in gone}) == 1  # one suit, all of its cards
        assert not any(c >> 3 == next(iter(gone)) >> 3 for c in after)
        assert all(not (m.mask >> c & 1) for m in lost.ruled_out for c in gone)
        assert lost.trick == view.trick and lost.hand == view.hand
        assert lost.legal == view.legal
        seen += 1
    assert seen >= 5


@pytest.mark.parametrize("variant", ["bela4", "bela2", "belot2"])
def test_bidding_by_the_network(tmp_path: Path, variant: str) -> None:
    """hybrid: the heuristic decides whether to order, the network which contract
    (``bidding=net`` and its ``threshold``, an ablation, are gone)."""
    path = tiny_model(tmp_path, variant)
    hybrid = LearnedBot(0, model=str(path))
    for removed in ("bidding=net", "threshold=10"):
        with pytest.raises(ValueError, match=removed.partition("=")[0]):
            make_bot(f"learned:{removed}", 0)
    seen = 0
    for g in range(40):
        m = Match(variant, seed=g)
        rnd = m.deal()
        view = seat_view(m, rnd.turn)
        margins = hybrid.call_margins(view)
        if not margins:
            continue
        best = max(margins, key=lambda c: (margins[c], -c.contract))
        heuristic = HeuristicBot(0).act(view)
        assert hybrid.act(view) == (best if heuristic in margins else heuristic)
        seen += 1
    assert seen >= 10


def test_levels_are_bots_with_their_settings(tmp_path: Path) -> None:
    from bela.bots.levels import LEVELS, level_spec

    assert list(LEVELS) == ["beginner", "club", "expert", "master"]
    beginner = make_bot("beginner", 1)
    assert isinstance(beginner, LearnedBot)
    assert (beginner.temperature, beginner.forget) == (12, 0.5)
    assert beginner.endgame_tricks("bela4") == 0  # people's mistakes: no search at the end
    path = str(tiny_model(tmp_path, "bela4"))
    club = make_bot(f"club:model={path}", 1)
    assert isinstance(club, LearnedBot) and club.model == path and club.forget == 0.15
    assert club.endgame == 0
    with pytest.raises(ValueError, match="no model file"):
        make_bot("club:model=missing.npz")
    master = make_bot("master", 1)
    assert master.name == "pimc" and master.prior.informed  # type: ignore[attr-defined]
    assert master.opening_tricks("bela4") == 2  # type: ignore[attr-defined]
    assert master.bidding == "learned"  # type: ignore[attr-defined]
    assert level_spec("expert") == "learned"
    with pytest.raises(ValueError, match="bad settings"):
        make_bot("club:depth=3")
