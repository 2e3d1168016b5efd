// @ts-check
// The commands of the page's controls (data-cmd="name" or "name:arg"), split by area:
// the lobby and the pages around it, the account panel, the table.  Each area is a map of
// name -> handler; app.js gives them what they need of it (rendering, navigation, the
// socket) as `app`, so no module imports app.js back.

import { t } from "./i18n.js";
import { api, logout } from "./api.js";
import { leadersHref, profileHref } from "./profile.js";
import { declKey, declareGroups, fullDeclare, loadHint } from "./table.js";
import { S } from "./state.js";

/** A command's handler: its argument ("" when none), the control, the event.
 *  @typedef {(arg: string, el: HTMLElement, ev: Event) => unknown} Command */

/** What the commands use of app.js.
 *  @typedef {object} App
 *  @property {() => void} render
 *  @property {() => HTMLElement} root
 *  @property {(tableId: string | null) => void} go
 *  @property {(url: string) => void} navigate
 *  @property {(fn: () => Promise<any>) => Promise<any>} run a request; a refusal is toasted (null)
 *  @property {(text: string, kind?: string, ms?: number) => void} toast
 *  @property {(e: unknown) => string} errorText
 *  @property {() => unknown} loadTables
 *  @property {(variant: string, more?: boolean) => unknown} loadLeaders
 *  @property {(q: object) => void} applyQuick
 *  @property {(rec: object, name: string) => void} saveRecord
 *  @property {() => void} dropAccountNote
 *  @property {(text: string, kind?: string) => void} accountMsg
 *  @property {(g: object | null) => void} playerChanged
 *  @property {(table: object) => void} applySummary
 *  @property {(token: string) => void} act
 *  @property {() => Promise<unknown>} downloadRecord
 */

/** The lobby, the profiles and the leaderboard.
 *  @param {App} app
 *  @returns {Record<string, Command>} */
export function lobbyCommands(app) {
  return {
    lobby: (arg, el, ev) => { ev.preventDefault(); app.go(null); },
    open: (arg) => app.go(arg),
    refresh: () => app.loadTables(),
    history: async (arg) => {
      const g = (S.history || [])[Number(arg)]; // a summary: its record is fetched now
      const rec = g && await app.run(() => api("GET", g.record));
      if (rec) app.saveRecord(rec, `bela-${g.variant}-${g.table}.json`);
    },
    "change-name": () => { S.ui.editName = true; app.render(); document.getElementById("guest-name")?.focus(); },
    profile: (arg) => app.navigate(profileHref(arg)),
    leaders: (arg) => app.navigate(leadersHref(arg)),
    "more-leaders": () => { if (S.leaders) app.loadLeaders(S.leaders.variant, true); },
    record: async (arg) => { // a finished match of the profile: its record
      const m = S.profile && S.profile.data && S.profile.data.matches[Number(arg)];
      if (!m) return;
      const rec = await app.run(() => api("GET", m.record));
      if (rec) app.saveRecord(rec, `bela-${m.variant}-${m.table}.json`);
    },
    "quick-cancel": async () => {
      const q = await app.run(() => api("DELETE", "/api/quick"));
      if (q) app.applyQuick(q);
      document.getElementById("quick-play")?.focus();
    },
    "more-tables": () => { S.tablePages += 1; app.loadTables(); },
  };
}

/** The account panel: its forms, logging out.
 *  @param {App} app
 *  @returns {Record<string, Command>} */
export function accountCommands(app) {
  return {
    "account-note-close": () => app.dropAccountNote(),
    "account-form": (arg) => { // a form of the account panel opened, or closed (no arg)
      const was = S.ui.accountForm;
      S.ui.accountForm = arg || null;
      S.account.msg = null;
      app.render();
      const focus = arg === "login" ? (S.account.loginName ? "login-password" : "login-name")
        : arg === "claim" ? "claim-password" : arg === "password" ? "old-password"
          : { login: "show-login", claim: "show-claim", password: "show-password" }[was];
      document.getElementById(focus || "my-profile")?.focus();
    },
    logout: async () => {
      await logout(false);
      S.account = { note: t("logged_out"), msg: null, loginName: S.guest ? S.guest.name : "" };
      app.playerChanged(null);
      document.getElementById("guest-name")?.focus();
    },
    "logout-all": async () => {
      if (!confirm(t("logout_all_confirm"))) return;
      const name = S.guest ? S.guest.name : "";
      try {
        await logout(true);
      } catch (e) {
        app.accountMsg(app.errorText(e));
        return;
      }
      S.account = { note: t("logged_out_all"), msg: null, loginName: name };
      app.playerChanged(null);
      document.getElementById("guest-name")?.focus();
    },
  };
}

/** The table: seats, the creator's controls, the dialogs, declaring, discarding, claiming.
 *  @param {App} app
 *  @returns {Record<string, Command>} */
export function tableCommands(app) {
  const { render } = app;
  return {
    sit: async (arg) => {
      /** @type {{seat: number, code?: string}} */
      const body = { seat: Number(arg) };
      if (S.code) body.code = S.code; // a private table's seats take its invite code
      await app.run(() => api("POST", `/api/tables/${S.tableId}/sit`, body));
    },
    leave: () => app.run(() => api("POST", `/api/tables/${S.tableId}/leave`)),
    bots: () => app.run(() => api("POST", `/api/tables/${S.tableId}/bots`)),
    start: () => app.run(() => api("POST", `/api/tables/${S.tableId}/start`)),
    close: async () => { // the creator closes his open table or stops his table of bots only
      const tid = S.tableId;
      if (!confirm(t("close_confirm"))) return;
      const tb = await app.run(() => api("POST", `/api/tables/${tid}/close`));
      if (tb && S.tableId === tid) app.applySummary(tb);
    },
    copy: async () => {
      const input = /** @type {HTMLInputElement} */ (document.getElementById("invite-link"));
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand?.("copy"); }
      app.toast(t("copied"));
    },
    sheet: () => { S.ui.sheet = !S.ui.sheet; S.ui.lastTrick = false; render(); },
    lasttrick: () => { S.ui.lastTrick = !S.ui.lastTrick; S.ui.sheet = false; render(); },
    "close-dialog": (arg, el, ev) => {
      if (el.classList.contains("overlay") && ev.target !== el) return;
      S.ui.sheet = false; S.ui.lastTrick = false; render();
    },
    "close-match": () => { S.ui.matchDismissed = true; render(); },
    "dismiss-result": () => { S.ui.resultDismissed = S.view.round_index - 1; render(); },
    declare: () => {
      const v = S.view;
      const groups = declareGroups(fullDeclare(v));
      const chosen = [.../** @type {NodeListOf<HTMLInputElement>} */ (app.root().querySelectorAll("[data-decl]"))].filter((i) => i.checked).map((i) => groups[Number(i.dataset.decl)]);
      S.ui.declAnswered = declKey(v);
      if (!chosen.length) { render(); return; }
      const want = chosen.map((g) => [...g].sort().join(" ")).sort().join(";");
      const tok = v.legal.filter((a) => a.startsWith("declare ")).find((a) =>
        declareGroups(a).map((g) => [...g].sort().join(" ")).sort().join(";") === want);
      if (tok) app.act(tok);
      else render();
    },
    "declare-none": () => { S.ui.declAnswered = declKey(S.view); render(); },
    "decl-open": (arg) => { S.ui.declOpen = [...S.ui.declOpen, Number(arg)]; render(); }, // a folded declaration's cards
    "decl-close": (arg) => { S.ui.declOpen = S.ui.declOpen.filter((s) => s !== Number(arg)); render(); },
    discard: () => {
      const [a, b] = S.ui.discardSel;
      const tok = S.view.legal.find((x) => x === `discard ${a} ${b}` || x === `discard ${b} ${a}`);
      if (tok) app.act(tok);
    },
    claim: () => { // asked in the page: a dialog of its own (renderClaimDialog)
      S.ui.claimAsk = true; render(); document.getElementById("claim-no")?.focus();
    },
    "claim-no": (arg, el, ev) => {
      if (el.classList.contains("overlay") && ev.target !== el) return;
      S.ui.claimAsk = false; render();
    },
    "claim-yes": () => {
      S.ui.claimAsk = false;
      if (S.view && S.view.claim_allowed) app.act(`claim ${S.view.seat}`);
      render();
    },
    download: () => app.run(app.downloadRecord),
    hint: async () => { await app.run(() => loadHint(S)); render(); }, // issue 13: unrated tables with bots
  };
}
