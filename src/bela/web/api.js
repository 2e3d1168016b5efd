// REST calls of docs/PROTOCOL.md and the guest account kept in localStorage.

const KEY = "bela.guest";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
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

export async function api(method, path, body) {
  const headers = {};
  const g = storedGuest();
  if (g) headers.Authorization = `Bearer ${g.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  if (!r.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(r.status, e.code || "http_" + r.status, e.message || r.statusText);
  }
  return data;
}

/** A new guest with this name (the server gives the token the browser keeps). */
export async function newGuest(name) {
  const g = await api("POST", "/api/guests", { name });
  storeGuest({ token: g.token, name: g.name, player_id: g.player_id });
  return storedGuest();
}

/** The stored guest if the server still knows its token, else null (and forget it). */
export async function checkGuest() {
  const g = storedGuest();
  if (!g) return null;
  try {
    const me = await api("GET", "/api/players/me");
    const fresh = { ...g, name: me.name, player_id: me.player_id };
    storeGuest(fresh);
    return fresh;
  } catch (e) {
    if (e.status === 401) {
      storeGuest(null);
      return null;
    }
    return g; // server unreachable: keep it
  }
}

export function wsUrl(tableId) {
  const g = storedGuest();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = g ? `?token=${encodeURIComponent(g.token)}` : "";
  return `${proto}://${location.host}/ws/tables/${encodeURIComponent(tableId)}${q}`;
}
