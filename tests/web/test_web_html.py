"""HTML built escape-by-default (issue 40 item 7): src/bela/web/html.js.

Statically, no module but html.js writes markup into the page (``innerHTML``, ``outerHTML``,
``insertAdjacentHTML``, ``document.write``) or escapes by hand (``esc(``); in Chromium, the
``html`` tag escapes every value in text and in attributes, keeps nested ``html`` results
as they are, joins arrays, draws nothing for null/undefined/false, and ``setHtml`` takes
nothing but its results; and the lobby draws hostile names, ids and bots as text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from web_helpers import assert_no_errors, close_pages, open_page

WEB = Path(__file__).parents[2] / "src" / "bela" / "web"
HOSTILE = ["<img src=x onerror=window.__xss=1>", "\"'><script>window.__xss=2</script>",
           "' onmouseover='window.__xss=3", "&amp; &lt;b&gt; <!-- -->"]

# what only html.js may do: markup into the page, escaping by hand
FORBIDDEN = {
    "innerHTML/outerHTML written": re.compile(r"\.(?:inner|outer)HTML\s*(?:\+?=)(?!=)"),
    "insertAdjacentHTML": re.compile(r"\binsertAdjacentHTML\s*\("),
    "document.write": re.compile(r"\bdocument\.write(?:ln)?\s*\("),
    "esc( by hand": re.compile(r"(?<![\w$.])esc\s*\("),
}


def _comment_free(src: str) -> str:
    """The module without its // and /* */ comments (a comment may name what is forbidden)."""
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"(?m)(^|[^:\\])//.*$", r"\1", src)


def _offences(src: str) -> list[str]:
    code = _comment_free(src)
    return [f"{what} (line {code.count(chr(10), 0, m.start()) + 1})"
            for what, rx in FORBIDDEN.items() for m in rx.finditer(code)]


@pytest.mark.parametrize("snippet", [
    "el.innerHTML = `<b>${name}</b>`;", "p.outerHTML = x;", "el.innerHTML += more;",
    "box.insertAdjacentHTML('beforeend', s);", "document.write(s);", "const a = esc(name);",
])
def test_the_check_sees_each_forbidden_form(snippet: str) -> None:
    assert _offences(snippet), snippet


@pytest.mark.parametrize("snippet", [
    "setHtml(el, html`<b>${name}</b>`);", "if (el.innerHTML === '') x();",
    "// el.innerHTML = s, said in a comment", "const t = desc(x); obj.esc(y);",
])
def test_the_check_lets_the_safe_forms_pass(snippet: str) -> None:
    assert not _offences(snippet), snippet


def test_only_html_js_puts_markup_in_the_page() -> None:
    """Every module builds its markup with html`...` and draws it with setHtml/replaceWith."""
    found = {p.name: _offences(p.read_text(encoding="utf-8"))
             for p in sorted(WEB.glob("*.js")) if p.name != "html.js"}
    assert {name: o for name, o in found.items() if o} == {}
    hand = re.compile(r"\bfunction esc\s*\(|\besc\s*=")
    assert not [p.name for p in WEB.glob("*.js") if hand.search(p.read_text(encoding="utf-8"))]
    assert _offences((WEB / "html.js").read_text(encoding="utf-8"))  # the one place it happens


# -- html.js in Chromium --------------------------------------------------------------------
UNIT = """async (hostile) => {
  const { html, joinHtml, setHtml, replaceWith, SafeHtml } = await import('/web/html.js');
  const box = document.createElement('div');
  document.body.append(box);
  const out = {};
  out.text = hostile.map((s) => {
    setHtml(box, html`<p>${s}</p>`);
    return { text: box.textContent, kids: box.querySelectorAll('*').length,
      markup: box.innerHTML };
  });
  out.attrs = hostile.map((s) => {
    setHtml(box, html`<a id="a" title="${s}" data-x='${s}'>${s}</a>`);
    const a = box.querySelector('#a');
    return { title: a.getAttribute('title'), x: a.getAttribute('data-x'),
      names: [...a.attributes].map((x) => x.name), kids: box.querySelectorAll('*').length };
  });
  out.nested = html`<b>${html`<i>${'<u>'}</i>`}</b>`.markup;
  out.list = html`<ul>${['a<', html`<li>b</li>`, ['c', html`<br>`]]}</ul>`.markup;
  out.empty = html`[${null}|${undefined}|${false}|${0}|${''}|${[]}]`.markup;
  out.joined = joinHtml([html`<i>1</i>`, '2<', html`<i>3</i>`], ' <&> ').markup;
  const raises = (f) => { try { f(); return null; } catch (e) { return e.constructor.name; } };
  out.stringRefused = raises(() => setHtml(box, /** @type {any} */ ('<b>x</b>')));
  out.byHand = raises(() => new SafeHtml('<b>x</b>'));
  out.asString = raises(() => `${html`<b>x</b>`}`);
  out.joinAsString = raises(() => [html`<b>x</b>`].join(''));
  setHtml(box, html`<p id="old">x</p>`);
  replaceWith(box.querySelector('#old'), html`<p id="new">${hostile[0]}</p>`);
  out.replaced = box.innerHTML;
  box.remove();
  out.xss = window.__xss ?? null;
  return out;
}"""


@pytest.fixture(scope="module")
def unit(browser: Any, bela_url: str) -> dict[str, Any]:
    ctx = browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(f"{bela_url}/html-test", lambda route: route.fulfill(
        status=200, content_type="text/html",
        body="<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>"))
    page.goto(f"{bela_url}/html-test")
    try:
        result: dict[str, Any] = page.evaluate(UNIT, HOSTILE)
        assert not errors, errors
    finally:
        ctx.close()
    return result


def test_a_value_in_text_stays_text(unit: dict[str, Any]) -> None:
    for s, got in zip(HOSTILE, unit["text"], strict=True):
        assert got["text"] == s and got["kids"] == 1, got  # the <p> alone: no img, no script
    assert unit["text"][0]["markup"] == "<p>&lt;img src=x onerror=window.__xss=1&gt;</p>"
    assert unit["xss"] is None


def test_a_value_in_an_attribute_stays_its_value(unit: dict[str, Any]) -> None:
    for s, got in zip(HOSTILE, unit["attrs"], strict=True):
        assert got == {"title": s, "x": s, "names": ["id", "title", "data-x"], "kids": 1}, got


def test_nested_templates_arrays_and_nothing(unit: dict[str, Any]) -> None:
    assert unit["nested"] == "<b><i>&lt;u&gt;</i></b>"  # kept once, not escaped again
    assert unit["list"] == "<ul>a&lt;<li>b</li>c<br></ul>"
    assert unit["empty"] == "[|||0||]"
    assert unit["joined"] == "<i>1</i> &lt;&amp;&gt; 2&lt; &lt;&amp;&gt; <i>3</i>"
    assert unit["replaced"] == "<p id=\"new\">&lt;img src=x onerror=window.__xss=1&gt;</p>"


def test_markup_comes_only_from_the_tag(unit: dict[str, Any]) -> None:
    assert unit["stringRefused"] == "TypeError"
    assert unit["byHand"] == "TypeError"
    assert unit["asString"] == "TypeError"
    assert unit["joinAsString"] == "TypeError"


# -- the lobby with hostile names ----------------------------------------------------------
def _hostile_table(tid: str, status: str, name: str) -> dict[str, Any]:
    seats = [{"seat": s, "name": name if s < 2 else None, "kind": "human" if s < 2 else None,
              "player_id": None, "connected": True, "autopilot": False} for s in range(4)]
    return {"id": tid, "variant": "bela4", "status": status, "owner": None, "rated": True,
            "options": {"target": 1001, "equal_declarations": "earlier", "tie": "fall",
                        "enforce": "on"}, "bot": name, "seq": 0, "spectators": 0,
            "seats": seats, "private": False, "invite": f"/?table={tid}", "totals": None,
            "winner": None, "bot_fallback": False}


def test_the_lobby_draws_hostile_names_as_text(browser: Any, bela_url: str) -> None:
    """Seat names, table ids and a bot's spec from the server, each a piece of markup, are
    listed as the text they are: no element, no handler, nothing run."""
    listing = [_hostile_table(HOSTILE[1], "open", HOSTILE[0]),
               _hostile_table(HOSTILE[2], "running", HOSTILE[1])]
    for tb in listing[1:]:
        for s in tb["seats"]:
            s["kind"] = s["kind"] or "bot"

    def tables(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(listing),
                      headers={"X-Total-Count": str(len(listing))})

    page = open_page(browser, bela_url, lang="hr")
    page.route(re.compile(r"/api/tables\?"), tables)
    page.reload()
    page.wait_for_selector("#table-list li[data-table]")
    page.wait_for_selector("#running-list li[data-table]")
    got = page.evaluate("""() => ({
      ids: [...document.querySelectorAll('li[data-table]')].map((e) => e.dataset.table),
      cmds: [...document.querySelectorAll('li[data-table] button')].map((e) => e.dataset.cmd),
      open: document.querySelector('#table-list li .muted').textContent,
      bot: document.querySelector('#running-list .bot-level').textContent,
      bad: document.querySelectorAll('#app img, #app script, [onerror], [onmouseover]').length,
      xss: window.__xss ?? null })""")
    assert got["ids"] == [HOSTILE[1], HOSTILE[2]]
    assert got["cmds"] == [f"open:{HOSTILE[1]}", f"open:{HOSTILE[2]}"]
    assert got["open"].startswith(f"{HOSTILE[0]}, {HOSTILE[0]}, ")
    assert got["bot"] == HOSTILE[1]
    assert got["bad"] == 0 and got["xss"] is None
    assert_no_errors(page)
    close_pages(page)
