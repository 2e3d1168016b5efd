// @ts-check
// The table: seats around the felt, the trick, prompts, the hand, the score sheet and the
// dialogs.  Everything is rendered as HTML from the app state; app.js handles the events
// (clicks on [data-card], [data-act] and [data-cmd]) by delegation.

import { renderBubble, renderTalk, renderTalkToggle } from "./talk.js";
import { avatarOf, avatarSVG, botFace } from "./avatars.js";
import { renderInvite } from "./friends.js";
import { t, tn } from "./i18n.js";
import {
  RANKS, cardSVG, cardBackSVG, isTrump, rankOf, sortHand, suitIcon, suitOf,
} from "./cards.js";
import { html, joinHtml, setHtml } from "./html.js";
import { botName, profileHref } from "./profile.js";
import { api } from "./api.js";

const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"] };

// -- names and texts --------------------------------------------------------------------
export function makeNames(S) {
  const deck = S.prefs.deck;
  const dk = deck === "french" ? "fr" : "hu";
  const view = S.view;
  const summary = S.summary;
  const mySeat = view ? view.seat : mySeatIn(S);
  const n = view ? view.seats : summary ? summary.seats.length : 4;
  const seatName = (seat) => {
    if (seat === null || seat === undefined) return "";
    if (seat === mySeat) return t("you");
    const s = summary && summary.seats[seat];
    return (s && s.name) || t("seat_n", { n: seat + 1 });
  };
  // the variant's facts (the summary's, from GET /api/variants): never told by its name
  const facts = (summary && summary.facts) || null;
  const sides = view ? view.sides : facts ? facts.sides : n;
  const sideSeats = (side) => [...Array(n).keys()].filter((s) => s % sides === side);
  const sideName = (side) => {
    if (sides === n) return seatName(side);
    if (mySeat !== null && mySeat !== undefined) return side === mySeat % sides ? t("us") : t("them");
    return sideSeats(side).map((s) => seatName(s)).join(" & ");
  };
  const suitText = (s) => (deck === "french" ? "♥♦♠♣"["HDSC".indexOf(s)] : t(`suit_${s}_${dk}`));
  const cardText = (code) => {
    const r = rankOf(code), s = suitOf(code);
    if (deck === "french") return (r === "T" ? "10" : r) + "♥♦♠♣"["HDSC".indexOf(s)];
    const rank = "789T".includes(r) ? t(`rank_${r}`) : t(`rank_${r}_hu`);
    return t("card_hu", { suit: t(`suit_${s}_hu`), rank });
  };
  const contractText = (c) => {
    if (!c) return t("no_contract");
    if (c === "VC") return t("vc");
    if (c === "BC") return t("bc");
    return suitText(c);
  };
  const suitName = (s) => t(`suit_${s}_${dk}`);
  // the sides in the order they are written down: one's own side ("Mi") first
  const mySide = mySeat !== null && mySeat !== undefined ? mySeat % sides : null;
  const order = [...Array(sides).keys()];
  if (mySide !== null) order.sort((a, b) => Number(b === mySide) - Number(a === mySide) || a - b);
  const callerText = (seat) => (seat === mySeat ? t("caller_me") : t("caller", { name: seatName(seat) }));
  const contractHTML = (c) => {
    if (!c) return t("no_contract");
    if (c.length === 1) return html`${suitIcon(c, deck)} ${suitName(c)}`;
    return contractText(c);
  };
  return { deck, mySeat, n, sides, facts, seatName, sideName, suitText, suitName, cardText, contractText,
    contractHTML, sideSeats, order, callerText };
}

/** The side a seat plays for where seats play in pairs (bela4: 0+2 against 1+3), else
 *  null: each seat plays for himself.  ``facts``: the variant's (GET /api/variants). */
export function teamOf(facts, seat) {
  if (!facts || !facts.partners || facts.partners[seat] === null || facts.partners[seat] === undefined) return null;
  return facts.side_of[seat];
}

/** Whether the variant's exchange may offer a redeal (belot2, R35). */
function redealOffered(facts) {
  return !!(facts && facts.exchange && facts.exchange.actions.includes("redeal"));
}

export function mySeatIn(S) {
  if (!S.summary || !S.guest) return null;
  const s = S.summary.seats.find((x) => x.player_id === S.guest.player_id);
  return s ? s.seat : null;
}

// -- the turn clock ----------------------------------------------------------------------
const URGENT_S = 10; // the last seconds are stressed

/** Whole seconds left on the turn clock (``S.clock``: its seat and its deadline on
 *  ``performance.now()``, set from the state's ``deadline_in``), rounded up; null without one. */
export function clockLeft(S) {
  const c = S.clock;
  if (!c) return null;
  return Math.max(0, Math.ceil((c.deadline - performance.now()) / 1000));
}

/** A countdown element: on a seat's plate (``kind`` "seat") or, for one's own turn, next to
 *  the status line above the hand ("mine"); app.js's timer rewrites only these each second. */
function clockBadge(S, kind) {
  const n = clockLeft(S);
  if (n === null) return "";
  const cls = kind === "mine" ? "my-clock" : "seat-clock";
  return html`<span class="${cls}${n <= URGENT_S ? " urgent" : ""}" data-clock="${kind}" role="timer" aria-live="off"
    aria-label="${tn("seconds_left", n)}">${clockText(kind, n)}</span>`;
}

function clockText(kind, n) {
  return t(kind === "mine" ? "clock_mine" : "clock_seat", { n });
}

/** The countdowns shown under ``el`` set to the seconds left now (nothing else is drawn). */
export function updateClocks(S, el) {
  const n = clockLeft(S);
  if (n === null) return;
  el.querySelectorAll("[data-clock]").forEach((c) => {
    const text = clockText(c.dataset.clock, n);
    if (c.textContent !== text) c.textContent = text;
    c.setAttribute("aria-label", tn("seconds_left", n));
    c.classList.toggle("urgent", n <= URGENT_S);
  });
}

/** The table's turn clock in words ("60 s po potezu"), or "" without one. */
export function turnClockText(sum) {
  return sum && sum.turn_clock ? t("turn_clock_info", { n: sum.turn_clock }) : "";
}

// The duty a refused card breaks (the view's refusals[].kind) and its words.
const REASON_KEYS = { follow: "reason_follow", beat: "reason_beat",
  overtrump: "reason_beat_trump", trump: "reason_trump" };

/** The engine's refusal of ``code`` in the view (``view.refusals``), or null. */
export function refusalOf(v, code) {
  return (v.refusals || []).find((r) => r.card === code) || null;
}

/** Why a card is refused, in words, from the engine's refusal ({kind, suit, to_beat}; the
 *  rule id stays out of the text, in data-rule).  Nothing here decides a rule. */
export function reasonText(refusal, N) {
  const key = (refusal && REASON_KEYS[refusal.kind]) || "reason_other";
  if (key === "reason_other") return t(key);
  return t(key, { suit: refusal.suit ? N.suitText(refusal.suit) : "",
    card: refusal.to_beat ? N.cardText(refusal.to_beat) : "" });
}

/** Parse a "declare A B C; D E F G" token into its groups of card codes. */
export function declareGroups(token) {
  return token.slice(8).split(";").map((g) => g.trim().split(/\s+/).filter(Boolean));
}

/** A declaration in words, from its shape ({kind, length, top} as in the view, ``top`` a
 *  rank code): "terca do desetke", "četiri dečka"; "sequence of 3, top 10". */
export function declText(d) {
  if (d.kind === "belot") return t("decl_belot");
  if (d.kind === "four") return t(`decl_four_${d.top}`);
  const seq = d.length <= 5 ? t(`decl_seq_${d.length}`) : t("decl_seq_n", { n: d.length });
  return t("decl_seq_top", { seq, top: t(`decl_top_${d.top}`) });
}

/** The shape of a declaration made of these cards, to name the offer in the declaration
 *  prompt (its cards in face order, RANKS); what it is worth is the engine's. */
export function declShape(codes) {
  const ranks = new Set(codes.map(rankOf));
  if (ranks.size === 1) return { kind: "four", length: codes.length, top: codes[0][0] };
  const top = codes.map(rankOf).sort((a, b) => RANKS.indexOf(b) - RANKS.indexOf(a))[0];
  return { kind: codes.length === 8 ? "belot" : "sequence", length: codes.length, top };
}

/** What the rules call the face-up card: "turned" (bela2) or "opened" (belot2, R34). */
export function faceUp(facts) {
  return (facts && facts.face_up) || "turned";
}

function tokenLabel(tok, view, N) {
  if (tok === "pass") return t("pass");
  if (tok === "VC") return t("vc");
  if (tok === "BC") return t("bc");
  if (tok === "swap") return t(`swap_${faceUp(N.facts)}`);
  if (tok === "redeal") return t("redeal");
  if (tok === "keep") return t("keep");
  if (/^[HDSC]$/.test(tok)) {
    const turned = view.public && view.public.turned;
    const label = turned && suitOf(turned) === tok && view.bids.length < view.seats
      ? t("take_turned", { suit: N.suitName(tok) }) : N.suitName(tok);
    return html`${suitIcon(tok, N.deck)} <span>${label}</span>`;
  }
  return tok;
}

function bidText(bid, N) {
  if (bid === "pass") return t("pass");
  if (/^[HDSC]$/.test(bid)) return suitIcon(bid, N.deck);
  return bid;
}

// -- cards ------------------------------------------------------------------------------
function cardImg(code, N, cls = "") {
  return html`<span class="card ${cls}" data-code="${code}" title="${N.cardText(code)}">${cardSVG(code, N.deck)}</span>`;
}

function miniCards(codes, N) {
  return html`<span class="mini-cards">${codes.map((c) => cardImg(c, N, "mini"))}</span>`;
}

// -- the page ---------------------------------------------------------------------------
export function renderTablePage(S) {
  const sum = S.summary;
  if (!sum) {
    const text = S.tableError ? html`<p class="table-error" role="alert">${S.tableError}</p>`
      : html`<p>${t("connecting")}</p>`;
    return html`<section class="panel table-missing">${text}
      <button class="btn" data-cmd="lobby">${t("back_lobby")}</button></section>`;
  }
  if (!S.view) return renderWaitingRoom(S);
  return renderGame(S);
}

/** Whether this browser's guest created the table (summary.owner): only he fills seats with
 *  bots, starts and closes it. */
export function isOwner(S) {
  return !!(S.guest && S.summary && S.summary.owner && S.summary.owner === S.guest.player_id);
}

/** Whether the creator may close the table now: open, or running with bots only (a table
 *  with players ends with its match). */
export function canClose(S) {
  const sum = S.summary;
  if (!sum || !isOwner(S)) return false;
  return sum.status === "open" || (sum.status === "running" && sum.seats.every((s) => s.kind === "bot"));
}

/** The link that invites to the table: a private table's carries its invite code. */
export function inviteLink(S) {
  const sum = S.summary;
  if (!sum.private) return location.origin + sum.invite;
  const code = S.code || sum.invite_code;
  if (!code) return null; // only its creator and those invited know it
  return `${location.origin}/?table=${encodeURIComponent(sum.id)}&code=${encodeURIComponent(code)}`;
}

function renderWaitingRoom(S) {
  const sum = S.summary;
  const mine = mySeatIn(S);
  const owner = isOwner(S);
  const open = sum.status === "open";
  const closed = sum.status === "closed";
  const free = sum.seats.filter((s) => !s.kind).length;
  const link = open ? inviteLink(S) : null;
  const seats = sum.seats.map((s) => {
    let who;
    if (s.kind === "bot") who = html`${s.name} <span class="tag">${botTag(sum, s)}</span>`;
    else if (s.kind === "human") {
      const name = s.player_id ? html`<a class="player-link" href="${profileHref(s.player_id)}" data-cmd="profile:${s.player_id}">${s.name}</a>` : s.name;
      who = html`${name}${s.seat === mine ? html` <span class="tag you">${t("you")}</span>` : ""}`;
    }
    else who = html`<span class="free">${t("free_seat")}</span>`;
    let btn = null;
    if (!s.kind && open && S.guest) {
      btn = html`<button class="btn small" data-cmd="sit:${s.seat}">${t("sit_here")}</button>`;
    } else if (s.seat === mine && open) {
      btn = html`<button class="btn small ghost" data-cmd="leave">${t("leave_seat")}</button>`;
    }
    const side = teamOf(sum.facts, s.seat);
    const team = side !== null ? html`<span class="team team-${side}">${side ? "B" : "A"}</span>` : "";
    return html`<li class="seat-row" data-seat="${s.seat}">${team}<span class="seat-no">${t("seat_n", { n: s.seat + 1 })}</span>
      <span class="who">${seatFace(sum, s, 22)}${who}</span>${btn}${renderBubble(s.seat, performance.now())}</li>`;
  });
  const opts = sum.options;
  const rules = Object.entries(opts).filter(([k]) => k !== "target")
    .map(([k, v]) => `${t("opt_" + k)}: ${t(`opt_${k}_${v}`)}`).join(" · ");
  const nameForm = S.guest || !open ? "" : html`<form class="name-form" data-form="guest">
      <p>${t("need_name")}</p>
      <label>${t("your_name")} <input name="name" id="table-guest-name" maxlength="40" required autocomplete="nickname" placeholder="${t("name_placeholder")}"></label>
      <button class="btn primary">${t("continue")}</button></form>`;
  // the creator's controls: bots and start while the table is open, closing it (canClose)
  const controls = [];
  if (owner && open) {
    controls.push(html`<button class="btn" data-cmd="bots" ${free ? "" : "disabled"}>${t("fill_bots")}</button>`,
      html`<button class="btn primary" data-cmd="start" ${free ? "disabled" : ""}>${t("start")}</button>`);
  }
  if (canClose(S)) controls.push(html`<button class="btn warn" data-cmd="close">${t("close_table")}</button>`);
  const hint = !open ? "" : owner ? (free ? t("need_all_seats") : "") : t("only_creator_starts");
  const toast = S.toast ? html`<p class="toast ${S.toast.kind || ""}" role="status">${S.toast.text}</p>` : "";
  const invite = link ? html`<div class="invite"><label for="invite-link">${t(sum.private ? "invite_private" : "invite")}</label>
      <div class="row"><input id="invite-link" readonly value="${link}">
      <button class="btn small" data-cmd="copy">${t("copy")}</button></div></div>` : "";
  return html`<section class="panel waiting" data-status="${sum.status}"${sum.private ? html` data-private="true"` : ""}>
    <h2>${t("vname_" + sum.variant)} <small>${t("target_short", { n: opts.target })}${
      sum.private ? html` <span class="tag private">${t("private_tag")}</span>` : ""}${
      sum.rated ? html` <span class="tag rated">${t("rated_tag")}</span>` : ""}</small></h2>
    ${closed ? html`<p class="closed-note" role="status">${t("table_closed")}</p>` : ""}
    <p class="muted">${rules} · ${t("bot")}: ${botName(sum.bot)}${
      sum.turn_clock ? html` · <span class="clock-info" data-turn-clock="${sum.turn_clock}">${turnClockText(sum)}</span>` : ""}</p>
    ${nameForm}
    <ul class="seat-list">${seats}</ul>
    ${controls.length ? html`<div class="row owner-controls">${controls}</div>` : ""}
    ${hint ? html`<p class="muted">${hint}</p>` : ""}
    ${toast}
    ${invite}
    ${open && mine !== null && mine !== undefined ? renderInvite(S) : ""}
    <p><button class="btn ghost" data-cmd="lobby">${t("back_lobby")}</button></p>
  </section>
  ${closed ? "" : renderTalk(S, mine !== null && mine !== undefined)}`;
}

/** What the parts of the game page are drawn from: the view, the names, where each seat sits. */
function gameContext(S) {
  const v = S.view;
  const bottom = v.seat ?? 0;
  const pos = (seat) => POSITIONS[v.seats][(seat - bottom + v.seats) % v.seats];
  const myTurn = v.seat !== null && v.turn === v.seat && S.status === "running";
  return { S, v, N: makeNames(S), pos, myTurn };
}

function renderGame(S) {
  const ctx = gameContext(S);
  const { v } = ctx;
  const seats = [...Array(v.seats).keys()].map((s) => renderSeat(ctx, s));
  return html`<div class="game" id="game" tabindex="-1" data-phase="${v.phase}" data-status="${S.status}" data-round="${v.round_index}"
      data-seat="${v.seat ?? ""}" data-turn="${v.turn ?? ""}" data-variant="${v.variant}" data-seats="${v.seats}">
    ${renderTopbar(ctx)}
    <div class="felt">
      ${seats}
      <div class="center">${renderCenter(ctx)}</div>
      ${renderFaceUp(ctx)}
    </div>
    <div class="status-line" role="status" aria-live="polite">${statusLine(ctx)}</div>
    <div class="actions">${renderActions(ctx)}</div>
    ${renderHand(ctx)}
  </div>
  ${renderTalk(S, v.seat !== null, true)}
  ${S.ui.sheet ? renderSheetDialog(ctx) : ""}
  ${S.ui.lastTrick ? renderLastTrickDialog(ctx) : ""}
  ${S.ui.claimAsk && v.claim_allowed && S.status === "running" ? renderClaimDialog() : ""}
  ${S.status === "finished" && !S.ui.matchDismissed && !S.anim.trick ? renderMatchDialog(ctx) : ""}`;
}

function renderTopbar({ S, v, N }) {
  const totals = N.order.map((side) => html`<span class="tot" data-side="${side}"><b>${N.sideName(side)}</b> ${v.totals[side]}</span>`);
  let contract;
  if (v.raspas) {
    contract = html`<span class="contract raspas" data-contract="${v.contract ?? ""}">${t("raspas")}${
      v.contract ? html` · ${t("contract")}: ${N.contractHTML(v.contract)}` : ""}</span>`;
  }
  else {
    contract = html`<span class="contract" data-contract="${v.contract ?? ""}">${t("contract")}: ${N.contractHTML(v.contract)}${
      v.caller !== null ? html` <small>(${N.callerText(v.caller)})</small>` : ""}</span>`;
  }
  const tricks = v.phase === "play" || v.phase === "done"
    ? html`<span class="round-pts">${joinHtml(N.order.map((side) => html`<span data-side="${side}">${N.sideName(side)}: ${tn("tricks", v.tricks_won[side])}, ${v.card_points[side]}</span>`), " · ")}</span>` : "";
  const watching = v.seat === null ? html`<span class="tag watch">${t("spectating")}</span>` : "";
  const fallback = S.summary && S.summary.bot_fallback ? html` <span class="tag warn bot-fallback">${t("bot_fallback")}</span>` : "";
  // the creator watching his table of bots only may stop it
  const close = canClose(S) ? html` <button class="btn small warn" data-cmd="close">${t("close_table")}</button>` : "";
  const clock = S.summary && S.summary.turn_clock
    ? html` <span class="tag clock-info" data-turn-clock="${S.summary.turn_clock}">${turnClockText(S.summary)}</span>` : "";
  const rated = S.summary && S.summary.rated ? html` <span class="tag rated">${t("rated_tag")}</span>` : "";
  return html`<div class="topbar">
    <div class="tb-left"><button class="btn small ghost" data-cmd="lobby" title="${t("back_lobby")}">←</button>
      <b>${t("vname_" + v.variant)}</b> <span>${t("round_n", { n: v.round_index + 1 })}</span> ${watching}${clock}${rated}${fallback}${close}</div>
    <div class="tb-mid">${contract} ${tricks}</div>
    <div class="tb-right"><span class="totals">${totals} <small>${t("target_short", { n: v.options.target })}</small></span>
      <button class="btn small" data-cmd="lasttrick" aria-keyshortcuts="L">${t("last_trick")}</button>
      <button class="btn small" data-cmd="sheet" aria-keyshortcuts="S">${t("sheet")}</button> ${renderTalkToggle()}</div>
  </div>`;
}

/** The bot that plays a bot's seat: its own (tables may mix levels), else the table's. */
function seatBot(sum, info) {
  return (info && info.bot) || sum.bot;
}

/** A seat's face: a bot's by that seat's bot (its level), a player's drawn avatar. */
export function seatFace(sum, info, size = 28) {
  if (info.kind === "bot") return botFace(seatBot(sum, info), size, botName(seatBot(sum, info)));
  if (info.player_id) return avatarSVG(avatarOf(info.player_id), size, info.name || "");
  return "";
}

/** The tag of a bot's seat: "bot" and that seat's bot in words (a level: "Klupski igrač"). */
function botTag(sum, info) {
  const bot = seatBot(sum, info);
  return bot ? `${t("bot_label")} · ${botName(bot)}` : t("bot_label");
}

function renderSeat({ S, v, N, pos }, seat) {
  const sum = S.summary;
  const info = sum.seats[seat] || {};
  const p = pos(seat);
  const tags = [];
  if (seat === v.dealer) tags.push(html`<span class="chip dealer" title="${t("dealer")}">D</span>`);
  if (info.kind === "bot") tags.push(html`<span class="tag bot-level">${botTag(sum, info)}</span>`);
  if (info.autopilot) tags.push(html`<span class="tag warn">${t("away")}</span>`);
  else if (info.kind === "human" && !info.connected) tags.push(html`<span class="tag warn">${t("offline")}</span>`);
  const away = !info.autopilot && S.away && S.away[seat];
  if (away) { // the grace of an absent player: when his bot takes over (app.js counts down)
    const n = Math.max(0, Math.ceil((away - performance.now()) / 1000));
    tags.push(html`<span class="tag warn away-in" data-away="${seat}" role="timer">${t("away_in", { n })}</span>`);
  }
  if (S.thinking && S.thinking.seat === seat && S.thinking.seq === S.seq && v.turn === seat) {
    tags.push(html`<span class="tag thinking" data-thinking="${seat}">${t("thinking")}</span>`);
  }
  const bids = v.bids.filter((b) => b.seat === seat).map((b) => html`<span class="bid">${bidText(b.bid, N)}</span>`);
  // after the first trick a declaration folds to its value: its cards on a tap (S.ui.declOpen)
  const folded = v.tricks.length > 0 && !(S.ui.declOpen || []).includes(seat);
  const decl = (v.declared[seat] || []).map((d) => (folded && d.cards
    ? html`<button type="button" class="decl folded" data-cmd="decl-open:${seat}" title="${declText(d)} – ${t("show_decl_cards")}" aria-expanded="false">${t("declared")}: ${d.value}</button>`
    : html`<div class="decl"${v.tricks.length > 0 && d.cards ? html` data-cmd="decl-close:${seat}"` : ""} title="${declText(d)}">${t("declared")}: ${d.value}${
      d.cards ? miniCards(d.cards, N) : html` <small>${declText(d)}</small>`}</div>`));
  const belas = v.belas.filter((b) => b.seat === seat).map((b) => html`<div class="bela-badge">${t("bela")}! ${suitIcon(b.suit, N.deck)}</div>`);
  const ex = (v.exchanges || []).filter((e) => e.seat === seat && e.action !== "keep")
    .map((e) => html`<div class="note">${t((e.action === "swap" ? "swapped" : "redealt") + (seat === v.seat ? "_me" : ""), { name: N.seatName(seat) })}</div>`);
  const backs = seat === v.seat ? "" : html`<div class="backs" aria-label="${v.hand_sizes[seat]}">${
    Array.from({ length: v.hand_sizes[seat] }, () => html`<span class="back-mini">${cardBackSVG()}</span>`)}</div>`;
  const side = teamOf(N.facts, seat);
  const team = side !== null ? ` team-${side}` : "";
  return html`<div class="seat pos-${p}${v.turn === seat ? " turn" : ""}${seat === v.seat ? " me" : ""}${team}" data-seat="${seat}">
    <div class="seat-head">${seatFace(sum, info, 24)}${info.player_id
      ? html`<a class="seat-name" href="${profileHref(info.player_id)}" target="_blank" rel="noopener" title="${t("profile")}: ${info.name || ""}">${N.seatName(seat)}</a>`
      : html`<span class="seat-name">${N.seatName(seat)}</span>`}${tags}${
      S.clock && S.clock.seat === seat ? clockBadge(S, "seat") : ""}</div>
    ${renderBubble(seat, performance.now())}
    ${backs}
    <div class="seat-info">${bids.length ? html`<div class="bids">${bids}</div>` : ""}${decl}${belas}${ex}</div>
  </div>`;
}

function renderCenter(ctx) {
  const { S, v, N, pos } = ctx;
  const res = shownResult(S);
  if (res) return renderRoundResult(ctx, res);
  const shown = S.anim.trick; // a finished trick held on the table for a moment
  const plays = shown ? shown.cards : v.trick;
  if (!plays.length) {
    if (v.phase === "bidding" || v.phase === "exchange" || v.phase === "discard") {
      const note = v.phase === "bidding" ? "bidding" : v.phase === "discard" ? "discarding"
        : redealOffered(N.facts) ? "exchanging_redeal" : "exchanging";
      return html`<div class="center-note">${t(note)}</div>`;
    }
    return "";
  }
  // who takes the trick (so far): the engine's fact, tricks[].winner or view.trick_winner
  const winIdx = plays.findIndex((p) => p.seat === (shown ? shown.winner : v.trick_winner));
  const cards = plays.map((p, i) => {
    const cls = [`tc`, `pos-${pos(p.seat)}`];
    if (S.anim.entered.has(p.card)) cls.push(`enter-${pos(p.seat)}`);
    if (i === winIdx) cls.push("winning");
    if (shown && S.anim.collect) cls.push(`collect-${pos(shown.winner)}`);
    const label = i === 0 ? html`<span class="tc-label lead">${t("leads")}</span>` : "";
    const wl = i === winIdx ? html`<span class="tc-label win">${shown ? t("wins") : t("wins_trick")}</span>` : "";
    return html`<div class="${cls.join(" ")}" data-trick-seat="${p.seat}">${cardImg(p.card, N, isTrump(p.card, v.contract) ? "trump" : "")}${label}${wl}</div>`;
  });
  return html`<div class="trick${shown ? " done" : ""}" aria-label="${plays.map((p) => `${N.seatName(p.seat)}: ${N.cardText(p.card)}`).join(", ")}">${cards}</div>`;
}

export function shownResult(S) {
  const v = S.view;
  if (!v || S.anim.trick) return null;
  if (v.phase === "done" && v.result) return { ri: v.round_index, result: v.result, old: false };
  const prev = S.rounds[v.round_index - 1];
  if (prev && S.ui.resultDismissed !== v.round_index - 1 && !v.trick.length && !v.tricks.length
      && !(v.turn === v.seat && v.seat !== null && v.legal.length && v.phase !== "bidding")) {
    return { ri: v.round_index - 1, result: prev.result, old: true };
  }
  return null;
}

function renderRoundResult(ctx, { ri, result, old }) {
  const { S } = ctx;
  const r = result;
  return html`<div class="round-result" role="dialog" aria-label="${t("round_over")}" data-outcome="${r.outcome}">
    <h3>${t("round_over_n", { n: ri + 1 })}: <span class="outcome">${t("outcome_" + r.outcome)}</span></h3>
    ${resultBody(ctx, r)}
    ${old ? html`<button class="btn small" data-cmd="dismiss-result">${t("ok")}</button>`
      : S.status === "running" ? html`<p class="muted">${t("next_deal")}</p>` : ""}
  </div>`;
}

/** What a round's result says: the claim, the contract, and a row for each part it has. */
function resultBody({ N }, r) {
  const order = N.order.length === r.scores.length ? N.order : [...r.scores.keys()];
  // a row for each part the result has (a raspas has only its card points, a claim none)
  const row = (label, arr) => (Array.isArray(arr) && order.every((s) => Number.isFinite(arr[s]))
    ? html`<tr><th>${label}</th>${order.map((s) => html`<td>${arr[s]}</td>`)}</tr>` : "");
  const heads = order.map((s) => html`<th>${N.sideName(s)}</th>`);
  const called = r.caller !== null && r.caller !== undefined;
  const contract = r.contract ? N.contractHTML(r.contract) : "";
  const held = r.held ? html`<p class="muted">${t("held_points", { n: r.held })}</p>` : "";
  const ex = r.extra || {};
  let claim = null;
  if (r.outcome === "claim" && ex.claimant !== undefined && ex.claimant !== null) {
    const key = (ex.valid ? "claim_right" : "claim_wrong") + (ex.claimant === N.mySeat ? "_me" : "");
    claim = html`<p class="claim-result" data-valid="${ex.valid ? "true" : "false"}"><b>${t(key, { name: N.seatName(ex.claimant) })}</b></p>`;
    // who revoked, and with which card (the first revoke), where the result says so
    if (ex.valid && Number.isInteger(ex.offender) && /^[789TJQKA][HDSC]$/.test(ex.card || "")) {
      claim = html`${claim}<p class="claim-offender" data-offender="${ex.offender}" data-card="${ex.card}">${
        t(ex.offender === N.mySeat ? "claim_offender_me" : "claim_offender", { name: N.seatName(ex.offender), card: N.cardText(ex.card) })}</p>`;
    }
  }
  return html`${claim}
    ${called ? html`<p>${contract} · ${N.callerText(r.caller)}</p>` : ""}
    <table class="result-table"><thead><tr><th></th>${heads}</tr></thead><tbody>
      ${row(t("in_cards"), r.card_points)}
      ${row(t("in_declarations"), r.declaration_points)}
      ${row(t("in_bela"), r.bela_points)}
      <tr class="sum"><th>${t("score")}</th>${order.map((s) => html`<td><b>${r.scores[s]}</b></td>`)}</tr>
    </tbody></table>${held}`;
}

function renderFaceUp({ v, N }) {
  const pub = v.public || {};
  const parts = [];
  if (pub.turned) parts.push(html`<div class="faceup"><span>${t(faceUp(N.facts))}</span>${cardImg(pub.turned, N, "small")}</div>`);
  if (pub.bottom) parts.push(html`<div class="faceup"><span>${t("bottom")}</span>${cardImg(pub.bottom, N, "small")}</div>`);
  if (v.discards && v.discards.length) parts.push(html`<div class="faceup"><span>${t("discards")}</span><span class="pair">${v.discards.map((c) => cardImg(c, N, "small"))}</span></div>`);
  if (!parts.length) return "";
  const note = pub.turned ? html`<small class="muted">${t("out_of_play")}</small>` : "";
  return html`<div class="faceups">${parts}${note}</div>`;
}

/** The status line: a notice (toast) while it lives, and beside it always the state of the
 *  table, so a lost connection or the seat's turn is never hidden behind a notice. */
function renderStatus(ctx) {
  const { S } = ctx;
  const state = tableState(ctx);
  if (!S.toast) return state;
  const toast = html`<span class="toast ${S.toast.kind || ""}">${S.toast.text}</span>`;
  return state ? html`${toast} <span class="status-state">· ${state}</span>` : toast;
}

function statusLine(ctx) {
  const { S, v } = ctx;
  return html`${renderStatus(ctx)}${S.clock && v.seat !== null && S.clock.seat === v.seat ? clockBadge(S, "mine") : ""}`;
}

/** Redraws the status line alone (a notice that ends), so that a tap on the hand at that
 *  moment is not lost to a new page; false where no game is drawn. */
export function redrawStatusLine(S, el) {
  const line = S.view && S.tableId ? el.querySelector("#game .status-line") : null;
  if (!line) return false;
  setHtml(line, statusLine(gameContext(S)));
  return true;
}

function tableState({ S, v, N, myTurn }) {
  if (S.conn !== "open") return html`<span class="warn">${t(S.conn === "closed" ? "reconnecting" : "connecting")}</span>`;
  if (S.status === "finished") return t("match_over");
  if (v.phase === "done") return t("next_deal");
  if (myTurn) return html`<b>${t("your_turn")}</b>`;
  if (v.turn !== null) return t("waiting_for", { name: N.seatName(v.turn) });
  return "";
}

// -- the hint (issue 13) ------------------------------------------------------------------
/** The hint button's table: unrated, every other seat a bot (the server refuses it anywhere
 *  else: 403 hint_not_allowed). */
export function hintAllowed(S) {
  const sum = S.summary, v = S.view;
  if (!sum || !v || sum.rated || v.seat === null || v.seat === undefined) return false;
  return sum.seats.every((s) => s.seat === v.seat || s.kind === "bot");
}

/** Ask for a hint on this position (GET /api/tables/{id}/hint): kept for this state only. */
export async function loadHint(S) {
  const seq = S.seq;
  let h;
  try {
    h = await api("GET", `/api/tables/${encodeURIComponent(S.tableId)}/hint`);
  } catch (e) { // said in the UI's words: not this table, not this turn
    if (["hint_not_allowed", "not_your_turn", "not_running"].includes(e.code)) throw new Error(t("an_hint_refused"));
    throw e;
  }
  S.ui.hint = { ...h, seq };
}

/** The hint of the state shown, or null. */
export function shownHint(S) {
  const h = S.ui.hint;
  return h && h.seq === S.seq ? h : null;
}

// -- prompts ----------------------------------------------------------------------------
export function declarePending(S) {
  const v = S.view;
  if (!v || v.turn !== v.seat || v.seat === null) return false;
  return v.legal.some((a) => a.startsWith("declare ")) && S.ui.declAnswered !== declKey(v);
}

export function declKey(v) {
  return `${v.round_index}:${v.seat}`;
}

/** The declare token that offers every declaration held (the largest one). */
export function fullDeclare(v) {
  const toks = v.legal.filter((a) => a.startsWith("declare "));
  toks.sort((a, b) => b.length - a.length);
  return toks[0] || null;
}

function renderActions(ctx) {
  const { S, v, N, myTurn } = ctx;
  const out = [];
  if (v.claim_allowed && v.seat !== null && S.status === "running") {
    out.push(html`<button class="btn warn small" data-cmd="claim">${t("claim")}</button>`);
  }
  if (!myTurn) return out;
  const legal = v.legal;
  if (v.phase === "exchange" && legal.length === 1) { // only keep: the server answers it (R32, R35)
    return html`<div class="prompt exchange-prompt passive"><span class="prompt-title">${t(exchangeTitle(v, N.facts))}</span></div>${out}`;
  }
  const hint = shownHint(S);
  const hinted = (tok) => (hint && hint.best === tok ? " hinted" : "");
  if (hintAllowed(S)) {
    const said = hint && hint.best ? html`<span class="hint-text" id="hint-text">${t("an_hint_is")} ${hintLabel(hint.best, v, N)}</span>` : "";
    out.push(html`<div class="row hint-row"><button class="btn small hint-btn" data-cmd="hint" id="hint-btn" title="${t("an_hint_title")}">${t("an_hint")}</button>${said}</div>`);
  }
  if (v.phase === "bidding") {
    const btns = legal.map((tok) => html`<button class="btn act bid-btn${hinted(tok)}" data-act="${tok}">${tokenLabel(tok, v, N)}</button>`);
    const must = N.facts && N.facts.mus && !legal.includes("pass") ? html`<p class="muted">${t("must_call")}</p>` : "";
    const title = legal.includes("pass") ? t("your_bid") : t("your_bid_must");
    out.unshift(html`<div class="prompt bidding-prompt"><span class="prompt-title">${title}</span><div class="row">${btns}</div>${must}</div>`);
  } else if (v.phase === "exchange") {
    const btns = legal.map((tok) => html`<button class="btn act${hinted(tok)}" data-act="${tok}">${tokenLabel(tok, v, N)}</button>`);
    out.unshift(html`<div class="prompt exchange-prompt"><span class="prompt-title">${t(exchangeTitle(v, N.facts))}</span><div class="row">${btns}</div></div>`);
  } else if (v.phase === "discard") {
    const sel = S.ui.discardSel;
    const ready = sel.length === 2;
    out.unshift(html`<div class="prompt"><span class="prompt-title">${t("discard_prompt")}</span>
      <div class="row">${sel.map((c) => cardImg(c, N, "small"))}
      <button class="btn primary" data-cmd="discard" ${ready ? "" : "disabled"}>${t("discard")}</button></div></div>`);
  } else if (declarePending(S)) {
    const full = fullDeclare(v);
    const groups = declareGroups(full);
    const items = groups.map((g, i) => html`<label class="decl-choice"><input type="checkbox" data-decl="${i}" checked>
      ${miniCards(g, N)} <span class="decl-name">${declText(declShape(g))}</span></label>`);
    out.unshift(html`<div class="prompt declare-prompt"><span class="prompt-title">${t(groups.length === 1 ? "declare_prompt_one" : "declare_prompt")}</span>
      <div class="row">${items}</div>
      <div class="row"><button class="btn primary act" data-cmd="declare">${t("declare_btn")}</button>
      <button class="btn" data-cmd="declare-none">${t("declare_none")}</button></div></div>`);
  } else if (S.ui.belaCard && legal.includes(S.ui.belaCard + "*")) {
    const c = S.ui.belaCard;
    out.unshift(html`<div class="prompt bela-prompt"><span class="prompt-title">${t("bela_prompt")}</span> ${cardImg(c, N, "small")}
      <div class="row"><button class="btn primary act" data-act="${c}*">${t("bela_yes")}</button>
      <button class="btn act" data-act="${c}">${t("bela_no")}</button></div></div>`);
  }
  return out;
}

/** The hinted choice in words: a card, a bid or another token. */
function hintLabel(tok, v, N) {
  const code = tok.replace("*", "");
  if (/^[789TJQKA][HDSC]$/.test(code)) return N.cardText(code) + (tok.endsWith("*") ? ` (${t("bela")})` : "");
  return tokenLabel(tok, v, N);
}

/** The exchange prompt's title: it names only what the seat may actually do (R32, R35). */
export function exchangeTitle(v, facts) {
  const swap = v.legal.includes("swap"), redeal = v.legal.includes("redeal");
  if (swap && redeal) return "exchange_both";
  if (redeal) return "exchange_redeal";
  // every seat is asked (R32, R35): maybe with no right
  if (!swap) return redealOffered(facts) ? "exchange_none_redeal" : "exchange_none";
  return `exchange_swap_${faceUp(facts)}`;
}

// -- the hand ---------------------------------------------------------------------------
function renderHand({ S, v, N, myTurn }) {
  if (v.seat === null) return html`<div class="hand spectator"><p class="muted">${t("spectator_cards")}</p></div>`;
  const cards = sortHand(v.hand, v.contract, v.strength);
  const legal = new Set(v.legal);
  const playing = myTurn && v.phase === "play";
  const discarding = myTurn && v.phase === "discard";
  const declWait = playing && declarePending(S);
  const hint = playing ? shownHint(S) : null;
  const items = cards.map((c, i) => {
    const cls = ["card", "hand-card"];
    let attrs = null;
    let title = N.cardText(c);
    const trump = isTrump(c, v.contract);
    if (trump) { cls.push("trump"); title += ` (${t("trump_mark")})`; }
    if (S.picked.has(c)) cls.push("picked");
    if (discarding) {
      cls.push("selectable");
      if (S.ui.discardSel.includes(c)) cls.push("selected");
      attrs = html` aria-pressed="${S.ui.discardSel.includes(c)}"`;
    } else if (playing) {
      const ok = legal.has(c) || legal.has(c + "*");
      const refusal = refusalOf(v, c); // the engine's: greyed, or with enforce = off a warning
      const why = refusal ? html` data-reason="${reasonText(refusal, N)}" data-rule="${refusal.rule}"` : "";
      if (!ok) {
        const reason = reasonText(refusal, N);
        cls.push("illegal");
        attrs = html` aria-disabled="true"${why || html` data-reason="${reason}" data-rule=""`}`;
        title += ` — ${reason}`;
      } else if (declWait) {
        cls.push("decl-wait"); // not "waiting": that is the waiting room's panel
        attrs = html` aria-disabled="true" data-reason="${t("declare_first")}"`;
      } else {
        cls.push("act", "legal");
        if (refusal) { // enforce = off: it may be played, and breaks the rule (R24)
          cls.push("would-break");
          attrs = why;
          title += ` — ${t("would_break", { reason: reasonText(refusal, N) })}`;
        }
      }
    } else {
      cls.push("idle");
      attrs = html` aria-disabled="true"`;
    }
    if (S.ui.belaCard === c) cls.push("selected");
    if (hint && hint.best && hint.best.replace("*", "") === c) { cls.push("hinted"); title += ` – ${t("an_hint")}`; }
    return html`<button type="button" class="${cls.join(" ")}" data-card="${c}" style="--i:${i}"${attrs} title="${title}" aria-label="${title}">${cardSVG(c, N.deck)}${trump ? html`<span class="trump-mark" aria-hidden="true">★</span>` : ""}${cls.includes("would-break") ? html`<span class="break-mark" aria-hidden="true">!</span>` : ""}${
      cls.includes("hinted") ? html`<span class="hint-mark" aria-hidden="true">${hint.values && c in hint.values ? String(Math.round(hint.values[c])) : "✓"}</span>` : ""}</button>`;
  });
  for (let i = 0; i < v.unseen; i++) {
    items.push(html`<span class="card hand-card unseen" title="${t("talon_hidden")}">${cardBackSVG()}</span>`);
  }
  return html`<div class="hand" role="group" aria-label="${t("hand")}" style="--n:${items.length}">${items}</div>`;
}

// -- dialogs ----------------------------------------------------------------------------
function dialog(id, title, body) {
  return html`<div class="overlay" data-cmd="close-dialog" id="${id}-overlay"><div class="dialog ${id}" role="dialog" aria-modal="true" aria-label="${title}" id="${id}">
    <div class="dialog-head"><h3>${title}</h3><button class="btn small ghost" data-cmd="close-dialog" aria-label="${t("close")}">✕</button></div>
    ${body}</div></div>`;
}

export function sheetHTML(S, N, v) {
  const sides = v.totals.length;
  const order = N.order.length === sides ? N.order : [...Array(sides).keys()];
  const heads = order.map((s) => html`<th>${N.sideName(s)}</th>`);
  const rows = v.sheet.map((scores, i) => {
    const info = S.rounds[i];
    const r = info && info.result;
    const raspas = r && r.outcome === "raspas";
    const mark = r ? html`<span class="sheet-mark" title="${t("outcome_" + r.outcome)}">${
      r.contract && r.contract.length === 1 ? suitIcon(r.contract, N.deck) : r.contract || ""}${
      r.outcome === "fall" ? " ✗" : r.outcome === "capot" ? " ★" : ""}${
      raspas ? html` <small class="raspas-mark">${t("sheet_raspas")}</small>` : ""}</span>` : "";
    return html`<tr${raspas ? html` class="raspas" data-outcome="raspas"` : r ? html` data-outcome="${r.outcome}"` : ""}><td class="rno">${i + 1}. ${mark}</td>${order.map((s) => html`<td>${scores[s]}</td>`)}</tr>`;
  });
  return html`<div class="paper"><table class="sheet-table"><thead><tr><th></th>${heads}</tr></thead>
    <tbody>${rows.length ? rows : html`<tr><td colspan="${sides + 1}" class="muted">—</td></tr>`}</tbody>
    <tfoot><tr><th>${t("total")}</th>${order.map((s) => html`<td><b>${v.totals[s]}</b></td>`)}</tr></tfoot></table>
    <p class="paper-note">${t("target_short", { n: v.options.target })}</p></div>`;
}

function renderSheetDialog({ S, v, N }) {
  return dialog("sheet", t("sheet"), sheetHTML(S, N, v));
}

/** The auzmeš claim asked in the page (not the browser's confirm()). */
function renderClaimDialog() {
  return html`<div class="overlay" data-cmd="claim-no" id="claim-ask-overlay"><div class="dialog claim-ask" role="alertdialog" aria-modal="true" id="claim-ask" aria-label="${t("claim")}">
    <p class="claim-ask-text">${t("claim_confirm")}</p>
    <div class="row"><button class="btn warn" data-cmd="claim-yes" id="claim-yes">${t("claim_yes")}</button>
    <button class="btn" data-cmd="claim-no" id="claim-no">${t("cancel")}</button></div></div></div>`;
}

function renderLastTrickDialog({ v, N }) {
  const last = v.tricks[v.tricks.length - 1];
  if (!last) return dialog("last-trick", t("last_trick"), html`<p>${t("no_last_trick")}</p>`);
  const items = last.cards.map((p, i) => html`<div class="lt-play${p.seat === last.winner ? " winning" : ""}">
      <span>${N.seatName(p.seat)}${i === 0 ? html` · ${t("leads")}` : ""}${p.seat === last.winner ? html` · <b>${t("wins_trick")}</b>` : ""}</span>
      ${cardImg(p.card, N)}</div>`);
  return dialog("last-trick", t("last_trick"), html`<div class="lt-cards">${items}</div>`);
}

/** The match's result in one line, said once: a team's players read "we", a single player
 *  "you" (and who won, when it was someone else); a spectator reads the winner. */
export function matchHeadline(v, N) {
  const w = v.winner;
  if (w === null || w === undefined) return "";
  const winner = t("winner_is", { name: N.sideName(w) });
  if (v.seat === null || v.seat === undefined) return winner;
  const team = v.sides < v.seats;
  if (v.seat % v.sides === w) return t(team ? "we_won" : "you_won");
  return team ? t("we_lost") : `${t("you_lost")} ${winner}`;
}

/** The rating each seat's match moved (summary.ratings of a rated match: seat, before,
 *  after), one's own first. */
function ratingChanges(S, N) {
  const rs = (S.summary && S.summary.ratings) || [];
  if (!rs.length) return "";
  const sorted = [...rs].sort((a, b) => Number(b.seat === N.mySeat) - Number(a.seat === N.mySeat) || a.seat - b.seat);
  const items = sorted.map((r) => {
    const d = r.after - r.before;
    const text = r.seat === N.mySeat ? t("rating_change_you", { before: r.before, after: r.after })
      : `${N.seatName(r.seat)}: ${t("rating_change", { before: r.before, after: r.after })}`;
    return html`<li data-seat="${r.seat}"${r.seat === N.mySeat ? html` class="mine"` : ""}>${text} <span class="rating-change ${d >= 0 ? "up" : "down"}">(${d >= 0 ? "+" : "−"}${Math.abs(d)})</span></li>`;
  });
  return html`<ul class="rating-changes" id="rating-changes">${items}</ul>`;
}

/** The last deal's result in the match's dialog. */
function lastDeal(ctx) {
  const { S, v } = ctx;
  const ri = v.result ? v.round_index : Math.max(...Object.keys(S.rounds).map(Number), -1);
  const r = v.result || (S.rounds[ri] && S.rounds[ri].result);
  if (!r || ri < 0) return "";
  return html`<div class="last-deal" id="last-deal" data-outcome="${r.outcome}"><h4>${t("last_deal")} (${ri + 1}): <span class="outcome">${t("outcome_" + r.outcome)}</span></h4>
    ${resultBody(ctx, r)}</div>`;
}

function renderMatchDialog(ctx) {
  const { S, v, N } = ctx;
  const headline = matchHeadline(v, N);
  return html`<div class="overlay"><div class="dialog match-result" role="dialog" aria-modal="true" id="match-result" aria-label="${t("match_over")}">
    <div class="dialog-head"><h3>${t("match_over")}</h3><button class="btn small ghost" data-cmd="close-match" aria-label="${t("close")}">✕</button></div>
    <p class="headline">${headline}</p>
    ${ratingChanges(S, N)}
    ${lastDeal(ctx)}
    ${sheetHTML(S, N, v)}
    <div class="row"><button class="btn primary" data-cmd="download" id="download-record">${t("download_record")}</button>
    <a class="btn" href="/analysis?table=${encodeURIComponent(S.tableId || "")}" id="analyse-match">${t("an_analyse")}</a>
    <button class="btn" data-cmd="lobby">${t("back_lobby")}</button></div></div></div>`;
}
