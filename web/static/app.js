/* warref dashboard. Plain JS, no build step, nothing fetched from the internet.
   The contract with the server is docs/dashboard-api.md. */
"use strict";

// $ and el come from dom.js; t, tn, msg, said and the language (I18N) from i18n.js

const PALETTE = ["#e4572e", "#2563eb", "#16a34a", "#9333ea", "#f59e0b", "#0891b2", "#db2777"];

const S = {
  view: null,            // the current game's view
  clock: null,           // last clock from the server
  clockAt: 0,            // performance.now() (ms) when it arrived
  catalog: [],
  setupGame: null,
  setupPlayers: [],
  log: [],               // rulings seen in this session (for corrections)
  downCount: 1,
  started: false,
  announcedTimeUp: false,
  seen: new Set(),       // rulings already shown/spoken (POST answer and WebSocket push both carry them)
  pushed: 0,             // views pushed over the WebSocket so far (fetchState: an answer they overtook is older)
};

/* ------------------------------------------------------------------ speech */
window.__spoken = [];
let speechOn = localStorage.getItem("warref-speech") !== "off";
function speak(text) {
  if (!text) return;
  window.__spoken.push(text);
  window.__spokenLang = SPEECH_LANG[I18N.lang] || "en";             // the tests read it
  if (!S.started || !speechOn || !("speechSynthesis" in window)) return;
  try {
    const u = new SpeechSynthesisUtterance(text);
    u.rate = 0.95; u.lang = SPEECH_LANG[I18N.lang] || "en";      // pt-PT with a Portuguese voice where the device has one
    const voice = I18N.lang === "en" ? null : voiceFor(I18N.lang);
    if (voice) u.voice = voice;
    window.speechSynthesis.speak(u);
  } catch (err) { /* no voice: the banner still shows it */ }
}

/* ------------------------------------------------------------------ toast / errors */
let toastTimer = null;
function toast(msg) {
  const t = $("#toast");
  t.textContent = msg; t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 3500);
}
function showError(where, msg) {
  const box = $(where);
  if (!box) return toast(msg);
  box.textContent = msg; box.hidden = !msg;
}

/* ------------------------------------------------------------------ PIN and requests */
const PIN_KEY = "warref-pin";
let pinWaiter = null;
function askPin(message) {
  $("#pin-msg").textContent = message || t("Only the table can change the game. The PIN is on the server's screen.");
  $("#pin-input").value = "";
  $("#pin-dialog").hidden = false;
  setTimeout(() => $("#pin-input").focus(), 30);
  return new Promise((resolve) => { pinWaiter = resolve; });
}
function closePin(value) {
  $("#pin-dialog").hidden = true;
  const w = pinWaiter; pinWaiter = null;
  if (w) w(value);
}
$("#pin-form").addEventListener("submit", (e) => { e.preventDefault(); closePin($("#pin-input").value.trim() || null); });
$("#pin-cancel").addEventListener("click", () => closePin(null));
/* Pairing (docs/dashboard-api.md, "Who may change the game"): the PIN is given once, to POST
   /api/pair, which answers with an HttpOnly cookie; the page keeps only a flag that it is paired. */
const PAIRED_KEY = "warref-paired";
localStorage.removeItem(PIN_KEY);               // pages from before pairing kept the PIN itself
function isPaired() { return !!localStorage.getItem(PAIRED_KEY); }
function updatePinBadge() {
  const has = isPaired();
  const b = $("#badge-pin");
  b.textContent = has ? t("Referee ✓") : t("Watching (PIN?)");
  b.classList.toggle("ok", has);
  document.body.classList.toggle("readonly", !has);
}
/* Ask for the PIN and pair this screen; true when paired. A lockout's sentence is shown in the dialog. */
async function pairScreen(message) {
  await I18N.ready;                               // tapped while the page loads: the dialog speaks the device's language
  let why = message;
  for (;;) {
    const pin = await askPin(why);
    if (!pin) return false;
    const r = await fetch("/api/pair", { method: "POST", headers: { "Content-Type": "application/json", "X-Warref-Pin": pin },
                                         body: JSON.stringify({ name: (navigator.userAgent.match(/\(([^;)]+)/) || [, "A screen"])[1].slice(0, 40) }) });
    let data = null;
    try { data = await r.json(); } catch (e) { /* empty */ }
    if (r.ok) { localStorage.setItem(PAIRED_KEY, "1"); updatePinBadge(); return true; }
    why = r.status === 401 ? wrongPin(data) : detailText(data, r.status);
  }
}
/* A wrong PIN: the page's own sentence, with the wait the server's 401 adds after several (its detail_msg's). */
function wrongPin(data) {
  const wait = data && data.detail_msg && data.detail_msg.args ? data.detail_msg.args.wait : null;
  return wait ? t("That PIN did not work. Wait {wait} before trying again (it is on the server's screen).", { wait: msg(wait, false) })
    : t("That PIN did not work. Try again (it is on the server's screen).");
}
async function showDevices() {
  const list = $("#devices-list");
  list.textContent = "";
  let data;
  try { data = await getJSON("/api/devices"); } catch (e) {
    if (e.status === 401) { localStorage.removeItem(PAIRED_KEY); updatePinBadge(); return; }
    list.append(el("li", {}, e.message));
  }
  for (const d of (data && data.devices) || []) {
    const seen = new Date(d.last_seen * 1000).toLocaleString();
    const drop = el("button", { type: "button", class: "secondary" }, d.this ? t("Unpair this screen") : t("Unpair"));
    drop.addEventListener("click", async () => {
      const r = await fetch(`/api/devices/${d.id}`, { method: "DELETE" });
      if (d.this || r.status === 401) { localStorage.removeItem(PAIRED_KEY); updatePinBadge(); $("#devices-dialog").hidden = true; return; }
      showDevices();
    });
    list.append(el("li", {}, el("span", {}, d.this ? t("{name} (this screen), last seen {when}", { name: d.name, when: seen })
      : t("{name}, last seen {when}", { name: d.name, when: seen })), drop));
  }
  $("#devices-dialog").hidden = false;
}
$("#devices-close").addEventListener("click", () => { $("#devices-dialog").hidden = true; });
$("#badge-pin").addEventListener("click", async () => {
  if (isPaired()) await showDevices();
  else await pairScreen();
  updatePinBadge();
});

class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}
function detailText(body, status) {
  if (body && body.detail_msg && I18N.lang !== "en") return msg(body.detail_msg);     // the referee's sentence, in this language
  if (!body) return t("The server answered {status}.", { status });
  const d = body.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg || JSON.stringify(x)).join(" ");
  return t("The server answered {status}.", { status });
}
async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) throw new ApiError(r.status, detailText(body, r.status));
  return body;
}
/* A change: needs this screen paired. Pairs it the first time and again after a 401 (unpaired
   elsewhere). null = the user gave up. A Blob or File body (a photo) goes as it is, with its own
   type; anything else as JSON. */
async function change(url, body, method = "POST") {
  if (!isPaired() && !(await pairScreen())) return null;
  const id = method === "POST" && ID_PATHS.has(url) && !(body instanceof Blob) ? newId() : null;
  if (id) body = { ...(body || {}), id };
  for (let attempt = 0; attempt < 4; attempt++) {
    const raw = body instanceof Blob;
    const r = await fetchRetrying(url, {
      method,
      headers: { "Content-Type": raw ? (body.type || "application/octet-stream") : "application/json" },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    }, !!id);
    let data = null;
    try { data = await r.json(); } catch (e) { /* empty */ }
    if (r.status === 401) {
      localStorage.removeItem(PAIRED_KEY); updatePinBadge();
      if (!(await pairScreen(t("This screen is not paired (any more). Give the table's PIN to pair it.")))) return null;
      continue;
    }
    if (!r.ok) throw new ApiError(r.status, detailText(data, r.status));
    return data;
  }
  return null;
}

/* Ids (docs/dashboard-api.md, "Ids"): each change to the game carries one, made here, and when no
   answer comes back (a network error: the change may or may not have been applied) it is sent again
   with the same id, so the server answers it again instead of applying it twice. */
const ID_PATHS = new Set(["/api/events", "/api/undo", "/api/corrections", "/api/clock", "/api/games"]);
const RETRY_MS = [300, 800, 2000];
function newId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();     // https and localhost only
  const b = new Uint8Array(16);
  if (window.crypto && crypto.getRandomValues) crypto.getRandomValues(b);
  else for (let i = 0; i < b.length; i++) b[i] = Math.floor(Math.random() * 256);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
async function fetchRetrying(url, init, retry) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (!retry || attempt >= RETRY_MS.length) {
        throw new ApiError(0, t("The server did not answer. Check that this screen is on the table's network, then try again."));
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[attempt]));
    }
  }
}

/* ------------------------------------------------------------------ cards */
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
/* How a card code looks: from the game's own keypad when the view has one (a Woolly 8G is a green 8),
   else as a standard card (8S: 8♠). */
function cardFace(code, panel) {
  const c = String(code || "").toUpperCase().replace(/\s+/g, "");
  const p = panel || S.view?.entry?.cards;
  if (p) {
    const special = p.specials.find((s) => s.code === c);
    if (special) return { text: t(special.label), red: false, label: t(special.label) };
    const got = splitCode(c, p);
    if (got && got.key) {
      const mark = got.mark ? p.marks.find((m) => m.code === got.mark) : null;
      return { text: got.key.label + (mark?.symbol || ""), red: mark?.ink === "#b91c1c", colour: mark?.colour || null,
               label: `${got.key.label}${mark ? " " + mark.name : ""}` };
    }
  }
  if (c === "JOKER") return { text: "★J", red: false, label: t("joker") };
  if (c === "BACK") return { text: "▒", red: false, label: t("face down") };
  const m = c.match(/^(10|[2-9AJQKT])([SHDC])$/);
  if (m) return { text: (m[1] === "T" ? "10" : m[1]) + SUITS[m[2]], red: m[2] === "H" || m[2] === "D" };
  return { text: c || "?", red: false };
}
function cardEl(code, who, panel) {
  const f = cardFace(code, panel);
  return el("span", { class: "pcard" + (f.red ? " red" : "") + (f.colour ? " tinted" : ""), title: who ? `${who}: ${code}` : code,
    style: f.colour ? `--ink:${f.colour}` : null },
    el("span", { text: f.text }), who ? el("small", { text: who }) : null);
}
/* A code as the keypad's number and mark ("8G": the 8 and green; "10S": the 10 and spades). */
function splitCode(code, p) {
  if (!p) return null;
  const c = String(code || "").toUpperCase();
  let best = null;
  for (const k of p.keys) {
    if (!c.startsWith(k.code)) continue;
    const rest = c.slice(k.code.length);
    if (rest === "" || p.marks.some((m) => m.code === rest)) {
      if (!best || k.code.length > best.key.code.length) best = { key: k, mark: rest || null };
    }
  }
  return best;
}

/* ------------------------------------------------------------------ rulings: every type has its banner and its words */
/* rank: which ruling of an entry takes the banner (the highest; the last of equals); kicker: the
   short line above the sentence; look: the banner's colour. A type not listed here still shows and
   is said (rank 1, no kicker). tests/referee/test_entry.py checks every ruling type of referee/ is here. */
const RULINGS = {
  game_over: { rank: 9, look: "over", kicker: gameOverKicker },
  time_up: { rank: 7, look: "over", kicker: () => t("Time is up") },
  tie: { rank: 7, look: "over", kicker: () => t("Tie: sudden death") },
  fim_de_guerra: { rank: 7, look: "alert", kicker: () => t("Fim de Guerra") },
  guerra_fria: { rank: 7, look: "alert", kicker: () => t("Guerra Fria") },
  confronto: { rank: 6, look: "battle", kicker: (r) => (r.winner ? tn("{who} wins the confronto", "{who} win the confronto", sideSize(r.winner), { who: sideWords(r.winner) }) : t("Nobody scores")) },
  war: { rank: 6, look: "war", kicker: () => t("WAR!") },
  war_card: { rank: 6, look: "war", kicker: () => t("WAR!") },
  battle: { rank: (r) => (r.result === "tie" && !r.war ? 5.5 : 5), look: "battle", kicker: battleKicker },   // a tie asks a question
  called_off: { rank: 5, look: "battle", kicker: () => t("War called off") },
  rodada: { rank: 5, look: "battle", kicker: (r) => (r.winner ? tn("{who} wins the rodada", "{who} win the rodada", sideSize(r.winner), { who: sideWords(r.winner) }) : t("A tied rodada")) },
  out: { rank: 5, look: "out", kicker: () => t("Out!") },
  raise: { rank: 5, look: "alert", kicker: () => t("Ofensiva!") },
  accept: { rank: 4, look: "alert", kicker: (r) => (r.fim_de_guerra ? t("Fim de Guerra accepted") : t("Accepted")) },
  refuse: { rank: 4, look: "alert", kicker: (r) => (r.fim_de_guerra ? t("Fim de Guerra refused") : t("Refused")) },
  roll: { rank: 4, look: "alert", kicker: (r) => t("The die shows {die}", { die: r.die }) },
  call: { rank: 4, look: "alert", kicker: () => t("Troca por sequência") },
  surrender: { rank: 4, look: "money", kicker: () => t("Surrender") },
  action: { rank: 4, look: "action", kicker: (r) => (r.card === "STEAL" ? t("Steal!") : r.card === "REVEAL" ? t("Reveal!") : `${r.card}!`) },
  undo: { rank: 4, look: "", kicker: () => t("Undone") },
  timeout: { rank: 4, look: "alert", kicker: () => t("Time ran out") },
  bet: { rank: 3, look: "money", kicker: (r) => t("{seat} bets", { seat: r.seat }) },
  abstain: { rank: 3, look: "", kicker: () => t("Abstenção") },
  cut: { rank: 3, look: "", kicker: () => t("The cut") },
  score: { rank: 3, look: "", kicker: () => t("Score") },
  recount: { rank: 3, look: "", kicker: () => t("Recount") },
  short: { rank: 3, look: "", kicker: () => t("Short of cards") },
  turn_over: { rank: 2, look: "", kicker: () => t("New stack") },
  reshuffle: { rank: 2, look: "", kicker: () => t("New playing pile") },
  down: { rank: 2, look: "", kicker: () => t("Face down") },
  flip: { rank: 2, look: "", kicker: () => (S.view?.game === "guerra" ? t("Card played") : t("Card turned up")) },
  restored: { rank: 1, look: "", kicker: () => t("Restored") },
};
const QUIET = new Set(["prompt", "error"]);       // the prompt has its own line; errors their own box
/* A side as a ruling names it ("Alex and Sam": the referee's English list) in the page's language,
   and how many it is (one player wins, two win). */
function sideWords(side) { return I18N.lang === "en" ? String(side) : msg({ names: String(side).split(/, | and /) }); }
function sideSize(side) { return String(side).split(/, | and /).length; }
function gameOverKicker(r) {
  const ws = r.winners || [];
  if (r.winner) return tn("★ {who} wins the game! ★", "★ {who} win the game! ★", sideSize(r.winner), { who: sideWords(r.winner) });
  if (ws.length > 1) return t("★ {who} share the win ★", { who: msg({ names: ws }) });
  if (r.reason === "broke") return t("The house wins the game");
  return r.reason === "draw" ? t("The game is a draw") : t("Game over");
}
function battleKicker(r) {
  if (r.winner) return t("{who} wins the battle", { who: r.winner });
  if (r.result === "win") return t("{seat} wins the round", { seat: r.seat });
  if (r.result === "loss") return t("The dealer beats {seat}", { seat: r.seat });
  if (r.result === "tie") return r.war ? t("{seat} ties in the war", { seat: r.seat }) : t("{seat} ties the dealer", { seat: r.seat });
  return t("Battle");
}
function rulingInfo(r) { return RULINGS[r.type] || { rank: 1, look: "", kicker: "" }; }
function rankOf(r) { const k = rulingInfo(r).rank; return typeof k === "function" ? k(r) : k; }
function kickerOf(r) { const k = rulingInfo(r).kicker; return typeof k === "function" ? k(r) : k || ""; }
function playerColour(name) {
  const p = (S.view?.players || []).find((x) => x.name.toLowerCase() === String(name).toLowerCase());
  return p?.colour || "#888";
}

/* what the banner says while the table waits for a game's first move */
function firstWait(game) {
  if (game === "guerra") return t("Waiting for the first confronto…");
  return game === "casino" ? t("Waiting for the first round…") : t("Waiting for the first battle…");
}

/* Big words shrink to fit rather than break: a 24-letter name in the banner on a phone is told whole,
   a little smaller (the page's overflow-wrap stays the last resort). */
function fitText(node, min = 12) {
  node.style.fontSize = "";
  node.style.overflowWrap = "normal";
  let size = parseFloat(getComputedStyle(node).fontSize);
  while (node.clientWidth && node.scrollWidth > node.clientWidth + 1 && size > min) {
    size *= 0.9;
    node.style.fontSize = `${size}px`;
  }
  node.style.overflowWrap = "";
}
addEventListener("resize", () => { for (const id of ["#banner-kicker", "#banner-text"]) fitText($(id)); });

/* The banner: the most important ruling of the entry, big; the others under it, small. The winner of
   a battle is told in their colour; the winner of the game in gold, with stars. */
function bannerFrom(ruling, fixed, others) {
  const b = $("#banner");
  const info = rulingInfo(ruling);
  b.className = "banner";
  let kicker = kickerOf(ruling);
  if (fixed) { b.classList.add("fixed"); kicker = t("Corrected"); }
  else if (info.look) b.classList.add(info.look);
  b.dataset.kind = fixed ? "fixed" : ruling.type;
  const winner = ruling.type === "battle" ? (ruling.winner || (ruling.result === "win" ? ruling.seat : null))
    : ruling.type === "game_over" ? ruling.winner : null;
  $("#banner-kicker").textContent = kicker;
  $("#banner-text").textContent = said(ruling.text, ruling.msg);
  fitText($("#banner-kicker"));
  fitText($("#banner-text"));
  $("#banner-more").replaceChildren(...(others || []).filter((r) => r !== ruling && r.text)
    .map((r) => el("li", { text: said(r.text, r.msg) })));
  if (winner && ruling.type === "battle") b.style.setProperty("border-color", playerColour(winner));
  else b.style.removeProperty("border-color");
  if (winner && ruling.type === "battle") b.style.setProperty("--win", playerColour(winner)); else b.style.removeProperty("--win");
  markWinners(ruling);
}
/* The players' tiles: the battle's winner glows for a moment; the game's winners wear the trophy. */
let glowTimer = null;
function markWinners(ruling) {
  for (const li of document.querySelectorAll("#players .player.won")) li.classList.remove("won");
  const seat = ruling.type === "battle" ? (ruling.winner || (ruling.result === "win" ? ruling.seat : null)) : null;
  if (!seat) return;
  const li = [...document.querySelectorAll("#players .player")].find((x) => x.dataset.player === seat);
  if (li) { li.classList.add("won"); clearTimeout(glowTimer); glowTimer = setTimeout(() => li.classList.remove("won"), 2500); }
}
function headline(rulings) {
  let best = null;
  for (const r of rulings || []) {
    if (QUIET.has(r.type) || !r.text) continue;
    if (!best || rankOf(r) >= rankOf(best)) best = r;
  }
  return best;
}

/* ------------------------------------------------------------------ live screen */
function renderLive() {
  const v = S.view;
  const hasGame = !!(v && v.game);
  $("#no-game").hidden = hasGame;
  $("#live-body").hidden = !hasGame;
  $("#game-name").textContent = hasGame ? t(v.name) : "warref";
  placeCameraPanel(hasGame);
  if (!hasGame) return;
  const waiting = new Set((v.prompt?.waiting || []).map((s) => s.toLowerCase()));
  const winners = new Set(v.over ? (v.result?.winners || []) : []);
  const unit = v.entry?.unit || (v.game === "casino" ? "chips" : "cards");
  const ul = $("#players");
  const glowing = [...ul.querySelectorAll(".player.won")].map((x) => x.dataset.player);
  ul.replaceChildren();
  for (const p of v.players) {
    const wait = waiting.has(p.name.toLowerCase()) && !v.over;
    const champ = winners.has(p.name);
    ul.append(el("li", { class: "player" + (p.out ? " out" : "") + (wait ? " waiting" : "") + (champ ? " champion" : "")
        + (glowing.includes(p.name) ? " won" : ""), style: `--pc:${p.colour || "#888"}`, "data-player": p.name },
      el("div", { class: "pname", title: p.name }, el("span", { text: p.name }), champ ? el("span", { class: "trophy", text: " ★", "aria-label": t("winner") }) : null),
      el("div", {}, el("span", { class: "pcount", text: String(p.count) }), " ",
        el("span", { class: "punit", text: unitWords(unit, p.count) })),
      wait ? el("div", { class: "pturn", text: t("your turn") }) : null));
  }
  $("#pile").textContent = v.pile ?? 0;
  $("#pile-unit").textContent = tn("card", "cards", v.pile ?? 0);
  $("#pile-row").hidden = v.entry ? !v.entry.middle : false;
  $("#prompt").textContent = v.over ? t("The game is over. Tap New game to play again.") : said(v.prompt?.text, v.prompt?.msg);
  renderScoreline(v);
  const sheet = $("#rule-sheet-live"); sheet.replaceChildren(...ruleLines(v).map((line) => el("li", { text: line })));
  renderEntry();
}
/* What a player's count counts ("cards", "chips", "in hand": view.entry.unit) in the page's language. */
function unitWords(unit, n) { return unit === "cards" ? tn("card", "cards", n) : t(unit); }
/* The rules in force, a line per option: as the server wrote them in English, else from their parts
   (view.rule_sheet_parts) in the page's language, as Option.describe puts them together. */
function ruleLines(v) {
  if (I18N.lang === "en" || !v.rule_sheet_parts) return v.rule_sheet || [];
  return v.rule_sheet_parts.map((p) => `${t(p.label)}: ${t(String(p.value))}${p.choice ? ` (${t(p.choice)})` : ""}. ${t(p.help)}`);
}
/* Games scored in points (Guerra): the score and what the hand in play is worth. */
function renderScoreline(v) {
  const box = $("#scoreline"), score = v.prompt?.score;
  box.hidden = !score || typeof score !== "object";
  if (box.hidden) return;
  const parts = Object.entries(score).map(([side, pts]) => el("span", { class: "side" }, el("b", { text: String(pts) }), ` ${sideWords(side)}`));
  const worth = v.prompt.value && !v.over ? el("span", { class: "worth", text: t("this confronto is worth {n}", { n: v.prompt.value }) }) : null;
  box.replaceChildren(...parts, worth);
}

/* ------------------------------------------------------------------ entering by taps: drawn from the game's declaration
   view.entry (referee/entry.py) lists the card keys and the actions with their fields; view.entry_now
   says what each seat may do now (null) or why not, which choices the referee would take, and the
   cards that can't be turned up now. Nothing here knows a game by name. */
const E = { sheet: null, more: false };
function entryNow() { return S.view?.entry_now || { order: [], turn: [], can: {}, combos: {}, cards: {} }; }
function cardCode() { return $("#card-input").value.trim().toUpperCase().replace(/\s+/g, ""); }
function setCard(code) { $("#card-input").value = code; showError("#entry-error", ""); renderKeypad(); renderSeats(); }

function renderEntry() {
  const v = S.view; if (!v || !v.game || !v.entry) return;
  $("#entry").classList.toggle("over", !!v.over);
  $("#entry-over").hidden = !v.over;
  renderKeypad();
  renderSeats();
  const seats = v.players.map((p) => p.name).concat(v.entry.extra_seats || []);
  const fs = $("#fix-seat");
  if (fs.dataset.key !== seats.join("|")) { fs.dataset.key = seats.join("|"); fs.replaceChildren(...seats.map((s) => el("option", { value: s, text: s }))); }
}

function renderKeypad() {
  const p = S.view?.entry?.cards; if (!p) return;
  const barred = entryNow().cards || {};
  const code = cardCode();
  const got = splitCode(code, p);
  const keyBtn = (k, cls) => {
    const why = barred[k.code];
    return el("button", { type: "button", class: cls + (got?.key?.code === k.code || code === k.code ? " sel" : "") + (why ? " off" : ""),
      "data-key": k.code, "aria-pressed": String(got?.key?.code === k.code || code === k.code), "aria-disabled": why ? "true" : null,
      title: whyWords(why) || t(k.sub) || null, onclick: () => (why ? showError("#entry-error", whyWords(why)) : setCard(k.code)) },
      el("span", { text: t(k.label) }), k.sub ? el("small", { text: t(k.sub) }) : null);
  };
  $("#card-keys").replaceChildren(...p.keys.map((k) => keyBtn(k, "key")));
  const marks = $("#mark-keys");
  marks.hidden = !p.marks.length;
  marks.replaceChildren(el("span", { class: "keys-lbl", text: p.mark_kind === "suit" ? t("Suit (if you like)") : p.mark_kind === "colour" ? t("Colour (if you like)") : t("Mark") }),
    ...p.marks.map((m) => {
      const full = got?.key ? got.key.code + m.code : null;
      const why = full ? barred[full] : null;
      return el("button", { type: "button", class: "mark" + (got?.mark === m.code ? " sel" : "") + (why ? " off" : "") + (m.colour ? " swatch" : ""),
        "data-mark": m.code, "aria-label": t(m.name), "aria-pressed": String(got?.mark === m.code), "aria-disabled": why ? "true" : null,
        title: whyWords(why) || t(m.name), style: m.colour ? `--sw:${m.colour}` : m.ink ? `color:${m.ink}` : null,
        onclick: () => {
          if (why) { showError("#entry-error", whyWords(why)); return; }
          if (!got?.key) { showError("#entry-error", p.mark_kind === "colour" ? t("Tap the number first, then the colour.") : t("Tap the number first, then the suit.")); return; }
          setCard(got.key.code + m.code);
        } }, m.symbol || m.name);
    }));
  const specials = $("#special-keys");
  specials.hidden = !p.specials.length;
  specials.replaceChildren(...p.specials.map((s) => keyBtn(s, "special")));
  const f = cardFace(code);
  $("#card-show").textContent = code ? f.text : "";
  $("#card-show").classList.toggle("red", !!f.red);
  if (f.colour) $("#card-show").style.setProperty("--ink", f.colour); else $("#card-show").style.removeProperty("--ink");
  $("#card-input").placeholder = p.keys.length ? p.keys[Math.min(6, p.keys.length - 1)].code + (p.marks[0]?.code || "") : "";
  fitCardInput(p);
}

/* The card box is wide enough for the deck's longest card (Namikopy's FLAMINGO), measured in the box's own
   font: a name cut off in the box reads as another card. */
function fitCardInput(p) {
  const longest = (xs) => xs.reduce((a, x) => (x.code.length > a.length ? x.code : a), "");
  const want = [...p.specials.map((s) => s.code), longest(p.keys) + longest(p.marks)]
    .reduce((a, c) => (c.length > a.length ? c : a), "");
  const i = $("#card-input");
  if (i.dataset.fits === want || !i.offsetParent) return;        // measured already, or not shown yet
  const typed = i.value;
  i.style.width = ""; i.value = want;
  const short = i.scrollWidth - i.clientWidth;
  if (short > 0) i.style.width = `${i.offsetWidth + short + 4}px`;
  i.value = typed; i.dataset.fits = want;
}

/* A seat's name as the page shows it: a player's as it is, the game's own seat (Casino War's Dealer) in
   the page's language. */
function seatWords(seat) { return (S.view?.entry?.extra_seats || []).includes(seat) ? t(seat) : seat; }
function actionsFor(seat) {
  const entry = S.view.entry, extra = (entry.extra_seats || []).includes(seat);
  return entry.actions.filter((a) => (extra ? a.who !== "players" : a.who !== "extra"));
}
/* The largest count the referee takes now (face-down cards: one tap lays them all). */
function bestCount(seat, a) {
  const tried = entryNow().combos?.[seat]?.[a.id];
  if (!tried) return 1;
  let best = 0;
  for (const [k, why] of Object.entries(tried)) {
    if (why !== null) continue;
    const vals = JSON.parse(k);
    a.fields.forEach((f, i) => { if (f.kind === "count") best = Math.max(best, Number(vals[i])); });
  }
  return best || 1;
}
function asks(a) { return a.fields.filter((f) => !["fixed", "card", "count"].includes(f.kind)); }

function renderSeats() {
  const v = S.view, entry = v?.entry; if (!entry) return;
  const now = entryNow(), turn = new Set(now.turn || []);
  // an open choice goes when its action can no longer be taken (another screen entered something)
  if (E.sheet && (v.over || (now.can?.[E.sheet.seat] || {})[E.sheet.id] !== null)) E.sheet = null;
  const order = (now.order && now.order.length) ? now.order : v.players.map((p) => p.name).concat(entry.extra_seats || []);
  const code = cardCode();
  const rows = order.map((seat) => {
    const player = v.players.find((x) => x.name === seat);
    const colour = player ? player.colour : "#334155";
    const can = now.can?.[seat] || {};
    const out = player?.out;
    const row = el("div", { class: "seat-row" + (turn.has(seat) && !v.over ? " turn" : "") + (out ? " out" : ""), "data-seat-row": seat, style: `--pc:${colour}` },
      el("div", { class: "seat-name" }, el("span", { class: "dot", "aria-hidden": "true" }), el("span", { text: seatWords(seat), title: seatWords(seat) }),
        turn.has(seat) && !v.over ? el("span", { class: "turn-badge", text: t("now") }) : null, out ? el("span", { class: "out-badge", text: t("out") }) : null));
    if (out) return row;
    const acts = el("div", { class: "seat-acts" });
    for (const a of actionsFor(seat)) {
      if (a.more && !E.more) continue;
      const why = whyWords(a.id in can ? can[a.id] : "Not now.");
      let label = t(a.label);
      if (a.fields.some((f) => f.kind === "card") && code && !why) label = `${label} ${cardFace(code).text}`;
      if (a.fields.some((f) => f.kind === "count") && !why) label = `${label} ×${bestCount(seat, a)}`;
      const attrs = { type: "button", class: "act" + (why ? " off" : " on") + (a.more ? " more" : ""), "data-act": a.id, "data-seat": seat,
        "aria-disabled": why ? "true" : null, "data-why": why || null, title: why || t(a.help) || null,
        "aria-label": why ? t("{seat}: {label} (not now: {why})", { seat: seatWords(seat), label, why }) : `${seatWords(seat)}: ${label}`, onclick: () => tapAction(seat, a) };
      if (a.type === "flip") attrs["data-flip"] = seat;          // the names tests/web/test_browser.py taps
      if (a.type === "down") attrs["data-down"] = seat;
      acts.append(el("button", attrs, label));
    }
    row.append(acts);
    if (E.sheet && E.sheet.seat === seat) row.append(renderSheet());
    return row;
  });
  $("#seat-rows").replaceChildren(...rows);
}

function tapAction(seat, a) {
  const why = entryNow().can?.[seat]?.[a.id];
  if (why) { showError("#entry-error", whyWords(why)); return; }
  showError("#entry-error", "");
  if (a.fields.some((f) => f.kind === "card") && !cardCode()) {
    const hint = S.view.entry.cards.hint;
    showError("#entry-error", hint ? t("Tap the card first ({hint}).", { hint: t(hint) }) : t("Tap the card first."));
    return;
  }
  if (!asks(a).length) { sendAction(seat, a, {}); return; }
  E.sheet = { seat, id: a.id, picks: {}, nums: {} };
  for (const f of asks(a)) {
    if (f.kind === "number") E.sheet.nums[f.name] = f.default === "count" ? (S.view.players.find((p) => p.name === seat)?.count ?? 0) : (f.default ?? "");
    if (f.kind === "text") E.sheet.nums[f.name] = "";
  }
  preselect(seat, a);
  renderSeats();
}
function sheetAction() { return E.sheet ? S.view?.entry?.actions.find((a) => a.id === E.sheet.id) : null; }
function closeSheet() { E.sheet = null; renderSeats(); }
/* The choices of a field: the other seats, or the declared values. */
function choicesOf(f, seat) {
  if (f.kind === "seat") return S.view.players.filter((p) => p.name !== seat).map((p) => ({ value: p.name, label: p.name, colour: p.colour }));
  return (f.choices || []).map((c) => ({ ...c, label: t(String(c.label)) }));
}
/* Whether the referee takes this value of field i with the picks so far (and why not). */
function valueWhy(seat, a, i, value) {
  const tried = entryNow().combos?.[seat]?.[a.id];
  if (!tried) return null;
  let why = t("Not now.");
  for (const [k, w] of Object.entries(tried)) {
    const vals = JSON.parse(k);
    if (String(vals[i]) !== String(value)) continue;
    const fits = a.fields.every((f, j) => j === i || f.kind === "fixed" || f.kind === "count" || !(f.name in E.sheet.picks) || String(vals[j]) === String(E.sheet.picks[f.name]));
    if (!fits) continue;
    if (w === null) return null;
    why = whyWords(w);
  }
  return why;
}
/* A field with only one value the referee takes is chosen already. */
function preselect(seat, a) {
  a.fields.forEach((f, i) => {
    if (!["seat", "choice", "run"].includes(f.kind) || f.name in E.sheet.picks) return;
    const ok = choicesOf(f, seat).filter((c) => valueWhy(seat, a, i, c.value) === null);
    if (ok.length === 1) E.sheet.picks[f.name] = ok[0].value;
  });
}
function renderSheet() {
  const a = sheetAction(), seat = E.sheet.seat;
  const box = el("div", { class: "sheet", "data-sheet": a.id, role: "group", "aria-label": `${seatWords(seat)}: ${t(a.label)}` },
    el("div", { class: "sheet-head" }, el("b", { text: `${seatWords(seat)}: ${t(a.label)}` }), a.help ? el("span", { class: "sheet-help", text: ` — ${t(a.help)}` }) : null,
      el("button", { type: "button", class: "secondary small sheet-close", "aria-label": t("Cancel"), onclick: closeSheet }, "✕")));
  let waitingFor = 0;
  a.fields.forEach((f, i) => {
    if (["seat", "choice", "run"].includes(f.kind)) {
      const picked = E.sheet.picks[f.name];
      if (picked === undefined) waitingFor++;
      box.append(el("div", { class: "sheet-row" }, el("span", { class: "sheet-lbl", text: t(f.label || f.name) }),
        ...choicesOf(f, seat).map((c) => {
          const why = valueWhy(seat, a, i, c.value);
          return el("button", { type: "button", class: "choice-btn" + (String(picked) === String(c.value) ? " sel" : "") + (why ? " off" : ""),
            "data-field": f.name, "data-value": String(c.value), "aria-disabled": why ? "true" : null, title: why || null,
            style: c.colour ? `--pc:${c.colour}` : null,
            onclick: () => pickValue(seat, a, f, c.value, why) }, c.label);
        })));
    } else if (f.kind === "number") {
      const step = (d) => () => { const cur = Number(E.sheet.nums[f.name]) || 0; E.sheet.nums[f.name] = Math.max(f.min ?? 0, cur + d); renderSeats(); };
      const input = el("input", { type: "number", inputmode: "numeric", min: f.min ?? 0, max: f.max ?? null, value: E.sheet.nums[f.name],
        "data-number": f.name, "aria-label": t(f.label), oninput: (e) => { E.sheet.nums[f.name] = e.target.value; } });
      box.append(el("div", { class: "sheet-row" }, el("span", { class: "sheet-lbl", text: f.optional ? t("{label} (if any)", { label: t(f.label) }) : t(f.label) }),
        el("button", { type: "button", class: "secondary small", "aria-label": t("less"), onclick: step(-(f.steps?.[0] || 1)) }, "−"), input,
        ...(f.steps || [1]).map((d) => el("button", { type: "button", class: "secondary small step", "data-step": `${f.name}+${d}`, onclick: step(d) }, `+${d}`))));
    } else if (f.kind === "text") {
      box.append(el("div", { class: "sheet-row" }, el("span", { class: "sheet-lbl", text: t(f.label) }),
        el("input", { value: E.sheet.nums[f.name], "data-text": f.name, oninput: (e) => { E.sheet.nums[f.name] = e.target.value; } })));
    }
  });
  const typed = a.fields.some((f) => f.kind === "number" || f.kind === "text");
  if (typed || waitingFor === 0) {
    box.append(el("div", { class: "sheet-row" }, el("button", { type: "button", class: "send", "data-send": a.id,
      onclick: () => sendAction(seat, a, { ...E.sheet.picks, ...E.sheet.nums }) }, t("Send: {seat} {says}", { seat: seatWords(seat), says: t(a.says || a.label) }))));
  }
  return box;
}
function pickValue(seat, a, f, value, why) {
  if (why) { showError("#entry-error", whyWords(why)); return; }
  showError("#entry-error", "");
  E.sheet.picks[f.name] = value;
  preselect(seat, a);
  const left = a.fields.filter((g) => ["seat", "choice", "run"].includes(g.kind) && !(g.name in E.sheet.picks));
  const typed = a.fields.some((g) => g.kind === "number" || g.kind === "text");
  if (!left.length && !typed) { sendAction(seat, a, { ...E.sheet.picks }); return; }
  renderSeats();
}

async function sendAction(seat, a, values) {
  const ev = { type: a.type, seat };
  const card = cardCode();
  for (const f of a.fields) {
    if (f.kind === "fixed") ev[f.name] = f.value;
    else if (f.kind === "card") ev[f.name] = card;
    else if (f.kind === "count") ev[f.name] = bestCount(seat, a);
    else if (f.kind === "number") {
      const raw = values[f.name];
      if (raw === "" || raw === undefined || raw === null || (f.optional && Number(raw) === 0)) continue;
      ev[f.name] = Number(raw);
    } else if (values[f.name] !== undefined && values[f.name] !== "") ev[f.name] = values[f.name];
  }
  const ok = await sendEvent(ev);
  if (!ok) return false;
  if (E.sheet && E.sheet.seat === seat && E.sheet.id === a.id) E.sheet = null;
  // Clear the card unless the next one was already chosen while this one was on its way.
  if (a.fields.some((f) => f.kind === "card") && cardCode() === card) $("#card-input").value = "";
  renderKeypad(); renderSeats();
  return true;
}

async function sendEvent(event) {
  showError("#entry-error", "");
  try {
    const res = await change("/api/events", event);
    if (!res) return false;
    handleRulings(res.rulings, res.view);
    return true;
  } catch (err) {
    showError("#entry-error", err.message); speak(err.message);
    return false;
  }
}

$("#undo").addEventListener("click", async () => {
  showError("#entry-error", "");
  try {
    const res = await change("/api/undo");
    if (res) handleRulings(res.rulings, res.view);
  } catch (err) { showError("#entry-error", err.message); }
});
function renderMore() { $("#entry-more").textContent = E.more ? t("Fewer") : t("More…"); }
$("#entry-more").addEventListener("click", (e) => {
  E.more = !E.more; e.currentTarget.setAttribute("aria-pressed", String(E.more));
  renderMore();
  renderSeats();
});
$("#card-clear").addEventListener("click", () => setCard(""));
$("#card-input").addEventListener("input", () => { renderKeypad(); renderSeats(); });
$("#card-input").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const flippers = (entryNow().order || []).filter((s) => (entryNow().can?.[s] || {}).flip === null);
  const turn = (entryNow().turn || []).filter((s) => flippers.includes(s));
  const seat = turn.length === 1 ? turn[0] : flippers.length === 1 ? flippers[0] : null;
  const a = S.view?.entry?.actions.find((x) => x.type === "flip");
  if (seat && a) sendAction(seat, a, {});
});
$("#raw-form").addEventListener("submit", (e) => {
  e.preventDefault();
  let ev;
  try { ev = JSON.parse($("#raw-input").value); } catch (err) { showError("#entry-error", t("That is not JSON, like {example}.", { example: '{"type": "recount", "seat": "Alex", "count": 12}' })); return; }
  sendEvent(ev).then((ok) => { if (ok) $("#raw-input").value = ""; });
});

/* Rulings arrive from a POST answer and from the WebSocket push: show and speak each once. */
function rulingKey(r) { return `${S.view?.game_id}|${r.seq}|${r.type}|${r.text}`; }
function handleRulings(rulings, view) {
  const fresh = [];
  for (const r of rulings || []) {
    const k = rulingKey(r);
    if (r.seq !== undefined && S.seen.has(k)) continue;
    if (r.seq !== undefined) S.seen.add(k);
    fresh.push(r);
  }
  if (view) setView(view, true);
  for (const r of fresh) if (r.type !== "prompt" && r.type !== "error") S.log.push(r);
  renderLog();
  const told = fresh.filter((r) => !QUIET.has(r.type) && r.text);
  const head = headline(told);
  if (head) bannerFrom(head, false, told);
  for (const r of told) speak(saidOf(r));
  const pr = fresh.find((r) => r.type === "prompt");
  if (pr && pr.war && pr.phase === "down") speak(saidOf(pr));
  reaskAnswered(fresh);
}

function handleCorrection(changed, view) {
  const key = "fix|" + (view?.log_length ?? "") + "|" + JSON.stringify(changed || []);
  if (S.seen.has(key)) { if (view) setView(view, true, true); return; }
  S.seen.add(key);
  if (view) setView(view, true, true);
  const told = (changed || []).filter((r) => r.text && r.type !== "prompt");
  if (told.length) {
    bannerFrom(told[told.length - 1], true);
    speak(t("Correction. {rulings}", { rulings: told.map(saidOf).join(" ") }));
  } else {
    toast(t("Corrected. No ruling changed."));
    speak(t("Correction. No ruling changed."));
  }
}

/* ------------------------------------------------------------------ view */
/* A view carries only the newest battles, from history_from on (docs/dashboard-api.md, "History
   pages"): keep the older ones this page has when they reach that far (not after a correction,
   which may have changed them); "Show earlier battles" pages back the rest. */
function withHistory(view, freshHistory) {
  const from = view.history_from ?? view.history_start ?? 0;
  let history = view.history || [], start = from;
  const had = S.view && S.view.game_id === view.game_id && S.view.history ? S.view : null;
  if (had && !freshHistory) {
    const hadFrom = had.history_from || 0;
    if (hadFrom < from && hadFrom + had.history.length >= from) {
      history = had.history.slice(0, from - hadFrom).concat(history);
      start = hadFrom;
    }
  }
  const out = { ...view, history, history_from: start };
  delete out.history_start;
  return out;
}
function setView(view, keepBanner, freshHistory) {
  view = withHistory(view, freshHistory);
  const gameChanged = !S.view || S.view.game_id !== view.game_id;
  S.view = view;
  if (gameChanged && Z.gameId !== undefined && Z.gameId !== view.game_id) zonesGameChanged();
  if (gameChanged) { S.clockRan = false; S.log = (view.last || []).filter((r) => r.type !== "prompt"); S.announcedTimeUp = !!view.clock?.time_up; }
  if (view.clock) setClock(view.clock);
  if (!keepBanner || gameChanged) {
    const told = (view.last || []).filter((r) => !QUIET.has(r.type) && r.text);
    const head = headline(told);
    if (head) bannerFrom(head, false, told);
    else if (view.game) {
      $("#banner").className = "banner"; delete $("#banner").dataset.kind; $("#banner-kicker").textContent = ""; $("#banner-more").replaceChildren();
      $("#banner-text").textContent = view.over ? (said(view.result?.text, view.result?.msg) || t("Game over")) : firstWait(view.game);
    }
    for (const r of view.last || []) S.seen.add(rulingKey(r));
  }
  renderLive(); renderHistory(); renderRuleSheet(); renderLog();
}

/* ------------------------------------------------------------------ clock */
function setClock(c) {
  if (!c) return;
  if (c.running) S.clockRan = true;
  S.clock = c; S.clockAt = performance.now();
  tickClock();
}
function remaining() {
  const c = S.clock;
  if (!c || c.remaining_s === null || c.remaining_s === undefined) return null;
  // remaining_s is as of server_time, which is when the message was made; our receipt time stands
  // in for it, so the client's and the server's clocks never need to agree.
  const left = c.running ? c.remaining_s - (performance.now() - S.clockAt) / 1000 : c.remaining_s;
  return Math.max(0, left);
}
function fmt(s) {
  const t = Math.ceil(s);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}
function tickClock() {
  const c = S.clock, disc = $("#clock-disc");
  const left = remaining();
  const length = c?.length_s;
  disc.classList.remove("up", "none");
  const has = left !== null && length;
  $("#clock-box").classList.toggle("unset", !has);
  if (!has) {
    disc.classList.add("none");
    disc.style.setProperty("--frac", 0);
    $("#clock-digits").textContent = "--:--"; $("#clock-label").textContent = t("no clock");
  } else {
    const frac = Math.max(0, Math.min(1, left / length));
    const col = frac > 0.5 ? "#16a34a" : frac > 0.2 ? "#eab308" : "#dc2626";
    disc.style.setProperty("--frac", frac.toFixed(4));
    disc.style.setProperty("--col", col);
    $("#clock-digits").textContent = fmt(left);
    const up = c.time_up || left <= 0;
    const never = !S.clockRan && !c.running && left >= length - 0.5;
    if (up) { disc.classList.add("up"); $("#clock-label").textContent = t("Time is up!"); }
    else $("#clock-label").textContent = c.running ? t("left") : never ? t("not started") : t("paused");
    disc.setAttribute("aria-label", up ? t("Time is up") : never ? t("{time}, not started yet", { time: fmt(left) }) : t("{time} left", { time: fmt(left) }));
    if (up && !S.announcedTimeUp) {
      S.announcedTimeUp = true;
      // The server's time_up ruling follows with the winner; the disc says it at once.
      toast(t("Time is up!"));
    }
    if (!up) S.announcedTimeUp = false;
  }
  // Start before the clock has ever run, Resume after a pause.
  const fresh = !S.clockRan && left >= length - 0.5;
  $("#clock-start").hidden = !(has && !c.running && !c.time_up && fresh);
  $("#clock-resume").hidden = !(has && !c.running && !c.time_up && !fresh);
  $("#clock-pause").hidden = !(has && c.running);
  $("#clock-add").hidden = !has;
}
setInterval(tickClock, 250);
for (const b of document.querySelectorAll("[data-clock]")) {
  b.addEventListener("click", () => clockAction({ action: b.dataset.clock }));
}
$("#clock-set").addEventListener("submit", (e) => {
  e.preventDefault();
  clockAction({ action: "set", minutes: Number($("#clock-set-min").value) || 10 });
});
async function clockAction(body) {
  try {
    const c = await change("/api/clock", body);
    if (c) setClock(c.clock || c);
  } catch (err) { showError("#entry-error", err.message); }
}

/* ------------------------------------------------------------------ setup */
function optionInput(o) {
  const id = `opt-${o.name}`;
  const box = el("div", { class: "opt", "data-option": o.name },
    el("div", { class: "oname", text: t(o.label) }),
    el("div", { class: "ohelp", text: o.help ? t(o.help) : "" }));
  if (o.kind === "choice") {
    for (const c of o.choices || []) {
      const help = o.choice_help && o.choice_help[c];
      box.append(el("label", { class: "choice" },
        el("input", { type: "radio", name: id, value: c, checked: String(o.default) === c }),
        el("span", {}, el("b", { text: t((o.choice_labels || {})[c] || c) }), help ? el("span", { class: "chelp", text: " — " + t(help) }) : null)));
    }
  } else if (o.kind === "bool") {
    box.append(el("label", { class: "choice" }, el("input", { type: "checkbox", id, checked: !!o.default }), el("span", { text: t("on") })));
  } else {
    const off = o.default === null || o.default === undefined;
    const num = el("input", { type: "number", id, min: o.minimum ?? 1, value: off ? "" : o.default, inputmode: "numeric", placeholder: o.can_be_off ? t("off") : "" });
    box.append(el("label", { class: "choice" }, num, o.can_be_off ? el("span", { class: "chelp", text: t("leave empty for off") }) : null));
  }
  return box;
}
function readOptions() {
  const g = S.setupGame, out = {};
  for (const o of g.options) {
    const id = `opt-${o.name}`;
    if (o.kind === "choice") {
      const r = document.querySelector(`input[name="${id}"]:checked`);
      if (r) out[o.name] = r.value;
    } else if (o.kind === "bool") out[o.name] = document.getElementById(id).checked ? "on" : "off";
    else {
      const v = document.getElementById(id).value.trim();
      if (v === "") { if (o.can_be_off) out[o.name] = "off"; }
      else out[o.name] = v;
    }
  }
  return out;
}
function chooseGame(id) {
  const g = S.catalog.find((x) => x.id === id) || S.catalog[0];
  if (!g) return;
  S.setupGame = g;
  for (const b of document.querySelectorAll("#game-choices button")) b.setAttribute("aria-checked", String(b.dataset.game === g.id));
  $("#setup-options").replaceChildren(...g.options.map(optionInput));
  $("#howto-setup-game").textContent = t(g.name);
  renderDeckSelect();
  $("#player-range").textContent = `(${countsWords(g)})`;
  while (S.setupPlayers.length < Math.max(2, g.min_players)) addSetupPlayer();
  S.setupPlayers.length = Math.min(S.setupPlayers.length, g.max_players);
  renderSetupPlayers();
}
function addSetupPlayer() {
  const used = new Set(S.setupPlayers.map((p) => p.colour));
  S.setupPlayers.push({ name: "", colour: PALETTE.find((c) => !used.has(c)) || PALETTE[0] });
}
function renderSetupPlayers() {
  const g = S.setupGame, ol = $("#setup-players");
  ol.replaceChildren(...S.setupPlayers.map((p, i) => el("li", {},
    el("div", { class: "prow" },
      el("input", { type: "text", value: p.name, placeholder: t("Player {n}'s name", { n: i + 1 }), "aria-label": t("Player {n}'s name", { n: i + 1 }),
        maxlength: 24, "data-player-name": i, oninput: (e) => { p.name = e.target.value; } }),
      el("input", { type: "color", value: p.colour, "aria-label": t("Player {n}'s colour", { n: i + 1 }), oninput: (e) => { p.colour = e.target.value; } }),
      el("button", { type: "button", "aria-label": t("Move up"), disabled: i === 0, onclick: () => moveSetupPlayer(i, -1) }, "↑"),
      el("button", { type: "button", "aria-label": t("Move down"), disabled: i === S.setupPlayers.length - 1, onclick: () => moveSetupPlayer(i, 1) }, "↓"),
      el("button", { type: "button", "aria-label": t("Remove"), disabled: S.setupPlayers.length <= (g?.min_players ?? 2),
        onclick: () => { S.setupPlayers.splice(i, 1); renderSetupPlayers(); } }, "✕")))));
  $("#add-player").disabled = !g || S.setupPlayers.length >= g.max_players;
  // a count between the allowed ones (Guerra: 2, 4 or 6) is said at once, not after "Start the game"
  const wrong = g && !(g.player_counts || []).includes(S.setupPlayers.length);
  $("#player-hint").hidden = !wrong;
  $("#player-hint").textContent = wrong ? t("{game} is played by {counts} players: add or remove a player.", { game: t(g.name), counts: countsWords(g, "-") }) : "";
  $("#start-game").disabled = !!wrong;
}
function moveSetupPlayer(i, d) {
  const j = i + d; const a = S.setupPlayers;
  [a[i], a[j]] = [a[j], a[i]]; renderSetupPlayers();
}
$("#add-player").addEventListener("click", () => { addSetupPlayer(); renderSetupPlayers(); });
$("#howto-setup").addEventListener("click", () => showHowTo(S.setupGame?.id).catch((err) => showError("#setup-error", err.message)));
$("#howto-live").addEventListener("click", () => showHowTo(S.view?.game || "classic").catch((err) => showError("#entry-error", err.message)));
$("#setup-clock-on").addEventListener("change", (e) => { $("#setup-clock-min").disabled = !e.target.checked; });
$("#setup-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  showError("#setup-error", "");
  const g = S.setupGame;
  const players = S.setupPlayers.map((p) => ({ name: p.name.trim(), colour: p.colour }));
  if (players.some((p) => !p.name)) { showError("#setup-error", t("Every player needs a name.")); return; }
  const body = { game: g.id, players, options: readOptions() };
  if (!$("#deck-choice").hidden && $("#setup-deck").value) body.deck = $("#setup-deck").value;
  if ($("#setup-clock-on").checked) body.clock_minutes = Number($("#setup-clock-min").value) || 10;
  try {
    const v = await change("/api/games", body);
    if (!v) return;
    S.seen.clear(); S.log = [];
    setView(v.view || v);
    speak(t("New game of {game}: {players}.", { game: t(g.name), players: players.map((p) => p.name).join(", ") }));
    location.hash = "#live";
  } catch (err) { showError("#setup-error", err.message); }
});
function renderRuleSheet() {
  const sheet = S.view ? ruleLines(S.view) : [];
  $("#rule-sheet").replaceChildren(...(sheet.length ? sheet.map((line) => el("li", { text: line })) : [el("li", { text: t("No game yet.") })]));
}
async function loadCatalog() {
  try {
    [S.catalog] = await Promise.all([getJSON("/api/catalog"), loadDecks()]);
  } catch (err) { showError("#setup-error", t("Could not load the games: {error}", { error: err.message })); return; }
  renderGameChoices();
  if (S.setupPlayers.length === 0 && S.view?.players) {
    S.setupPlayers = S.view.players.map((p) => ({ name: p.name, colour: p.colour || PALETTE[0] }));
  }
  chooseGame(S.pendingGame || S.view?.game || "classic");
  S.pendingGame = null;
}
function renderGameChoices() {
  const chosen = S.setupGame?.id;
  $("#game-choices").replaceChildren(...S.catalog.map((g) => el("button", {
    type: "button", role: "radio", "data-game": g.id, "aria-checked": String(g.id === chosen), onclick: () => chooseGame(g.id) },
    t(g.name), el("small", { text: t("{counts} players", { counts: countsWords(g, "–") }) }))));
}
/* How many players a game takes: "2 to 4" (or "2–4" where dash is given), "2, 4 or 6", "2". */
function countsWords(g, dash) {
  const counts = g.player_counts || [];
  if (!counts.length) return g.players_text;
  const low = counts[0], high = counts[counts.length - 1];
  if (counts.length > 1 && high - low === counts.length - 1) return dash ? `${low}${dash}${high}` : t("{low} to {high}", { low, high });
  return counts.length > 1 ? t("{some} or {last}", { some: counts.slice(0, -1).join(", "), last: high }) : String(low);
}

/* ------------------------------------------------------------------ proof: history, enlarge, corrections */
function cardsRow(cards, panel) {
  return el("span", { class: "cards" }, ...Object.entries(cards || {}).map(([who, c]) => cardEl(c, seatWords(who), panel)));
}
function historyList(target, view, readOnly) {
  const items = (view.history || []).slice().reverse();
  const rows = items.length ? items.map((h) => el("li", {},
    el("button", { type: "button", "data-battle": h.battle, onclick: () => openBattle(h, view, readOnly) },
      el("span", { class: "bnum", text: t("Battle {n}", { n: h.battle }) }), cardsRow(h.cards, view.entry?.cards),
      el("span", { class: "htext", text: said(h.text, h.msg) }),
      h.photo ? el("img", { src: h.photo, alt: t("The camera's photo of battle {n}", { n: h.battle }), loading: "lazy", decoding: "async",
        class: "hphoto", onerror: (e) => { e.target.replaceWith(noPhoto()); } }) : noPhoto()))) : [el("li", { text: t("No battles yet.") })];
  const from = view.history_from || 0;
  if (from > 0) {
    rows.push(el("li", { class: "more" }, el("button", { type: "button", class: "secondary", "data-history-more": "",
      onclick: (e) => earlierBattles(target, view, readOnly, e.currentTarget) },
      t("Show earlier battles ({n} more)", { n: from }))));
  }
  target.replaceChildren(...rows);
}
/* Where a battle has no photo (no camera was watching, or it was not kept): a quiet placeholder. */
function noPhoto() { return el("span", { class: "hphoto none", title: t("No photo of this battle"), "aria-label": t("no photo") }, t("no photo")); }
/* The page of battles before the oldest shown (GET /api/games/{id}/history), added to the list. */
const HISTORY_PAGE = 50;
async function earlierBattles(target, view, readOnly, button) {
  button.disabled = true;
  const from = view.history_from || 0;
  try {
    const page = await getJSON(`/api/games/${view.game_id}/history?before=${from + 1}&limit=${HISTORY_PAGE}`);
    /* the list may have changed meanwhile (a correction starts it again): add the page only where it fits */
    if ((view.history_from || 0) === from && page.history_from + page.history.length === from) {
      view.history = page.history.concat(view.history || []);
      view.history_from = page.history_from;
    }
    historyList(target, view, readOnly);
  } catch (err) { button.disabled = false; toast(err.message); }
}
function renderHistory() { if (S.view && S.view.game) historyList($("#history"), S.view, false); else $("#history").replaceChildren(); }

/* Which log index turned up each card of a battle: the server says so in card_seq. */
function flipSeqs(h) { return h.card_seq || {}; }

/* The corrected event for one seat's card: a single flip, or, when the camera sent several cards in
   one flips event, that whole event again with only this seat's card changed. */
function correctedFlip(h, who, card) {
  const seqs = flipSeqs(h), seq = seqs[who];
  const together = Object.keys(seqs).filter((w) => seqs[w] === seq);
  if (together.length < 2) return { type: "flip", seat: who, card };
  const cards = {};
  for (const w of together) cards[w] = w === who ? card : h.cards[w];
  return { type: "flips", cards };
}
let openBattleEntry = null;
function openBattle(h, view, readOnly) {
  openBattleEntry = h;
  $("#battle-title").textContent = t("Battle {n}", { n: h.battle });
  $("#battle-cards").replaceChildren(...Object.entries(h.cards || {}).map(([who, c]) =>
    el("div", { class: "bc" }, cardEl(c, null, view.entry?.cards), el("span", { text: who, style: `color:${playerColour(who)}` }))));
  const rulings = (h.rulings && h.rulings.length ? h.rulings : [{ text: h.text }]).filter((r) => r.type !== "prompt");
  $("#battle-rulings").replaceChildren(...rulings.map((r) => el("li", { text: said(r.text, r.msg) })));
  const img = $("#battle-photo"), fig = $("#battle-figure");
  if (h.photo) {
    img.src = h.photo; img.alt = t("The camera's photo of battle {n}", { n: h.battle });
    $("#battle-photo-link").href = h.photo; fig.hidden = false;
  } else { fig.hidden = true; img.removeAttribute("src"); }
  $("#battle-nophoto").hidden = !!h.photo;
  const fix = $("#battle-fix"); fix.replaceChildren();
  showError("#battle-error", "");
  if (!readOnly) {
    const seqs = flipSeqs(h);
    fix.append(el("h3", { text: t("Misread a card? Fix it:") }));
    for (const [who, c] of Object.entries(h.cards || {})) {
      const seq = seqs[who];
      const inp = el("input", { value: c, "aria-label": t("{who}'s card", { who }), "data-fix-card": who, autocapitalize: "characters", autocomplete: "off" });
      fix.append(el("div", { class: "fixrow" }, el("b", { text: `${who}:` }), inp,
        el("button", { type: "button", disabled: seq === undefined, "data-fix-btn": who,
          onclick: () => correct(seq, correctedFlip(h, who, inp.value.trim().toUpperCase()), "#battle-error") },
          seq === undefined ? t("(use the log)") : t("Fix {who}'s card", { who }))));
    }
  }
  $("#battle-dialog").hidden = false;
  $("#battle-close").focus();
}
$("#battle-close").addEventListener("click", () => { $("#battle-dialog").hidden = true; });
$("#battle-dialog").addEventListener("click", (e) => { if (e.target.id === "battle-dialog") $("#battle-dialog").hidden = true; });
document.addEventListener("keydown", (e) => { if (e.key === "Escape") { $("#battle-dialog").hidden = true; } });

async function correct(seq, event, errBox) {
  showError(errBox, "");
  try {
    const res = await change("/api/corrections", { seq, event });
    if (!res) return;
    handleCorrection(res.changed, res.view);
    $("#battle-dialog").hidden = true;
  } catch (err) { showError(errBox, err.message); }
}
function renderLog() {
  const ol = $("#log");
  const rows = S.log.filter((r) => r.seq !== undefined).slice(-60).reverse();
  ol.replaceChildren(...rows.map((r) => {
    const fixable = r.type === "flip" || r.type === "down";
    return el("li", {}, el("span", { class: "seq", text: `#${r.seq}` }), el("span", { text: said(r.text, r.msg) }),
      fixable ? el("button", { type: "button", onclick: () => prefillFix(r) }, t("Fix")) : null);
  }));
}
function prefillFix(r) {
  $("#fix-seq").value = r.seq;
  $("#fix-type").value = r.type;
  const seat = r.seat || Object.keys(r.cards || {})[0];
  if (seat) $("#fix-seat").value = seat;
  $("#fix-value").value = r.type === "down" ? (r.count ?? "") : Object.values(r.cards || {})[0] || "";
  $("#fix-value").focus();
}
$("#fix-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const seq = Number($("#fix-seq").value), type = $("#fix-type").value, seat = $("#fix-seat").value, val = $("#fix-value").value.trim();
  let event = null;
  if (type === "flip") event = { type: "flip", seat, card: val.toUpperCase() };
  else if (type === "down") event = { type: "down", seat, count: Number(val) };
  correct(seq, event, "#entry-error").then(() => { if (!$("#entry-error").hidden) toast($("#entry-error").textContent); });
});

/* ------------------------------------------------------------------ past games */
async function loadGames() {
  const ul = $("#games-list");
  try {
    const games = await getJSON("/api/games");
    ul.replaceChildren(...(games.length ? games.map((g) => el("li", {}, el("button", { type: "button", "data-game-id": g.id, onclick: () => openPastGame(g.id) },
      `${t(g.name || g.game)}: ${(g.players || []).map((p) => (typeof p === "string" ? p : p.name)).join(", ")}`,
      el("span", { class: "gmeta", text: `${g.created ? new Date(typeof g.created === "number" ? g.created * 1000 : g.created).toLocaleString(I18N.lang === "pt" ? "pt-PT" : undefined) : ""} — ${g.result ? (said(g.result.text, g.result.msg) || g.result) : g.finished ? t("finished") : t("not finished")}` }))))
      : [el("li", { text: t("No games yet.") })]));
  } catch (err) { ul.replaceChildren(el("li", { class: "error", text: err.message })); }
}
async function openPastGame(id) {
  const box = $("#past-game");
  try {
    const v = await getJSON(`/api/games/${id}`);
    const hist = el("ol", { class: "history", reversed: true });
    box.replaceChildren(
      el("h2", { text: t("{game} — game {id} (read-only)", { game: t(v.name), id: v.game_id ?? id }) }),
      el("p", { text: v.result ? said(v.result.text, v.result.msg) : v.over ? t("Finished.") : said(v.prompt?.text, v.prompt?.msg) }),
      el("ul", { class: "players" }, ...(v.players || []).map((p) => el("li", { class: "player" + (p.out ? " out" : ""), style: `--pc:${p.colour || "#888"}` },
        el("div", { class: "pname", text: p.name, title: p.name }), el("div", { class: "pcount", text: String(p.count) })))),
      el("h3", { text: t("Battles") }), hist,
      el("details", {}, el("summary", { text: t("Rules") }), el("ul", { class: "rule-sheet" }, ...ruleLines(v).map((line) => el("li", { text: line })))));
    historyList(hist, v, true);
    box.hidden = false;
    box.scrollIntoView({ behavior: "smooth", block: "start" });
  } catch (err) { box.hidden = false; box.replaceChildren(el("p", { class: "error", text: err.message })); }
}

/* ------------------------------------------------------------------ share */
async function loadShare() {
  $("#qr").src = "/api/qr.svg";
  try {
    const a = await getJSON("/api/address");
    $("#address").textContent = a.url; $("#address").href = a.url;
    if (a.qr) $("#qr").src = a.qr;
  } catch (err) { $("#address").textContent = location.origin; }
}
let installEvent = null;
window.addEventListener("beforeinstallprompt", (e) => { e.preventDefault(); installEvent = e; $("#install-btn").hidden = false; });
$("#install-btn").addEventListener("click", async () => { if (installEvent) { installEvent.prompt(); installEvent = null; $("#install-btn").hidden = true; } });
$("#speech-on").checked = speechOn;
$("#speech-on").addEventListener("change", (e) => { speechOn = e.target.checked; localStorage.setItem("warref-speech", speechOn ? "on" : "off"); if (!speechOn && "speechSynthesis" in window) speechSynthesis.cancel(); });

/* ------------------------------------------------------------------ camera (docs/dashboard-api.md, "Camera") */
const CAM = {
  info: null,              // the last GET /api/camera or `camera` message; null = no camera
  hidePicture: localStorage.getItem("warref-camera-picture") === "off",
  previews: 0,             // previews shown (tests read it)
};
const PREVIEW_MS = 250;    // a new preview about 3-4 times a second
const CAMERA_TROUBLE = {
  lost: () => t("Camera lost - reconnecting..."),
  reconnecting: () => t("Camera lost - reconnecting..."),
  frozen: () => t("Camera frozen - reconnecting..."),
};
function cameraOn() { return !!(CAM.info && CAM.info.status && CAM.info.status !== "off"); }
async function loadCamera() {
  try {
    const r = await fetch("/api/camera", { cache: "no-store" });
    if (r.status === 404) { setCamera(null); return; }
    if (!r.ok) return;   // a passing error: keep what we have, the next message corrects it
    setCamera(await r.json());
  } catch (err) { /* offline: the WebSocket reconnect calls again */ }
}
function setCamera(info) {
  CAM.info = info && typeof info === "object" ? info : null;
  const on = cameraOn();
  const panel = $("#camera-panel");
  panel.hidden = !on;
  $(".live-grid").classList.toggle("with-camera", on);
  const trouble = on && CAMERA_TROUBLE[CAM.info.status] ? CAMERA_TROUBLE[CAM.info.status]() : null;
  const st = $("#camera-status"), badge = $("#badge-camera"), over = $("#camera-trouble");
  st.hidden = badge.hidden = over.hidden = !trouble;
  st.textContent = over.textContent = trouble || "";
  badge.textContent = trouble ? trouble.replace(/ - .*/, "") : "";   // the top bar: short, it shows on every screen
  badge.title = trouble || "";
  panel.classList.toggle("trouble", !!trouble);
  panel.dataset.status = on ? CAM.info.status : "off";
  const fps = on && typeof CAM.info.fps === "number" && !trouble ? CAM.info.fps : null;
  $("#camera-fps").textContent = fps === null ? "" : `${fps.toFixed(1)} fps`;
  $("#camera-message").textContent = trouble ? said(CAM.info.message || "", CAM.info.message_msg) : "";   // the server's sentence, in this language
  kickPreview();
}
/* The panel sits under the counts during a game, and alone on the live screen before one (to aim the camera). */
function placeCameraPanel(hasGame) {
  const panel = $("#camera-panel");
  const grid = $(".live-grid");
  if (hasGame) { if (panel.parentElement !== grid) grid.insertBefore(panel, $("#clock-box")); }
  else if (panel.parentElement !== $("#tab-live")) $("#tab-live").append(panel);
}
$("#camera-frame").addEventListener("click", () => { $("#camera-panel").classList.toggle("big"); });
function previewWanted() {
  return cameraOn() && !CAM.hidePicture && currentTab() === "live" && document.visibilityState === "visible";
}
let pvTimer = null, pvBusy = false;
function kickPreview(delay = 0) {
  if (pvTimer || pvBusy || !previewWanted()) return;
  pvTimer = setTimeout(previewTick, delay);
}
function previewTick() {
  pvTimer = null;
  if (!previewWanted()) return;
  pvBusy = true;
  const img = $("#camera-preview");
  const url = `/api/preview.jpg?t=${Date.now()}`;   // never the browser's cached picture
  let settle;
  const done = new Promise((resolve) => { settle = resolve; });
  const guard = setTimeout(() => settle(false), 5000);
  img.onload = () => settle(true);
  img.onerror = () => settle(false);
  img.src = url;
  done.then((ok) => {
    clearTimeout(guard);
    img.onload = img.onerror = null;
    pvBusy = false;
    if (ok) CAM.previews++;
    kickPreview(ok ? PREVIEW_MS : 1500);
  });
}
function updatePictureToggle() {
  $("#camera-toggle").textContent = CAM.hidePicture ? t("Show picture") : t("Hide picture");
  $("#camera-frame").classList.toggle("nopic", CAM.hidePicture);
}
$("#camera-toggle").addEventListener("click", () => {
  CAM.hidePicture = !CAM.hidePicture;
  localStorage.setItem("warref-camera-picture", CAM.hidePicture ? "off" : "on");
  updatePictureToggle(); kickPreview();
});
updatePictureToggle();

/* ------------------------------------------------------------------ re-ask: the camera could not read a card for sure */
let reaskTimer = null, reaskSeat = null, lastReask = { text: "", at: 0 };
function handleReask(msg) {
  const seat = msg.seat || "";
  const text = msg.text ? said(String(msg.text), msg.msg)
    : seat ? t("{seat}, please show your card again.", { seat }) : t("Please show the card again.");
  const cut = text.indexOf(":");
  const head = (cut > 0 ? text.slice(0, cut) : text).replace(/[.!]\s*$/, "");
  let why = cut > 0 ? text.slice(cut + 1).trim() : "";
  if (why) why = why[0].toUpperCase() + why.slice(1);
  const box = $("#reask");
  $("#reask-text").textContent = head;
  $("#reask-why").textContent = why;
  box.dataset.seat = seat;
  if (seat) box.style.setProperty("--pc", playerColour(seat)); else box.style.removeProperty("--pc");
  box.hidden = false;
  // restart the little nudge so a second re-ask is noticed too
  box.style.animation = "none"; void box.offsetWidth; box.style.animation = "";
  reaskSeat = seat.toLowerCase();
  clearTimeout(reaskTimer);
  reaskTimer = setTimeout(hideReask, 15000);
  if (currentTab() !== "live") toast(head);
  const now = performance.now();
  if (text !== lastReask.text || now - lastReask.at > 4000) speak(text);   // a camera repeating itself is said once
  lastReask = { text, at: now };
}
function hideReask() { clearTimeout(reaskTimer); reaskSeat = null; $("#reask").hidden = true; }
/* The banner goes once that player's card is in, or the battle is decided. */
function reaskAnswered(rulings) {
  if (reaskSeat === null || $("#reask").hidden) return;
  for (const r of rulings || []) {
    const seats = [r.seat, ...Object.keys(r.cards || {})].filter(Boolean).map((x) => String(x).toLowerCase());
    if (seats.includes(reaskSeat) || ["battle", "game_over", "time_up", "undo"].includes(r.type)) { hideReask(); return; }
  }
}
$("#reask").addEventListener("click", hideReask);

/* ------------------------------------------------------------------ seat zones (GET/PUT /api/zones) */
const Z = {
  seats: null,          // {seat: [[x, y], ...]} being edited, fractions 0..1
  saved: "",            // JSON of what the server has
  defaults: null,       // the server's defaults when it says which they are
  aspect: 16 / 9,
  camera: null,         // true: the camera's photo came; false: none (no camera); null: not known yet
  gameId: undefined,    // the game the zones were loaded for
  loading: null,
};
const ZONE_DEALER = "#334155";
function zoneSeatNames() { return (S.view?.players || []).map((p) => p.name); }
function zoneColour(name) {
  const p = (S.view?.players || []).find((x) => x.name.toLowerCase() === String(name).toLowerCase());
  return p?.colour || (String(name).toLowerCase() === "dealer" ? ZONE_DEALER : PALETTE[Object.keys(Z.seats || {}).indexOf(name) % PALETTE.length] || "#888");
}
/* The usual zones, as the server makes them (vision/tracker.py default_zones): one slice of the middle
   of the frame (less 8% at each edge) per seat, meeting at the centre; seat 1 at the bottom (facing the
   camera), the others round the table clockwise. "Reset to default" saves these. */
const ZONE_MARGIN = 0.08;
function defaultZones(names) {
  const out = {}, n = Math.max(names.length, 1), half = 0.5 - ZONE_MARGIN;
  const r4 = (v) => Math.round(v * 10000) / 10000;
  const edge = (deg) => {
    const a = (deg * Math.PI) / 180, c = Math.cos(a), s = Math.sin(a);
    const t = Math.min(Math.abs(c) > 1e-9 ? half / Math.abs(c) : Infinity, Math.abs(s) > 1e-9 ? half / Math.abs(s) : Infinity);
    return [r4(0.5 + t * c), r4(0.5 + t * s)];
  };
  names.forEach((name, i) => {
    const mid = 90 + (i * 360) / n, a0 = mid - 180 / n, a1 = mid + 180 / n;
    const inside = [];
    for (const c of [45, 135, 225, 315]) for (const k of [-1, 0, 1]) { const a = c + k * 360; if (a0 < a && a < a1) inside.push(a); }
    inside.sort((x, y) => x - y);
    const poly = [];
    for (const p of [[0.5, 0.5], ...[a0, ...inside, a1].map(edge)]) {
      const last = poly[poly.length - 1];
      if (!last || last[0] !== p[0] || last[1] !== p[1]) poly.push(p);
    }
    out[name] = poly;
  });
  return out;
}
function validSeats(seats) {
  if (!seats || typeof seats !== "object" || Array.isArray(seats)) return null;
  const out = {};
  for (const [name, pts] of Object.entries(seats)) {
    if (!Array.isArray(pts) || pts.length < 3) continue;
    out[name] = pts.map((p) => [Math.min(1, Math.max(0, Number(p[0]) || 0)), Math.min(1, Math.max(0, Number(p[1]) || 0))]);
  }
  return out;
}
function zonesGameChanged() {
  Z.gameId = undefined;
  if (currentTab() === "setup") loadZones();
}
function zonesMessage(text) {
  const n = $("#zones-camera-note"); n.textContent = text || ""; n.hidden = !text;
}
function zonesState(text, dirty) {
  const s = $("#zones-state"); s.textContent = text || ""; s.classList.toggle("dirty", !!dirty);
}
function zonesDirty() { return Z.seats !== null && JSON.stringify(Z.seats) !== Z.saved; }
async function loadZones(force) {
  if (Z.loading) return Z.loading;
  if (!force && Z.seats && Z.gameId === (S.view?.game_id ?? null) && zonesDirty()) return;   // keep unsaved drawing
  Z.loading = (async () => {
    showError("#zones-error", "");
    if (!CAM.info) await loadCamera();
    loadCameraPhoto();
    if (!S.view) { try { await fetchState(); } catch (e) { /* shown below */ } }
    if (!S.view || !S.view.game) {
      Z.seats = null; Z.gameId = null;
      $("#zones-editor").hidden = true;
      zonesMessage(t("Start a game first: the zones belong to its players."));
      return;
    }
    $("#zones-editor").hidden = false;
    zonesCameraNote();
    let body = null;
    try { body = await getJSON("/api/zones"); }
    catch (err) {
      if (err.status === 404) zonesState(t("This server does not take camera zones yet; these are the usual ones."));
      else showError("#zones-error", t("Could not load the zones: {error}", { error: err.message }));
    }
    const names = zoneSeatNames();
    const fallback = defaultZones(names);
    Z.defaults = validSeats(body?.defaults) || (body && (body.default === true || body.is_default === true) ? validSeats(body.seats) : null);
    const seats = validSeats(body?.seats) || {};
    // every seat of the game gets a zone; a seat the server has none for gets the usual one
    const merged = {};
    for (const name of names) merged[name] = seats[name] || (Z.defaults && Z.defaults[name]) || fallback[name];
    for (const [name, pts] of Object.entries(seats)) if (!(name in merged)) merged[name] = pts;
    Z.seats = merged;
    Z.saved = body ? JSON.stringify(merged) : "";
    Z.gameId = S.view.game_id;
    renderZones();
    if (body) zonesState("");
  })().finally(() => { Z.loading = null; });
  return Z.loading;
}
function zonesCameraNote() {
  if (!S.view?.game) return;   // "Start a game first" stays
  zonesMessage(Z.camera === false ? t("No camera is attached, so there is no picture: the zones are drawn over a grey frame. You can still draw and save them.") : "");
}
/* The camera's photo of the table under the zones (GET /api/snapshot.jpg): asked for only when a
   camera is attached (without one there is none, and asking would only bring a 404). */
function loadCameraPhoto() {
  const img = $("#zones-img");
  if (!cameraOn()) {
    img.onload = img.onerror = null;
    img.removeAttribute("src");
    Z.camera = false; img.hidden = true;
    $("#zones-stage").style.aspectRatio = String(Z.aspect);
    zonesCameraNote();
    return;
  }
  img.onload = () => {
    Z.camera = true; img.hidden = false;
    if (img.naturalWidth && img.naturalHeight) Z.aspect = img.naturalWidth / img.naturalHeight;
    $("#zones-stage").style.aspectRatio = String(Z.aspect);
    zonesCameraNote();
  };
  img.onerror = () => {
    Z.camera = false; img.hidden = true;
    $("#zones-stage").style.aspectRatio = String(Z.aspect);
    zonesCameraNote();
  };
  img.src = `/api/snapshot.jpg?t=${Date.now()}`;
}
const SVGNS = "http://www.w3.org/2000/svg";
function pointsAttr(pts) { return pts.map(([x, y]) => `${x},${y}`).join(" "); }
function centroid(pts) {
  const n = pts.length;
  return [pts.reduce((a, p) => a + p[0], 0) / n, pts.reduce((a, p) => a + p[1], 0) / n];
}
function renderZones() {
  const svg = $("#zones-svg"), box = $("#zones-handles");
  svg.replaceChildren(); box.replaceChildren();
  if (!Z.seats) return;
  for (const [name, pts] of Object.entries(Z.seats)) {
    const col = zoneColour(name);
    const poly = document.createElementNS(SVGNS, "polygon");
    poly.setAttribute("points", pointsAttr(pts));
    poly.setAttribute("fill", col); poly.setAttribute("stroke", col);
    poly.setAttribute("vector-effect", "non-scaling-stroke");
    poly.dataset.zone = name;
    poly.addEventListener("pointerdown", (e) => startDrag(e, name, null));
    svg.append(poly);
    const [cx, cy] = centroid(pts);
    box.append(el("div", { class: "zone-label", "data-zone-label": name, style: `--pc:${col};left:${cx * 100}%;top:${cy * 100}%`, text: name }));
    pts.forEach(([x, y], i) => {
      const h = el("button", { type: "button", class: "zone-handle", "data-zone": name, "data-corner": i,
        "aria-label": t("{name}'s zone, corner {n} (arrow keys move it)", { name, n: i + 1 }), style: `--pc:${col};left:${x * 100}%;top:${y * 100}%` });
      h.addEventListener("pointerdown", (e) => startDrag(e, name, i));
      h.addEventListener("keydown", (e) => nudgeCorner(e, name, i));
      box.append(h);
    });
  }
  showZonesDirty();
}
function showZonesDirty() {
  const dirty = zonesDirty();
  if (dirty) zonesState(t("Not saved yet"), true);
  else if ($("#zones-state").classList.contains("dirty")) zonesState("");
}
/* Move the drawing of one zone in place (re-rendering would drop the pointer capture). */
function updateZone(name) {
  const pts = Z.seats[name];
  const poly = [...$("#zones-svg").children].find((p) => p.dataset.zone === name);
  if (poly) poly.setAttribute("points", pointsAttr(pts));
  for (const h of document.querySelectorAll(".zone-handle")) {
    if (h.dataset.zone !== name) continue;
    const [x, y] = pts[Number(h.dataset.corner)];
    h.style.left = `${x * 100}%`; h.style.top = `${y * 100}%`;
  }
  const lab = [...document.querySelectorAll(".zone-label")].find((l) => l.dataset.zoneLabel === name);
  if (lab) { const [cx, cy] = centroid(pts); lab.style.left = `${cx * 100}%`; lab.style.top = `${cy * 100}%`; }
  showZonesDirty();
}
const clamp01 = (v) => Math.min(1, Math.max(0, v));
const round4 = (v) => Math.round(v * 10000) / 10000;
function stageFraction(e) {
  const r = $("#zones-stage").getBoundingClientRect();
  return [clamp01((e.clientX - r.left) / r.width), clamp01((e.clientY - r.top) / r.height)];
}
let zdrag = null;
const SAME_POINT = 0.004;
function linkedCorners(name, corner) {
  const [x, y] = Z.seats[name][corner], out = [[name, corner]];
  for (const [n, pts] of Object.entries(Z.seats)) {
    pts.forEach(([px, py], i) => {
      if ((n !== name || i !== corner) && Math.abs(px - x) < SAME_POINT && Math.abs(py - y) < SAME_POINT) out.push([n, i]);
    });
  }
  return out;
}
function startDrag(e, name, corner) {
  if (e.button !== undefined && e.button > 0) return;
  e.preventDefault();
  const target = e.currentTarget;
  try { target.setPointerCapture(e.pointerId); } catch (err) { /* fine without */ }
  zdrag = { name, corner, target, id: e.pointerId, from: stageFraction(e), orig: Z.seats[name].map((p) => p.slice()),
    linked: corner === null ? [] : linkedCorners(name, corner) };
  if (corner !== null) target.classList.add("dragging");
  target.addEventListener("pointermove", moveDrag);
  target.addEventListener("pointerup", endDrag);
  target.addEventListener("pointercancel", endDrag);
}
function moveDrag(e) {
  if (!zdrag || e.pointerId !== zdrag.id) return;
  e.preventDefault();
  const [fx, fy] = stageFraction(e);
  if (zdrag.corner !== null) {
    // a corner the zones share (their meeting point in the middle, a common border) moves for all of them
    for (const [n, i] of zdrag.linked) { Z.seats[n][i] = [round4(fx), round4(fy)]; if (n !== zdrag.name) updateZone(n); }
  } else {
    // the whole zone: keep every corner inside the frame
    let dx = fx - zdrag.from[0], dy = fy - zdrag.from[1];
    const xs = zdrag.orig.map((p) => p[0]), ys = zdrag.orig.map((p) => p[1]);
    dx = Math.min(1 - Math.max(...xs), Math.max(-Math.min(...xs), dx));
    dy = Math.min(1 - Math.max(...ys), Math.max(-Math.min(...ys), dy));
    Z.seats[zdrag.name] = zdrag.orig.map(([x, y]) => [round4(x + dx), round4(y + dy)]);
  }
  updateZone(zdrag.name);
}
function endDrag(e) {
  if (!zdrag || e.pointerId !== zdrag.id) return;
  const t = zdrag.target;
  t.classList.remove("dragging");
  t.removeEventListener("pointermove", moveDrag);
  t.removeEventListener("pointerup", endDrag);
  t.removeEventListener("pointercancel", endDrag);
  zdrag = null;
  showZonesDirty();
}
function nudgeCorner(e, name, i) {
  const step = e.shiftKey ? 0.05 : 0.01;
  const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[e.key];
  if (!d) return;
  e.preventDefault();
  const [x, y] = Z.seats[name][i];
  Z.seats[name][i] = [round4(clamp01(x + d[0])), round4(clamp01(y + d[1]))];
  updateZone(name);
}
async function saveZones(seats, what) {
  showError("#zones-error", "");
  const body = { seats: Object.fromEntries(Object.entries(seats).map(([n, pts]) => [n, pts.map(([x, y]) => [round4(x), round4(y)])])) };
  try {
    const res = await change("/api/zones", body, "PUT");
    if (!res) return false;
    const back = validSeats(res.seats);
    Z.seats = back && Object.keys(back).length ? back : body.seats;
    Z.saved = JSON.stringify(Z.seats);
    renderZones();
    zonesState(what);
    toast(what);
    return true;
  } catch (err) { showError("#zones-error", err.message); return false; }
}
$("#zones-save").addEventListener("click", () => { if (Z.seats) saveZones(Z.seats, t("Zones saved: the camera uses them now.")); });
$("#zones-reset").addEventListener("click", () => {
  if (!S.view?.game) return;
  const names = zoneSeatNames(), usual = defaultZones(names), out = {};
  for (const name of names) out[name] = (Z.defaults && Z.defaults[name]) || usual[name];
  saveZones(out, t("Back to the usual zones."));
});
$("#zones-refresh").addEventListener("click", loadCameraPhoto);

/* ------------------------------------------------------------------ decks: the set-up's Cards (GET /api/decks) */
const LIKE_TITLE = { standard: "Standard cards", woolly: "Woolly Warfare", namikopy: "Namikopy" };
function likeTitle(like) { return like === "standard" ? t("Standard cards") : LIKE_TITLE[like] || like; }
async function loadDecks() {
  try { S.decks = await getJSON("/api/decks"); }
  catch (err) { S.decks = null; }       // an older server: no Cards choice
  renderDeckSelect();
  return S.decks;
}
/* The built-in deck the game being set up is played with (Namikopy's "deck" option may say standard). */
function setupDeckOf(g) {
  if (!g || !S.decks) return null;
  const opt = document.querySelector('input[name="opt-deck"]:checked');
  if (opt && S.decks.decks.some((d) => d.built_in && d.name === opt.value)) return opt.value;
  return S.decks.games?.[g.id] || "standard";
}
function renderDeckSelect() {
  const box = $("#deck-choice"), sel = $("#setup-deck");
  const base = setupDeckOf(S.setupGame);
  box.hidden = !base;
  if (!base) return;
  const fits = S.decks.decks.filter((d) => d.built_in ? d.name === base : d.like === base);
  const before = sel.value;
  sel.replaceChildren(...fits.map((d) => el("option", { value: d.name,
    text: d.built_in ? t("{deck} (warref's own)", { deck: likeTitle(d.name) }) : t("{deck} (taught, like {like})", { deck: d.name, like: likeTitle(d.like) }) })));
  const names = fits.map((d) => d.name);
  const camera = S.decks.camera?.deck;
  sel.value = [S.preferDeck, before, camera, base].find((n) => n && names.includes(n)) || base;
  showForget();
}
$("#setup-options").addEventListener("change", renderDeckSelect);
/* A taught deck chosen: it can be forgotten here (DELETE /api/decks/{name}). */
function showForget() {
  const name = $("#setup-deck").value;
  $("#deck-forget").hidden = !S.decks || !S.decks.decks.some((d) => !d.built_in && d.name === name);
}
$("#setup-deck").addEventListener("change", showForget);
$("#deck-forget").addEventListener("click", async () => {
  const name = $("#setup-deck").value;
  if (!name || !confirm(t("Forget deck {name}? Its readers and card pictures are removed; to read it again, teach it again.", { name }))) return;
  showError("#setup-error", "");
  try {
    const res = await change(`/api/decks/${encodeURIComponent(name)}`, undefined, "DELETE");
    if (!res) return;
    if (S.preferDeck === name) S.preferDeck = null;
    await loadDecks();
    toast(t("Deck {name} forgotten.", { name }));
  } catch (err) { showError("#setup-error", err.message); }
});

/* ------------------------------------------------------------------ teach a new deck (docs/dashboard-api.md, "Teaching a deck") */
const T = {
  draft: null,          // GET /api/teach/{name}
  current: null,        // the code being shown now
  retaking: false,      // the current card is taken, and is being taken again
  autoId: 0,            // the auto-take loop running (a new number stops the old one)
  takes: 0,             // take requests sent (tests read it)
  pvTimer: null,
  poll: null,
};
function teachUrl(path = "") { return `/api/teach/${encodeURIComponent(T.draft.name)}${path}`; }
function teachCard(code) { return (T.draft?.cards || []).find((c) => c.code === code) || null; }
/* A card of the deck being taught as the server names it ("7 of hearts"), in this page's language ("o 7 de copas"). */
function cardName(c) { return I18N.lang === "en" || !c.name_msg ? c.name : msg(c.name_msg, false); }
function teachCamera() { return cameraOn(); }
const TEACH_KEY = "warref-teaching";     // the deck this screen was teaching (a reload goes on with it)
async function openTeach() {
  showError("#teach-start-error", "");
  if (T.shown !== location.hash) window.scrollTo(0, 0);     // a screen of its own: from its top
  T.shown = location.hash;
  if (!CAM.info) await loadCamera();
  const name = T.draft?.name || localStorage.getItem(TEACH_KEY);
  if (name) {
    try { T.draft = await getJSON(`/api/teach/${encodeURIComponent(name)}`); }
    catch (err) { T.draft = null; localStorage.removeItem(TEACH_KEY); }
  }
  if (!T.draft) { showTeachStart(); return; }
  showDraft();
}
function leaveTeach() {
  T.shown = null;
  T.autoId++;
  clearTimeout(T.pvTimer); T.pvTimer = null;
}
async function showTeachStart() {
  T.draft = null;
  localStorage.removeItem(TEACH_KEY);
  $("#teach-start").hidden = false; $("#teach-draft").hidden = true;
  const list = $("#teach-draft-list");
  let drafts = [];
  try { drafts = (await loadDecks())?.teaching || []; } catch (err) { /* none */ }
  $("#teach-drafts").hidden = !drafts.length;
  list.replaceChildren(...drafts.map((d) => el("li", {},
    el("button", { type: "button", class: "secondary", "data-draft": d.name, onclick: () => resumeDraft(d.name) },
      t("Go on teaching {name}", { name: d.name }), el("small", { text: " " + (d.state === "training"
        ? t("({like}: {taken} of {needed} cards, training)", { like: likeTitle(d.like), taken: d.taken, needed: d.needed })
        : d.state === "failed" ? t("({like}: {taken} of {needed} cards, training failed)", { like: likeTitle(d.like), taken: d.taken, needed: d.needed })
          : t("({like}: {taken} of {needed} cards)", { like: likeTitle(d.like), taken: d.taken, needed: d.needed })) })))));
}
async function resumeDraft(name) {
  try { T.draft = await getJSON(`/api/teach/${encodeURIComponent(name)}`); showDraft(); }
  catch (err) { showError("#teach-start-error", err.message); }
}
$("#teach-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  showError("#teach-start-error", "");
  const name = $("#teach-name").value.trim().toLowerCase();
  const like = document.querySelector('input[name="teach-like"]:checked')?.value || "standard";
  if (!name) { showError("#teach-start-error", t("Give the deck a name.")); return; }
  try {
    const draft = await change("/api/teach", { name, like });
    if (!draft) return;
    T.draft = draft; T.current = null;
    showDraft();
  } catch (err) { showError("#teach-start-error", err.message); }
});
function showDraft() {
  $("#teach-start").hidden = true; $("#teach-draft").hidden = false;
  const d = T.draft;
  if (d.state === "ready") localStorage.removeItem(TEACH_KEY); else localStorage.setItem(TEACH_KEY, d.name);
  $("#teach-title").replaceChildren(t("Teaching deck {name}", { name: d.name }) + " ", el("small", { text: t("like {like}", { like: likeTitle(d.like) }) }));
  showError("#teach-error", "");
  renderTeachGrid();
  renderTrain();
  if (d.state === "training" || d.state === "ready") { $("#teach-step").hidden = true; return; }
  $("#teach-step").hidden = false;
  const current = teachCard(T.current) ? T.current : firstMissing();
  chooseCard(current);
}
function firstMissing(after) {
  const cards = T.draft.cards.filter((c) => !c.optional || c.taken);
  const start = after ? cards.findIndex((c) => c.code === after) + 1 : 0;
  for (let k = 0; k < cards.length; k++) {
    const c = cards[(start + k) % cards.length];
    if (!c.taken && !c.optional) return c.code;
  }
  return after ? cards[start % cards.length]?.code : cards[0]?.code;
}
function renderTeachGrid() {
  const d = T.draft;
  $("#teach-count").textContent = d.taken >= d.needed ? t("{taken} of {needed} cards taken: ready to train.", { taken: d.taken, needed: d.needed })
    : t("{taken} of {needed} cards taken.", { taken: d.taken, needed: d.needed });
  $("#teach-grid").replaceChildren(...d.cards.map((c) => el("li", {},
    el("button", { type: "button", class: "tcard" + (c.taken ? " taken" : "") + (c.code === T.current ? " current" : "") + (c.optional ? " optional" : ""),
      "data-code": c.code, "aria-label": (c.taken ? t("{card}, taken", { card: cardName(c) }) : t("{card}, not taken yet", { card: cardName(c) })) + (c.optional ? " " + t("(optional)") : ""),
      disabled: d.state === "training", onclick: () => { T.retaking = false; chooseCard(c.code); } },
      c.taken ? el("img", { src: `${c.image}&w=112`, alt: "" }) : el("span", { class: "tcode", text: c.code }),
      el("span", { class: "tname", text: cardName(c) })))));
}
function chooseCard(code) {
  T.current = code;
  T.autoId++;
  const c = teachCard(code);
  if (!c) return;
  for (const b of document.querySelectorAll("#teach-grid .tcard")) b.classList.toggle("current", b.dataset.code === code);
  const camera = teachCamera();
  const showing = c.taken && !T.retaking;
  $("#teach-prompt").textContent = camera ? said(c.prompt, c.prompt_msg) : t("Upload a photo of the {card}", { card: cardName(c) });
  $("#teach-hint").textContent = showing ? t("Taken. Look at it: retake it if it is not the whole card, upright or upside down.")
    : camera ? t("Lay it flat, face up and alone, where the camera sees it, and hold still.") : t("The card alone, or lying on a plain table.");
  $("#teach-taken").hidden = !c.taken;
  if (c.taken) { $("#teach-taken-img").src = c.image; $("#teach-taken-img").alt = t("The {card} as warref took it", { card: cardName(c) }); }
  $("#teach-taken-caption").textContent = T.retaking ? t("Taken before") : t("Taken: the {card}", { card: cardName(c) });
  $("#teach-retake").hidden = !(camera && c.taken && !T.retaking);
  $("#teach-file-label").firstChild.textContent = (c.taken ? t("Upload another photo of the {card}", { card: cardName(c) }) : t("Upload a photo of the {card}", { card: cardName(c) })) + " ";
  $("#teach-camera").hidden = !camera || showing;
  if (camera && !showing) { teachPreview(); autoTake(code); }
}
/* The camera's photo (its raw picture), a couple of times a second, while a card is being taken. */
function teachPreview() {
  clearTimeout(T.pvTimer);
  const tick = () => {
    T.pvTimer = null;
    if (currentTab() !== "teach" || $("#teach-camera").hidden || document.visibilityState !== "visible") return;
    const img = $("#teach-preview");
    const next = () => { img.onload = img.onerror = null; T.pvTimer = setTimeout(tick, 500); };
    img.onload = next; img.onerror = next;
    img.src = `/api/snapshot.jpg?t=${Date.now()}`;
  };
  tick();
}
/* Ask the server to take the card about once a second until it does (it watches the camera ~1.5 s each time). */
async function autoTake(code) {
  const id = T.autoId;
  const name = T.draft.name;
  while (id === T.autoId && currentTab() === "teach" && T.draft && T.draft.name === name) {
    T.takes++;
    let card = null;
    try {
      card = await change(teachUrl(`/cards/${encodeURIComponent(code)}/take`));
      if (!card) { $("#teach-hint").textContent = t("Taking cards needs the table's PIN."); return; }
    } catch (err) {
      if (id !== T.autoId) return;
      if (err.status === 409) $("#teach-hint").textContent = err.message;
      else { showError("#teach-error", err.message); if (err.status !== 503) return; }
      await new Promise((r) => setTimeout(r, 400));
      continue;
    }
    if (id !== T.autoId) return;
    tookCard(card);
    return;
  }
}
function tookCard(card) {
  const cards = T.draft.cards.map((c) => (c.code === card.code ? card : c));
  T.draft = { ...T.draft, cards, taken: cards.filter((c) => c.taken).length,
    missing: cards.filter((c) => !c.taken && !c.optional).map((c) => c.code) };
  if (T.draft.state === "failed") T.draft.state = "collecting";
  T.retaking = false;
  renderTeachGrid(); renderTrain();
  if (card.code === T.current) chooseCard(card.code);
  speak(t("Got the {card}.", { card: cardName(card) }));
}
$("#teach-retake").addEventListener("click", () => { T.retaking = true; chooseCard(T.current); });
$("#teach-next").addEventListener("click", () => { T.retaking = false; chooseCard(firstMissing(T.current)); });
$("#teach-file").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  if (!file || !T.draft || !T.current) return;
  showError("#teach-error", "");
  try {
    const card = await change(teachUrl(`/cards/${encodeURIComponent(T.current)}?file=${encodeURIComponent(file.name)}`), file, "PUT");
    if (card) tookCard(card);
  } catch (err) { showError("#teach-error", err.message); }
});
$("#teach-files").addEventListener("change", async (e) => {
  const files = [...e.target.files];
  e.target.value = "";
  if (!files.length || !T.draft) return;
  const errors = $("#teach-upload-errors");
  errors.replaceChildren();
  showError("#teach-error", "");
  let ok = 0;
  $("#teach-hint").textContent = tn("Uploading {n} photo...", "Uploading {n} photos...", files.length);
  for (const file of files) {
    try {
      const card = await change(teachUrl(`/photos/${encodeURIComponent(file.name)}`), file, "PUT");
      if (!card) return;
      ok++;
      const cards = T.draft.cards.map((c) => (c.code === card.code ? card : c));
      T.draft = { ...T.draft, cards, taken: cards.filter((c) => c.taken).length };
    } catch (err) { errors.append(el("li", { text: err.message })); }
  }
  try { T.draft = await getJSON(teachUrl()); } catch (err) { /* keep what we have */ }
  const refused = files.length - ok;
  const taken = tn("{n} photo taken", "{n} photos taken", ok);
  toast(refused ? t("{taken}, {refused} refused (see why below)", { taken, refused }) : tn("{n} photo taken.", "{n} photos taken.", ok));
  T.retaking = false;
  if (teachCard(T.current)?.taken) T.current = firstMissing(T.current);    // on to a card still to show
  showDraft();
});
function renderTrain() {
  const d = T.draft;
  const training = d.state === "training", ready = d.state === "ready";
  const missing = (d.missing || []).length;
  const allow = $("#teach-allow-missing").checked;
  $("#teach-train-btn").disabled = training || ready || d.taken === 0 || (missing > 0 && !allow);
  $("#teach-train-btn").textContent = training ? t("Training...") : missing && allow ? tn("Train without {n} card", "Train without {n} cards", missing) : t("Train");
  $("#teach-allow-missing").disabled = training || ready;
  const bar = $("#teach-progress");
  bar.hidden = !(training || ready);
  bar.value = ready ? 1 : d.progress?.fraction || 0;
  let status = "";
  if (training) status = said(d.progress?.message, d.progress?.msg) || said(d.message, d.message_msg) || t("Training...");
  else if (ready || d.state === "failed") status = said(d.message, d.message_msg);
  else if (missing) status = tn("{n} card to go (or tick “without the cards not taken yet”).", "{n} cards to go (or tick “without the cards not taken yet”).", missing);
  else status = t("Every card is in: tap Train.");
  $("#teach-status").textContent = status;
  $("#teach-status").classList.toggle("failed", d.state === "failed");
  $("#teach-use").hidden = !ready;
  $("#teach-drop").hidden = ready;
  const sheet = $("#teach-sheet"), img = sheet.querySelector("img"), src = teachUrl("/sheet.png");
  sheet.hidden = !ready;
  if (ready && img.dataset.src !== src) { img.dataset.src = src; img.src = src; }
  if (!ready) { delete img.dataset.src; img.removeAttribute("src"); }
  clearInterval(T.poll); T.poll = null;
  if (training) T.poll = setInterval(pollTraining, 2000);     // the WebSocket pushes progress; this is the fallback
}
$("#teach-allow-missing").addEventListener("change", () => { if (T.draft) renderTrain(); });
$("#teach-sheet img").addEventListener("error", () => { $("#teach-sheet").hidden = true; });   // a deck taught before sheets
$("#teach-train-btn").addEventListener("click", async () => {
  if (!T.draft) return;
  showError("#teach-error", "");
  const minutes = Number($("#teach-minutes").value) || 10;
  try {
    const view = await change(teachUrl("/train"), { minutes, allow_missing: $("#teach-allow-missing").checked });
    if (!view) return;
    T.autoId++;
    T.draft = view;
    showDraft();
  } catch (err) { showError("#teach-error", err.message); }
});
async function pollTraining() {
  if (!T.draft || T.draft.state !== "training") { clearInterval(T.poll); T.poll = null; return; }
  try { const v = await getJSON(teachUrl()); if (v.state !== "training" || !T.draft || T.draft.state !== "training") teachView(v); }
  catch (err) { /* the next poll, or a push */ }
}
function teachView(view) {
  const was = T.draft?.state;
  T.draft = view.cards && view.cards.length ? view : { ...T.draft, message_msg: undefined, ...view, cards: T.draft.cards };
  if (currentTab() === "teach") showDraft();
  if (view.state === "ready" && was !== "ready") teachReady(view);
}
/* A `teach` WebSocket message: progress, then ready or failed. */
function teachPushed(t) {
  if (!t) return;
  if (t.state === "ready" || t.state === "forgotten") loadDecks();
  if (t.state === "forgotten") return;              // a deck, not the draft being taught
  if (!T.draft || t.name !== T.draft.name) return;
  if (t.state === "training") {
    T.draft = { ...T.draft, state: "training", progress: t.progress, message: t.message, message_msg: t.message_msg };
    if (currentTab() === "teach") renderTrain();
    return;
  }
  if (t.state === "dropped") { if (currentTab() === "teach") showTeachStart(); else T.draft = null; return; }
  getJSON(`/api/teach/${encodeURIComponent(t.name)}`).then(teachView).catch(() => {
    teachView({ ...T.draft, state: t.state, message: t.message, message_msg: t.message_msg, progress: t.progress });
  });
}
function teachReady(view) {
  S.preferDeck = view.name;
  loadDecks();
  const ready = said(view.message, view.message_msg) || t("Deck {name} ready.", { name: view.name });
  toast(ready);
  speak(ready);
}
$("#teach-use").addEventListener("click", (e) => {
  const like = T.draft?.like;
  const game = like && S.decks ? Object.keys(S.decks.games || {}).find((g) => S.decks.games[g] === like) : null;
  if (game && S.catalog.length) chooseGame(game);
  else if (game) S.pendingGame = game;
  e.preventDefault();
  location.hash = "#setup";
  setTimeout(() => window.scrollTo(0, 0), 50);
});
$("#teach-drop").addEventListener("click", async () => {
  if (!T.draft || !confirm(t("Throw deck {name} away, with every card taken?", { name: T.draft.name }))) return;
  try {
    const res = await change(teachUrl(), undefined, "DELETE");
    if (!res) return;
    T.autoId++;
    showTeachStart();
  } catch (err) { showError("#teach-error", err.message); }
});

/* ------------------------------------------------------------------ wake lock */
let wakeLock = null;
/* the Share screen's line about the screen staying on, said again when the language changes */
let wakeWords = () => t("The screen stays on while the game runs when the page is opened over HTTPS.");
function showWake(words) { wakeWords = words; $("#wake-status").textContent = words(); }
async function keepAwake() {
  if (!("wakeLock" in navigator)) {
    showWake(window.isSecureContext ? () => t("This browser cannot keep the screen on: set its sleep time longer.")
      : () => t("The screen may go to sleep: open the page over HTTPS (warref serve --https) to keep it on."));
    return;
  }
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    showWake(() => t("The screen stays on while this page is open."));
    wakeLock.addEventListener("release", () => { wakeLock = null; });
  } catch (err) { showWake(() => t("The screen may go to sleep ({error}).", { error: err.message })); }
}
document.addEventListener("visibilitychange", () => {
  if (S.started && document.visibilityState === "visible" && !wakeLock) keepAwake();
  kickPreview();
});

/* ------------------------------------------------------------------ tap to start */
function startTalking() {
  if (S.started) return;
  S.started = true;
  $("#start-overlay").hidden = true;
  measureTop();
  if ("speechSynthesis" in window) {
    try { const u = new SpeechSynthesisUtterance(" "); u.volume = 0; speechSynthesis.speak(u); } catch (e) { /* ignore */ }
  }
  keepAwake();
  const t = $("#banner-text").textContent;
  if (S.view && S.view.game && t) speak(t);
}
$("#start-btn").addEventListener("click", startTalking);
/* any first tap on the page lets it talk too: the bar is only a reminder */
document.addEventListener("pointerup", (e) => { if (!S.started && e.isTrusted && !$("#pin-dialog").contains(e.target)) startTalking(); }, true);

/* ------------------------------------------------------------------ layout: the banner stays in view under the top bar */
function measureTop() {
  const top = document.querySelector(".top");
  const sticky = getComputedStyle(top).position === "sticky";
  document.documentElement.style.setProperty("--top-h", `${sticky ? top.offsetHeight : 0}px`);
}
window.addEventListener("resize", measureTop);
measureTop();

/* ------------------------------------------------------------------ tabs */
const TABS = ["live", "setup", "proof", "games", "share", "teach"];
function currentTab() {
  const tab = (location.hash || "#live").slice(1);
  if (tab === "zones") return "setup";
  return TABS.includes(tab) ? tab : "live";
}
function route() {
  const tab = (location.hash || "#live").slice(1);
  const cur = currentTab();
  for (const t of TABS) $(`#tab-${t}`).hidden = t !== cur;
  const nav = cur === "teach" ? "setup" : cur;     // teaching a deck is part of setting up
  for (const a of document.querySelectorAll(".tabs a")) {
    a.classList.toggle("active", a.dataset.tab === nav);
    if (a.dataset.tab === nav) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  if (cur === "setup" && !S.catalog.length) loadCatalog();
  if (cur === "games") loadGames();
  if (cur === "share") loadShare();
  if (cur === "setup") loadZones().then(() => { if (tab === "zones") $("#zones-section").scrollIntoView({ block: "start" }); });
  if (cur === "teach") openTeach(); else leaveTeach();
  kickPreview();
}
window.addEventListener("hashchange", route);

/* ------------------------------------------------------------------ live updates */
let ws = null, backoff = 500, everConnected = false, wsTimer = null;
function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  try { ws = new WebSocket(url); } catch (e) { scheduleReconnect(); return; }
  ws.onopen = () => {
    backoff = 500;
    $("#badge-reconnect").hidden = true;
    if (everConnected) refreshState();
    everConnected = true;
  };
  ws.onmessage = (m) => {
    let msg; try { msg = JSON.parse(m.data); } catch (e) { return; }
    handleMessage(msg);
  };
  ws.onclose = () => { ws = null; scheduleReconnect(); };
  ws.onerror = () => { try { ws && ws.close(); } catch (e) { /* ignore */ } };
}
/* One WebSocket message (docs/dashboard-api.md). Tests call it as window.__warref.handle(msg). */
function handleMessage(msg) {
  if (!msg || typeof msg !== "object") return;
  if (msg.view) S.pushed += 1;
  if (msg.type === "hello" || msg.type === "setup") {
    if (msg.type === "setup") { S.seen.clear(); hideReask(); }
    if (msg.view) setView(msg.view);
    if (msg.type === "setup") zonesGameChanged();
  } else if (msg.type === "rulings") handleRulings(msg.rulings, msg.view);
  else if (msg.type === "correction") handleCorrection(msg.changed, msg.view);
  else if (msg.type === "clock") setClock(msg.clock);
  else if (msg.type === "camera") setCamera(msg.camera);
  else if (msg.type === "reask") handleReask(msg);
  else if (msg.type === "teach") teachPushed(msg.teach);
}
function scheduleReconnect() {
  $("#badge-reconnect").hidden = false;
  clearTimeout(wsTimer);
  wsTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 10000);
}
/* The state asked for over HTTP, shown unless a pushed view came while it was on its way: that answer
   may be older than the push (a request sent before a new game began must not put the old game back),
   and were it newer, what changed after the push is pushed too (the stream is whole from its hello). */
async function fetchState() {
  const pushed = S.pushed;
  const view = await getJSON("/api/state");
  if (S.pushed === pushed) setView(view, true);
}
async function refreshState() {
  loadCamera();
  try { await fetchState(); } catch (err) { /* the next reconnect tries again */ }
}
window.__warref = { S, CAM, Z, T, connect, refreshState, handle: handleMessage, loadCamera, loadZones, defaultZones,
  dropSocket: () => ws && ws.close() };

/* ------------------------------------------------------------------ the page's language (i18n.js) */
/* A server's sentence shown or said in the page's language: its message rendered (msg), else its text. */
function saidOf(r) { return said(r.text, r.msg); }
/* Why an action can't be taken now: the referee's sentence, in the page's language (entry_now.msgs
   holds the message of each sentence it gives). */
function whyWords(why) {
  if (!why) return why;
  const m = I18N.lang !== "en" ? entryNow().msgs?.[why] : null;
  return m ? msg(m) : why === "Not now." ? t("Not now.") : why;
}
/* The switch: everything the page wrote is written again in the new language. */
function sayAgain() {
  updatePinBadge(); renderMore(); updatePictureToggle(); showWake(wakeWords);
  if (CAM.info) setCamera(CAM.info);
  if (S.view) setView(S.view, false);
  else renderRuleSheet();
  tickClock();
  if (S.catalog.length) { renderGameChoices(); if (S.setupGame) chooseGame(S.setupGame.id); }
  if (S.decks) renderDeckSelect();
  if (Z.seats) renderZones();
  zonesCameraNote();
  if (T.draft && currentTab() === "teach") showDraft();
  if (currentTab() === "games") loadGames();
}

/* ------------------------------------------------------------------ start */
I18N.changed.push(sayAgain);
I18N.ready.then(() => {
  langSwitch($("#lang"), true);
  renderMore(); updatePictureToggle(); showWake(wakeWords);
  updatePinBadge();
  route();
  refreshState().then(() => { if (!S.view || !S.view.game) { renderLive(); } });
  connect();
});
if ("serviceWorker" in navigator && (window.isSecureContext)) {
  navigator.serviceWorker.register("sw.js").catch(() => { /* works without it */ });
}
