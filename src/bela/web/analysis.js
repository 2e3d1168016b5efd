// @ts-check
// The analysis board (/analysis, issue 13): a finished match step by step, every hand face up
// or one seat's view ("what did I know?"), the double-dummy value of each legal card and the
// value over the deals that seat could have held, the costly plays of the whole match, the
// bidding simulations, and "play on from here" against bots.  The server replays the record
// and computes every number (docs/PROTOCOL.md, "Analysis"); this module shows them and holds
// no rule of play: who made an action is read off the server's views.

import { LANGS, setLang, t, tn } from "./i18n.js";
import { savePrefs } from "./prefs.js";
import {
  DECKS, cardBackSVG, cardSVG, ensureSprite, isTrump, rankOf, sortHand, suitIcon, suitOf,
} from "./cards.js";
import { api, newGuest, storeCode } from "./api.js";
import { declShape, declText, declareGroups, faceUp, makeNames, teamOf } from "./table.js";
import { html, joinHtml, setHtml } from "./html.js";
import { A, dropRecord, moveTo, takeRecord, viewAs } from "./analysis-state.js";

const POLL_MS = 400; // the review's progress is asked for this often
const CACHE_MAX = 400; // positions kept in memory
const BIG_LOSS = 10; // a costly play losing at least this many points is stressed
const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"] };
// the step buttons' pictures (drawn: not every phone's fonts have ⏮ ⏭)
const icon = (d) => html`<svg class="an-icon" viewBox="0 0 10 10" aria-hidden="true" focusable="false"><path d="${d}"/></svg>`;
const ICONS = { first: icon("M1.5 1.5h1.6v7H1.5zM8.5 1.5v7L3.5 5z"), prev: icon("M8 1.5v7L2.5 5z"),
  next: icon("M2 1.5v7L7.5 5z"), last: icon("M6.9 1.5h1.6v7H6.9zM1.5 1.5v7L6.5 5z") };
const CARD_TOKEN = /^(?:10|[789TJQKA])[HDSC♥♦♠♣]\*?$/i;



/** A refused request in words. */
function errorText(e) {
  const code = e && e.code;
  if (code === "too_busy") return t("an_err_busy");
  if (code === "rate_limited") {
    return e.retryAfter > 0 ? t("err_rate_limited_in", { n: e.retryAfter }) : t("err_rate_limited");
  }
  if (code === "unknown_table") return t("unknown_table");
  if (code === "not_finished") return t("an_err_not_finished");
  if (code === "private_record") return t("an_err_private");
  if (code === "closed") return t("an_err_closed");
  if (code === "bad_record" || code === "bad_position") return t("an_bad_record", { reason: e.message });
  if (code === "already_playing") return t("err_already_playing");
  if (code === "too_many_reviews") return t("an_err_reviews");
  if (code === "position_over") return t("an_err_over");
  if (code === "too_many_tables") return t("err_too_many_tables");
  return (e && e.message) || String(e);
}

// -- the record -------------------------------------------------------------------------
const rounds = () => (A.record ? A.record.rounds : []);
const roundLen = (r) => rounds()[r].actions.length;

function seatCount() {
  const first = rounds()[0];
  return first && Array.isArray(first.hands) ? first.hands.length : 4;
}

/** A token's kind, read off its spelling only (docs/RECORD.md, "Action tokens"). */
function kindOf(tok) {
  const s = String(tok).trim();
  if (CARD_TOKEN.test(s)) return "play";
  if (/^(pass|[HDSC]|VC|BC)$/i.test(s)) return "bid";
  if (/^declare\s/i.test(s)) return "declare";
  if (/^discard\s/i.test(s)) return "discard";
  if (/^(swap|redeal)$/i.test(s)) return "exchange";
  if (/^claim\b/i.test(s)) return "claim";
  return "other";
}

/** A card as the record writes it ("10h" and "♥" are read as "TH"). */
function cardCode(tok) {
  return String(tok).trim().toUpperCase().replace(/^10/, "T")
    .replace(/[♥♦♠♣]/g, (c) => "HDSC"["♥♦♠♣".indexOf(c)]).replace("*", "");
}

function cardsOf(text) {
  return String(text).trim().split(/\s+/).filter(Boolean).map(cardCode);
}

/** The play tokens before ``index`` in round ``r``, counted in tricks: its trick (1-based). */
function trickOf(r, index) {
  const plays = rounds()[r].actions.slice(0, index).filter((a) => kindOf(a) === "play").length;
  return Math.floor(plays / seatCount()) + 1;
}

/** Who made each action of a round, read off the public view at its end: its bids, its
 *  tricks (seat by seat), its exchanges; a declaration is the next card's seat's. */
function actionSeats(actions, v) {
  if (!v) return [];
  const bids = (v.bids || []).map((b) => b.seat);
  const plays = [...(v.tricks || []).flatMap((tr) => tr.cards), ...(v.trick || [])].map((p) => p.seat);
  const swaps = (v.exchanges || []).filter((e) => e.action !== "keep").map((e) => e.seat);
  const seats = actions.map((tok) => {
    switch (kindOf(tok)) {
      case "bid": return bids.shift() ?? null;
      case "play": return plays.shift() ?? null;
      case "exchange": return swaps.shift() ?? null;
      case "discard": return v.caller ?? null;
      case "claim": { const n = Number.parseInt(String(tok).split(/\s+/)[1], 10); return Number.isFinite(n) ? n : null; }
      default: return undefined;
    }
  });
  for (let i = seats.length - 1; i >= 0; i--) {
    if (seats[i] === undefined) seats[i] = i + 1 < seats.length ? seats[i + 1] ?? null : null;
  }
  return seats;
}

/** A record read from text, or an Error with words for the player. */
function parseRecord(text) {
  let rec;
  try { rec = JSON.parse(text); } catch { throw new Error(t("an_bad_json")); }
  if (!rec || typeof rec !== "object" || !Array.isArray(rec.rounds) || !rec.rounds.length
      || !rec.rounds.every((r) => r && Array.isArray(r.hands) && Array.isArray(r.actions))) {
    throw new Error(t("an_bad_json"));
  }
  return rec;
}

// -- names and texts --------------------------------------------------------------------
function names() {
  const rec = A.record;
  const n = seatCount();
  const v = A.pos && A.pos.view;
  const facts = recordFacts();
  const sides = v && v.sides ? v.sides : facts ? facts.sides : n;
  const players = Array.isArray(rec.players) ? rec.players : [];
  return makeNames({
    prefs: A.prefs,
    view: { seat: null, seats: n, sides },
    summary: { variant: rec.variant, facts, seats: [...Array(n).keys()].map((s) => ({ seat: s, name: players[s] || "" })) },
  });
}

/** The facts of the record's variant (GET /api/variants), or null. */
function recordFacts() {
  const all = A.variants ? A.variants.variants : [];
  return all.find((x) => A.record && x.id === A.record.variant) || null;
}

function numText(x, digits = 1) {
  if (x === null || x === undefined || Number.isNaN(Number(x))) return "–";
  try {
    return new Intl.NumberFormat(A.prefs.lang === "hr" ? "hr-HR" : "en-GB",
      { maximumFractionDigits: digits }).format(x);
  } catch {
    return String(Math.round(x * 10) / 10);
  }
}

/** A card in a line of text: its suit's pip and its rank (10 is "10", never T). */
function cardChip(code, N) {
  const r = rankOf(code);
  const rank = N.deck === "french" ? (r === "T" ? "10" : r)
    : "789T".includes(r) ? t(`rank_${r}`) : t(`rank_${r}_hu`);
  return html`<span class="an-chip" data-code="${code}" title="${N.cardText(code)}">${suitIcon(suitOf(code), N.deck)}<span>${rank}</span></span>`;
}

function bidHTML(tok, N) {
  const b = String(tok).trim();
  if (/^pass$/i.test(b)) return t("pass");
  if (/^VC$/i.test(b)) return t("vc");
  if (/^BC$/i.test(b)) return t("bc");
  const s = b.toUpperCase();
  return html`${suitIcon(s, N.deck)} <span>${N.suitName(s)}</span>`;
}

/** An action of the record in words (and pips). */
function actionHTML(tok, N) {
  const s = String(tok).trim();
  switch (kindOf(s)) {
    case "play": {
      const code = cardCode(s);
      return html`${cardChip(code, N)}${s.endsWith("*") ? html` <span class="tag an-bela">${t("bela")}!</span>` : ""}`;
    }
    case "bid": return bidHTML(s, N);
    case "declare": {
      const groups = declareGroups(s).map((g) => g.map(cardCode));
      return `${t("declared")}: ${groups.map((g) => declText(declShape(g))).join(", ")}`;
    }
    case "discard": return html`${t("discards")}: ${joinHtml(cardsOf(s.slice(8)).map((c) => cardChip(c, N)), " ")}`;
    case "exchange": return t(/^swap$/i.test(s) ? "an_swap" : "an_redeal");
    case "claim": return t("outcome_claim");
    default: return s;
  }
}

// -- positions (POST /api/analysis/position) --------------------------------------------
const cache = new Map(); // "round:step:seat" -> a promise of the position
let ticket = 0;

function fetchPosition(round, step, seat) {
  const key = `${round}:${step}:${seat ?? "all"}`;
  let p = cache.get(key);
  if (!p) {
    p = api("POST", "/api/analysis/position", { record: A.record, round, step, seat });
    p.catch(() => cache.delete(key));
    cache.set(key, p);
    while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value);
  }
  return p;
}

async function loadPosition() {
  const mine = ++ticket;
  const { round, step, seat } = A;
  A.posBusy = true;
  A.posError = null;
  renderBoardState();
  try {
    const p = await fetchPosition(round, step, seat);
    if (mine !== ticket) return;
    A.pos = { ...p, at: { round, step, seat } };
    A.posBusy = false;
    render();
    // the next step is asked for at once: stepping on shows it without a wait
    if (step < roundLen(round)) fetchPosition(round, step + 1, seat).catch(() => {});
  } catch (e) {
    if (mine !== ticket) return;
    A.posBusy = false;
    A.posError = errorText(e);
    render();
    // the analysis is busy (a review holds it), or the address asked too fast: asked again
    // once it had time, unless moved on
    if (e.code === "too_busy" || (e.code === "rate_limited" && e.retryAfter > 0)) {
      setTimeout(() => { if (mine === ticket) loadPosition(); }, 1000 * (e.retryAfter || 2));
    }
  }
}

/** Who made each action of round ``r`` (the public view at its end); once per round. */
async function loadOutline(r) {
  if (A.outlines[r] && !A.outlines[r].error) return;
  const rec = A.record;
  A.outlines[r] = { busy: true };
  let outline;
  try {
    const p = await fetchPosition(r, roundLen(r), null);
    outline = { seats: actionSeats(rec.rounds[r].actions, p.view), result: p.view && p.view.result };
  } catch {
    outline = { error: true };
  }
  if (A.record !== rec) return;
  A.outlines[r] = outline;
  renderList();
}

/** Every round's outline, the current one first, one after another. */
async function loadOutlines() {
  const rec = A.record;
  await loadOutline(A.round);
  for (let r = 0; r < rec.rounds.length && A.record === rec; r++) await loadOutline(r);
}

/** The bots' simulation of every bid of round ``r`` (POST /api/analysis/bidding). */
async function loadBidding(r) {
  if (A.bidding[r] && !A.bidding[r].error) return;
  if (!rounds()[r].actions.some((a) => kindOf(a) === "bid")) return;
  A.bidding[r] = { busy: true };
  const rec = A.record;
  try {
    const data = await api("POST", "/api/analysis/bidding", { record: rec, round: r });
    if (A.record !== rec) return;
    A.bidding[r] = { bids: data.bids || [] };
  } catch (e) {
    if (A.record !== rec) return;
    A.bidding[r] = { error: errorText(e) };
  }
  renderSide();
}

// -- the review of the whole match (POST/GET /api/analysis/reviews) ---------------------
let reviewTimer = null;

async function startReview() {
  clearTimeout(reviewTimer);
  const rec = A.record;
  A.review = { status: "queued", done: 0, total: 0 };
  renderReview();
  try {
    const r = await api("POST", "/api/analysis/reviews", { record: rec });
    if (A.record !== rec) return;
    A.review = r;
  } catch (e) {
    if (A.record !== rec) return;
    A.review = { status: "failed", error: errorText(e), done: 0, total: 0 };
  }
  reviewUpdated();
}

function reviewUpdated() {
  renderReview();
  renderList();
  const r = A.review;
  if (r && r.id && (r.status === "queued" || r.status === "running")) {
    reviewTimer = setTimeout(pollReview, POLL_MS);
  }
}

async function pollReview() {
  const rec = A.record;
  const id = A.review && A.review.id;
  if (!id) return;
  try {
    const r = await api("GET", `/api/analysis/reviews/${encodeURIComponent(id)}`);
    if (A.record !== rec) return;
    A.review = r;
  } catch (e) {
    if (A.record !== rec) return;
    A.review = { ...A.review, status: "failed", error: errorText(e) };
  }
  reviewUpdated();
}

/** The costly plays by "round:index". */
function costly() {
  const out = new Map();
  const r = A.review;
  if (r && r.status === "done") for (const p of r.plays || []) out.set(`${p.round}:${p.index}`, p);
  return out;
}

// -- opening a record -------------------------------------------------------------------
function openRecord(rec, { tableId = null, source = "", round = 0, step = 0 } = {}) {
  clearTimeout(reviewTimer);
  cache.clear();
  ticket += 1;
  const r = Math.min(Math.max(0, round | 0), rec.rounds.length - 1);
  const s = Math.min(Math.max(0, step | 0), rec.rounds[r].actions.length);
  takeRecord(rec, { tableId, source, round: r, step: s, bottom: mySeatIn(rec) });
  updateUrl();
  render();
  loadPosition();
  loadOutlines();
  loadBidding(A.round);
  startReview();
  document.getElementById("an-board")?.focus({ preventScroll: true });
}

/** The stored player's seat in the record (by name), else the first seat. */
function mySeatIn(rec) {
  const g = A.guest;
  const i = g && Array.isArray(rec.players) ? rec.players.indexOf(g.name) : -1;
  return i >= 0 ? i : 0;
}

async function openTable(id, at) {
  A.loading = true;
  A.loadError = null;
  render();
  try {
    const rec = await api("GET", `/api/tables/${encodeURIComponent(id)}/record`);
    openRecord(rec, { tableId: id, source: t("an_source_table", { id }), ...at });
  } catch (e) {
    A.loading = false;
    A.loadError = errorText(e);
    render();
    loadHistory();
  }
}

function openText(text, source) {
  try {
    openRecord(parseRecord(text), { source });
  } catch (e) {
    A.loadError = e.message;
    render();
  }
}

async function openFile(file) {
  if (!file) return;
  let text;
  try { text = await file.text(); } catch { text = ""; }
  openText(text, t("an_source_file", { name: file.name }));
}

async function loadHistory() {
  if (!A.guest || A.history) return;
  try {
    A.history = await api("GET", "/api/players/me/history");
  } catch {
    A.history = [];
  }
  if (!A.record) render();
}

function updateUrl() {
  const q = new URLSearchParams();
  if (A.tableId) q.set("table", A.tableId);
  if (A.record) { q.set("round", String(A.round)); q.set("step", String(A.step)); }
  const url = `/analysis${q.toString() ? "?" + q.toString() : ""}`;
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
}

// -- stepping ---------------------------------------------------------------------------
function goTo(round, step) {
  if (!A.record) return;
  const r = Math.min(Math.max(0, round), rounds().length - 1);
  const s = Math.min(Math.max(0, step), roundLen(r));
  if (r === A.round && s === A.step) return;
  if (moveTo(r, s)) { loadOutline(r); loadBidding(r); }
  updateUrl();
  renderControls();
  renderList(true);
  loadPosition();
}

function stepBy(d) {
  let r = A.round, s = A.step + d;
  if (s > roundLen(r)) {
    if (r + 1 < rounds().length) { r += 1; s = 0; } else s = roundLen(r);
  } else if (s < 0) {
    if (r > 0) { r -= 1; s = roundLen(r); } else s = 0;
  }
  goTo(r, s);
}

function setView(seat) {
  viewAs(seat);
  renderControls();
  loadPosition();
}

// -- rendering --------------------------------------------------------------------------
const root = () => document.getElementById("an-app");

function renderHeader() {
  const h = document.getElementById("header");
  const deck = A.prefs.deck === "french" ? "fr" : "hu";
  setHtml(h, html`<a class="brand" href="/"><svg class="logo" viewBox="0 0 10 10" aria-hidden="true"><use href="#pip-${deck}-H"/></svg> <span>${t("title")}</span></a>
    <nav class="site-nav"><a href="/">${t("lobby")}</a><a href="/analysis" aria-current="page">${t("an_title")}</a></nav>
    <div class="prefs">
      <label>${t("lang")} <select id="lang-select" data-pref="lang">${LANGS.map((l) =>
        html`<option value="${l}" ${l === A.prefs.lang ? "selected" : ""}>${l.toUpperCase()}</option>`)}</select></label>
      <label>${t("deck")} <select id="deck-select" data-pref="deck">${DECKS.map((d) =>
        html`<option value="${d}" ${d === A.prefs.deck ? "selected" : ""}>${t("deck_" + d)}</option>`)}</select></label>
    </div>`);
  document.title = `${t("an_title")} – ${t("title")}`;
}

/** Re-render, keeping the focused control (by id) and the action list's scroll. */
function render() {
  const el = root();
  const focused = document.activeElement && document.activeElement.id;
  if (!A.record) {
    setHtml(el, renderLoad());
  } else {
    if (!el.querySelector(".an-page")) setHtml(el, shell());
    renderControls();
    renderBoard();
    renderSide();
    renderReview();
    renderList();
  }
  if (focused && document.activeElement !== document.getElementById(focused)) {
    document.getElementById(focused)?.focus({ preventScroll: true });
  }
}

function region(id, content) {
  const el = document.getElementById(id);
  if (!el) return null;
  const focused = document.activeElement && el.contains(document.activeElement) ? document.activeElement.id : null;
  setHtml(el, content);
  if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  return el;
}

function shell() {
  return html`<div class="an-page">
    <section class="panel an-head" aria-labelledby="an-heading">
      <h2 id="an-heading"></h2>
      <p class="muted an-source" id="an-source"></p>
      <div class="row an-switch" id="an-switch" role="group" aria-labelledby="an-switch-label"></div>
    </section>
    <div class="an-controls" id="an-controls"></div>
    <div class="an-main">
      <div class="an-left">
        <section class="an-board" id="an-board" tabindex="-1" aria-label="${t("an_title")}"></section>
        <div id="an-side"></div>
      </div>
      <aside class="an-aside">
        <section class="panel an-review" id="an-review"></section>
        <section class="panel an-list-panel"><h2>${t("an_actions")}</h2>
          <p class="muted an-keys">${t("an_keys")}</p>
          <nav class="an-list" id="an-list" aria-label="${t("an_actions")}"></nav></section>
      </aside>
    </div>
    <p class="an-other"><button type="button" class="btn ghost" id="an-other">${t("an_open_other")}</button></p>
  </div>`;
}

function renderControls() {
  if (!A.record) return;
  const N = names();
  const rec = A.record;
  const head = document.getElementById("an-heading");
  if (head) {
    setHtml(head, html`${t("an_title")} <small>${t("vname_" + rec.variant)} · ${
      [...Array(seatCount()).keys()].map((s) => N.seatName(s)).join(", ")}</small>`);
  }
  const src = document.getElementById("an-source");
  if (src) src.textContent = A.source;
  const len = roundLen(A.round);
  const last = rounds().length - 1;
  const atStart = A.round === 0 && A.step === 0;
  const atEnd = A.round === last && A.step === len;
  const roundsSel = rounds().map((_, i) => html`<option value="${i}" ${i === A.round ? "selected" : ""}>${t("round_n", { n: i + 1 })}</option>`);
  const viewBtn = (seat, label) => html`<button type="button" class="btn small" id="an-view-${seat ?? "all"}" data-view="${seat ?? "all"}" aria-pressed="${A.seat === seat}">${label}</button>`;
  region("an-controls", html`<div class="row an-steps">
      <label class="an-round-pick"><span class="sr-only">${t("an_round")}</span><select id="an-round">${roundsSel}</select></label>
      <button type="button" class="btn small" id="an-first" data-step="first" title="${t("an_first")}" aria-label="${t("an_first")}" aria-keyshortcuts="Home" ${A.step === 0 ? "disabled" : ""}>${ICONS.first}</button>
      <button type="button" class="btn small" id="an-prev" data-step="prev" title="${t("an_prev")}" aria-label="${t("an_prev")}" aria-keyshortcuts="ArrowLeft" ${atStart ? "disabled" : ""}>${ICONS.prev}</button>
      <span class="an-counter" id="an-counter" data-round="${A.round}" data-step="${A.step}">${t("an_step", { n: A.step, total: len })}</span>
      <button type="button" class="btn small" id="an-next" data-step="next" title="${t("an_next")}" aria-label="${t("an_next")}" aria-keyshortcuts="ArrowRight" ${atEnd ? "disabled" : ""}>${ICONS.next}</button>
      <button type="button" class="btn small" id="an-last" data-step="last" title="${t("an_last")}" aria-label="${t("an_last")}" aria-keyshortcuts="End" ${A.step === len ? "disabled" : ""}>${ICONS.last}</button>
    </div>`);
  region("an-switch", html`<span id="an-switch-label" class="an-switch-label" title="${t("an_view_note")}">${t("an_view")}</span>
      ${viewBtn(null, t("an_view_all"))}${[...Array(seatCount()).keys()].map((s) => viewBtn(s, N.seatName(s)))}`);
}

/** Only the board's waiting marks (a position is on its way): the old one stays drawn. */
function renderBoardState() {
  const el = document.getElementById("an-board");
  if (!el) return;
  const p = A.pos;
  const ready = !A.posBusy && !A.posError && p && p.at.round === A.round && p.at.step === A.step && p.at.seat === A.seat;
  el.dataset.ready = ready ? "true" : "false";
  el.classList.toggle("stale", !ready);
}

function renderBoard() {
  const el = document.getElementById("an-board");
  if (!el) return;
  const p = A.pos;
  if (!p) {
    setHtml(el, A.posError ? html`<p class="an-error" role="alert">${A.posError}</p>`
      : html`<p class="an-wait"><span class="spinner"></span> ${t("an_loading")}</p>`);
    renderBoardState();
    return;
  }
  const N = names();
  const v = p.view || {};
  const n = seatCount();
  const bottom = p.at.seat ?? A.bottom;
  const pos = (seat) => POSITIONS[n][(seat - bottom + n) % n];
  Object.assign(el.dataset, { round: p.at.round, step: p.at.step, seat: p.at.seat ?? "all",
    phase: p.phase || v.phase || "", turn: p.turn ?? "" });
  const seats = [...Array(n).keys()].map((s) => renderSeat(p, v, N, s, pos(s)));
  setHtml(el, html`${renderInfo(p, v, N)}
    <div class="an-felt" data-seats="${n}">${seats}
      <div class="an-center">${renderTrick(p, v, N, pos)}${renderFaceUp(v, N)}</div>
    </div>
    <div class="an-status" id="an-status" role="status" aria-live="polite">${renderStatus(p, v, N)}</div>
    ${A.posError ? html`<p class="an-error" role="alert">${A.posError}</p>` : ""}`);
  renderBoardState();
}

function renderInfo(p, v, N) {
  const parts = [html`<b>${t("round_n", { n: p.at.round + 1 })}</b>`]; // each a span: "·" between them (CSS)
  if (v.dealer !== undefined && v.dealer !== null) parts.push(t("an_dealer", { name: N.seatName(v.dealer) }));
  if (v.contract) {
    parts.push(html`<span class="contract${v.raspas ? " raspas" : ""}">${t("contract")}: ${N.contractHTML(v.contract)}${
      v.caller !== null && v.caller !== undefined ? html` <small>(${t("caller", { name: N.seatName(v.caller) })})</small>` : ""}</span>`);
  } else if (v.raspas) parts.push(html`<span class="contract raspas">${t("outcome_raspas")}</span>`);
  const totals = v.totals || [];
  const order = N.order.length === totals.length ? N.order : [...totals.keys()];
  if (totals.length) {
    parts.push(html`<span class="an-totals">${t("total")}: ${joinHtml(order.map((side) => html`<span data-side="${side}">${N.sideName(side)} <b>${totals[side]}</b></span>`), " · ")}</span>`);
  }
  if ((p.phase === "play" || p.phase === "done") && v.card_points) {
    parts.push(html`<span class="an-round-pts">${order.map((side) => `${N.sideName(side)}: ${tn("tricks", (v.tricks_won || [])[side] || 0)}, ${v.card_points[side]}`).join(" · ")}</span>`);
  }
  return html`<div class="an-info">${parts.map((x) => html`<span class="an-part">${x}</span>`)}</div>`;
}

/** The legal cards of the seat to play and their values, when the values may be shown:
 *  every hand face up, or the view of the seat that plays (another's view hides them). */
function shownValues(p) {
  if (!p.dd || p.phase !== "play") return null;
  if (p.at.seat !== null && p.at.seat !== p.turn) return null;
  const minimize = !!p.minimize;
  const entries = Object.entries(p.dd);
  if (!entries.length) return null;
  const bestValue = entries.reduce((b, [, x]) => (minimize ? Math.min(b, x) : Math.max(b, x)),
    minimize ? Infinity : -Infinity);
  const played = p.next && kindOf(p.next) === "play" ? cardCode(p.next) : null;
  return { dd: p.dd, sampled: p.sampled || null, minimize, bestValue, best: p.dd_best, played };
}

function renderSeat(p, v, N, seat, where) {
  const faceUp = p.at.seat === null;
  const own = p.at.seat === seat;
  const vals = p.turn === seat ? shownValues(p) : null;
  const legal = new Set((p.legal || []).filter((a) => kindOf(a) === "play").map(cardCode));
  let cards = [];
  let backs = 0;
  if (faceUp) cards = (p.hands || [])[seat] || [];
  else if (own) { cards = v.hand || []; backs = v.unseen || 0; }
  else backs = (v.hand_sizes || [])[seat] || 0;
  if (typeof cards === "string") cards = cardsOf(cards);
  cards = sortHand(cards.map(cardCode), v.contract, v.strength);
  const playing = p.turn === seat && p.phase === "play";
  const items = cards.map((c) => {
    const cls = ["card", "an-card"];
    let badges = null;
    if (isTrump(c, v.contract)) cls.push("trump");
    if (playing) cls.push(legal.has(c) ? "legal" : "dim");
    if (vals && c in vals.dd) {
      const x = vals.dd[c];
      if (x === vals.bestValue) cls.push("best");
      badges = html`<span class="an-val dd" data-dd="${x}">${numText(x, 0)}</span>`;
      if (vals.sampled && c in vals.sampled) badges = html`${badges}<span class="an-val smp" data-sampled="${vals.sampled[c]}">≈${numText(vals.sampled[c], 0)}</span>`;
    }
    if (vals && vals.played === c) cls.push("played");
    let title = N.cardText(c);
    if (cls.includes("best")) title += ` – ${t("an_best")}`;
    if (cls.includes("played")) title += ` – ${t("an_played")}`;
    return html`<span class="${cls.join(" ")}" data-card="${c}" title="${title}">${cardSVG(c, N.deck)}${badges}</span>`;
  });
  for (let i = 0; i < backs; i++) items.push(html`<span class="card an-card back">${cardBackSVG()}</span>`);
  const bids = (v.bids || []).filter((b) => b.seat === seat).map((b) => html`<span class="bid">${bidHTML(b.bid, N)}</span>`);
  const decl = ((v.declared || [])[seat] || []).map((d) => html`<span class="decl" title="${declText(d)}">${t("declared")}: ${d.value}</span>`);
  const belas = (v.belas || []).filter((b) => b.seat === seat).map((b) => html`<span class="bela-badge">${t("bela")}! ${suitIcon(b.suit, N.deck)}</span>`);
  const side = teamOf(N.facts, seat);
  const team = side !== null ? ` team-${side}` : "";
  return html`<div class="an-seat pos-${where}${p.turn === seat ? " turn" : ""}${own ? " own" : ""}${team}" data-seat="${seat}">
    <div class="an-seat-head"><span class="seat-name">${N.seatName(seat)}</span>${
      seat === v.dealer ? html`<span class="chip dealer" title="${t("dealer")}">D</span>` : ""}${
      p.turn === seat ? html`<span class="tag an-turn">${t("an_to_act")}</span>` : ""}${bids.length ? html`<span class="bids">${bids}</span>` : ""}${decl}${belas}</div>
    <div class="an-hand" role="group" aria-label="${t("an_hand_of", { name: N.seatName(seat) })}">${items.length ? items : html`<span class="muted an-empty">–</span>`}</div>
  </div>`;
}

function renderTrick(p, v, N, pos) {
  const plays = v.trick || p.trick || [];
  if (!plays.length) {
    const note = p.phase === "bidding" ? t("bidding") : p.phase === "done" ? t("round_over")
      : p.phase === "play" ? t("an_trick_n", { n: (v.tricks || []).length + 1 }) : "";
    return note ? html`<div class="an-center-note">${note}</div>` : "";
  }
  return html`<div class="an-trick" aria-label="${plays.map((x) => `${N.seatName(x.seat)}: ${N.cardText(x.card)}`).join(", ")}">${
    plays.map((x) => html`<div class="an-tc pos-${pos(x.seat)}${x.seat === v.trick_winner ? " winning" : ""}" data-trick-seat="${x.seat}">
      <span class="card" data-code="${x.card}" title="${N.cardText(x.card)}">${cardSVG(x.card, N.deck)}</span></div>`)}</div>`;
}

function renderFaceUp(v, N) {
  const pub = v.public || {};
  const parts = [];
  if (pub.turned) parts.push(html`<span class="an-faceup">${t(faceUp(N.facts))} ${cardChip(pub.turned, N)}</span>`);
  if (pub.bottom) parts.push(html`<span class="an-faceup">${t("bottom")} ${cardChip(pub.bottom, N)}</span>`);
  if (v.discards && v.discards.length) parts.push(html`<span class="an-faceup">${t("discards")} ${joinHtml(v.discards.map((c) => cardChip(c, N)), " ")}</span>`);
  return parts.length ? html`<div class="an-faceups">${parts}</div>` : "";
}

function renderStatus(p, v, N) {
  if (p.phase === "done" || (p.next === null && p.at.step === roundLen(p.at.round))) {
    const r = v.result;
    if (!r) return t("round_over");
    const order = N.order.length === r.scores.length ? N.order : [...r.scores.keys()];
    return html`<b>${t("round_over")}: ${t("outcome_" + r.outcome)}</b> · ${order.map((s) => `${N.sideName(s)} ${r.scores[s]}`).join(" · ")}`;
  }
  const who = p.turn !== null && p.turn !== undefined ? t("waiting_for", { name: N.seatName(p.turn) }) : "";
  const next = p.next ? html` · ${t("an_chosen")}: <span class="an-next">${actionHTML(p.next, N)}</span>` : "";
  return html`${who}${next}`;
}

// -- the panels beside the board: values, bidding, play on ------------------------------
function renderSide() {
  if (!A.record) return;
  region("an-side", html`${renderValues()}${renderBidding()}${renderPlayOn()}`);
}

function renderValues() {
  const p = A.pos;
  if (!p || p.phase !== "play") return "";
  const N = names();
  const vals = shownValues(p);
  if (!vals) {
    return html`<section class="panel an-values" id="an-values"><h2>${t("an_values")}</h2>
      <p class="muted">${p.dd ? t("an_values_hidden", { name: N.seatName(p.turn) }) : t("an_no_values")}</p></section>`;
  }
  const rows = Object.entries(vals.dd).sort((a, b) => (vals.minimize ? a[1] - b[1] : b[1] - a[1]));
  const loss = vals.played && vals.played in vals.dd ? Math.abs(vals.dd[vals.played] - vals.bestValue) : null;
  const body = rows.map(([c, x]) => {
    const best = x === vals.bestValue, played = c === vals.played;
    const marks = joinHtml([best ? html`<span class="tag an-best-tag">${t("an_best")}</span>` : "",
      played ? html`<span class="tag an-played-tag">${t("an_played")}${loss ? html` −${loss}` : ""}</span>` : ""], " ");
    const smp = vals.sampled ? html`<td class="num smp" data-sampled="${vals.sampled[c] ?? ""}">${numText(vals.sampled[c])}</td>` : "";
    return html`<tr data-card="${c}" data-dd="${x}" class="${best ? "best" : ""}${played ? " played" : ""}">
      <th scope="row">${suitIcon(suitOf(c), N.deck)} ${N.cardText(c)}</th>
      <td class="num dd">${numText(x, 0)}</td>${smp}<td class="an-marks">${marks}</td></tr>`;
  });
  return html`<section class="panel an-values" id="an-values" data-seat="${p.turn}">
    <h2>${t("an_values")} <small>${t("waiting_for", { name: N.seatName(p.turn) })}</small></h2>
    <p class="muted small-note">${t("an_values_note")}${vals.minimize ? html` <b>${t("an_values_raspas")}</b>` : ""}${
      vals.sampled ? html` ${t("an_sampled_note")}` : ""}</p>
    <div class="table-scroll"><table class="an-vtable">
      <thead><tr><th scope="col">${t("an_col_card")}</th><th scope="col" class="num">${t("an_col_dd")}</th>${
        vals.sampled ? html`<th scope="col" class="num">${t("an_col_sampled")}</th>` : ""}<th scope="col"></th></tr></thead>
      <tbody>${body}</tbody></table></div></section>`;
}

function renderBidding() {
  const p = A.pos;
  if (!p || p.phase !== "bidding" || !p.next || kindOf(p.next) !== "bid") return "";
  const N = names();
  const r = p.at.round;
  const b = A.bidding[r];
  const head = html`<h2>${t("an_bidding")} <small>${t("waiting_for", { name: N.seatName(p.turn) })}</small></h2>`;
  if (p.at.seat !== null && p.at.seat !== p.turn) {
    return html`<section class="panel an-bidding" id="an-bidding">${head}<p class="muted">${t("an_values_hidden", { name: N.seatName(p.turn) })}</p></section>`;
  }
  let body;
  if (!b || b.busy) body = html`<p class="an-wait"><span class="spinner"></span> ${t("an_loading")}</p>`;
  else if (b.error) body = html`<p class="an-error">${b.error} <button type="button" class="btn small" id="an-bidding-retry">${t("an_retry")}</button></p>`;
  else {
    const bid = b.bids.find((x) => x.index === p.at.step);
    if (!bid || !bid.values) body = html`<p class="muted">${t("an_no_values")}</p>`;
    else {
      const entries = Object.entries(bid.values).sort((x, y) => y[1] - x[1]);
      const top = entries.length ? entries[0][1] : null;
      const chosen = String(bid.action ?? p.next).trim();
      body = html`<table class="an-vtable an-btable"><thead><tr><th scope="col">${t("an_col_call")}</th><th scope="col" class="num">${t("an_col_sim")}</th><th scope="col"></th></tr></thead><tbody>${
        entries.map(([tok, x]) => {
          const best = x === top, mine = tok.toUpperCase() === chosen.toUpperCase();
          return html`<tr data-bid="${tok}" data-value="${x}" class="${best ? "best" : ""}${mine ? " played" : ""}">
            <th scope="row">${bidHTML(tok, N)}</th><td class="num">${numText(x)}</td>
            <td class="an-marks">${best ? html`<span class="tag an-best-tag">${t("an_best")}</span>` : ""} ${mine ? html`<span class="tag an-played-tag">${t("an_called")}</span>` : ""}</td></tr>`;
        })}</tbody></table>`;
    }
  }
  return html`<section class="panel an-bidding" id="an-bidding">${head}
    <p class="muted small-note">${t("an_bidding_note")}</p>${body}</section>`;
}

function renderPlayOn() {
  const N = names();
  const P = A.playOn;
  const p = A.pos;
  const seat = P.seat ?? A.seat ?? (p && p.turn !== null && p.turn !== undefined ? p.turn : A.bottom);
  const msg = P.error ? html`<p class="an-error" role="alert" id="an-playon-msg">${P.error}</p>` : "";
  let body;
  if (!A.guest) {
    body = html`<p class="an-need-player" id="an-need-player">${t("an_need_player")}</p>
      <form class="row an-name-form" id="an-name-form"><label>${t("your_name")} <input id="an-name" name="name" maxlength="40" required autocomplete="nickname" placeholder="${t("name_placeholder")}"></label>
      <button class="btn" id="an-name-go">${t("continue")}</button></form>`;
  } else if (p && p.over && p.at.round === A.round && p.at.step === A.step) {
    body = html`<p class="muted" id="an-playon-over">${t("an_err_over")}</p>`;
  } else {
    body = html`<div class="row"><label>${t("an_play_as")} <select id="an-playon-seat">${[...Array(seatCount()).keys()].map((s) =>
      html`<option value="${s}" ${s === seat ? "selected" : ""}>${N.seatName(s)}</option>`)}</select></label>
      <button type="button" class="btn primary" id="an-playon" ${P.busy ? "disabled" : ""}>${t("an_play_on")}</button></div>`;
  }
  return html`<section class="panel an-playon" id="an-playon-panel"><h2>${t("an_play_on")}</h2>
    <p class="muted small-note">${t("an_play_on_note")}</p>${body}${msg}</section>`;
}

async function playOn() {
  const P = A.playOn;
  if (P.busy || !A.guest) return;
  const sel = /** @type {HTMLSelectElement | null} */ (document.getElementById("an-playon-seat"));
  P.seat = sel ? Number(sel.value) : P.seat;
  P.busy = true;
  P.error = null;
  renderSide();
  try {
    const tb = await api("POST", "/api/analysis/play-on",
      { record: A.record, round: A.round, step: A.step, seat: P.seat ?? 0 });
    if (tb.invite_code) storeCode(tb.id, tb.invite_code); // a private table: its creator's code
    location.href = `/?table=${encodeURIComponent(tb.id)}`;
  } catch (e) {
    P.busy = false;
    P.error = errorText(e);
    renderSide();
  }
}

// -- the review and the action list -----------------------------------------------------
function renderReview() {
  if (!A.record) return;
  const r = A.review;
  const N = names();
  let body = null;
  if (!r) body = null;
  else if (r.status === "failed") {
    body = html`<p class="an-error" role="alert">${r.error || t("an_review_failed")}</p>
      <button type="button" class="btn small" id="an-review-retry">${t("an_retry")}</button>`;
  } else {
    const pct = r.status === "done" ? 100 : r.total ? Math.min(99, Math.floor((100 * r.done) / r.total)) : 0;
    const label = r.status === "queued" ? t("an_review_queued") : t("an_review_progress", { n: pct });
    body = html`<div class="an-progress"><progress id="an-progress" max="100" value="${pct}" aria-label="${t("an_review")}" data-status="${r.status}"></progress>
      <span id="an-progress-text">${label}</span></div>`;
    if (r.status === "done") body = html`${body}${renderSummary(r, N)}`;
  }
  region("an-review", html`<h2>${t("an_review")}</h2>${body}`);
}

function renderSummary(r, N) {
  const n = seatCount();
  const plays = r.plays || [];
  const lost = r.loss_by_seat || [...Array(n).keys()].map((s) => plays.filter((x) => x.seat === s).reduce((a, x) => a + x.loss, 0));
  const rows = [...Array(n).keys()].map((s) => {
    const count = plays.filter((x) => x.seat === s).length;
    return html`<tr data-seat="${s}"><th scope="row">${N.seatName(s)}</th><td class="num" data-lost="${lost[s] ?? 0}">${tn("an_points", lost[s] ?? 0)}</td><td class="num">${tn("an_costly_n", count)}</td></tr>`;
  });
  const biggest = (r.biggest || [...plays].sort((a, b) => b.loss - a.loss).slice(0, 5));
  const list = biggest.length ? html`<ol class="an-biggest">${biggest.map((x, i) => html`<li><button type="button" class="btn small ghost an-mistake" id="an-mistake-${i}" data-goto="${x.round}:${x.index}">
      ${t("an_mistake_at", { round: x.round + 1, trick: trickOf(x.round, x.index), name: N.seatName(x.seat) })}:
      ${cardChip(cardCode(x.played), N)} ${t("an_instead_of")} ${cardChip(cardCode(x.best), N)} <b class="an-loss">−${x.loss}</b></button></li>`)}</ol>`
    : html`<p class="muted">${t("an_no_mistakes")}</p>`;
  return html`<h3>${t("an_lost_by_seat")}</h3>
    <table class="an-vtable an-lost"><thead><tr><th scope="col">${t("player")}</th><th scope="col" class="num">${t("an_col_lost")}</th><th scope="col" class="num">${t("an_col_costly")}</th></tr></thead><tbody>${rows}</tbody></table>
    <h3>${t("an_biggest")}</h3>${list}`;
}

function renderList(scroll = false) {
  const el = document.getElementById("an-list");
  if (!el) return;
  const N = names();
  const marks = costly();
  const n = seatCount();
  const top = el.scrollTop;
  setHtml(el, html`${rounds().map((rd, r) => {
    const seats = (A.outlines[r] && A.outlines[r].seats) || [];
    const result = A.outlines[r] && A.outlines[r].result;
    const groups = [];
    let group = null;
    let plays = 0;
    const start = (key, label) => { group = { key, label, items: [] }; groups.push(group); };
    start("bidding", t("bidding"));
    rd.actions.forEach((tok, i) => {
      const kind = kindOf(tok);
      if (kind === "play" || kind === "declare") {
        const trick = Math.floor(plays / n);
        if (group.key !== `trick-${trick}`) start(`trick-${trick}`, t("an_trick_n", { n: trick + 1 }));
        if (kind === "play") plays += 1;
      }
      const c = marks.get(`${r}:${i}`);
      const cls = ["an-act", kind];
      if (r === A.round && i === A.step) cls.push("current");
      else if (r < A.round || (r === A.round && i < A.step)) cls.push("done");
      if (c) cls.push("costly", c.loss >= BIG_LOSS ? "big" : "small");
      const who = seats[i] !== null && seats[i] !== undefined ? html`<span class="an-who">${N.seatName(seats[i])}</span>` : "";
      const loss = c ? html` <span class="an-loss" title="${tn("an_lost_points", c.loss)}">−${c.loss}</span>` : "";
      group.items.push(html`<button type="button" class="${cls.join(" ")}" id="an-act-${r}-${i}" data-goto="${r}:${i}"${
        cls.includes("current") ? html` aria-current="step"` : ""}${c ? html` data-loss="${c.loss}"` : ""}>${who}<span class="an-what">${actionHTML(tok, N)}</span>${loss}</button>`);
    });
    const endCur = r === A.round && A.step === rd.actions.length;
    const outcome = result ? `: ${t("outcome_" + result.outcome)}` : "";
    const endItem = html`<button type="button" class="an-act end${endCur ? " current" : ""}" id="an-act-${r}-end" data-goto="${r}:${rd.actions.length}"${endCur ? html` aria-current="step"` : ""}>${t("round_over") + outcome}</button>`;
    const count = [...marks.values()].filter((x) => x.round === r).length;
    const open = A.open.has(r) ? " open" : "";
    return html`<details class="an-round${r === A.round ? " current" : ""}" data-round="${r}"${open}>
      <summary>${t("round_n", { n: r + 1 })}${result ? html` · ${t("outcome_" + result.outcome)}` : ""}${
        count ? html` <span class="an-loss">${tn("an_costly_n", count)}</span>` : ""}</summary>
      <ol class="an-groups">${groups.filter((g) => g.items.length).map((g) => html`<li class="an-group" data-group="${g.key}"><span class="an-group-name">${g.label}</span>
        <div class="an-items">${g.items}</div></li>`)}
        <li class="an-group"><div class="an-items">${endItem}</div></li></ol></details>`;
  })}`);
  el.scrollTop = top;
  if (scroll) {
    const cur = el.querySelector(".an-act.current");
    // only the list scrolls (a list taller than its box), never the page under a key press
    if (cur && el.scrollHeight > el.clientHeight + 4) {
      const a = /** @type {HTMLElement} */ (cur).offsetTop - el.offsetTop, h = el.clientHeight;
      if (a < el.scrollTop || a > el.scrollTop + h - /** @type {HTMLElement} */ (cur).offsetHeight) el.scrollTop = Math.max(0, a - h / 3);
    }
  }
}

// -- the load panel ---------------------------------------------------------------------
function renderLoad() {
  const games = A.history || [];
  const mine = A.guest ? html`<h3>${t("an_my_matches")}</h3>${games.length
    ? html`<ul class="table-list an-history">${games.slice(0, 20).map((g, i) => html`<li><div><b>${t("vname_" + g.variant)}</b> ${(g.totals || []).join(" : ")}
        <div class="muted">${(g.players || []).map((p) => p || "?").join(", ")}</div></div>
        <button type="button" class="btn small" id="an-history-${i}" data-history="${i}">${t("an_analyse")}</button></li>`)}</ul>`
    : html`<p class="muted">${A.history ? t("no_history") : t("loading")}</p>`}` : "";
  return html`<div class="page an-load-page"><section class="panel an-load" id="an-load">
    <h2>${t("an_title")}</h2>
    <p>${t("an_open_hint")}</p>
    ${A.loading ? html`<p class="an-wait"><span class="spinner"></span> ${t("an_loading_record")}</p>` : ""}
    ${A.loadError ? html`<p class="an-error" role="alert" id="an-load-error">${A.loadError}</p>` : ""}
    ${mine}
    <h3>${t("an_file")}</h3>
    <div class="an-drop" id="an-drop"><p>${t("an_drop")}</p>
      <label class="btn">${t("an_choose_file")}<input type="file" id="an-file" accept=".json,application/json,text/plain" class="sr-only"></label></div>
    <h3><label for="an-paste">${t("an_paste")}</label></h3>
    <textarea id="an-paste" class="an-paste" rows="6" spellcheck="false" placeholder="${t("an_paste_placeholder")}"></textarea>
    <p><button type="button" class="btn primary" id="an-paste-go">${t("an_analyse")}</button></p>
  </section></div>`;
}

// -- events -----------------------------------------------------------------------------
function onClick(ev) {
  const el = ev.target.closest("button, [data-goto]");
  if (!el || el.disabled) return;
  if (el.dataset.goto) {
    const [r, s] = el.dataset.goto.split(":").map(Number);
    goTo(r, s);
    return;
  }
  if (el.dataset.step) {
    const len = roundLen(A.round);
    ({ first: () => goTo(A.round, 0), prev: () => stepBy(-1), next: () => stepBy(1),
      last: () => goTo(A.round, len) })[el.dataset.step]();
    return;
  }
  if (el.dataset.view) { setView(el.dataset.view === "all" ? null : Number(el.dataset.view)); return; }
  if (el.dataset.history) {
    const g = (A.history || [])[Number(el.dataset.history)]; // a summary: fetch its record
    if (g && g.record) api("GET", g.record).then((rec) => openRecord(rec, { tableId: g.table, source: t("an_source_table", { id: g.table }) })).catch(() => {});
    return;
  }
  switch (el.id) {
    case "an-paste-go": openText(/** @type {HTMLTextAreaElement} */ (document.getElementById("an-paste")).value, t("an_source_paste")); break;
    case "an-playon": playOn(); break;
    case "an-review-retry": startReview(); break;
    case "an-bidding-retry": A.bidding[A.round] = null; loadBidding(A.round); break;
    case "an-other": {
      clearTimeout(reviewTimer);
      ticket += 1;
      dropRecord();
      updateUrl();
      render();
      loadHistory();
      document.getElementById("an-paste")?.focus();
      break;
    }
    default: break;
  }
}

async function onSubmit(ev) {
  if (ev.target.id !== "an-name-form") return;
  ev.preventDefault();
  const name = /** @type {HTMLInputElement} */ (document.getElementById("an-name")).value.trim();
  if (!name) return;
  try {
    A.guest = await newGuest(name);
    A.playOn.error = null;
  } catch (e) {
    A.playOn.error = errorText(e);
  }
  renderSide();
  document.getElementById("an-playon")?.focus();
}

function onChange(ev) {
  const el = ev.target;
  if (el.dataset.pref) {
    A.prefs[el.dataset.pref] = el.value;
    savePrefs(A.prefs);
    setLang(A.prefs.lang);
    renderHeader();
    if (A.record) { root().replaceChildren(); }
    render();
    document.getElementById(el.id)?.focus();
  } else if (el.id === "an-round") goTo(Number(el.value), 0);
  else if (el.id === "an-playon-seat") A.playOn.seat = Number(el.value);
  else if (el.id === "an-file") openFile(el.files && el.files[0]);
}

function onToggle(ev) {
  const d = ev.target;
  if (!(d instanceof HTMLDetailsElement) || !d.dataset.round) return;
  const r = Number(d.dataset.round);
  if (d.open) A.open.add(r); else A.open.delete(r);
}

function onKey(ev) {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (!A.record || tag === "input" || tag === "select" || tag === "textarea"
      || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const keys = {
    ArrowLeft: () => stepBy(-1), ArrowRight: () => stepBy(1),
    Home: () => goTo(A.round, 0), End: () => goTo(A.round, roundLen(A.round)),
    PageUp: () => goTo(A.round - 1, 0), PageDown: () => goTo(A.round + 1, 0),
  };
  const fn = keys[ev.key];
  if (!fn) return;
  ev.preventDefault();
  fn();
}

function onDrag(ev) {
  if (!ev.dataTransfer || ![...(ev.dataTransfer.types || [])].includes("Files")) return;
  ev.preventDefault();
  document.body.classList.toggle("an-dragging", ev.type === "dragover");
}

function onDrop(ev) {
  document.body.classList.remove("an-dragging");
  const file = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
  if (!file) return;
  ev.preventDefault();
  openFile(file);
}

// -- start ------------------------------------------------------------------------------
async function main() {
  setLang(A.prefs.lang);
  ensureSprite();
  renderHeader();
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("change", onChange);
  document.addEventListener("keydown", onKey);
  document.addEventListener("toggle", onToggle, true);
  document.addEventListener("dragover", onDrag);
  document.addEventListener("dragleave", onDrag);
  document.addEventListener("drop", onDrop);
  try { A.variants = await api("GET", "/api/variants"); } catch { A.variants = null; }
  const q = new URLSearchParams(location.search);
  const id = q.get("table");
  if (id) {
    openTable(id, { round: Number(q.get("round")) || 0, step: Number(q.get("step")) || 0 });
  } else {
    render();
    loadHistory();
  }
}

main();
