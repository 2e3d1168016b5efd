// @ts-check
// A tournament drawn from its object (GET /api/tournaments/{id}, docs/TOURNAMENTS.md): the
// entries, the rounds' pairings with their tables, the standings with every tie-break, the
// knockout bracket, the duplicate boards' frequency tables, the projector screen and the
// printed score sheets.  Pure functions of the object and the viewer: tournaments.js loads,
// polls and handles the controls.  Nothing here knows a variant by its name: the pairs come
// from the variant's facts (GET /api/variants).

import { lang, t, tn } from "./i18n.js";
import { html, joinHtml } from "./html.js";
import { botName, dateText, profileHref } from "./profile.js";

const LIVE = ["invited", "seeking", "registered"]; // an entry's statuses that still count
const SHEET_ROWS = 12; // blank deal rows of a printed score sheet (duplicate: its boards)

/** The tournament page's address (``screen``: the projector view). */
export function tournamentHref(id, { screen = false, code = null } = {}) {
  const q = new URLSearchParams({ id });
  if (screen) q.set("screen", "1");
  if (code) q.set("code", code);
  const refresh = new URLSearchParams(location.search).get("refresh"); // kept from page to page
  if (refresh) q.set("refresh", refresh);
  return `/tournaments?${q}`;
}

/** Whether entries of the variant are pairs (a seat has a partner), from its facts. */
export function playsInPairs(facts) {
  return !!(facts && Array.isArray(facts.partners) && facts.partners.some((p) => p !== null && p !== undefined));
}

export function formatName(format) {
  return t("tfmt_" + format);
}

/** A round's stage in words: "Kolo 3", "četvrtfinale", "Skupine" ... */
export function stageName(stage) {
  const s = String(stage || "");
  const of = /^round of (\d+)$/.exec(s);
  if (of) return t("tstage_round_of", { n: of[1] });
  const key = "tstage_" + s.replace(/\s+/g, "_");
  const text = t(key);
  return text === key ? s : text;
}

const KNOCKOUT_STAGE = /^(round of \d+|quarter-final|semi-final|final)$/;

export function numText(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(Number(x))) return "–";
  try {
    return new Intl.NumberFormat(lang() === "hr" ? "hr-HR" : "en-GB", { maximumFractionDigits: digits }).format(x);
  } catch {
    return String(x);
  }
}

/** A time of the server (ISO, UTC) as the viewer's date and hour. */
export function whenText(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  return `${dateText(iso)} ${d.getHours()}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** The entries of a tournament object by id. */
export function entryMap(tour) {
  return new Map((tour.entries || []).map((e) => [e.id, e]));
}

/** The viewer's entry that still counts (invited, seeking or registered), or null. */
export function myEntry(tour, me) {
  if (!me) return null;
  return (tour.entries || []).find((e) => LIVE.includes(e.status)
    && e.players.some((p) => p.player_id === me)) || null;
}

/** The current round's plan (the last stored), or null. */
export function currentRound(tour) {
  const rounds = tour.rounds || [];
  return rounds.length ? rounds[rounds.length - 1] : null;
}

/** The game of the current round with an entry of the viewer's, or null. */
export function myGame(tour, me) {
  const mine = myEntry(tour, me);
  const rnd = currentRound(tour);
  if (!mine || !rnd) return null;
  return rnd.games.find((g) => g.entries.includes(mine.id)) || null;
}

function entryName(byId, id) {
  const e = byId.get(id);
  return e ? e.name : `#${id}`;
}

function statusTag(kind, status) {
  return html`<span class="tag t-status t-${kind}-${status}" data-status="${status}">${t(`t${kind}_${status}`)}</span>`;
}

export function tournamentStatusTag(status) {
  return statusTag("status", status);
}

// -- entries ------------------------------------------------------------------------------
function playersText(e) {
  if (e.bot) return html`<span class="tag kind-bot">${botName(e.bot)}</span>`;
  return joinHtml(e.players.map((p) => html`<a href="${profileHref(p.player_id)}" class="player-link">${p.name}</a>`), " & ");
}

/** The entries table; ``director``: each entry removable before the start. */
export function renderEntries(tour, { director = false, me = null } = {}) {
  const entries = tour.entries || [];
  if (!entries.length) return html`<p class="muted">${t("t_no_entries")}</p>`;
  const before = tour.status === "registering" || tour.status === "closed";
  const live = entries.filter((e) => e.status === "registered").length;
  const rows = entries.map((e, i) => {
    const mine = me && e.players.some((p) => p.player_id === me);
    const remove = director && before && LIVE.includes(e.status)
      ? html`<button class="btn small warn" data-cmd="remove:${e.id}" aria-label="${t("t_remove_entry", { name: e.name })}">${t("t_remove")}</button>` : "";
    return html`<tr data-entry="${e.id}" data-status="${e.status}"${mine ? html` class="me"` : ""}>
      <td class="num">${i + 1}</td><td class="name"><b>${e.name}</b><div class="muted small">${playersText(e)}</div></td>
      <td class="num">${e.rating === null || e.rating === undefined ? "–" : numText(e.rating, 0)}</td>
      <td>${statusTag("entry", e.status)}${tour.settings.checkin && e.checked_in && LIVE.includes(e.status) ? html` <span class="tag checked-in">${t("t_checked_in")}</span>` : ""}</td>
      <td>${remove}</td></tr>`;
  });
  return html`<p class="muted">${tn("t_registered", live)}</p><div class="table-scroll"><table class="t-table entries-table">
    <thead><tr><th scope="col" class="num">#</th><th scope="col">${t("t_entry")}</th><th scope="col" class="num">${t("rating_col")}</th>
      <th scope="col">${t("t_status")}</th><th scope="col"><span class="sr-only">${t("t_actions")}</span></th></tr></thead>
    <tbody>${rows}</tbody></table></div>`;
}

// -- rounds -------------------------------------------------------------------------------
/** The QR code's address of a real-cards game's scorer link. */
function scorerQr(g, tourId, round) {
  const key = new URLSearchParams(g.scorer.split("?")[1] || "").get("key") || "";
  return `/api/tournaments/${encodeURIComponent(tourId)}/scorer/${round}/${g.table_no}/qr.svg?key=${encodeURIComponent(key)}`;
}

/** A real-cards game's scorer (the director's): its pad link and the link's QR code. */
function scorerLine(g, tourId, round) {
  if (!g.scorer) return "";
  const qr = scorerQr(g, tourId, round);
  const sent = g.status === "finished";
  return html`<div class="t-scorer" data-table-no="${g.table_no}" data-sent="${sent ? "1" : "0"}">
    <a class="btn small" href="${g.scorer}" target="_blank" rel="noopener" data-scorer="${g.table_no}">${t("t_scorer_link")}</a>
    <span class="muted small">${t(sent ? "t_scorer_sent" : g.status === "playing" ? "t_scorer_waiting" : "t_scorer_pending")}</span>
    ${sent ? "" : html`<img class="t-qr" src="${qr}" alt="${t("t_scorer_qr", { n: g.table_no })}" width="132" height="132" loading="lazy">`}</div>`;
}

/** A corrected result's mark: who corrected it and why (its time and the result it
 *  replaced in the title). */
function correctedMark(c) {
  if (!c) return "";
  const was = t("t_corrected_was", { scores: (c.was && c.was.scores || []).join(" : "), when: dateText(c.at) });
  return html` <span class="tag warn t-corrected" title="${was}">${t("t_corrected", { name: c.name || c.by, reason: c.reason })}</span>`;
}

/** The director's form that corrects a finished game's result: a score a side (a
 *  duplicate game: a score a side on each board) and the reason. */
function fixForm(g, byId, round) {
  const r = g.result || {};
  const boards = g.boards || [];
  const onBoard = new Map((r.board_scores || []).map(([b, sc]) => [b, sc]));
  const fields = boards.length
    ? boards.map((b) => g.entries.map((id, i) => html`<label>${t("t_fix_board", { b, name: entryName(byId, id) })}
        <input type="number" name="board_${b}_${i}" value="${(onBoard.get(b) || [])[i] ?? 0}" required></label>`))
    : g.entries.map((id, i) => html`<label>${t("t_fix_side", { name: entryName(byId, id) })}
        <input type="number" min="0" name="score_${i}" value="${(r.scores || [])[i] ?? 0}" required></label>`);
  return html`<form class="t-fix" data-form="fix" data-round="${round}" data-table-no="${g.table_no}">
    <strong>${t("t_fix_table", { n: g.table_no })}</strong>${fields}
    <label>${t("t_fix_reason")} <input name="reason" maxlength="200" autocomplete="off" required></label>
    <button class="btn primary" data-fix-save>${t("t_fix_save")}</button>
    <button class="btn" type="button" data-cmd="fix-cancel">${t("t_fix_cancel")}</button></form>`;
}

function gameLine(g, byId, mineId, tourId = "", round = 0, fixing = "") {
  const mine = mineId !== null && g.entries.includes(mineId);
  const names = joinHtml(g.entries.map((id) => {
    const won = g.result && g.result.winner === id;
    return html`<span class="t-side${won ? " winner" : ""}" data-entry="${id}">${entryName(byId, id)}</span>`;
  }), " – ");
  const r = g.result;
  const score = r ? html`<span class="t-score">${(r.scores || []).join(" : ")}</span>` : "";
  const marks = r ? [
    ...(r.forfeit || []).map((id) => html` <span class="tag warn">${t("t_forfeit", { name: entryName(byId, id) })}</span>`),
    ...(r.bot_played || []).map((id) => html` <span class="tag">${t("t_bot_played", { name: entryName(byId, id) })}</span>`),
    correctedMark(r.corrected),
  ] : "";
  const link = g.link ? html`<a class="btn small${mine && g.status === "playing" ? " primary" : ""}" href="${g.link}" data-table="${g.table}">${
    mine && g.status === "playing" ? t("t_play") : t("watch")}</a>` : "";
  const key = `${round}:${g.table_no}`;
  const fix = g.correctable && fixing !== key
    ? html` <button class="btn small" data-cmd="fix:${key}" data-fix="${key}">${t("t_fix")}</button>` : "";
  return html`<li class="t-game${mine ? " me" : ""}" data-table-no="${g.table_no}" data-status="${g.status}">
    <span class="t-table-no">${t("t_table_n", { n: g.table_no })}${g.leg > 1 ? html` <small class="muted">${t("t_leg", { n: g.leg })}</small>` : ""}</span>
    <span class="t-names">${names}</span> ${score}${marks} ${statusTag("game", g.status)} ${link}${fix}${scorerLine(g, tourId, round)}${
      g.correctable && fixing === key ? fixForm(g, byId, round) : ""}</li>`;
}

/** Every round's pairings, the newest first; the viewer's table stressed; ``fixing``: the
 *  game ("round:table") whose correction form the director opened. */
export function renderRounds(tour, me, fixing = "") {
  const rounds = tour.rounds || [];
  if (!rounds.length) return html`<p class="muted">${t("t_no_rounds")}</p>`;
  const byId = entryMap(tour);
  const mine = myEntry(tour, me);
  const mineId = mine ? mine.id : null;
  return [...rounds].reverse().map((rnd) => html`<section class="t-round" data-round="${rnd.round}">
    <h3>${t("t_round_n", { n: rnd.round })} <small class="muted">${stageName(rnd.stage)}</small>${
      rnd.finished ? html` <span class="tag">${t("t_round_done")}</span>` : ""}</h3>
    <ul class="t-games">${rnd.games.map((g) => gameLine(g, byId, mineId, tour.id, rnd.round, fixing))}</ul>
    ${rnd.byes.length ? html`<p class="muted t-byes">${t("t_byes")}: ${rnd.byes.map((id) => entryName(byId, id)).join(", ")}</p>` : ""}
  </section>`);
}

// -- standings ----------------------------------------------------------------------------
const has = (rows, key) => rows.some((s) => s[key] !== null && s[key] !== undefined);

/** The standings with every tie-break the format uses: match points, Buchholz, points
 *  difference, head to head; the percentage in duplicate; groups and knockout places. */
export function renderStandings(tour, { big = false } = {}) {
  const rows = tour.standings || [];
  if (!rows.length) return html`<p class="muted">${t("t_no_standings")}</p>`;
  const pct = has(rows, "percentage");
  const place = has(rows, "place") || has(rows, "eliminated_in");
  const byes = !big && rows.some((s) => s.byes);
  const games = big ? "" : null; // the screen: the ranking columns only (large type, one line)
  const groups = has(rows, "group") ? [...new Set(rows.map((s) => s.group))].sort((a, b) => a - b) : [null];
  const head = html`<tr><th scope="col" class="num">${t("rank_col")}</th><th scope="col">${t("t_entry")}</th>
    ${games ?? html`<th scope="col" class="num" title="${t("t_played_title")}">${t("t_played")}</th>
    <th scope="col" class="num">${t("t_wins")}</th><th scope="col" class="num">${t("t_draws")}</th><th scope="col" class="num">${t("t_losses")}</th>`}
    ${byes ? html`<th scope="col" class="num">${t("t_byes_col")}</th>` : ""}
    <th scope="col" class="num" data-col="match_points" title="${t("t_mp_title")}">${t("t_mp")}</th>
    <th scope="col" class="num" data-col="buchholz" title="${t("t_buchholz_title")}">${t("t_buchholz")}</th>
    <th scope="col" class="num" data-col="points_diff" title="${t("t_diff_title")}">${t("t_diff")}</th>
    <th scope="col" class="num" data-col="head_to_head" title="${t("t_h2h_title")}">${t("t_h2h")}</th>
    ${pct ? html`<th scope="col" class="num" data-col="percentage">${t("t_pct")}</th>` : ""}
    ${place ? html`<th scope="col" class="num" data-col="place">${t("t_place")}</th>` : ""}</tr>`;
  const row = (s) => html`<tr data-entry="${s.entry}" data-rank="${s.rank}">
    <td class="num">${s.rank}</td><td class="name">${s.name}</td>${games ?? html`<td class="num">${s.played}</td>
    <td class="num">${s.wins}</td><td class="num">${s.draws}</td><td class="num">${s.losses}</td>`}
    ${byes ? html`<td class="num">${s.byes}</td>` : ""}
    <td class="num" data-col="match_points"><b>${numText(s.match_points)}</b></td>
    <td class="num" data-col="buchholz">${numText(s.buchholz)}</td>
    <td class="num" data-col="points_diff">${s.points_diff > 0 ? "+" : ""}${s.points_diff}</td>
    <td class="num" data-col="head_to_head">${numText(s.head_to_head)}</td>
    ${pct ? html`<td class="num" data-col="percentage">${s.percentage === null ? "–" : `${numText(s.percentage, 1)} %`}</td>` : ""}
    ${place ? html`<td class="num" data-col="place">${s.place ?? "–"}</td>` : ""}</tr>`;
  return groups.map((grp) => html`${grp !== null ? html`<h3>${t("t_group_n", { n: grp })}</h3>` : ""}
    <div class="table-scroll"><table class="t-table standings-table${big ? " big" : ""}"${grp !== null ? html` data-group="${grp}"` : ""}>
    <thead>${head}</thead><tbody>${rows.filter((s) => grp === null || s.group === grp).map(row)}</tbody></table></div>`);
}

// -- the knockout bracket -------------------------------------------------------------------
/** The knockout rounds as a bracket: a column a stage, each tie with its legs' scores. */
export function renderBracket(tour) {
  const rounds = (tour.rounds || []).filter((r) => KNOCKOUT_STAGE.test(r.stage));
  if (!rounds.length) return "";
  const byId = entryMap(tour);
  /** @type {Map<string, Map<string, {entries: number[], legs: any[]}>>} */
  const stages = new Map();
  for (const rnd of rounds) {
    if (!stages.has(rnd.stage)) stages.set(rnd.stage, new Map());
    const ties = stages.get(rnd.stage);
    for (const g of rnd.games) {
      const key = [...g.entries].sort((a, b) => a - b).join("-");
      if (!ties.has(key)) ties.set(key, { entries: g.entries, legs: [] });
      ties.get(key).legs.push(g);
    }
  }
  const cols = [...stages].map(([stage, ties]) => html`<div class="bracket-col" data-stage="${stage}">
    <h4>${stageName(stage)}</h4>${[...ties.values()].map((tie) => {
      const wins = new Map(tie.entries.map((id) => [id, tie.legs.filter((g) => g.result && g.result.winner === id).length]));
      const best = Math.max(...wins.values());
      const done = tie.legs.every((g) => g.status === "finished");
      return html`<div class="bracket-tie">${tie.entries.map((id, side) => html`<div class="bracket-side${
        done && best > 0 && wins.get(id) === best ? " winner" : ""}" data-entry="${id}"><span>${entryName(byId, id)}</span>
        <span class="bracket-legs">${tie.legs.map((g) => html`<span>${g.result ? g.result.scores[side] : "·"}</span>`)}</span></div>`)}</div>`;
    })}</div>`);
  return html`<div class="bracket" role="group" aria-label="${t("t_bracket")}">${cols}</div>`;
}

// -- duplicate boards ---------------------------------------------------------------------
/** Each finished round's boards: the frequency table and each table's line. */
export function renderBoards(tour, me = null) {
  const done = tour.boards || [];
  if (!done.length) return "";
  const byId = entryMap(tour);
  const mine = myEntry(tour, me); // his lines stressed (a practice: his against the bots')
  const mineId = mine ? mine.id : null;
  return done.map((rnd) => html`<section class="t-boards" data-round="${rnd.round}"><h3>${t("t_round_n", { n: rnd.round })}</h3>
    ${rnd.boards.map((b) => html`<div class="board-block" data-board="${b.board}"><h4>${t("t_board_n", { n: b.board })} <small class="muted">${t("t_top", { n: b.top })}</small></h4>
      <div class="table-scroll"><table class="t-table freq-table"><caption>${t("t_frequencies")}</caption>
        <thead><tr><th scope="col" class="num">${t("t_margin")}</th><th scope="col" class="num">${t("t_count")}</th>
          <th scope="col" class="num">${t("t_mp_side", { n: 1 })}</th><th scope="col" class="num">${t("t_mp_side", { n: 2 })}</th></tr></thead>
        <tbody>${b.frequencies.map((f) => html`<tr><td class="num">${f.margin > 0 ? "+" : ""}${f.margin}</td><td class="num">${f.count}</td>
          <td class="num">${f.matchpoints[0]}</td><td class="num">${f.matchpoints[1]}</td></tr>`)}</tbody></table>
      <table class="t-table board-lines"><thead><tr><th scope="col" class="num">${t("t_table")}</th><th scope="col">${t("t_entries")}</th>
          <th scope="col" class="num">${t("t_points")}</th><th scope="col" class="num">${t("t_mp")}</th></tr></thead>
        <tbody>${b.lines.map((l) => html`<tr${l.entries.includes(mineId) ? html` class="me" data-mine="1"` : ""}><td class="num">${l.table}</td><td>${l.entries.map((id) => entryName(byId, id)).join(" – ")}</td>
          <td class="num">${l.points.join(" : ")}</td><td class="num">${l.matchpoints.join(" : ")}</td></tr>`)}</tbody></table></div></div>`)}
  </section>`);
}

// -- print: score sheets ------------------------------------------------------------------
/** A score sheet a table of the current round (printed only): its entries and blank rows. */
export function renderSheets(tour) {
  const rnd = currentRound(tour);
  if (!rnd) return "";
  const byId = entryMap(tour);
  const rows = tour.format === "duplicate" ? Math.max(1, rnd.games[0] ? rnd.games[0].boards.length : 0) : SHEET_ROWS;
  return rnd.games.map((g) => html`<section class="score-sheet" data-table-no="${g.table_no}">
    <h3>${tour.name} · ${t("t_round_n", { n: rnd.round })} · ${t("t_table_n", { n: g.table_no })}</h3>
    <table class="sheet-table"><thead><tr><th scope="col">${t(tour.format === "duplicate" ? "t_board" : "t_deal")}</th>${
      g.entries.map((id) => html`<th scope="col">${entryName(byId, id)}</th>`)}</tr></thead>
      <tbody>${[...Array(rows).keys()].map((i) => html`<tr><td>${tour.format === "duplicate" && g.boards[i] ? g.boards[i] : i + 1}</td>${
        g.entries.map(() => html`<td></td>`)}</tr>`)}
      <tr class="sheet-total"><th scope="row">${t("t_total")}</th>${g.entries.map(() => html`<td></td>`)}</tr></tbody></table>
    <p class="sheet-sign">${g.entries.map((id) => html`<span>${t("t_signature", { name: entryName(byId, id) })} ________________</span>`)}</p>
    ${g.scorer ? html`<p class="sheet-qr"><img src="${scorerQr(g, tour.id, rnd.round)}" alt="${t("t_scorer_qr", { n: g.table_no })}" width="150" height="150"> <span>${t("t_sheet_qr")}</span></p>` : ""}
  </section>`);
}

// -- the projector screen -----------------------------------------------------------------
/** Minutes and seconds, ``m:ss`` (75 -> "1:15"). */
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The round's clock on the screen: the time the round has been played, or, in the break
 *  after it, the countdown to the next round's pairing. */
export function roundClock(tour, rnd, now) {
  const at = (iso) => { const d = iso ? new Date(iso) : null; return d && !Number.isNaN(d.getTime()) ? d : null; };
  const next = at(tour.next_round_at);
  if (next && rnd.finished) {
    return html`<p class="screen-round-clock" id="screen-round-clock" data-kind="break">${t("t_next_round_in")} <strong>${clockText((next.getTime() - now.getTime()) / 1000)}</strong></p>`;
  }
  const started = at(rnd.started_at);
  if (!started || rnd.finished) return "";
  return html`<p class="screen-round-clock" id="screen-round-clock" data-kind="round">${t("t_round_time")} <strong>${clockText((now.getTime() - started.getTime()) / 1000)}</strong></p>`;
}

/** The screen view: the round's pairings with table numbers, the clock, the standings. */
export function renderScreen(tour, now = new Date()) {
  const rnd = currentRound(tour);
  const byId = entryMap(tour);
  const clock = `${now.getHours()}:${String(now.getMinutes()).padStart(2, "0")}`;
  const started = tour.started_at ? new Date(tour.started_at) : null;
  const since = started && !Number.isNaN(started.getTime()) && !tour.finished_at
    ? Math.max(0, Math.floor((now.getTime() - started.getTime()) / 60000)) : null;
  const pairings = rnd ? html`${roundClock(tour, rnd, now)}<ol class="screen-pairings">${rnd.games.map((g) => html`<li data-table-no="${g.table_no}" data-status="${g.status}">
      <span class="screen-table">${t("t_table_n", { n: g.table_no })}</span>
      <span class="screen-names">${joinHtml(g.entries.map((id) => entryName(byId, id)), " – ")}</span>
      <span class="screen-score">${g.result ? g.result.scores.join(" : ") : ""}</span></li>`)}</ol>
      ${rnd.byes.length ? html`<p class="screen-byes">${t("t_byes")}: ${rnd.byes.map((id) => entryName(byId, id)).join(", ")}</p>` : ""}`
    : html`<p>${t("t_no_rounds")}</p>`;
  return html`<div class="screen" data-status="${tour.status}">
    <header class="screen-head"><h1>${tour.name}</h1>
      <p>${t("vname_" + tour.variant)} · ${formatName(tour.format)} · ${tournamentStatusTag(tour.status)}</p>
      <div class="screen-clock"><span id="screen-clock" class="clock-now">${clock}</span>${
        since !== null ? html`<small>${t("t_running_for", { n: since })}</small>` : ""}</div></header>
    <section class="screen-round"><h2>${rnd ? html`${t("t_round_n", { n: rnd.round })} <small>${stageName(rnd.stage)}</small>` : t("t_pairings")}</h2>${pairings}</section>
    <section class="screen-standings"><h2>${t("t_standings")}</h2>${renderStandings(tour, { big: true })}</section>
  </div>`;
}
