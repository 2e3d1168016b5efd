// @ts-check
// The drawn avatars (no uploads): a player's chosen one (bela.server.talk.avatars.AVATARS,
// GET /api/avatars), else one picked from his id; a bot's face by its level.  Each is a
// small SVG drawn here from a few shapes, through html`` like the rest of the page.

import { html } from "./html.js";
import { api } from "./api.js";

/** How each avatar is drawn: background, face, ears ("pointy", "round", "long", "none")
 *  and a feature ("snout", "beak", "whiskers", "fin", "none"). */
const LOOKS = {
  fox: ["#f6d7b0", "#d9692b", "pointy", "snout"],
  owl: ["#dfe7c9", "#8a6a45", "pointy", "beak"],
  bear: ["#e8dccb", "#7b5234", "round", "snout"],
  cat: ["#f3e3f0", "#9b9b9b", "pointy", "whiskers"],
  hare: ["#e2eef7", "#c9b8a6", "long", "whiskers"],
  hedgehog: ["#efe6cf", "#6f5a45", "round", "snout"],
  dolphin: ["#cfe8f5", "#5b8db5", "none", "fin"],
  goat: ["#eef0dc", "#d8d2c0", "long", "snout"],
  donkey: ["#e4e1ea", "#8d8799", "long", "snout"],
  seagull: ["#dcecf2", "#f4f4f4", "none", "beak"],
  tuna: ["#d2e4ef", "#3f6e93", "none", "fin"],
  lynx: ["#f2e5cc", "#c49a5c", "pointy", "whiskers"],
};
export const AVATARS = Object.keys(LOOKS);
const BOT_COLORS = { beginner: "#7fb77e", club: "#5b8db5", expert: "#b5835b", master: "#8a5bb5" };

/** The chosen avatars by player id (null: none chosen), as the server said. */
const chosen = new Map();

/** Ask the server for the avatars of ``ids`` not known yet; ``then`` once they are. */
export async function loadAvatars(ids, then) {
  const wanted = [...new Set(ids.filter((id) => id && !chosen.has(id)))];
  if (!wanted.length) return;
  wanted.forEach((id) => chosen.set(id, null));
  try {
    const r = await api("GET", `/api/avatars?ids=${encodeURIComponent(wanted.join(","))}`);
    for (const [id, a] of Object.entries(r.players || {})) chosen.set(id, a);
    then();
  } catch { /* drawn by id meanwhile */ }
}

/** Note a player's own new choice. */
export function noteAvatar(id, avatar) {
  chosen.set(id, avatar);
}

/** The avatar a player shows: his choice, else one picked by his id. */
export function avatarOf(playerId) {
  const a = chosen.get(playerId);
  if (a && LOOKS[a]) return a;
  let h = 0;
  for (const c of String(playerId || "")) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return AVATARS[h % AVATARS.length];
}

function ears(kind, color) {
  if (kind === "pointy") return html`<path d="M9 13 L12 3 L17 10 Z M31 13 L28 3 L23 10 Z" fill="${color}"/>`;
  if (kind === "round") return html`<circle cx="11" cy="10" r="4" fill="${color}"/><circle cx="29" cy="10" r="4" fill="${color}"/>`;
  if (kind === "long") return html`<ellipse cx="14" cy="6" rx="3" ry="7" fill="${color}"/><ellipse cx="26" cy="6" rx="3" ry="7" fill="${color}"/>`;
  return "";
}

function feature(kind) {
  if (kind === "beak") return html`<path d="M17 22 L23 22 L20 27 Z" fill="#e0a82e"/>`;
  if (kind === "snout") return html`<ellipse cx="20" cy="25" rx="5" ry="3.5" fill="#f4e4d0"/><circle cx="20" cy="23.5" r="1.5" fill="#222"/>`;
  if (kind === "whiskers") return html`<path d="M8 24 L15 25 M8 27 L15 26 M32 24 L25 25 M32 27 L25 26" stroke="#333" stroke-width=".8"/>`;
  if (kind === "fin") return html`<path d="M20 5 L25 12 L15 12 Z" fill="#3f6e93"/>`;
  return "";
}

/** A drawn avatar ``name`` (one of AVATARS), ``size`` pixels, with ``label`` for readers. */
export function avatarSVG(name, size = 28, label = "") {
  const [bg, face, ear, feat] = LOOKS[name] || LOOKS.fox;
  return html`<svg class="avatar" data-avatar="${name}" width="${size}" height="${size}" viewBox="0 0 40 40" role="img" aria-label="${label || name}">
    <circle cx="20" cy="20" r="20" fill="${bg}"/>${ears(ear, face)}
    <circle cx="20" cy="21" r="12" fill="${face}"/>
    <circle cx="15.5" cy="19" r="2" fill="#fff"/><circle cx="24.5" cy="19" r="2" fill="#fff"/>
    <circle cx="15.5" cy="19" r="1" fill="#222"/><circle cx="24.5" cy="19" r="1" fill="#222"/>${feature(feat)}</svg>`;
}

/** A bot's face: a drawn robot in its level's colour (``level``: beginner, club, expert,
 *  master; any other bot: grey). */
export function botFace(level, size = 28, label = "") {
  const color = BOT_COLORS[level] || "#8c8c8c";
  return html`<svg class="avatar bot-face" data-bot="${level}" width="${size}" height="${size}" viewBox="0 0 40 40" role="img" aria-label="${label || level}">
    <circle cx="20" cy="20" r="20" fill="#e6e6e6"/><line x1="20" y1="4" x2="20" y2="9" stroke="#555" stroke-width="1.5"/><circle cx="20" cy="4" r="2" fill="${color}"/>
    <rect x="9" y="9" width="22" height="20" rx="4" fill="${color}"/>
    <rect x="13" y="15" width="5" height="4" rx="1" fill="#fff"/><rect x="22" y="15" width="5" height="4" rx="1" fill="#fff"/>
    <rect x="14" y="23" width="12" height="2" rx="1" fill="#fff"/></svg>`;
}
