// Client-side card logic for display only: sorting a hand, trick winners and the *reason*
// a card is not allowed.  Legality itself always comes from the server's `legal` list; these
// functions only mirror RULES.md R2, R3, R17-R20 and R36 to explain it.

export const SUITS = "HDSC";
export const RANKS = "789TJQKA";
// Strength within a suit, higher beats lower, by rank index 7 8 9 T J Q K A.
const TRUMP_ORDER = [0, 1, 6, 4, 7, 2, 3, 5]; // R2: J 9 A 10 K Q 8 7
const PLAIN_ORDER = [0, 1, 2, 6, 3, 4, 5, 7]; // R3: A 10 K Q J 9 8 7
const TRUMP_POINTS = [0, 0, 14, 10, 20, 3, 4, 11];
const PLAIN_POINTS = [0, 0, 0, 10, 2, 3, 4, 11];

export const suitOf = (code) => code[1];
export const rankOf = (code) => code[0];

/** Is ``code`` a trump under ``contract`` ("H".."C", "VC", "BC" or null)? */
export function isTrump(code, contract) {
  if (!contract || contract === "BC") return false;
  if (contract === "VC") return true;
  return suitOf(code) === contract;
}

/** The trump suit that beats other suits (null in VC, BC and before a contract). */
export function trumpSuit(contract) {
  return contract && contract.length === 1 ? contract : null;
}

export function order(code, contract) {
  const r = RANKS.indexOf(rankOf(code));
  return (isTrump(code, contract) ? TRUMP_ORDER : PLAIN_ORDER)[r];
}

export function points(code, contract) {
  const r = RANKS.indexOf(rankOf(code));
  return (isTrump(code, contract) ? TRUMP_POINTS : PLAIN_POINTS)[r];
}

/** Does ``b`` beat ``a`` (a played earlier, or the card winning so far)? R20, R36. */
export function beats(b, a, contract) {
  if (suitOf(a) === suitOf(b)) return order(b, contract) > order(a, contract);
  const ts = trumpSuit(contract);
  return ts !== null && suitOf(b) === ts;
}

/** Index of the winning play in a trick (a list of {seat, card}). */
export function trickWinnerIndex(trick, contract) {
  let win = 0;
  for (let i = 1; i < trick.length; i++) {
    if (beats(trick[i].card, trick[win].card, contract)) win = i;
  }
  return win;
}

/** The hand in display order: suits grouped (trump first, colours alternating), each suit
 * strongest first. */
export function sortHand(cards, contract) {
  const ts = trumpSuit(contract);
  // Alternate red and black: H S D C, rotated so that the trump suit comes first.
  let suits = ["H", "S", "D", "C"];
  if (ts) {
    const red = ts === "H" || ts === "D";
    const reds = ["H", "D"].filter((s) => s !== ts);
    const blacks = ["S", "C"].filter((s) => s !== ts);
    const a = red ? blacks : reds;
    const b = red ? reds : blacks;
    suits = [ts];
    while (a.length || b.length) {
      if (a.length) suits.push(a.shift());
      if (b.length) suits.push(b.shift());
    }
  }
  // Drop suits not held and keep colours alternating where possible.
  return [...cards].sort((x, y) => {
    const sx = suits.indexOf(suitOf(x)), sy = suits.indexOf(suitOf(y));
    if (sx !== sy) return sx - sy;
    return order(y, contract) - order(x, contract);
  });
}

/**
 * Why ``card`` may not be played now: {key, vars, rule} for i18n, mirroring the engine's
 * explanation (R17-R19 for bela4/bela3/bela2, R36 for belot2).  ``null`` if no reason is known.
 */
export function illegalReason(card, view) {
  const trick = view.trick || [];
  const contract = view.contract;
  const hand = view.hand || [];
  if (!trick.length) return { key: "reason_other", vars: {}, rule: null };
  const lead = suitOf(trick[0].card);
  const win = trick[trickWinnerIndex(trick, contract)].card;
  const follow = hand.filter((c) => suitOf(c) === lead);
  const ts = trumpSuit(contract);
  if (view.variant === "belot2") {
    if (follow.length) {
      if (suitOf(card) !== lead) return { key: "reason_follow", vars: { suit: lead }, rule: "R36" };
      return { key: "reason_beat", vars: { card: win }, rule: "R36" };
    }
    if (ts && hand.some((c) => suitOf(c) === ts)) return { key: "reason_trump", vars: {}, rule: "R36" };
    return { key: "reason_other", vars: {}, rule: "R36" };
  }
  if (follow.length) {
    if (suitOf(card) !== lead) return { key: "reason_follow", vars: { suit: lead }, rule: "R17" };
    const rule = isTrump(win, contract) && suitOf(win) === lead ? "R19" : "R17";
    return { key: "reason_beat", vars: { card: win }, rule };
  }
  if (ts && hand.some((c) => suitOf(c) === ts)) {
    if (suitOf(win) === ts && suitOf(card) === ts) {
      return { key: "reason_beat_trump", vars: { card: win }, rule: "R18" };
    }
    return { key: "reason_trump", vars: {}, rule: "R18" };
  }
  return { key: "reason_other", vars: {}, rule: "R17" };
}

/** Parse a "declare A B C; D E F G" token into its groups of card codes. */
export function declareGroups(token) {
  return token.slice(8).split(";").map((g) => g.trim().split(/\s+/).filter(Boolean));
}
