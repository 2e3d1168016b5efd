"""The score pad (bela blok, /pad) in Chromium (issue 13).

The page scores offline with its own kernel (pad-score.js) fed the engine's rules as data
(GET /api/pad/rules): hundreds of pads per variant, from matches the engine played and from
random entries (refused ones too), are booked by the kernel and by :class:`Pad` deal by deal
and must agree, refusals word for word.  A whole match of each variant is entered through the
form (with a correction, a struck deal and an impossible entry refused with its reason): the
sheet on the page is the engine's; export and import give the same pad back.  Once loaded the
pad works with the server gone and the network cut (its service worker).  An account keeps a
pad on the server and opens it in another browser.  Screenshots: tests/web/artifacts/pad-*.png.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import PHONE, assert_no_errors, close_pages, no_overflow, open_page, texts  # noqa: E402

from bela.engine import Match  # noqa: E402
from bela.engine.pad import Pad, PadDeal, PadError, pad_rules, written  # noqa: E402
from bela.engine.variants import VARIANTS  # noqa: E402

HR = texts("hr")
NAMES = {"bela4": ["Ana i Ivo", "Mara i Luka"], "bela3": ["Ana", "Ivo", "Mara"],
         "bela2": ["Ana", "Ivo"], "belot2": ["Ana", "Ivo"]}


def _fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


# -- pads the engine would book -----------------------------------------------------------
def random_match(variant: str, seed: int, options: dict[str, Any]) -> Match:
    """A match played through the engine with random legal moves."""
    rng = random.Random(seed)
    m = Match(variant, options, seed=seed)
    while not m.is_over:
        rnd = m.deal()
        while not rnd.is_over:
            m.apply(rng.choice(rnd.legal_actions()))
    return m


def random_deal(rng: random.Random, variant: str) -> dict[str, Any]:
    """A deal as someone might write it: mostly possible, some not (points that do not add
    up, two sides' declarations, too many bela, štiglja with points for the others, a
    special deal the variant lacks, a malformed deal)."""
    rules = pad_rules(VARIANTS[variant])
    sides, full = rules["sides"], rules["deal_points"]
    roll = rng.random()
    if roll < 0.03:
        return {"belot": rng.randrange(sides + 1)}
    if roll < 0.06:
        return {"redeal": True}
    if roll < 0.08:
        return rng.choice([{"caler": 0}, {"points": ["1"]}, {"raspas": None},
                           {"caller": True, "points": []}, {"trump": 3}, [1]])
    total = full if rules["all_cards"] else rng.randint(10, full)
    cuts = sorted(rng.randint(0, total) for _ in range(sides - 1))
    pts: list[int | None] = [b - a for a, b in zip([0, *cuts], [*cuts, total])]
    if rng.random() < 0.08:  # an exact half: a hang or a fall on a tie (R22)
        pts = [full // 2, full // 2] if sides == 2 else [81, 40, 41]
    if rules["all_cards"] and rng.random() < 0.4:
        pts[rng.randrange(sides)] = None
    if rng.random() < 0.05:
        pts[rng.randrange(sides)] = rng.choice([200, -3, 5])
    if roll < 0.13:
        return {"raspas": True, "points": pts}
    deal: dict[str, Any] = {"caller": rng.randrange(sides), "trump": rng.choice(
        rules["contracts"] + (["VC"] if rng.random() < 0.03 else []))}
    if rng.random() < 0.02:
        deal["caller"] = rng.choice([None, sides])
    deal["points"] = pts
    decl = [0] * sides
    if rng.random() < 0.4:
        decl[rng.randrange(sides)] = rng.choice(rules["declarations"][:12])
        if rng.random() < 0.08:
            decl[rng.randrange(sides)] = rng.choice([20, 30, 50])
        deal["declarations"] = decl
    most = rules["bela"].get(deal["trump"], 1)
    if rng.random() < 0.3:
        bela = [0] * sides
        bela[rng.randrange(sides)] = rng.randint(1, max(1, most)) if rng.random() < 0.9 else 2
        deal["bela"] = bela
    if rng.random() < 0.08:
        side = rng.randrange(sides)
        deal["capot"] = side
        if rng.random() < 0.8:
            deal["points"] = [full if s == side else 0 for s in range(sides)]
            deal.pop("declarations", None)
            deal.pop("bela", None)
    return deal


def engine_steps(variant: str, options: dict[str, Any], deals: list[Any]) -> list[dict[str, Any]]:
    """Each deal added to a :class:`Pad` in turn: the booked row, totals, held points and
    winner, or the refusal (the pad unchanged)."""
    pad = Pad(variant, options)
    steps: list[dict[str, Any]] = []
    for data in deals:
        try:
            pad.add(PadDeal.from_json(data))
        except PadError as exc:
            steps.append({"error": str(exc)})
            continue
        steps.append({"round": pad.score()["rounds"][-1], "totals": list(pad.totals),
                      "held": pad.held, "winner": pad.winner})
    return steps


KERNEL_STEPS = """async (cases) => {
  const K = await import('/web/pad-score.js');
  const I = await import('/web/i18n.js');
  I.setLang('en');
  const all = await (await fetch('/api/pad/rules')).json();
  return cases.map(({variant, options, deals}) => {
    const rules = all.variants[variant];
    const opts = K.makeOptions(all, rules, options);
    const kept = [], steps = [];
    for (const data of deals) {
      try {
        const deal = K.readDeal(data);
        const booked = K.bookDeals(rules, opts, [...kept, deal]);
        kept.push(deal);
        const sheet = K.sheetOf(booked);
        steps.push({round: sheet.rounds.at(-1), totals: sheet.totals, held: sheet.held,
                    winner: sheet.winner});
      } catch (e) {
        if (!(e instanceof K.PadProblem)) throw e;
        steps.push({error: K.problemText(e, I.t)});
      }
    }
    return steps;
  });
}"""

KERNEL_RECORDS = """async (records) => {
  const K = await import('/web/pad-score.js');
  const all = await (await fetch('/api/pad/rules')).json();
  return records.map((r) => {
    const s = K.scoreRecord(all, r);
    return {sheet: s.sheet, record: s.record};
  });
}"""


def pad_cases(variant: str) -> list[dict[str, Any]]:
    """Pads of ``variant``: matches the engine played (to 301 and to its target, with and
    without hangs) and pads of random entries to random targets; 300+ deals each kind."""
    v = VARIANTS[variant]
    option_sets = [{"target": 301}, {}]
    if "tie" in v.options:
        option_sets += [{"target": 301, "tie": "hang"}, {"tie": "hang"}]
    cases, deals, seed = [], 0, 0
    while deals < 300:
        options = option_sets[seed % len(option_sets)]
        m = random_match(variant, 1000 + seed, options)
        pad = [written(m, i).to_json() for i in range(len(m.rounds))]
        cases.append({"variant": variant, "options": options, "deals": pad})
        deals += len(pad)
        seed += 1
    rng = random.Random(variant)
    deals = 0
    while deals < 400:
        options = dict(rng.choice(option_sets))
        options["target"] = rng.choice([101, 301, v.default_target])
        pad = [random_deal(rng, variant) for _ in range(rng.randint(5, 40))]
        steps = engine_steps(variant, options, pad)
        won = next((i for i, st in enumerate(steps) if st.get("winner") is not None), None)
        if won is not None:
            pad = pad[:won + 3]  # a refusal or two after the match is won, not more
        cases.append({"variant": variant, "options": options, "deals": pad})
        deals += len(pad)
    return cases


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_kernel_books_every_deal_as_the_engine(browser: Any, bela_url: str,
                                                   variant: str) -> None:
    """Property: the page's kernel and the engine book the same pads alike, deal by deal
    (the row, its outcome, totals, held points, the winner), and refuse the same entries
    with the engine's words; whole records give the engine's sheet and record."""
    page = open_page(browser, bela_url + "/pad", lang="en")
    page.wait_for_function("() => window.__padReady")
    cases = pad_cases(variant)
    got = page.evaluate(KERNEL_STEPS, cases)
    outcomes: set[str] = set()
    refusals = 0
    for case, steps in zip(cases, got):
        want = engine_steps(variant, case["options"], case["deals"])
        assert len(steps) == len(want)
        for i, (mine, theirs) in enumerate(zip(steps, want)):
            assert mine == theirs, (case["options"], case["deals"][:i + 1])
            if "round" in theirs:
                outcomes.add(theirs["round"]["outcome"])
            else:
                refusals += 1
    special = {"bela4": {"capot", "hang", "belot"}, "bela3": {"capot", "hang", "belot"},
               "bela2": {"capot", "hang", "belot"}, "belot2": {"raspas", "redeal"}}[variant]
    assert {"pass", "fall"} | special <= outcomes, outcomes
    assert refusals > 20
    # whole records: the sheet and the record the engine writes
    records = []
    for case in cases[:40]:
        pad = Pad(variant, case["options"])
        for data in case["deals"]:
            try:
                pad.add(PadDeal.from_json(data))
            except PadError:
                pass
        records.append(pad)
    again = page.evaluate(KERNEL_RECORDS, [p.to_record() for p in records])
    for pad, mine in zip(records, again):
        assert mine == {"sheet": pad.score(), "record": pad.to_record()}
    assert_no_errors(page)
    close_pages(page)


# -- the form ---------------------------------------------------------------------------
def match_deals(variant: str) -> tuple[dict[str, Any], list[PadDeal]]:
    """The options and deals of a whole match to enter: deals of an engine match, the
    variant's special deals (hang, štiglja; belot2: raspas, redeal, BC, VC), and for the
    Bela variants a belot that wins; the last one decides the match.  The first two are
    played deals, and neither the first with the other caller nor the second written twice
    wins (the test writes them so)."""
    v = VARIANTS[variant]
    rules = pad_rules(v)
    options: dict[str, Any] = {"tie": "hang"} if "tie" in v.options else {"target": 401}
    if variant == "belot2":
        special = [PadDeal(raspas=True, points=(60, 50)), PadDeal(redeal=True),
                   PadDeal(0, "BC", (70, 50)), PadDeal(1, "VC", (40, 80), bela=(0, 2))]
    else:
        half = rules["deal_points"] // 2 if rules["all_cards"] else 50
        tie = (half, half) if v.sides == 2 else (81, 40, 41)
        capot = tuple(None if (rules["all_cards"] and s == 0) else (0 if s else 120)
                      for s in range(v.sides))
        special = [PadDeal(0, "S", tie),  # R22: it hangs
                   PadDeal(0, "D", capot, declarations=(50,) + (0,) * (v.sides - 1),
                           bela=(1,) + (0,) * (v.sides - 1), capot=0)]
    for seed in range(100):
        m = random_match(variant, seed, options)
        engine = [written(m, i) for i in range(len(m.rounds))]
        if rules["capot_bonus"] == 0:  # belot2 R36: the form has no štiglja
            engine = [replace(d, capot=None) for d in engine]
        if len(engine) < 3 or any(d.caller is None for d in engine[:2]):
            continue
        pad = Pad(variant, options)
        for d in engine[:2] + special + engine[2:]:
            pad.add(d)
            if pad.winner is not None:
                break
        if pad.winner is None and v.belot_wins:
            pad.add(PadDeal(belot=1))
        while pad.winner is None:
            pad.add(PadDeal(1, "C", (40, 122)))
        deals = list(pad.deals)
        first = deals[0]
        assert first.caller is not None
        if (len(deals) >= 6
                and Pad(variant, options, deals=[replace(first, caller=1 - first.caller)]
                        ).winner is None
                and Pad(variant, options, deals=deals[:2] + deals[1:2]).winner is None):
            return options, deals
    raise AssertionError("no match to enter")


def start_pad(page: Any, variant: str, options: dict[str, Any], names: list[str]) -> None:
    page.click("#pad-new")
    page.click(f"[data-variant='{variant}']")
    if "target" in options:
        page.fill("#pad-target", str(options["target"]))
    for key, value in options.items():
        if key != "target":
            page.select_option(f"#pad-opt-{key}", value)
    for i, name in enumerate(names):
        page.fill(f"#pad-name-{i}", name)
    page.click("#pad-start")
    page.wait_for_selector("#pad-sheet[data-deals='0']")


def fill_deal(page: Any, rules: dict[str, Any], deal: PadDeal) -> None:
    """Write ``deal`` into the open form (a correction's form is cleared first)."""
    kind = ("belot" if deal.belot is not None else "redeal" if deal.redeal
            else "raspas" if deal.raspas else "deal")
    page.click(f"[data-kind='{kind}']")
    if kind == "belot":
        page.click(f"[data-belot='{deal.belot}']")
        return
    if kind == "redeal":
        return
    if kind == "deal":
        page.click(f"[data-caller='{deal.caller}']")
        page.click(f"[data-trump='{deal.trump}']")
        if deal.capot is not None:
            if page.get_attribute(f"[data-capot='{deal.capot}']", "aria-pressed") != "true":
                page.click(f"[data-capot='{deal.capot}']")
        elif page.locator(".seg-btn[data-capot][aria-pressed='true']").count():
            page.click(".seg-btn[data-capot][aria-pressed='true']")
    for i, p in enumerate(deal.points):
        page.fill(f"#pad-points-{i}", "" if p is None else str(p))
    if kind == "raspas":
        return
    decl = deal.declarations or (0,) * rules["sides"]
    for i, d in enumerate(decl):
        page.select_option(f"#pad-decl-{i}", str(d))
    bela = deal.bela or (0,) * rules["sides"]
    most = rules["bela"][deal.trump]
    for i, b in enumerate(bela):
        if most == 1:
            if (page.get_attribute(f"[data-bela='{i}']", "aria-pressed") == "true") != bool(b):
                page.click(f"[data-bela='{i}']")
        elif most > 1:
            page.select_option(f"#pad-bela-{i}", str(b))


def write_deal(page: Any, rules: dict[str, Any], deal: PadDeal, rows: int) -> None:
    page.click("#pad-add")
    fill_deal(page, rules, deal)
    page.click("#pad-write")
    page.wait_for_selector(f"#pad-sheet[data-deals='{rows}']")
    assert page.locator("#pad-form").count() == 0


def shown_sheet(page: Any) -> dict[str, Any]:
    """The sheet as the page shows it: per row the outcome, the booked numbers and the
    caller's column; the totals, the winner and the held points."""
    return page.evaluate("""() => {
      const rows = [...document.querySelectorAll('#pad-sheet tbody tr[data-deal]')].map((tr) => {
        const c = tr.querySelector('td.caller');
        return {outcome: tr.dataset.outcome, caller: c ? Number(c.dataset.side) : null,
                scores: [...tr.querySelectorAll('td[data-score]')].map((td) => {
                  if (!td.textContent.startsWith(td.dataset.score)) throw new Error(td.textContent);
                  return Number(td.dataset.score); })};
      });
      const w = document.querySelector('#pad-winner'), h = document.querySelector('#pad-held');
      return {rows, totals: [...document.querySelectorAll('#pad-sheet [data-total]')].map(
                (td) => Number(td.textContent)),
              winner: w ? Number(w.dataset.winner) : null, held: h ? Number(h.dataset.held) : 0};
    }""")


def engine_sheet(pad: Pad) -> dict[str, Any]:
    s = pad.score()
    return {"rows": [{"outcome": r["outcome"], "caller": r["caller"], "scores": r["scores"]}
                     for r in s["rounds"]],
            "totals": s["totals"], "winner": s["winner"], "held": s["held"]}


def for_people(text: str) -> str:
    """A pad text as the page shows it: without the rule ids ("(R2, R3)")."""
    return re.sub(r"\s*\(R\d+(?:,\s*R\d+)*\)", "", text)


def impossible(rules: dict[str, Any]) -> tuple[list[int], str]:
    """Card points that cannot be, and the refusal the form shows (in Croatian)."""
    if rules["all_cards"]:
        pts = [100, 70] if rules["sides"] == 2 else [100, 70, 10]
        return pts, for_people(_fill(HR["pad_err_points_sum"], sum=sum(pts), full=162))
    return [5, 4], for_people(_fill(HR["pad_err_points_played"], sum=9, full=162))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_whole_match_entered_through_the_form(browser: Any, bela_url: str, artifacts: Path,
                                                tmp_path: Path, variant: str) -> None:
    """A match of ``variant`` entered deal by deal on a phone: the first deal written with
    the wrong caller and corrected, a deal written twice and struck out (and back with
    undo), an impossible entry refused with its reason; the sheet is the engine's, the
    winner declared; the exported record is the engine's and imports as the same pad."""
    rules = pad_rules(VARIANTS[variant])
    options, deals = match_deals(variant)
    names = NAMES[variant]
    page = open_page(browser, bela_url + "/pad", lang="hr", viewport=PHONE)
    page.wait_for_function("() => window.__padReady")
    start_pad(page, variant, options, names)
    # where every card is played, leave one side's points for the page to work out
    rng = random.Random(variant)
    entered = []
    for d in deals:
        if rules["all_cards"] and d.points and None not in d.points:
            gone = rng.randrange(rules["sides"])
            d = replace(d, points=tuple(None if i == gone else p for i, p in enumerate(d.points)))
        entered.append(d)
    first = entered[0]
    assert first.caller is not None
    write_deal(page, rules, replace(first, caller=1 - first.caller), 1)
    page.click("tr[data-deal='0']")  # the correction
    assert page.locator("#pad-form-title").inner_text() == _fill(HR["pad_correct_n"], n=1)
    page.click(f"[data-caller='{first.caller}']")
    page.click("#pad-write")
    page.wait_for_selector("#pad-form", state="detached")
    assert shown_sheet(page) == engine_sheet(Pad(variant, options, names, [first]))

    for n, d in enumerate(entered[1:-1], start=2):
        write_deal(page, rules, d, n)
        if n == 2:  # written twice by mistake: struck out, back with undo, struck again
            write_deal(page, rules, d, 3)
            page.click("tr[data-deal='2']")
            page.click("#pad-strike")
            page.wait_for_selector("#pad-sheet[data-deals='2']")
            page.click("#pad-undo")
            page.wait_for_selector("#pad-sheet[data-deals='3']")
            page.click("tr[data-deal='2']")
            page.click("#pad-strike")
            page.wait_for_selector("#pad-sheet[data-deals='2']")
        if n == 3:  # points that cannot be: refused, with the reason shown
            page.click("#pad-add")
            page.click("[data-caller='0']")
            page.click(f"[data-trump='{rules['contracts'][0]}']")
            pts, reason = impossible(rules)
            for i, p in enumerate(pts):
                page.fill(f"#pad-points-{i}", str(p))
            page.click("#pad-write")
            shown = page.locator("#pad-reason")
            assert shown.is_visible() and shown.inner_text() == reason
            assert shown.get_attribute("role") == "alert"
            box, height = shown.bounding_box(), PHONE["height"]
            assert box is not None and box["y"] + box["height"] <= height  # in sight
            page.screenshot(path=str(artifacts / f"pad-refused-{variant}-phone.png"))
            page.click("#pad-cancel")
            assert page.locator(f"#pad-sheet[data-deals='{n}']").count() == 1
    # the last deal, watched in the preview before it is written
    page.click("#pad-add")
    fill_deal(page, rules, entered[-1])
    assert page.locator("#pad-preview").get_attribute("data-state") == "ok"
    page.screenshot(path=str(artifacts / f"pad-form-{variant}-phone.png"))
    page.click("#pad-write")
    page.wait_for_selector("#pad-winner")
    pad = Pad(variant, options, names, entered)
    assert pad.winner is not None
    assert shown_sheet(page) == engine_sheet(pad)
    assert page.locator("#pad-winner").inner_text().endswith(
        _fill(HR["pad_winner"], name=names[pad.winner]))
    assert page.locator("#pad-add").count() == 0  # the match is over
    page.wait_for_selector("#pad-check[data-state='ok']")  # the server's sheet is the same
    no_overflow(page)
    page.screenshot(path=str(artifacts / f"pad-{variant}-phone.png"), full_page=True)

    # export, then import: the same record and sheet
    with page.expect_download() as dl:
        page.click("#pad-export")
    exported = tmp_path / "pad.json"
    dl.value.save_as(exported)
    assert json.loads(exported.read_text(encoding="utf-8")) == pad.to_record()
    page.click("#pad-back")
    page.click("#pad-import-open")
    page.set_input_files("#pad-import-file", str(exported))
    page.wait_for_selector("#pad-winner")
    assert shown_sheet(page) == engine_sheet(pad)
    imported = page.evaluate("() => window.__pad.padId")
    page.click("#pad-back")
    assert page.locator(".pad-item[data-open]").count() == 2
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('bela.pads'))")
    assert [p["record"] for p in stored if p["id"] == imported] == [pad.to_record()]
    if variant == "bela4":  # printed: only the sheet
        page.click(f".pad-item[data-open='{imported}']")
        page.emulate_media(media="print")
        for hidden in ("#header", ".pad-bar", ".pad-tools", "#pad-back"):
            assert not page.locator(hidden).first.is_visible(), hidden
        assert page.locator("#pad-sheet").is_visible()
        page.screenshot(path=str(artifacts / "pad-print.png"), full_page=True)
        page.emulate_media(media="screen")
    assert_no_errors(page)
    close_pages(page)


def test_an_impossible_record_is_not_imported(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url + "/pad", lang="hr", viewport=PHONE)
    page.wait_for_function("() => window.__padReady")
    page.click("#pad-import-open")
    page.fill("#pad-import-text", json.dumps({"pad": 1, "variant": "bela4", "deals": [
        {"caller": 0, "trump": "H", "points": [92, None]},
        {"caller": 0, "trump": "H", "points": [1, 1]}]}))
    page.click("#pad-import-go")
    reason = _fill(HR["pad_err_points_sum"], sum=2, full=162)
    assert page.locator("#pad-import-error").inner_text() == for_people(
        _fill(HR["pad_err_deal"], n=2, reason=reason))
    page.fill("#pad-import-text", "not json")
    page.click("#pad-import-go")
    assert page.locator("#pad-import-error").inner_text() == HR["pad_import_not_json"]
    page.click("[data-go='list']")
    assert page.locator(".pad-item").count() == 0
    assert_no_errors(page)
    close_pages(page)


# -- offline --------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A ``bela serve`` of this test alone (it is stopped in the middle of the test)."""
    port = _free_port()
    env = {**os.environ, "BELA_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bela.server", "--host", "127.0.0.1", "--port", str(port),
         "--db", f"sqlite:///{tmp_path / 'pad.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout or ()],
                     daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "/api/pad/rules", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("bela serve did not start:\n" + "".join(list(lines.queue)))
        time.sleep(0.1)
    try:
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_the_worker_keeps_every_module_the_pad_imports() -> None:
    """pad-sw.js keeps every module pad.js imports, itself or through another module (html.js,
    pad-state.js, ...): offline, one left out would stop the page from starting."""
    web = Path(__file__).parents[2] / "src" / "bela" / "web"
    needed: set[str] = set()
    todo = ["pad.js"]
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        todo += re.findall(r'^import\b[^;]*?\bfrom "\./([\w./-]+)"', (web / name).read_text(
            encoding="utf-8"), flags=re.M | re.S)
    kept = set(re.findall(r'"/web/([\w./-]+)"', (web / "pad-sw.js").read_text(encoding="utf-8")))
    assert {"pad.js", "html.js", "pad-state.js", "i18n/hr.json"} <= needed
    assert needed - kept == set()


def test_the_pad_works_after_the_network_is_cut(
        browser: Any, own_server: tuple[str, subprocess.Popen[str]], artifacts: Path) -> None:
    """Loaded once, the service worker keeps the page, its modules and the rules: with the
    server stopped and the network cut, the reloaded pad starts a match and scores a deal."""
    url, proc = own_server
    page = open_page(browser, url + "/pad", lang="hr", viewport=PHONE)
    page.wait_for_function("() => window.__padReady")
    assert page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    kept = page.evaluate("() => caches.open('bela-pad-v2').then((c) => c.keys())"
                         ".then((ks) => ks.map((r) => new URL(r.url).pathname))")
    assert {"/pad", "/web/pad.js", "/web/pad-score.js", "/web/i18n.js", "/web/i18n/hr.json",
            "/web/i18n/en.json", "/api/pad/rules"} <= set(kept), kept
    proc.terminate()
    proc.wait(timeout=10)
    page.context.set_offline(True)
    page.reload()
    page.wait_for_function("() => window.__padReady")
    assert page.evaluate("() => navigator.onLine") is False
    start_pad(page, "bela4", {}, ["Mi", "Vi"])
    rules = pad_rules(VARIANTS["bela4"])
    write_deal(page, rules, PadDeal(0, "H", (92, None), declarations=(20, 0)), 1)
    write_deal(page, rules, PadDeal(1, "S", (100, 62)), 2)
    pad = Pad("bela4", {}, ["Mi", "Vi"], [PadDeal(0, "H", (92, None), declarations=(20, 0)),
                                          PadDeal(1, "S", (100, 62))])
    assert shown_sheet(page) == engine_sheet(pad)
    page.wait_for_selector("#pad-check[data-state='offline']")
    assert page.locator("#pad-check").inner_text() == HR["pad_check_offline"]
    page.screenshot(path=str(artifacts / "pad-offline-phone.png"))
    page.click("#pad-back")
    assert page.locator(".pad-item[data-open]").count() == 1
    assert_no_errors(page)
    close_pages(page)


# -- an account keeps pads on the server ----------------------------------------------------
def _api(url: str, method: str, path: str, token: str | None = None,
         body: Any = None) -> Any:
    req = urllib.request.Request(url + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_an_account_keeps_a_pad_on_the_server(browser: Any, bela_url: str) -> None:
    """"Keep on the server" puts the pad there (each change too); another browser of the
    account lists it and opens the same sheet; a guest is not offered it."""
    name = f"Blok {random.randrange(10**6)}"
    g = _api(bela_url, "POST", "/api/guests", body={"name": name})
    _api(bela_url, "POST", "/api/accounts", g["token"], {"password": "dobra-lozinka-1"})
    stored = json.dumps({"token": g["token"], "name": name, "player_id": g["player_id"],
                         "account": True})
    pages = []
    for _ in range(2):
        page = open_page(browser, bela_url + "/pad", lang="hr", viewport=PHONE)
        page.evaluate("(g) => localStorage.setItem('bela.guest', g)", stored)
        page.reload()  # this browser holds the account's token now
        page.wait_for_function("() => window.__padReady")
        pages.append(page)
    first, second = pages
    start_pad(first, "bela2", {"target": 301}, ["Ana", "Ivo"])
    rules = pad_rules(VARIANTS["bela2"])
    write_deal(first, rules, PadDeal(0, "H", (100, 62)), 1)
    first.check("#pad-sync")
    first.wait_for_function("() => document.getElementById('pad-sync-state').textContent"
                            f" === {json.dumps(HR['pad_sync_saved'])}")
    write_deal(first, rules, PadDeal(1, "C", (40, 122), bela=(0, 1)), 2)
    pad = Pad("bela2", {"target": 301}, ["Ana", "Ivo"],
              [PadDeal(0, "H", (100, 62)), PadDeal(1, "C", (40, 122), bela=(0, 1))])
    pad_id = first.evaluate("() => window.__pad.padId")
    deadline = time.monotonic() + 10
    while _api(bela_url, "GET", f"/api/pads/{pad_id}", g["token"])["record"] != pad.to_record():
        assert time.monotonic() < deadline, "the change did not reach the server"
        time.sleep(0.1)
    second.reload()
    # a locator, not an element handle: the list may be drawn again (the server's pads
    # arrive after the browser's own) between finding the item and clicking it
    second.locator(f".pad-item[data-fetch='{pad_id}']").click()
    second.wait_for_selector("#pad-sheet[data-deals='2']")
    assert shown_sheet(second) == engine_sheet(pad)
    assert second.locator("#pad-sync").is_checked()
    # kept no longer: gone from the server, still in the browser
    first.uncheck("#pad-sync")
    deadline = time.monotonic() + 10
    while any(p["id"] == pad_id for p in _api(bela_url, "GET", "/api/pads", g["token"])):
        assert time.monotonic() < deadline, "the pad stayed on the server"
        time.sleep(0.1)
    assert first.locator("#pad-sheet[data-deals='2']").count() == 1
    guest_page = open_page(browser, bela_url + "/pad", lang="hr", viewport=PHONE)
    guest_page.wait_for_function("() => window.__padReady")
    assert guest_page.locator(".pad-account-note").is_visible()
    start_pad(guest_page, "bela2", {}, ["Ana", "Ivo"])
    assert guest_page.locator("#pad-sync").count() == 0
    assert_no_errors(*pages, guest_page)
    close_pages(*pages, guest_page)


def test_the_form_speaks_to_people(browser: Any, bela_url: str, artifacts: Path) -> None:
    """The deal form as a player reads it (browser review N7): the kind is "Obično
    dijeljenje"; tapping štiglja off again takes back the points it filled in; no rule ids
    ("(R12)") in its help or its refusals; "prolaz" is not in the red of a fall."""
    page = open_page(browser, bela_url + "/pad", lang="hr", viewport=PHONE)
    page.wait_for_function("() => window.__padReady")
    start_pad(page, "bela4", {}, NAMES["bela4"])
    page.click("#pad-add")
    assert page.locator("[data-kind='deal']").inner_text() == "Obično dijeljenje"
    points = lambda: [page.input_value(f"#pad-points-{i}") for i in range(2)]  # noqa: E731
    page.click("[data-capot='0']")
    assert points() == ["162", "0"]
    page.click("[data-capot='0']")  # off again: nothing is left of it
    assert points() == ["", ""]
    page.fill("#pad-points-0", "100")
    page.click("[data-capot='1']")
    assert points() == ["0", "162"]
    page.click("[data-capot='0']")  # to the other side, then off: what was typed is back
    assert points() == ["162", "0"]
    page.click("[data-capot='0']")
    assert points() == ["100", ""]
    # refusals without rule ids: declarations on both sides
    page.click("[data-caller='0']")
    page.click("[data-trump='H']")
    page.select_option("#pad-decl-0", "20")
    page.select_option("#pad-decl-1", "20")
    page.click("#pad-write")
    reason = page.inner_text("#pad-reason")
    assert reason.startswith("broje se zvanja samo jedne strane") and "(R" not in reason
    assert "(R" not in page.inner_text("#pad-form")
    # a pass is not in the colour of a fall
    page.select_option("#pad-decl-1", "0")
    colour = "() => getComputedStyle(document.querySelector('#pad-preview .pad-outcome')).color"
    page.wait_for_selector("#pad-preview .pad-outcome[data-outcome='pass']")
    passed = page.evaluate(colour)
    assert page.inner_text("#pad-preview .pad-outcome").startswith(HR["pad_outcome_pass"])
    page.fill("#pad-points-0", "60")
    page.wait_for_selector("#pad-preview .pad-outcome[data-outcome='fall']")
    assert page.evaluate(colour) != passed
    page.screenshot(path=str(artifacts / "pad-form-for-people.png"))
    assert_no_errors(page)
    close_pages(page)
