// @ts-check
// A pad bound to a game of a tournament played with real cards (docs/TOURNAMENTS.md "Real
// cards"): opened from the game's scorer link (/pad?tournament=..&round=..&table=..&key=..),
// set up from the game (variant, options, the sides' names), and its result — the match
// totals the server scores from its record — sent to the tournament once.

import { api } from "./api.js";
import { html } from "./html.js";

/** The scorer link's parameters of this page's address, or null for a plain pad. */
export function boundParams(search = location.search) {
  const q = new URLSearchParams(search);
  const tournament = q.get("tournament");
  const round = Number.parseInt(q.get("round") || "", 10);
  const table = Number.parseInt(q.get("table") || "", 10);
  const key = q.get("key");
  if (!tournament || !key || !Number.isFinite(round) || !Number.isFinite(table)) return null;
  return { tournament, round, table, key };
}

/** The id of the pad kept in this browser for a bound game. */
export const boundId = (b) => `bound-${b.tournament}-${b.round}-${b.table}`;

const path = (b) => `/api/tournaments/${encodeURIComponent(b.tournament)}/scorer/${b.round}/${b.table}`;

/** The game a scorer link names (GET): {name, variant, options, names, status, result...}. */
export async function fetchGame(b) {
  return api("GET", `${path(b)}?key=${encodeURIComponent(b.key)}`);
}

/** The pad's record sent as the game's result (POST): the game as the server has it now. */
export async function sendResult(b, record) {
  return api("POST", path(b), { key: b.key, record });
}

/** The bound pad's strip: its tournament, round and table, and its result's state — the
 *  send button (asked twice: ``armed``) until the result is in. */
export function renderBound(e, t, armed, winner) {
  const b = e.bound;
  const head = html`<p class="pad-bound-head"><strong>${b.name}</strong> · ${t("pad_bound_table", { round: b.round, table: b.table })}</p>`;
  if (b.status === "finished" && b.result) {
    return html`<div class="pad-bound" id="pad-bound" data-status="finished">${head}
      <p class="pad-bound-sent" id="pad-bound-sent" role="status">✓ ${t("pad_bound_sent", { scores: b.result.scores.join(" : ") })}</p></div>`;
  }
  if (b.status === "void") {
    return html`<div class="pad-bound" id="pad-bound" data-status="void">${head}<p>${t("pad_bound_void")}</p></div>`;
  }
  const label = armed ? t("pad_bound_send_sure") : winner !== null ? t("pad_bound_send") : t("pad_bound_send_early");
  return html`<div class="pad-bound" id="pad-bound" data-status="${b.status}">${head}
    <button type="button" class="btn ${armed || winner !== null ? "primary" : ""}" data-cmd="send" id="pad-send">${label}</button></div>`;
}
