"""The web client's files: served by the app, packaged, modules that resolve, complete texts,
and no rule of play worked out in the browser (issue 9: the engine explains, every front end
shows).

These run without a browser (the Chromium tests are in test_web_game.py).
"""

from __future__ import annotations

import re
import tomllib
import warnings
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from web_helpers import texts as ui_texts  # noqa: E402

from bela.server.app import create_app  # noqa: E402

ROOT = Path(__file__).parents[2]
WEB = ROOT / "src" / "bela" / "web"
IMPORT = re.compile(r"""^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\./[^"']+)["']""", re.M | re.S)


def test_index_and_every_web_file_are_served(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'bela.db'}")
    with TestClient(app) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert '<script type="module" src="/web/app.js">' in page.text
        assert 'href="/web/style.css"' in page.text
        assert client.get("/?table=abc").status_code == 200  # invite links open the UI
        types = {".js": "javascript", ".css": "text/css", ".svg": "image/svg+xml",
                 ".html": "text/html"}
        for f in sorted(WEB.iterdir()):
            if f.suffix not in types:
                continue
            r = client.get(f"/web/{f.name}")
            assert r.status_code == 200, f.name
            assert types[f.suffix] in r.headers["content-type"], (f.name, r.headers)
            assert r.content == f.read_bytes()
        assert client.get("/web/nothing.js").status_code == 404
        assert client.get("/web/../server/app.py").status_code == 404


def test_modules_import_only_existing_files() -> None:
    for f in WEB.glob("*.js"):
        for target in IMPORT.findall(f.read_text(encoding="utf-8")):
            assert (WEB / target).is_file(), f"{f.name} imports missing {target}"


def test_web_files_are_package_data() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["bela"]
    for f in WEB.iterdir():
        rel = f"web/{f.name}"
        assert any(Path(rel).match(p) or p == "web/**/*" for p in patterns), rel


def _texts(lang: str) -> dict[str, str]:
    return ui_texts(lang)


def test_croatian_and_english_texts_are_complete() -> None:
    hr, en = _texts("hr"), _texts("en")
    assert len(hr) > 150
    assert set(hr) == set(en), set(hr) ^ set(en)
    for key in hr:  # the same placeholders in both languages
        assert set(re.findall(r"\{\w+\}", hr[key])) == set(re.findall(r"\{\w+\}", en[key])), key
    used = set()
    for f in WEB.glob("*.js"):
        if f.name != "i18n.js":  # literal keys only: t("key") and t("key", {...})
            text = f.read_text(encoding="utf-8")
            used |= set(re.findall(r"""\bt\(\s*["'](\w+)["']\s*[,)]""", text))
    assert used, "no t() calls found"
    missing = used - set(hr)
    assert not missing, missing
    # keys built at run time: variants, options, bots, outcomes, suits, ranks
    for prefix in ("variant_", "vname_"):
        for v in ("bela4", "bela3", "bela2", "belot2"):
            assert prefix + v in hr
    for key in ("bot_random", "bot_heuristic", "bot_pimc", "bot_ismcts", "opt_tie_hang",
                "opt_enforce_off", "opt_equal_declarations_cancel", "suit_D_hu", "suit_C_fr",
                "rank_J_hu", "rank_T"):
        assert key in hr, key
    for outcome in ("pass", "fall", "capot", "belot", "claim", "hang", "redeal", "raspas",
                    "unfinished"):
        assert f"outcome_{outcome}" in hr


def test_refusals_and_statuses_have_words() -> None:
    """The server's refusals the client says in its own words (app.js FRIENDLY_ERRORS:
    creator-only actions, private tables, the limits) and every table status (the lobby's
    tag; ``closed`` too) have texts in both languages."""
    from bela.server.model import TableStatus

    hr, en = _texts("hr"), _texts("en")
    app = (WEB / "app.js").read_text(encoding="utf-8")
    block = re.search(r"const FRIENDLY_ERRORS = \[(.*?)\];", app, re.S)
    assert block
    codes = set(re.findall(r'"(\w+)"', block.group(1)))
    assert codes >= {"not_owner", "invite_required", "too_many_tables", "rate_limited",
                     "has_players", "table_moving", "cluster"}, codes
    for code in codes:
        assert f"err_{code}" in hr and f"err_{code}" in en, code
    assert "{n}" in hr["err_rate_limited_in"] and "{n}" in en["err_rate_limited_in"]
    for status in TableStatus:
        assert f"status_{status.value}" in hr and f"status_{status.value}" in en, status
    assert hr["status_closed"] == "zatvoren" and en["status_closed"] == "closed"
    assert "only_members_start" not in hr  # only the creator adds bots and starts
    assert "samo s pozivnicom" in hr["private_table"]


def test_counted_and_built_keys_exist() -> None:
    """Counted texts (tn) have every plural form; declaration words exist for every shape;
    no text names a repository file or writes the ten as T."""
    hr, en = _texts("hr"), _texts("en")
    counted = set()
    for f in WEB.glob("*.js"):
        counted |= set(re.findall(r"""\btn\(\s*["'](\w+)["']""", f.read_text(encoding="utf-8")))
    assert "tricks" in counted
    for key in counted:
        for form in ("one", "few", "other"):
            assert f"{key}_{form}" in hr and f"{key}_{form}" in en, (key, form)
    assert (hr["tricks_one"], hr["tricks_few"], hr["tricks_other"]) == (
        "{n} štih", "{n} štiha", "{n} štihova")
    for rank in "9TJQKA":
        assert f"decl_top_{rank}" in hr, rank
    for rank in "J9ATKQ":
        assert f"decl_four_{rank}" in hr, rank
    for key in ("decl_seq_3", "decl_seq_4", "decl_seq_5", "decl_seq_n", "decl_belot",
                "exchange_swap_turned", "exchange_swap_opened", "exchange_redeal", "exchange_both",
                "exchange_none", "exchange_none_redeal", "swap_turned", "swap_opened",
                "claim_right", "claim_wrong", "claim_right_me", "claim_wrong_me",
                "swapped_me", "redealt_me", "caller_me", "you_won", "you_lost"):
        assert key in hr, key
    assert hr["round_n"].startswith("Dijeljenje") and hr["match_over"] == "Kraj partije"
    assert "novo dijeljenje" not in hr["exchange_swap_turned"]
    for lang, texts in (("hr", hr), ("en", en)):
        for key, text in texts.items():
            assert ".md" not in text, (lang, key, text)
            assert not re.search(r"(^|[^\w])T($|[^\w])", text), (lang, key, text)


# -- issue 9: the engine explains, every front end shows ----------------------------------
# The browser never works out a rule of play: the view carries `legal`, `refusals` (each
# refused card with its rule, duty and words) and `trick_winner`.  These patterns find a
# copy of the engine's tables or duty logic in any web file (rules.js drifted twice).
RANK_PERMUTATION = re.compile(r"""["'`]([789TJQKA]{8})["'`]""")
ORDER_WRITTEN = re.compile(  # the trump order J 9 A 10 K Q, the plain one A 10 K Q J 9
    r"\bJ[\s,'\"]*9[\s,'\"]*A[\s,'\"]*(?:10|T)\b"
    r"|\bA[\s,'\"]*(?:10|T)[\s,'\"]*K[\s,'\"]*Q[\s,'\"]*J[\s,'\"]*9\b")
EIGHT_NUMBERS = re.compile(r"\[\s*-?\d+(?:\s*,\s*-?\d+){7}\s*\]")  # a value per rank
POINTS_BY_RANK = re.compile(r"""(?:\b|["'])(?:J["']?\s*:\s*20|9["']?\s*:\s*14)\b""")
DUTY_NAMES = re.compile(
    r"\b(?:illegalReason|trickWinner\w*|trick_winner_index|TRUMP_ORDER|PLAIN_ORDER"
    r"|TRUMP_POINTS|PLAIN_POINTS|mustFollow|canBeat)\b"
    r"|\bfunction\s+(?:beats|order|points|duties|strength)\b"
    r"|\btrick\s*\[\s*0\s*\]")  # the led suit read off the trick: the duties' first step


def rule_derivations(text: str) -> list[str]:
    """What in a web file looks like a copy of the engine's orders, points or duties."""
    found = [m.group(0) for m in RANK_PERMUTATION.finditer(text)
             if len(set(m.group(1))) == 8 and m.group(1) not in ("789TJQKA", "AKQJT987")]
    for pattern in (ORDER_WRITTEN, EIGHT_NUMBERS, POINTS_BY_RANK, DUTY_NAMES):
        found += [m.group(0) for m in pattern.finditer(text)]
    return found


# Lines of the rules.js the browser had (issue 9): the check must find each of them.
OLD_RULES_JS = [
    "const TRUMP_ORDER = [0, 1, 6, 4, 7, 2, 3, 5];",
    "// R2: J 9 A 10 K Q 8 7",
    "const PLAIN_POINTS = [0, 0, 0, 10, 2, 3, 4, 11];",
    "const TRUMP_POINTS = { J: 20, 9: 14, A: 11 };",
    'const STRENGTH = "789QKTAJ";',
    "// R3: A 10 K Q J 9 8 7",
    "const lead = suitOf(trick[0].card);",
    "export function beats(b, a, contract) {",
    "const win = trick[trickWinnerIndex(trick, contract)].card;",
    "const why = illegalReason(c, v);",
]


def test_the_rule_check_finds_the_old_copies() -> None:
    for line in OLD_RULES_JS:
        assert rule_derivations(line), line
    # display only is fine: the face order of the cards, suit grouping, the ★ of a trump
    assert not rule_derivations('export const RANKS = "789TJQKA"; // A K Q J 10 9 8 7')


def test_no_web_file_works_out_a_rule_of_play() -> None:
    """No JS file of the client copies the card orders or points or the play duties; the
    greyed cards, their reasons and the trick's winner are read from the view."""
    files = sorted(WEB.glob("*.js"))
    assert files
    for f in files:
        found = rule_derivations(f.read_text(encoding="utf-8"))
        assert not found, f"{f.name} works out rules the engine explains: {found}"
    assert not (WEB / "rules.js").exists(), "rules.js is gone: the view explains the rules"
    table = (WEB / "table.js").read_text(encoding="utf-8")
    app = (WEB / "app.js").read_text(encoding="utf-8")
    assert "v.refusals" in table and "v.trick_winner" in table
    assert "refusalOf(v, code)" in app  # a tapped greyed card: the engine's reason


def test_every_refusal_kind_has_words() -> None:
    """Each duty the engine names in a refusal (kind) is said in words by the client, in
    both languages."""
    explain = (ROOT / "src" / "bela" / "engine" / "explain.py").read_text(encoding="utf-8")
    kinds = set(re.findall(r'Refusal\(card, (?:"R\d+"|rule), "(\w+)"', explain))
    assert kinds >= {"follow", "beat", "trump", "overtrump"}, kinds
    table = (WEB / "table.js").read_text(encoding="utf-8")
    block = re.search(r"const REASON_KEYS = \{(.*?)\};", table, re.S)
    assert block
    keys = dict(re.findall(r'(\w+): "(\w+)"', block.group(1)))
    assert set(keys) == kinds, (keys, kinds)
    hr, en = _texts("hr"), _texts("en")
    for key in [*keys.values(), "reason_other", "would_break", "revoke_played"]:
        assert key in hr and key in en, key


# -- issue 40: variant facts come from the server -------------------------------------------
# The browser never tells variants apart by their names: GET /api/variants and the table
# summaries' `facts` carry the sides, partners, the face-up card's name, the exchange, ...
# A variant's name may travel as data (an id sent back, an i18n key built from it), never as
# a literal: no comparison with it, no object key of it, no list of the variants.
def variant_literals(text: str) -> list[str]:
    """The variant names written as literals (strings or object keys) in ``text``; its
    comments may name them."""
    from bela.engine.variants import VARIANTS

    names = "|".join(map(re.escape, VARIANTS))
    text = re.sub(r"/\*.*?\*/|<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"(^|\s)//.*", r"\1", text)
    quoted = re.findall(rf"""["'`]({names})["'`]""", text)
    keys = re.findall(rf"""(?<![\w$.])({names})\s*:(?!\s*//)""", text)
    return quoted + keys


OLD_VARIANT_JS = [
    'const sides = view ? view.sides : (summary && summary.variant === "bela4" ? 2 : n);',
    "if (tok === 'swap') return t(view.variant === 'belot2' ? 'swap_opened' : 'swap');",
    'export const VARIANTS = ["bela4", "bela3", "bela2", "belot2"];',
    "const SIDES = { bela4: 2, bela3: 3 };",
    'const SEATS = { "bela2": 2 };',
    "switch (v.variant) { case `bela3`: break; }",
    'const lv = S.createVariant || "bela4";',
]


def test_the_variant_check_finds_the_old_branches() -> None:
    for line in OLD_VARIANT_JS:
        assert variant_literals(line), line
    # data and per-variant prose are fine: a key built from the id, a text naming it
    assert not variant_literals('t("vname_" + v.id); const k = `variant_${id}`;')
    assert not variant_literals('  vname_bela4: "Bela u četvero",')
    assert not variant_literals("const f = x; // the winner is a side (bela4: a pair's)")


def test_the_browser_compares_no_variant_name() -> None:
    """No web file of the client compares a variant's name or keys anything by it: what a
    variant is comes from the server (GET /api/variants, the summary's ``facts``)."""
    files = sorted([*WEB.glob("*.js"), *WEB.glob("*.html"), *WEB.glob("**/*.json")])
    assert any(f.name == "table.js" for f in files)
    for f in files:
        found = variant_literals(f.read_text(encoding="utf-8"))
        assert not found, f"{f.name} names variants: {found}"
