// @ts-check
// Cards drawn as SVG, in two deck styles:
//   "hungarian": the German-suited deck Bela is usually played with (mađarice): herc (hearts),
//                bundeva (bells), zelje (leaves), žir (acorns); VII VIII IX X unter ober kralj as.
//   "french":    ♥ ♦ ♠ ♣ with corner indices 7 8 9 10 J Q K A.
// A card is a RECORD.md code: rank 7 8 9 T J Q K A, suit H D S C ("JH", "TD").
// Every drawing is made here from simple shapes; the suit pips are <symbol>s in one sprite
// that is added to the page once and used by every card.

import { html, setHtml } from "./html.js";

const SVGNS = "http://www.w3.org/2000/svg";

export const SUITS = "HDSC";
export const RANKS = "789TJQKA";
export const DECKS = ["hungarian", "french"];

// Pips drawn in a 10 x 10 box.
const PIPS = {
  fr: {
    H: html`<path fill="#c8102e" d="M5 9.6C4.2 8.7 0.2 6 0.2 3.1 0.2 1.5 1.4 0.3 2.8 0.3 3.9 0.3 4.6 0.9 5 1.8 5.4 0.9 6.1 0.3 7.2 0.3 8.6 0.3 9.8 1.5 9.8 3.1 9.8 6 5.8 8.7 5 9.6Z"/>`,
    D: html`<path fill="#c8102e" d="M5 0.2 9 5 5 9.8 1 5Z"/>`,
    S: html`<path fill="#111" d="M5 0.2C5.8 1.3 9.8 3.8 9.8 6.5 9.8 8 8.7 9 7.4 9 6.6 9 5.9 8.6 5.5 8 5.6 8.8 6 9.4 6.8 9.9H3.2C4 9.4 4.4 8.8 4.5 8 4.1 8.6 3.4 9 2.6 9 1.3 9 0.2 8 0.2 6.5 0.2 3.8 4.2 1.3 5 0.2Z"/>`,
    C: html`<g fill="#111"><circle cx="5" cy="2.6" r="2.35"/><circle cx="2.5" cy="6.1" r="2.35"/>
       <circle cx="7.5" cy="6.1" r="2.35"/><path d="M4.4 5.5H5.6L6.7 9.9H3.3Z"/></g>`,
  },
  hu: {
    // herc: a red heart with a light edge
    H: html`<path fill="#d21f2b" stroke="#7a0d14" stroke-width=".45" d="M5 9.5C4.2 8.6 0.4 6 0.4 3.2 0.4 1.6 1.6 0.5 2.9 0.5 3.9 0.5 4.6 1.1 5 1.9 5.4 1.1 6.1 0.5 7.1 0.5 8.4 0.5 9.6 1.6 9.6 3.2 9.6 6 5.8 8.6 5 9.5Z"/>
       <path fill="none" stroke="#ff9aa0" stroke-width=".5" d="M2.1 2.2C1.5 2.6 1.3 3.4 1.6 4.2"/>`,
    // bundeva (tök): a yellow bell with a red band and a clapper
    D: html`<path fill="#7a4a00" d="M4.4 0.2H5.6V1.3H4.4Z"/>
       <path fill="#f2b90f" stroke="#7a4a00" stroke-width=".45" d="M5 1C3.1 1 2.2 2.6 2.2 4.6L1.1 7.8H8.9L7.8 4.6C7.8 2.6 6.9 1 5 1Z"/>
       <path fill="#c8102e" d="M2 5.3H8L8.3 6.4H1.7Z"/>
       <circle cx="5" cy="8.7" r="1.15" fill="#7a4a00"/>`,
    // zelje: a green leaf with a stem and veins
    S: html`<path fill="#2f8f2f" stroke="#174d17" stroke-width=".45" d="M5 0.3C6.5 1.8 9.6 3.6 9.4 6.1 9.2 7.9 7.2 8.4 5.6 7.7V9.8H4.4V7.7C2.8 8.4 0.8 7.9 0.6 6.1 0.4 3.6 3.5 1.8 5 0.3Z"/>
       <path fill="none" stroke="#bfe6a8" stroke-width=".4" d="M5 1.6V7.6M5 4L3 3M5 4L7 3M5 5.8L2.6 5M5 5.8L7.4 5"/>`,
    // žir: an acorn, cap on top
    C: html`<path fill="#5a3310" d="M4.6 0.1H5.4V1.2H4.6Z"/>
       <ellipse cx="5" cy="6.1" rx="2.7" ry="3.6" fill="#c77a2a" stroke="#5a3310" stroke-width=".45"/>
       <path fill="#6b4a1d" stroke="#3b2208" stroke-width=".4" d="M1.6 4.3C1.6 2.2 3.1 1 5 1 6.9 1 8.4 2.2 8.4 4.3Z"/>
       <path fill="none" stroke="#a98548" stroke-width=".35" d="M2.6 3.2H7.4M3 2.2H7M3.8 1.5L3 4.2M5 1.1V4.2M6.2 1.5L7 4.2"/>
       <path fill="none" stroke="#f0c080" stroke-width=".45" d="M3.6 5.2C3.3 6.2 3.4 7.4 4 8.3"/>`,
  },
};

const FIGURE_COLORS = { H: "#c8102e", D: "#d98e04", S: "#2f7f2f", C: "#7a4a1d" };

let spriteAdded = false;

/** Add the pip symbols to the document once (hidden). */
export function ensureSprite(doc = document) {
  if (spriteAdded && doc.getElementById("bela-card-sprite")) return;
  const holder = doc.createElement("div");
  holder.id = "bela-card-sprite";
  holder.setAttribute("aria-hidden", "true");
  holder.style.cssText = "position:absolute;width:0;height:0;overflow:hidden";
  const symbols = [];
  for (const deck of ["fr", "hu"]) {
    for (const s of SUITS) {
      symbols.push(html`<symbol id="pip-${deck}-${s}" viewBox="0 0 10 10">${PIPS[deck][s]}</symbol>`);
    }
  }
  setHtml(holder, html`<svg xmlns="${SVGNS}" width="0" height="0"><defs>
    <pattern id="card-back-pattern" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
    <rect width="8" height="8" fill="#7d1d2c"/><path d="M0 4H8M4 0V8" stroke="#b8475a" stroke-width="1.6"/></pattern>
    ${symbols}</defs></svg>`);
  doc.body.appendChild(holder);
  spriteAdded = true;
}

const pipKey = (deck) => (deck === "french" ? "fr" : "hu");

/** An inline SVG of one suit symbol (for text: contracts, reasons, bids). */
export function suitIcon(suit, deck, cls = "suit-icon") {
  return html`<svg class="${cls}" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
    <use href="#pip-${pipKey(deck)}-${suit}"/></svg>`;
}

function use(deck, suit, x, y, size, flip = false) {
  const t = flip ? html` transform="rotate(180 ${x + size / 2} ${y + size / 2})"` : "";
  return html`<use href="#pip-${pipKey(deck)}-${suit}" x="${x}" y="${y}" width="${size}" height="${size}"${t}/>`;
}

// Pip centres (card 60 x 90) for the number cards.
const L = 18, M = 30, R = 42;
const LAYOUTS = {
  "7": [[L, 19], [R, 19], [M, 32], [L, 45], [R, 45], [L, 71], [R, 71]],
  "8": [[L, 19], [R, 19], [M, 32], [L, 45], [R, 45], [M, 58], [L, 71], [R, 71]],
  "9": [[L, 18], [R, 18], [L, 36], [R, 36], [M, 45], [L, 54], [R, 54], [L, 72], [R, 72]],
  "T": [[L, 18], [R, 18], [M, 27], [L, 36], [R, 36], [L, 54], [R, 54], [M, 63], [L, 72], [R, 72]],
};
const HU_LABEL = { "7": "VII", "8": "VIII", "9": "IX", T: "X", J: "U", Q: "O", K: "K", A: "A" };
const FR_LABEL = { "7": "7", "8": "8", "9": "9", T: "10", J: "J", Q: "Q", K: "K", A: "A" };

function corners(label, suit, deck, color) {
  const fs = label.length >= 3 ? 7 : label.length === 2 ? 8.5 : 10;
  const idx = html`<text x="6.5" y="11.5" font-size="${fs}" text-anchor="middle" font-weight="700"
    font-family="Georgia, 'Times New Roman', serif" fill="${color}"
    ${label.length >= 3 ? html` textLength="10" lengthAdjust="spacingAndGlyphs"` : ""}>${label}</text>${
    use(deck, suit, 2.5, 14, 8)}`;
  return html`<g>${idx}</g><g transform="rotate(180 30 45)">${idx}</g>`;
}

function figure(rank, suit, deck) {
  // A simple standing figure: the unter holds his suit low, the ober high, the king is
  // crowned and the suit sits beside him.  The robe takes the colour of the suit.
  const robe = FIGURE_COLORS[suit];
  const hat = rank === "K"
    ? html`<path fill="#f2c12e" stroke="#8a6400" stroke-width=".6" d="M22 25L24 17 27 22 30 15 33 22 36 17 38 25Z"/>`
    : rank === "Q"
      ? html`<path fill="#2b3a67" d="M21 25C22 18 38 18 39 25Z"/><circle cx="36" cy="19" r="2" fill="${robe}"/>`
      : html`<path fill="#3b2a1a" d="M22 25C23 20 37 20 38 25H40V26.5H20V25Z"/>`;
  const face = html`<circle cx="30" cy="30" r="6" fill="#f6d2b0" stroke="#8a5a3a" stroke-width=".6"/>
    <circle cx="28" cy="29.5" r=".8" fill="#333"/><circle cx="32" cy="29.5" r=".8" fill="#333"/>${
    (rank === "K" ? html`<path fill="#8a5a3a" d="M25.5 32C27 37 33 37 34.5 32 33 34 27 34 25.5 32Z"/>` :
      html`<path fill="none" stroke="#8a5a3a" stroke-width=".6" d="M28 33Q30 34.5 32 33"/>`)}`;
  const body = html`<path fill="${robe}" stroke="#333" stroke-width=".6" d="M30 36C22 36 18 41 17 50L15 70H45L43 50C42 41 38 36 30 36Z"/>
    <path fill="#fff8e0" stroke="#333" stroke-width=".4" d="M27 36L30 48 33 36Z"/>
    <path fill="#f2c12e" d="M16.5 58H43.5V61H16.2Z"/>
    <path fill="#333" d="M20 70H27V76H20ZM33 70H40V76H33Z"/>`;
  let item;
  if (rank === "J") item = use(deck, suit, 35, 55, 13);
  else if (rank === "Q") item = html`${use(deck, suit, 38, 12, 13)}<path stroke="#8a5a3a" stroke-width="2" d="M41 36L44 25"/>`;
  else item = html`${use(deck, suit, 8, 34, 11)}<path stroke="#8a6400" stroke-width="1.6" d="M44 72L47 36"/><circle cx="47" cy="35" r="2.2" fill="#f2c12e"/>`;
  return html`<g>${body}${face}${hat}${item}</g>`;
}

function frenchFace(rank, suit) {
  // A bust in the upper half, mirrored into the lower half, inside a frame.
  const red = suit === "H" || suit === "D";
  const ink = red ? "#c8102e" : "#111";
  const robe = red ? "#f4c6c6" : "#c9d3e6";
  const crown = rank === "K"
    ? html`<path fill="#f2c12e" stroke="${ink}" stroke-width=".5" d="M24 24.5L25.5 17 28 21.5 30 15.5 32 21.5 34.5 17 36 24.5Z"/>`
    : rank === "Q"
      ? html`<path fill="#f2c12e" stroke="${ink}" stroke-width=".5" d="M25 24.5C25 20 35 20 35 24.5Z"/><circle cx="30" cy="19.8" r="1.2" fill="${ink}"/>`
      : html`<path fill="${ink}" d="M24.3 24.8C24.8 20 35.2 20 35.7 24.8Z"/><path fill="none" stroke="#f2c12e" stroke-width="1" d="M34 22C37 19 38 18 39 15"/>`;
  const hair = rank === "Q"
    ? html`<path fill="#b5651d" d="M24.5 27C24 33 25 35 26 36L27 29ZM35.5 27C36 33 35 35 34 36L33 29Z"/>` : "";
  const beard = rank === "K" ? html`<path fill="#8a5a3a" d="M26.5 30.5C27.5 35.5 32.5 35.5 33.5 30.5 32 32.5 28 32.5 26.5 30.5Z"/>` : "";
  const half = html`${hair}<path fill="${robe}" stroke="${ink}" stroke-width=".6" d="M18.5 45C18.5 38.5 23.5 35 30 35 36.5 35 41.5 38.5 41.5 45Z"/>
    <path fill="none" stroke="${ink}" stroke-width=".5" d="M26 35.5L30 44 34 35.5"/>
    <circle cx="30" cy="29.5" r="5" fill="#f6d2b0" stroke="${ink}" stroke-width=".5"/>
    <circle cx="28.2" cy="29" r=".6" fill="#333"/><circle cx="31.8" cy="29" r=".6" fill="#333"/>${beard}${crown}`;
  return html`<rect x="13" y="15" width="34" height="60" rx="2" fill="#fffdf5" stroke="${ink}" stroke-width=".8"/>
    <g>${half}</g><g transform="rotate(180 30 45)">${half}</g>
    <path stroke="${ink}" stroke-width=".5" d="M13 45H47"/>${use("french", suit, 14.5, 16.5, 7)}${use("french", suit, 38.5, 66.5, 7, true)}`;
}

/** The SVG markup of a face-up card (``code`` such as "JH") in the given deck style. */
export function cardSVG(code, deck = "hungarian", extraClass = "") {
  const rank = code[0], suit = code[1];
  const french = deck === "french";
  const color = french ? ((suit === "H" || suit === "D") ? "#c8102e" : "#111") : "#2b2b2b";
  const label = (french ? FR_LABEL : HU_LABEL)[rank];
  let middle;
  if (LAYOUTS[rank]) {
    const size = 11;
    middle = LAYOUTS[rank].map(([x, y]) => use(deck, suit, x - size / 2, y - size / 2, size,
      french && y > 45));
  } else if (rank === "A") {
    middle = french
      ? use(deck, suit, 14, 29, 32)
      : html`<circle cx="30" cy="45" r="19" fill="#f7eed2" stroke="#b08a3a" stroke-width="1"/>
        <path fill="none" stroke="#b08a3a" stroke-width=".6" d="M13 45H18M42 45H47M30 28V24M30 62V66"/>
        ${use(deck, suit, 16, 31, 28)}`;
  } else {
    middle = french ? frenchFace(rank, suit) : figure(rank, suit, deck);
  }
  const bg = french ? "#fff" : "#fbf6e6";
  return html`<svg class="card-svg ${extraClass}" viewBox="0 0 60 90" xmlns="${SVGNS}"
    data-deck="${deck}" data-code="${code}" role="img" focusable="false">
    <rect x=".6" y=".6" width="58.8" height="88.8" rx="4.5" fill="${bg}" stroke="#555" stroke-width=".8"/>${
    french ? "" : html`<rect x="3" y="3" width="54" height="84" rx="3" fill="none" stroke="#c9b98a" stroke-width=".5"/>`}${
    middle}${corners(label, suit, deck, color)}</svg>`;
}

/** The SVG markup of a face-down card. */
export function cardBackSVG(extraClass = "") {
  return html`<svg class="card-svg back ${extraClass}" viewBox="0 0 60 90" xmlns="${SVGNS}" role="img" focusable="false">
    <rect x=".6" y=".6" width="58.8" height="88.8" rx="4.5" fill="#fff" stroke="#555" stroke-width=".8"/>
    <rect x="4" y="4" width="52" height="82" rx="3" fill="url(#card-back-pattern)"/>
    <circle cx="30" cy="45" r="9" fill="#f4e7c1" stroke="#7d1d2c" stroke-width="1.2"/>
    <text x="30" y="49.5" font-size="12" text-anchor="middle" font-family="Georgia, serif" font-weight="700" fill="#7d1d2c">B</text>
    </svg>`;
}

// -- card codes, laid out for display ---------------------------------------------------
// The client knows no rule of play: which cards may be played (`legal`), why a card is
// refused (`refusals`) and whose card wins the trick (`trick_winner`) come from the
// engine in every view (docs/PROTOCOL.md).  What follows only reads codes and lays the
// hand out; it holds no order of strength and no card points.

export const suitOf = (code) => code[1];
export const rankOf = (code) => code[0];

/** Does the contract name the card's suit, for the ★ mark: a suit contract its own suit,
 *  "VC" every suit, "BC" and no contract none. */
export function isTrump(code, contract) {
  if (!contract || contract === "BC") return false;
  return contract === "VC" || suitOf(code) === contract;
}

/** The hand in display order: suits grouped, the contract's suit first and the colours
 *  alternating (H S D C), each suit strongest first by the engine's trick order
 *  (``view.strength``: the trump jack and nine lead their suit) or, before a contract, in
 *  face order A K Q J 10 9 8 7.  The client holds no order table of its own. */
export function sortHand(cards, contract, strength) {
  let suits = ["H", "S", "D", "C"];
  if (contract && contract.length === 1) {
    const red = contract === "H" || contract === "D";
    const reds = ["H", "D"].filter((s) => s !== contract);
    const blacks = ["S", "C"].filter((s) => s !== contract);
    const a = red ? blacks : reds;
    const b = red ? reds : blacks;
    suits = [contract];
    while (a.length || b.length) {
      if (a.length) suits.push(a.shift());
      if (b.length) suits.push(b.shift());
    }
  }
  // strongest first within a suit: the engine's trick order once there is a contract
  // (view.strength, indexed by card number), face value before
  const rank = (c) => (strength ? strength[SUITS.indexOf(suitOf(c)) * 8 + RANKS.indexOf(rankOf(c))]
    : RANKS.indexOf(rankOf(c)));
  return [...cards].sort((x, y) => suits.indexOf(suitOf(x)) - suits.indexOf(suitOf(y))
    || rank(y) - rank(x));
}
