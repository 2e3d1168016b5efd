// @ts-check
// The browser client's state (app.js's pages, table.js's and profile.js's renderings read
// it): one object, and the functions that change it as a whole — a table opened afresh, a
// new state of the table from the server.  Timers, the socket and rendering stay in app.js.

import { loadPrefs } from "./prefs.js";
import { storedGuest } from "./api.js";

/** The per-page choices of the UI: dialogs open, cards chosen, forms shown. */
export function freshUi() {
  return { sheet: false, lastTrick: false, belaCard: null, declAnswered: null, discardSel: [],
    resultDismissed: null, matchDismissed: false, editName: false, clockTouched: false, claimAsk: false, declOpen: [],
    accountForm: null }; // accountForm: the account panel's open form ("login", "claim", "password")
}

/** The animation under way: a finished trick held on the table, its collecting, the cards
 *  seen entering. */
function freshAnim() {
  return { trick: null, collect: false, entered: new Set() };
}

export const S = {
  prefs: loadPrefs(),
  guest: storedGuest(),
  variants: null,
  tables: [],
  tablesTotal: 0, // X-Total-Count of the lobby list
  tablePages: 1, // pages of it shown (the "more" control adds one)
  page: "lobby", // "lobby", "table", "profile" (/?player=) or "leaders" (/?leaders=)
  profileId: null,
  profile: null, // the profile shown: {id, data, error}
  leaders: null, // the leaderboard shown: {variant, data, error}
  quick: null, // quick play's status (GET /api/quick), null without a player
  myTournaments: [], // the player's tournaments not over, with his table now (GET /api/tournaments/mine)
  account: { note: null, msg: null, loginName: "" }, // the account panel's notes
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
  anim: freshAnim(),
  picked: new Set(),
  rounds: {},
  toast: null,
  clock: null, // the turn clock shown: {seat, deadline} (performance.now() milliseconds)
  away: {}, // seat -> performance.now() deadline of an absent player's grace (autopilot_in)
  thinking: null, // a bot over its delay: {seat, seq} (the server's "thinking" message)
  autoSent: null, // the seq whose lone card this page played by itself
  sent: null, // the last action this page sent: {seq, action} (seq: the state it acted on)
  lastMine: null, // the last state received whose action was this seat's: {seq, told}
  ui: freshUi(),
};
window.__bela = S; // for debugging and the browser tests

/** The table ``id`` (null: none) opened afresh, with its invite ``code`` (null: none):
 *  nothing of the table shown before stays. */
export function resetTable(id, code) {
  Object.assign(S, { tableId: id, summary: null, view: null, tableError: null, queue: [],
    rounds: {}, seq: 0, status: null, toast: null, code,
    clock: null, sent: null, lastMine: null, away: {}, thinking: null, autoSent: null });
  S.ui = freshUi();
  S.anim = freshAnim();
}

/** The table's state message ``msg`` (seq, status, view, clock, deadline) taken in: a new
 *  deal forgets the choices of the last one; a finished deal's result is kept. */
export function applyStateMessage(msg) {
  const v = msg.view;
  const prev = S.view;
  S.seq = msg.seq;
  S.status = msg.status;
  S.view = v;
  S.clock = msg.clock && msg.deadline !== null ? { seat: msg.clock.seat, deadline: msg.deadline } : null;
  if (S.summary) S.summary.status = msg.status;
  if (!prev || prev.round_index !== v.round_index) {
    S.ui.belaCard = null;
    S.ui.discardSel = [];
    S.ui.declOpen = [];
    S.picked = new Set();
  }
  if (v.phase === "done" && v.result) {
    S.rounds[v.round_index] = { result: v.result };
  }
  if (v.phase !== "discard") S.ui.discardSel = [];
}
