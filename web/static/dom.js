/* warref: the two helpers every page uses. Plain JS, no build step. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;     // CSSOM: allowed by the CSP, unlike a style attribute
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};

/* "How to play" a game, for a child of ten: the sheet each game declares (referee: how_to_play, words),
   from /api/catalog, in a dialog. The dashboard's set-up and live screen and every room page open it. */
let howToCatalog = null;
async function showHowTo(gameId) {
  if (!howToCatalog) {
    const r = await fetch("/api/catalog", { headers: { Accept: "application/json" } });
    if (!r.ok) throw new Error(typeof t === "function" ? t("The rules could not be loaded: try again.") : "The rules could not be loaded: try again.");
    howToCatalog = await r.json();
  }
  const g = howToCatalog.find((x) => x.id === gameId);
  if (!g) return;
  // a page that speaks other languages (web/static/i18n.js) has t(); the others say it in English
  const tr = typeof t === "function" ? t : (s, v) => String(s).replace(/\{(\w+)\}/g, (w, k) => (v && k in v ? v[k] : w));
  const counts = g.player_counts || [];
  const players = counts.length > 1 && counts[counts.length - 1] - counts[0] === counts.length - 1
    ? tr("{low} to {high} players", { low: counts[0], high: counts[counts.length - 1] })
    : counts.length > 1 ? tr("{some} or {last} players", { some: counts.slice(0, -1).join(", "), last: counts[counts.length - 1] })
      : tr("{low} players", { low: counts[0] });
  let d = document.getElementById("howto");
  if (!d) {
    d = el("dialog", { id: "howto", class: "howto", "aria-labelledby": "howto-title" });
    document.body.append(d);
  }
  const words = Object.entries(g.words || {});
  d.replaceChildren(
    el("h2", { id: "howto-title", text: tr("How to play {game}", { game: tr(g.name) }) }),
    el("p", { class: "howto-players", text: players }),
    el("ol", { class: "howto-steps" }, ...(g.how_to_play || []).map((s) => el("li", { text: tr(s) }))),
    words.length ? el("h3", { text: tr("The game's words") }) : null,
    words.length ? el("dl", { class: "howto-words" }, ...words.flatMap(([w, m]) => [el("dt", { text: tr(w) }), el("dd", { text: tr(m) })])) : null,
    el("form", { method: "dialog" }, el("button", { type: "submit", class: "big-btn", id: "howto-close" }, tr("Got it"))));
  d.showModal();
}
