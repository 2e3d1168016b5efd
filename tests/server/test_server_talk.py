"""Table talk (docs/SECURITY.md, Talk): the fixed phrases are the same for every seat in
every state and reach every connection as one identical message; free text only between
deals, from accounts, cleaned and filtered; rate limits per player and per address;
reports reach storage with their context."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from server_helpers import Reader, choose, guest, server, start, table_with

from bela.server.talk import PHRASES, bot_phrase, offered

PASSWORD = "konj-i-kraljica-7"
ROOT = Path(__file__).parents[2]


def _account(client: Any, name: str) -> dict[str, str]:
    _token, h = guest(client, name)
    r = client.post("/api/accounts", json={"password": PASSWORD}, headers=h)
    assert r.status_code == 200, r.text
    return h


def _ws(client: Any, tid: str, h: dict[str, str] | None) -> Any:
    token = "" if h is None else "?token=" + h["Authorization"].removeprefix("Bearer ")
    return client.websocket_connect(f"/ws/tables/{tid}{token}")


def _said_everywhere(readers: list[Reader]) -> str:
    """The next phrase message of every reader: the same text for all."""
    texts = set()
    for r in readers:
        r.until(lambda m: m["type"] in ("said", "error"))
        texts.add(r.raw[-1])
    assert len(texts) == 1, texts
    return texts.pop()


def test_the_phrases_are_one_set_the_web_names_in_both_languages() -> None:
    assert offered() is PHRASES
    for lang in ("hr", "en"):
        strings = json.loads((ROOT / f"src/bela/web/i18n/{lang}.json").read_text("utf-8"))
        named = {k.removeprefix("talk_phrase_") for k in strings
                 if k.startswith("talk_phrase_")}
        assert named == set(PHRASES), (lang, named ^ set(PHRASES))


def test_every_seat_says_every_phrase_in_every_state_of_random_rounds(tmp_path: Path) -> None:
    """A property over random rounds: at every state, each seat says a random phrase and
    every connection (the four seats, a watcher) gets the same text at once; free text is
    refused alike for every seat while the deal runs, taken after the match."""
    with server(tmp_path, rate_talk="", rate_talk_address="") as client:
        players = [_account(client, n) for n in ("Ana", "Bruno", "Cvita", "Duje")]
        for seed in (3, 8, 21):
            rng = random.Random(seed)
            tid = table_with(client, "bela4", players, seed=seed, options={"target": 1})
            with _ws(client, tid, players[0]) as w0, _ws(client, tid, players[1]) as w1, \
                    _ws(client, tid, players[2]) as w2, _ws(client, tid, players[3]) as w3, \
                    _ws(client, tid, None) as w4:
                seats = [Reader(w) for w in (w0, w1, w2, w3)]
                readers = [*seats, Reader(w4)]
                for r in readers:
                    r.until(lambda m: m["type"] == "welcome")
                start(client, tid, players[0])
                said = 0
                for _ in range(400):
                    st = None
                    for r in readers:
                        st = r.until(lambda m: m["type"] == "state")
                    assert st is not None
                    if st["status"] == "finished":
                        break
                    for seat, r in enumerate(seats):
                        phrase = rng.choice(PHRASES)
                        r.send({"type": "say", "phrase": phrase})
                        text = _said_everywhere(readers)
                        assert json.loads(text) == {"type": "said", "seat": seat,
                                                    "phrase": phrase}
                        said += 1
                    if st["view"]["phase"] != "done":
                        for r in seats:
                            r.send({"type": "chat", "text": "imam dečka"})
                            assert r.until(lambda m: m["type"] == "error")["code"] == \
                                "deal_running"
                    turn = seats[st["view"]["turn"]]
                    own = turn.state
                    assert own is not None and own["seq"] == st["seq"]
                    if own["view"]["legal"] != ["keep"]:
                        turn.send({"type": "act", "action": choose(own, rng),
                                   "seq": own["seq"]})
                else:
                    raise AssertionError("the match did not end")
                assert said > 40
                seats[2].send({"type": "chat", "text": "dobra partija"})
                for r in readers:
                    line = r.until(lambda m: m["type"] == "chat")
                    assert line["text"] == "dobra partija" and line["seat"] == 2


def test_phrases_are_refused_alike_off_the_list_and_for_watchers(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _t, ana = guest(client, "Ana")
        tid = table_with(client, "bela2", [ana], bots=True)
        with _ws(client, tid, ana) as w, _ws(client, tid, None) as v:
            me, watcher = Reader(w), Reader(v)
            me.send({"type": "say", "phrase": "imam 7 srca"})
            assert me.until(lambda m: m["type"] == "error")["code"] == "bad_phrase"
            watcher.send({"type": "say", "phrase": "bravo"})
            assert watcher.until(lambda m: m["type"] == "error")["code"] == "no_player"


def test_talk_is_rate_limited_per_player_and_per_address(tmp_path: Path) -> None:
    with server(tmp_path, rate_talk="3/minute", rate_talk_address="5/minute") as client:
        _t, ana = guest(client, "Ana")
        _t, bruno = guest(client, "Bruno")
        tid = table_with(client, "bela4", [ana, bruno], bots=True)
        with _ws(client, tid, ana) as wa, _ws(client, tid, bruno) as wb:
            a, b = Reader(wa), Reader(wb)
            for _ in range(3):
                a.send({"type": "say", "phrase": "ajde"})
                assert a.until(lambda m: m["type"] in ("said", "error"))["type"] == "said"
            a.send({"type": "say", "phrase": "ajde"})
            refusal = a.until(lambda m: m["type"] == "error")
            assert refusal["code"] == "rate_limited", refusal
            # Bruno has his own count, but the address's is shared: 2 more, then refused
            for _ in range(2):
                b.send({"type": "say", "phrase": "hvala"})
                assert b.until(lambda m: m["type"] in ("said", "error"))["type"] == "said"
            b.send({"type": "say", "phrase": "hvala"})
            assert b.until(lambda m: m["type"] == "error")["code"] == "rate_limited"


def test_free_text_is_cleaned_filtered_and_only_for_accounts(tmp_path: Path) -> None:
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>\u202e\u0000 kreten'
    with server(tmp_path, talk_words=("kreten",), talk_max_length=80) as client:
        ana = _account(client, "Ana")
        _t, gost = guest(client, "Gost")
        tid = table_with(client, "bela4", [ana, gost], bots=False)
        with _ws(client, tid, ana) as wa, _ws(client, tid, gost) as wg:
            a, g = Reader(wa), Reader(wg)
            g.send({"type": "chat", "text": "kupujem zlato"})
            assert g.until(lambda m: m["type"] == "error")["code"] == "guest_phrases_only"
            g.send({"type": "report", "id": 1})
            assert g.until(lambda m: m["type"] == "error")["code"] == "guest_phrases_only"
            a.send({"type": "chat", "text": hostile})
            line = g.until(lambda m: m["type"] == "chat")
            # the markup stays text (the web shows it escaped); controls and the word go
            assert line["text"] == ('<img src=x onerror="alert(1)"><script>alert(2)'
                                    '</script> ******')
            assert line["name"] == "Ana" and line["seat"] == 0
            a.send({"type": "chat", "text": "x" * 1001})
            assert a.until(lambda m: m["type"] == "error")["code"] == "bad_message"
            a.send({"type": "chat", "text": "y" * 500})
            assert len(a.until(lambda m: m["type"] == "chat")["text"]) == 80
            a.send({"type": "chat", "text": " \u200b\n "})
            assert a.until(lambda m: m["type"] == "error")["code"] == "empty_text"


def test_a_report_is_stored_with_the_lines_before_it(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana, bruno = _account(client, "Ana"), _account(client, "Bruno")
        tid = table_with(client, "bela4", [ana, bruno])
        with _ws(client, tid, ana) as wa, _ws(client, tid, bruno) as wb:
            a, b = Reader(wa), Reader(wb)
            for r in (a, b):
                r.joined()
            ids = []
            for r, text in ((a, "bok"), (b, "ružna riječ")):  # in this order
                r.send({"type": "chat", "text": text})
                ids.append(a.until(lambda m: m["type"] == "chat")["id"])
            a.send({"type": "report", "id": ids[0]})
            assert a.until(lambda m: m["type"] == "error")["code"] == "own_line"
            a.send({"type": "report", "id": 999})
            assert a.until(lambda m: m["type"] == "error")["code"] == "unknown_line"
            a.send({"type": "report", "id": ids[1]})
            assert a.until(lambda m: m["type"] == "reported")["id"] == ids[1]
        reports = client.app.state.db.talk.reports()
        assert len(reports) == 1
        report = reports[0]
        assert report["table_id"] == tid and report["text"] == "ružna riječ"
        assert [c["text"] for c in report["context"]] == ["bok", "ružna riječ"]
        assert report["reporter_id"] != report["reported_id"]


# -- the bots' phrases ----------------------------------------------------------------------
def test_a_bot_says_bravo_to_the_other_sides_stiglja_and_well_played_at_the_end() -> None:
    from bela.engine.enums import Outcome
    from bela.engine.scoring import RoundResult

    sides, bots = [0, 1, 0, 1], [False, True, False, True]
    capot = RoundResult(Outcome.CAPOT, (252, 0), caller=0, contract=0)
    assert bot_phrase(capot, None, sides, bots) == (1, "bravo")  # R23 against the bots
    assert bot_phrase(RoundResult(Outcome.CAPOT, (0, 252), caller=1, contract=0), None,
                      sides, bots) is None  # their own štiglja: no boasting
    fell = RoundResult(Outcome.FALL, (0, 162), caller=3, contract=0)
    assert bot_phrase(fell, None, sides, bots) == (1, "joj")  # R22: the bots' side fell
    passed = RoundResult(Outcome.PASS, (100, 62), caller=0, contract=0)
    assert bot_phrase(passed, None, sides, bots) is None
    assert bot_phrase(None, 0, sides, bots) == (1, "dobro")
    assert bot_phrase(None, 1, sides, bots) is None
    assert bot_phrase(capot, None, sides, [False] * 4) is None


def test_bots_speak_only_right_after_a_deal_or_the_match_has_ended(tmp_path: Path) -> None:
    """Watching bots play matches: every phrase comes right after the state whose public
    events end a deal or the match, never while a deal runs, at most one a deal."""
    with server(tmp_path) as client:
        _t, ana = guest(client, "Ana")
        said = 0
        for seed in range(1, 5):
            r = client.post("/api/tables", json={"variant": "bela4", "seed": seed,
                                                 "seat": None, "options": {"target": 501}},
                            headers=ana)
            tid = r.json()["id"]
            assert client.post(f"/api/tables/{tid}/bots", headers=ana).status_code == 200
            with _ws(client, tid, None) as w:
                watcher = Reader(w)
                watcher.until(lambda m: m["type"] == "welcome")
                start(client, tid, ana)
                watcher.until(lambda m: m["type"] == "state" and m["status"] == "finished")
                for _ in range(3):  # a phrase after the last state, if any
                    watcher.send({"type": "ping"})
                    watcher.until(lambda m: m["type"] == "pong")
            msgs = [json.loads(t) for t in watcher.raw]
            before = None
            for msg in msgs:
                if msg["type"] == "said":
                    assert before is not None and before["type"] == "state", msg
                    ends = {e["type"] for e in before["events"]}
                    assert ends & {"round_over", "match_won"}, (msg, ends)
                    assert msg["phrase"] in PHRASES
                    said += 1
                if msg["type"] in ("state", "said"):
                    before = msg
        assert said >= 1


def test_the_operator_sets_the_word_filter_with_a_file(tmp_path: Path,
                                                        monkeypatch: Any) -> None:
    """``bela serve --talk-words FILE``: one word a line, blank lines skipped, given to the
    server's config (the server stops at the bind: the app is what is checked)."""
    import typer
    from typer.testing import CliRunner

    from bela.server import run

    made: dict[str, Any] = {}

    def fake_app(url: str, **options: Any) -> Any:
        made.update(options)
        raise ValueError("stop here")

    from bela.server import app as app_module

    monkeypatch.setattr(app_module, "create_app", fake_app)
    words = tmp_path / "words.txt"
    words.write_text("kreten\n\n  budala \n", encoding="utf-8")
    app = typer.Typer()
    app.command()(run.serve)
    result = CliRunner().invoke(app, ["--db", f"sqlite:///{tmp_path / 'x.db'}",
                                      "--talk-words", str(words)])
    assert result.exit_code == 2, result.output
    assert made["talk_words"] == ("kreten", "budala")


# -- the lobby's room -----------------------------------------------------------------------
def test_the_lobby_room_carries_lines_guests_read_and_reports_are_stored(
        tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana, bruno = _account(client, "Ana"), _account(client, "Bruno")
        _t, gost = guest(client, "Gost")

        def lobby(h: dict[str, str] | None) -> Any:
            token = "" if h is None else "?token=" + h["Authorization"].removeprefix("Bearer ")
            return client.websocket_connect(f"/ws/lobby{token}")

        with lobby(ana) as wa, lobby(bruno) as wb, lobby(gost) as wg, lobby(None) as wn:
            a, b, g, n = Reader(wa), Reader(wb), Reader(wg), Reader(wn)
            g.send({"type": "chat", "text": "kupujem"})
            assert g.until(lambda m: m["type"] == "error")["code"] == "guest_phrases_only"
            n.send({"type": "chat", "text": "anonimac"})
            assert n.until(lambda m: m["type"] == "error")["code"] == "no_player"
            a.send({"type": "say", "phrase": "bravo"})
            assert a.until(lambda m: m["type"] == "error")["code"] == "no_phrases_here"
            a.send({"type": "act", "action": "JH"})
            assert a.until(lambda m: m["type"] == "error")["code"] == "bad_message"
            a.send({"type": "chat", "text": "<script>x</script> tko igra?"})
            for r in (a, b, g, n):
                line = r.until(lambda m: m["type"] == "chat")
                assert line["text"] == "<script>x</script> tko igra?" and line["seat"] is None
            b.send({"type": "report", "id": line["id"]})
            assert b.until(lambda m: m["type"] == "reported")["id"] == line["id"]
            with lobby(None) as late:  # a newcomer gets the last lines
                assert Reader(late).until(lambda m: m["type"] == "chat")["id"] == line["id"]
        report = client.app.state.db.talk.reports()[0]
        assert report["table_id"] == "lobby" and report["text"].endswith("tko igra?")
