// @ts-check
// The analysis page's state (analysis.js draws it and asks the server): one object, and the
// functions that move it as a whole — a record opened or dropped, a step taken, a seat's view
// chosen.  The position cache, timers and rendering stay in analysis.js.

import { loadPrefs } from "./prefs.js";
import { storedGuest } from "./api.js";

export const A = {
  prefs: loadPrefs(),
  guest: storedGuest(),
  tableId: null, // the table the record came from (?table=), null for a file or a paste
  record: null,
  source: "", // where the record came from, in words
  loading: false,
  loadError: null,
  history: null, // the player's finished matches (the load panel lists them)
  round: 0,
  step: 0, // actions of the round applied: the record's action at this index comes next
  seat: null, // whose view is shown; null: every hand face up
  bottom: 0, // the seat drawn at the bottom of the felt
  pos: null, // the position shown (POST /api/analysis/position)
  posBusy: false,
  posError: null,
  outlines: {}, // round -> {seats: the seat of each action} from the round's end
  review: null, // {id, status, done, total, plays, loss_by_seat, biggest, error}
  bidding: {}, // round -> {bids} | {error} | {busy}
  open: new Set(), // the rounds unfolded in the action list
  playOn: { seat: null, busy: false, error: null },
  variants: null, // GET /api/variants: each variant's facts (sides, partners, face-up card)
};
window.__analysis = A; // for debugging and the browser tests

/** The record ``rec`` opened at ``round`` and ``step`` (both in range), drawn from ``bottom``'s
 *  seat, from ``tableId`` (null: a file or a paste) and ``source`` (in words): nothing of the
 *  record shown before stays. */
export function takeRecord(rec, { tableId, source, round, step, bottom }) {
  Object.assign(A, {
    record: rec, tableId, source, loading: false, loadError: null, pos: null, posError: null,
    outlines: {}, review: null, bidding: {}, open: new Set([round]), seat: null,
    playOn: { seat: null, busy: false, error: null }, round, step, bottom,
  });
}

/** The record put away (the load panel again). */
export function dropRecord() {
  Object.assign(A, { record: null, tableId: null, loadError: null });
}

/** The position at ``round`` and ``step`` (in range) shown; a new round is unfolded in the
 *  action list.  Whether the round changed. */
export function moveTo(round, step) {
  const newRound = round !== A.round;
  A.round = round;
  A.step = step;
  if (newRound) A.open.add(round);
  return newRound;
}

/** The view of ``seat`` (null: every hand face up) chosen; a seat's view is drawn from his
 *  side of the felt. */
export function viewAs(seat) {
  A.seat = seat;
  if (seat !== null) A.bottom = seat;
}
