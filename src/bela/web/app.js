// @ts-check
// The Bela browser client: lobby, table connection and events.  Plain ES modules, no build.
// Protocol: docs/PROTOCOL.md (REST under /api, one WebSocket per table).

import { LANGS, lang, setLang, t, tn } from "./i18n.js";
import { savePrefs } from "./prefs.js";
import { DECKS, ensureSprite } from "./cards.js";
import {
  api, apiPage, changePassword, checkGuest, claimName, login, newGuest, onAccountEnded,
  onGuestRenewed, storeCode, storedCode, wsUrl,
} from "./api.js";
import { botName, leadersHref, profileHref, renderLeaders, renderProfile } from "./profile.js";
import {
  declarePending, isOwner, makeNames, reasonText, redrawStatusLine, refusalOf, renderTablePage, turnClockText, updateClocks,
} from "./table.js";
import { reducedMotion, sleep } from "./util.js";
import {
  SHOWN_MS, applyTalk, closeLobbyTalk, lobbyTalk, openLobbyTalk, renderLobbyTalk, resetTalk, sendLobbyTalk, talkCommands,
} from "./talk.js";
import { play, setSound, soundOn, soundsOf } from "./sound.js";
import { loadAvatars } from "./avatars.js";
import { friendCommands, loadFriends, renderFriendsPanel } from "./friends.js";
import { html, joinHtml, setHtml } from "./html.js";
import { defaultVariant, variantFacts } from "./variants.js";
import { S, applyStateMessage, resetTable } from "./state.js";
import { accountCommands, lobbyCommands, tableCommands } from "./commands.js";

const HOLD_MS = 900; // a finished trick stays on the table this long
const AUTOPLAY_MS = 600; // a lone legal card plays itself after this pause (prefs.autoplay)
const COLLECT_MS = 320;
const PAGE = 50; // tables in one page of the lobby list (GET /api/tables?limit=&offset=)
const CLOCKS = [null, 30, 60, 120]; // the create form's turn clocks (seconds; null: none)
const PUBLIC_CLOCK = 60; // preselected for a public table; a private one has none
const QUICK_WAITS = [15, 30, 60, 120]; // quick play's waits offered (seconds), within the server's range
const QUICK_WAIT = 30; // preselected
const QUICK_SEEN = "bela.quick"; // the quick-play table this browser opened last
const LEADERS_PAGE = 50;
const LOBBY_REFRESH_S = 4; // the lobby's list is asked for again this often (seconds) ...
const REFRESH_RANGE = [0.2, 60]; // ... or as the page's ?refresh= says, within these

/** The lobby's refresh interval in milliseconds: ?refresh=<seconds> (the browser tests
 *  wait for a refresh without waiting out the default), else LOBBY_REFRESH_S. */
function lobbyRefreshMs() {
  const asked = Number(new URLSearchParams(location.search).get("refresh"));
  const [low, high] = REFRESH_RANGE;
  return 1000 * (Number.isFinite(asked) && asked > 0 ? Math.min(high, Math.max(low, asked)) : LOBBY_REFRESH_S);
}
const MIN_PASSWORD = 8, MAX_PASSWORD = 128;

// The server's refusals said in the UI's words (i18n "err_<code>"); any other code shows
// the server's message.
const FRIENDLY_ERRORS = ["not_owner", "invite_required", "too_many_tables", "rate_limited",
  "has_players", "bad_options", "bad_turn_clock", "table_moving", "cluster", "name_taken",
  "already_account", "weak_password", "bad_login", "unknown_player", "already_playing",
  "not_account", "not_friends", "bad_avatar", "guest_phrases_only", "unknown_line"];

/** A refused request in words: rate_limited with the Retry-After seconds when given. */
export function errorText(e) {
  if (e && e.code === "rate_limited" && e.retryAfter > 0) return t("err_rate_limited_in", { n: e.retryAfter });
  if (e && FRIENDLY_ERRORS.includes(e.code)) return t("err_" + e.code);
  return (e && e.message) || String(e);
}

const root = () => document.getElementById("app");

function renderHeader() {
  const h = document.getElementById("header");
  const who = S.guest ? html`<span class="who-am-i">${t("play_as", { name: S.guest.name })}</span>` : "";
  const lv = (S.leaders && S.leaders.variant) || S.createVariant || defaultVariant(S.variants);
  const nav = html`<nav class="site-nav">
      <a href="${leadersHref(lv)}" data-cmd="leaders:${lv}" id="nav-leaders"${S.page === "leaders" ? html` aria-current="page"` : ""}>${t("leaderboard")}</a>${
      S.guest ? html`<a href="${profileHref(S.guest.player_id)}" data-cmd="profile:${S.guest.player_id}" id="nav-profile"${
        S.page === "profile" && S.profileId === S.guest.player_id ? html` aria-current="page"` : ""}>${t("my_profile")}</a>` : ""}</nav>`;
  setHtml(h, html`<a class="brand" href="/" data-cmd="lobby">${deckLogo()} <span>${t("title")}</span></a>
    ${nav}
    <div class="prefs">${who}
      <button type="button" class="btn small ghost sound-toggle" id="sound-toggle" data-cmd="sound-toggle" aria-pressed="${soundOn() ? "false" : "true"}"
        title="${t(soundOn() ? "sound_on" : "sound_off")}" aria-label="${t("sound")}">${soundOn() ? "🔊" : "🔇"}</button>
      <label>${t("lang")} <select id="lang-select" data-pref="lang">${LANGS.map((l) =>
        html`<option value="${l}" ${l === S.prefs.lang ? "selected" : ""}>${l.toUpperCase()}</option>`)}</select></label>
      <label>${t("deck")} <select id="deck-select" data-pref="deck">${DECKS.map((d) =>
        html`<option value="${d}" ${d === S.prefs.deck ? "selected" : ""}>${t("deck_" + d)}</option>`)}</select></label>${
      S.tableId ? html`<label class="autoplay-pref" title="${t("autoplay_title")}"><input type="checkbox" id="autoplay-check" data-pref="autoplay"${
        S.prefs.autoplay ? " checked" : ""}> <span class="long">${t("autoplay")}</span><span class="short">${t("autoplay_short")}</span></label>` : ""}
    </div>`);
  let title = t("title");
  if (S.tableId && S.summary) title = `${t("vname_" + S.summary.variant)} – ${t("title")}`;
  else if (S.page === "profile" && S.profile && S.profile.data) {
    const d = S.profile.data;
    title = `${d.bot ? botName(d.bot) : d.name} – ${t("title")}`;
  } else if (S.page === "leaders") title = `${t("leaderboard")} – ${t("title")}`;
  document.title = title;
}

function deckLogo() {
  return html`<svg class="logo" viewBox="0 0 10 10" aria-hidden="true"><use href="#pip-${S.prefs.deck === "french" ? "fr" : "hu"}-H"/></svg>`;
}

// -- a press under way ------------------------------------------------------------------
// A page drawn again between the press and the release of a tap (a state, a list, a notice
// that came) replaces the button under the finger, and the browser drops the click.  While
// a press lasts (at most PRESS_MS) a render waits, and runs just after the release.
const PRESS_MS = 1000;
const press = { down: false, pending: false, timer: null };

function pressed() {
  press.down = true;
  clearTimeout(press.timer);
  press.timer = setTimeout(released, PRESS_MS); // a release the page never saw
}

function released() {
  if (!press.down) return;
  press.down = false;
  clearTimeout(press.timer);
  // after the click the release makes (a tap's may come as a task of its own)
  if (press.pending) press.timer = setTimeout(() => { if (!press.down && press.pending) render(); }, 60);
}

function render() {
  if (press.down) { press.pending = true; return; }
  press.pending = false;
  const el = root();
  const focusKey = focusKeyOf(document.activeElement);
  const inputs = saveInputs(el);
  if (S.tableId) setHtml(el, renderTablePage(S));
  else if (S.page === "profile") setHtml(el, renderProfile(S));
  else if (S.page === "leaders") setHtml(el, renderLeaders(S));
  else setHtml(el, renderLobby());
  restoreInputs(el, inputs);
  if (focusKey) {
    const again = /** @type {HTMLElement | null} */ (el.querySelector(focusKey));
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
 *  drawn with the next render.  When it ends only its line is redrawn: a new page under a
 *  tap that is under way would lose the tap. */
function notify(text, kind = "", ms = 3500) {
  S.toast = { text, kind };
  clearTimeout(toastTimer);
  toastTimer = setTimeout(endNotice, ms);
}

function endNotice() {
  S.toast = null;
  if (redrawStatusLine(S, root())) return;
  const m = S.tableId ? null : document.getElementById("lobby-msg");
  if (m) { m.textContent = ""; m.className = "lobby-msg"; } else render();
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
  return html`<div class="lobby">
    <section class="panel" id="guest-panel"><h2>${t("player")}</h2>${renderAccountPanel()}</section>
    <section class="panel" id="quick-panel"><h2>${t("quick_play")}</h2>${renderQuickPanel()}</section>
    <section class="panel" id="tables-panel"><h2>${t("open_tables")}
      <button class="btn small ghost" data-cmd="refresh">${t("refresh")}</button></h2>
      <div id="table-list">${renderTableList("open")}</div></section>
    <section class="panel" id="running-panel"><h2>${t("running_tables")}</h2>
      <div id="running-list">${renderTableList("running")}</div></section>
    <section class="panel" id="create-panel"><h2>${t("new_table")}</h2>${renderCreateForm()}</section>
    <section class="panel" id="tournaments-panel"><h2>${t("t_title")}</h2>
      <div id="my-tournaments">${renderMyTournaments()}</div>
      <p><a href="/tournaments" id="link-tournaments">${t("more_tournaments")}</a> – ${t("more_tournaments_why")}</p></section>
    <section class="panel" id="lobby-talk-panel"><h2>${t("talk_lobby")}</h2><div id="lobby-talk-body">${renderLobbyTalk(S)}</div></section>
    <section class="panel" id="friends-panel"><h2>${t("friends")}</h2><div id="friends-body">${renderFriendsPanel(S)}</div></section>
    ${S.guest ? html`<section class="panel" id="history-panel"><h2>${t("history")}</h2>
      <div id="history-list">${renderHistory()}</div></section>` : ""}
    <p id="lobby-msg" class="lobby-msg${S.toast && S.toast.kind ? " " + S.toast.kind : ""}" role="status" aria-live="polite">${
      S.toast ? S.toast.text : ""}</p>
    <section class="panel" id="more-panel"><h2>${t("more_title")}</h2>
      <p><a href="/pad" id="link-pad">${t("more_pad")}</a> – ${t("more_pad_why")}</p>
      <p><a href="/analysis" id="link-analysis">${t("more_analysis")}</a> – ${t("more_analysis_why")}</p></section>
    <p class="muted kbd-help">${t("keyboard_help")}</p>
  </div>`;
}

// -- the player: a guest, or an account (a name claimed with a password) ------------------
function renderAccountPanel() {
  const g = S.guest;
  const A = S.account;
  const form = S.ui.accountForm;
  const note = A.note ? html`<div class="account-note" id="account-note-box" role="status"><span id="account-note">${A.note}</span>${
    A.noteGoes ? html` <button type="button" class="note-close" data-cmd="account-note-close" id="account-note-close" aria-label="${
      t("close")}">×</button>` : ""}</div>` : "";
  const msg = html`<p class="form-msg${A.msg ? " " + A.msg.kind : ""}" id="account-msg" role="alert">${A.msg ? A.msg.text : ""}</p>`;
  const cancel = html`<button type="button" class="btn ghost" data-cmd="account-form:">${t("cancel")}</button>`;
  if (!g || S.ui.editName) {
    const nameForm = html`<form class="name-form" data-form="guest">
        <label>${t("your_name")} <input name="name" id="guest-name" maxlength="40" required autocomplete="nickname"
          placeholder="${t("name_placeholder")}" value="${g ? g.name : ""}"></label>
        <button class="btn primary" id="guest-save">${g ? t("save_name") : t("continue")}</button></form>`;
    const loginPart = form === "login" ? loginForm(cancel)
      : html`<p><button class="btn small ghost" data-cmd="account-form:login" id="show-login">${t("have_account")}</button></p>`;
    return html`${note}${nameForm}${g ? "" : loginPart}${msg}`;
  }
  const kind = g.account ? "account" : "guest";
  const who = html`<p class="who-line">${t("play_as", { name: g.name })} <span class="tag kind-${kind}" id="player-kind">${
    t(g.account ? "kind_account_short" : "kind_guest")}</span>
    <a class="btn small ghost" href="${profileHref(g.player_id)}" data-cmd="profile:${g.player_id}" id="my-profile">${t("my_profile")}</a></p>`;
  let body;
  if (g.account) {
    body = form === "password" ? passwordForm(cancel)
      : html`<div class="row account-actions">
        <button class="btn small" data-cmd="account-form:password" id="show-password">${t("change_password")}</button>
        <button class="btn small" data-cmd="logout" id="logout">${t("logout")}</button>
        <button class="btn small warn" data-cmd="logout-all" id="logout-all">${t("logout_all")}</button></div>`;
  } else if (form === "claim") {
    body = claimForm(g, cancel);
  } else if (form === "login") {
    body = loginForm(cancel);
  } else {
    body = html`<p class="muted small-note">${t("account_panel_note")}</p>
      <div class="row account-actions">
        <button class="btn small primary" data-cmd="account-form:claim" id="show-claim">${t("claim_name")}</button>
        <button class="btn small" data-cmd="change-name">${t("change_name")}</button>
        <button class="btn small ghost" data-cmd="account-form:login" id="show-login">${t("have_account")}</button></div>`;
  }
  return html`${note}${who}${body}${msg}`;
}

function loginForm(cancel) {
  return html`<form class="name-form account-form" data-form="login"><h3>${t("login")}</h3>
    <label>${t("login_name")} <input name="login_name" id="login-name" maxlength="40" required autocomplete="username"
      value="${S.account.loginName || ""}"></label>
    <label>${t("password")} <input type="password" name="login_password" id="login-password" maxlength="${MAX_PASSWORD}"
      required autocomplete="current-password"></label>
    <div class="row"><button class="btn primary" id="login-submit">${t("login_btn")}</button>${cancel}</div></form>`;
}

function claimForm(g, cancel) {
  return html`<form class="name-form account-form" data-form="claim"><h3>${t("claim_name")}</h3>
    <label>${t("claim_name_label")} <input name="claim_name" id="claim-name" maxlength="40" required autocomplete="username"
      value="${g.name}"></label>
    <label>${t("password")} <small class="muted">${t("password_hint")}</small>
      <input type="password" name="claim_password" id="claim-password" maxlength="${MAX_PASSWORD}" required autocomplete="new-password"></label>
    <label>${t("password_repeat")} <input type="password" name="claim_password2" id="claim-password2" maxlength="${MAX_PASSWORD}"
      required autocomplete="new-password"></label>
    <div class="row"><button class="btn primary" id="claim-submit">${t("claim_btn")}</button>${cancel}</div></form>`;
}

function passwordForm(cancel) {
  return html`<form class="name-form account-form" data-form="password"><h3>${t("change_password")}</h3>
    <input type="text" name="pw_user" autocomplete="username" value="${S.guest.name}" hidden>
    <label>${t("old_password")} <input type="password" name="old_password" id="old-password" maxlength="${MAX_PASSWORD}"
      required autocomplete="current-password"></label>
    <label>${t("new_password")} <small class="muted">${t("password_hint")}</small>
      <input type="password" name="new_password" id="new-password" maxlength="${MAX_PASSWORD}" required autocomplete="new-password"></label>
    <label>${t("new_password_repeat")} <input type="password" name="new_password2" id="new-password2" maxlength="${MAX_PASSWORD}"
      required autocomplete="new-password"></label>
    <div class="row"><button class="btn primary" id="password-submit">${t("save_password")}</button>${cancel}</div></form>`;
}

const NOTE_MS = 12000; // a passing note of the account panel ("the name is yours now") stays this long
let noteTimer = null;

/** The account panel's state with a note that goes after NOTE_MS (or when dismissed). */
function passingNote(text) {
  clearTimeout(noteTimer);
  noteTimer = setTimeout(dropAccountNote, NOTE_MS);
  return { note: text, noteGoes: true, msg: null, loginName: "" };
}

/** The account panel's passing note goes (its time is up, or it was dismissed). */
function dropAccountNote() {
  clearTimeout(noteTimer);
  if (!S.account.noteGoes) return;
  S.account.note = null;
  S.account.noteGoes = false;
  document.getElementById("account-note-box")?.remove();
}

function accountMsg(text, kind = "error") {
  S.account.msg = text ? { text, kind } : null;
  const el = document.getElementById("account-msg");
  if (el) { el.textContent = text || ""; el.className = `form-msg ${kind}`; }
}

/** A new player in this browser (a login, a claim, a new guest) or none (logged out): the
 *  header, the lobby's lists and quick play follow. */
function playerChanged(g) {
  S.guest = g;
  if (!S.tableId && S.page === "lobby") openLobbyTalk(g && g.token, lobbyTalkChanged); // as who we are now
  S.ui.editName = false;
  S.ui.accountForm = null;
  S.history = null;
  S.myTournaments = [];
  S.quick = null;
  clearTimeout(quickTimer);
  renderHeader();
  if (S.tableId) connect(); // the socket now knows who we are
  else render();
  if (S.page === "lobby") loadTables();
  if (g) loadQuick();
}

/** The account's token stopped working (expired, logged out everywhere, a new password on
 *  another device): no new guest takes the name (it is taken); the player logs in again. */
function accountEnded(old) {
  S.account = { note: t("session_ended", { name: old.name }), msg: null, loginName: old.name };
  playerChanged(null);
  S.ui.accountForm = "login";
  if (!S.tableId) render();
}

// -- quick play: a table with players of a similar rating, bots after a wait -------------
function quickWaits() {
  const r = S.variants && S.variants.ranges && S.variants.ranges.quick_wait;
  const [low, high] = Array.isArray(r) && r.length === 2 ? r : [QUICK_WAITS[0], QUICK_WAITS[QUICK_WAITS.length - 1]];
  return [...new Set(QUICK_WAITS.map((w) => Math.min(high, Math.max(low, w))))].sort((a, b) => a - b);
}

function renderQuickPanel() {
  const q = S.quick;
  if (q && q.status === "waiting") {
    return html`<div class="quick-status" id="quick-status" data-status="waiting">${quickStatusHTML(q)}</div>
      <div class="row"><button class="btn" data-cmd="quick-cancel" id="quick-cancel">${t("cancel")}</button></div>`;
  }
  // matched (the table was opened once, app.js applyQuick): back to it, or play again
  const back = q && q.status === "matched" && q.table ? html`<div class="quick-status" id="quick-status" data-status="matched">
      <p class="row"><b>${t("quick_matched")}</b> <button class="btn small" data-cmd="open:${q.table}" id="quick-open">${
        t("quick_open")}</button></p></div>` : "";
  if (!S.variants) return html`${back}<p class="muted">${t("connecting")}</p>`;
  const chosen = S.quickVariant || S.createVariant || defaultVariant(S.variants);
  const waits = quickWaits();
  const pick = waits.includes(QUICK_WAIT) ? QUICK_WAIT : waits[Math.min(1, waits.length - 1)];
  return html`${back}<form class="create-form quick-form" data-form="quick">
    <p class="muted small-note">${t("quick_info")}</p>
    <label>${t("variant")} <select name="quick_variant" id="quick-variant">${S.variants.variants.map((v) =>
      html`<option value="${v.id}" ${v.id === chosen ? "selected" : ""}>${t("variant_" + v.id)}</option>`)}</select></label>
    <label>${t("quick_wait")} <select name="quick_wait" id="quick-wait">${waits.map((w) =>
      html`<option value="${w}" ${w === pick ? "selected" : ""}>${clockLabel(w)}</option>`)}</select></label>
    <button class="btn primary" id="quick-play">${t("quick_start")}</button>
    <p class="form-msg" id="quick-msg" role="alert"></p>
  </form>`;
}

function quickStatusHTML(q) {
  const waited = Math.max(0, Math.floor(Number(q.waited) || 0));
  const left = Math.max(0, Math.ceil((Number(q.wait) || 0) - (Number(q.waited) || 0)));
  const rating = Number.isFinite(q.rating) ? html` <small class="muted">(${t("quick_rating", { n: q.rating })})</small>` : "";
  return html`<p class="quick-searching"><span class="spinner" aria-hidden="true"></span> <b>${t("vname_" + q.variant)}</b>${rating}</p>
    <p class="quick-line" id="quick-line">${t("quick_searching", { n: waited })}</p>
    <p class="muted quick-queue">${quickQueueText(q)}</p>
    <p class="muted quick-bots">${left > 0 ? t("quick_bots_in", { n: left }) : t("quick_bots_now")}</p>`;
}

/** Who else waits in the queue (the server's ``others``: not the player himself). */
function quickQueueText(q) {
  const others = Math.max(0, Number(q.others) || 0);
  return others ? tn("quick_queue", others) : t("quick_queue_none");
}

let quickTimer = null;
let quickAsked = 0;

/** Quick play's status for this player (at the start too: a reload keeps waiting), polled
 *  every second while he waits; a match found opens its table once. */
async function loadQuick() {
  clearTimeout(quickTimer);
  quickTimer = null;
  if (!S.guest) { applyQuick(null); return; }
  const asked = ++quickAsked;
  let q = null;
  try {
    q = await api("GET", "/api/quick");
  } catch (e) {
    // a server without quick play (404) or not reachable now: keep polling a waiting one
    if (S.quick && S.quick.status === "waiting" && e.status !== 404 && e.status !== 401) q = S.quick;
  }
  if (asked === quickAsked) applyQuick(q);
}

function applyQuick(q) {
  const before = S.quick ? S.quick.status : "idle";
  S.quick = q && q.status ? q : null;
  const now = S.quick ? S.quick.status : "idle";
  clearTimeout(quickTimer);
  quickTimer = null;
  if (now === "waiting") quickTimer = setTimeout(loadQuick, 1000);
  if (now === "matched" && S.quick.table && localStorage.getItem(QUICK_SEEN) !== S.quick.table) {
    localStorage.setItem(QUICK_SEEN, S.quick.table); // opened once: back in the lobby it stays closed
    if (S.tableId !== S.quick.table) go(S.quick.table);
    return;
  }
  if (S.page !== "lobby" || S.tableId) return;
  if (now !== before) { render(); return; }
  if (now === "waiting") {
    const el = document.getElementById("quick-status");
    if (el) setHtml(el, quickStatusHTML(S.quick));
  }
}

async function startQuick(variant, wait) {
  const msg = document.getElementById("quick-msg");
  if (msg) msg.textContent = "";
  try {
    const q = await api("POST", "/api/quick", { variant, wait });
    applyQuick(q);
    if (S.quick && S.quick.status === "waiting") document.getElementById("quick-cancel")?.focus();
  } catch (e) {
    const el = document.getElementById("quick-msg");
    if (el) { el.textContent = errorText(e); el.className = "form-msg error"; } else toast(errorText(e), "error");
  }
}

function variantInfo(id) {
  return variantFacts(S.variants, id);
}

function renderCreateForm() {
  if (!S.variants) return html`<p class="muted">${t("connecting")}</p>`;
  const chosen = S.createVariant || defaultVariant(S.variants);
  const info = variantInfo(chosen);
  const { choices } = S.variants; // each option's values, from the engine (GET /api/variants)
  const opts = info.options.filter((o) => Object.hasOwn(choices, o)).map((o) => {
    const values = choices[o];
    return html`<label>${t("opt_" + o)} <select name="opt_${o}" id="opt-${o}">${values.map((x) =>
      html`<option value="${x}" ${info.defaults[o] === x ? "selected" : ""}>${t(`opt_${o}_${x}`)}</option>`)}</select></label>`;
  });
  const bots = botOptions(chosen);
  const levelHelp = levelsHelp(chosen);
  const [tmin, tmax] = range("target", [1, 5001]);
  const clocks = clockChoices();
  const clock = defaultClock(false);
  return html`<form class="create-form" data-form="create">
    <label>${t("variant")} <select name="variant" id="variant-select" data-fresh="1">${S.variants.variants.map((v) =>
      html`<option value="${v.id}" ${v.id === chosen ? "selected" : ""}>${t("variant_" + v.id)}</option>`)}</select></label>
    <label>${t("target")} <input type="number" name="target" id="target-input" min="${tmin}" max="${tmax}" step="1" value="${info.defaults.target}" data-fresh="1"></label>
    ${opts.length ? html`<fieldset><legend>${t("house_rules")}</legend>${opts}</fieldset>` : ""}
    <label>${t("bot")} <select name="bot" id="bot-select"${levelHelp ? html` aria-describedby="bot-help"` : ""}>${bots}</select></label>
    ${levelHelp ? html`<p class="muted form-help" id="bot-help">${levelHelp}</p>` : ""}
    <label>${t("turn_clock")} <select name="turn_clock" id="clock-select">${clocks.map((c) =>
      html`<option value="${c ?? ""}" ${c === clock ? "selected" : ""}>${clockLabel(c)}</option>`)}</select></label>
    <label class="check"><input type="checkbox" name="sit" id="sit-check" checked> ${t("sit_myself")}</label>
    <label class="check"><input type="checkbox" name="private" id="private-check"> ${t("private_table")}</label>
    <label class="check"><input type="checkbox" name="rated" id="rated-check" checked> ${t("rated_table")}</label>
    <button class="btn primary" id="create-table">${t("create")}</button>
  </form>`;
}

/** The bot choices of the create form: the levels for people first (GET /api/variants
 *  "levels", weakest first), each with its Elo over the beginner in ``variant`` where the
 *  arena measured it, then the other bots; the club player is preselected where the server
 *  has him, else the heuristic. */
function botOptions(variant) {
  const levels = S.variants.levels || [];
  const names = new Set(levels.map((l) => l.name));
  const pick = names.has("club") ? "club" : "heuristic";
  const measured = levels.some((l) => Object.hasOwn(l.elo || {}, variant));
  const option = (b, label) => html`<option value="${b}" ${b === pick ? "selected" : ""}>${label}</option>`;
  return [...levels.map((l) => option(l.name, levelLabel(l, variant, measured))),
    ...S.variants.bots.filter((b) => !names.has(b)).map((b) => option(b, botName(b)))];
}

/** A level's name with its Elo in ``variant`` ("Klupski igrač · +180 Elo"); the beginner is
 *  the baseline; nothing is added where the variant was not measured. */
function levelLabel(level, variant, measured) {
  const name = botName(level.name);
  const elo = (level.elo || {})[variant];
  if (measured && level.name === "beginner") return t("level_baseline", { name });
  if (typeof elo !== "number") return name;
  return t("level_elo", { name, elo: elo < 0 ? `−${-elo}` : `+${elo}` });
}

/** The line under the bot choice that explains the levels (and their numbers, if shown). */
function levelsHelp(variant) {
  const levels = S.variants.levels || [];
  if (!levels.length) return "";
  const measured = levels.some((l) => Object.hasOwn(l.elo || {}, variant));
  return measured ? `${t("levels_help")} ${t("levels_help_elo")}` : t("levels_help");
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

/** The lobby's tables of one kind: "open" ones (waiting for players) or "running" ones (the
 *  others: to watch); "more" is offered under the running ones. */
function renderTableList(kind) {
  const running = kind === "running";
  const tables = S.tables.filter((tb) => (tb.status === "open") !== running);
  const rest = S.tablesTotal - S.tables.length;
  const more = running && rest > 0 ? html`<button class="btn small more-tables" data-cmd="more-tables" id="more-tables">${
    t("more_tables", { n: rest })}</button>` : "";
  if (!tables.length) return html`<p class="muted">${t(running ? "no_running" : "no_tables")}</p>${more}`;
  return html`<ul class="table-list">${tables.map((tb) => {
    const names = joinHtml(tb.seats.map((s) => s.name ? s.name : html`<span class="free">${t("free_seat")}</span>`), ", ");
    const free = tb.seats.some((s) => !s.kind);
    const btn = tb.status === "open" && free
      ? html`<button class="btn small primary" data-cmd="open:${tb.id}">${t("join")}</button>`
      : html`<button class="btn small" data-cmd="open:${tb.id}">${t("watch")}</button>`;
    const clock = tb.turn_clock ? html` <small class="clock-info">${turnClockText(tb)}</small>` : "";
    // each seat's bot level (a table may mix them: a tournament's beginner and club pairs)
    const levels = [...new Set(tb.seats.filter((s) => s.kind === "bot").map((s) => s.bot || tb.bot))];
    const bots = levels.map((b) => html` <span class="tag bot-level" title="${t("bot")}">${botName(b)}</span>`);
    return html`<li data-table="${tb.id}"><div><b>${t("vname_" + tb.variant)}</b> ${t("target_short", { n: tb.options.target })}${clock}${bots}
      <span class="tag">${t("status_" + tb.status)}</span>${tb.rated ? html` <span class="tag rated">${t("rated_tag")}</span>` : ""}${tb.spectators ? html` <small class="muted">${t("spectators", { n: tb.spectators })}</small>` : ""}
      <div class="muted">${names}</div></div>${btn}</li>`;
  })}</ul>${more}`;
}

let tablesAsked = 0;

/** The lobby list: the pages shown so far (the first alone until "more" is used), newest
 *  first; a table that moved to the next page while they were read is listed once. */
/** The lobby's room drawn again (a line came); a refusal is said under it. */
function lobbyTalkChanged(msg) {
  const el = document.getElementById("lobby-talk-body");
  if (el) setHtml(el, renderLobbyTalk(S));
  if (msg.type === "error") showLobbyMessage(errorText({ code: msg.code, message: msg.message }), "error");
}

/** The lobby's friends panel drawn again (the rest of the lobby stays as it is). */
function refreshFriends() {
  const el = document.getElementById("friends-body");
  if (el) setHtml(el, renderFriendsPanel(S));
}

async function loadTables() {
  const asked = ++tablesAsked;
  if (!S.tableId && S.page === "lobby") loadFriends(S.guest, refreshFriends);
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
  if (list && S.page === "lobby" && asked === tablesAsked) {
    const more = document.activeElement && document.activeElement.id === "more-tables";
    setHtml(list, renderTableList("open"));
    const running = document.getElementById("running-list");
    if (running) setHtml(running, renderTableList("running"));
    if (more) document.getElementById("more-tables")?.focus({ preventScroll: true });
  }
  if (S.guest) {
    try {
      S.history = await api("GET", "/api/players/me/history");
    } catch { /* keep the old list */ }
    const hist = document.getElementById("history-list");
    if (hist && S.page === "lobby") setHtml(hist, renderHistory());
    try {
      S.myTournaments = (await api("GET", "/api/tournaments/mine")).tournaments;
    } catch { /* keep the old list */ }
    const mine = document.getElementById("my-tournaments");
    if (mine && S.page === "lobby") setHtml(mine, renderMyTournaments());
  }
}

/** The player's tournaments not over (tournaments.js shows them whole), each with the table
 *  he is to sit at now. */
function renderMyTournaments() {
  const list = S.guest ? S.myTournaments : [];
  if (!list.length) return html``;
  return html`<ul class="table-list">${list.map((x) => html`<li data-tournament="${x.id}"><div>
    <a href="/tournaments?id=${encodeURIComponent(x.id)}"><b>${x.name}</b></a> <span class="tag">${t("tstatus_" + x.status)}</span>
    ${x.table ? html`<div class="your-table"><b>${t("t_your_table")}</b></div>` : ""}</div>
    ${x.table ? html`<button class="btn small primary" data-cmd="open:${x.table}" data-your-table="${x.table}">${t("t_play")}</button>` : ""}</li>`)}</ul>`;
}

function renderHistory() {
  const games = S.history || [];
  if (!games.length) return html`<p class="muted">${t("no_history")}</p>`;
  return html`<ul class="table-list">${games.map((g, i) => {
    const facts = variantInfo(g.variant); // the winner is a side: a seat's (bela4: a pair's)
    const mine = facts ? facts.side_of[g.seat] : g.seat;
    const result = g.winner === null ? "" : g.winner === mine ? t("history_won") : t("history_lost");
    return html`<li data-history="${i}"><div><b>${t("vname_" + g.variant)}</b> ${g.totals.join(" : ")}
      <span class="tag">${result}</span><div class="muted">${g.players.map((p) => p || "?").join(", ")}</div></div>
      <span class="row"><a class="btn small" href="/analysis?table=${encodeURIComponent(g.table)}" data-analyse="${g.table}">${t("an_analyse")}</a>
      <button class="btn small" data-cmd="history:${i}">${t("download_record")}</button></span></li>`;
  })}</ul>`;
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
  // a newer state is on its way: this view is out of date (a resent one of the same seq,
  // after a sync or a reconnect, changes nothing: the tap stands)
  if (S.queue.some((m) => m.seq !== S.seq)) return false;
  // the lone card went already: one move a state (a claim is no move of the turn)
  if (S.autoSent === S.seq && !token.startsWith("claim ")) return false;
  if (send({ type: "act", action: token, seq: S.seq })) S.sent = { seq: S.seq, action: token };
  return true;
}

let codeAsked = null;

/** A new table summary (welcome, table, or a REST answer): a closed table ends the
 *  connection (no reconnecting to it); the creator of a private table keeps its code. */
function applySummary(table) {
  S.summary = table;
  loadAvatars((table.seats || []).map((s) => s.player_id), () => { if (!S.busy) render(); });
  // an absent player's grace: the bot takes his seat in autopilot_in seconds (from now)
  S.away = {};
  for (const s of table.seats || []) {
    if (typeof s.autopilot_in === "number" && !s.autopilot) S.away[s.seat] = performance.now() + s.autopilot_in * 1000;
  }
  tickAway();
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
  if (applyTalk(msg, performance.now())) { // talk: a phrase on its plate a few seconds, a line
    if (msg.type === "said") setTimeout(() => { if (!S.busy) render(); }, SHOWN_MS + 50);
    if (!S.busy) render();
    return;
  }
  if (msg.type === "welcome" || msg.type === "table") {
    applySummary(msg.table);
  } else if (msg.type === "state") {
    // the clock counts from now: the state may wait behind a trick being shown
    msg.deadline = msg.clock ? performance.now() + Math.max(0, Number(msg.clock.deadline_in) || 0) * 1000 : null;
    msg.ranOut = ranOut(msg);
    S.queue.push(msg);
    pump();
  } else if (msg.type === "thinking") { // a bot over its delay: a mark on its plate
    S.thinking = { seat: msg.seat, seq: msg.seq };
    if (!S.busy && msg.seq === S.seq) render();
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
      illegal: "illegal_action", wrong_seat: "illegal_action", deal_running: "err_deal_running",
      guest_phrases_only: "err_guest_phrases_only", rate_limited: "err_rate_limited",
      unknown_line: "err_unknown_line" }[msg.code];
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
        setTimeout(() => { // the shine goes; the hand is not redrawn under a tap
          S.picked = new Set();
          root().querySelectorAll(".hand-card.picked").forEach((c) => c.classList.remove("picked"));
        }, 2500);
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
  scheduleAutoplay();
}

// -- a lone legal card plays itself (prefs.autoplay) ----------------------------------------
let autoTimer = null;

/** The one card this seat may play now, or null (a choice, as with bela, is never made here). */
function loneCard() {
  const v = S.view;
  if (!v || v.seat === null || v.turn !== v.seat || v.phase !== "play" || S.status !== "running") return null;
  return v.legal.length === 1 && /^[789TJQKA][HDSC]$/.test(v.legal[0]) ? v.legal[0] : null;
}

/** After a state is shown: a lone legal card is played AUTOPLAY_MS later, unless the player
 *  played it first or the table moved on. */
function scheduleAutoplay() {
  clearTimeout(autoTimer);
  autoTimer = null;
  const card = S.prefs.autoplay ? loneCard() : null;
  if (!card || S.queue.length) return;
  const seq = S.seq;
  autoTimer = setTimeout(() => {
    autoTimer = null;
    if (S.seq !== seq || S.busy || S.queue.length || !S.prefs.autoplay || loneCard() !== card) return;
    if (S.sent && S.sent.seq === seq) return; // clicked already
    if (act(card)) S.autoSent = seq;
  }, AUTOPLAY_MS);
}

// -- an absent player's grace: the countdown to his bot ------------------------------------
let awayTimer = null;

/** Every second while a grace runs: the countdowns on the plates are rewritten. */
function tickAway() {
  clearTimeout(awayTimer);
  awayTimer = null;
  const now = performance.now();
  const left = Object.values(S.away).filter((d) => d > now);
  root().querySelectorAll("[data-away]").forEach((/** @type {HTMLElement} */ el) => {
    const d = S.away[el.dataset.away];
    const text = t("away_in", { n: d ? Math.max(0, Math.ceil((d - now) / 1000)) : 0 });
    if (el.textContent !== text) el.textContent = text;
  });
  if (left.length && S.tableId) awayTimer = setTimeout(tickAway, (Math.min(...left) - now) % 1000 + 15);
}

function myTurn() {
  const v = S.view;
  return !!v && v.seat !== null && v.turn === v.seat && S.status === "running" && v.phase !== "done";
}

function applyState(msg) {
  const before = myTurn();
  applyStateMessage(msg);
  soundsOf(msg.events || [], myTurn(), before).forEach(play);
  tickClock();
}

const CLOCK_WARN_MS = 5000; // the clock's sound: this long before one's own turn runs out
let clockWarned = null;

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
  if (ms <= CLOCK_WARN_MS && ms > 0 && S.view && S.clock.seat === S.view.seat && clockWarned !== S.clock.deadline) {
    clockWarned = S.clock.deadline;
    play("clock");
  }
  if (ms > 0) clockTimer = setTimeout(tickClock, (ms % 1000 || 1000) + 15);
}

// -- navigation -------------------------------------------------------------------------
let routed = false;

function route() {
  const params = new URLSearchParams(location.search);
  const id = params.get("table");
  const code = id && params.get("code"); // an invite link to a private table
  if (code) storeCode(id, code);
  const player = id ? null : params.get("player");
  const leaders = id || player ? null : params.get("leaders");
  const page = id ? "table" : player ? "profile" : leaders !== null ? "leaders" : "lobby";
  const first = !routed;
  const moved = first || page !== S.page || player !== S.profileId
    || (page === "leaders" && (!S.leaders || S.leaders.variant !== (leaders || defaultVariant(S.variants))));
  if (id !== S.tableId || first) { // the first time too: the lobby lists its tables at once
    routed = true;
    disconnect();
    resetTable(id, id ? code || storedCode(id) : null);
    resetTalk();
    tickClock(); // stops the countdown
    if (id) connect();
  }
  S.page = page;
  S.profileId = player;
  if (page === "lobby" && !lobbyTalk.ws) openLobbyTalk(S.guest && S.guest.token, lobbyTalkChanged);
  else if (page !== "lobby") closeLobbyTalk();
  if (moved) {
    loadFriends(S.guest, () => { if (!S.busy) render(); });
    if (page !== "table") S.toast = null;
    if (page === "lobby") { loadTables(); if (S.guest && !first) loadQuick(); }
    else if (page === "profile") loadProfile(player);
    else if (page === "leaders") loadLeaders(leaders || defaultVariant(S.variants));
    if (!first && page !== "table") window.scrollTo(0, 0);
  }
  renderHeader();
  render();
}

function go(tableId) {
  const url = tableId ? `/?table=${encodeURIComponent(tableId)}` : "/";
  navigate(url);
}

let focusPage = false; // a page opened by a link: its heading takes the focus once loaded

function navigate(url) {
  history.pushState(null, "", url);
  focusPage = true;
  route();
}

/** After a link opened the profile or the leaderboard: the keyboard goes on from its heading
 *  (unless the link is still there, as the leaderboard's variant switch). */
function focusHeading() {
  if (!focusPage) return;
  focusPage = false;
  const active = document.activeElement;
  if (active && active !== document.body && document.contains(active)) return;
  const h = /** @type {HTMLElement | null} */ (root().querySelector(".page h2"));
  if (h) { h.tabIndex = -1; h.focus({ preventScroll: true }); }
}

// -- the profile and the leaderboard ------------------------------------------------------
let profileAsked = 0;

async function loadProfile(id) {
  const asked = ++profileAsked;
  S.profile = { id, data: null, error: null };
  let data = null, error = null;
  try {
    const [player, tournaments] = await Promise.all([api("GET", `/api/players/${encodeURIComponent(id)}`),
      api("GET", `/api/tournaments/history/${encodeURIComponent(id)}`).catch(() => null)]);
    data = { ...player, tournaments: tournaments ? tournaments.tournaments : null };
  } catch (e) {
    error = e.status === 404 ? t("err_unknown_player") : errorText(e);
  }
  if (asked !== profileAsked) return;
  S.profile = { id, data, error };
  if (data) loadAvatars([id], () => { if (S.page === "profile") render(); });
  if (S.page === "profile" && S.profileId === id) { renderHeader(); render(); focusHeading(); }
}

let leadersAsked = 0;

async function loadLeaders(variant, more = false) {
  const asked = ++leadersAsked;
  if (!variant) { S.leaders = { variant, data: null, error: null }; return; } // GET /api/variants tells
  const old = S.leaders && S.leaders.variant === variant && S.leaders.data ? S.leaders.data : null;
  const offset = more && old ? old.entries.length : 0;
  if (!more) S.leaders = { variant, data: null, error: null };
  let data = null, error = null;
  try {
    data = await api("GET", `/api/leaderboard?variant=${encodeURIComponent(variant)}&limit=${LEADERS_PAGE}&offset=${offset}`);
    if (more && old) {
      const seen = new Set(old.entries.map((e) => e.player_id));
      data = { ...data, entries: [...old.entries, ...data.entries.filter((e) => !seen.has(e.player_id))] };
    }
  } catch (e) {
    if (more && old) { toast(errorText(e), "error"); return; }
    error = errorText(e);
  }
  if (asked !== leadersAsked) return;
  S.leaders = { variant, data, error };
  if (data) loadAvatars(data.entries.map((e) => e.player_id), () => { if (S.page === "leaders") render(); });
  if (S.page === "leaders") { renderHeader(); render(); focusHeading(); }
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

/** The commands of the controls by name (commands.js, by area). */
let commands = null;

async function onCommand(cmd, el, ev) {
  const [name, arg = ""] = cmd.split(/:(.*)/s);
  commands ??= (() => {
    const app = { render, root, go, navigate, run, toast, errorText, loadTables, loadLeaders, applyQuick,
      saveRecord, dropAccountNote, accountMsg, playerChanged, applySummary, act, downloadRecord };
    return { ...lobbyCommands(app), ...accountCommands(app), ...tableCommands(app),
      ...talkCommands({ render, renderHeader, send, toast, setSound, soundOn }),
      ...friendCommands({ render, toast, run, reload: () => loadFriends(S.guest, render) }) };
  })();
  const handler = Object.hasOwn(commands, name) ? commands[name] : null;
  if (handler) await handler(arg, el, ev);
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
  // enforce = off: the card is played, and the player is told which rule it breaks (R24),
  // long enough to read the rule while the next cards come
  if (act(bela ? code + "*" : code) && refusal) toast(t("revoke_played", { reason: reasonText(refusal, makeNames(S)) }), "warn", 8000);
}

function onClick(ev) {
  const target = ev.target;
  const cmdEl = target.closest("[data-cmd]");
  const actEl = target.closest("[data-act]");
  const cardEl = target.closest("[data-card]");
  if (actEl && !actEl.disabled) { act(actEl.dataset.act); return; }
  if (cardEl) { onCard(cardEl.dataset.card); return; }
  if (cmdEl && !cmdEl.disabled) {
    if (cmdEl.tagName === "A") { // a link: opened here, unless asked for a new tab or window
      if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey || ev.button) return;
      ev.preventDefault();
    }
    onCommand(cmdEl.dataset.cmd, cmdEl, ev);
  }
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
    S.account = { note: null, msg: null, loginName: "" };
    playerChanged(g);
  } else if (form.dataset.form === "lobby-talk") {
    const text = String(data.get("talk_text") || "").trim();
    if (!text) return;
    sendLobbyTalk({ type: "chat", text });
    form.reset();
  } else if (form.dataset.form === "talk") {
    const text = String(data.get("talk_text") || "").trim();
    if (!text) return;
    send({ type: "chat", text });
    form.reset();
  } else if (form.dataset.form === "login") {
    const name = String(data.get("login_name") || "").trim();
    const password = String(data.get("login_password") || "");
    if (!name || !password) return;
    S.account.loginName = name;
    accountMsg(null);
    let g;
    try {
      g = await login(name, password);
    } catch (e) {
      accountMsg(errorText(e));
      /** @type {HTMLInputElement | null} */ (document.getElementById("login-password"))?.select();
      return;
    }
    S.account = passingNote(t("logged_in", { name: g.name }));
    playerChanged(g);
    document.getElementById("my-profile")?.focus();
  } else if (form.dataset.form === "claim") {
    const name = String(data.get("claim_name") || "").trim();
    const password = String(data.get("claim_password") || "");
    if (password !== String(data.get("claim_password2") || "")) { accountMsg(t("passwords_differ")); return; }
    if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) { accountMsg(t("err_weak_password")); return; }
    let g;
    try {
      g = await claimName(password, name && S.guest && name !== S.guest.name ? name : null);
    } catch (e) {
      accountMsg(errorText(e));
      return;
    }
    S.account = passingNote(t("claimed", { name: g.name }));
    S.ui.accountForm = null;
    S.guest = g;
    openLobbyTalk(g.token, lobbyTalkChanged); // the room knows the account now
    renderHeader();
    render();
    document.getElementById("my-profile")?.focus();
  } else if (form.dataset.form === "password") {
    const old = String(data.get("old_password") || "");
    const password = String(data.get("new_password") || "");
    if (password !== String(data.get("new_password2") || "")) { accountMsg(t("passwords_differ")); return; }
    if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) { accountMsg(t("err_weak_password")); return; }
    let g;
    try {
      g = await changePassword(old, password);
    } catch (e) {
      accountMsg(errorText(e));
      return;
    }
    S.guest = g;
    S.account = passingNote(t("password_changed"));
    S.ui.accountForm = null;
    render();
    document.getElementById("show-password")?.focus();
  } else if (form.dataset.form === "quick") {
    if (!S.guest) { toast(t("need_name"), "warn"); document.getElementById("guest-name")?.focus(); return; }
    S.quickVariant = String(data.get("quick_variant") || defaultVariant(S.variants));
    await startQuick(S.quickVariant, Number(data.get("quick_wait")) || QUICK_WAIT);
  } else if (form.dataset.form === "create") {
    if (!S.guest) { toast(t("need_name"), "warn"); document.getElementById("guest-name")?.focus(); return; }
    const variant = String(data.get("variant"));
    const info = variantInfo(variant);
    const options = { target: Number(data.get("target")) || info.defaults.target };
    for (const o of info.options) if (Object.hasOwn(S.variants.choices, o) && data.get("opt_" + o)) options[o] = String(data.get("opt_" + o));
    const clock = Number(data.get("turn_clock"));
    const body = { variant, options, bot: String(data.get("bot")), seat: data.get("sit") ? 0 : null,
      private: !!data.get("private"), turn_clock: Number.isInteger(clock) && clock > 0 ? clock : null,
      rated: !!data.get("rated") };
    const tb = await run(() => api("POST", "/api/tables", body));
    if (!tb) return;
    if (tb.invite_code) storeCode(tb.id, tb.invite_code); // only its creator is told the code
    go(tb.id);
  }
}

function onChange(ev) {
  const el = ev.target;
  if (el.dataset.pref) {
    S.prefs[el.dataset.pref] = el.type === "checkbox" ? el.checked : el.value;
    savePrefs(S.prefs);
    scheduleAutoplay();
    setLang(S.prefs.lang);
    renderHeader();
    render();
    // at the table the keys (arrows, Z/L, B/S) work again at once; in the lobby the
    // choice stays focused
    const game = /** @type {HTMLElement | null} */ (root().querySelector(".game"));
    if (game) game.focus({ preventScroll: true });
    else /** @type {HTMLElement | null} */ (document.querySelector(`[data-pref="${el.dataset.pref}"]`))?.focus();
  } else if (el.id === "variant-select") {
    S.createVariant = el.value;
    render();
  } else if (el.id === "clock-select") {
    S.ui.clockTouched = true; // the player's choice stays, private or not
  } else if (el.id === "private-check" && !S.ui.clockTouched) {
    const select = /** @type {HTMLSelectElement | null} */ (document.getElementById("clock-select"));
    if (select) select.value = String(defaultClock(el.checked) ?? "");
  }
}

function onKey(ev) {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (ev.key === "Escape") {
    if (S.ui.sheet || S.ui.lastTrick || S.ui.claimAsk) { S.ui.sheet = S.ui.lastTrick = S.ui.claimAsk = false; render(); return; }
    if (S.ui.belaCard) { S.ui.belaCard = null; render(); return; }
    return;
  }
  if (tag === "input" || tag === "select" || tag === "textarea" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (!S.view) return;
  const k = ev.key.toLowerCase();
  if (k === "l" || k === "z") { S.ui.lastTrick = !S.ui.lastTrick; S.ui.sheet = false; render(); return; }
  if (k === "s" || k === "b") { S.ui.sheet = !S.ui.sheet; S.ui.lastTrick = false; render(); return; }
  if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
    const cards = [.../** @type {NodeListOf<HTMLElement>} */ (root().querySelectorAll(".hand [data-card]"))];
    if (!cards.length) return;
    const i = cards.indexOf(/** @type {HTMLElement} */ (document.activeElement));
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
  S.quick = null;
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
  document.addEventListener("pointerdown", pressed, true);
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("change", onChange);
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", route);
  onGuestRenewed(guestRenewed);
  onAccountEnded(accountEnded);
  route();
  const before = S.guest && S.guest.token;
  S.guest = await checkGuest(); // an ended account is logged out on the way (accountEnded)
  renderHeader();
  if (S.page === "lobby" && S.guest && S.guest.token !== before) loadTables(); // a new or changed guest
  try { S.variants = await api("GET", "/api/variants"); } catch { S.variants = null; }
  // the leaderboard asked for without a variant shows the first one, known only now
  if (S.page === "leaders" && S.leaders && !S.leaders.variant) loadLeaders(defaultVariant(S.variants));
  if (!S.tableId) render();
  if (S.guest) loadQuick(); // still waiting for a quick match after a reload, or matched
  setInterval(() => {
    if (S.page !== "lobby") return;
    loadTables();
    if (S.quick && S.quick.status === "matched") loadQuick(); // its table may have finished
  }, lobbyRefreshMs());
}

main();
export { S, lang };
