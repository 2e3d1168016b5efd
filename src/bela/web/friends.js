// @ts-check
// Friends and presence (docs/PROTOCOL.md, Friends): who is online, the friends with the
// table each sits at (watch or join it), requests to accept or decline, invitations to a
// table; on a profile the friend button and the avatar choice; on a table page the
// invitation of an online friend.  Friends are accounts'.

import { t } from "./i18n.js";
import { html } from "./html.js";
import { api } from "./api.js";
import { AVATARS, avatarOf, avatarSVG, noteAvatar } from "./avatars.js";
import { S } from "./state.js";

/** What the server last said (null: not loaded, or no account). */
export const social = {
  /** @type {{friends: any[], incoming: any[], outgoing: any[], invites: any[]} | null} */
  lists: null,
  online: 0,
};

/** Load the presence count and, for an account, the friends' lists; ``then`` after. */
export async function loadFriends(guest, then) {
  try {
    const [p, lists] = await Promise.all([api("GET", "/api/presence"),
      guest && guest.account ? api("GET", "/api/friends") : Promise.resolve(null)]);
    social.online = p.online;
    social.lists = lists;
  } catch { social.lists = null; }
  then();
}

function who(f) {
  return html`${avatarSVG(f.avatar || avatarOf(f.player_id), 22, f.name)} <a class="player-link" href="/?player=${f.player_id}" data-cmd="profile:${f.player_id}">${f.name}</a>`;
}

/** The lobby's panel: the online count, invitations, requests, friends. */
export function renderFriendsPanel(S) {
  const L = social.lists;
  const online = html`<p class="muted" id="online-count">${t("online_now", { n: social.online })}</p>`;
  if (!S.guest || !S.guest.account) return html`${online}<p class="muted">${t("friends_for_accounts")}</p>`;
  if (!L) return online;
  const invites = L.invites.map((i) => html`<li class="invite-row">${t("invited_by", { name: i.from_name })}
    <button class="btn small primary" data-cmd="open:${i.table}">${t("join_table")}</button></li>`);
  const incoming = L.incoming.map((f) => html`<li class="request-row" data-player="${f.player_id}">${who(f)}
    <button class="btn small" data-cmd="friend-accept:${f.player_id}">${t("friend_accept")}</button>
    <button class="btn small ghost" data-cmd="friend-remove:${f.player_id}">${t("friend_decline")}</button></li>`);
  const friends = L.friends.map((f) => html`<li class="friend-row" data-player="${f.player_id}" data-online="${f.online ? "true" : "false"}">${who(f)}
    <span class="tag ${f.online ? "online" : ""}">${t(f.online ? "online" : "offline")}</span>${
    f.table ? html` <button class="btn small" data-cmd="open:${f.table}">${t("watch_or_join")}</button>` : ""}</li>`);
  return html`${online}
    ${invites.length ? html`<ul class="invites">${invites}</ul>` : ""}
    ${incoming.length ? html`<h3>${t("friend_requests")}</h3><ul class="requests">${incoming}</ul>` : ""}
    ${friends.length ? html`<ul class="friends">${friends}</ul>` : html`<p class="muted">${t("no_friends")}</p>`}`;
}

/** A profile's friend button (another account's profile, seen by an account). */
export function friendButton(S, d) {
  const L = social.lists;
  if (!L || !S.guest || !S.guest.account || d.bot || !d.account || S.guest.player_id === d.player_id) return "";
  const id = d.player_id;
  if (L.friends.some((f) => f.player_id === id)) {
    return html`<span class="tag online">${t("friend")}</span> <button class="btn small ghost" data-cmd="friend-remove:${id}">${t("friend_remove")}</button>`;
  }
  if (L.outgoing.some((f) => f.player_id === id)) return html`<span class="tag">${t("friend_asked")}</span>`;
  const accept = L.incoming.some((f) => f.player_id === id);
  return html`<button class="btn small" id="friend-add" data-cmd="friend-accept:${id}">${t(accept ? "friend_accept" : "friend_add")}</button>`;
}

/** The avatar choice on one's own profile. */
export function avatarChoice(S, d) {
  if (!S.guest || S.guest.player_id !== d.player_id) return "";
  const mine = avatarOf(d.player_id);
  return html`<div class="avatar-choice" role="group" aria-label="${t("avatar_choose")}">${AVATARS.map((a) =>
    html`<button type="button" class="avatar-pick" data-cmd="avatar:${a}" aria-pressed="${a === mine ? "true" : "false"}">${avatarSVG(a, 32)}</button>`)}</div>`;
}

/** The table page's invitations: the friends not at this table (online first). */
export function renderInvite(S) {
  const L = social.lists;
  if (!L || !S.tableId) return "";
  const here = new Set(((S.summary && S.summary.seats) || []).map((s) => s.player_id));
  const friends = L.friends.filter((f) => !here.has(f.player_id))
    .sort((a, b) => Number(b.online) - Number(a.online));
  if (!friends.length) return "";
  return html`<div class="invite-friends"><b>${t("invite_friend")}</b> ${friends.map((f) =>
    html`<button class="btn small" data-cmd="friend-invite:${f.player_id}">${f.name}</button>`)}</div>`;
}

/** The friends' commands, given what they use of app.js.
 *  @param {{render: () => void, toast: (text: string, kind?: string, ms?: number) => void,
 *    run: (fn: () => Promise<any>) => Promise<any>, reload: () => void}} app
 *  @returns {Record<string, (arg: string) => unknown>} */
export function friendCommands(app) {
  return {
    "friend-accept": async (arg) => { await app.run(() => api("POST", `/api/friends/${encodeURIComponent(arg)}`)); app.reload(); },
    "friend-remove": async (arg) => { await app.run(() => api("DELETE", `/api/friends/${encodeURIComponent(arg)}`)); app.reload(); },
    "friend-invite": async (arg) => {
      const ok = await app.run(() => api("POST", `/api/friends/${encodeURIComponent(arg)}/invite`, { table: S.tableId }));
      if (ok) app.toast(t("invite_sent"));
    },
    avatar: async (arg) => {
      const r = await app.run(() => api("PUT", "/api/players/me/avatar", { avatar: arg }));
      if (r && S.guest) { noteAvatar(S.guest.player_id, r.avatar); app.render(); }
    },
  };
}
