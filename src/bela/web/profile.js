// @ts-check
// A player's profile (/?player=<id>) and the leaderboard (/?leaders=<variant>): ratings per
// variant with an inline SVG chart of their history, stats, finished matches.  Rendered as
// HTML from the app state; app.js loads the data (GET /api/players/{id}, GET
// /api/leaderboard) and handles the events ([data-cmd]) by delegation.

import { avatarOf, avatarSVG, botFace, noteAvatar } from "./avatars.js";
import { avatarChoice, friendButton, renderFriendsPanel } from "./friends.js";
import { lang, t, tn } from "./i18n.js";
import { suitIcon } from "./cards.js";
import { html, joinHtml } from "./html.js";
import { defaultVariant } from "./variants.js";

function locale() {
  return lang() === "hr" ? "hr-HR" : "en-GB";
}

/** A date of the server (ISO) in the UI's language: "3. 12. 2025." / "3 Dec 2025"; ``short``
 *  without the year ("3. 12." / "3 Dec"). */
export function dateText(iso, short = false) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  if (lang() === "hr") { // written as Croatians do, whatever the browser's locale data
    return `${d.getDate()}. ${d.getMonth() + 1}.${short ? "" : ` ${d.getFullYear()}.`}`;
  }
  try {
    return d.toLocaleDateString("en-GB", short ? { day: "numeric", month: "short" }
      : { day: "numeric", month: "short", year: "numeric" });
  } catch {
    return d.toISOString().slice(short ? 5 : 0, 10);
  }
}

const shortDate = (iso) => dateText(iso, true);

function timeText(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  return `${d.getHours()}:${String(d.getMinutes()).padStart(2, "0")}`;
}

function numberText(x, digits = 1) {
  try {
    return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(x);
  } catch {
    return String(Math.round(x * 10 ** digits) / 10 ** digits);
  }
}

export function profileHref(id) {
  return `/?player=${encodeURIComponent(id)}`;
}

export function leadersHref(variant) {
  return `/?leaders=${encodeURIComponent(variant)}`;
}

/** A link to a player's profile (a bot's too: ``bot-<spec>``), opened by app.js. */
export function profileLink(id, content, cls = "player-link") {
  return html`<a class="${cls}" href="${profileHref(id)}" data-cmd="profile:${id}">${content}</a>`;
}

/** A bot's name in words (i18n "bot_<spec>"); its spec when there are none. */
export function botName(spec) {
  const key = "bot_" + spec;
  const text = t(key);
  return text === key ? spec : text;
}

/** A contract (trump) as called: a suit with its symbol and name, or sve adut / bez aduta. */
export function contractHTML(c, deck) {
  if (c === "VC") return t("vc");
  if (c === "BC") return t("bc");
  if (/^[HDSC]$/.test(c)) {
    const dk = deck === "french" ? "fr" : "hu";
    return html`${suitIcon(c, deck)} ${t(`suit_${c}_${dk}`)}`;
  }
  return c;
}

// -- the chart ---------------------------------------------------------------------------
function niceStep(raw) {
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** The rating history ([{at, rating, table}], oldest first) as an inline SVG line chart:
 *  ratings on the left axis, the dates of the first and last match below; one point per
 *  rated match.  Accessible as one image named with the first and last rating. */
export function ratingChart(history, { width = 320, height = 150 } = {}) {
  const pts = (history || []).filter((h) => Number.isFinite(h.rating));
  if (!pts.length) return "";
  const ratings = pts.map((h) => h.rating);
  const first = ratings[0], last = ratings[ratings.length - 1];
  let lo = Math.min(...ratings), hi = Math.max(...ratings);
  const step = niceStep(Math.max(hi - lo, 40) / 3);
  lo = Math.floor((lo - step / 4) / step) * step; // a little room below and above the points
  hi = Math.ceil((hi + step / 4) / step) * step;
  const L = 42, R = 12, T = 10, B = 24;
  const x = (i) => (pts.length === 1 ? L + (width - L - R) / 2 : L + (i * (width - L - R)) / (pts.length - 1));
  const y = (r) => T + ((hi - r) * (height - T - B)) / (hi - lo);
  const f = (n) => Math.round(n * 10) / 10;
  const grid = [];
  for (let r = lo; r <= hi + 1e-9; r += step) {
    grid.push(html`<line class="grid" x1="${L}" x2="${width - R}" y1="${f(y(r))}" y2="${f(y(r))}"/>
      <text class="axis y" x="${L - 5}" y="${f(y(r) + 3.5)}" text-anchor="end">${r}</text>`);
  }
  const line = pts.length > 1
    ? html`<polyline class="line" points="${pts.map((h, i) => `${f(x(i))},${f(y(h.rating))}`).join(" ")}"/>` : "";
  const dots = pts.map((h, i) => html`<circle class="dot" cx="${f(x(i))}" cy="${f(y(h.rating))}" r="${pts.length > 40 ? 2 : 3.2}"
    data-rating="${h.rating}"><title>${t("chart_point", { date: dateText(h.at), rating: h.rating })}</title></circle>`);
  // below: the dates of the first and the last match (their times when on the same day)
  const oneDay = shortDate(pts[0].at) === shortDate(pts[pts.length - 1].at);
  const when = (h) => (oneDay && pts.length > 1 ? timeText(h.at) : shortDate(h.at));
  const xl = pts.length === 1
    ? html`<text class="axis x" x="${f(x(0))}" y="${height - 6}" text-anchor="middle">${when(pts[0])}</text>`
    : html`<text class="axis x" x="${L}" y="${height - 6}" text-anchor="start">${when(pts[0])}</text>
      <text class="axis x" x="${width - R}" y="${height - 6}" text-anchor="end">${when(pts[pts.length - 1])}</text>${
      oneDay ? html`<text class="axis x" x="${f((L + width - R) / 2)}" y="${height - 6}" text-anchor="middle">${shortDate(pts[0].at)}</text>` : ""}`;
  const label = t("chart_label", { first, last, games: tn("games", pts.length) });
  return html`<svg class="rating-chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}"
    data-points="${pts.length}" data-first="${first}" data-last="${last}" preserveAspectRatio="xMidYMid meet">
    <line class="axis-line" x1="${L}" x2="${L}" y1="${T}" y2="${height - B}"/>
    <line class="axis-line" x1="${L}" x2="${width - R}" y1="${height - B}" y2="${height - B}"/>
    ${grid}${line}${dots}${xl}</svg>`;
}

// -- the profile -------------------------------------------------------------------------
const back = () => html`<p><a class="btn ghost" href="/" data-cmd="lobby">${t("back_lobby")}</a></p>`;
const msgLine = (S) => html`<p id="lobby-msg" class="lobby-msg${S.toast && S.toast.kind ? " " + S.toast.kind : ""}" role="status" aria-live="polite">${
  S.toast ? S.toast.text : ""}</p>`;

export function renderProfile(S) {
  const P = S.profile;
  if (!P || P.error || !P.data) {
    const body = P && P.error ? html`<p class="table-error" role="alert">${P.error}</p>` : html`<p class="muted">${t("loading")}</p>`;
    return html`<div class="page profile-page"><section class="panel">${body}${back()}</section></div>`;
  }
  const d = P.data;
  const mine = !!(S.guest && S.guest.player_id === d.player_id);
  const name = d.bot ? botName(d.bot) : d.name;
  const kind = d.bot ? "bot" : d.account ? "account" : "guest";
  const since = d.since ? html` <span class="muted">${t("player_since", { date: dateText(d.since) })}</span>` : "";
  const variants = (d.variants || []).map((v) => renderVariantStats(v, S.prefs.deck));
  return html`<div class="page profile-page" data-player="${d.player_id}">
    <section class="panel profile-head">
      <h2>${d.bot ? botFace(d.bot, 40, name) : avatarSVG(avatarOf(d.player_id), 40, name)}<span class="profile-name">${name}</span> <span class="tag kind-${kind}">${t("kind_" + kind)}</span>${
        mine ? html` <span class="tag you">${t("you")}</span>` : ""}</h2>
      <p>${since} ${friendButton(S, d)}</p>
      ${avatarChoice(S, d)}
      <p class="row"><a class="btn small" href="${leadersHref(firstVariant(d, S))}" data-cmd="leaders:${firstVariant(d, S)}">${t("leaderboard")}</a>
        <a class="btn small ghost" href="/" data-cmd="lobby">${t("back_lobby")}</a></p>
    </section>
    ${mine ? html`<section class="panel profile-friends"><h2>${t("friends")}</h2>${renderFriendsPanel(S)}</section>`
    : d.account ? renderPublicFriends(d.friends || []) : ""}
    ${variants.length ? variants : html`<section class="panel"><p class="muted">${t("no_variants")}</p></section>`}
    <section class="panel profile-matches"><h2>${t("finished_matches")}</h2>${renderMatches(d.matches || [], d)}</section>
    ${d.tournaments && d.tournaments.length ? html`<section class="panel profile-tournaments" id="profile-tournaments"><h2>${t("t_history")}</h2>${
      renderTournaments(d.tournaments)}</section>` : ""}
    ${msgLine(S)}
  </div>`;
}

/** Another player's friends as his profile shows them: names and avatars, each a link to
 *  his profile (the server lists accepted friendships only). */
function renderPublicFriends(friends) {
  for (const f of friends) noteAvatar(f.player_id, f.avatar);
  const list = friends.length ? html`<ul class="friend-list">${friends.map((f) => html`<li class="friend" data-player="${f.player_id}">${
    avatarSVG(avatarOf(f.player_id), 24, f.name)}${profileLink(f.player_id, f.name)}</li>`)}</ul>`
    : html`<p class="muted">${t("profile_no_friends")}</p>`;
  return html`<section class="panel profile-public-friends"><h2>${t("friends")}</h2>${list}</section>`;
}

function firstVariant(d, S) {
  const v = (d.variants || []).find((x) => x.games) || (d.variants || [])[0];
  return v ? v.variant : defaultVariant(S.variants);
}

function renderVariantStats(v, deck) {
  const prov = v.provisional ? html` <span class="tag provisional" title="${t("provisional_hint")}">${t("provisional")}</span>` : "";
  const chart = v.history && v.history.length ? html`<div class="chart-box">${ratingChart(v.history)}</div>`
    : html`<p class="muted">${t("no_rated")}</p>`;
  const stats = [tn("games", v.games || 0), tn("won_games", v.wins || 0)];
  if (v.points_per_deal !== null && v.points_per_deal !== undefined) {
    stats.push(t("points_per_deal", { n: numberText(v.points_per_deal) }));
  }
  const contracts = (v.contracts || []).filter((c) => c.count > 0);
  const top = contracts.length ? html`<p class="contracts">${t("top_contracts")} ${joinHtml(contracts.map((c) =>
    html`<span class="contract-chip" data-trump="${c.trump}">${contractHTML(c.trump, deck)} <b>${c.count}×</b></span>`), " ")}</p>` : "";
  return html`<section class="panel variant-stats" data-variant="${v.variant}">
    <h2><span>${t("vname_" + v.variant)}</span>
      <span class="rating-box">${t("rating")} <b class="rating" data-rating="${v.rating}">${v.rating}</b>${prov}</span></h2>
    ${chart}
    <p class="stats">${joinHtml(stats.map((x) => html`<span>${x}</span>`), " · ")}</p>
    ${top}
  </section>`;
}

function renderMatches(matches, d) {
  if (!matches.length) return html`<p class="muted">${t("no_history")}</p>`;
  return html`<ul class="table-list match-list">${matches.map((m, i) => {
    const result = m.left ? "left" : m.won ? "won" : "lost";
    const resultText = m.left ? t("result_left") : m.won ? t("history_won") : t("history_lost");
    let rating = null;
    if (m.rated && m.rating_after !== null && m.rating_after !== undefined) {
      const before = m.rating_before ?? m.rating_after;
      const delta = m.rating_after - before;
      rating = html` <span class="rating-change ${delta > 0 ? "up" : delta < 0 ? "down" : ""}" data-delta="${delta}">${
        t("rating_change", { before, after: m.rating_after })} (${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${Math.abs(delta)})</span>`;
    } else if (!m.rated) {
      rating = html` <span class="tag unrated">${t("unrated_tag")}</span>`;
    }
    const players = (m.players || []).map((p) => p || "?").join(", ");
    return html`<li data-match="${m.table}" data-result="${result}"><div><b>${t("vname_" + m.variant)}</b>
      <small class="muted">${dateText(m.finished_at)}</small>
      <span class="tag result-${result}">${resultText}</span>${rating}
      <div class="muted">${(m.totals || []).join(" : ")} · ${players}</div></div>
      ${m.record ? html`<span class="row"><a class="btn small" href="/analysis?table=${encodeURIComponent(m.table)}" data-analyse="${m.table}">${t("an_analyse")}</a>
      <button class="btn small" data-cmd="record:${i}" aria-label="${t("download_record")}" title="${t("download_record")}">${t("record_short")}</button></span>` : ""}</li>`;
  })}</ul>`;
}

/** The finished tournaments the player played in (GET /api/tournaments/history/{id}), with
 *  his place and match points. */
function renderTournaments(list) {
  return html`<ul class="table-list tournament-history">${list.map((x) => html`<li data-tournament="${x.id}"><div>
    <a href="/tournaments?id=${encodeURIComponent(x.id)}"><b>${x.name}</b></a> <small class="muted">${dateText(x.finished_at)}</small>
    <div class="muted">${t("vname_" + x.variant)} · ${t("tfmt_" + x.format)} · ${
      x.rank ? t("t_place_of", { n: x.rank, of: x.entries }) : t("t_unranked")}${
      x.match_points !== null && x.match_points !== undefined ? html` · ${t("t_mp_n", { n: x.match_points })}` : ""}</div></div></li>`)}</ul>`;
}

// -- the leaderboard ---------------------------------------------------------------------
export function renderLeaders(S) {
  const L = S.leaders || { variant: defaultVariant(S.variants) };
  const ids = S.variants ? S.variants.variants.map((v) => v.id) : [];
  const nav = html`<nav class="variant-switch" aria-label="${t("variant_switch")}">${ids.map((v) =>
    html`<a class="btn small${v === L.variant ? " primary" : ""}" href="${leadersHref(v)}" data-cmd="leaders:${v}"${
      v === L.variant ? html` aria-current="page"` : ""}>${t("vname_" + v)}</a>`)}</nav>`;
  let body;
  if (L.error) body = html`<p class="table-error" role="alert">${L.error}</p>`;
  else if (!L.data) body = html`<p class="muted">${t("loading")}</p>`;
  else if (!L.data.entries.length) body = html`<p class="muted">${t("no_leaders")}</p>`;
  else {
    const me = S.guest && S.guest.player_id;
    const rows = L.data.entries.map((e) => {
      const name = e.bot ? html`${botName(e.bot)} <span class="tag">${t("bot_label")}</span>` : e.name;
      const prov = e.provisional ? html` <span class="tag provisional" title="${t("provisional_hint")}">${t("provisional")}</span>` : "";
      return html`<tr data-player="${e.player_id}"${e.player_id === me ? html` class="me"` : ""}>
        <td class="num">${e.rank}</td><td class="name">${e.bot ? botFace(e.bot, 20, botName(e.bot)) : avatarSVG(avatarOf(e.player_id), 20, e.name)}${profileLink(e.player_id, name)}</td>
        <td class="num"><b>${e.rating}</b>${prov}</td><td class="num">${e.games}</td><td class="num">${e.wins}</td></tr>`;
    });
    const rest = L.data.total - L.data.entries.length;
    body = html`<div class="table-scroll"><table class="leaders-table"><thead><tr><th scope="col" class="num">${t("rank_col")}</th>
      <th scope="col">${t("name_col")}</th><th scope="col" class="num">${t("rating_col")}</th>
      <th scope="col" class="num">${t("games_col")}</th><th scope="col" class="num">${t("wins_col")}</th></tr></thead>
      <tbody>${rows}</tbody></table></div>${rest > 0 ? html`<button class="btn small more-tables" data-cmd="more-leaders" id="more-leaders">${t("more_leaders")}</button>` : ""}`;
  }
  return html`<div class="page leaders-page" data-variant="${L.variant}">
    <section class="panel"><h2>${t("leaderboard")}: ${t("vname_" + L.variant)}</h2>
      ${nav}
      <p class="muted">${t("leaders_note")}</p>
      ${body}
      ${back()}
    </section>
    ${msgLine(S)}
  </div>`;
}
