// @ts-check
// Croatian and English text of the UI.  t("key", {name: value}) fills {name} placeholders.
// The texts are data: i18n/hr.json and i18n/en.json, one object of key -> text each, loaded
// as JSON modules with this one (before any page renders).

import HR from "./i18n/hr.json" with { type: "json" };
import EN from "./i18n/en.json" with { type: "json" };

export const LANGS = ["hr", "en"];

/** @type {Record<string, Record<string, string>>} */
const TEXTS = { hr: HR, en: EN };

let current = "hr";

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : "hr";
  document.documentElement.lang = current;
}

export function lang() {
  return current;
}

export function defaultLang() {
  const nav = (navigator.language || "hr").toLowerCase();
  return /^(hr|bs|sr|sl|me)/.test(nav) ? "hr" : "en";
}

const PLURALS = {};

/** A counted text: key_one / key_few / key_other by the language's plural rules
 *  (hr: 1 štih, 2–4 štiha, 5+ štihova; en: 1 trick, 2 tricks); {n} is the count. */
export function tn(key, n, vars = {}) {
  let cat = "other";
  try {
    PLURALS[current] ??= new Intl.PluralRules(current);
    cat = PLURALS[current].select(n);
  } catch { /* no Intl: "other" */ }
  const k = TEXTS[current][`${key}_${cat}`] !== undefined ? `${key}_${cat}` : `${key}_other`;
  return t(k, { n, ...vars });
}

export function t(key, vars = {}) {
  let text = TEXTS[current][key] ?? TEXTS.en[key] ?? key;
  for (const [k, v] of Object.entries(vars)) text = text.split(`{${k}}`).join(String(v));
  return text;
}
