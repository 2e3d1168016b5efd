// @ts-check
// The score pad's state (pad.js draws it and answers the events): one object, the pads kept
// in this browser with the rules last read, and the functions that change them as a whole —
// a view opened, a pad added or dropped, the rules kept.  Timers and rendering stay in pad.js.

import { loadPrefs } from "./prefs.js";
import { storedGuest } from "./api.js";

const PADS = "bela.pads"; // the pads of this browser: [{id, record, updated, sync, dirty}]
const RULES = "bela.pad.rules"; // the last GET /api/pad/rules (the service worker keeps it too)

function readJSON(key) {
  try { return JSON.parse(localStorage.getItem(key) || "null"); } catch { return null; }
}

function loadPads() {
  const list = readJSON(PADS);
  return Array.isArray(list) ? list.filter((p) => p && p.id && p.record) : [];
}

export const S = {
  prefs: loadPrefs(),
  rules: readJSON(RULES),
  rulesError: null,
  pads: loadPads(),
  view: "list", // "list", "new", "import", "pad"
  padId: null,
  draft: null, // the new-match form: {variant, target, options, names}
  form: null, // the deal form: {index, kind, caller, trump, points, decl, bela, capot, belot}
  refused: false, // the form's write was refused: its reason is shown as an alert
  note: null, // a short message: {text, undo}
  check: { key: null, state: null, message: "" }, // the server's sheet of the shown pad
  serverPads: null, // an account's pads on the server (GET /api/pads), null: not asked
  importError: null,
  armed: false, // the pad's delete button asks once more
  sendArmed: false, // a bound pad's send button asks once more (pad-bound.js)
  guest: storedGuest(),
};
window.__pad = S; // for debugging and the browser tests

/** The pads (their records, sync marks) written to this browser's storage. */
export function savePads() {
  localStorage.setItem(PADS, JSON.stringify(S.pads));
}

/** A pad entry ({id, record, updated, sync, dirty}) added to the pads, and kept. */
export function addPad(entry) {
  S.pads.push(entry);
  savePads();
}

/** A pad entry dropped from the pads, and the rest kept; the delete button disarmed. */
export function dropPad(entry) {
  S.armed = false;
  S.pads = S.pads.filter((p) => p !== entry);
  savePads();
}

/** The server's rules (GET /api/pad/rules) taken, and kept for offline use. */
export function keepRules(rules) {
  S.rules = rules;
  localStorage.setItem(RULES, JSON.stringify(rules));
}

/** The ``view`` ("list", "new", "import", "pad" with the pad ``id``) opened: no deal form
 *  open, no delete armed, no refusal shown; a new-match form starts from ``draft``. */
export function openView(view, id, draft) {
  Object.assign(S, { view, padId: id, form: null, armed: false, sendArmed: false, refused: false });
  if (view === "new" && draft) S.draft = draft;
  if (view === "import") S.importError = null;
}
