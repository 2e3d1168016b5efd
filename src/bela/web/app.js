// The Bela browser client: lobby, table connection and events.  Plain ES modules, no build.
// Protocol: docs/PROTOCOL.md (REST under /api, one WebSocket per table).

import { LANGS, defaultLang, lang, setLang, t } from "./i18n.js";
import { DECKS, ensureSprite } from "./cards.js";
import {
  api, apiPage, checkGuest, newGuest, onGuestRenewed, storeCode, storedCode, storedGuest, wsUrl,
} from "./api.js";
import {
  declKey, declareGroups, declarePending, fullDeclare, isOwner, makeNames, reasonText,
  refusalOf, renderTablePage, turnClockText, updateClocks,
} from "./table.js";
import { esc, reducedMotion, sleep } from "./util.js";

const PREFS = "bela.prefs";
const HOLD_MS = 900; // a finished trick stays on the table this long
const COLLECT_MS = 320;
const PAGE = 50; // tables in one page of the lobby list (GET /api/tables?limit=&offset=)
const CLOCKS = [null, 30, 60, 120]; // the create form's turn clocks (seconds; null: none)
const PUBLIC_CLOCK = 60; // preselected for a public table; a private one has none

// The server's refusals said in the UI's words (i18n "err_<code>"); any other code shows
// the server's message.
const FRIENDLY_ERRORS = ["not_owner", "invite_required", "too_many_tables", "rate_limited",
  "has_players", "bad_options", "bad_turn_clock", "table_moving", "cluster"];

/** A refused request in words: rate_limited with the Retry-After seconds when given. */
export function errorText(e) {
  if (e && e.code === "rate_limited" && e.retryAfter > 0) return t("err_rate_limited_in", { n: e.retryAfter });
  if (e && FRIENDLY_ERRORS.includes(e.code)) return t("err_" + e.code);
  return (e && e.message) || String(e);
}

const S = {
  prefs: loadPrefs(),
  guest: storedGuest(),
  variants: null,
  tables: [],
  tablesTotal: 0, // X-Total-Count of the lobby list
  tablePages: 1, // pages of it shown (the "more" control adds one)
  tableId: null,
  code: null, // the invite code of the private table shown (from its link or kept)
  tableError: null,
  summary: null,
  view: null,
  seq: 0,
  status: null,
  conn: "closed",
  ws: null,
  queue: [],
  busy: false,
  anim: { trick: null, collect: false, entered: new Set() },
  picked: new Set(),
  rounds: {},
  toast: null,
  clock: null, // the turn clock shown: {seat, deadline} (performance.now() milliseconds)
  sent: null, // the last action this page sent: {seq, action} (seq: the state it acted on)
  lastMine: null, // the last state received whose action was this seat's: {seq, told}
  ui: freshUi(),
};
window.__bela = S; // for debugging and the browser tests

function freshUi() {
  return { sheet: false, lastTrick: false, belaCard: null, declAnswered: null, discardSel: [],
    resultDismissed: null, matchDismissed: false, editName: false, clockTouched: false };
}

function loadPrefs() {
  let p = {};
  try { p = JSON.parse(localStorage.getItem(PREFS) || "{}"); } catch { p = {}; }
  return {
    lang: LANGS.includes(p.lang) ? p.lang : defaultLang(),
    deck: DECKS.includes(p.deck) ? p.deck : "hungarian",
  };
}

function savePrefs() {
  localStorage.setItem(PREFS, JSON.stringify(S.prefs));
}

// -- rendering --------------------------------------------------------------------------
const root = () => document.getElementById("app");

function renderHeader() {
  const h = document.getElementById("header");
  const who = S.guest ? `<span class="who-am-i">${esc(t("play_as", { name: S.guest.name }))}</span>` : "";
  h.innerHTML = `<a class="brand" href="/" data-cmd="lobby">${deckLogo()} <span>${esc(t("title"))}</span></a>
    <div class="prefs">${who}
      <label>${esc(t("lang"))} <select id="lang-select" data-pref="lang">${LANGS.map((l) =>
        `<option value="${l}" ${l === S.prefs.lang ? "selected" : ""}>${l.toUpperCase()}</option>`).join("")}</select></label>
      <label>${esc(t("deck"))} <select id="deck-select" data-pref="deck">${DECKS.map((d) =>
        `<option value="${d}" ${d === S.prefs.deck ? "selected" : ""}>${esc(t("deck_" + d))}</option>`).join("")}</select></label>
    </div>`;
  document.title = S.tableId && S.summary ? `${t("vname_" + S.summary.variant)} – ${t("title")}` : t("title");
}

function deckLogo() {
  return `<svg class="logo" viewBox="0 0 10 10" aria-hidden="true"><use href="#pip-${S.prefs.deck === "french" ? "fr" : "hu"}-H"/></svg>`;
}

function render() {
  const el = root();
  const focusKey = focusKeyOf(document.activeElement);
  const inputs = saveInputs(el);
  if (S.tableId) el.innerHTML = renderTablePage(S);
  else el.innerHTML = renderLobby();
  restoreInputs(el, inputs);
  if (focusKey) {
    const again = el.querySelector(focusKey);
    if (again) again.focus({ preventScroll: true });
  }
}

function focusKeyOf(node) {
  if (!node || node === document.body || !root().contains(node)) return null;
  if (node.dataset.card) return `[data-card="${node.dataset.card}"]`;
  if (node.dataset.act) return `[data-act="${CSS.escape(node.dataset.act)}"]`;
  if (node.dataset.cmd) return `[data-cmd="${CSS.escape(node.dataset.cmd)}"]`;
  if (node.id) return `#${CSS.escape(node.id)}`;
  return null;
}

function saveInputs(el) {
  const out = {};
  el.querySelectorAll("input[name], select[name]").forEach((i) => {
    if (i.type === "checkbox") out[i.name] = i.checked;
    else out[i.name] = i.value;
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

let toastTimer = null;
/** A transient notice (the status line at the table, the message line in the lobby),
 *  drawn with the next render. */
function notify(text, kind = "", ms = 3500) {
  S.toast = { text, kind };
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { S.toast = null; render(); }, ms);
}

function toast(text, kind = "", ms = 3500) {
  notify(text, kind, ms);
  if (S.tableId && (S.view || S.summary)) render();
  else showLobbyMessage(text, kind);
}

function showLobbyMessage(text, kind) {
  const m = document.getElementById("lobby-msg");
  if (m) { m.textContent = text; m.className = `lobby-msg ${kind}`; }
}

// -- the lobby --------------------------------------------------------------------------
function renderLobby() {
  const guestPanel = S.guest && !S.ui.editName
    ? `<p>${esc(t("play_as", { name: S.guest.name }))} <button class="btn small ghost" data-cmd="change-name">${esc(t("change_name"))}</button></p>`
    : `<form class="name-form" data-form="guest">
        <label>${esc(t("your_name"))} <input name="name" id="guest-name" maxlength="40" required autocomplete="nickname"
          placeholder="${esc(t("name_placeholder"))}" value="${esc(S.guest ? S.guest.name : "")}"></label>
        <button class="btn primary" id="guest-save">${esc(S.guest ? t("save_name") : t("continue"))}</button></form>`;
  return `<div class="lobby">
    <section class="panel" id="guest-panel"><h2>${esc(t("player"))}</h2>${guestPanel}</section>
    <section class="panel" id="create-panel"><h2>${esc(t("new_table"))}</h2>${renderCreateForm()}</section>
    <section class="panel" id="tables-panel"><h2>${esc(t("open_tables"))}
      <button class="btn small ghost" data-cmd="refresh">${esc(t("refresh"))}</button></h2>
      <div id="table-list">${renderTableList()}</div></section>
    ${S.guest ? `<section class="panel" id="history-panel"><h2>${esc(t("history"))}</h2>
      <div id="history-list">${renderHistory()}</div></section>` : ""}
    <p id="lobby-msg" class="lobby-msg${S.toast && S.toast.kind ? " " + S.toast.kind : ""}" role="status" aria-live="polite">${
      S.toast ? esc(S.toast.text) : ""}</p>
    <p class="muted kbd-help">${esc(t("keyboard_help"))}</p>
  </div>`;
}

function variantInfo(id) {
  return S.variants && S.variants.variants.find((v) => v.id === id);
}

function renderCreateForm() {
  if (!S.variants) return `<p class="muted">${esc(t("connecting"))}</p>`;
  const chosen = S.createVariant || "bela4";
  const info = variantInfo(chosen);
  const { choices } = S.variants; // each option's values, from the engine (GET /api/variants)
  const opts = info.options.filter((o) => Object.hasOwn(choices, o)).map((o) => {
    const values = choices[o];
    return `<label>${esc(t("opt_" + o))} <select name="opt_${o}" id="opt-${o}">${values.map((x) =>
      `<option value="${x}" ${info.defaults[o] === x ? "selected" : ""}>${esc(t(`opt_${o}_${x}`))}</option>`).join("")}</select></label>`;
  }).join("");
  const bots = S.variants.bots.map((b) => `<option value="${b}" ${b === "heuristic" ? "selected" : ""}>${esc(t("bot_" + b))}</option>`).join("");
  const [tmin, tmax] = range("target", [1, 5001]);
  const clocks = clockChoices();
  const clock = defaultClock(false);
  return `<form class="create-form" data-form="create">
    <label>${esc(t("variant"))} <select name="variant" id="variant-select" data-fresh="1">${S.variants.variants.map((v) =>
      `<option value="${v.id}" ${v.id === chosen ? "selected" : ""}>${esc(t("variant_" + v.id))}</option>`).join("")}</select></label>
    <label>${esc(t("target"))} <input type="number" name="target" id="target-input" min="${tmin}" max="${tmax}" step="1" value="${info.defaults.target}" data-fresh="1"></label>
    ${opts ? `<fieldset><legend>${esc(t("house_rules"))}</legend>${opts}</fieldset>` : ""}
    <label>${esc(t("bot"))} <select name="bot" id="bot-select">${bots}</select></label>
    <label>${esc(t("turn_clock"))} <select name="turn_clock" id="clock-select">${clocks.map((c) =>
      `<option value="${c ?? ""}" ${c === clock ? "selected" : ""}>${esc(clockLabel(c))}</option>`).join("")}</select></label>
    <label class="check"><input type="checkbox" name="sit" id="sit-check" checked> ${esc(t("sit_myself"))}</label>
    <label class="check"><input type="checkbox" name="private" id="private-check"> ${esc(t("private_table"))}</label>
    <button class="btn primary" id="create-table">${esc(t("create"))}</button>
  </form>`;
}

/** The lowest and highest whole numbers of a setting (GET /api/variants "ranges"). */
function range(name, fallback) {
  const r = S.variants && S.variants.ranges && S.variants.ranges[name];
  return Array.isArray(r) && r.length === 2 ? r : fallback;
}

/** The turn clocks offered: none, and those of CLOCKS within the server's range. */
function clockChoices() {
  const [low, high] = range("turn_clock", [15, 600]);
  return CLOCKS.filter((c) => c === null || (c >= low && c <= high));
}

/** The clock preselected: 60 s for a public table, none for a private one. */
function defaultClock(isPrivate) {
  return !isPrivate && clockChoices().includes(PUBLIC_CLOCK) ? PUBLIC_CLOCK : null;
}

function clockLabel(c) {
  if (c === null) return t("clock_none");
  return c % 60 === 0 && c >= 120 ? t("clock_minutes", { n: c / 60 }) : t("clock_seconds", { n: c });
}

function renderTableList() {
  if (!S.tables.length) return `<p class="muted">${esc(t("no_tables"))}</p>`;
  const rest = S.tablesTotal - S.tables.length;
  const more = rest > 0 ? `<button class="btn small more-tables" data-cmd="more-tables" id="more-tables">${
    esc(t("more_tables", { n: rest }))}</button>` : "";
  return `<ul class="table-list">${S.tables.map((tb) => {
    const names = tb.seats.map((s) => s.name ? esc(s.name) : `<span class="free">${esc(t("free_seat"))}</span>`).join(", ");
    const free = tb.seats.some((s) => !s.kind);
    const btn = tb.status === "open" && free
      ? `<button class="btn small primary" data-cmd="open:${tb.id}">${esc(t("join"))}</button>`
      : `<button class="btn small" data-cmd="open:${tb.id}">${esc(t("watch"))}</button>`;
    const clock = tb.turn_clock ? ` <small class="clock-info">${esc(turnClockText(tb))}</small>` : "";
    return `<li data-table="${tb.id}"><div><b>${esc(t("vname_" + tb.variant))}</b> ${esc(t("target_short", { n: tb.options.target }))}${clock}
      <span class="tag">${esc(t("status_" + tb.status))}</span>${tb.spectators ? ` <small class="muted">${esc(t("spectators", { n: tb.spectators }))}</small>` : ""}
      <div class="muted">${names}</div></div>${btn}</li>`;
  }).join("")}</ul>${more}`;
}

let tablesAsked = 0;

/** The lobby list: the pages shown so far (the first alone until "more" is used), newest
 *  first; a table that moved to the next page while they were read is listed once. */
async function loadTables() {
  const asked = ++tablesAsked;
  const pages = S.tablePages;
  try {
    const got = await Promise.all([...Array(pages).keys()].map((i) =>
      apiPage(`/api/tables?limit=${PAGE}&offset=${i * PAGE}`)));
    if (asked === tablesAsked) { // a later call asked for more pages: its answer counts
      const seen = new Set();
      S.tables = got.flatMap((p) => p.items).filter((tb) => !seen.has(tb.id) && seen.add(tb.id));
      S.tablesTotal = Math.max(got[0].total, S.tables.length);
      S.tablePages = Math.min(S.tablePages, Math.max(1, Math.ceil(S.tablesTotal / PAGE)));
    }
  } catch { /* keep the old list */ }
  const list = document.getElementById("table-list");
  if (list && !S.tableId && asked === tablesAsked) {
    const more = document.activeElement && document.activeElement.id === "more-tables";
    list.innerHTML = renderTableList();
    if (more) document.getElementById("more-tables")?.focus({ preventScroll: true });
  }
  if (S.guest) {
    try {
      S.history = await api("GET", "/api/players/me/history");
    } catch { /* keep the old list */ }
    const hist = document.getElementById("history-list");
    if (hist && !S.tableId) hist.innerHTML = renderHistory();
  }
}

function renderHistory() {
  const games = S.history || [];
  if (!games.length) return `<p class="muted">${esc(t("no_history"))}</p>`;
  return `<ul class="table-list">${games.map((g, i) => {
    const mine = g.variant === "bela4" ? g.seat % 2 : g.seat;
    const result = g.winner === null ? "" : g.winner === mine ? t("history_won") : t("history_lost");
    return `<li data-history="${i}"><div><b>${esc(t("vname_" + g.variant))}</b> ${esc(g.totals.join(" : "))}
      <span class="tag">${esc(result)}</span><div class="muted">${esc(g.players.map((p) => p || "?").join(", "))}</div></div>
      <button class="btn small" data-cmd="history:${i}">${esc(t("download_record"))}</button></li>`;
  }).join("")}</ul>`;
}

function saveRecord(rec, name) {
  const blob = new Blob([JSON.stringify(rec, null, 2) + "\n"], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

// -- the table connection ---------------------------------------------------------------
let reconnectTimer = null;
let attempts = 0;

function connect() {
  disconnect();
  const id = S.tableId;
  const ws = new WebSocket(wsUrl(id, S.code));
  S.ws = ws;
  S.conn = "connecting";
  ws.onopen = () => { if (S.ws === ws) { S.conn = "open"; attempts = 0; render(); } };
  ws.onmessage = (ev) => { if (S.ws === ws) onMessage(JSON.parse(ev.data)); };
  ws.onclose = (ev) => {
    if (S.ws !== ws) return;
    S.ws = null;
    S.conn = "closed";
    if (ev.code === 4404) { S.tableError = t("unknown_table"); S.summary = null; render(); return; }
    if (ev.code === 4403) { // a private table without its invite code: no use trying again
      S.tableError = t("err_invite_required"); S.summary = null; S.view = null; render(); return;
    }
    if (S.summary && S.summary.status === "closed") { render(); return; } // nothing to wait for
    if (ev.code === 4401) { checkGuest().then((g) => { S.guest = g; renderHeader(); }); }
    if (S.tableId === id) {
      render();
      reconnectTimer = setTimeout(connect, Math.min(8000, 500 * 2 ** attempts++));
    }
  };
}

function disconnect() {
  clearTimeout(reconnectTimer);
  if (S.ws) {
    const ws = S.ws;
    S.ws = null;
    try { ws.close(); } catch { /* already closed */ }
  }
  S.conn = "closed";
}

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(msg));
    return true;
  }
  toast(t("reconnecting"), "warn");
  return false;
}

function act(token) {
  S.ui.belaCard = null;
  if (S.queue.length) return false; // newer states are on their way: this view is out of date
  if (send({ type: "act", action: token, seq: S.seq })) S.sent = { seq: S.seq, action: token };
  return true;
}

let codeAsked = null;

/** A new table summary (welcome, table, or a REST answer): a closed table ends the
 *  connection (no reconnecting to it); the creator of a private table keeps its code. */
function applySummary(table) {
  S.summary = table;
  if (table.status !== "running" && table.status !== "finished") {
    S.view = null;
  }
  if (table.status === "closed") {
    S.queue.length = 0;
    disconnect();
  }
  if (table.invite_code) {
    S.code = table.invite_code;
    storeCode(table.id, table.invite_code);
  } else if (table.private && !S.code && isOwner(S) && codeAsked !== table.id) {
    codeAsked = table.id; // made in another browser: the server tells its creator the code
    fetchCode(table.id);
  }
  renderHeader();
  if (!S.busy) render();
}

async function fetchCode(id) {
  try {
    const tb = await api("GET", `/api/tables/${encodeURIComponent(id)}`);
    if (tb.invite_code && S.tableId === id) {
      S.code = tb.invite_code;
      storeCode(id, tb.invite_code);
      if (!S.busy) render();
    }
  } catch { /* the link stays hidden */ }
}

function onMessage(msg) {
  if (msg.type === "welcome" || msg.type === "table") {
    applySummary(msg.table);
  } else if (msg.type === "state") {
    // the clock counts from now: the state may wait behind a trick being shown
    msg.deadline = msg.clock ? performance.now() + Math.max(0, Number(msg.clock.deadline_in) || 0) * 1000 : null;
    msg.ranOut = ranOut(msg);
    S.queue.push(msg);
    pump();
  } else if (msg.type === "error") {
    if (msg.code === "stale") { // acted on an old view
      // the bot's move for this seat came before ours: its clock had run out
      const mine = S.lastMine;
      if (S.sent && mine && mine.seq === S.sent.seq + 1 && !mine.told) {
        mine.told = true;
        toast(t("clock_ran_out"), "warn", 6000);
      }
      send({ type: "sync" });
      return;
    }
    if (msg.code === "token_expired") return; // the close (4401) renews the guest and says so
    if (msg.code === "too_many") return; // e.g. a second sync within a second: its state came
    // our action was refused: nothing of ours is on its way (a move for us is the bot's)
    if (["illegal", "not_your_turn", "wrong_seat", "bad_action", "not_running", "storage"].includes(msg.code)) S.sent = null;
    if (msg.code === "unknown_table") { S.tableError = t("unknown_table"); }
    if (msg.code === "invite_required") { S.tableError = t("err_invite_required"); return; }
    // the server's messages are English sentences for developers: say it in the UI's words
    const own = { not_your_turn: "not_your_turn", spectator: "spectator_cards",
      illegal: "illegal_action", wrong_seat: "illegal_action" }[msg.code];
    toast(own ? t(own) : msg.message, "error");
  }
}

/** Whether this state is the bot's move for this page's seat (its turn clock ran out): the
 *  action was the seat's (``last``, with its events: not a resent state) and this page did
 *  not send it.  Said when the state is shown. */
function ranOut(msg) {
  const seat = msg.view && msg.view.seat;
  const last = msg.last;
  if (seat === null || seat === undefined || !last || last.seat !== seat || !(msg.events || []).length) return false;
  const sentIt = !!S.sent && S.sent.seq === msg.seq - 1;
  S.lastMine = { seq: msg.seq, told: !sentIt };
  return !sentIt;
}

async function pump() {
  if (S.busy) return;
  S.busy = true;
  try {
    while (S.queue.length) {
      if (S.summary && S.summary.status === "closed") { S.queue.length = 0; break; }
      const msg = S.queue.shift();
      const v = msg.view;
      // what the action did comes with the state (docs/PROTOCOL.md, events): the cards
      // played slide in from their seats, a taken trick is held, the cards picked up shine
      const { events } = msg;
      S.anim.entered = new Set(events.filter((e) => e.type === "card_played").map((e) => e.card));
      const taken = events.find((e) => e.type === "trick_taken");
      const gained = events.filter((e) => e.seat === v.seat).flatMap((e) =>
        e.type === "talon_taken" ? e.cards : e.type === "swapped" ? [e.taken] : []);
      applyState(msg);
      if (msg.ranOut) notify(t("clock_ran_out"), "warn", 6000);
      if (gained.length) {
        S.picked = new Set(gained);
        setTimeout(() => { S.picked = new Set(); if (!S.busy) render(); }, 2500);
      }
      if (taken && !reducedMotion()) {
        S.anim.trick = { cards: taken.cards, winner: taken.seat };
        render();
        await sleep(S.queue.length > 6 ? 120 : HOLD_MS);
        S.anim.collect = true;
        S.anim.entered = new Set();
        render();
        await sleep(COLLECT_MS);
        S.anim.trick = null;
        S.anim.collect = false;
      }
      render();
    }
  } finally {
    S.busy = false;
  }
}

function applyState(msg) {
  const v = msg.view;
  const prev = S.view;
  S.seq = msg.seq;
  S.status = msg.status;
  S.view = v;
  S.clock = msg.clock && msg.deadline !== null ? { seat: msg.clock.seat, deadline: msg.deadline } : null;
  tickClock();
  if (S.summary) S.summary.status = msg.status;
  if (!prev || prev.round_index !== v.round_index) {
    S.ui.belaCard = null;
    S.ui.discardSel = [];
    S.picked = new Set();
  }
  if (v.phase === "done" && v.result) {
    S.rounds[v.round_index] = { result: v.result };
  }
  if (v.phase !== "discard") S.ui.discardSel = [];
}

// -- the turn clock ---------------------------------------------------------------------
let clockTimer = null;

/** Every second while a turn clock runs: the countdowns are rewritten (not the table), at
 *  each whole second left; at 0 it waits for the next state (the bot plays the turn). */
function tickClock() {
  clearTimeout(clockTimer);
  clockTimer = null;
  if (!S.clock || !S.tableId) return;
  updateClocks(S, root());
  const ms = S.clock.deadline - performance.now();
  if (ms > 0) clockTimer = setTimeout(tickClock, (ms % 1000 || 1000) + 15);
}

// -- navigation -------------------------------------------------------------------------
let routed = false;

function route() {
  const params = new URLSearchParams(location.search);
  const id = params.get("table");
  const code = id && params.get("code"); // an invite link to a private table
  if (code) storeCode(id, code);
  if (id !== S.tableId || !routed) { // the first time too: the lobby lists its tables at once
    routed = true;
    disconnect();
    Object.assign(S, { tableId: id, summary: null, view: null, tableError: null, queue: [],
      rounds: {}, seq: 0, status: null, toast: null, code: id ? code || storedCode(id) : null,
      clock: null, sent: null, lastMine: null });
    tickClock(); // stops the countdown
    S.ui = freshUi();
    S.anim = { trick: null, collect: false, entered: new Set() };
    if (id) connect();
    else loadTables();
  }
  renderHeader();
  render();
}

function go(tableId) {
  const url = tableId ? `/?table=${encodeURIComponent(tableId)}` : "/";
  history.pushState(null, "", url);
  route();
}

// -- events -----------------------------------------------------------------------------
async function run(fn) {
  try {
    return await fn();
  } catch (e) {
    toast(errorText(e), "error");
    return null;
  }
}

async function onCommand(cmd, el, ev) {
  const [name, arg] = cmd.split(/:(.*)/s);
  const tid = S.tableId;
  switch (name) {
    case "lobby": ev.preventDefault(); go(null); break;
    case "open": go(arg); break;
    case "refresh": loadTables(); break;
    case "history": {
      const g = (S.history || [])[Number(arg)];
      if (g) saveRecord(g.record, `bela-${g.variant}-${g.table}.json`);
      break;
    }
    case "change-name": S.ui.editName = true; render(); document.getElementById("guest-name")?.focus(); break;
    case "more-tables": S.tablePages += 1; loadTables(); break;
    case "sit": {
      const body = { seat: Number(arg) };
      if (S.code) body.code = S.code; // a private table's seats take its invite code
      await run(() => api("POST", `/api/tables/${tid}/sit`, body));
      break;
    }
    case "leave": await run(() => api("POST", `/api/tables/${tid}/leave`)); break;
    case "bots": await run(() => api("POST", `/api/tables/${tid}/bots`)); break;
    case "start": await run(() => api("POST", `/api/tables/${tid}/start`)); break;
    case "close": { // the creator closes his open table or stops his table of bots only
      if (!confirm(t("close_confirm"))) break;
      const tb = await run(() => api("POST", `/api/tables/${tid}/close`));
      if (tb && S.tableId === tid) applySummary(tb);
      break;
    }
    case "copy": {
      const input = document.getElementById("invite-link");
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand?.("copy"); }
      toast(t("copied"));
      break;
    }
    case "sheet": S.ui.sheet = !S.ui.sheet; S.ui.lastTrick = false; render(); break;
    case "lasttrick": S.ui.lastTrick = !S.ui.lastTrick; S.ui.sheet = false; render(); break;
    case "close-dialog":
      if (el.classList.contains("overlay") && ev.target !== el) return;
      S.ui.sheet = false; S.ui.lastTrick = false; render(); break;
    case "close-match": S.ui.matchDismissed = true; render(); break;
    case "dismiss-result": S.ui.resultDismissed = S.view.round_index - 1; render(); break;
    case "declare": {
      const v = S.view;
      const groups = declareGroups(fullDeclare(v));
      const chosen = [...root().querySelectorAll("[data-decl]")].filter((i) => i.checked).map((i) => groups[Number(i.dataset.decl)]);
      S.ui.declAnswered = declKey(v);
      if (!chosen.length) { render(); break; }
      const want = chosen.map((g) => [...g].sort().join(" ")).sort().join(";");
      const tok = v.legal.filter((a) => a.startsWith("declare ")).find((a) =>
        declareGroups(a).map((g) => [...g].sort().join(" ")).sort().join(";") === want);
      if (tok) act(tok);
      else render();
      break;
    }
    case "declare-none": S.ui.declAnswered = declKey(S.view); render(); break;
    case "discard": {
      const [a, b] = S.ui.discardSel;
      const tok = S.view.legal.find((x) => x === `discard ${a} ${b}` || x === `discard ${b} ${a}`);
      if (tok) act(tok);
      break;
    }
    case "claim":
      if (confirm(t("claim_confirm"))) act(`claim ${S.view.seat}`);
      break;
    case "download": await run(downloadRecord); break;
    default: break;
  }
}

async function downloadRecord() {
  const rec = await api("GET", `/api/tables/${S.tableId}/record`);
  saveRecord(rec, `bela-${rec.variant || "match"}-${S.tableId}.json`);
}

function onCard(code) {
  const v = S.view;
  if (!v || v.seat === null) return;
  const myTurn = v.turn === v.seat && S.status === "running";
  if (myTurn && v.phase === "discard") {
    const sel = S.ui.discardSel;
    const i = sel.indexOf(code);
    if (i >= 0) sel.splice(i, 1);
    else { sel.push(code); if (sel.length > 2) sel.shift(); }
    render();
    return;
  }
  if (!myTurn) { toast(t("not_your_turn")); return; }
  if (v.phase !== "play") { toast(t("not_now")); return; }
  const plain = v.legal.includes(code), bela = v.legal.includes(code + "*");
  const refusal = refusalOf(v, code); // the engine's reason, never worked out here
  if (!plain && !bela) {
    toast(reasonText(refusal, makeNames(S)), "warn");
    return;
  }
  if (declarePending(S)) { toast(t("declare_first"), "warn"); return; }
  if (plain && bela) { S.ui.belaCard = code; render(); return; }
  // enforce = off: the card is played, and the player is told which rule it breaks (R24)
  if (act(bela ? code + "*" : code) && refusal) toast(t("revoke_played", { reason: reasonText(refusal, makeNames(S)) }), "warn");
}

function onClick(ev) {
  const target = ev.target;
  const cmdEl = target.closest("[data-cmd]");
  const actEl = target.closest("[data-act]");
  const cardEl = target.closest("[data-card]");
  if (actEl && !actEl.disabled) { act(actEl.dataset.act); return; }
  if (cardEl) { onCard(cardEl.dataset.card); return; }
  if (cmdEl && !cmdEl.disabled) onCommand(cmdEl.dataset.cmd, cmdEl, ev);
}

async function onSubmit(ev) {
  const form = ev.target.closest("form[data-form]");
  if (!form) return;
  ev.preventDefault();
  const data = new FormData(form);
  if (form.dataset.form === "guest") {
    const name = String(data.get("name") || "").trim();
    if (!name) return;
    const g = await run(() => newGuest(name));
    if (!g) return;
    S.guest = g;
    S.ui.editName = false;
    renderHeader();
    if (S.tableId) connect(); // the socket now knows who we are
    render();
  } else if (form.dataset.form === "create") {
    if (!S.guest) { toast(t("need_name"), "warn"); document.getElementById("guest-name")?.focus(); return; }
    const variant = String(data.get("variant"));
    const info = variantInfo(variant);
    const options = { target: Number(data.get("target")) || info.defaults.target };
    for (const o of info.options) if (Object.hasOwn(S.variants.choices, o) && data.get("opt_" + o)) options[o] = String(data.get("opt_" + o));
    const clock = Number(data.get("turn_clock"));
    const body = { variant, options, bot: String(data.get("bot")), seat: data.get("sit") ? 0 : null,
      private: !!data.get("private"), turn_clock: Number.isInteger(clock) && clock > 0 ? clock : null };
    const tb = await run(() => api("POST", "/api/tables", body));
    if (!tb) return;
    if (tb.invite_code) storeCode(tb.id, tb.invite_code); // only its creator is told the code
    go(tb.id);
  }
}

function onChange(ev) {
  const el = ev.target;
  if (el.dataset.pref) {
    S.prefs[el.dataset.pref] = el.value;
    savePrefs();
    setLang(S.prefs.lang);
    renderHeader();
    render();
    // at the table the keys (arrows, Z/L, B/S) work again at once; in the lobby the
    // choice stays focused
    const game = root().querySelector(".game");
    if (game) game.focus({ preventScroll: true });
    else document.querySelector(`[data-pref="${el.dataset.pref}"]`)?.focus();
  } else if (el.id === "variant-select") {
    S.createVariant = el.value;
    render();
  } else if (el.id === "clock-select") {
    S.ui.clockTouched = true; // the player's choice stays, private or not
  } else if (el.id === "private-check" && !S.ui.clockTouched) {
    const select = document.getElementById("clock-select");
    if (select) select.value = String(defaultClock(el.checked) ?? "");
  }
}

function onKey(ev) {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (ev.key === "Escape") {
    if (S.ui.sheet || S.ui.lastTrick) { S.ui.sheet = S.ui.lastTrick = false; render(); return; }
    if (S.ui.belaCard) { S.ui.belaCard = null; render(); return; }
    return;
  }
  if (tag === "input" || tag === "select" || tag === "textarea" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (!S.view) return;
  const k = ev.key.toLowerCase();
  if (k === "l" || k === "z") { S.ui.lastTrick = !S.ui.lastTrick; S.ui.sheet = false; render(); return; }
  if (k === "s" || k === "b") { S.ui.sheet = !S.ui.sheet; S.ui.lastTrick = false; render(); return; }
  if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
    const cards = [...root().querySelectorAll(".hand [data-card]")];
    if (!cards.length) return;
    const i = cards.indexOf(document.activeElement);
    const next = i < 0 ? (ev.key === "ArrowLeft" ? cards.length - 1 : 0)
      : (i + (ev.key === "ArrowLeft" ? -1 : 1) + cards.length) % cards.length;
    cards[next].focus();
    ev.preventDefault();
  }
}

/** The guest's token had expired (401 token_expired, or the socket's 4401): api.js made a
 *  new guest with the same name; the player is told once and the table is joined again. */
function guestRenewed(g) {
  S.guest = g;
  S.ui.editName = false;
  renderHeader();
  toast(t("guest_renewed", { name: g.name }), "warn", 8000);
  if (S.tableId) connect();
  else { render(); loadTables(); }
}

// -- start ------------------------------------------------------------------------------
async function main() {
  setLang(S.prefs.lang);
  ensureSprite();
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("change", onChange);
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", route);
  onGuestRenewed(guestRenewed);
  route();
  const before = S.guest && S.guest.token;
  S.guest = await checkGuest();
  renderHeader();
  if (!S.tableId && S.guest && S.guest.token !== before) loadTables(); // a new or changed guest
  try { S.variants = await api("GET", "/api/variants"); } catch { S.variants = null; }
  if (!S.tableId) render();
  setInterval(() => { if (!S.tableId) loadTables(); }, 4000);
}

main();
export { S, lang };
