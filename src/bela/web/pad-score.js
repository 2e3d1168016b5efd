// @ts-check
// The score pad's kernel: deals written from real cards, scored and booked on the sheet by
// the engine's rules, offline.  It is bela.engine.pad (score_deal, Pad, PadDeal.from_json)
// with scoring.score_points, the variants' fall hooks and scoring.book, written again for
// the browser, and fed the facts of each variant that GET /api/pad/rules gives (pad_rules):
// nothing about a variant is written here.  The web tests score hundreds of pads with both
// and compare them deal by deal.
//
// A refusal is a PadProblem: a code and its values (pad.js says it in words, "pad_err_" +
// code; the English text is the engine's PadError message).

export const RECORD_VERSION = 1;
const BELA = 20; // R14
const DEAL_KEYS = ["caller", "trump", "points", "declarations", "bela", "capot", "belot",
  "raspas", "redeal"];

/** A deal or a record that cannot be: ``code`` names the reason, ``vars`` fill it; ``deal``
 *  (0-based) is the deal it is in, when it is in one. */
export class PadProblem extends Error {
  constructor(code, vars = {}, deal = null) {
    super(code);
    this.code = code;
    this.vars = vars;
    this.deal = deal;
  }
}

function refuse(code, vars = {}) {
  throw new PadProblem(code, vars);
}

const isInt = (x) => typeof x === "number" && Number.isInteger(x);
const isObject = (x) => typeof x === "object" && x !== null && !Array.isArray(x);
const zeros = (n) => Array.from({ length: n }, () => 0);

// -- a deal as a record writes it (PadDeal) ------------------------------------------------
function optInt(data, key) {
  const v = data[key];
  if (v === undefined || v === null) return null;
  if (!isInt(v)) refuse("int_or_null", { key });
  return v;
}

function optStr(data, key) {
  const v = data[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") refuse("str_or_null", { key });
  return v;
}

function flag(data, key) {
  const v = key in data ? data[key] : false;
  if (typeof v !== "boolean") refuse("flag", { key });
  return v;
}

function ints(data, key, allowNull = false) {
  const v = key in data ? data[key] : [];
  if (!Array.isArray(v) || !v.every((x) => (x === null && allowNull) || isInt(x))) {
    refuse(allowNull ? "ints_or_null" : "ints", { key });
  }
  return [...v];
}

/** A deal of a pad record, read as PadDeal.from_json reads it. */
export function readDeal(data) {
  if (!isObject(data)) refuse("deal_object");
  const unknown = Object.keys(data).filter((k) => !DEAL_KEYS.includes(k)).sort();
  if (unknown.length) refuse("deal_keys", { keys: unknown.join(", ") });
  return {
    caller: optInt(data, "caller"), trump: optStr(data, "trump"),
    points: ints(data, "points", true), declarations: ints(data, "declarations"),
    bela: ints(data, "bela"), capot: optInt(data, "capot"), belot: optInt(data, "belot"),
    raspas: flag(data, "raspas"), redeal: flag(data, "redeal"),
  };
}

/** The deal as a pad record writes it: only what was written (PadDeal.to_json). */
export function dealJson(d) {
  if (d.belot !== null && d.belot !== undefined) return { belot: d.belot };
  if (d.redeal) return { redeal: true };
  const out = {};
  if (d.raspas) out.raspas = true;
  else {
    out.caller = d.caller ?? null;
    out.trump = d.trump ?? null;
  }
  out.points = [...(d.points || [])];
  if ((d.declarations || []).some((x) => x)) out.declarations = [...d.declarations];
  if ((d.bela || []).some((x) => x)) out.bela = [...d.bela];
  if (d.capot !== null && d.capot !== undefined) out.capot = d.capot;
  return out;
}

// -- the checks of a written deal (bela.engine.pad) ----------------------------------------
/** The card points per side: where every card is played (``fixed``) they add up to 162 and
 *  one may be left out (null: the rest); else each is written, 10 to 162 in all (R2, R3,
 *  R33). */
function cardPoints(rules, given, fixed) {
  const sides = rules.sides, full = rules.deal_points;
  if (given.length !== sides) refuse("points_count", { n: sides });
  const missing = given.flatMap((p, i) => (p === null ? [i] : []));
  if (missing.length > (fixed ? 1 : 0)) refuse(fixed ? "points_missing_fixed" : "points_missing");
  const written = given.filter((p) => p !== null);
  if (written.some((p) => p < 0 || p > full)) refuse("points_range", { full });
  const cards = given.map((p) => (p === null ? 0 : p));
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  if (missing.length) {
    const rest = full - sum(written);
    if (rest < 0) refuse("points_over", { sum: sum(written), full });
    cards[missing[0]] = rest;
  }
  if (fixed && sum(cards) !== full) refuse("points_sum", { sum: sum(cards), full });
  if (!fixed && !(sum(cards) >= 10 && sum(cards) <= full)) {
    refuse("points_played", { sum: sum(cards), full });
  }
  return cards;
}

function perSide(values, sides, code) {
  if (!values.length) return zeros(sides);
  if (values.length !== sides || values.some((v) => v < 0)) refuse(code, { n: sides });
  return [...values];
}

function checkSide(side, sides, code) {
  if (!(side >= 0 && side < sides)) refuse(code, { last: sides - 1 });
}

/** The round result of a written deal (bela.engine.pad.score_deal): ``outcome``,
 *  ``scores`` per side, ``held`` (R22 hang), ``winner`` (R10 belot), and the points it was
 *  scored from; throws a PadProblem for a deal that cannot be. */
export function scoreDeal(rules, options, deal) {
  const sides = rules.sides;
  if (deal.belot !== null && deal.belot !== undefined) {
    if (!rules.belot_wins) refuse("no_belot", { variant: rules.variant });
    checkSide(deal.belot, sides, "belot_side");
    return { outcome: "belot", scores: zeros(sides), held: 0, winner: deal.belot, caller: null };
  }
  if (deal.redeal) {
    if (!rules.redeal) refuse("no_redeal", { variant: rules.variant });
    return { outcome: "redeal", scores: zeros(sides), held: 0, winner: null, caller: null };
  }
  const cards = cardPoints(rules, deal.points, rules.all_cards);
  if (deal.raspas) {
    if (!rules.raspas) refuse("no_raspas", { variant: rules.variant });
    if (deal.caller !== null || deal.declarations.some((x) => x) || deal.bela.some((x) => x)) {
      refuse("raspas_extra");
    }
    // R37: no caller; each scores minus the card points he took
    return { outcome: "raspas", scores: cards.map((c) => 0 - c), held: 0, winner: null,
      caller: null, cards };
  }
  if (deal.caller === null) refuse("no_caller");
  checkSide(deal.caller, sides, "caller_side");
  if (!rules.contracts.includes(deal.trump)) refuse("trump", { list: rules.contracts.join(", ") });
  const decl = perSide(deal.declarations, sides, "decl_sides");
  const bela = perSide(deal.bela, sides, "bela_sides");
  for (const p of decl) {
    if (p && !rules.declarations.includes(p)) refuse("decl_sum", { n: p });
  }
  if (decl.filter((d) => d).length > 1) refuse("decl_both");
  const most = rules.bela[deal.trump]; // R14; belot2 R37: VC each suit, BC none
  if (bela.reduce((a, b) => a + b, 0) > most) refuse(most ? "bela_most" : "no_bela", { n: most });
  let capot = deal.capot;
  if (capot !== null) {
    checkSide(capot, sides, "capot_side");
    const others = [...Array(sides).keys()].filter((s) => s !== capot);
    if (rules.capot_bonus === 0) capot = null; // R36: every trick is a pass like any other
    else if (others.some((s) => cards[s])) refuse("capot_points");
    else if (others.some((s) => decl[s] || bela[s])) refuse("capot_extra");
  }
  return scorePoints(rules, options, deal.caller, deal.trump, cards, decl,
    bela.map((b) => BELA * b), capot);
}

/** The round result of these points per side (scoring.score_points with the variant's
 *  hooks): štiglja (R23), pass (more than half of the total, R21) or the variant's fall:
 *  R22 the other side takes the total, R28 (three) the caller 0 and the others their own;
 *  an exact tie with ``tie = hang`` holds the caller's points (R22); belot2 doubles every
 *  point of BC (R36). */
function scorePoints(rules, options, caller, trump, cards, decl, bela, capot) {
  const sides = rules.sides;
  const factor = rules.doubled.includes(trump) ? 2 : 1;
  const own = cards.map((c, s) => factor * (c + decl[s] + bela[s]));
  const total = own.reduce((a, b) => a + b, 0);
  const common = { caller, total, cards, declarations: decl, bela };
  if (capot !== null) {
    const scores = zeros(sides);
    scores[capot] = total + rules.capot_bonus;
    return { outcome: "capot", scores, held: 0, winner: null, ...common };
  }
  const mine = own[caller];
  if (2 * mine > total) return { outcome: "pass", scores: own, held: 0, winner: null, ...common };
  const tie = 2 * mine === total;
  const hang = tie && options.tie === "hang";
  let scores;
  if (rules.fall === "own" || hang) {
    scores = [...own];
    scores[caller] = 0;
  } else {
    scores = zeros(sides);
    scores[1 - caller] = total;
  }
  if (hang) return { outcome: "hang", scores, held: own[caller], winner: null, ...common };
  return { outcome: "fall", scores, held: 0, winner: null, ...common };
}

/** Write a round result on a sheet (scoring.book): R10 belot wins at once; R22 a hang holds
 *  the caller's points, and held points go to the side scoring more in the next round with
 *  a single best; R25 the single side at or over the target wins.  ``took``: the held points
 *  this round gave its best side. */
export function book(res, totals, held, winner, target) {
  const scores = [...res.scores];
  let took = 0;
  if (res.outcome === "belot") winner = res.winner;
  else if (res.outcome === "hang") held += res.held;
  else if (held && res.outcome !== "redeal" && res.outcome !== "unfinished") {
    const top = Math.max(...scores);
    if (scores.filter((s) => s === top).length === 1) {
      scores[scores.indexOf(top)] += held;
      took = held;
      held = 0;
    }
  }
  const after = totals.map((t, i) => t + scores[i]);
  if (winner === null && Math.max(...after) >= target) {
    const top = Math.max(...after);
    if (after.filter((s) => s === top).length === 1) winner = after.indexOf(top);
  }
  return { scores, totals: after, held, winner, took };
}

// -- a pad: options, names, deals (bela.engine.pad.Pad) ------------------------------------
/** The table options of ``given`` checked as Variant.make_options checks them: every option
 *  is one of the variant's, ``target`` a whole number in range (R25), the others one of
 *  their choices; the defaults fill the rest. */
export function makeOptions(all, rules, given) {
  if (!isObject(given)) refuse("options_object");
  const [low, high] = all.ranges.target;
  const out = { ...rules.defaults };
  for (const [key, value] of Object.entries(given)) {
    if (!rules.options.includes(key)) {
      refuse("option_unknown", { variant: rules.variant, key, options: rules.options.join(", ") });
    }
    if (key === "target") {
      if (!isInt(value) || value < low || value > high) refuse("target_range", { low, high });
    } else if (!all.choices[key].includes(value)) {
      refuse("option_choice", { key, choices: all.choices[key].join(", ") });
    }
    out[key] = value;
  }
  return out;
}

/** Book ``deals`` (read ones) on a new sheet (Pad._book): per deal its result and booked
 *  row, then the totals, the held points and the winner; throws the PadProblem of the first
 *  deal that cannot be, with its index. */
export function bookDeals(rules, options, deals) {
  let totals = zeros(rules.sides), held = 0, winner = null;
  const rows = [];
  deals.forEach((deal, i) => {
    if (winner !== null) throw new PadProblem("after_win", { n: i + 1 }, i);
    let res;
    try {
      res = scoreDeal(rules, options, deal);
    } catch (e) {
      if (e instanceof PadProblem) e.deal = i;
      throw e;
    }
    const b = book(res, totals, held, winner, options.target);
    rows.push({ deal, result: res, scores: b.scores, took: b.took, totals: b.totals,
      held: b.held });
    ({ totals, held, winner } = b);
  });
  return { rows, totals, held, winner };
}

/** A pad record read as Pad.from_record reads it: ``{variant, rules, options (all),
 *  given (as written), names, deals}``; throws a PadProblem for one that is not valid. */
export function readRecord(all, data) {
  if (!isObject(data) || (data.pad !== RECORD_VERSION && data.pad !== true)) {
    refuse("record", { version: RECORD_VERSION });
  }
  const known = typeof data.variant === "string" && Object.hasOwn(all.variants, data.variant);
  const rules = known ? all.variants[data.variant] : null;
  if (!rules) {
    refuse("variant", { known: Object.keys(all.variants).join(", ") });
  }
  const given = "options" in data ? data.options : {};
  const names = "names" in data ? data.names : [];
  if (!isObject(given)) refuse("options_object");
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) refuse("names");
  if (!Array.isArray(data.deals)) refuse("deals");
  const deals = data.deals.map(readDeal);
  const options = makeOptions(all, rules, given);
  if (names.length && names.length !== rules.sides) refuse("names_count", { n: rules.sides });
  return { variant: rules.variant, rules, options, names: names.length ? [...names]
    : defaultNames(rules), deals };
}

const defaultNames = (rules) => Array.from({ length: rules.sides }, (_, i) => String(i + 1));

/** The pad record of a read pad (Pad.to_record): only the options that differ from the
 *  variant's defaults. */
export function padRecord(pad) {
  const options = {};
  for (const key of pad.rules.options) {
    if (pad.options[key] !== pad.rules.defaults[key]) options[key] = pad.options[key];
  }
  return { pad: RECORD_VERSION, variant: pad.variant, options, names: [...pad.names],
    deals: pad.deals.map(dealJson) };
}

/** The sheet as Pad.score gives it: per deal ``caller`` (a side), ``trump``, ``outcome``,
 *  ``scores``; ``totals``, ``winner``, ``held``. */
export function sheetOf(booked) {
  return {
    rounds: booked.rows.map((r) => ({
      caller: r.result.caller === null ? null : r.deal.caller, trump: r.deal.trump,
      outcome: r.result.outcome, scores: [...r.scores],
    })),
    totals: [...booked.totals], winner: booked.winner, held: booked.held,
  };
}

/** A pad record scored: ``{pad (read), booked, sheet, record}``; throws a PadProblem. */
export function scoreRecord(all, data) {
  const pad = readRecord(all, data);
  const booked = bookDeals(pad.rules, pad.options, pad.deals);
  return { pad, booked, sheet: sheetOf(booked), record: padRecord(pad) };
}

/** A refusal in words: ``t`` is i18n's (keys "pad_err_" + code); a problem of a deal of a
 *  record says which ("deal 3: ..."), as the engine's PadError does. */
export function problemText(e, t) {
  if (!(e instanceof PadProblem)) return String((e && e.message) || e);
  const reason = t("pad_err_" + e.code, e.vars);
  return e.deal !== null && e.code !== "after_win" ? t("pad_err_deal", { n: e.deal + 1, reason })
    : reason;
}

/** ``text`` for people: without the rule ids (" (R12)", " (R2, R3)") the engine's messages
 *  cite for developers. */
export function forPeople(text) {
  return String(text).replace(/\s*\(R\d+(?:,\s*R\d+)*\)/g, "");
}
