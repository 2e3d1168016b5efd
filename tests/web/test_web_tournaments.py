"""The tournaments' pages (issue 41 items 4-5; docs/TOURNAMENTS.md): a director creates a
tournament with the form, players register (alone; in bela4 as an invited pair, or seeking
a partner), withdraw and register again; the director adds bot entries, removes one and
starts; the round's tables show with their links, the player is told "your table is ready";
after the games the standings show every tie-break column, the projector screen shows the
pairings and the standings, print shows the score sheets, the exports answer, the player's
profile lists the tournament; names like ``<img src=x onerror=...>`` are drawn as text.

The fast way to a finished tournament: bela2 to 1 point (one deal a table) between bot
entries (the test server's bots wait 0.05 s), and a human who never sits at his table
forfeits after ``no_show`` (30 s, the least the server allows)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import PHONE, assert_no_errors, close_pages, open_page, texts  # noqa: E402

HR, EN = texts("hr"), texts("en")
HOSTILE = "<img src=x onerror=window.__xss=1>"
REFRESH = "refresh=0.25"  # the pages ask again every quarter second (tournaments.js)


def _fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _name(page: Any, name: str) -> None:
    """The page's guest form: a new guest with ``name``."""
    form = page.locator("form[data-form=guest]")
    form.locator("input[name=name]").fill(name)
    with page.expect_response(lambda r: r.url.endswith("/api/guests")) as answer:
        form.locator("button").click()
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("() => window.__tournaments.guest")


def _tour(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.__tournaments.tour")  # type: ignore[no-any-return]


def _api(url: str, method: str = "GET", body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _create(page: Any, name: str, variant: str, **fields: str) -> str:
    """Fill the new tournament's form and submit it: the new tournament's id."""
    page.wait_for_selector("#t-create")
    page.fill("#t-name", name)
    page.select_option("#t-variant", variant)
    page.select_option("#t-format", fields.pop("format", "swiss"))
    for field, value in fields.items():
        loc = page.locator(f"#t-{field}")
        if value in ("on", "off"):
            loc.set_checked(value == "on")
        else:
            loc.fill(value)
    page.click("#t-create")
    page.wait_for_url("**/tournaments?id=*")
    page.wait_for_selector("#t-head")
    return str(_tour(page)["id"])


# The page's answers to its polls held back (``ms``), and each count of registered entries
# it draws noted in ``window.__drawn``: a poll sent before a change and answered after it
# must not draw the tournament as it was before the change.
SLOW_POLLS = """(ms) => {
  const fetch0 = window.fetch;
  window.fetch = (url, init) => {
    const got = fetch0(url, init);
    const get = !init || !init.method || init.method === "GET";
    const poll = get && /[/]api[/]tournaments[/][^/?]+$/.test(String(url).split("?")[0]);
    return poll ? got.then((r) => new Promise((ok) => setTimeout(() => ok(r), ms))) : got;
  };
  window.__drawn = [];
  const count = () => document.querySelectorAll(".entries-table tr[data-status=registered]").length;
  new MutationObserver(() => window.__drawn.push(count())).observe(
    document.getElementById("t-app"), { childList: true, subtree: true });
}"""


def test_a_tournament_from_registration_to_standings(browser: Any, own_bela_url: str) -> None:
    """Director, a player and bots: create, register, withdraw, register again, bots added
    and one removed, start, tables with links, "your table is ready", the forfeit of the
    player who never sat, the standings with every tie-break, screen, print, export,
    history in the profile; the player's hostile name stays text everywhere."""
    base = own_bela_url
    director = open_page(browser, f"{base}/tournaments?{REFRESH}", lang="hr")
    _name(director, "Voditelj")
    tid = _create(director, HOSTILE, "bela2", rounds="1", target="1", rated="off",
                  **{"no-show": "30"})
    tour = _tour(director)
    assert tour["settings"]["rounds"] == 1 and tour["settings"]["options"]["target"] == 1
    assert tour["settings"]["no_show"] == 30 and tour["settings"]["rated"] is False
    assert director.locator("#t-title").inner_text() == HOSTILE
    assert director.locator("#t-director").is_visible()
    # bela2 is played alone: the page says so from the variant's facts, no partner asked
    player = open_page(browser, f"{base}/tournaments?id={tid}&{REFRESH}", lang="hr",
                       viewport=PHONE)
    _name(player, HOSTILE)
    player.click("#t-register")
    player.wait_for_selector("#t-my-entry[data-status=registered]")
    assert player.locator("#t-partner").count() == 0
    player.click("#t-withdraw")
    player.wait_for_selector(".entries-table tr[data-status=withdrawn]")
    assert player.locator("#t-my-entry").count() == 0
    player.click("#t-register")
    player.wait_for_selector("#t-my-entry[data-status=registered]")
    director.wait_for_function("() => document.querySelectorAll("
                               "'.entries-table tr[data-status=registered]').length === 1")
    # four bot entries, one of them removed again: three bots and the player
    director.evaluate(SLOW_POLLS, 700)
    for n in range(2, 6):
        director.select_option("#t-bot-level", "beginner")
        director.click("#t-add-bot")
        director.wait_for_function("(n) => document.querySelectorAll("
                                   "'.entries-table tr[data-status=registered]').length === n",
                                   arg=n)
    time.sleep(1.5)  # the polls sent before the last change are answered
    drawn = director.evaluate("() => window.__drawn")
    assert drawn == sorted(drawn) and drawn[-1] == 5, drawn  # never a step back
    bot = next(e for e in _tour(director)["entries"] if e["bot"])
    director.click(f"[data-cmd='remove:{bot['id']}']")
    director.wait_for_selector(f".entries-table tr[data-entry='{bot['id']}'][data-status=removed]")
    director.click("#t-close")
    director.wait_for_selector(".t-one[data-status=closed]")
    player.wait_for_selector(".t-one[data-status=closed]")
    assert player.locator(".t-head .t-status").inner_text() == HR["tstatus_closed"]
    director.click("#t-start")
    director.wait_for_selector(".t-one[data-status=running]")
    games = director.locator(".t-game")
    assert games.count() == 2
    links = director.locator(".t-game a[href^='/?table=']")
    assert links.count() == 2
    # the player is told his table (from GET /api/tournaments/mine) with its number
    player.wait_for_selector("#your-table")
    mine = next(g for g in _tour(player)["rounds"][0]["games"]
                if any(e["bot"] is None and e["status"] == "registered" and e["id"] in g["entries"]
                       for e in _tour(player)["entries"]))
    assert player.locator("#your-table").inner_text().startswith(
        _fill(HR["t_your_table_n"], n=mine["table_no"]))
    assert player.locator("#your-table-link").get_attribute("href") == f"/?table={mine['table']}"
    # no one sits at the player's table: past no_show he forfeits, the bots' table ends
    director.wait_for_selector(".t-one[data-status=finished]", timeout=150_000)
    rows = director.locator("#t-standings .standings-table tbody tr")
    assert rows.count() == 4
    for col in ("match_points", "buchholz", "points_diff", "head_to_head"):
        assert director.locator(f"#t-standings th[data-col={col}]").count() == 1, col
        assert director.locator(f"#t-standings td[data-col={col}]").count() == 4, col
    assert director.locator("#t-standings h2").inner_text().startswith(HR["t_final_standings"])
    final = _tour(director)
    forfeit = [g for g in final["rounds"][0]["games"] if g["result"]["forfeit"]]
    assert len(forfeit) == 1
    assert director.locator(".t-game .tag.warn").count() == 1
    # escaping: the hostile name is text in the entries, the pairings and the standings
    assert director.locator(f".standings-table td.name:text-is('{HOSTILE}')").count() == 1
    for p in (director, player):
        assert p.locator(".t-page img").count() == 0
        assert p.evaluate("() => window.__xss") is None
    # print: the score sheets (one a table) alone, then the standings alone
    director.emulate_media(media="print")
    director.evaluate("() => { document.body.dataset.print = 'sheets'; }")
    assert director.locator(".score-sheet").count() == 2
    assert director.locator(".score-sheet").first.is_visible()
    assert not director.locator("#t-standings").is_visible()
    director.evaluate("() => { document.body.dataset.print = 'standings'; }")
    assert director.locator("#t-standings").is_visible()
    assert not director.locator("#t-rounds").is_visible()
    assert not director.locator(".score-sheet").first.is_visible()
    director.emulate_media(media="screen")
    assert not director.locator(".score-sheet").first.is_visible()
    # the exports
    csv = director.request.get(base + director.locator("#t-export-csv").get_attribute("href"))
    assert csv.ok and csv.text().startswith("rank,entry,name,players,played")
    assert HOSTILE in csv.text()
    exported = director.request.get(base + director.locator("#t-export-json").get_attribute("href"))
    assert exported.ok and len(exported.json()["results"]) == 2
    # the projector screen: pairings with table numbers, the standings, large type
    screen = open_page(browser, f"{base}/tournaments?id={tid}&screen=1&{REFRESH}", lang="en")
    screen.wait_for_selector(".screen .screen-pairings li")
    assert screen.locator(".screen-pairings li").count() == 2
    assert screen.locator(".screen-table").first.inner_text() == _fill(EN["t_table_n"], n=1)
    assert screen.locator(".screen .standings-table tbody tr").count() == 4
    assert screen.locator(".screen h1").inner_text() == HOSTILE
    assert screen.locator("#screen-clock").is_visible()
    assert not screen.locator(".site-header").is_visible()
    big = screen.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.screen')).fontSize)")
    assert big >= 20
    assert screen.evaluate("() => window.__xss") is None
    # the finished list and the player's profile list the tournament
    director.goto(f"{base}/tournaments?{REFRESH}")
    director.wait_for_selector(f"#t-list-finished li[data-tournament='{tid}']")
    listed = director.locator(f"#t-list-finished li[data-tournament='{tid}'] a b").first
    assert listed.inner_text() == HOSTILE
    me = player.evaluate("() => window.__tournaments.guest.player_id")
    player.goto(f"{base}/?player={me}")
    row = player.locator(f"#profile-tournaments li[data-tournament='{tid}']")
    row.wait_for()
    ranked = next(s for s in final["standings"] if s["name"] == HOSTILE)
    assert _fill(HR["t_place_of"], n=ranked["rank"], of=4) in row.inner_text()
    assert player.evaluate("() => window.__xss") is None
    assert_no_errors(director, player, screen)
    close_pages(director, player, screen)


def test_pairs_invite_accept_seek_and_your_table(browser: Any, own_bela_url: str) -> None:
    """bela4 (entries are pairs, from the variant's facts): one player invites another by
    his id, the other accepts; two more ask for a partner and the director pairs them; he
    adds a bot pair and a pair by their ids, starts, pauses and resumes; the inviter is
    shown his table, in the lobby too; the director ends the tournament.  The phone page
    has no sideways scroll; English works."""
    base = own_bela_url
    director = open_page(browser, f"{base}/tournaments?{REFRESH}", lang="en")
    _name(director, "Director")
    director.wait_for_selector("#t-create")
    director.select_option("#t-variant", "bela4")
    director.wait_for_selector("#t-entry-kind:text-is('" + EN["t_entries_pairs"] + "')")
    director.select_option("#t-variant", "bela2")
    director.wait_for_selector("#t-entry-kind:text-is('" + EN["t_entries_single"] + "')")
    # the format's own fields only
    director.select_option("#t-format", "duplicate")
    assert director.locator("#t-boards").is_visible()
    assert not director.locator("#t-target").is_visible()
    director.select_option("#t-format", "knockout")
    assert director.locator("#t-best-of").is_visible()
    assert not director.locator("#t-rounds").is_visible()
    tid = _create(director, "Petak navečer", "bela4", format="swiss", rounds="1", target="1",
                  rated="off")
    url = f"{base}/tournaments?id={tid}&{REFRESH}"
    ana = open_page(browser, url, lang="hr", viewport=PHONE)
    _name(ana, "Ana")
    marko = open_page(browser, url, lang="en")
    _name(marko, "Marko")
    ivo = open_page(browser, url, lang="hr")
    _name(ivo, "Ivo")
    marko_id = marko.evaluate("() => window.__tournaments.guest.player_id")
    ana.fill("#t-partner", marko_id)
    ana.click("#t-register")
    ana.wait_for_selector("#t-my-entry[data-status=invited]")
    marko.wait_for_selector("#t-accept")
    assert "Ana" in marko.locator("#t-me").inner_text()
    marko.click("#t-accept")
    marko.wait_for_selector("#t-my-entry[data-status=registered]")
    ana.wait_for_selector("#t-my-entry[data-status=registered]")
    assert ana.locator("#t-my-entry").inner_text().startswith(
        _fill(HR["t_my_entry"], name="Ana & Marko"))
    ivo.click("#t-seek")
    ivo.wait_for_selector("#t-my-entry[data-status=seeking]")
    luka = _api(f"{base}/api/guests", "POST", {"name": "Luka"})["token"]
    _api(f"{base}/api/tournaments/{tid}/register", "POST", {"seeking": True}, luka)
    # the director pairs the two seekers with the form that two of them bring
    director.wait_for_selector("#t-pair")
    director.click("#t-pair")
    ivo.wait_for_selector("#t-my-entry[data-status=registered]")
    assert "Luka" in ivo.locator("#t-my-entry").inner_text()
    director.select_option("#t-bot-level", "club")
    director.click("#t-add-bot")
    director.wait_for_function("() => document.querySelectorAll("
                               "'.entries-table tr[data-status=registered]').length === 3")
    # a pair the director enters by their ids
    ids = [_api(f"{base}/api/guests", "POST", {"name": n})["player_id"] for n in ("Eva", "Tin")]
    director.fill("#t-add-players-ids", ", ".join(ids))
    director.click("#t-add-players")
    director.wait_for_selector(".entries-table tr[data-status=registered] :text('Eva & Tin')")
    assert director.locator("#t-add-players-ids").input_value() == ""
    director.click("#t-start")
    director.wait_for_selector(".t-one[data-status=running]")
    director.click("#t-pause")
    ana.wait_for_selector(".t-one[data-status=paused]")
    director.click("#t-resume")
    ana.wait_for_selector(".t-one[data-status=running]")
    ana.wait_for_selector("#your-table")
    pair = next(e["id"] for e in _tour(ana)["entries"] if e["name"] == "Ana & Marko")
    game = next(g for g in _tour(ana)["rounds"][0]["games"] if pair in g["entries"])
    assert ana.locator("#your-table").inner_text().startswith(
        _fill(HR["t_your_table_n"], n=game["table_no"]))
    assert ana.locator("#your-table-link").get_attribute("href") == f"/?table={game['table']}"
    assert ana.locator(".t-game.me").count() == 1
    # the lobby tells her too (its Turniri panel, from the same feed)
    lobby = ana.context.new_page()
    lobby.goto(f"{base}/?{REFRESH}")
    lobby.wait_for_selector(f"#my-tournaments [data-your-table='{game['table']}']")
    assert lobby.locator(f"#my-tournaments li[data-tournament='{tid}'] a b").inner_text() == (
        "Petak navečer")
    lobby.close()
    # the phone: nothing wider than the window
    wide = ana.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, wide
    director.click("#t-end")
    director.wait_for_selector(".t-one[data-status=finished]")
    ana.wait_for_selector(".t-one[data-status=finished]")
    assert ana.locator("#your-table").count() == 0
    # the running list no longer has it; refusals are said in words
    token = marko.evaluate("() => JSON.parse(localStorage.getItem('bela.guest')).token")
    with pytest.raises(urllib.error.HTTPError) as refused:
        _api(f"{base}/api/tournaments/{tid}/withdraw", "POST", token=token)
    assert refused.value.code == 409
    assert_no_errors(director, ana, marko, ivo)
    close_pages(director, ana, marko, ivo)


def test_the_lobby_links_the_tournaments_and_a_private_one_asks_its_code(
        browser: Any, own_bela_url: str) -> None:
    """The lobby's link opens the lists; a private tournament is not listed, its director
    sees the invitation link, and a player registers with it and checks in."""
    base = own_bela_url
    lobby = open_page(browser, base, lang="hr")
    lobby.click("#link-tournaments")
    lobby.wait_for_url("**/tournaments")
    lobby.wait_for_selector("#t-list-upcoming")
    for kind in ("upcoming", "running", "finished"):
        assert lobby.locator(f"#t-list-{kind} h2").inner_text() == HR[f"t_list_{kind}"]
    _name(lobby, "Vlasnica")
    tid = _create(lobby, "Zatvoreni krug", "bela2", private="on", target="1", rounds="1",
                  rated="off", checkin="on")
    invite = lobby.locator("#t-invite").input_value()
    assert f"id={tid}" in invite and "code=" in invite
    listed = _api(f"{base}/api/tournaments?status=upcoming")
    assert tid not in [x["id"] for x in listed]
    guest = open_page(browser, invite, lang="hr")
    guest.wait_for_selector("#t-head")
    _name(guest, "Gost")
    guest.click("#t-register")
    guest.wait_for_selector("#t-my-entry[data-status=registered]")
    # one entry is too few: the refusal is said in the page's words, in sight
    lobby.click("#t-start")
    msg = lobby.locator("#t-msg")
    msg.filter(has_text=HR["terr_too_few_entries"]).wait_for()
    assert msg.is_visible() and lobby.locator(".t-one[data-status=registering]").count() == 1
    assert guest.locator(".entries-table tr.me .checked-in").count() == 0
    guest.click("#t-checkin-btn")
    guest.wait_for_selector(".entries-table tr.me .checked-in")
    assert guest.locator("#t-checkin-btn").count() == 0
    assert_no_errors(lobby, guest)
    close_pages(lobby, guest)


def _bot_tournament(base: str, token: str, body: dict[str, Any], bots: int) -> str:
    """A tournament of bot entries only, started: its id."""
    tid = str(_api(f"{base}/api/tournaments", "POST", {"rated": False, **body}, token)["id"])
    for i in range(bots):
        _api(f"{base}/api/tournaments/{tid}/entries", "POST",
             {"bot": ("beginner", "club")[i % 2]}, token)
    _api(f"{base}/api/tournaments/{tid}/start", "POST", token=token)
    return tid


def test_duplicate_boards_and_the_knockout_bracket(browser: Any, own_bela_url: str) -> None:
    """A duplicate of one board (bela4, four bot pairs): after the round each board's
    frequency table and lines, the percentage column; a knockout of four bots (bela2 to one
    point): the bracket's two stages, the winner of each tie stressed, the places."""
    base = own_bela_url
    token = _api(f"{base}/api/guests", "POST", {"name": "Sudac"})["token"]
    dup = _bot_tournament(base, token, {"name": "Duplikat", "variant": "bela4",
                                        "format": "duplicate", "rounds": 1, "boards": 1}, 4)
    cup = _bot_tournament(base, token, {"name": "Kup", "variant": "bela2", "format": "knockout",
                                        "options": {"target": 1}}, 4)
    page = open_page(browser, f"{base}/tournaments?id={dup}&{REFRESH}", lang="hr")
    page.wait_for_selector(".t-one[data-status=finished]", timeout=150_000)
    board = page.locator("#t-boards .board-block[data-board='1']")
    assert board.count() == 1
    freq = board.locator(".freq-table tbody tr")
    counts = [int(c) for c in freq.locator("td:nth-child(2)").all_inner_texts()]
    assert sum(counts) == 2  # two tables played the board
    assert board.locator(".board-lines tbody tr").count() == 2
    assert page.locator("#t-standings td[data-col=percentage]").count() == 4
    assert page.locator("#t-standings th[data-col=buchholz]").count() == 1
    page.goto(f"{base}/tournaments?id={cup}&{REFRESH}")
    page.wait_for_selector(".t-one[data-status=finished]", timeout=150_000)
    cols = page.locator("#t-bracket .bracket-col")
    assert cols.count() == 2
    assert cols.nth(0).locator(".bracket-tie").count() == 2
    assert cols.nth(1).locator(".bracket-tie").count() == 1
    assert cols.nth(1).locator("h4").inner_text() == HR["tstage_final"]
    champion = next(s for s in _tour(page)["standings"] if s["place"] == 1)
    assert cols.nth(1).locator(".bracket-side.winner").get_attribute("data-entry") == str(
        champion["entry"])
    assert page.locator("#t-standings td[data-col=place]").count() == 4
    assert_no_errors(page)
    close_pages(page)


def test_the_director_corrects_a_result(browser: Any, own_bela_url: str) -> None:
    """A one-round Swiss of two bots (bela2 to one point): after it the director opens
    the game's correction, swaps the scores and says why; the game shows the corrected
    mark, the other entry wins and leads the standings; a viewer has no button."""
    base = own_bela_url
    page = open_page(browser, f"{base}/tournaments?{REFRESH}", lang="hr")
    _name(page, "Sudac")
    token = page.evaluate("() => JSON.parse(localStorage.getItem('bela.guest')).token")
    tid = _bot_tournament(base, token, {"name": "Ispravak", "variant": "bela2",
                                        "format": "swiss", "rounds": 1,
                                        "options": {"target": 1}}, 2)
    page.goto(f"{base}/tournaments?id={tid}&{REFRESH}")
    page.wait_for_selector(".t-one[data-status=finished]", timeout=150_000)
    game = _tour(page)["rounds"][0]["games"][0]
    loser = next(e for e in game["entries"] if e != game["result"]["winner"])
    fix = page.locator("button[data-fix='1:1']")
    assert fix.inner_text() == HR["t_fix"]
    fix.click()
    form = page.locator("form.t-fix")
    scores = game["result"]["scores"]
    assert [form.locator(f"input[name=score_{i}]").input_value() for i in (0, 1)] == [
        str(x) for x in scores]
    form.locator("input[name=score_0]").fill(str(scores[1]))
    form.locator("input[name=score_1]").fill(str(scores[0] + 1))
    form.locator("input[name=reason]").fill(HOSTILE)
    form.locator("button[data-fix-save]").click()
    page.wait_for_selector(".t-game .t-corrected")
    assert page.locator("form.t-fix").count() == 0
    mark = page.locator(".t-game .t-corrected").inner_text()
    assert mark == _fill(HR["t_corrected"], name="Sudac", reason=HOSTILE)
    assert page.locator(f".t-game .t-side.winner[data-entry='{loser}']").count() == 1
    top = _tour(page)["standings"][0]
    assert top["entry"] == loser and top["wins"] == 1
    assert page.evaluate("() => window.__xss") is None
    viewer = open_page(browser, f"{base}/tournaments?id={tid}&{REFRESH}", lang="en")
    viewer.wait_for_selector(".t-game .t-corrected")
    assert viewer.locator("button[data-fix]").count() == 0
    assert viewer.locator(".t-game .t-corrected").inner_text() == _fill(
        EN["t_corrected"], name="Sudac", reason=HOSTILE)
    assert_no_errors(page)
    close_pages(page, viewer)


# -- a club night with real cards (docs/TOURNAMENTS.md "Real cards") ---------------------------
def _scorer_deal(phone: Any, rules: dict[str, Any], deal: Any, rows: int) -> None:
    from test_web_pad import fill_deal

    phone.click("#pad-add")
    fill_deal(phone, rules, deal)
    phone.click("#pad-write")
    phone.wait_for_selector(f"#pad-sheet[data-deals='{rows}']")


def test_a_club_night_scored_on_two_phones(browser: Any, own_bela_url: str) -> None:
    """The director creates a tournament with real cards, enters four pairs by name and
    starts: each table gets its pad link and QR code; two phones open the two tables'
    pads (set up with the pairs' names), one writes deals until its match is won and sends
    the result, the other sends its result early; the director's standings show both,
    and the screen shows the round's clock, then the break's countdown."""
    from bela.engine.pad import Pad, PadDeal

    base = own_bela_url
    director = open_page(browser, f"{base}/tournaments?{REFRESH}", lang="hr")
    _name(director, "Sudac")
    tid = _create(director, "Klupska večer", "bela4", rounds="2", target="501",
                  **{"real-cards": "on", "round-break": "600"})
    tour = _tour(director)
    assert tour["settings"]["real_cards"] is True and tour["settings"]["round_break"] == 600
    pairs = ["Ana & Marko", "Ivo & Mara", "Luka & Nina", "Petra & Zdravko"]
    for n, name in enumerate(pairs, 1):
        director.fill("#t-add-name", name)
        director.click("#t-add-name-btn")
        director.wait_for_function("(n) => document.querySelectorAll("
                                   "'.entries-table tr[data-status=registered]').length === n",
                                   arg=n)
    director.click("#t-start")
    director.wait_for_selector(".t-one[data-status=running]")
    director.wait_for_function("() => document.querySelectorAll('.t-scorer').length === 2 && "
                               "[...document.querySelectorAll('.t-game')].every("
                               "(g) => g.dataset.status === 'playing')")
    # no table online: no watch link; each table its pad link and a QR code that loads
    assert director.locator(".t-game a[data-table]").count() == 0
    director.wait_for_function("() => [...document.querySelectorAll('img.t-qr')].every("
                               "(i) => i.complete && i.naturalWidth > 0)")
    links = director.locator("a[data-scorer]").evaluate_all("(as) => as.map((a) => a.href)")
    games = _tour(director)["rounds"][0]["games"]
    names = {e["id"]: e["name"] for e in _tour(director)["entries"]}

    screen = open_page(browser, f"{base}/tournaments?id={tid}&screen=1&{REFRESH}", lang="hr")
    screen.wait_for_selector("#screen-round-clock[data-kind=round]")
    assert HR["t_round_time"] in screen.locator("#screen-round-clock").inner_text()

    rules = _api(f"{base}/api/pad/rules")["variants"]["bela4"]
    win = PadDeal(caller=0, trump="H", points=(112, None), declarations=(50, 0))
    phones = [open_page(browser, link, lang="hr", viewport=PHONE) for link in links]
    for phone, game in zip(phones, games, strict=True):
        phone.wait_for_selector("#pad-bound[data-status=playing]")
        heads = phone.locator("#pad-sheet thead th[data-side]").all_inner_texts()
        assert heads == [names[e] for e in game["entries"]]
        assert _fill(HR["pad_bound_table"], round=1, table=game["table_no"]) in \
            phone.locator("#pad-bound").inner_text()
    first, second = phones
    for rows in range(1, 5):  # four deals: side 0 passes 501
        _scorer_deal(first, rules, win, rows)
    first.wait_for_selector("#pad-winner[data-winner='0']")
    first.click("#pad-send")
    assert first.locator("#pad-send").inner_text() == HR["pad_bound_send_sure"]
    first.click("#pad-send")
    first.wait_for_selector("#pad-bound[data-status=finished]")
    assert first.locator("#pad-add").count() == 0  # nothing more is written on it
    # the second table sends before its match is over (the evening's time is up)
    late = PadDeal(caller=1, trump="S", points=(60, None))
    _scorer_deal(second, rules, late, 1)
    assert second.locator("#pad-send").inner_text() == HR["pad_bound_send_early"]
    second.click("#pad-send")
    second.click("#pad-send")
    second.wait_for_selector("#pad-bound[data-status=finished]")

    director.wait_for_function("() => document.querySelectorAll("
                               "'.t-round[data-round=\"1\"] .t-game[data-status=finished]')"
                               ".length === 2")
    done = _tour(director)["rounds"][0]["games"]
    sheet = lambda deals: list(Pad("bela4", {"target": 501}, (), deals).totals)  # noqa: E731
    assert done[0]["result"]["scores"] == sheet([win] * 4) == [648, 200]
    assert done[1]["result"]["scores"] == sheet([late]) == [60, 102]
    winners = {done[0]["entries"][0], done[1]["entries"][1]}
    standings = _tour(director)["standings"]
    assert {s["entry"] for s in standings if s["wins"] == 1} == winners
    top = director.locator("#t-standings tbody tr").first.inner_text()
    assert names[done[0]["entries"][0]] in top  # the biggest win leads
    assert director.locator(".t-scorer[data-sent='1']").count() == 2
    # print: each table's score sheet carries its pad's QR code
    director.evaluate("() => { document.body.dataset.print = 'sheets'; }")
    assert director.locator(".score-sheet .sheet-qr img").count() == 2
    director.evaluate("() => { delete document.body.dataset.print; }")
    # the round break: the screen counts down to the next round
    screen.wait_for_selector("#screen-round-clock[data-kind=break]")
    assert HR["t_next_round_in"] in screen.locator("#screen-round-clock").inner_text()
    assert_no_errors(director, screen, *phones)
    close_pages(director, screen, *phones)


def test_a_practice_duplicate_from_the_page(browser: Any, own_bela_url: str) -> None:
    """The practice form starts a duplicate against bots; the player plays his table
    (the first legal choice each turn); the page then shows, on each board, his line
    against the bots' pair that held the same cards."""
    from web_helpers import click_first_legal, diagnose

    base = own_bela_url
    page = open_page(browser, f"{base}/tournaments?{REFRESH}", lang="hr")
    _name(page, "Vježbač")
    page.wait_for_selector("#t-practice")
    page.select_option("#t-practice-variant", "bela2")
    page.fill("#t-practice-boards", "1")
    page.select_option("#t-practice-level", "beginner")
    page.click("#t-practice")
    page.wait_for_url("**/tournaments?id=*")
    page.wait_for_selector(".t-one[data-status=running]")
    tour = _tour(page)
    assert tour["format"] == "duplicate" and tour["settings"]["boards"] == 1
    assert tour["name"] == "Vježba: duplikat, 1 dijeljenje"
    assert len(tour["entries"]) == 4 and sum(1 for e in tour["entries"] if e["bot"]) == 3
    page.wait_for_selector("#your-table-link")
    page.click("#your-table-link")
    page.wait_for_selector(".game")
    deadline = time.monotonic() + 120
    while not page.locator("#match-result").count():
        assert time.monotonic() < deadline, "the board was not played:\n" + diagnose([page])
        if not click_first_legal(page):
            page.wait_for_timeout(60)
    page.goto(f"{base}/tournaments?id={tour['id']}&{REFRESH}")
    page.wait_for_selector(".t-boards .board-block[data-board='1']", timeout=60000)
    mine = page.locator(".board-lines tr.me")
    assert mine.count() == 1 and page.locator(".board-lines tbody tr").count() == 2
    done = _tour(page)
    line = done["boards"][0]["boards"][0]["lines"]
    assert sum(sum(ln["matchpoints"]) for ln in line) == 4  # a top of 2, two tables
    assert_no_errors(page)
    close_pages(page)
