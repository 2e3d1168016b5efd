"""The table's layout in Chromium, measured with bounding boxes (issue 8).

The table is rendered by table.js from real engine views (positions found by playing seeded
deals) on a page that loads only the stylesheet and the modules, at desktop (1280x800), phone
(390x844) and phone landscape (844x390) sizes: the trick's cards never lie under a seat's name
plate, the hand is inside the window, and a hand waiting for the declaration answer stays
one fanned row.  Screenshots: tests/web/artifacts/layout-*.png.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import DESKTOP, PHONE, facts, settled, texts  # noqa: E402

LANDSCAPE = {"width": 844, "height": 390}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
NAMES = ["Ana", "Bruno", "Cvita", "Dino"]

PAGE = """<!doctype html><html lang="hr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/web/style.css"></head>
<body><header id="header" class="site-header"><a class="brand" href="#">Bela</a>
<div class="prefs"><label>Jezik <select><option>HR</option></select></label>
<label>Karte <select><option>Mađarice</option></select></label></div></header>
<main id="app" class="app"></main>
<script type="module">
import { setLang, tn } from "/web/i18n.js";
import { ensureSprite } from "/web/cards.js";
import * as table from "/web/table.js";
import { setHtml } from "/web/html.js";
window.table = table;
window.setLang = setLang;
window.tn = tn;
window.showTable = (S) => {
  setLang(S.prefs.lang);
  ensureSprite();
  S.anim = { trick: null, collect: false, entered: new Set() };
  S.picked = new Set();
  setHtml(document.getElementById("app"), table.renderTablePage(S));
};
// each state rendered in turn: the hand's cards and the trick's winner as shown
window.handFacts = (states) => states.map((S) => {
  window.showTable(S);
  const cards = [...document.querySelectorAll(".hand .hand-card[data-card]")].map((e) => ({
    card: e.dataset.card, cls: [...e.classList], rule: e.dataset.rule ?? null,
    reason: e.dataset.reason ?? null, title: e.title,
    disabled: e.getAttribute("aria-disabled") === "true",
    mark: !!e.querySelector(".break-mark") }));
  const win = [...document.querySelectorAll(".trick .tc.winning")].map(
    (e) => Number(e.dataset.trickSeat));
  return { cards, win };
});
window.layoutReady = true;
</script></body></html>"""


def position(variant: str, declare: bool) -> dict[str, Any]:
    """A real view (JSON) of the seat to play with every other card of a trick on the table;
    with ``declare``: in the first trick, the seat still to answer its declarations, and
    two other seats' declarations announced."""
    from bela.engine import Match
    from bela.engine.views import seat_view
    from bela.server.protocol import view_json

    for k in range(500):
        m = Match(variant, seed=k)
        rnd = m.deal()
        rng = random.Random(k)
        while not rnd.is_over:
            v = view_json(seat_view(m, rnd.turn))
            if v["phase"] == "play" and len(v["trick"]) == v["seats"] - 1:
                offered = any(a.startswith("declare") for a in v["legal"])
                if not declare or (offered and sum(1 for d in v["declared"] if d) >= 2):
                    return v
                if declare:
                    break
            legal = rnd.legal_actions()
            decl = [a for a in legal if a.token().startswith("declare")]
            m.apply(decl[-1] if decl else legal[rng.randrange(len(legal))])
    raise AssertionError(f"no {variant} position found")


def state(v: dict[str, Any], lang: str = "hr", prompt: bool = True,
          deck: str = "hungarian") -> dict[str, Any]:
    seats = [{"seat": i, "name": NAMES[i], "kind": "human" if i == v["seat"] else "bot",
              "player_id": f"p{i}", "connected": True, "autopilot": False}
             for i in range(v["seats"])]
    return {
        "prefs": {"lang": lang, "deck": deck}, "guest": {"player_id": f"p{v['seat']}"},
        "tableId": "t1", "status": "running", "conn": "open", "toast": None, "rounds": {},
        "summary": {"id": "t1", "variant": v["variant"], "status": "running", "seats": seats,
                    "options": v["options"], "bot": "heuristic", "bot_fallback": False,
                    "facts": facts(v["variant"])},
        "view": v,
        "ui": {"sheet": False, "lastTrick": False, "belaCard": None, "discardSel": [],
               "declAnswered": None if prompt else f"{v['round_index']}:{v['seat']}",
               "resultDismissed": None, "matchDismissed": False, "editName": False},
    }


@pytest.fixture(scope="module")
def layout_page(browser: Any, bela_url: str) -> Any:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(f"{bela_url}/layout-test", lambda route: route.fulfill(
        status=200, content_type="text/html", body=PAGE))
    page.goto(f"{bela_url}/layout-test")
    page.wait_for_function("() => window.layoutReady")
    page.bela_errors = errors  # type: ignore[attr-defined]
    yield page
    assert not errors, errors
    ctx.close()


BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(box);
  return {tc: all('.trick .tc'), seats: all('.felt .seat'), faceups: all('.faceups'),
          felt: box(document.querySelector('.felt')), hand: all('.hand .hand-card'),
          prompt: all('.actions .prompt'),
          margins: [...document.querySelectorAll('.hand .hand-card')].map(
            (e) => getComputedStyle(e).marginRight),
          scroll: document.scrollingElement.scrollHeight,
          win: {w: innerWidth, h: innerHeight}};
}"""


def _overlap(a: dict[str, float], b: dict[str, float], tol: float = 1.0) -> bool:
    return min(a["r"], b["r"]) - max(a["x"], b["x"]) > tol and \
        min(a["b"], b["b"]) - max(a["y"], b["y"]) > tol


def _show(page: Any, st: dict[str, Any], size: dict[str, int]) -> dict[str, Any]:
    page.set_viewport_size(size)
    page.evaluate("(S) => window.showTable(S)", st)
    settled(page)
    return page.evaluate(BOXES)  # type: ignore[no-any-return]


def _check(b: dict[str, Any], where: str) -> None:
    assert b["tc"], where
    for card in b["tc"]:
        for plate in b["seats"] + b["faceups"]:
            assert not _overlap(card, plate), f"{where}: a trick card {card} lies under {plate}"
        assert card["x"] >= b["felt"]["x"] - 1 and card["r"] <= b["felt"]["r"] + 1, where
        assert card["y"] >= b["felt"]["y"] - 1 and card["b"] <= b["felt"]["b"] + 1, where
        assert card["w"] >= 28, f"{where}: trick cards {card['w']:.0f}px wide"
    w, h = b["win"]["w"], b["win"]["h"]
    for card in b["hand"]:
        assert card["x"] >= -1 and card["r"] <= w + 1, f"{where}: hand card {card} off screen"
        assert card["y"] >= -1 and card["b"] <= h + 1, f"{where}: hand card {card} below the fold"
    for p in b["prompt"]:
        assert p["y"] >= -1 and p["b"] <= h + 1, f"{where}: the prompt {p} is off screen"
    # the hand is one fanned row: neighbours touch or overlap, all at one height
    cards = sorted(b["hand"], key=lambda c: c["x"])
    for left, right in zip(cards, cards[1:]):
        assert right["x"] - left["r"] < 12, f"{where}: the hand breaks apart {left} {right}"
        assert abs(right["y"] - left["y"]) < 2, f"{where}: hand cards at different heights"


@pytest.mark.parametrize("size", list(SIZES))
def test_declaration_prompt_keeps_the_hand_together_and_the_trick_clear(
        layout_page: Any, artifacts: Path, size: str) -> None:
    """bela4, first trick, three cards played, the declaration prompt up (it shortens the
    felt): no trick card under a name plate, the hand one row inside the window."""
    v = position("bela4", declare=True)
    b = _show(layout_page, state(v), SIZES[size])
    layout_page.screenshot(path=str(artifacts / f"layout-bela4-declare-{size}.png"))
    assert layout_page.locator(".declare-prompt").count() == 1
    cards = layout_page.locator(".hand .hand-card.decl-wait")
    assert cards.count() >= 1
    assert layout_page.locator(".hand .hand-card.waiting").count() == 0
    assert set(b["margins"]) == {"0px"}, b["margins"]  # not the waiting room's margin: auto
    _check(b, f"bela4 declare {size}")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_turn_clock_fits_beside_the_status_line(layout_page: Any, artifacts: Path,
                                                    size: str) -> None:
    """Our turn with the declaration prompt up and 8 s on the turn clock: the countdowns (our
    plate, beside the status line) are inside the window, clear of the hand and the prompt,
    and the hand stays one row in the window."""
    v = position("bela4", declare=True)
    layout_page.set_viewport_size(SIZES[size])
    layout_page.evaluate("""(S) => {
        S.clock = {seat: S.view.seat, deadline: performance.now() + 8000};
        window.showTable(S); }""", state(v))
    settled(layout_page)
    b = layout_page.evaluate(BOXES)
    clocks = layout_page.evaluate("""() => [...document.querySelectorAll('[data-clock]')].map(
        (e) => { const r = e.getBoundingClientRect();
                 return {x: r.left, y: r.top, r: r.right, b: r.bottom, kind: e.dataset.clock,
                         text: e.textContent, urgent: e.classList.contains('urgent')}; })""")
    layout_page.screenshot(path=str(artifacts / f"layout-clock-{size}.png"))
    assert [c["kind"] for c in clocks] == ["seat", "mine"], clocks
    assert all(c["urgent"] for c in clocks)
    assert clocks[1]["text"] in ("Još 8 s", "Još 7 s"), clocks
    w, h = b["win"]["w"], b["win"]["h"]
    for c in clocks:
        assert c["x"] >= -1 and c["r"] <= w + 1 and c["y"] >= -1 and c["b"] <= h + 1, (size, c)
        for other in b["hand"] + b["prompt"]:
            assert not _overlap(c, other), f"{size}: the countdown {c} covers {other}"
    _check(b, f"bela4 clock {size}")
    assert b["scroll"] <= h + 1, f"{size}: the page scrolls"


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
@pytest.mark.parametrize("size", list(SIZES))
def test_trick_cards_never_cover_name_plates(layout_page: Any, artifacts: Path, variant: str,
                                             size: str) -> None:
    v = position(variant, declare=False)
    b = _show(layout_page, state(v, prompt=False), SIZES[size])
    layout_page.screenshot(path=str(artifacts / f"layout-{variant}-{size}.png"))
    _check(b, f"{variant} {size}")
    assert b["scroll"] <= b["win"]["h"] + 1, f"{variant} {size}: the page scrolls"


def test_declarations_are_worded_in_the_language(layout_page: Any) -> None:
    """Declaration chips and the prompt say "terca do desetke", never the engine's English
    text or the record code T."""
    cases = [
        ({"kind": "sequence", "length": 3, "top": "T"}, "terca do desetke",
         "sequence of 3, top 10"),
        ({"kind": "sequence", "length": 4, "top": "K"}, "kvarta do kralja",
         "sequence of 4, top king"),
        ({"kind": "sequence", "length": 5, "top": "A"}, "kvinta do asa", "sequence of 5, top ace"),
        ({"kind": "sequence", "length": 7, "top": "A"}, "7 u nizu do asa",
         "sequence of 7, top ace"),
        ({"kind": "four", "length": 4, "top": "J"}, "četiri dečka", "four jacks"),
        ({"kind": "four", "length": 4, "top": "T"}, "četiri desetke", "four tens"),
        ({"kind": "four", "length": 4, "top": "9"}, "četiri devetke", "four nines"),
    ]
    for lang, col in (("hr", 1), ("en", 2)):
        got = layout_page.evaluate("""([lang, ds]) => { window.setLang(lang);
            return ds.map((d) => window.table.declText(d)); }""", [lang, [c[0] for c in cases]])
        assert got == [c[col] for c in cases]
    shapes = layout_page.evaluate("""() => [["9H", "TH", "JH"], ["JH", "JD", "JS", "JC"]]
        .map((g) => window.table.declText(window.table.declShape(g)))""")
    assert shapes == ["sequence of 3, top jack", "four jacks"]
    v = position("bela4", declare=True)
    for lang in ("hr", "en"):
        _show(layout_page, state(v, lang=lang), DESKTOP)
        chips = layout_page.locator(".seat .decl").all_inner_texts()
        assert len(chips) >= 2, chips
        text = layout_page.locator(".game").inner_text()
        assert "sequence of" not in text or lang == "en"
        for chip in chips:
            assert ("terca" in chip or "kvarta" in chip or "kvinta" in chip
                    or "četiri" in chip) if lang == "hr" else "sequence" in chip or "four" in chip
        prompt = layout_page.locator(".declare-prompt").inner_text()
        assert ("do " in prompt) if lang == "hr" else ("top" in prompt)
    _no_ten_as_t(layout_page)


def _no_ten_as_t(page: Any) -> None:
    """No text and no title of the table shows the ten as the record code T."""
    found = page.evaluate(r"""() => {
        const texts = [document.body.innerText,
          ...[...document.querySelectorAll('[title],[aria-label],[data-reason]')].flatMap(
            (e) => [e.title, e.getAttribute('aria-label'), e.dataset.reason || ''])];
        return texts.filter((t) => /(^|[^A-Za-z])T([♥♦♠♣HDSC]|$|[^A-Za-z])/.test(t || ''));
    }""")
    assert not found, found


def test_mi_first_plurals_and_the_claim_result(layout_page: Any) -> None:
    """A player of team B reads "Mi" first; tricks are counted in Croatian plural forms; an
    auzmeš result says whose claim it was and whether it was right."""
    v = position("bela4", declare=False)
    v = json.loads(json.dumps(v))
    if v["seat"] % 2 == 0:
        pytest.skip("the position is a team A seat")  # pragma: no cover
    v["tricks_won"] = [1, 3]
    v["card_points"] = [10, 40]
    v["totals"] = [100, 200]
    st = state(v, prompt=False)
    st["summary"]["bot_fallback"] = True  # the table's bot failed: the players are told
    _show(layout_page, st, DESKTOP)
    assert "heuristički" in layout_page.locator(".topbar .bot-fallback").inner_text()
    totals = layout_page.locator(".totals .tot").all_inner_texts()
    assert totals[0].startswith("Mi") and "200" in totals[0], totals
    pts = layout_page.locator(".round-pts").inner_text()
    assert pts.index("Mi: 3 štiha") < pts.index("Vi: 1 štih,"), pts
    counts = layout_page.evaluate("""() => { window.setLang('hr');
        return [1, 2, 4, 5, 11, 21, 22].map((n) => window.tn('tricks', n)); }""")
    assert counts == ["1 štih", "2 štiha", "4 štiha", "5 štihova", "11 štihova", "21 štih",
                      "22 štiha"]
    assert layout_page.evaluate("""() => { window.setLang('en');
        return [1, 2].map((n) => window.tn('tricks', n)); }""") == ["1 trick", "2 tricks"]
    # the round over: a false claim by the other side
    done = dict(v, phase="done", turn=None, trick=[], legal=[])
    done["result"] = {"outcome": "claim", "scores": [162, 0], "caller": 0, "contract": "H",
                      "total": 162, "card_points": [0, 0], "declaration_points": [0, 0],
                      "bela_points": [0, 0], "held": 0, "winner": None,
                      "declarations_to": None, "extra": {"claimant": 0, "valid": False}}
    _show(layout_page, state(done, prompt=False), DESKTOP)
    for size in SIZES.values():  # the result lies over the name plates, not under them
        layout_page.set_viewport_size(size)
        on_top = layout_page.evaluate("""() => {
            const r = document.querySelector('.round-result').getBoundingClientRect();
            return [...document.querySelectorAll('.felt .seat')].every((s) => {
              const p = s.getBoundingClientRect();
              const x = Math.max(p.left, r.left) + 2, y = Math.max(p.top, r.top) + 2;
              if (x > Math.min(p.right, r.right) || y > Math.min(p.bottom, r.bottom)) return true;
              return !!document.elementFromPoint(x, y).closest('.round-result'); }); }""")
        assert on_top, size
    layout_page.set_viewport_size(DESKTOP)
    claim = layout_page.locator(".round-result .claim-result")
    assert claim.get_attribute("data-valid") == "false"
    assert "Ana" in claim.inner_text() and "bez prava" in claim.inner_text()
    heads = layout_page.locator(".round-result thead th").all_inner_texts()
    assert heads[1:] == ["Mi", "Vi"], heads
    score = layout_page.locator(".round-result tr.sum td").all_inner_texts()
    assert score == ["0", "162"], score  # Mi (team B) first
    assert "Kraj dijeljenja 1" in layout_page.locator(".round-result h3").inner_text()
    done["result"]["extra"] = {"claimant": v["seat"], "valid": True}
    done["result"]["scores"] = [0, 162]
    _show(layout_page, state(done, prompt=False, lang="en"), DESKTOP)
    assert layout_page.locator(".claim-result").inner_text() == "Your claim: right."


def exchange_position(variant: str, offered: set[str]) -> dict[str, Any]:
    """A real view of the seat deciding on a swap / redeal with exactly these offers."""
    from bela.engine import Match
    from bela.engine.views import seat_view
    from bela.server.protocol import view_json

    for k in range(2000):
        m = Match(variant, seed=k)
        rnd = m.deal()
        rng = random.Random(k)
        while not rnd.is_over and rnd.phase in ("bidding", "exchange"):
            if rnd.phase == "exchange":
                v = view_json(seat_view(m, rnd.turn))
                if set(v["legal"]) == offered:
                    return v
                break
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
    raise AssertionError(f"no {variant} exchange with {offered}")  # pragma: no cover


@pytest.mark.parametrize("variant,offered,has,has_not", [
    ("bela2", {"keep", "swap"}, "okrenutu kartu", "dijeljenje"),
    ("belot2", {"keep", "swap"}, "otvorenu kartu", "dijeljenje"),
    ("belot2", {"keep", "redeal"}, "novo dijeljenje", "zamijeniti"),
    ("belot2", {"keep", "swap", "redeal"}, "ili tražiti novo dijeljenje", "okrenutu"),
])
def test_exchange_prompt_names_only_what_is_offered(layout_page: Any, variant: str,
                                                    offered: set[str], has: str,
                                                    has_not: str) -> None:
    """bela2 has no redeal: its prompt never mentions one (nor does belot2's when only the
    swap is offered)."""
    v = exchange_position(variant, offered)
    _show(layout_page, state(v, prompt=False), DESKTOP)
    title = layout_page.locator(".exchange-prompt .prompt-title").inner_text()
    assert has in title and has_not not in title, title
    buttons = layout_page.locator(".exchange-prompt [data-act]").all_inner_texts()
    assert len(buttons) == len(offered), buttons


@pytest.mark.parametrize("variant,text", [("bela2", "Nemaš sedmicu aduta: zadržavaš karte."),
                                          ("belot2", "Nemaš ni zamjenu ni novo dijeljenje")])
def test_a_lone_keep_shows_no_button(layout_page: Any, variant: str, text: str) -> None:
    """Browser review N5: a seat asked in the exchange whose only choice is to keep gets a
    passive line, no dead "Zadrži karte" button and no hint (the server answers the keep)."""
    v = exchange_position(variant, {"keep"})
    _show(layout_page, state(v, prompt=False), DESKTOP)
    assert text in layout_page.locator(".exchange-prompt .prompt-title").inner_text()
    assert layout_page.locator(".exchange-prompt [data-act], [data-act], .hint-btn").count() == 0


# -- issue 9: greyed cards, their reasons and the trick's winner come from the view --------
REASON_KEYS = {"follow": "reason_follow", "beat": "reason_beat",
               "overtrump": "reason_beat_trump", "trump": "reason_trump"}


def refusal_positions(variant: str, enforce: str = "on", want: int = 40,
                      seeds: int = 60) -> list[dict[str, Any]]:
    """Real views (JSON) of the seat to play while the engine refuses some of its cards."""
    from bela.engine import Match
    from bela.engine.views import seat_view
    from bela.server.protocol import view_json

    options = {"enforce": enforce} if enforce != "on" else None
    out: list[dict[str, Any]] = []
    for k in range(seeds):
        m = Match(variant, options=options, seed=k)
        rnd = m.deal()
        rng = random.Random(k)
        while not rnd.is_over and len(out) < want:
            v = view_json(seat_view(m, rnd.turn))
            if v["phase"] == "play" and v["refusals"]:
                out.append(v)
            legal = [a for a in rnd.legal_actions() if not a.token().startswith("claim")]
            m.apply(legal[rng.randrange(len(legal))])
        if len(out) >= want:
            break
    assert out, f"no {variant} position with refusals"
    return out


def _hr_words(refusal: dict[str, Any]) -> str:
    """The Croatian words for a refusal with the Hungarian deck, from the i18n dictionaries."""
    hr = texts("hr")
    text = hr[REASON_KEYS[refusal["kind"]]]
    text = text.replace("{suit}", hr[f"suit_{refusal['suit']}_hu"])
    if refusal["to_beat"]:
        r, s = refusal["to_beat"]
        rank = hr[f"rank_{r}"] if r in "789T" else hr[f"rank_{r}_hu"]
        text = text.replace("{card}", hr["card_hu"].replace("{suit}", hr[f"suit_{s}_hu"])
                            .replace("{rank}", rank))
    return text


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_greyed_cards_say_the_engines_refusals(layout_page: Any, variant: str) -> None:
    """Every greyed card is one the view's refusals name, with that rule in data-rule; in
    English with French cards the words are the engine's own sentence, in Croatian the
    texts of the i18n dictionaries; the trick's winner marker is the view's trick_winner."""
    views = refusal_positions(variant)
    for lang, deck in (("en", "french"), ("hr", "hungarian")):
        states = [state(v, lang=lang, prompt=False, deck=deck) for v in views]
        got = layout_page.evaluate("(states) => window.handFacts(states)", states)
        for v, shown in zip(views, got, strict=True):
            refused = {r["card"]: r for r in v["refusals"]}
            greyed = {c["card"]: c for c in shown["cards"] if "illegal" in c["cls"]}
            assert set(greyed) == set(refused), (v["hand"], v["legal"], v["refusals"])
            assert set(greyed) == {c for c in v["hand"]
                                   if c not in v["legal"] and c + "*" not in v["legal"]}
            for code, c in greyed.items():
                r = refused[code]
                assert c["disabled"] and c["rule"] == r["rule"], (c, r)
                words = r["reason"] if lang == "en" else _hr_words(r)
                assert c["reason"] == words, (c["reason"], words, r)
                assert c["title"].endswith(f" — {words}"), c["title"]
            for c in shown["cards"]:
                if c["card"] not in greyed:
                    assert "legal" in c["cls"] and c["rule"] is None, c
            assert shown["win"] == [v["trick_winner"]], (shown["win"], v["trick"])


def test_the_view_decides_not_the_browser(layout_page: Any) -> None:
    """Change the view's facts and the table follows them: the UI works nothing out."""
    v = next(v for v in refusal_positions("bela4") if len(v["trick"]) >= 2)
    others = [p["seat"] for p in v["trick"] if p["seat"] != v["trick_winner"]]
    v["trick_winner"] = others[0]  # not the engine's winner: the marker still follows it
    playable = [c for c in v["hand"] if c in v["legal"]]
    made_up = {"card": playable[0], "rule": "R99", "kind": "trump", "suit": "H",
               "to_beat": None, "reason": "made up"}
    v["refusals"] = [*v["refusals"], made_up]
    v["legal"] = [a for a in v["legal"] if a not in (playable[0], playable[0] + "*")]
    [shown] = layout_page.evaluate("(states) => window.handFacts(states)",
                                   [state(v, lang="en", prompt=False, deck="french")])
    assert shown["win"] == [others[0]]
    card = next(c for c in shown["cards"] if c["card"] == playable[0])
    assert "illegal" in card["cls"] and card["rule"] == "R99"
    assert card["reason"] == texts("en")["reason_trump"]


def test_enforce_off_marks_the_cards_that_would_break_a_rule(layout_page: Any,
                                                             artifacts: Path) -> None:
    """With enforce = off every card may be played: none is greyed, and the ones the
    engine's refusals name carry their rule and a warning in the title (R24)."""
    views = refusal_positions("bela4", enforce="off", want=20)
    states = [state(v, lang="hr", prompt=False) for v in views]
    got = layout_page.evaluate("(states) => window.handFacts(states)", states)
    for v, shown in zip(views, got, strict=True):
        assert all(c in v["legal"] or c + "*" in v["legal"] for c in v["hand"])
        refused = {r["card"]: r for r in v["refusals"]}
        assert not [c for c in shown["cards"] if "illegal" in c["cls"]]
        marked = {c["card"]: c for c in shown["cards"] if "would-break" in c["cls"]}
        assert set(marked) == set(refused)
        assert not [c for c in shown["cards"] if c["mark"] and c["card"] not in marked]
        for code, c in marked.items():
            assert "act" in c["cls"] and not c["disabled"] and c["rule"] == refused[code]["rule"]
            assert c["mark"], c  # the "!" badge: seen without hovering
            assert c["reason"] == _hr_words(refused[code])
            assert c["title"].endswith(texts("hr")["would_break"].replace(
                "{reason}", c["reason"])), c["title"]
    layout_page.evaluate("(S) => window.showTable(S)", states[0])
    layout_page.screenshot(path=str(artifacts / "layout-enforce-off-would-break.png"))


# -- issue 38: results that print what they have; the trick readable beside chips ----------
def _chips(v: dict[str, Any]) -> dict[str, Any]:
    """``v`` with long declarations announced by every other seat (a sequence of 4 and four
    jacks: the tallest chips) and the bela prompt up on our first legal card."""
    v = json.loads(json.dumps(v))
    seq4 = {"value": 50, "strength": 0, "text": "", "kind": "sequence", "length": 4,
            "top": "A", "suit": "H", "cards": ["JH", "QH", "KH", "AH"]}
    four = {"value": 200, "strength": 0, "text": "", "kind": "four", "length": 4,
            "top": "J", "suit": None, "cards": ["JH", "JD", "JS", "JC"]}
    v["declared"] = [None if s == v["seat"] else [dict(seq4 if s % 2 else four, seat=s)]
                     for s in range(v["seats"])]
    card = next(c for c in v["legal"] if "*" not in c and not c.startswith("declare"))
    v["legal"] = [card, card + "*"]
    return v


def _bela_state(v: dict[str, Any]) -> dict[str, Any]:
    st = state(v, prompt=False)
    st["ui"]["belaCard"] = v["legal"][0]
    return st


def _unlifted(page: Any, b: dict[str, Any]) -> dict[str, Any]:
    """``b`` with the hand's cards measured unlifted (the bela prompt lifts its card)."""
    b["hand"] = page.evaluate("""() => [...document.querySelectorAll('.hand .hand-card')].map(
        (e) => { e.style.transition = 'none'; e.style.transform = 'none';
        const r = e.getBoundingClientRect(); e.style.transform = e.style.transition = '';
        return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; })""")
    return b


def _plates_apart(b: dict[str, Any], where: str) -> None:
    plates = b["seats"] + b["faceups"]
    for i, a in enumerate(plates):
        for other in plates[i + 1:]:
            assert not _overlap(a, other), f"{where}: plate {a} overlaps {other}"


MIN_TRICK = 56  # px: a trick card stays readable beside chips and a prompt (issue 38)


@pytest.mark.parametrize("first", [True, False], ids=["first-trick", "later-trick"])
def test_chips_and_the_bela_prompt_leave_the_trick_readable(
        layout_page: Any, artifacts: Path, first: bool) -> None:
    """1280x800, declarations of three seats on their plates and the bela prompt up: the
    trick's cards are at least MIN_TRICK px wide, under no plate; after the first trick the
    chips are folded to their value (their cards on a tap)."""
    v = _chips(position("bela4", declare=False))
    if first:
        v["tricks"] = []
    else:
        v["tricks"] = v["tricks"] or [{"cards": v["trick"], "winner": v["seat"]}]
    b = _unlifted(layout_page, _show(layout_page, _bela_state(v), DESKTOP))
    shot = f"layout-chips-bela-{'first' if first else 'later'}.png"
    layout_page.screenshot(path=str(artifacts / shot))
    assert layout_page.locator(".bela-prompt").count() == 1
    _check(b, "chips + bela desktop")
    _plates_apart(b, "chips + bela desktop")
    assert min(c["w"] for c in b["tc"]) >= MIN_TRICK, [round(c["w"]) for c in b["tc"]]
    assert b["scroll"] <= b["win"]["h"] + 1
    folded = layout_page.locator(".seat .decl.folded")
    assert folded.count() == (0 if first else 3)
    if not first:
        assert layout_page.locator(".seat .decl .mini-cards").count() == 0
        assert folded.first.inner_text().startswith("Zvanje: ")


@pytest.mark.parametrize("variant", ["bela4", "bela3"])
@pytest.mark.parametrize("prompt", [False, True], ids=["no-prompt", "bela-prompt"])
def test_landscape_plates_never_overlap(layout_page: Any, artifacts: Path, variant: str,
                                        prompt: bool) -> None:
    """844x390 in the first trick with chips on the plates (and the bela prompt): no plate
    overlaps another (ours and the left player's shared a grid cell), no trick card lies
    under a plate, and the trick stays readable."""
    v = _chips(position(variant, declare=False))
    v["tricks"] = []
    st = _bela_state(v) if prompt else state(v, prompt=False)
    b = _unlifted(layout_page, _show(layout_page, st, LANDSCAPE))
    layout_page.screenshot(path=str(artifacts / f"layout-landscape-chips-{variant}-{prompt}.png"))
    _check(b, f"landscape chips {variant}")
    _plates_apart(b, f"landscape chips {variant}")
    assert min(c["w"] for c in b["tc"]) >= 40, [round(c["w"]) for c in b["tc"]]
    assert b["scroll"] <= b["win"]["h"] + 1


def _result_state(v: dict[str, Any], result: dict[str, Any], lang: str = "hr") -> dict[str, Any]:
    done = dict(json.loads(json.dumps(v)), phase="done", turn=None, trick=[], legal=[],
                result=result)
    return state(done, prompt=False, lang=lang)


def test_raspas_and_claim_results_show_only_what_they_have(layout_page: Any) -> None:
    """A raspas result shows its card points per player and no empty rows; a claim's shows
    the score alone, and for a right claim who revoked with which card when its extra says
    so (the server passes the engine's extra on); never "undefined"."""
    from bela.engine.scoring import Outcome, RoundResult
    from bela.engine.variants.belot2 import raspas_result
    from bela.server.protocol import _result_json

    v = position("belot2", declare=False)
    raspas = _result_json(raspas_result([60, 46]))
    assert raspas is not None
    _show(layout_page, _result_state(v, raspas), DESKTOP)
    text = layout_page.locator(".round-result").inner_text()
    assert "undefined" not in text, text
    rows = layout_page.locator(".round-result tbody th").all_inner_texts()
    assert rows == ["karte", "upisuje se"], rows
    cells = layout_page.locator(".round-result tbody tr").first.locator("td").all_inner_texts()
    assert sorted(cells) == ["46", "60"], cells
    # a right claim by us: the opponent revoked with the ten of spades
    me, other = v["seat"], 1 - v["seat"]
    claim = RoundResult(Outcome.CLAIM, tuple(162 if s == me else 0 for s in range(2)), None, 0,
                        total=162, extra={"claimant": me, "valid": True, "offender": other,
                                          "card": "TS"})
    _show(layout_page, _result_state(v, _result_json(claim) or {}), DESKTOP)
    text = layout_page.locator(".round-result").inner_text()
    assert "undefined" not in text, text
    assert layout_page.locator(".round-result tbody tr").count() == 1  # the score alone
    off = layout_page.locator(".claim-offender")
    assert off.get_attribute("data-offender") == str(other)
    assert off.get_attribute("data-card") == "TS"
    assert NAMES[other] in off.inner_text() and "je bacio krivu kartu" in off.inner_text()
    assert "10" in off.inner_text() or "desetka" in off.inner_text().lower()
    _no_ten_as_t(layout_page)
    st = _result_state(v, _result_json(claim) or {}, lang="en")
    st["prefs"]["deck"] = "french"
    _show(layout_page, st, DESKTOP)
    assert layout_page.locator(".claim-offender").inner_text() == \
        f"Auzmeš: {NAMES[other]} played a wrong card (10♠)."
    # without the offender's keys (an older server): the claim line alone, nothing broken
    claim.extra.pop("offender")
    claim.extra.pop("card")
    _show(layout_page, _result_state(v, _result_json(claim) or {}), DESKTOP)
    assert layout_page.locator(".claim-offender").count() == 0
    assert "undefined" not in layout_page.locator(".round-result").inner_text()
