// @ts-check
// The score pad (bela blok, /pad): matches played with real cards, written deal by deal and
// scored by the engine's rules (pad-score.js, offline); the sheet as on paper, corrections,
// the pads kept in this browser (and, for an account, on the server), export and import of
// pad records (docs/RECORD.md "Score pad records"), print.  Works offline once loaded: the
// service worker pad-sw.js keeps the page, its modules and the rules.

import { LANGS, setLang, t as said, tn } from "./i18n.js";
import { savePrefs } from "./prefs.js";
import { DECKS, ensureSprite, suitIcon } from "./cards.js";
import { ApiError, api } from "./api.js";
import { html, joinHtml, replaceWith, setHtml } from "./html.js";
import { S, addPad, dropPad, keepRules, openView, savePads } from "./pad-state.js";
import { boundId, boundParams, fetchGame, renderBound, sendResult } from "./pad-bound.js";
import {
  PadProblem, bookDeals, forPeople, padRecord, problemText, readDeal, readRecord, sheetOf,
} from "./pad-score.js";

/** A text of the pad in the UI's words, without the rule ids the engine's messages cite. */
const t = (key, vars) => forPeople(said(key, vars));

const CHECK_MS = 350; // a change is checked with the server this long after the last one
const KINDS = ["deal", "belot", "raspas", "redeal"];
// the house rules a pad's sheet depends on (R22 tie); the others (R12, R24) decide the play
// at the table, not the numbers written, and are kept as a record has them
const SHEET_OPTIONS = ["tie"];

function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return "pad-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const entry = (id = S.padId) => S.pads.find((p) => p.id === id) || null;
const account = () => !!(S.guest && S.guest.account);
/** A pad bound to a tournament's game whose result is in: nothing more is written on it. */
const sent = (e) => !!(e && e.bound && e.bound.status !== "playing");
const deckKey = () => (S.prefs.deck === "french" ? "fr" : "hu");
const rulesOf = (variant) => S.rules && S.rules.variants[variant];

/** The shown pad read and booked: ``{pad, booked}`` or ``{error}``. */
function scored(e) {
  try {
    const pad = readRecord(S.rules, e.record);
    return { pad, booked: bookDeals(pad.rules, pad.options, pad.deals) };
  } catch (err) {
    return { error: problemText(err, t) };
  }
}

// -- words -----------------------------------------------------------------------------
function contractHTML(c) {
  if (!c) return "";
  if (c.length === 1) {
    return html`${suitIcon(c, S.prefs.deck)}<span class="pad-suit-name">${t(`suit_${c}_${deckKey()}`)}</span>`;
  }
  return html`<span class="pad-vcbc" title="${t(c.toLowerCase())}">${c}</span>`;
}

function defaultNames(variant) {
  const rules = rulesOf(variant);
  if (rules.sides < rules.seats) return [t("pad_we"), t("pad_they")];
  return Array.from({ length: rules.sides }, (_, i) => t("pad_player_n", { n: i + 1 }));
}

const when = (ms) => new Date(ms).toLocaleDateString(S.prefs.lang === "hr" ? "hr-HR" : "en-GB",
  { day: "numeric", month: "numeric", year: "numeric" });

// -- rendering -------------------------------------------------------------------------
function renderHeader() {
  const h = document.getElementById("header");
  setHtml(h, html`<a class="brand" href="/"><svg class="logo" viewBox="0 0 10 10" aria-hidden="true"><use href="#pip-${deckKey()}-H"/></svg> <span>${t("title")}</span></a>
    <a class="pad-home" href="/pad" data-go="list">${t("pad_title")}</a>
    <div class="prefs">
      <label>${t("lang")} <select id="pad-lang" data-pref="lang">${LANGS.map((l) =>
        html`<option value="${l}" ${l === S.prefs.lang ? "selected" : ""}>${l.toUpperCase()}</option>`)}</select></label>
      <label>${t("deck")} <select id="pad-deck" data-pref="deck">${DECKS.map((d) =>
        html`<option value="${d}" ${d === S.prefs.deck ? "selected" : ""}>${t("deck_" + d)}</option>`)}</select></label>
    </div>`);
}

function render() {
  renderHeader();
  const el = document.getElementById("pad");
  const sheet = el.querySelector(".pad-form-sheet");
  const scroll = sheet ? sheet.scrollTop : 0;
  let page;
  if (!S.rules) page = renderNoRules();
  else if (S.view === "new") page = renderNew();
  else if (S.view === "import") page = renderImport();
  else if (S.view === "pad" && entry()) page = renderPad();
  else page = renderList();
  setHtml(el, html`${page}${renderNote()}`);
  const again = el.querySelector(".pad-form-sheet");
  if (again) again.scrollTop = scroll;
  document.title = `${t("pad_title")} – ${t("title")}`;
  el.dataset.view = S.view;
  if (S.view === "pad" && S.form) updatePreview();
}

function renderNote() {
  if (!S.note) return "";
  return html`<div class="pad-note" role="status"><span>${S.note.text}</span>${S.note.undo
    ? html`<button type="button" class="btn small" data-cmd="undo" id="pad-undo">${t("pad_undo")}</button>` : ""}</div>`;
}

function renderNoRules() {
  return html`<section class="pad-panel"><h1>${t("pad_title")}</h1>
    <p class="pad-problem" role="alert">${S.rulesError || t("loading")}</p></section>`;
}

function renderList() {
  const items = [...S.pads].sort((a, b) => b.updated - a.updated).map((p) => {
    const s = scored(p);
    const rec = p.record;
    const names = (s.pad ? s.pad.names : rec.names || []).join(" – ");
    const status = s.error ? t("pad_broken")
      : s.booked.winner !== null ? t("pad_won_by", { name: s.pad.names[s.booked.winner] })
        : tn("pad_deals", s.booked.rows.length);
    const totals = s.booked ? s.booked.totals.join(" : ") : "";
    return html`<li><button type="button" class="pad-item" data-open="${p.id}">
      <span class="pad-item-title">${t("vname_" + rec.variant)} · ${names}</span>
      <span class="pad-item-score">${totals}</span>
      <span class="muted">${status} · ${when(p.updated)}${p.sync ? html` · ${t("pad_on_server")}` : ""}</span>
    </button></li>`;
  });
  let server = null;
  if (account()) {
    const local = new Set(S.pads.map((p) => p.id));
    const there = (S.serverPads || []).filter((p) => !local.has(p.id));
    server = html`<h2>${t("pad_server_pads")}</h2>${S.serverPads === null
      ? html`<p class="muted">${t("loading")}</p>`
      : there.length ? html`<ul class="pad-list">${there.map((p) => html`<li><button type="button" class="pad-item" data-fetch="${p.id}">
          <span class="pad-item-title">${t("vname_" + p.variant)} · ${p.names.join(" – ")}</span>
          <span class="pad-item-score">${(p.totals || []).join(" : ")}</span>
          <span class="muted">${t("pad_fetch")}</span></button></li>`)}</ul>`
        : html`<p class="muted">${t("pad_server_none")}</p>`}`;
  } else {
    server = html`<p class="muted pad-account-note">${t("pad_account_note")} <a href="/">${t("pad_to_lobby")}</a></p>`;
  }
  return html`<section class="pad-panel" id="pad-list">
      <h1>${t("pad_title")}</h1>
      <p class="muted">${t("pad_intro")}</p>
      ${items.length ? html`<ul class="pad-list">${items}</ul>` : html`<p class="pad-empty">${t("pad_none")}</p>`}
      ${server}
    </section>
    <div class="pad-bar">
      <button type="button" class="btn big" data-go="import" id="pad-import-open">${t("pad_import")}</button>
      <button type="button" class="btn primary big" data-go="new" id="pad-new">${t("pad_new")}</button>
    </div>`;
}

function renderNew() {
  const d = S.draft;
  const rules = rulesOf(d.variant);
  const variants = Object.keys(S.rules.variants).map((v) =>
    html`<button type="button" class="seg-btn" data-variant="${v}" aria-pressed="${v === d.variant}">${t("variant_" + v)}</button>`);
  const [low, high] = S.rules.ranges.target;
  const house = rules.options.filter((o) => SHEET_OPTIONS.includes(o)).map((o) => html`<label class="pad-field">${t("opt_" + o)}
      <select data-option="${o}" id="pad-opt-${o}">${S.rules.choices[o].map((c) =>
        html`<option value="${c}" ${d.options[o] === c ? "selected" : ""}>${t(`opt_${o}_${c}`)}</option>`)}</select></label>`);
  const placeholders = defaultNames(d.variant);
  const names = placeholders.map((p, i) => html`<label class="pad-field">${rules.sides < rules.seats ? t("pad_side_n", { n: i + 1 }) : t("pad_player_n", { n: i + 1 })}
      <input type="text" maxlength="40" data-name="${i}" id="pad-name-${i}" value="${d.names[i] || ""}" placeholder="${p}" autocomplete="off"></label>`);
  return html`<form class="pad-panel" id="pad-new-form" novalidate>
      <h1>${t("pad_new")}</h1>
      <fieldset><legend>${t("variant")}</legend><div class="seg wrap" role="group">${variants}</div></fieldset>
      <label class="pad-field">${t("target")}
        <input type="text" inputmode="numeric" pattern="[0-9]*" id="pad-target" data-target value="${d.target}" autocomplete="off"></label>
      <p class="muted small">${t("pad_target_range", { low, high })}</p>
      ${house.length ? html`<fieldset><legend>${t("house_rules")}</legend>${house}</fieldset>` : ""}
      <fieldset><legend>${t(rules.sides < rules.seats ? "pad_sides" : "players")}</legend>${names}</fieldset>
      ${d.error ? html`<p class="pad-problem" role="alert" id="pad-new-error">${d.error}</p>` : ""}
      <div class="pad-bar">
        <button type="button" class="btn big" data-go="list">${t("cancel")}</button>
        <button type="submit" class="btn primary big" id="pad-start">${t("pad_start")}</button>
      </div>
    </form>`;
}

function renderImport() {
  return html`<section class="pad-panel" id="pad-import">
      <h1>${t("pad_import")}</h1>
      <p class="muted">${t("pad_import_help")}</p>
      <label class="pad-field">${t("pad_import_file")}
        <input type="file" id="pad-import-file" accept=".json,application/json,text/plain"></label>
      <label class="pad-field">${t("pad_import_paste")}
        <textarea id="pad-import-text" rows="8" spellcheck="false"></textarea></label>
      ${S.importError ? html`<p class="pad-problem" role="alert" id="pad-import-error">${S.importError}</p>` : ""}
    </section>
    <div class="pad-bar">
      <button type="button" class="btn big" data-go="list">${t("cancel")}</button>
      <button type="button" class="btn primary big" data-cmd="import" id="pad-import-go">${t("pad_import")}</button>
    </div>`;
}

function renderPad() {
  const e = entry();
  const s = scored(e);
  if (s.error) {
    return html`<section class="pad-panel"><p class="pad-problem" role="alert">${s.error}</p>
      ${renderTools(e, null)}</section>`;
  }
  const { pad, booked } = s;
  const rules = pad.rules;
  const heads = pad.names.map((n, i) => html`<th scope="col" data-side="${i}">${n}</th>`);
  const rows = booked.rows.map((r, i) => {
    const res = r.result;
    const cells = r.scores.map((v, side) => {
      const mark = res.caller !== null && res.caller === side ? " caller" : "";
      const took = r.took && v === Math.max(...r.scores) ? html`<sup class="pad-took">+${r.took}</sup>` : "";
      return html`<td class="num${mark}" data-side="${side}" data-score="${v}">${v}${took}</td>`;
    });
    const tag = res.outcome === "pass" ? "" : html`<small class="pad-outcome">${t("pad_outcome_" + res.outcome)}${
      res.outcome === "hang" ? html` ${res.held}` : ""}</small>`;
    return html`<tr data-deal="${i}" data-outcome="${res.outcome}" tabindex="0" title="${t("pad_tap_to_correct")}">
      <td class="n">${i + 1}</td><td class="c">${contractHTML(rules.contracts.includes(r.deal.trump) && res.outcome !== "belot" && res.outcome !== "redeal" ? r.deal.trump : null)}${tag}</td>${cells}</tr>`;
  });
  const totals = booked.totals.map((v, i) => html`<td class="num" data-total="${i}">${v}</td>`);
  const target = pad.options.target;
  const togo = booked.winner === null && booked.rows.length
    ? html`<tr class="pad-togo"><th colspan="2">${t("pad_to_go")}</th>${booked.totals.map((v) =>
      html`<td class="num">${Math.max(0, target - v)}</td>`)}</tr>` : "";
  const held = booked.held ? html`<p class="pad-held" id="pad-held" data-held="${booked.held}">${t("pad_held", { n: booked.held })}</p>` : "";
  const winner = booked.winner !== null
    ? html`<p class="pad-winner" id="pad-winner" data-winner="${booked.winner}">★ ${t("pad_winner", { name: pad.names[booked.winner] })}</p>` : "";
  const house = rules.options.filter((o) => o !== "target" && pad.options[o] !== rules.defaults[o])
    .map((o) => `${t("opt_" + o)}: ${t(`opt_${o}_${pad.options[o]}`)}`).join(" · ");
  return html`<section class="pad-panel pad-paper" id="pad-view" data-pad="${e.id}">
      <div class="pad-head"><button type="button" class="btn ghost" data-go="list" id="pad-back">‹ ${t("pad_all")}</button>
        <h1>${t("vname_" + pad.variant)} <span class="muted">${t("pad_to_target", { n: target })}</span></h1></div>
      ${house ? html`<p class="muted small pad-house">${house}</p>` : ""}
      ${winner}
      ${e.bound ? renderBound(e, t, S.sendArmed, booked.winner) : ""}
      <div class="table-scroll"><table class="pad-sheet" id="pad-sheet" data-deals="${booked.rows.length}">
        <thead><tr><th class="n" scope="col">#</th><th class="c" scope="col"><span class="sr-only">${t("pad_trump")}</span></th>${heads}</tr></thead>
        <tbody>${rows.length ? rows : html`<tr class="pad-empty-row"><td colspan="${2 + pad.names.length}">${t("pad_no_deals")}</td></tr>`}</tbody>
        <tfoot><tr class="pad-totals"><th colspan="2" scope="row">${t("pad_total")}</th>${totals}</tr>${togo}</tfoot>
      </table></div>
      ${held}
      ${renderCheck(e)}
      ${renderTools(e, pad)}
    </section>
    ${booked.winner === null && !sent(e) ? html`<div class="pad-bar"><button type="button" class="btn primary big" data-cmd="add" id="pad-add">+ ${t("pad_add_deal")}</button></div>` : ""}
    ${S.form ? renderForm(pad, booked) : ""}`;
}

function renderCheck(e) {
  const c = S.check;
  if (c.id !== e.id || !c.state || c.state === "pending") return html`<p class="pad-check" id="pad-check" data-state="${c.id === e.id ? c.state || "" : ""}"></p>`;
  const text = c.state === "ok" ? t("pad_check_ok") : c.state === "offline" ? t("pad_check_offline")
    : t("pad_check_differs", { reason: c.message });
  return html`<p class="pad-check ${c.state}" id="pad-check" data-state="${c.state}"${c.state === "differs" ? html` role="alert"` : ""}>${text}</p>`;
}

function renderTools(e, pad) {
  let sync = null;
  if (account()) {
    const state = !e.sync ? "" : e.syncError ? e.syncError : e.dirty ? t("pad_sync_waiting") : t("pad_sync_saved");
    sync = html`<label class="pad-sync"><input type="checkbox" id="pad-sync" ${e.sync ? "checked" : ""}> ${t("pad_keep_on_server")}</label>
      <span class="muted small" id="pad-sync-state">${state}</span>`;
  }
  return html`<div class="pad-tools">
      <button type="button" class="btn" data-cmd="export" id="pad-export"${pad ? "" : " disabled"}>${t("pad_export")}</button>
      <button type="button" class="btn" data-cmd="print" id="pad-print"${pad ? "" : " disabled"}>${t("pad_print")}</button>
      <button type="button" class="btn ${S.armed ? "warn" : ""}" data-cmd="delete" id="pad-delete">${t(S.armed ? "pad_delete_sure" : "pad_delete")}</button>
      ${sync}
    </div>`;
}

// -- the deal form ---------------------------------------------------------------------
function blankForm(rules, index) {
  const zero = () => Array.from({ length: rules.sides }, () => 0);
  return { index, kind: "deal", caller: null, trump: null, belot: null, capot: null,
    points: Array.from({ length: rules.sides }, () => ""), decl: zero(), bela: zero() };
}

/** The form of deal ``index`` as it was written (a correction). */
function formOf(rules, deal, index) {
  const f = blankForm(rules, index);
  if (deal.belot !== null) return { ...f, kind: "belot", belot: deal.belot };
  if (deal.redeal) return { ...f, kind: "redeal" };
  f.kind = deal.raspas ? "raspas" : "deal";
  f.caller = deal.caller;
  f.trump = deal.trump;
  f.capot = deal.capot;
  f.points = rules.sides === deal.points.length ? deal.points.map((p) => (p === null ? "" : String(p))) : f.points;
  if (deal.declarations.length === rules.sides) f.decl = [...deal.declarations];
  if (deal.bela.length === rules.sides) f.bela = [...deal.bela];
  return f;
}

/** The deal the form writes, as a pad record's deal. */
function formDeal(f) {
  if (f.kind === "belot") return { belot: f.belot };
  if (f.kind === "redeal") return { redeal: true };
  const pts = f.points.map((p) => (p === "" ? null : Number.parseInt(p, 10)));
  if (f.kind === "raspas") return { raspas: true, points: pts };
  const out = { caller: f.caller, trump: f.trump, points: pts };
  if (f.decl.some((d) => d)) out.declarations = [...f.decl];
  if (f.bela.some((b) => b)) out.bela = [...f.bela];
  if (f.capot !== null) out.capot = f.capot;
  return out;
}

/** The pad's deals with the form's deal written in (added, or in place of the corrected
 *  one), booked: ``{booked, row}`` or ``{problem}``. */
function tryForm(pad) {
  const f = S.form;
  try {
    const data = formDeal(f);
    if (f.kind === "belot" && f.belot === null) throw new PadProblem("no_belot_side");
    const deal = readDeal(data);
    const deals = [...pad.deals];
    deals.splice(f.index, f.index < deals.length ? 1 : 0, deal);
    const booked = bookDeals(pad.rules, pad.options, deals);
    return { booked, deals, row: booked.rows[f.index] };
  } catch (err) {
    if (err instanceof PadProblem && err.deal === f.index) err.deal = null; // this deal's own
    return { problem: problemText(err, t) };
  }
}

function sideButtons(names, attr, chosen) {
  return names.map((n, i) => html`<button type="button" class="seg-btn" data-${attr}="${i}" aria-pressed="${chosen === i}">${n}</button>`);
}

function renderForm(pad, booked) {
  const f = S.form;
  const rules = pad.rules;
  const editing = f.index < booked.rows.length;
  const kinds = KINDS.filter((k) => k === "deal" || (k === "belot" && rules.belot_wins)
    || (k === "raspas" && rules.raspas) || (k === "redeal" && rules.redeal));
  const kindRow = kinds.length > 1 ? html`<div class="seg wrap pad-kinds" role="group" aria-label="${t("pad_kind")}">${kinds.map((k) =>
    html`<button type="button" class="seg-btn" data-kind="${k}" aria-pressed="${f.kind === k}">${t("pad_kind_" + k)}</button>`)}</div>` : "";
  let body = null;
  if (f.kind === "belot") {
    body = html`<fieldset><legend>${t("pad_belot_who")}</legend><div class="seg wrap">${sideButtons(pad.names, "belot", f.belot)}</div>
      <p class="muted small">${t("pad_belot_help")}</p></fieldset>`;
  } else if (f.kind === "redeal") {
    body = html`<p class="muted">${t("pad_redeal_help")}</p>`;
  } else {
    const trumps = rules.contracts.map((c) => html`<button type="button" class="seg-btn trump" data-trump="${c}" aria-pressed="${f.trump === c}">${contractHTML(c)}</button>`);
    const pointsHelp = rules.all_cards ? t("pad_points_rest", { full: rules.deal_points }) : t("pad_points_each");
    const pointInputs = pad.names.map((n, i) => html`<label class="pad-num"><span>${n}</span>
        <input type="text" inputmode="numeric" pattern="[0-9]*" autocomplete="off" enterkeyhint="done" data-points="${i}" id="pad-points-${i}" value="${f.points[i]}"></label>`);
    body = f.kind === "raspas" ? "" : html`<fieldset><legend>${t("pad_called")}</legend><div class="seg wrap">${sideButtons(pad.names, "caller", f.caller)}</div></fieldset>
      <fieldset><legend>${t("pad_trump")}</legend><div class="seg wrap trumps">${trumps}</div></fieldset>`;
    body = html`${body}<fieldset><legend>${t("pad_points")}</legend><div class="pad-nums">${pointInputs}</div>
        <p class="muted small">${f.kind === "raspas" ? t("pad_raspas_help") : pointsHelp}</p></fieldset>`;
    if (f.kind === "deal") {
      const sums = [0, ...rules.declarations];
      body = html`${body}<fieldset><legend>${t("pad_declarations")}</legend><div class="pad-nums">${pad.names.map((n, i) =>
        html`<label class="pad-num"><span>${n}</span><select data-decl="${i}" id="pad-decl-${i}">${sums.map((v) =>
          html`<option value="${v}" ${f.decl[i] === v ? "selected" : ""}>${v}</option>`)}</select></label>`)}</div>
        <p class="muted small">${t("pad_declarations_help")}</p></fieldset>`;
      const most = f.trump ? rules.bela[f.trump] : 1;
      if (most === 1) {
        body = html`${body}<fieldset><legend>${t("pad_bela")}</legend><div class="seg wrap">${pad.names.map((n, i) =>
          html`<button type="button" class="seg-btn" data-bela="${i}" aria-pressed="${f.bela[i] > 0}">${n} +20</button>`)}</div></fieldset>`;
      } else if (most > 1) {
        body = html`${body}<fieldset><legend>${t("pad_bela")}</legend><div class="pad-nums">${pad.names.map((n, i) =>
          html`<label class="pad-num"><span>${n}</span><select data-bela-count="${i}" id="pad-bela-${i}">${[...Array(most + 1).keys()].map((k) =>
            html`<option value="${k}" ${f.bela[i] === k ? "selected" : ""}>${k ? html`${k} × 20` : "0"}</option>`)}</select></label>`)}</div></fieldset>`;
      }
      if (rules.capot_bonus > 0) {
        body = html`${body}<fieldset><legend>${t("pad_capot")}</legend><div class="seg wrap">${pad.names.map((n, i) =>
          html`<button type="button" class="seg-btn" data-capot="${i}" aria-pressed="${f.capot === i}">${n}</button>`)}</div>
          <p class="muted small">${t("pad_capot_help", { n: rules.capot_bonus })}</p></fieldset>`;
      }
    }
  }
  return html`<div class="pad-form-back" data-cmd="cancel"></div>
    <div class="pad-form-sheet" role="dialog" aria-modal="true" aria-labelledby="pad-form-title">
    <form id="pad-form" novalidate data-index="${f.index}">
      <h2 id="pad-form-title">${editing ? t("pad_correct_n", { n: f.index + 1 }) : t("pad_deal_n", { n: f.index + 1 })}</h2>
      ${kindRow}
      ${body}
      <div class="pad-form-bar">
        <output class="pad-preview" id="pad-preview" aria-live="polite"></output>
        <div class="pad-form-buttons">
          <button type="button" class="btn big" data-cmd="cancel" id="pad-cancel">${t("cancel")}</button>
          ${editing ? html`<button type="button" class="btn warn big" data-cmd="strike" id="pad-strike">${t("pad_strike")}</button>` : ""}
          <button type="submit" class="btn primary big" id="pad-write">${t(editing ? "pad_save_fix" : "pad_write")}</button>
        </div>
      </div>
    </form></div>`;
}

/** The form's preview (what the deal writes, or why it cannot be) and the computed rest of
 *  the card points; no re-rendering, so the field being typed in keeps its focus. */
function updatePreview() {
  const out = document.getElementById("pad-preview");
  const s = scored(entry());
  if (!out || !s.pad) return;
  const rules = s.pad.rules;
  const f = S.form;
  if (rules.all_cards && f.kind !== "belot" && f.kind !== "redeal") {
    const empty = f.points.flatMap((p, i) => (p === "" ? [i] : []));
    const rest = rules.deal_points - f.points.reduce((a, p) => a + (p === "" ? 0 : Number.parseInt(p, 10)), 0);
    f.points.forEach((_, i) => {
      const input = /** @type {HTMLInputElement | null} */ (document.getElementById(`pad-points-${i}`));
      if (input) input.placeholder = empty.length === 1 && empty[0] === i && rest >= 0 ? String(rest) : "";
    });
  }
  const r = tryForm(s.pad);
  out.classList.toggle("refused", !!r.problem && S.refused);
  if (r.problem) {
    out.dataset.state = "problem";
    setHtml(out, html`<span class="pad-problem" id="pad-reason"${S.refused ? html` role="alert"` : ""}>${r.problem}</span>`);
    return;
  }
  out.dataset.state = "ok";
  const row = r.row;
  const parts = joinHtml(s.pad.names.map((n, i) => html`<b>${n}</b> <span data-preview="${i}">${row.scores[i]}</span>`), " · ");
  setHtml(out, html`<span class="pad-writes">${t("pad_writes")} ${parts}</span>
    <span class="pad-outcome" data-outcome="${row.result.outcome}">${t("pad_outcome_" + row.result.outcome)}${row.result.outcome === "hang" ? html` ${row.result.held}` : ""}${
      row.took ? html` · ${t("pad_took", { n: row.took })}` : ""}${r.booked.winner !== null && r.booked.rows.length === f.index + 1
      ? html` · ${t("pad_winner", { name: s.pad.names[r.booked.winner] })}` : ""}</span>`);
}

// -- changes ---------------------------------------------------------------------------
let noteTimer = 0; // the shown note goes when this runs out

function note(text, undo = null) {
  S.note = { text, undo };
  clearTimeout(noteTimer);
  noteTimer = setTimeout(() => { // only the note goes: a field being typed in keeps its focus
    S.note = null;
    document.querySelector(".pad-note")?.remove();
  }, undo ? 8000 : 3000);
}

/** Keep the pad's new deals (a record the kernel booked): stored, sent to the server when
 *  kept there, and checked against the engine. */
function store(e, pad, deals) {
  e.record = padRecord({ ...pad, deals });
  e.updated = Date.now();
  e.dirty = !!e.sync;
  savePads();
  if (e.sync) pushPad(e);
}

function write() {
  const e = entry();
  const s = scored(e);
  if (!s.pad) return;
  const r = tryForm(s.pad);
  if (r.problem) {
    S.refused = true;
    updatePreview();
    return;
  }
  const fixed = S.form.index < s.booked.rows.length;
  store(e, s.pad, r.deals);
  S.form = null;
  S.refused = false;
  note(fixed ? t("pad_fixed") : t("pad_written"));
  render();
  checkSoon();
}

function strike() {
  const e = entry();
  const s = scored(e);
  if (!s.pad) return;
  const before = e.record;
  const deals = s.pad.deals.filter((_, i) => i !== S.form.index);
  try {
    bookDeals(s.pad.rules, s.pad.options, deals);
  } catch (err) {
    S.refused = true;
    const out = document.getElementById("pad-preview");
    if (out) setHtml(out, html`<span class="pad-problem" id="pad-reason" role="alert">${problemText(err, t)}</span>`);
    return;
  }
  const n = S.form.index + 1;
  store(e, s.pad, deals);
  S.form = null;
  note(t("pad_struck", { n }), { id: e.id, record: before });
  render();
  checkSoon();
}

function undo() {
  const u = S.note && S.note.undo;
  const e = u && entry(u.id);
  if (!e) return;
  const s = scored({ record: u.record });
  if (s.pad) store(e, s.pad, s.pad.deals);
  S.note = null;
  render();
  checkSoon();
}

function startPad() {
  const d = S.draft;
  const rules = rulesOf(d.variant);
  const options = {};
  const target = Number.parseInt(d.target, 10);
  if (String(target) === String(d.target).trim()) options.target = target;
  else options.target = d.target; // refused below with the range
  for (const o of rules.options) if (o !== "target") options[o] = d.options[o];
  const names = defaultNames(d.variant).map((p, i) => (d.names[i] || "").trim() || p);
  const record = { pad: 1, variant: d.variant, options, names, deals: [] };
  let pad;
  try {
    pad = readRecord(S.rules, record);
  } catch (err) {
    d.error = problemText(err, t);
    render();
    return;
  }
  const e = { id: newId(), record: padRecord(pad), updated: Date.now(), sync: false, dirty: false };
  addPad(e);
  S.draft = null;
  go("pad", e.id);
}

function importText(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    S.importError = t("pad_import_not_json");
    render();
    return;
  }
  try {
    const pad = readRecord(S.rules, data);
    bookDeals(pad.rules, pad.options, pad.deals);
    const e = { id: newId(), record: padRecord(pad), updated: Date.now(), sync: false, dirty: false };
    addPad(e);
    S.importError = null;
    note(t("pad_imported"));
    go("pad", e.id);
  } catch (err) {
    S.importError = problemText(err, t);
    render();
  }
}

function exportPad() {
  const e = entry();
  const s = scored(e);
  if (!s.pad) return;
  const text = JSON.stringify(padRecord(s.pad), null, 2) + "\n";
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  const day = new Date(e.updated).toISOString().slice(0, 10);
  a.href = url;
  a.download = `bela-blok-${s.pad.variant}-${day}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function deletePad() {
  if (!S.armed) {
    S.armed = true;
    render();
    return;
  }
  const e = entry();
  dropPad(e);
  if (e && e.sync && account()) api("DELETE", `/api/pads/${e.id}`).catch(() => {});
  note(t("pad_deleted"));
  go("list");
}

// -- the server: the engine's check, and an account's pads -------------------------------
/** Ask the engine for the sheet of the shown pad (POST /api/pad/score) a moment after the
 *  last change; a sheet that differs from this page's is a warning (it never should). */
let checkTimer = 0; // the engine's check of the shown pad, due when this runs out

function checkSoon() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(checkNow, CHECK_MS);
}

async function checkNow() {
  const e = entry();
  if (S.view !== "pad" || !e) return;
  const s = scored(e);
  if (!s.pad) return;
  const record = padRecord(s.pad);
  const key = JSON.stringify(record);
  if (S.check.id === e.id && S.check.key === key && S.check.state !== "offline") return;
  S.check = { id: e.id, key, state: "pending", message: "" };
  let state = "ok", message = "";
  try { // no token: scoring needs none
    const r = await fetch("/api/pad/score", { method: "POST", body: key,
      headers: { "Content-Type": "application/json" } });
    const got = await r.json();
    if (!r.ok) {
      state = r.status === 422 ? "differs" : "offline";
      message = (got.error && got.error.message) || r.statusText;
    } else if (!same(got.sheet, sheetOf(s.booked))) {
      state = "differs";
      message = t("pad_check_sheet");
    }
  } catch {
    state = "offline";
  }
  if (S.check.key !== key) return; // changed meanwhile: that change is checked
  S.check = { id: e.id, key, state, message };
  const p = document.getElementById("pad-check");
  if (p && entry() === e) replaceWith(p, renderCheck(e));
}

function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    return same(ka, kb) && ka.every((k) => same(a[k], b[k]));
  }
  return a === b;
}

/** Keep a pad on the server (PUT /api/pads/{id}); a failure leaves it ``dirty`` for the
 *  next try (back online, the next load). */
async function pushPad(e) {
  if (!account()) return;
  try {
    await api("PUT", `/api/pads/${e.id}`, e.record);
    e.dirty = false;
    e.syncError = null;
  } catch (err) {
    e.syncError = err instanceof ApiError && err.status >= 400 && err.status < 500 ? forPeople(err.message) : null;
  }
  savePads();
  const span = document.getElementById("pad-sync-state");
  if (span && entry() === e) {
    span.textContent = e.syncError || (e.dirty ? t("pad_sync_waiting") : t("pad_sync_saved"));
  }
}

function pushDirty() {
  for (const e of S.pads) if (e.sync && e.dirty) pushPad(e);
}

async function setSync(on) {
  const e = entry();
  if (!e) return;
  e.sync = on;
  e.syncError = null;
  e.dirty = on;
  savePads();
  if (on) await pushPad(e);
  else {
    try { await api("DELETE", `/api/pads/${e.id}`); } catch { /* not there, or offline */ }
  }
  render();
}

async function loadServerPads() {
  if (!account()) return;
  try {
    S.serverPads = await api("GET", "/api/pads");
  } catch {
    S.serverPads = [];
  }
  if (S.view === "list") render();
}

async function fetchPad(id) {
  try {
    const got = await api("GET", `/api/pads/${id}`);
    addPad({ id, record: got.record, updated: Date.now(), sync: true, dirty: false });
    go("pad", id);
  } catch (err) {
    note(err.message || String(err));
    render();
  }
}

// -- navigation and events -------------------------------------------------------------
function go(view, id = null) {
  const hash = view === "pad" ? `#${id}` : view === "list" ? "" : `#${view}`;
  if (location.hash !== hash) history.pushState(null, "", `/pad${hash}`);
  show(view, id);
}

function show(view, id = null) {
  let draft = null;
  if (view === "new" && S.rules) {
    const variant = (S.draft && S.draft.variant) || Object.keys(S.rules.variants)[0]; // the server's first
    const rules = rulesOf(variant);
    draft = { variant, target: String(rules.defaults.target), options: { ...rules.defaults }, names: [] };
  }
  openView(view, id, draft);
  if (view === "list") loadServerPads();
  render();
  if (view === "pad") checkSoon();
  window.scrollTo(0, 0);
}

function route() {
  const h = decodeURIComponent(location.hash.slice(1));
  if (h === "new" || h === "import") show(h);
  else if (h && entry(h)) show("pad", h);
  else show("list");
}

function onClick(ev) {
  const el = ev.target.closest("button, [data-go], [data-cmd], tr[data-deal]");
  if (!el) return;
  const d = el.dataset;
  if (d.go) {
    ev.preventDefault();
    go(d.go);
  } else if (d.open) go("pad", d.open);
  else if (d.fetch) fetchPad(d.fetch);
  else if (d.variant && S.view === "new") {
    const rules = rulesOf(d.variant);
    S.draft = { variant: d.variant, target: String(rules.defaults.target), options: { ...rules.defaults }, names: [] };
    render();
  } else if (el.matches("tr[data-deal]") && !S.form && !sent(entry())) openForm(Number(d.deal));
  else if (d.cmd) command(d.cmd);
  else if (S.form) formClick(d);
}

function command(cmd) {
  if (cmd === "add") openForm(null);
  else if (cmd === "cancel") {
    S.form = null;
    S.refused = false;
    render();
  } else if (cmd === "strike") strike();
  else if (cmd === "undo") undo();
  else if (cmd === "export") exportPad();
  else if (cmd === "print") window.print();
  else if (cmd === "delete") deletePad();
  else if (cmd === "send") sendBound();
  else if (cmd === "import") importText(/** @type {HTMLTextAreaElement} */ (document.getElementById("pad-import-text")).value);
}

function openForm(index) {
  const s = scored(entry());
  if (!s.pad) return;
  const n = s.pad.deals.length;
  S.form = index === null || index >= n ? blankForm(s.pad.rules, n)
    : formOf(s.pad.rules, s.pad.deals[index], index);
  S.refused = false;
  S.note = null;
  render();
}

/** A tap on one of the form's choices. */
function formClick(d) {
  const f = S.form;
  const pad = scored(entry()).pad;
  if (!pad) return;
  const side = (v) => Number(v);
  if (d.kind) {
    const keep = { caller: f.caller, trump: f.trump, points: f.points };
    S.form = { ...blankForm(pad.rules, f.index), kind: d.kind };
    if (d.kind === "deal") Object.assign(S.form, keep);
    if (d.kind === "raspas") S.form.points = keep.points;
  } else if (d.caller !== undefined) f.caller = side(d.caller);
  else if (d.trump !== undefined) {
    f.trump = d.trump;
    const most = pad.rules.bela[f.trump];
    if (f.bela.reduce((a, b) => a + b, 0) > most) f.bela = f.bela.map(() => 0);
  } else if (d.belot !== undefined) f.belot = side(d.belot);
  else if (d.bela !== undefined) {
    const i = side(d.bela);
    const on = !f.bela[i];
    f.bela = f.bela.map((b, j) => (j === i ? (on ? 1 : 0) : b));
  } else if (d.capot !== undefined) {
    const i = side(d.capot);
    const filled = (k) => f.points.map((p, j) => (j === k ? (pad.rules.all_cards ? String(pad.rules.deal_points) : p) : "0"));
    if (f.capot !== null) { // off (or to the other side): the points it filled in go again
      const was = filled(f.capot);
      f.points = f.points.map((p, j) => (p === was[j] ? (f.beforeCapot ? f.beforeCapot[j] : "") : p));
    }
    f.capot = f.capot === i ? null : i;
    if (f.capot !== null) { // every trick: the others took no points
      f.beforeCapot = [...f.points];
      f.points = filled(i);
    } else f.beforeCapot = null;
  } else return;
  S.refused = false;
  render();
}

function onInput(ev) {
  const el = ev.target;
  const d = el.dataset;
  if (S.view === "new" && S.draft) {
    if (d.name !== undefined) S.draft.names[Number(d.name)] = el.value;
    else if ("target" in d) S.draft.target = el.value.replace(/\D/g, "");
    return;
  }
  if (!S.form) return;
  if (d.points !== undefined) {
    const clean = el.value.replace(/\D/g, "").slice(0, 4);
    if (clean !== el.value) el.value = clean;
    S.form.points[Number(d.points)] = clean;
  } else if (d.decl !== undefined) S.form.decl[Number(d.decl)] = Number(el.value);
  else if (d.belaCount !== undefined) S.form.bela[Number(d.belaCount)] = Number(el.value);
  else return;
  S.refused = false;
  updatePreview();
}

function onChange(ev) {
  const el = ev.target;
  if (el.dataset.pref) {
    S.prefs[el.dataset.pref] = el.value;
    savePrefs(S.prefs);
    setLang(S.prefs.lang);
    render();
  } else if (el.dataset.option && S.draft) S.draft.options[el.dataset.option] = el.value;
  else if (el.id === "pad-sync") setSync(el.checked);
  else if (el.id === "pad-import-file" && el.files && el.files[0]) el.files[0].text().then(importText);
  else onInput(ev);
}

function onSubmit(ev) {
  ev.preventDefault();
  if (ev.target.id === "pad-form") write();
  else if (ev.target.id === "pad-new-form") startPad();
}

function onKey(ev) {
  if (ev.key === "Escape" && S.form) command("cancel");
  else if (ev.key === "Enter" && ev.target.matches && ev.target.matches("tr[data-deal]")) openForm(Number(ev.target.dataset.deal));
}

// -- start -----------------------------------------------------------------------------
/** The rules: the last ones kept at once, then the server's (kept for offline use). */
// -- a pad bound to a tournament's game (pad-bound.js) -----------------------------------
async function bind(b) {
  const id = boundId(b);
  let e = entry(id);
  try {
    const game = await fetchGame(b);
    if (!e) {
      const record = { pad: 1, variant: game.variant, options: game.options, names: game.names, deals: [] };
      e = { id, record: padRecord(readRecord(S.rules, record)), updated: Date.now(), sync: false, dirty: false };
      addPad(e);
    }
    e.bound = { ...b, name: game.name, status: game.status, result: game.result };
    savePads();
  } catch (err) {
    if (!e) { // nothing kept here to go on with
      note(err instanceof ApiError ? err.message : t("pad_bound_unknown"));
      show("list");
      return;
    }
  }
  show("pad", id);
}

async function sendBound() {
  const e = entry();
  if (!e || !e.bound || sent(e)) return;
  if (!S.sendArmed) {
    S.sendArmed = true;
    render();
    return;
  }
  S.sendArmed = false;
  try {
    const game = await sendResult(e.bound, e.record);
    e.bound = { ...e.bound, status: game.status, result: game.result };
    savePads();
  } catch (err) {
    note(err.message || String(err));
  }
  render();
}

async function loadRules() {
  try {
    const r = await fetch("/api/pad/rules");
    if (!r.ok) throw new Error(r.statusText);
    keepRules(await r.json());
  } catch {
    if (!S.rules) S.rulesError = t("pad_no_rules");
  }
}

function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/pad-sw.js", { scope: "/pad" })
    .then(() => { window.__padWorker = "registered"; })
    .catch(() => { window.__padWorker = "failed"; });
}

async function start() {
  setLang(S.prefs.lang);
  ensureSprite();
  document.addEventListener("click", onClick);
  document.addEventListener("input", onInput);
  document.addEventListener("change", onChange);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", route);
  window.addEventListener("online", () => { pushDirty(); checkSoon(); });
  const early = !!S.rules; // the rules kept last time: the page is there at once
  if (early) route();
  else render();
  await loadRules();
  const bound = boundParams();
  if (bound && S.rules) await bind(bound);
  else if (early) render();
  else route();
  pushDirty();
  registerWorker();
  window.__padReady = true;
}

start();
