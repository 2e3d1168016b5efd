// @ts-check
// The table: seats around the felt, the trick, prompts, the hand, the score sheet and the
// dialogs.  Everything is rendered as HTML from the app state; app.js handles the events
// (clicks on [data-card], [data-act] and [data-cmd]) by delegation.

import { t, tn } from "./i18n.js";
import {
  RANKS, cardSVG, cardBackSVG, isTrump, rankOf, sortHand, suitIcon, suitOf,
} from "./cards.js";
import { esc } from "./util.js";
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
    if (!c) return esc(t("no_contract"));
    if (c.length === 1) return `${suitIcon(c, deck)} ${esc(suitName(c))}`;
    return esc(contractText(c));
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
  return `<span class="${cls}${n <= URGENT_S ? " urgent" : ""}" data-clock="${kind}" role="timer" aria-live="off"
    aria-label="${esc(tn("seconds_left", n))}">${esc(clockText(kind, n))}</span>`;
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
  if (tok === "pass") return esc(t("pass"));
  if (tok === "VC") return esc(t("vc"));
  if (tok === "BC") return esc(t("bc"));
  if (tok === "swap") return esc(t(`swap_${faceUp(N.facts)}`));
  if (tok === "redeal") return esc(t("redeal"));
  if (tok === "keep") return esc(t("keep"));
  if (/^[HDSC]$/.test(tok)) {
    const turned = view.public && view.public.turned;
    const label = turned && suitOf(turned) === tok && view.bids.length < view.seats
      ? t("take_turned", { suit: N.suitName(tok) }) : N.suitName(tok);
    return `${suitIcon(tok, N.deck)} <span>${esc(label)}</span>`;
  }
  return esc(tok);
}

function bidText(bid, N) {
  if (bid === "pass") return esc(t("pass"));
  if (/^[HDSC]$/.test(bid)) return `${suitIcon(bid, N.deck)}`;
  return esc(bid);
}

// -- cards ------------------------------------------------------------------------------
function cardImg(code, N, cls = "") {
  return `<span class="card ${cls}" data-code="${code}" title="${esc(N.cardText(code))}">${cardSVG(code, N.deck)}</span>`;
}

function miniCards(codes, N) {
  return `<span class="mini-cards">${codes.map((c) => cardImg(c, N, "mini")).join("")}</span>`;
}

// -- the page ---------------------------------------------------------------------------
export function renderTablePage(S) {
  const sum = S.summary;
  if (!sum) {
    const text = S.tableError ? `<p class="table-error" role="alert">${esc(S.tableError)}</p>`
      : `<p>${esc(t("connecting"))}</p>`;
    return `<section class="panel table-missing">${text}
      <button class="btn" data-cmd="lobby">${esc(t("back_lobby"))}</button></section>`;
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
    if (s.kind === "bot") who = `${esc(s.name)} <span class="tag">${esc(botTag(sum))}</span>`;
    else if (s.kind === "human") {
      const name = s.player_id ? `<a class="player-link" href="${esc(profileHref(s.player_id))}" data-cmd="profile:${esc(s.player_id)}">${esc(s.name)}</a>` : esc(s.name);
      who = name + (s.seat === mine ? ` <span class="tag you">${esc(t("you"))}</span>` : "");
    }
    else who = `<span class="free">${esc(t("free_seat"))}</span>`;
    let btn = "";
    if (!s.kind && open && S.guest) {
      btn = `<button class="btn small" data-cmd="sit:${s.seat}">${esc(t("sit_here"))}</button>`;
    } else if (s.seat === mine && open) {
      btn = `<button class="btn small ghost" data-cmd="leave">${esc(t("leave_seat"))}</button>`;
    }
    const side = teamOf(sum.facts, s.seat);
    const team = side !== null ? `<span class="team team-${side}">${side ? "B" : "A"}</span>` : "";
    return `<li class="seat-row" data-seat="${s.seat}">${team}<span class="seat-no">${esc(t("seat_n", { n: s.seat + 1 }))}</span>
      <span class="who">${who}</span>${btn}</li>`;
  }).join("");
  const opts = sum.options;
  const rules = Object.entries(opts).filter(([k]) => k !== "target")
    .map(([k, v]) => `${esc(t("opt_" + k))}: ${esc(t(`opt_${k}_${v}`))}`).join(" · ");
  const nameForm = S.guest || !open ? "" : `<form class="name-form" data-form="guest">
      <p>${esc(t("need_name"))}</p>
      <label>${esc(t("your_name"))} <input name="name" maxlength="40" required autocomplete="nickname" placeholder="${esc(t("name_placeholder"))}"></label>
      <button class="btn primary">${esc(t("continue"))}</button></form>`;
  // the creator's controls: bots and start while the table is open, closing it (canClose)
  const controls = [];
  if (owner && open) {
    controls.push(`<button class="btn" data-cmd="bots" ${free ? "" : "disabled"}>${esc(t("fill_bots"))}</button>`,
      `<button class="btn primary" data-cmd="start" ${free ? "disabled" : ""}>${esc(t("start"))}</button>`);
  }
  if (canClose(S)) controls.push(`<button class="btn warn" data-cmd="close">${esc(t("close_table"))}</button>`);
  const hint = !open ? "" : owner ? (free ? t("need_all_seats") : "") : t("only_creator_starts");
  const toast = S.toast ? `<p class="toast ${S.toast.kind || ""}" role="status">${esc(S.toast.text)}</p>` : "";
  const invite = link ? `<div class="invite"><label for="invite-link">${esc(t(sum.private ? "invite_private" : "invite"))}</label>
      <div class="row"><input id="invite-link" readonly value="${esc(link)}">
      <button class="btn small" data-cmd="copy">${esc(t("copy"))}</button></div></div>` : "";
  return `<section class="panel waiting" data-status="${sum.status}"${sum.private ? ` data-private="true"` : ""}>
    <h2>${esc(t("vname_" + sum.variant))} <small>${esc(t("target_short", { n: opts.target }))}${
      sum.private ? ` <span class="tag private">${esc(t("private_tag"))}</span>` : ""}${
      sum.rated ? ` <span class="tag rated">${esc(t("rated_tag"))}</span>` : ""}</small></h2>
    ${closed ? `<p class="closed-note" role="status">${esc(t("table_closed"))}</p>` : ""}
    <p class="muted">${rules} · ${esc(t("bot"))}: ${esc(botName(sum.bot))}${
      sum.turn_clock ? ` · <span class="clock-info" data-turn-clock="${sum.turn_clock}">${esc(turnClockText(sum))}</span>` : ""}</p>
    ${nameForm}
    <ul class="seat-list">${seats}</ul>
    ${controls.length ? `<div class="row owner-controls">${controls.join("")}</div>` : ""}
    ${hint ? `<p class="muted">${esc(hint)}</p>` : ""}
    ${toast}
    ${invite}
    <p><button class="btn ghost" data-cmd="lobby">${esc(t("back_lobby"))}</button></p>
  </section>`;
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
  const seats = [...Array(v.seats).keys()].map((s) => renderSeat(ctx, s)).join("");
  return `<div class="game" id="game" tabindex="-1" data-phase="${v.phase}" data-status="${S.status}" data-round="${v.round_index}"
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
  ${S.ui.sheet ? renderSheetDialog(ctx) : ""}
  ${S.ui.lastTrick ? renderLastTrickDialog(ctx) : ""}
  ${S.ui.claimAsk && v.claim_allowed && S.status === "running" ? renderClaimDialog() : ""}
  ${S.status === "finished" && !S.ui.matchDismissed && !S.anim.trick ? renderMatchDialog(ctx) : ""}`;
}

function renderTopbar({ S, v, N }) {
  const totals = N.order.map((side) => `<span class="tot" data-side="${side}"><b>${esc(N.sideName(side))}</b> ${v.totals[side]}</span>`).join("");
  let contract;
  if (v.raspas) {
    contract = `<span class="contract raspas" data-contract="${v.contract ?? ""}">${esc(t("raspas"))}` +
      (v.contract ? ` · ${esc(t("contract"))}: ${N.contractHTML(v.contract)}` : "") + `</span>`;
  }
  else {
    contract = `<span class="contract" data-contract="${v.contract ?? ""}">${esc(t("contract"))}: ${N.contractHTML(v.contract)}` +
      (v.caller !== null ? ` <small>(${esc(N.callerText(v.caller))})</small>` : "") + `</span>`;
  }
  const tricks = v.phase === "play" || v.phase === "done"
    ? `<span class="round-pts">${N.order.map((side) => `<span data-side="${side}">${esc(N.sideName(side))}: ${esc(tn("tricks", v.tricks_won[side]))}, ${v.card_points[side]}</span>`).join(" · ")}</span>` : "";
  const watching = v.seat === null ? `<span class="tag watch">${esc(t("spectating"))}</span>` : "";
  const fallback = S.summary && S.summary.bot_fallback ? ` <span class="tag warn bot-fallback">${esc(t("bot_fallback"))}</span>` : "";
  // the creator watching his table of bots only may stop it
  const close = canClose(S) ? ` <button class="btn small warn" data-cmd="close">${esc(t("close_table"))}</button>` : "";
  const clock = S.summary && S.summary.turn_clock
    ? ` <span class="tag clock-info" data-turn-clock="${S.summary.turn_clock}">${esc(turnClockText(S.summary))}</span>` : "";
  const rated = S.summary && S.summary.rated ? ` <span class="tag rated">${esc(t("rated_tag"))}</span>` : "";
  return `<div class="topbar">
    <div class="tb-left"><button class="btn small ghost" data-cmd="lobby" title="${esc(t("back_lobby"))}">←</button>
      <b>${esc(t("vname_" + v.variant))}</b> <span>${esc(t("round_n", { n: v.round_index + 1 }))}</span> ${watching}${clock}${rated}${fallback}${close}</div>
    <div class="tb-mid">${contract} ${tricks}</div>
    <div class="tb-right"><span class="totals">${totals} <small>${esc(t("target_short", { n: v.options.target }))}</small></span>
      <button class="btn small" data-cmd="lasttrick" aria-keyshortcuts="L">${esc(t("last_trick"))}</button>
      <button class="btn small" data-cmd="sheet" aria-keyshortcuts="S">${esc(t("sheet"))}</button></div>
  </div>`;
}

/** The tag of a bot's seat: "bot" and the table's bot in words (a level: "Klupski igrač"). */
function botTag(sum) {
  return sum.bot ? `${t("bot_label")} · ${botName(sum.bot)}` : t("bot_label");
}

function renderSeat({ S, v, N, pos }, seat) {
  const sum = S.summary;
  const info = sum.seats[seat] || {};
  const p = pos(seat);
  const tags = [];
  if (seat === v.dealer) tags.push(`<span class="chip dealer" title="${esc(t("dealer"))}">D</span>`);
  if (info.kind === "bot") tags.push(`<span class="tag bot-level">${esc(botTag(sum))}</span>`);
  if (info.autopilot) tags.push(`<span class="tag warn">${esc(t("away"))}</span>`);
  else if (info.kind === "human" && !info.connected) tags.push(`<span class="tag warn">${esc(t("offline"))}</span>`);
  const away = !info.autopilot && S.away && S.away[seat];
  if (away) { // the grace of an absent player: when his bot takes over (app.js counts down)
    const n = Math.max(0, Math.ceil((away - performance.now()) / 1000));
    tags.push(`<span class="tag warn away-in" data-away="${seat}" role="timer">${esc(t("away_in", { n }))}</span>`);
  }
  if (S.thinking && S.thinking.seat === seat && S.thinking.seq === S.seq && v.turn === seat) {
    tags.push(`<span class="tag thinking" data-thinking="${seat}">${esc(t("thinking"))}</span>`);
  }
  const bids = v.bids.filter((b) => b.seat === seat).map((b) => `<span class="bid">${bidText(b.bid, N)}</span>`).join("");
  // after the first trick a declaration folds to its value: its cards on a tap (S.ui.declOpen)
  const folded = v.tricks.length > 0 && !(S.ui.declOpen || []).includes(seat);
  const decl = (v.declared[seat] || []).map((d) => (folded && d.cards
    ? `<button type="button" class="decl folded" data-cmd="decl-open:${seat}" title="${esc(declText(d))} – ${esc(t("show_decl_cards"))}" aria-expanded="false">${esc(t("declared"))}: ${d.value}</button>`
    : `<div class="decl"${v.tricks.length > 0 && d.cards ? ` data-cmd="decl-close:${seat}"` : ""} title="${esc(declText(d))}">${esc(t("declared"))}: ${d.value}` +
    (d.cards ? miniCards(d.cards, N) : ` <small>${esc(declText(d))}</small>`) + `</div>`)).join("");
  const belas = v.belas.filter((b) => b.seat === seat).map((b) => `<div class="bela-badge">${esc(t("bela"))}! ${suitIcon(b.suit, N.deck)}</div>`).join("");
  const ex = (v.exchanges || []).filter((e) => e.seat === seat && e.action !== "keep")
    .map((e) => `<div class="note">${esc(t((e.action === "swap" ? "swapped" : "redealt") + (seat === v.seat ? "_me" : ""), { name: N.seatName(seat) }))}</div>`).join("");
  const backs = seat === v.seat ? "" : `<div class="backs" aria-label="${v.hand_sizes[seat]}">${
    Array.from({ length: v.hand_sizes[seat] }, () => `<span class="back-mini">${cardBackSVG()}</span>`).join("")}</div>`;
  const side = teamOf(N.facts, seat);
  const team = side !== null ? ` team-${side}` : "";
  return `<div class="seat pos-${p}${v.turn === seat ? " turn" : ""}${seat === v.seat ? " me" : ""}${team}" data-seat="${seat}">
    <div class="seat-head">${info.player_id
      ? `<a class="seat-name" href="${esc(profileHref(info.player_id))}" target="_blank" rel="noopener" title="${esc(t("profile"))}: ${esc(info.name || "")}">${esc(N.seatName(seat))}</a>`
      : `<span class="seat-name">${esc(N.seatName(seat))}</span>`}${tags.join("")}${
      S.clock && S.clock.seat === seat ? clockBadge(S, "seat") : ""}</div>
    ${backs}
    <div class="seat-info">${bids ? `<div class="bids">${bids}</div>` : ""}${decl}${belas}${ex}</div>
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
      return `<div class="center-note">${esc(t(note))}</div>`;
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
    const label = i === 0 ? `<span class="tc-label lead">${esc(t("leads"))}</span>` : "";
    const wl = i === winIdx ? `<span class="tc-label win">${esc(shown ? t("wins") : t("wins_trick"))}</span>` : "";
    return `<div class="${cls.join(" ")}" data-trick-seat="${p.seat}">${cardImg(p.card, N, isTrump(p.card, v.contract) ? "trump" : "")}${label}${wl}</div>`;
  }).join("");
  return `<div class="trick${shown ? " done" : ""}" aria-label="${esc(plays.map((p) => `${N.seatName(p.seat)}: ${N.cardText(p.card)}`).join(", "))}">${cards}</div>`;
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
  return `<div class="round-result" role="dialog" aria-label="${esc(t("round_over"))}" data-outcome="${r.outcome}">
    <h3>${esc(t("round_over_n", { n: ri + 1 }))}: <span class="outcome">${esc(t("outcome_" + r.outcome))}</span></h3>
    ${resultBody(ctx, r)}
    ${old ? `<button class="btn small" data-cmd="dismiss-result">${esc(t("ok"))}</button>`
      : S.status === "running" ? `<p class="muted">${esc(t("next_deal"))}</p>` : ""}
  </div>`;
}

/** What a round's result says: the claim, the contract, and a row for each part it has. */
function resultBody({ N }, r) {
  const order = N.order.length === r.scores.length ? N.order : [...r.scores.keys()];
  // a row for each part the result has (a raspas has only its card points, a claim none)
  const row = (label, arr) => (Array.isArray(arr) && order.every((s) => Number.isFinite(arr[s]))
    ? `<tr><th>${esc(label)}</th>${order.map((s) => `<td>${arr[s]}</td>`).join("")}</tr>` : "");
  const heads = order.map((s) => `<th>${esc(N.sideName(s))}</th>`).join("");
  const called = r.caller !== null && r.caller !== undefined;
  const contract = r.contract ? N.contractHTML(r.contract) : "";
  const held = r.held ? `<p class="muted">${esc(t("held_points", { n: r.held }))}</p>` : "";
  const ex = r.extra || {};
  let claim = "";
  if (r.outcome === "claim" && ex.claimant !== undefined && ex.claimant !== null) {
    const key = (ex.valid ? "claim_right" : "claim_wrong") + (ex.claimant === N.mySeat ? "_me" : "");
    claim = `<p class="claim-result" data-valid="${ex.valid ? "true" : "false"}"><b>${esc(t(key, { name: N.seatName(ex.claimant) }))}</b></p>`;
    // who revoked, and with which card (the first revoke), where the result says so
    if (ex.valid && Number.isInteger(ex.offender) && /^[789TJQKA][HDSC]$/.test(ex.card || "")) {
      claim += `<p class="claim-offender" data-offender="${ex.offender}" data-card="${esc(ex.card)}">${
        esc(t(ex.offender === N.mySeat ? "claim_offender_me" : "claim_offender", { name: N.seatName(ex.offender), card: N.cardText(ex.card) }))}</p>`;
    }
  }
  return `${claim}
    ${called ? `<p>${contract} · ${esc(N.callerText(r.caller))}</p>` : ""}
    <table class="result-table"><thead><tr><th></th>${heads}</tr></thead><tbody>
      ${row(t("in_cards"), r.card_points)}
      ${row(t("in_declarations"), r.declaration_points)}
      ${row(t("in_bela"), r.bela_points)}
      <tr class="sum"><th>${esc(t("score"))}</th>${order.map((s) => `<td><b>${r.scores[s]}</b></td>`).join("")}</tr>
    </tbody></table>${held}`;
}

function renderFaceUp({ v, N }) {
  const pub = v.public || {};
  const parts = [];
  if (pub.turned) parts.push(`<div class="faceup"><span>${esc(t(faceUp(N.facts)))}</span>${cardImg(pub.turned, N, "small")}</div>`);
  if (pub.bottom) parts.push(`<div class="faceup"><span>${esc(t("bottom"))}</span>${cardImg(pub.bottom, N, "small")}</div>`);
  if (v.discards && v.discards.length) parts.push(`<div class="faceup"><span>${esc(t("discards"))}</span><span class="pair">${v.discards.map((c) => cardImg(c, N, "small")).join("")}</span></div>`);
  if (!parts.length) return "";
  const note = pub.turned ? `<small class="muted">${esc(t("out_of_play"))}</small>` : "";
  return `<div class="faceups">${parts.join("")}${note}</div>`;
}

/** The status line: a notice (toast) while it lives, and beside it always the state of the
 *  table, so a lost connection or the seat's turn is never hidden behind a notice. */
function renderStatus(ctx) {
  const { S } = ctx;
  const state = tableState(ctx);
  if (!S.toast) return state;
  const toast = `<span class="toast ${S.toast.kind || ""}">${esc(S.toast.text)}</span>`;
  return state ? `${toast} <span class="status-state">· ${state}</span>` : toast;
}

function statusLine(ctx) {
  const { S, v } = ctx;
  return renderStatus(ctx) + (S.clock && v.seat !== null && S.clock.seat === v.seat ? clockBadge(S, "mine") : "");
}

/** Redraws the status line alone (a notice that ends), so that a tap on the hand at that
 *  moment is not lost to a new page; false where no game is drawn. */
export function redrawStatusLine(S, el) {
  const line = S.view && S.tableId ? el.querySelector("#game .status-line") : null;
  if (!line) return false;
  line.innerHTML = statusLine(gameContext(S));
  return true;
}

function tableState({ S, v, N, myTurn }) {
  if (S.conn !== "open") return `<span class="warn">${esc(t(S.conn === "closed" ? "reconnecting" : "connecting"))}</span>`;
  if (S.status === "finished") return esc(t("match_over"));
  if (v.phase === "done") return esc(t("next_deal"));
  if (myTurn) return `<b>${esc(t("your_turn"))}</b>`;
  if (v.turn !== null) return esc(t("waiting_for", { name: N.seatName(v.turn) }));
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
    out.push(`<button class="btn warn small" data-cmd="claim">${esc(t("claim"))}</button>`);
  }
  if (!myTurn) return out.join("");
  const legal = v.legal;
  if (v.phase === "exchange" && legal.length === 1) { // only keep: the server answers it (R32, R35)
    return `<div class="prompt exchange-prompt passive"><span class="prompt-title">${esc(t(exchangeTitle(v, N.facts)))}</span></div>` + out.join("");
  }
  const hint = shownHint(S);
  const hinted = (tok) => (hint && hint.best === tok ? " hinted" : "");
  if (hintAllowed(S)) {
    const said = hint && hint.best ? `<span class="hint-text" id="hint-text">${esc(t("an_hint_is"))} ${hintLabel(hint.best, v, N)}</span>` : "";
    out.push(`<div class="row hint-row"><button class="btn small hint-btn" data-cmd="hint" id="hint-btn" title="${esc(t("an_hint_title"))}">${esc(t("an_hint"))}</button>${said}</div>`);
  }
  if (v.phase === "bidding") {
    const btns = legal.map((tok) => `<button class="btn act bid-btn${hinted(tok)}" data-act="${esc(tok)}">${tokenLabel(tok, v, N)}</button>`).join("");
    const must = N.facts && N.facts.mus && !legal.includes("pass") ? `<p class="muted">${esc(t("must_call"))}</p>` : "";
    const title = legal.includes("pass") ? t("your_bid") : t("your_bid_must");
    out.unshift(`<div class="prompt bidding-prompt"><span class="prompt-title">${esc(title)}</span><div class="row">${btns}</div>${must}</div>`);
  } else if (v.phase === "exchange") {
    const btns = legal.map((tok) => `<button class="btn act${hinted(tok)}" data-act="${esc(tok)}">${tokenLabel(tok, v, N)}</button>`).join("");
    out.unshift(`<div class="prompt exchange-prompt"><span class="prompt-title">${esc(t(exchangeTitle(v, N.facts)))}</span><div class="row">${btns}</div></div>`);
  } else if (v.phase === "discard") {
    const sel = S.ui.discardSel;
    const ready = sel.length === 2;
    out.unshift(`<div class="prompt"><span class="prompt-title">${esc(t("discard_prompt"))}</span>
      <div class="row">${sel.map((c) => cardImg(c, N, "small")).join("")}
      <button class="btn primary" data-cmd="discard" ${ready ? "" : "disabled"}>${esc(t("discard"))}</button></div></div>`);
  } else if (declarePending(S)) {
    const full = fullDeclare(v);
    const groups = declareGroups(full);
    const items = groups.map((g, i) => `<label class="decl-choice"><input type="checkbox" data-decl="${i}" checked>
      ${miniCards(g, N)} <span class="decl-name">${esc(declText(declShape(g)))}</span></label>`).join("");
    out.unshift(`<div class="prompt declare-prompt"><span class="prompt-title">${esc(t(groups.length === 1 ? "declare_prompt_one" : "declare_prompt"))}</span>
      <div class="row">${items}</div>
      <div class="row"><button class="btn primary act" data-cmd="declare">${esc(t("declare_btn"))}</button>
      <button class="btn" data-cmd="declare-none">${esc(t("declare_none"))}</button></div></div>`);
  } else if (S.ui.belaCard && legal.includes(S.ui.belaCard + "*")) {
    const c = S.ui.belaCard;
    out.unshift(`<div class="prompt bela-prompt"><span class="prompt-title">${esc(t("bela_prompt"))}</span> ${cardImg(c, N, "small")}
      <div class="row"><button class="btn primary act" data-act="${c}*">${esc(t("bela_yes"))}</button>
      <button class="btn act" data-act="${c}">${esc(t("bela_no"))}</button></div></div>`);
  }
  return out.join("");
}

/** The hinted choice in words: a card, a bid or another token. */
function hintLabel(tok, v, N) {
  const code = tok.replace("*", "");
  if (/^[789TJQKA][HDSC]$/.test(code)) return esc(N.cardText(code)) + (tok.endsWith("*") ? ` (${esc(t("bela"))})` : "");
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
  if (v.seat === null) return `<div class="hand spectator"><p class="muted">${esc(t("spectator_cards"))}</p></div>`;
  const cards = sortHand(v.hand, v.contract, v.strength);
  const legal = new Set(v.legal);
  const playing = myTurn && v.phase === "play";
  const discarding = myTurn && v.phase === "discard";
  const declWait = playing && declarePending(S);
  const hint = playing ? shownHint(S) : null;
  const items = cards.map((c, i) => {
    const cls = ["card", "hand-card"];
    let attrs = "";
    let title = N.cardText(c);
    const trump = isTrump(c, v.contract);
    if (trump) { cls.push("trump"); title += ` (${t("trump_mark")})`; }
    if (S.picked.has(c)) cls.push("picked");
    if (discarding) {
      cls.push("selectable");
      if (S.ui.discardSel.includes(c)) cls.push("selected");
      attrs = ` aria-pressed="${S.ui.discardSel.includes(c)}"`;
    } else if (playing) {
      const ok = legal.has(c) || legal.has(c + "*");
      const refusal = refusalOf(v, c); // the engine's: greyed, or with enforce = off a warning
      const why = refusal ? ` data-reason="${esc(reasonText(refusal, N))}" data-rule="${esc(refusal.rule)}"` : "";
      if (!ok) {
        const reason = reasonText(refusal, N);
        cls.push("illegal");
        attrs = ` aria-disabled="true"${why || ` data-reason="${esc(reason)}" data-rule=""`}`;
        title += ` — ${reason}`;
      } else if (declWait) {
        cls.push("decl-wait"); // not "waiting": that is the waiting room's panel
        attrs = ` aria-disabled="true" data-reason="${esc(t("declare_first"))}"`;
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
      attrs = ` aria-disabled="true"`;
    }
    if (S.ui.belaCard === c) cls.push("selected");
    if (hint && hint.best && hint.best.replace("*", "") === c) { cls.push("hinted"); title += ` – ${t("an_hint")}`; }
    return `<button type="button" class="${cls.join(" ")}" data-card="${c}" style="--i:${i}"${attrs} title="${esc(title)}" aria-label="${esc(title)}">${cardSVG(c, N.deck)}${trump ? `<span class="trump-mark" aria-hidden="true">★</span>` : ""}${cls.includes("would-break") ? `<span class="break-mark" aria-hidden="true">!</span>` : ""}${
      cls.includes("hinted") ? `<span class="hint-mark" aria-hidden="true">${hint.values && c in hint.values ? esc(String(Math.round(hint.values[c]))) : "✓"}</span>` : ""}</button>`;
  });
  for (let i = 0; i < v.unseen; i++) {
    items.push(`<span class="card hand-card unseen" title="${esc(t("talon_hidden"))}">${cardBackSVG()}</span>`);
  }
  return `<div class="hand" role="group" aria-label="${esc(t("hand"))}" style="--n:${items.length}">${items.join("")}</div>`;
}

// -- dialogs ----------------------------------------------------------------------------
function dialog(id, title, body) {
  return `<div class="overlay" data-cmd="close-dialog" id="${id}-overlay"><div class="dialog ${id}" role="dialog" aria-modal="true" aria-label="${esc(title)}" id="${id}">
    <div class="dialog-head"><h3>${esc(title)}</h3><button class="btn small ghost" data-cmd="close-dialog" aria-label="${esc(t("close"))}">✕</button></div>
    ${body}</div></div>`;
}

export function sheetHTML(S, N, v) {
  const sides = v.totals.length;
  const order = N.order.length === sides ? N.order : [...Array(sides).keys()];
  const heads = order.map((s) => `<th>${esc(N.sideName(s))}</th>`).join("");
  const rows = v.sheet.map((scores, i) => {
    const info = S.rounds[i];
    const r = info && info.result;
    const raspas = r && r.outcome === "raspas";
    const mark = r ? `<span class="sheet-mark" title="${esc(t("outcome_" + r.outcome))}">${
      r.contract && r.contract.length === 1 ? suitIcon(r.contract, N.deck) : esc(r.contract || "")}${
      r.outcome === "fall" ? " ✗" : r.outcome === "capot" ? " ★" : ""}${
      raspas ? ` <small class="raspas-mark">${esc(t("sheet_raspas"))}</small>` : ""}</span>` : "";
    return `<tr${raspas ? ` class="raspas" data-outcome="raspas"` : r ? ` data-outcome="${esc(r.outcome)}"` : ""}><td class="rno">${i + 1}. ${mark}</td>${order.map((s) => `<td>${scores[s]}</td>`).join("")}</tr>`;
  }).join("");
  return `<div class="paper"><table class="sheet-table"><thead><tr><th></th>${heads}</tr></thead>
    <tbody>${rows || `<tr><td colspan="${sides + 1}" class="muted">—</td></tr>`}</tbody>
    <tfoot><tr><th>${esc(t("total"))}</th>${order.map((s) => `<td><b>${v.totals[s]}</b></td>`).join("")}</tr></tfoot></table>
    <p class="paper-note">${esc(t("target_short", { n: v.options.target }))}</p></div>`;
}

function renderSheetDialog({ S, v, N }) {
  return dialog("sheet", t("sheet"), sheetHTML(S, N, v));
}

/** The auzmeš claim asked in the page (not the browser's confirm()). */
function renderClaimDialog() {
  return `<div class="overlay" data-cmd="claim-no" id="claim-ask-overlay"><div class="dialog claim-ask" role="alertdialog" aria-modal="true" id="claim-ask" aria-label="${esc(t("claim"))}">
    <p class="claim-ask-text">${esc(t("claim_confirm"))}</p>
    <div class="row"><button class="btn warn" data-cmd="claim-yes" id="claim-yes">${esc(t("claim_yes"))}</button>
    <button class="btn" data-cmd="claim-no" id="claim-no">${esc(t("cancel"))}</button></div></div></div>`;
}

function renderLastTrickDialog({ v, N }) {
  const last = v.tricks[v.tricks.length - 1];
  if (!last) return dialog("last-trick", t("last_trick"), `<p>${esc(t("no_last_trick"))}</p>`);
  const items = last.cards.map((p, i) => `<div class="lt-play${p.seat === last.winner ? " winning" : ""}">
      <span>${esc(N.seatName(p.seat))}${i === 0 ? ` · ${esc(t("leads"))}` : ""}${p.seat === last.winner ? ` · <b>${esc(t("wins_trick"))}</b>` : ""}</span>
      ${cardImg(p.card, N)}</div>`).join("");
  return dialog("last-trick", t("last_trick"), `<div class="lt-cards">${items}</div>`);
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
    return `<li data-seat="${r.seat}"${r.seat === N.mySeat ? ` class="mine"` : ""}>${esc(text)} <span class="rating-change ${d >= 0 ? "up" : "down"}">(${d >= 0 ? "+" : "−"}${Math.abs(d)})</span></li>`;
  }).join("");
  return `<ul class="rating-changes" id="rating-changes">${items}</ul>`;
}

/** The last deal's result in the match's dialog. */
function lastDeal(ctx) {
  const { S, v } = ctx;
  const ri = v.result ? v.round_index : Math.max(...Object.keys(S.rounds).map(Number), -1);
  const r = v.result || (S.rounds[ri] && S.rounds[ri].result);
  if (!r || ri < 0) return "";
  return `<div class="last-deal" id="last-deal" data-outcome="${esc(r.outcome)}"><h4>${esc(t("last_deal"))} (${ri + 1}): <span class="outcome">${esc(t("outcome_" + r.outcome))}</span></h4>
    ${resultBody(ctx, r)}</div>`;
}

function renderMatchDialog(ctx) {
  const { S, v, N } = ctx;
  const headline = matchHeadline(v, N);
  return `<div class="overlay"><div class="dialog match-result" role="dialog" aria-modal="true" id="match-result" aria-label="${esc(t("match_over"))}">
    <div class="dialog-head"><h3>${esc(t("match_over"))}</h3><button class="btn small ghost" data-cmd="close-match" aria-label="${esc(t("close"))}">✕</button></div>
    <p class="headline">${esc(headline)}</p>
    ${ratingChanges(S, N)}
    ${lastDeal(ctx)}
    ${sheetHTML(S, N, v)}
    <div class="row"><button class="btn primary" data-cmd="download" id="download-record">${esc(t("download_record"))}</button>
    <a class="btn" href="/analysis?table=${encodeURIComponent(S.tableId || "")}" id="analyse-match">${esc(t("an_analyse"))}</a>
    <button class="btn" data-cmd="lobby">${esc(t("back_lobby"))}</button></div></div></div>`;
}
