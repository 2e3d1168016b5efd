// @ts-check
// The tournaments' pages (/tournaments, issue 41; REST API: docs/TOURNAMENTS.md):
//   /tournaments              the upcoming, running and finished tournaments, the player's
//                             own (with "your table is ready") and the form of a new one;
//   /tournaments?id=ID        a tournament: registration, the director's controls, entries,
//                             rounds and tables, standings, bracket, boards, print, export;
//   /tournaments?id=ID&screen=1   the projector view (pairings, clock, standings).
// ?code= carries a private tournament's invite code; ?refresh=<seconds> how often the page
// asks again (as the lobby's).  The drawing of a tournament is tournament-view.js'.

import { LANGS, setLang, t, tn } from "./i18n.js";
import { loadPrefs, savePrefs } from "./prefs.js";
import { api, apiPage, checkGuest, newGuest, POLL_TIMEOUT_MS, storedGuest } from "./api.js";
import { html, setHtml } from "./html.js";
import { botName } from "./profile.js";
import { defaultVariant, variantFacts } from "./variants.js";
import {
  currentRound, formatName, myEntry, myGame, playsInPairs, renderBoards, renderBracket, renderEntries,
  renderRounds, renderScreen, renderSheets, renderStandings, stageName, tournamentHref, tournamentStatusTag, whenText,
} from "./tournament-view.js";

const FORMATS = ["swiss", "knockout", "round_robin", "duplicate"]; // docs/TOURNAMENTS.md
const ROUNDED = ["swiss", "duplicate"]; // the formats whose rounds the director sets
const LISTS = ["upcoming", "running", "finished"];
const CLOCKS = [null, 30, 60, 120];
const REFRESH_S = 4; // the page asks again this often (seconds) ...
const REFRESH_RANGE = [0.2, 60]; // ... or as ?refresh= says, within these
const LIST_LIMIT = 50;
// refusals said in the page's words (i18n "terr_<code>"); others show the server's message
const FRIENDLY = ["not_registering", "already_entered", "not_invited", "not_seeking", "already_started",
  "not_running", "not_paused", "too_few_entries", "odd_pair", "tournament_over", "not_director",
  "invite_required", "unknown_tournament", "unknown_player", "unknown_entry", "not_entered", "no_pairs",
  "next_round_paired", "not_finished"];

const params = new URLSearchParams(location.search);

/** The page's state: one object, drawn by render(). */
const T = {
  prefs: loadPrefs(),
  guest: storedGuest(),
  variants: null,
  id: params.get("id"),
  code: params.get("code"),
  screen: params.has("screen") && params.get("screen") !== "0",
  tour: null, // the tournament object
  tourError: null,
  tourText: "", // its JSON: a poll that brings nothing new draws nothing
  asked: 0, // requests for the tournament sent (polls and changes), numbered
  shown: 0, // the number of the request whose answer is drawn
  lists: { upcoming: null, running: null, finished: null },
  mine: [], // GET /api/tournaments/mine
  msg: null, // {text, kind}
  createVariant: null,
  createFormat: "swiss",
  fixing: "", // the game ("round:table") whose result the director is correcting
};
Object.defineProperty(window, "__tournaments", { value: T }); // for the browser tests

function refreshMs() {
  const asked = Number(params.get("refresh"));
  const [low, high] = REFRESH_RANGE;
  return 1000 * (Number.isFinite(asked) && asked > 0 ? Math.min(high, Math.max(low, asked)) : REFRESH_S);
}

function errorText(e) {
  if (e && e.code === "rate_limited" && e.retryAfter > 0) return t("err_rate_limited_in", { n: e.retryAfter });
  if (e && FRIENDLY.includes(e.code)) return t("terr_" + e.code);
  return (e && e.message) || String(e);
}

const root = () => document.getElementById("t-app");
const me = () => (T.guest ? T.guest.player_id : null);
const facts = (variant) => variantFacts(T.variants, variant);

// -- drawing ------------------------------------------------------------------------------
function renderHeader() {
  const h = document.getElementById("header");
  setHtml(h, html`<a class="brand" href="/"><span>${t("title")}</span></a>
    <nav class="site-nav"><a href="/">${t("lobby")}</a><a href="/tournaments"${T.id ? "" : html` aria-current="page"`}>${t("t_title")}</a></nav>
    <div class="prefs">${T.guest ? html`<span class="who-am-i">${t("play_as", { name: T.guest.name })}</span>` : ""}
      <label>${t("lang")} <select id="lang-select" data-pref="lang">${LANGS.map((l) =>
        html`<option value="${l}" ${l === T.prefs.lang ? "selected" : ""}>${l.toUpperCase()}</option>`)}</select></label></div>`);
  document.title = `${T.tour ? T.tour.name : t("t_title")} – ${t("title")}`;
}

function render() {
  const el = root();
  const focused = document.activeElement && document.activeElement !== document.body && el.contains(document.activeElement)
    ? focusKey(/** @type {HTMLElement} */ (document.activeElement)) : null;
  const inputs = saveInputs(el);
  document.body.classList.toggle("t-screen-body", T.screen && !!T.id);
  if (T.id && T.screen) setHtml(el, T.tour ? renderScreen(T.tour) : loadingPage());
  else if (T.id) setHtml(el, renderTournamentPage());
  else setHtml(el, renderListPage());
  restoreInputs(el, inputs);
  if (focused) /** @type {HTMLElement | null} */ (el.querySelector(focused))?.focus({ preventScroll: true });
}

function focusKey(node) {
  if (node.dataset.cmd) return `[data-cmd="${CSS.escape(node.dataset.cmd)}"]`;
  if (node.id) return `#${CSS.escape(node.id)}`;
  if (node.getAttribute("name")) return `[name="${CSS.escape(node.getAttribute("name"))}"]`;
  return null;
}

function saveInputs(el) {
  const out = {};
  el.querySelectorAll("input[name], select[name]").forEach((i) => {
    out[i.name] = i.type === "checkbox" ? i.checked : i.value;
  });
  return out;
}

function restoreInputs(el, saved) {
  el.querySelectorAll("input[name], select[name]").forEach((i) => {
    if (!(i.name in saved) || i.dataset.fresh) return;
    if (i.type === "checkbox") i.checked = saved[i.name];
    else i.value = saved[i.name];
  });
}

function loadingPage() {
  return html`<div class="t-page"><section class="panel">${T.tourError
    ? html`<p class="table-error" role="alert">${T.tourError}</p><p><a href="/tournaments">${t("t_all")}</a></p>`
    : html`<p class="muted">${t("loading")}</p>`}</section></div>`;
}

function msgLine() {
  return html`<p id="t-msg" class="lobby-msg${T.msg && T.msg.kind ? " " + T.msg.kind : ""}" role="status" aria-live="polite">${T.msg ? T.msg.text : ""}</p>`;
}

function nameForm() {
  return html`<form class="name-form" data-form="guest"><label>${t("your_name")} <input name="name" id="guest-name" maxlength="40" required
    autocomplete="nickname" placeholder="${t("name_placeholder")}"></label>
    <button class="btn primary" id="guest-save">${t("continue")}</button><p class="muted small-note">${t("t_need_name")}</p></form>`;
}

/** The player's tournaments not over, each with the table he is to sit at now. */
function renderMine() {
  if (!T.mine.length) return "";
  return html`<section class="panel t-mine" id="t-mine"><h2>${t("t_mine")}</h2><ul class="table-list">${T.mine.map((m) => {
    const no = T.tour && T.tour.id === m.id ? tableNoOf(T.tour, m.table) : null;
    return html`<li data-tournament="${m.id}"><div><a href="${tournamentHref(m.id)}"><b>${m.name}</b></a> ${tournamentStatusTag(m.status)}
      ${m.table ? html`<div class="your-table" role="alert">${no ? t("t_your_table_n", { n: no }) : t("t_your_table")}</div>` : ""}</div>
      ${m.link ? html`<a class="btn small primary" href="${m.link}" data-your-table="${m.table}">${t("t_play")}</a>` : ""}</li>`;
  })}</ul></section>`;
}

function tableNoOf(tour, tableId) {
  for (const r of tour.rounds || []) for (const g of r.games) if (g.table === tableId) return g.table_no;
  return null;
}

// -- the list page ------------------------------------------------------------------------
function renderListPage() {
  return html`<div class="t-page t-list-page">
    ${T.guest ? "" : html`<section class="panel" id="guest-panel"><h2>${t("player")}</h2>${nameForm()}</section>`}
    ${renderMine()}
    ${LISTS.map((kind) => html`<section class="panel t-list" id="t-list-${kind}" data-list="${kind}"><h2>${t("t_list_" + kind)}</h2>${renderList(kind)}</section>`)}
    <section class="panel" id="t-create-panel"><h2>${t("t_new")}</h2>${T.guest ? renderCreateForm() : html`<p class="muted">${t("t_need_name")}</p>`}</section>
    ${T.guest && T.variants ? html`<section class="panel" id="t-practice-panel"><h2>${t("t_practice")}</h2>${renderPracticeForm()}</section>` : ""}
    ${msgLine()}
  </div>`;
}

/** A practice duplicate against bots (POST /api/tournaments/practice): the variant, the
 *  number of boards, the bots' level. */
function renderPracticeForm() {
  const levels = (T.variants && T.variants.levels) || [];
  return html`<form class="row t-practice-form" data-form="practice">
    <p class="muted form-help">${t("t_practice_help")}</p>
    <label>${t("variant")} <select name="variant" id="t-practice-variant">${T.variants.variants.map((v) =>
      html`<option value="${v.id}">${t("variant_" + v.id)}</option>`)}</select></label>
    <label>${t("t_boards")} <input type="number" name="boards" id="t-practice-boards" min="1" max="32" value="8"></label>
    ${levels.length ? html`<label>${t("t_bot_level")} <select name="level" id="t-practice-level">${levels.map((l) =>
      html`<option value="${l.name}">${botName(l.name)}</option>`)}</select></label>` : ""}
    <button class="btn" id="t-practice">${t("t_practice_start")}</button>
    <p class="form-msg" id="t-practice-msg" role="alert"></p></form>`;
}

function renderList(kind) {
  const items = T.lists[kind];
  if (!items) return html`<p class="muted">${t("loading")}</p>`;
  if (!items.length) return html`<p class="muted">${t("t_none_" + kind)}</p>`;
  return html`<ul class="table-list">${items.map((x) => html`<li data-tournament="${x.id}"><div>
    <a href="${tournamentHref(x.id)}" class="t-name"><b>${x.name}</b></a> ${tournamentStatusTag(x.status)}${x.rated ? html` <span class="tag rated">${t("rated_tag")}</span>` : ""}
    <div class="muted">${t("vname_" + x.variant)} · ${formatName(x.format)} · ${t("t_entries_n", { n: x.entries })}${
      x.round ? html` · ${x.rounds ? t("t_round_of", { n: x.round, of: x.rounds }) : t("t_round_n", { n: x.round })}` : ""}${x.starts_at ? html` · ${whenText(x.starts_at)}` : ""}</div></div>
    <a class="btn small" href="${tournamentHref(x.id)}">${t("t_open")}</a></li>`)}</ul>`;
}

function range(name, fallback) {
  const r = T.variants && T.variants.ranges && T.variants.ranges[name];
  return Array.isArray(r) && r.length === 2 ? r : fallback;
}

function clockLabel(c) {
  if (c === null) return t("clock_none");
  return c % 60 === 0 && c >= 120 ? t("clock_minutes", { n: c / 60 }) : t("clock_seconds", { n: c });
}

/** The new tournament's form: every setting of POST /api/tournaments; the variant's options
 *  and target range come from GET /api/variants; fields of other formats are hidden. */
function renderCreateForm() {
  if (!T.variants) return html`<p class="muted">${t("connecting")}</p>`;
  const variant = T.createVariant || defaultVariant(T.variants);
  const info = facts(variant);
  const fmt = T.createFormat;
  const { choices } = T.variants;
  const opts = info.options.filter((o) => Object.hasOwn(choices, o)).map((o) => html`<label>${t("opt_" + o)} <select name="opt_${o}" id="t-opt-${o}" data-fresh="1">${
    choices[o].map((x) => html`<option value="${x}" ${info.defaults[o] === x ? "selected" : ""}>${t(`opt_${o}_${x}`)}</option>`)}</select></label>`);
  const [tmin, tmax] = range("target", [1, 5001]);
  const [cmin, cmax] = range("turn_clock", [15, 600]);
  const clocks = CLOCKS.filter((c) => c === null || (c >= cmin && c <= cmax));
  const only = (formats) => (formats.includes(fmt) ? "" : html` hidden`);
  return html`<form class="create-form t-create-form" data-form="create">
    <label>${t("t_name")} <input name="name" id="t-name" maxlength="80" required></label>
    <label>${t("variant")} <select name="variant" id="t-variant" data-fresh="1">${T.variants.variants.map((v) =>
      html`<option value="${v.id}" ${v.id === variant ? "selected" : ""}>${t("variant_" + v.id)}</option>`)}</select></label>
    <p class="muted form-help" id="t-entry-kind">${t(playsInPairs(info) ? "t_entries_pairs" : "t_entries_single")}</p>
    <label>${t("t_format")} <select name="format" id="t-format" data-fresh="1">${FORMATS.map((f) =>
      html`<option value="${f}" ${f === fmt ? "selected" : ""}>${formatName(f)}</option>`)}</select></label>
    <label${only(ROUNDED)}>${t("t_rounds")} <input type="number" name="rounds" id="t-rounds" min="1" max="30" value="5"></label>
    <label${fmt === "duplicate" ? html` hidden` : ""}>${t("target")} <input type="number" name="target" id="t-target" min="${tmin}" max="${tmax}" step="1" value="${info.defaults.target}" data-fresh="1"></label>
    <label${only(["duplicate"])}>${t("t_boards")} <input type="number" name="boards" id="t-boards" min="1" max="32" value="4"></label>
    <label${only(["knockout"])}>${t("t_best_of")} <select name="best_of" id="t-best-of"><option value="1">1</option><option value="3">3</option></select></label>
    <label${only(["round_robin"])}>${t("t_groups")} <input type="number" name="groups" id="t-groups" min="1" max="16" value="1"></label>
    <label class="check"${only(["round_robin"])}><input type="checkbox" name="knockout_after" id="t-knockout-after"> ${t("t_knockout_after")}</label>
    ${opts.length ? html`<fieldset><legend>${t("house_rules")}</legend>${opts}</fieldset>` : ""}
    <label>${t("turn_clock")} <select name="turn_clock" id="t-clock">${clocks.map((c) =>
      html`<option value="${c ?? ""}" ${c === 60 ? "selected" : ""}>${clockLabel(c)}</option>`)}</select></label>
    <label>${t("t_starts_at")} <input type="datetime-local" name="starts_at" id="t-starts-at"></label>
    <label>${t("t_no_show")} <input type="number" name="no_show" id="t-no-show" min="30" max="3600" value="300"></label>
    <label class="check"><input type="checkbox" name="no_show_bot" id="t-no-show-bot"> ${t("t_no_show_bot")}</label>
    <label>${t("t_round_break")} <input type="number" name="round_break" id="t-round-break" min="0" max="3600" value="0"></label>
    <label class="check"><input type="checkbox" name="checkin" id="t-checkin"> ${t("t_checkin_setting")}</label>
    <label class="check"${only(["swiss", "knockout", "round_robin"])}><input type="checkbox" name="real_cards" id="t-real-cards"> ${t("t_real_cards")}</label>
    <label class="check"><input type="checkbox" name="rated" id="t-rated" checked> ${t("t_rated")}</label>
    <label class="check"><input type="checkbox" name="private" id="t-private"> ${t("t_private")}</label>
    <button class="btn primary" id="t-create">${t("t_create")}</button>
    <p class="form-msg" id="t-create-msg" role="alert"></p>
  </form>`;
}

function createBody(data) {
  const variant = String(data.get("variant"));
  const info = facts(variant);
  const format = String(data.get("format"));
  const num = (name, fallback) => {
    const n = Number(data.get(name));
    return Number.isInteger(n) ? n : fallback;
  };
  const options = {};
  if (format !== "duplicate") options.target = num("target", info.defaults.target);
  for (const o of info.options) if (Object.hasOwn(T.variants.choices, o) && data.get("opt_" + o)) options[o] = String(data.get("opt_" + o));
  const clock = Number(data.get("turn_clock"));
  const starts = String(data.get("starts_at") || "");
  const when = starts ? new Date(starts) : null;
  return {
    name: String(data.get("name") || "").trim(), variant, format,
    rounds: ROUNDED.includes(format) ? num("rounds", 1) : 0, options,
    boards: format === "duplicate" ? num("boards", 1) : 0,
    best_of: format === "knockout" ? num("best_of", 1) : 1,
    groups: format === "round_robin" ? num("groups", 1) : 1,
    knockout_after: format === "round_robin" && !!data.get("knockout_after"),
    turn_clock: Number.isInteger(clock) && clock > 0 ? clock : null,
    rated: !!data.get("rated"), private: !!data.get("private"),
    starts_at: when && !Number.isNaN(when.getTime()) ? when.toISOString() : null,
    checkin: !!data.get("checkin"), no_show: num("no_show", 300), no_show_bot: !!data.get("no_show_bot"),
    round_break: num("round_break", 0),
    real_cards: format !== "duplicate" && !!data.get("real_cards"),
  };
}

// -- a tournament's page ------------------------------------------------------------------
function renderTournamentPage() {
  const tour = T.tour;
  if (!tour) return loadingPage();
  const director = !!(T.guest && tour.director.player_id === T.guest.player_id);
  const started = !["registering", "closed", "cancelled"].includes(tour.status);
  const bracket = renderBracket(tour);
  const boards = renderBoards(tour, me());
  const code = tour.invite_code || T.code;
  const exp = (ext) => `/api/tournaments/${encodeURIComponent(tour.id)}/export.${ext}${code ? `?code=${encodeURIComponent(code)}` : ""}`;
  return html`<div class="t-page t-one" data-tournament="${tour.id}" data-status="${tour.status}">
    ${renderHead(tour)}
    ${renderYourTable(tour)}
    <section class="panel t-me" id="t-me"><h2>${t("t_you")}</h2>${T.guest ? renderMyActions(tour) : nameForm()}</section>
    ${director && !["finished", "cancelled"].includes(tour.status) ? html`<section class="panel t-director" id="t-director"><h2>${t("t_director_panel")}</h2>${renderDirector(tour)}</section>` : ""}
    ${started ? html`<section class="panel t-section t-pairings" id="t-rounds"><h2>${t("t_rounds_title")}
      <span class="row no-print"><button class="btn small" data-cmd="print:pairings" id="print-pairings">${t("t_print_pairings")}</button>
        <button class="btn small" data-cmd="print:sheets" id="print-sheets">${t("t_print_sheets")}</button></span></h2>${renderRounds(tour, me(), T.fixing)}</section>` : ""}
    ${bracket ? html`<section class="panel t-section t-bracket" id="t-bracket"><h2>${t("t_bracket")}</h2>${bracket}</section>` : ""}
    ${started ? html`<section class="panel t-section t-standings" id="t-standings"><h2>${t(tour.status === "finished" ? "t_final_standings" : "t_standings")}
      <button class="btn small no-print" data-cmd="print:standings" id="print-standings">${t("t_print_standings")}</button></h2>${renderStandings(tour)}</section>` : ""}
    ${boards ? html`<section class="panel t-section t-boards-panel" id="t-boards"><h2>${t("t_boards_title")}</h2>${boards}</section>` : ""}
    <section class="panel t-section t-entries" id="t-entries"><h2>${t("t_entries")}</h2>${renderEntries(tour, { director, me: me() })}</section>
    <section class="panel no-print t-links"><p class="row"><a class="btn small" href="${tournamentHref(tour.id, { screen: true, code })}" id="t-screen-link" target="_blank">${t("t_screen")}</a>
      <a class="btn small" href="${exp("csv")}" id="t-export-csv" download>${t("t_export_csv")}</a>
      <a class="btn small" href="${exp("json")}" id="t-export-json" download>${t("t_export_json")}</a>
      <a class="btn small ghost" href="/tournaments">${t("t_all")}</a></p></section>
    <div class="score-sheets" id="t-sheets">${renderSheets(tour)}</div>
    ${msgLine()}
  </div>`;
}

function renderHead(tour) {
  const s = tour.settings;
  const rnd = currentRound(tour);
  const bits = [
    html`${t("vname_" + tour.variant)}`, formatName(tour.format),
    s.rounds ? tn("t_rounds_n", s.rounds) : null,
    tour.format === "duplicate" ? tn("t_boards_n", s.boards) : s.options && s.options.target ? t("target_short", { n: s.options.target }) : null,
    tour.format === "knockout" ? t("t_best_of_n", { n: s.best_of }) : null,
    tour.format === "round_robin" && s.groups > 1 ? t("t_groups_n", { n: s.groups }) : null,
    s.knockout_after ? t("t_knockout_after") : null,
    t("turn_clock") + ": " + clockLabel(s.turn_clock ?? null),
    s.rated ? t("rated_tag") : t("unrated_tag"),
    s.private ? t("t_private_tag") : null,
    s.checkin ? t("t_checkin_tag") : null,
    t("t_no_show_n", { n: s.no_show }) + (s.no_show_bot ? ` (${t("t_no_show_bot_short")})` : ""),
    s.round_break ? t("t_round_break_n", { n: s.round_break }) : null,
  ].filter(Boolean);
  return html`<section class="panel t-head" id="t-head"><h2><span class="t-title" id="t-title">${tour.name}</span> ${tournamentStatusTag(tour.status)}</h2>
    <p class="t-facts">${bits.map((f) => html`<span>${f}</span>`)}</p>
    <p class="muted">${t("t_director")}: <b>${tour.director.name}</b>${s.starts_at ? html` · ${t("t_starts")}: ${whenText(s.starts_at)}` : ""}${
      rnd ? html` · ${t("t_round_n", { n: rnd.round })}${s.rounds ? html` / ${s.rounds}` : ""} (${stageName(rnd.stage)})` : ""}</p>
    ${tour.invite_code ? html`<p class="invite">${t("t_invite")}: <input readonly id="t-invite" value="${new URL(tournamentHref(tour.id, { code: tour.invite_code }), location.href).href}"></p>` : ""}
  </section>`;
}

/** "Your table is ready: Stol 3", from the player's live feed. */
function renderYourTable(tour) {
  const m = T.mine.find((x) => x.id === tour.id && x.table);
  const g = m ? null : myGame(tour, me());
  const table = m ? m.table : g && g.status === "playing" ? g.table : null;
  if (!table) return "";
  const no = tableNoOf(tour, table);
  return html`<section class="panel your-table-panel" id="your-table" role="alert"><p><b>${no ? t("t_your_table_n", { n: no }) : t("t_your_table")}</b>
    <a class="btn primary" href="/?table=${encodeURIComponent(table)}" id="your-table-link">${t("t_play")}</a></p></section>`;
}

function renderMyActions(tour) {
  const mine = myEntry(tour, me());
  const open = tour.status === "registering";
  const before = open || tour.status === "closed";
  const pairs = playsInPairs(facts(tour.variant));
  const out = [];
  if (mine) {
    out.push(html`<p id="t-my-entry" data-status="${mine.status}">${t("t_my_entry", { name: mine.name })} ${tournamentEntryTag(mine.status)}</p>`);
    const partner = mine.players[1];
    if (mine.status === "invited" && partner && partner.player_id === me()) {
      out.push(html`<p>${t("t_invited_by", { name: mine.players[0].name })}</p>
        <p class="row"><button class="btn primary" data-cmd="accept:${mine.id}" id="t-accept">${t("t_accept")}</button>
        <button class="btn" data-cmd="withdraw" id="t-decline">${t("t_decline")}</button></p>`);
    } else if (before) {
      if (mine.status === "invited") out.push(html`<p class="muted">${t("t_waiting_partner")}</p>`);
      if (mine.status === "seeking") out.push(html`<p class="muted">${t("t_seeking_note")}</p>`);
      out.push(html`<p class="row"><button class="btn warn" data-cmd="withdraw" id="t-withdraw">${t("t_withdraw")}</button></p>`);
    }
    if (before && tour.settings.checkin && !mine.checked_in) {
      out.push(html`<p class="row"><button class="btn primary" data-cmd="checkin" id="t-checkin-btn">${t("t_checkin")}</button></p>`);
    }
  } else if (open) {
    out.push(html`<p class="muted">${t(pairs ? "t_register_pair_note" : "t_register_note")}</p>`);
    if (pairs) {
      out.push(html`<form class="name-form" data-form="register"><label>${t("t_partner")} <input name="partner" id="t-partner" maxlength="32"
          placeholder="${t("t_partner_placeholder")}" autocomplete="off"></label>
        <p class="row"><button class="btn primary" id="t-register">${t("t_invite_partner")}</button>
        <button type="button" class="btn" data-cmd="seek" id="t-seek">${t("t_seek")}</button></p></form>
        <p class="muted small-note">${t("t_your_id", { id: me() })}</p>`);
    } else {
      out.push(html`<p class="row"><button class="btn primary" data-cmd="register" id="t-register">${t("t_register")}</button></p>`);
    }
  } else {
    out.push(html`<p class="muted">${t(before ? "t_closed_note" : "t_not_entered")}</p>`);
  }
  return out;
}

function tournamentEntryTag(status) {
  return html`<span class="tag t-status" data-status="${status}">${t("tentry_" + status)}</span>`;
}

function renderDirector(tour) {
  const st = tour.status;
  const before = st === "registering" || st === "closed";
  const btn = (cmd, label, cls = "") => html`<button class="btn ${cls}" data-cmd="${cmd}" id="t-${cmd}">${label}</button>`;
  const buttons = [
    st === "registering" ? btn("close", t("t_close")) : null,
    st === "closed" ? btn("open", t("t_reopen")) : null,
    before ? btn("start", t("t_start"), "primary") : null,
    st === "running" ? btn("pause", t("t_pause")) : null,
    st === "paused" ? btn("resume", t("t_resume"), "primary") : null,
    before || st === "running" || st === "paused" ? btn("end", t(before ? "t_cancel" : "t_end"), "warn") : null,
  ].filter(Boolean);
  if (!buttons.length) return html`<p class="muted">${t("t_over")}</p>`;
  const levels = (T.variants && T.variants.levels) || [];
  const seeking = (tour.entries || []).filter((e) => e.status === "seeking");
  const pairs = playsInPairs(facts(tour.variant));
  const addBot = before && levels.length ? html`<form class="row t-add-bot" data-form="add-bot"><label>${t("t_bot_level")}
      <select name="level" id="t-bot-level">${levels.map((l) => html`<option value="${l.name}">${botName(l.name)}</option>`)}</select></label>
      <button class="btn" id="t-add-bot">${t("t_add_bot")}</button></form>` : "";
  const pair = before && seeking.length >= 2 ? html`<form class="row t-pair" data-form="pair">${[0, 1].map((i) => html`<select name="pair_${i}" id="t-pair-${i}" aria-label="${t("t_pair_pick", { n: i + 1 })}">${
      seeking.map((e, j) => html`<option value="${e.id}" ${j === i ? "selected" : ""}>${e.name}</option>`)}</select>`)}
      <button class="btn" id="t-pair">${t("t_pair")}</button></form>` : "";
  const addPlayers = before ? html`<form class="row t-add-players" data-form="add-players"><label>${t(pairs ? "t_add_pair_ids" : "t_add_player_id")}
      <input name="players" id="t-add-players-ids" maxlength="70" autocomplete="off"></label>
      <button class="btn" id="t-add-players">${t("t_add_players")}</button></form>` : "";
  const addName = before && tour.settings.real_cards ? html`<form class="row t-add-name" data-form="add-name"><label>${t(pairs ? "t_add_pair_name" : "t_add_name")}
      <input name="name" id="t-add-name" maxlength="80" autocomplete="off"></label>
      <button class="btn" id="t-add-name-btn">${t("t_add_players")}</button></form>` : "";
  return html`<p class="row">${buttons}</p>${addName}${addBot}${addPlayers}${pair}${st === "closed" ? html`<p class="muted">${t("t_closed_director")}</p>` : ""}`;
}

// -- loading ------------------------------------------------------------------------------
let polling = false;

async function loadTournament() {
  try {
    const q = T.code ? `?code=${encodeURIComponent(T.code)}` : "";
    const asked = ++T.asked;
    const tour = await api("GET", `/api/tournaments/${encodeURIComponent(T.id)}${q}`, undefined, POLL_TIMEOUT_MS);
    setTour(tour, asked);
  } catch (e) {
    if (!T.tour) { T.tourError = e.status === 404 ? t("terr_unknown_tournament") : errorText(e); render(); }
  }
}

/** A new tournament object, the answer to request number ``asked``: drawn when it differs
 *  from the one shown, unless a later request's answer is shown already (a poll sent
 *  before a change and answered after it would draw the tournament as it was). */
function setTour(tour, asked) {
  if (asked < T.shown) return;
  T.shown = asked;
  const text = JSON.stringify(tour);
  T.tourError = null;
  if (text === T.tourText) return;
  T.tour = tour;
  T.tourText = text;
  renderHeader();
  render();
}

async function loadLists() {
  const got = await Promise.all(LISTS.map(async (kind) => {
    try {
      return (await apiPage(`/api/tournaments?status=${kind}&limit=${LIST_LIMIT}`, POLL_TIMEOUT_MS)).items;
    } catch {
      return T.lists[kind];
    }
  }));
  const before = JSON.stringify(T.lists);
  LISTS.forEach((kind, i) => { T.lists[kind] = got[i]; });
  if (JSON.stringify(T.lists) !== before) render();
}

async function loadMine() {
  if (!T.guest) { T.mine = []; return; }
  try {
    const feed = await api("GET", "/api/tournaments/mine", undefined, POLL_TIMEOUT_MS);
    const text = JSON.stringify(feed.tournaments);
    if (text !== JSON.stringify(T.mine)) { T.mine = feed.tournaments; render(); }
  } catch { /* keep the old feed */ }
}

async function poll() {
  if (polling) return;
  polling = true;
  try {
    await Promise.all([T.id ? loadTournament() : loadLists(), T.screen ? null : loadMine()]);
  } finally {
    polling = false;
  }
}

// -- the controls -------------------------------------------------------------------------
function say(text, kind = "") {
  T.msg = text ? { text, kind } : null;
  const m = document.getElementById("t-msg");
  if (m) { m.textContent = text || ""; m.className = `lobby-msg ${kind}`; }
}

/** A change of the tournament (POST/DELETE answering its object): drawn at once. */
async function change(method, path, body) {
  say(null);
  try {
    const asked = ++T.asked;
    const tour = await api(method, `/api/tournaments/${encodeURIComponent(T.id)}${path}`, body);
    setTour(tour, asked);
    loadMine();
    return true;
  } catch (e) {
    say(errorText(e), "error");
    return false;
  }
}

const DIRECTOR = ["close", "open", "start", "pause", "resume", "end"];

async function onCommand(cmd) {
  const [name, arg = ""] = cmd.split(/:(.*)/s);
  if (DIRECTOR.includes(name)) await change("POST", `/${name}`);
  else if (name === "register") await change("POST", "/register", { partner: null, seeking: false, code: T.code });
  else if (name === "seek") await change("POST", "/register", { partner: null, seeking: true, code: T.code });
  else if (name === "accept") await change("POST", "/accept", { entry: Number(arg) });
  else if (name === "withdraw") await change("POST", "/withdraw");
  else if (name === "checkin") await change("POST", "/checkin");
  else if (name === "remove") await change("DELETE", `/entries/${encodeURIComponent(arg)}`);
  else if (name === "fix" || name === "fix-cancel") {
    T.fixing = name === "fix" ? arg : "";
    render();
  }
  else if (name === "print") {
    document.body.dataset.print = arg;
    window.print();
  }
}

function onClick(ev) {
  const el = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-cmd]"));
  if (!el || /** @type {HTMLButtonElement} */ (el).disabled) return;
  ev.preventDefault();
  onCommand(el.dataset.cmd);
}

async function onSubmit(ev) {
  const form = /** @type {HTMLFormElement | null} */ (/** @type {HTMLElement} */ (ev.target).closest("form[data-form]"));
  if (!form) return;
  ev.preventDefault();
  const data = new FormData(form);
  const kind = form.dataset.form;
  if (kind === "guest") {
    const name = String(data.get("name") || "").trim();
    if (!name) return;
    try {
      T.guest = await newGuest(name);
    } catch (e) {
      say(errorText(e), "error");
      return;
    }
    renderHeader();
    render();
    poll();
  } else if (kind === "create") {
    const body = createBody(data);
    try {
      const tour = await api("POST", "/api/tournaments", body);
      location.href = tournamentHref(tour.id, { code: tour.invite_code || null });
    } catch (e) {
      const m = document.getElementById("t-create-msg");
      if (m) { m.textContent = errorText(e); m.className = "form-msg error"; }
    }
  } else if (kind === "practice") {
    const body = { variant: String(data.get("variant")), boards: Number.parseInt(String(data.get("boards") || "8"), 10) || 8 };
    if (data.get("level")) body.level = String(data.get("level"));
    try {
      const tour = await api("POST", "/api/tournaments/practice", body);
      location.href = tournamentHref(tour.id, { code: tour.invite_code || null });
    } catch (e) {
      const m = document.getElementById("t-practice-msg");
      if (m) { m.textContent = errorText(e); m.className = "form-msg error"; }
    }
  } else if (kind === "register") {
    const partner = String(data.get("partner") || "").trim();
    if (!partner) { say(t("t_partner_needed"), "error"); return; }
    await change("POST", "/register", { partner, seeking: false, code: T.code });
  } else if (kind === "add-players") {
    const players = String(data.get("players") || "").split(/[\s,;]+/).filter(Boolean);
    if (!players.length) { say(t("t_partner_needed"), "error"); return; }
    if (await change("POST", "/entries", { players })) {
      const ids = /** @type {HTMLInputElement | null} */ (document.getElementById("t-add-players-ids"));
      if (ids) ids.value = ""; // entered: the field is free for the next entry
    }
  } else if (kind === "add-bot") {
    await change("POST", "/entries", { bot: String(data.get("level")) });
  } else if (kind === "add-name") {
    const name = String(data.get("name") || "").trim();
    if (!name) { say(t("t_name_needed"), "error"); return; }
    if (await change("POST", "/entries", { name })) {
      const field = /** @type {HTMLInputElement | null} */ (document.getElementById("t-add-name"));
      if (field) field.value = "";
    }
  } else if (kind === "fix") {
    await sendFix(form, data);
  } else if (kind === "pair") {
    const a = Number(data.get("pair_0")), b = Number(data.get("pair_1"));
    if (a === b) { say(t("t_pair_two"), "error"); return; }
    await change("POST", "/pair", { entries: [a, b] });
  }
}

/** The director's correction of a game's result (the form of renderRounds): the scores a
 *  side (a duplicate game: summed over its boards, each board's sent too) and why. */
async function sendFix(form, data) {
  const reason = String(data.get("reason") || "").trim();
  if (!reason) { say(t("t_fix_reason_needed"), "error"); return; }
  const round = Number(form.dataset.round), tableNo = Number(form.dataset.tableNo);
  const rnd = (T.tour.rounds || []).find((r) => r.round === round);
  const game = rnd && rnd.games.find((g) => g.table_no === tableNo);
  if (!game) return;
  const num = (name) => Number.parseInt(String(data.get(name) || "0"), 10) || 0;
  const sides = game.entries.map((_, i) => i);
  const body = { reason, scores: sides.map((i) => num(`score_${i}`)) };
  if (game.boards.length) {
    body.board_scores = game.boards.map((b) => [b, sides.map((i) => num(`board_${b}_${i}`))]);
    body.scores = sides.map((i) => body.board_scores.reduce((sum, [, sc]) => sum + sc[i], 0));
  }
  if (await change("POST", `/rounds/${round}/games/${tableNo}/result`, body)) {
    T.fixing = "";
    render();
  }
}

function onChange(ev) {
  const el = /** @type {HTMLInputElement} */ (ev.target);
  if (el.dataset.pref) {
    T.prefs[el.dataset.pref] = el.value;
    savePrefs(T.prefs);
    setLang(T.prefs.lang);
    renderHeader();
    render();
    /** @type {HTMLElement | null} */ (document.querySelector(`[data-pref="${el.dataset.pref}"]`))?.focus();
  } else if (el.id === "t-variant") {
    T.createVariant = el.value;
    render();
  } else if (el.id === "t-format") {
    T.createFormat = el.value;
    render();
  }
}

/** The screen's clock: the time of day and the round's clock (its time, or the break's
 *  countdown), each second while the tournament runs, else each minute. */
function tickScreen() {
  if (T.screen && T.tour) render();
  const live = T.tour && ["running", "paused"].includes(T.tour.status);
  const wait = live ? 1000 - (Date.now() % 1000) + 20 : 60000 - (Date.now() % 60000) + 50;
  setTimeout(tickScreen, wait);
}

async function main() {
  setLang(T.prefs.lang);
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("change", onChange);
  window.addEventListener("afterprint", () => { delete document.body.dataset.print; });
  renderHeader();
  render();
  T.guest = await checkGuest();
  try { T.variants = await api("GET", "/api/variants"); } catch { T.variants = null; }
  renderHeader();
  render();
  await poll();
  setInterval(poll, refreshMs());
  if (T.screen) tickScreen();
}

main();
