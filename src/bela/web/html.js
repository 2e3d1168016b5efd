// @ts-check
// HTML built escape-by-default: the one place of the client where markup becomes DOM.
//
//   html`<b title="${name}">${name}</b>`   every interpolated value is escaped (text and
//                                          attribute alike: & < > " ' all quoted);
//   html`<ul>${items.map((x) => html`<li>${x}</li>`)}</ul>`
//                                          a nested html`` result is kept as it is, an array
//                                          is joined (each item escaped or kept), and null,
//                                          undefined and false draw nothing;
//   joinHtml(parts, " · ")                 items joined with an escaped separator;
//   setHtml(el, html`...`)                 an element's content set from such markup
//                                          (replaceWith: the element itself replaced).
//
// There is no raw(): the literal parts of html`` templates are the only markup, and nothing
// else reaches innerHTML.  tests/web/test_web_html.py keeps every other module off
// innerHTML, outerHTML, insertAdjacentHTML and hand escaping.

/** Markup that is safe to put in the page: made only by ``html`` and ``joinHtml``. */
export class SafeHtml {
  #text;

  /**
   * @param {string} text markup already checked
   * @param {symbol} key html.js's own: no other module makes one
   */
  constructor(text, key) {
    if (key !== MINT) throw new TypeError("SafeHtml is made by html`...`, not by hand");
    this.#text = text;
  }

  /** The markup as a string (what ``setHtml`` puts in the page). */
  get markup() {
    return this.#text;
  }

  /** Never a string by accident: ``"" + safe``, `${safe}` and ``[safe].join()`` are bugs
   *  (the markup would be escaped again, or put in the page unchecked). */
  toString() {
    throw new TypeError("SafeHtml used as a string: interpolate it in html`...` or joinHtml()");
  }
}

const MINT = Symbol("html.js");

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** The text ``value`` with the five markup characters quoted. */
function escapeText(value) {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** One interpolated value as markup: safe markup kept, an array joined, nothing for
 *  null/undefined/false, everything else escaped as text. */
function piece(value) {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(piece).join("");
  return escapeText(value);
}

/**
 * The tagged template: literal parts kept, every value escaped unless it is a SafeHtml.
 * @param {TemplateStringsArray} strings
 * @param {...unknown} values
 * @returns {SafeHtml}
 */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new SafeHtml(out, MINT);
}

/**
 * The ``items`` (safe markup or text) joined by the text ``sep``, as safe markup.
 * @param {Iterable<unknown>} items
 * @param {string} [sep]
 * @returns {SafeHtml}
 */
export function joinHtml(items, sep = "") {
  return new SafeHtml([...items].map(piece).join(escapeText(sep)), MINT);
}

/**
 * The element's content replaced by ``content``.
 * @param {Element} el
 * @param {SafeHtml} content
 */
export function setHtml(el, content) {
  if (!(content instanceof SafeHtml)) throw new TypeError("setHtml takes html`...`, not a string");
  el.innerHTML = content.markup;
}

/**
 * The element itself replaced by the one element of ``content``.
 * @param {Element} el
 * @param {SafeHtml} content
 */
export function replaceWith(el, content) {
  if (!(content instanceof SafeHtml)) throw new TypeError("replaceWith takes html`...`, not a string");
  el.outerHTML = content.markup;
}
