// @ts-check
// REST calls of docs/PROTOCOL.md and the guest account kept in localStorage.

const KEY = "bela.guest";

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds, from a 429's Retry-After header
  }
}

export function storedGuest() {
  try {
    const g = JSON.parse(localStorage.getItem(KEY) || "null");
    return g && g.token ? g : null;
  } catch {
    return null;
  }
}

export function storeGuest(g) {
  if (g) localStorage.setItem(KEY, JSON.stringify(g));
  else localStorage.removeItem(KEY);
}

/** A poll's answer waited for at most this long: a request lost on the way fails (the
 *  next poll asks again) instead of holding the page's polling up for good. */
export const POLL_TIMEOUT_MS = 15000;

async function request(method, path, body, again = true, timeoutMs = 0) {
  const headers = {};
  const g = storedGuest();
  if (g) headers.Authorization = `Bearer ${g.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    signal: timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined,
  });
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  if (!r.ok) {
    const e = (data && data.error) || {};
    if (r.status === 401 && e.code === "token_expired" && g && again) {
      // an expired guest: a new one with the same name, then this request once more (an
      // account's name is taken: its player is logged out instead, renewGuest says so)
      if (await renewGuest(g)) return request(method, path, body, false, timeoutMs);
    } else if (r.status === 401 && e.code === "bad_token" && g && g.account) {
      accountEnded(g); // logged out (everywhere, or a new password elsewhere)
    }
    const wait = Number.parseInt(r.headers.get("Retry-After") || "", 10);
    throw new ApiError(r.status, e.code || "http_" + r.status, e.message || r.statusText,
      Number.isFinite(wait) && wait >= 0 ? wait : null);
  }
  return { data, headers: r.headers };
}

/** The answer of a REST call (``timeoutMs`` > 0: failed with a ``TimeoutError`` when it
 *  takes longer). */
export async function api(method, path, body, timeoutMs = 0) {
  return (await request(method, path, body, true, timeoutMs)).data;
}

/** A page of a list (GET): its items and the length of the whole list (X-Total-Count). */
export async function apiPage(path, timeoutMs = 0) {
  const { data, headers } = await request("GET", path, undefined, true, timeoutMs);
  const items = Array.isArray(data) ? data : [];
  const total = Number.parseInt(headers.get("X-Total-Count") || "", 10);
  return { items, total: Number.isFinite(total) ? total : items.length };
}

/** A new guest with this name (the server gives the token the browser keeps). */
export async function newGuest(name) {
  const g = await api("POST", "/api/guests", { name });
  storeGuest({ token: g.token, name: g.name, player_id: g.player_id, account: false });
  return storedGuest();
}

// -- accounts: a name claimed with a password ---------------------------------------------

/** The guest claims ``name`` (his own when null) with a password: his token keeps working. */
export async function claimName(password, name = null) {
  const g = storedGuest();
  const a = await api("POST", "/api/accounts", { password, name });
  storeGuest({ ...g, name: a.name, player_id: a.player_id, account: true });
  keepDevice(a);
  return storedGuest();
}

// This browser's device secret of each account it logged in to (by name), kept after a
// logout: a later login sends it, and others' failed attempts do not lock it out.
const DEVICES = "bela.devices";
const nameOf = (name) => name.trim().split(/\s+/).join(" ").toLowerCase();
function devices() {
  try { return JSON.parse(localStorage.getItem(DEVICES) || "{}") || {}; } catch { return {}; }
}
function keepDevice(a) {
  if (a.device) localStorage.setItem(DEVICES, JSON.stringify({ ...devices(), [nameOf(a.name)]: a.device }));
}

/** Log in with name and password: the account's player replaces the stored one. */
export async function login(name, password) {
  const device = devices()[nameOf(name)];
  const a = await api("POST", "/api/login", device ? { name, password, device } : { name, password });
  storeGuest({ token: a.token, name: a.name, player_id: a.player_id, account: true });
  keepDevice(a);
  return storedGuest();
}

/** Log out here (``all``: on every device); the token is forgotten, unless logging out
 *  everywhere failed (the player is told and stays logged in). */
export async function logout(all = false) {
  const g = storedGuest();
  if (!g) return;
  try {
    await api("POST", all ? "/api/logout-all" : "/api/logout");
  } catch (e) {
    if (all && e.status !== 401) throw e;
  }
  storeGuest(null);
}

/** A new password for the account: the answer's token replaces the one sent. */
export async function changePassword(old, password) {
  const a = await api("POST", "/api/players/me/password", { old, new: password });
  storeGuest({ token: a.token, name: a.name, player_id: a.player_id, account: true });
  return storedGuest();
}

// -- an expired token (401 token_expired, WebSocket close 4401) ---------------------------
let renewing = null; // the renewal under way: every request that met the expired token waits on it
/** @type {(guest: object) => void} */
let renewed = () => {};

/** ``fn(guest)`` is called once for each renewal of an expired guest (to tell the player). */
export function onGuestRenewed(fn) {
  renewed = fn;
}

/** @type {(player: object) => void} */
let ended = () => {};

/** ``fn(player)`` is called when an account's token stops working (expired, logged out
 *  everywhere, a new password elsewhere): the player is logged out, never renewed. */
export function onAccountEnded(fn) {
  ended = fn;
}

function accountEnded(old) {
  const now = storedGuest();
  if (now && now.token !== old.token) return; // logged in again meanwhile
  storeGuest(null);
  if (now) ended(old);
}

/** The guest ``old`` was refused as expired: forget its token and make a new guest with the
 *  same name (POST /api/guests), once however many requests and sockets saw it expire.
 *  The new guest, or null when none could be made (the name form asks again). */
export async function renewGuest(old) {
  const now = storedGuest();
  if (now && old && now.token !== old.token) return now; // renewed already
  if (renewing) return renewing;
  if (!now || !old) return null; // forgotten: nothing to renew
  if (old.account) { accountEnded(old); return null; } // its name is taken: log in again
  storeGuest(null);
  renewing = (async () => {
    try {
      const g = await newGuest(old.name);
      renewed(g);
      return g;
    } catch {
      return null;
    } finally {
      renewing = null;
    }
  })();
  return renewing;
}

/** The stored guest if the server still knows its token, else null (and forget it). */
export async function checkGuest() {
  const g = storedGuest();
  if (!g) return null;
  try {
    const me = await api("GET", "/api/players/me");
    // an expired token was renewed on the way: the new guest's token
    const fresh = { ...(storedGuest() || g), name: me.name, player_id: me.player_id };
    if (typeof me.account === "boolean") fresh.account = me.account;
    storeGuest(fresh);
    return fresh;
  } catch (e) {
    if (e.status === 401) {
      if (g.account) accountEnded(g);
      else storeGuest(null);
      return null;
    }
    return g; // server unreachable: keep it
  }
}

export function wsUrl(tableId, code = null) {
  const g = storedGuest();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = [];
  if (g) q.push(`token=${encodeURIComponent(g.token)}`);
  if (code) q.push(`code=${encodeURIComponent(code)}`); // a private table's invite code
  return `${proto}://${location.host}/ws/tables/${encodeURIComponent(tableId)}${q.length ? "?" + q.join("&") : ""}`;
}

// The invite codes of private tables, by table id: those this browser created (the server
// gives the code to the creator) and those it was invited to with a link.
const CODES = "bela.codes";
const MAX_CODES = 100;

function loadCodes() {
  try {
    const c = JSON.parse(localStorage.getItem(CODES) || "{}");
    return c && typeof c === "object" && !Array.isArray(c) ? c : {};
  } catch {
    return {};
  }
}

export function storedCode(tableId) {
  const c = loadCodes()[tableId];
  return typeof c === "string" && c ? c : null;
}

export function storeCode(tableId, code) {
  if (!tableId || !code) return;
  const codes = loadCodes();
  delete codes[tableId]; // the newest last: the oldest are forgotten first
  codes[tableId] = String(code);
  const ids = Object.keys(codes);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX_CODES))) delete codes[id];
  try {
    localStorage.setItem(CODES, JSON.stringify(codes));
  } catch { /* storage full or off: the link still carries the code */ }
}
