"""Fit the contract estimates of :mod:`bela.bots.contracts` on heuristic self-play; their
weights are kept in each variant's profile (:mod:`bela.bots.profiles`, ``weights``).

Each sample is a seeded deal whose bidding is forced (a random seat, bidding round and
contract that the rules allow), then played out by heuristic bots through the driver
(:mod:`bela.bots.driver`); the target is the caller's
margin (bela3: his score less the mean of the other two; bela2/belot2: his score less the
opponent's) and the features are those of the cards the caller saw when bidding.  The
weights are the least-squares solution (a tiny ridge keeps unused features at 0).

    python -m bela.training.fit bela2 --rounds 40000   # prints the profile's weights entries
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

from ..bots.contracts import BC_FEATURES, SUIT_FEATURES, VC_FEATURES, features
from ..bots.driver import Driver
from ..bots.duplicate import first_seat_dealer
from ..bots.heuristic import HeuristicBot
from ..engine import Match
from ..engine.actions import PASS, Call
from ..engine.enums import Outcome
from ..engine.variants import VARIANTS, get_variant


def force_bidding(m: Match, rng: random.Random) -> None:
    """Bid the current round to a call the rules allow: a random number of passes (0 to 3,
    as far as the variant lets a seat pass), then a random legal call."""
    rnd = m.round
    assert rnd is not None
    passes = rng.randrange(4)
    while True:
        legal = rnd.legal_actions()
        calls = [a for a in legal if isinstance(a, Call)]
        if passes == 0 or PASS not in legal:
            m.apply(rng.choice(calls))
            return
        m.apply(PASS)
        passes -= 1


def samples(variant: str, rounds: int, seed: int) -> dict[str, list[tuple[list[float], float]]]:
    """(features, caller's margin) per model kind."""
    rng = random.Random(seed)
    bot = HeuristicBot(0)
    out: dict[str, list[tuple[list[float], float]]] = defaultdict(list)
    for i in range(rounds):
        m = Match(variant, options={"target": 5001}, seed=seed * 1_000_003 + i,
                  first_dealer=first_seat_dealer(variant))
        rnd = m.deal()
        turned = rnd.public.get("turned", -1)
        force_bidding(m, rng)
        caller, contract = rnd.caller, rnd.contract
        if caller is None or contract is None:
            continue  # belot2 raspas: no caller to learn from
        seen = sum(1 << c for c in rnd.deal.hands[caller][:rnd.variant.seen_before_bid])
        kind, f = features(variant, contract, seen, caller == rnd.first,
                           turned if contract == turned >> 3 else -1)
        Driver(m, dict.fromkeys(range(rnd.variant.seats), bot)).run_bots()
        assert rnd.result is not None
        scores = rnd.result.scores
        if rnd.result.outcome == Outcome.REDEAL:
            continue
        others = [scores[s] for s in range(len(scores)) if s != caller]
        out[kind].append((f, scores[caller] - sum(others) / len(others)))
    return out


def least_squares(data: list[tuple[list[float], float]], ridge: float = 1e-3) -> list[float]:
    """Solve (X'X + ridge I) w = X'y by Gaussian elimination."""
    k = len(data[0][0])
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for f, y in data:
        for i in range(k):
            if f[i]:
                b[i] += f[i] * y
                row = a[i]
                for j in range(k):
                    row[j] += f[i] * f[j]
    for i in range(k):
        a[i][i] += ridge * len(data)
    for col in range(k):
        piv = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        b[col], b[piv] = b[piv], b[col]
        for r in range(k):
            if r != col and a[r][col]:
                q = a[r][col] / a[col][col]
                for j in range(col, k):
                    a[r][j] -= q * a[col][j]
                b[r] -= q * b[col]
    return [b[i] / a[i][i] for i in range(k)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant", choices=[v for v in VARIANTS if not get_variant(v).partners])
    ap.add_argument("--rounds", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    names = {"suit": SUIT_FEATURES, "VC": VC_FEATURES, "BC": BC_FEATURES}
    for kind, data in sorted(samples(args.variant, args.rounds, args.seed).items()):
        w = least_squares(data)
        mean = sum(y for _, y in data) / len(data)
        resid = sum((y - sum(a * b for a, b in zip(w, f))) ** 2 for f, y in data) / len(data)
        var = sum((y - mean) ** 2 for _, y in data) / len(data)
        print(f"# {kind}: {len(data)} rounds, mean margin {mean:+.1f}, R2 {1 - resid / var:.3f}")
        print("    " + ", ".join(f"{n}={x:.0f}" for n, x in zip(names[kind], w)))
        print(f'    "{kind}": ({", ".join(f"{x:.0f}" for x in w)}),')


if __name__ == "__main__":
    main()
