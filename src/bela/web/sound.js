// @ts-check
// The table's sounds (docs/SOUNDS.md): a card played, your turn, a trick taken, the turn
// clock running out, a deal's end.  On by default at a low volume; the header's button
// mutes them, remembered with the other preferences (prefs.js, "sound").  Nothing is
// played while muted: every sound goes through play(), which asks the preference first.

import { loadPrefs, savePrefs } from "./prefs.js";

export const SOUNDS = ["card", "turn", "trick", "clock", "deal_end"];
export const VOLUME = 0.25;

/** @type {Map<string, HTMLAudioElement>} */
const loaded = new Map();

/** Whether the sounds are on (the stored preference). */
export function soundOn() {
  return loadPrefs().sound;
}

/** Turn the sounds on or off, remembered. */
export function setSound(on) {
  savePrefs({ sound: !!on });
  if (!on) loaded.forEach((a) => { try { a.pause(); } catch { /* not playing */ } });
}

/** Play sound ``name`` (one of SOUNDS), unless the sounds are off. */
export function play(name) {
  if (!SOUNDS.includes(name) || !soundOn()) return;
  let audio = loaded.get(name);
  if (!audio) {
    audio = new Audio(`/web/sounds/${name}.wav`);
    audio.volume = VOLUME;
    loaded.set(name, audio);
  }
  try {
    audio.currentTime = 0;
    const p = audio.play();
    if (p && typeof p.catch === "function") p.catch(() => { /* no gesture yet: silent */ });
  } catch { /* a browser without audio */ }
}

/** The sounds a new state makes: from its events (docs/PROTOCOL.md) and whether it is now
 *  this page's turn and was not before.
 *  @param {Array<{type: string}>} events
 *  @param {boolean} myTurnNow
 *  @param {boolean} myTurnBefore
 *  @returns {string[]} */
export function soundsOf(events, myTurnNow, myTurnBefore) {
  const out = [];
  if (events.some((e) => e.type === "card_played")) out.push("card");
  if (events.some((e) => e.type === "trick_taken")) out.push("trick");
  if (events.some((e) => e.type === "round_over")) out.push("deal_end");
  if (myTurnNow && !myTurnBefore) out.push("turn");
  return out;
}
