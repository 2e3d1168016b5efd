// @ts-check
// The player's display preferences (language, deck, sound), shared by the lobby, the analysis
// board and the score pad: one localStorage entry.

import { LANGS, defaultLang } from "./i18n.js";
import { DECKS } from "./cards.js";

const PREFS = "bela.prefs";

function stored() {
  try { return JSON.parse(localStorage.getItem(PREFS) || "{}") || {}; } catch { return {}; }
}

/** The stored preferences, each checked (the browser's language and the Hungarian deck
 *  when unset or unknown). */
export function loadPrefs() {
  const p = stored();
  return {
    lang: LANGS.includes(p.lang) ? p.lang : defaultLang(),
    deck: DECKS.includes(p.deck) ? p.deck : "hungarian",
    autoplay: p.autoplay !== false, // a lone legal card plays itself (at the table)
    sound: p.sound !== false, // the table's sounds (sound.js), on unless muted
    talk: p.talk !== false, // the table's talk (talk.js), shown unless muted
  };
}

/** Keep ``prefs`` (over what is stored: keys another page added stay). */
export function savePrefs(prefs) {
  localStorage.setItem(PREFS, JSON.stringify({ ...stored(), ...prefs }));
}
