// @ts-check
// Talk at the table (docs/PROTOCOL.md, Talk; docs/SECURITY.md, Talk): while a deal runs a
// fixed set of phrases, the same buttons for every seat at every moment, shown a few
// seconds on the sayer's plate; between deals and after the match free text (accounts
// only), each line with report and block.  A seat can be muted for this visit, all talk
// muted (remembered), a player blocked (an account's block is the server's: his lines reach
// none of its devices; a guest's is remembered in this browser).  Every word of it is
// drawn through html`` (escaped): no markup or link is ever made of what people write.

import { t } from "./i18n.js";
import { html } from "./html.js";
import { loadPrefs, savePrefs } from "./prefs.js";
import { api } from "./api.js";
import { S } from "./state.js";

// the server's phrases (bela.server.talk.PHRASES): tests/server/test_server_talk.py
// checks the i18n files name exactly these
export const PHRASES = ["bravo", "ajde", "sretno", "hvala", "oprosti", "dobro", "joj",
  "smile", "laugh", "wow", "sad", "thumbs"];
export const SHOWN_MS = 4000; // a phrase stays on its plate this long
const KEEP = 60; // lines of free text kept on the page
const BLOCKED = "bela.blocked";

/** The talk of the table on this page. */
export const talk = {
  /** @type {Record<number, {phrase: string, until: number}>} */
  said: {},
  /** @type {Array<{id: number, seat: number | null, player_id: string, name: string, text: string, reported?: boolean}>} */
  lines: [],
  /** @type {Set<number>} seats muted for this visit */
  muted: new Set(),
  open: false, // the game page's talk panel is shown (it floats over the table)
  unseen: 0, // lines and phrases since the panel was last open
};

/** Forget the talk of the last table (a new table is opened). */
export function resetTalk() {
  talk.said = {};
  talk.lines = [];
  talk.muted = new Set();
  talk.open = false;
  talk.unseen = 0;
}

/** Whether all talk is muted (remembered). */
export function talkMuted() {
  return loadPrefs().talk === false;
}

export function setTalkMuted(muted) {
  savePrefs({ talk: !muted });
}

/** The players blocked in this browser. @returns {string[]} */
export function blocked() {
  try {
    const list = JSON.parse(localStorage.getItem(BLOCKED) || "[]");
    return Array.isArray(list) ? list.filter((x) => typeof x === "string") : [];
  } catch { return []; }
}

export function block(playerId) {
  const list = blocked();
  if (!list.includes(playerId)) localStorage.setItem(BLOCKED, JSON.stringify([...list, playerId]));
  talk.lines = talk.lines.filter((l) => l.player_id !== playerId);
  lobbyTalk.lines = lobbyTalk.lines.filter((l) => l.player_id !== playerId);
}

/** A talk message of the server taken in: whether it was one ("said", "chat",
 *  "reported"); ``now``: performance.now(). */
export function applyTalk(msg, now) {
  if (msg.type === "said") {
    if (!talkMuted() && !talk.muted.has(msg.seat) && PHRASES.includes(msg.phrase)) {
      talk.said[msg.seat] = { phrase: msg.phrase, until: now + SHOWN_MS };
    }
    return true;
  }
  if (msg.type === "chat") {
    if (!talkMuted() && !blocked().includes(msg.player_id) && !talk.muted.has(msg.seat)) {
      talk.lines = [...talk.lines, msg].slice(-KEEP);
      if (!talk.open) talk.unseen += 1;
    }
    return true;
  }
  if (msg.type === "reported") {
    const line = talk.lines.find((l) => l.id === msg.id);
    if (line) line.reported = true;
    return true;
  }
  return false;
}

/** Whether a deal is being played (free text waits for its end): the same rule as the
 *  server's (bela.server.talk.deal_running). */
export function dealRunning(S) {
  return S.status === "running" && !!S.view && S.view.phase !== "done";
}

/** The phrase on ``seat``'s plate, if one was said in the last seconds. */
export function renderBubble(seat, now) {
  const s = talk.said[seat];
  if (!s || s.until <= now) return "";
  return html`<div class="talk-bubble" data-said="${s.phrase}" role="status">${t("talk_phrase_" + s.phrase)}</div>`;
}

/** The mute button of another seat. */
function seatMuteButton(seat, name) {
  const muted = talk.muted.has(seat);
  return html`<button type="button" class="btn small ghost talk-mute-seat" data-cmd="talk-mute-seat:${seat}" aria-pressed="${muted ? "true" : "false"}"
    title="${t(muted ? "talk_unmute_seat" : "talk_mute_seat")}">${muted ? "🔇" : "🔈"} ${name}</button>`;
}

/** The game page's button that shows or hides the talk panel (with the lines unseen). */
export function renderTalkToggle() {
  return html`<button type="button" class="btn small talk-toggle" id="talk-toggle" data-cmd="talk-toggle" aria-expanded="${talk.open ? "true" : "false"}"
    title="${t("talk_title")}">💬${talk.unseen ? html` <b class="talk-unseen">${talk.unseen}</b>` : ""}</button>`;
}

/** Lines of free text, each with report and block for an account (not on one's own). */
function renderLines(S, lines, reportCmd) {
  return html`<ol class="talk-lines" aria-live="polite">${lines.map((l) => html`<li class="talk-line" data-line="${l.id}">
      <b class="talk-name">${l.name}</b> <span class="talk-text">${l.text}</span>${
      l.player_id !== (S.guest && S.guest.player_id) && S.guest && S.guest.account ? html`
      <button type="button" class="link-btn talk-report" data-cmd="${reportCmd}:${l.id}"${l.reported ? " disabled" : ""}>${t(l.reported ? "talk_reported" : "talk_report")}</button>
      <button type="button" class="link-btn talk-block" data-cmd="talk-block:${l.player_id}">${t("talk_block")}</button>` : ""}</li>`)}</ol>`;
}

// -- the lobby's room (/ws/lobby) --------------------------------------------------------
export const lobbyTalk = {
  /** @type {WebSocket | null} */
  ws: null,
  /** @type {Array<{id: number, seat: null, player_id: string, name: string, text: string, reported?: boolean}>} */
  lines: [],
};

/** Open the lobby's room (``token``: the player's, if any); ``changed`` after each line. */
export function openLobbyTalk(token, changed) {
  closeLobbyTalk();
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/lobby${token ? `?token=${encodeURIComponent(token)}` : ""}`);
  lobbyTalk.ws = ws;
  lobbyTalk.lines = [];
  ws.onmessage = (ev) => {
    if (lobbyTalk.ws !== ws) return;
    const msg = JSON.parse(ev.data);
    if (msg.type === "chat" && !blocked().includes(msg.player_id)) lobbyTalk.lines = [...lobbyTalk.lines, msg].slice(-KEEP);
    else if (msg.type === "reported") { const l = lobbyTalk.lines.find((x) => x.id === msg.id); if (l) l.reported = true; }
    else if (msg.type !== "error") return;
    changed(msg);
  };
}

export function closeLobbyTalk() {
  const ws = lobbyTalk.ws;
  lobbyTalk.ws = null;
  if (ws) { try { ws.close(); } catch { /* closed */ } }
}

/** Send a message on the lobby's room. */
export function sendLobbyTalk(msg) {
  const ws = lobbyTalk.ws;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

/** The lobby's room panel body: its lines and, for an account, a line to write. */
export function renderLobbyTalk(S) {
  if (talkMuted()) return html`<p class="muted">${t("talk_muted")}</p>`;
  let write;
  if (!S.guest) write = "";
  else if (!S.guest.account) write = html`<p class="muted talk-note">${t("talk_guest_reads")}</p>`;
  else {
    write = html`<form class="talk-form" data-form="lobby-talk" autocomplete="off">
      <input name="talk_text" id="lobby-talk-text" maxlength="200" aria-label="${t("talk_write")}" placeholder="${t("talk_write")}">
      <button class="btn small" type="submit">${t("talk_send")}</button></form>`;
  }
  return html`${lobbyTalk.lines.length ? renderLines(S, lobbyTalk.lines, "lobby-report") : html`<p class="muted">${t("talk_empty")}</p>`}${write}`;
}

/** The talk panel: the phrase buttons (a seated player), the lines of free text and, when
 *  no deal runs, a line to write (accounts; guests are told they say phrases only), the
 *  other seats' mutes.  ``floating``: the game page's, over the table, only while open. */
export function renderTalk(S, seated, floating = false) {
  if (floating && !talk.open) return "";
  const muted = talkMuted();
  const me = S.view ? S.view.seat : null;
  const others = ((S.summary && S.summary.seats) || []).filter((x) => x.kind && x.seat !== me);
  const mutes = muted || !others.length ? "" : html`<div class="talk-mutes">${others.map((x) => seatMuteButton(x.seat, x.name || ""))}</div>`;
  const phrases = seated && !muted ? html`<div class="talk-phrases" role="group" aria-label="${t("talk_phrases")}">${
    PHRASES.map((p) => html`<button type="button" class="btn small phrase" data-cmd="say:${p}">${t("talk_phrase_" + p)}</button>`)}</div>` : "";
  const lines = muted ? "" : renderLines(S, talk.lines, "talk-report");
  /** @type {import("./html.js").SafeHtml | string} */
  let write = "";
  if (!muted && S.guest) {
    if (!S.guest.account) write = html`<p class="muted talk-note">${t("talk_guest_phrases_only")}</p>`;
    else if (dealRunning(S)) write = html`<p class="muted talk-note">${t("talk_between_deals")}</p>`;
    else {
      write = html`<form class="talk-form" data-form="talk" autocomplete="off">
        <input name="talk_text" id="talk-text" maxlength="200" aria-label="${t("talk_write")}" placeholder="${t("talk_write")}">
        <button class="btn small" type="submit">${t("talk_send")}</button></form>`;
    }
  }
  return html`<section class="talk${floating ? " floating" : ""}" id="talk-panel" aria-label="${t("talk_title")}">
    <div class="talk-head"><b>${t("talk_title")}</b>
      <button type="button" class="btn small ghost" data-cmd="talk-mute-all" aria-pressed="${muted ? "true" : "false"}">${t(muted ? "talk_unmute_all" : "talk_mute_all")}</button></div>
    ${phrases}${lines}${write}${mutes}</section>`;
}

/** The talk's and the sound's commands (data-cmd), given what they use of app.js.
 *  @param {{render: () => void, renderHeader: () => void, send: (msg: object) => void,
 *    toast: (text: string, kind?: string, ms?: number) => void,
 *    setSound: (on: boolean) => void, soundOn: () => boolean}} app
 *  @returns {Record<string, (arg: string) => unknown>} */
export function talkCommands(app) {
  return {
    say: (arg) => { if (PHRASES.includes(arg)) app.send({ type: "say", phrase: arg }); },
    "talk-mute-seat": (arg) => {
      const seat = Number(arg);
      if (talk.muted.has(seat)) talk.muted.delete(seat);
      else { talk.muted.add(seat); delete talk.said[seat]; }
      app.render();
    },
    "talk-toggle": () => { talk.open = !talk.open; talk.unseen = 0; app.render(); },
    "talk-mute-all": () => { setTalkMuted(!talkMuted()); talk.said = {}; app.render(); },
    "talk-report": (arg) => app.send({ type: "report", id: Number(arg) }),
    "lobby-report": (arg) => sendLobbyTalk({ type: "report", id: Number(arg) }),
    "talk-block": (arg) => {
      const line = [...talk.lines, ...lobbyTalk.lines].find((l) => l.player_id === arg);
      block(arg);
      // an account's block is kept by the server for all its devices (docs/SECURITY.md, Talk)
      if (S.guest && S.guest.account) api("PUT", `/api/blocks/${encodeURIComponent(arg)}`).catch(() => {});
      if (line) app.toast(t("talk_blocked", { name: line.name }));
      app.render();
    },
    "sound-toggle": () => { app.setSound(!app.soundOn()); app.renderHeader(); },
  };
}
