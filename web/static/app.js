/* warref dashboard. Plain JS, no build step, nothing fetched from the internet.
   The contract with the server is docs/dashboard-api.md. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "style") e.setAttribute("style", v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};

const PALETTE = ["#e4572e", "#2563eb", "#16a34a", "#9333ea", "#f59e0b", "#0891b2", "#db2777"];
const HEADLINE = new Set(["battle", "war", "game_over", "time_up", "out", "tie", "short", "turn_over",
  "reshuffle", "war_card", "called_off", "surrender", "undo"]);
const SPEAK = HEADLINE;

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
};

/* ------------------------------------------------------------------ speech */
window.__spoken = [];
let speechOn = localStorage.getItem("warref-speech") !== "off";
function speak(text) {
  if (!text) return;
  window.__spoken.push(text);
  if (!S.started || !speechOn || !("speechSynthesis" in window)) return;
  try {
    const u = new SpeechSynthesisUtterance(text);
    u.rate = 0.95; u.lang = "en";
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
  $("#pin-msg").textContent = message || "Only the table can change the game. The PIN is on the server's screen.";
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
function updatePinBadge() {
  const has = !!localStorage.getItem(PIN_KEY);
  const b = $("#badge-pin");
  b.textContent = has ? "Referee ✓" : "Watching (PIN?)";
  b.classList.toggle("ok", has);
  document.body.classList.toggle("readonly", !has);
}
$("#badge-pin").addEventListener("click", async () => {
  if (localStorage.getItem(PIN_KEY)) {
    if (confirm("Forget the PIN on this screen? It will only watch.")) localStorage.removeItem(PIN_KEY);
  } else {
    const pin = await askPin();
    if (pin) localStorage.setItem(PIN_KEY, pin);
  }
  updatePinBadge();
});

class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}
function detailText(body, status) {
  if (!body) return `The server answered ${status}.`;
  const d = body.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg || JSON.stringify(x)).join(" ");
  return `The server answered ${status}.`;
}
async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) throw new ApiError(r.status, detailText(body, r.status));
  return body;
}
/* A change: needs the PIN. Asks for it the first time and again after a 401. null = the user gave up. */
async function change(url, body) {
  let pin = localStorage.getItem(PIN_KEY);
  if (!pin) {
    pin = await askPin();
    if (!pin) return null;
    localStorage.setItem(PIN_KEY, pin); updatePinBadge();
  }
  for (let attempt = 0; attempt < 4; attempt++) {
    const r = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Warref-Pin": pin },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await r.json(); } catch (e) { /* empty */ }
    if (r.status === 401) {
      localStorage.removeItem(PIN_KEY); updatePinBadge();
      pin = await askPin("That PIN did not work. Try again (it is on the server's screen).");
      if (!pin) return null;
      localStorage.setItem(PIN_KEY, pin); updatePinBadge();
      continue;
    }
    if (!r.ok) throw new ApiError(r.status, detailText(data, r.status));
    return data;
  }
  return null;
}

/* ------------------------------------------------------------------ cards */
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
function cardFace(code) {
  const c = String(code || "").toUpperCase().replace(/\s+/g, "");
  if (c === "JOKER") return { text: "★J", red: false, label: "joker" };
  const m = c.match(/^(10|[2-9AJQKT])([SHDC])$/);
  if (m) return { text: (m[1] === "T" ? "10" : m[1]) + SUITS[m[2]], red: m[2] === "H" || m[2] === "D" };
  return { text: c || "?", red: /R$/.test(c) && c.length <= 3 };
}
function cardEl(code, who) {
  const f = cardFace(code);
  return el("span", { class: "pcard" + (f.red ? " red" : ""), title: who ? `${who}: ${code}` : code },
    el("span", { text: f.text }), who ? el("small", { text: who }) : null);
}

/* ------------------------------------------------------------------ live screen */
function playerColour(name) {
  const p = (S.view?.players || []).find((x) => x.name.toLowerCase() === String(name).toLowerCase());
  return p?.colour || "#888";
}

function bannerFrom(ruling, fixed) {
  const b = $("#banner");
  b.className = "banner";
  let kicker = "";
  if (fixed) { b.classList.add("fixed"); kicker = "Corrected"; }
  else if (ruling.type === "war" || ruling.type === "war_card") { b.classList.add("war"); kicker = "WAR!"; }
  else if (ruling.type === "battle") { b.classList.add("battle"); kicker = ruling.winner ? `${ruling.winner} wins` : "Battle"; }
  else if (ruling.type === "game_over") { b.classList.add("over"); kicker = ruling.winner ? `★ ${ruling.winner} wins the game ★` : "Game over"; }
  else if (ruling.type === "time_up") { b.classList.add("over"); kicker = "Time is up"; }
  else if (ruling.type === "undo") kicker = "Undone";
  $("#banner-kicker").textContent = kicker;
  $("#banner-text").textContent = ruling.text;
  if (ruling.winner) b.style.setProperty("border-color", playerColour(ruling.winner));
  else b.style.removeProperty("border-color");
}

function latestHeadline(rulings) {
  let best = null;
  for (const r of rulings || []) if (HEADLINE.has(r.type) && r.text) best = r;
  return best;
}

function renderLive() {
  const v = S.view;
  const hasGame = !!(v && v.game);
  $("#no-game").hidden = hasGame;
  $("#live-body").hidden = !hasGame;
  $("#game-name").textContent = hasGame ? v.name : "warref";
  if (!hasGame) return;
  const waiting = new Set((v.prompt?.waiting || []).map((s) => s.toLowerCase()));
  const ul = $("#players"); ul.replaceChildren();
  for (const p of v.players) {
    ul.append(el("li", { class: "player" + (p.out ? " out" : "") + (waiting.has(p.name.toLowerCase()) && !v.over ? " waiting" : ""),
      style: `--pc:${p.colour || "#888"}`, "data-player": p.name },
      el("div", { class: "pname", text: p.name }),
      el("div", {}, el("span", { class: "pcount", text: String(p.count) }), " ",
        el("span", { class: "punit", text: v.game === "casino" ? "chips" : "cards" }))));
  }
  $("#pile").textContent = v.pile ?? 0;
  $("#prompt").textContent = v.over ? "The game is over. Tap New game to play again." : (v.prompt?.text || "");
  const sheet = $("#rule-sheet-live"); sheet.replaceChildren(...(v.rule_sheet || []).map((t) => el("li", { text: t })));
  renderEntry();
}

function renderEntry() {
  const v = S.view; if (!v || !v.game) return;
  const seats = v.players.map((p) => p.name);
  if (v.game === "casino") seats.push("Dealer");
  const flips = $("#flip-buttons"), downs = $("#down-buttons");
  const key = seats.join("|") + v.players.map((p) => p.out).join("|") + v.over;
  if (flips.dataset.key === key) return;
  flips.dataset.key = key;
  flips.replaceChildren(...seats.map((s) => {
    const p = v.players.find((x) => x.name === s);
    return el("button", { type: "button", "data-flip": s, style: `--pc:${p ? p.colour : "#111"}`,
      disabled: (p && p.out) || v.over, onclick: () => sendFlip(s) }, `${s} turns it up`);
  }));
  downs.replaceChildren(...seats.map((s) => {
    const p = v.players.find((x) => x.name === s);
    return el("button", { type: "button", "data-down": s, class: "secondary", style: `--pc:${p ? p.colour : "#111"}`,
      disabled: (p && p.out) || v.over, onclick: () => sendEvent({ type: "down", seat: s, count: S.downCount }) }, `${s}: face down`);
  }));
  const fs = $("#fix-seat"); fs.replaceChildren(...seats.map((s) => el("option", { value: s, text: s })));
}

function buildKeys() {
  const ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JOKER"];
  $("#rank-keys").replaceChildren(...ranks.map((r) => el("button", { type: "button", onclick: () => {
    const inp = $("#card-input"); inp.value = r; inp.focus(); } }, r === "JOKER" ? "Joker" : r)));
  $("#suit-keys").replaceChildren(...Object.entries(SUITS).map(([k, sym]) => el("button", {
    type: "button", class: k === "H" || k === "D" ? "red" : "", "aria-label": { S: "spades", H: "hearts", D: "diamonds", C: "clubs" }[k],
    onclick: () => { const inp = $("#card-input"); inp.value = inp.value.replace(/[SHDC♠♥♦♣]$/i, "") + k; inp.focus(); } }, sym)));
}

async function sendFlip(seat) {
  const card = $("#card-input").value.trim().toUpperCase();
  if (!card) { showError("#entry-error", "Type or tap the card first (like 8S for the eight of spades)."); $("#card-input").focus(); return; }
  const ok = await sendEvent({ type: "flip", seat, card });
  // Clear the box unless the next card was already typed while this one was on its way.
  if (ok && $("#card-input").value.trim().toUpperCase() === card) $("#card-input").value = "";
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
$("#down-minus").addEventListener("click", () => { S.downCount = Math.max(1, S.downCount - 1); $("#down-count").textContent = S.downCount; });
$("#down-plus").addEventListener("click", () => { S.downCount = Math.min(20, S.downCount + 1); $("#down-count").textContent = S.downCount; });
$("#card-input").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const w = S.view?.prompt?.waiting || [];
  if (w.length === 1) sendFlip(w[0]);
});
$("#raw-form").addEventListener("submit", (e) => {
  e.preventDefault();
  let ev;
  try { ev = JSON.parse($("#raw-input").value); } catch (err) { showError("#entry-error", "That is not JSON, like {\"type\": \"recount\", \"seat\": \"Alex\", \"count\": 12}."); return; }
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
  const head = latestHeadline(fresh);
  if (head) bannerFrom(head);
  for (const r of fresh) {
    if (SPEAK.has(r.type)) speak(r.text);
  }
  const pr = fresh.find((r) => r.type === "prompt");
  if (pr && pr.war && pr.phase === "down") speak(pr.text);
}

function handleCorrection(changed, view) {
  const key = "fix|" + (view?.log_length ?? "") + "|" + JSON.stringify(changed || []);
  if (S.seen.has(key)) { if (view) setView(view, true); return; }
  S.seen.add(key);
  if (view) setView(view, true);
  const said = (changed || []).filter((r) => r.text && r.type !== "prompt");
  if (said.length) {
    bannerFrom(said[said.length - 1], true);
    speak("Correction. " + said.map((r) => r.text).join(" "));
  } else {
    toast("Corrected. No ruling changed.");
    speak("Correction. No ruling changed.");
  }
}

/* ------------------------------------------------------------------ view */
function setView(view, keepBanner) {
  if (view.history_start !== undefined) {
    /* A pushed view carries only the newest battles: keep the older ones we have, or fetch them all. */
    const had = (S.view && S.view.game_id === view.game_id && S.view.history) || null;
    if (had && had.length >= view.history_start) {
      view = { ...view, history: had.slice(0, view.history_start).concat(view.history) };
    } else {
      fetch("/api/state").then((r) => r.json()).then((full) => { if (full && full.game_id === view.game_id) setView(full, true); });
    }
    delete view.history_start;
  }
  const gameChanged = !S.view || S.view.game_id !== view.game_id;
  S.view = view;
  if (gameChanged) { S.clockRan = false; S.log = (view.last || []).filter((r) => r.type !== "prompt"); S.announcedTimeUp = !!view.clock?.time_up; }
  if (view.clock) setClock(view.clock);
  if (!keepBanner || gameChanged) {
    const head = latestHeadline(view.last);
    if (head) bannerFrom(head);
    else if (view.game) { $("#banner").className = "banner"; $("#banner-kicker").textContent = ""; $("#banner-text").textContent = view.over ? (view.result?.text || "Game over") : "Waiting for the first battle…"; }
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
    $("#clock-digits").textContent = "--:--"; $("#clock-label").textContent = "no clock";
  } else {
    const frac = Math.max(0, Math.min(1, left / length));
    const col = frac > 0.5 ? "#16a34a" : frac > 0.2 ? "#eab308" : "#dc2626";
    disc.style.setProperty("--frac", frac.toFixed(4));
    disc.style.setProperty("--col", col);
    $("#clock-digits").textContent = fmt(left);
    const up = c.time_up || left <= 0;
    if (up) { disc.classList.add("up"); $("#clock-label").textContent = "Time is up!"; }
    else $("#clock-label").textContent = c.running ? "left" : "paused";
    disc.setAttribute("aria-label", up ? "Time is up" : `${fmt(left)} left`);
    if (up && !S.announcedTimeUp) {
      S.announcedTimeUp = true;
      // The server's time_up ruling follows with the winner; the disc says it at once.
      toast("Time is up!");
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
    el("div", { class: "oname", text: o.name.replace(/_/g, " ") }),
    el("div", { class: "ohelp", text: o.help || "" }));
  if (o.kind === "choice") {
    for (const c of o.choices || []) {
      const help = o.choice_help && o.choice_help[c];
      box.append(el("label", { class: "choice" },
        el("input", { type: "radio", name: id, value: c, checked: String(o.default) === c }),
        el("span", {}, el("b", { text: c }), help ? el("span", { class: "chelp", text: " — " + help }) : null)));
    }
  } else if (o.kind === "bool") {
    box.append(el("label", { class: "choice" }, el("input", { type: "checkbox", id, checked: !!o.default }), el("span", { text: "on" })));
  } else {
    const off = o.default === null || o.default === undefined;
    const num = el("input", { type: "number", id, min: o.minimum ?? 1, value: off ? "" : o.default, inputmode: "numeric", placeholder: o.can_be_off ? "off" : "" });
    box.append(el("label", { class: "choice" }, num, o.can_be_off ? el("span", { class: "chelp", text: "leave empty for off" }) : null));
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
  $("#player-range").textContent = g.min_players === g.max_players ? `(${g.min_players})` : `(${g.min_players} to ${g.max_players})`;
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
      el("input", { type: "text", value: p.name, placeholder: `Player ${i + 1}'s name`, "aria-label": `Player ${i + 1}'s name`,
        maxlength: 24, "data-player-name": i, oninput: (e) => { p.name = e.target.value; } }),
      el("input", { type: "color", value: p.colour, "aria-label": `Player ${i + 1}'s colour`, oninput: (e) => { p.colour = e.target.value; } }),
      el("button", { type: "button", "aria-label": "Move up", disabled: i === 0, onclick: () => moveSetupPlayer(i, -1) }, "↑"),
      el("button", { type: "button", "aria-label": "Move down", disabled: i === S.setupPlayers.length - 1, onclick: () => moveSetupPlayer(i, 1) }, "↓"),
      el("button", { type: "button", "aria-label": "Remove", disabled: S.setupPlayers.length <= (g?.min_players ?? 2),
        onclick: () => { S.setupPlayers.splice(i, 1); renderSetupPlayers(); } }, "✕")))));
  $("#add-player").disabled = !g || S.setupPlayers.length >= g.max_players;
}
function moveSetupPlayer(i, d) {
  const j = i + d; const a = S.setupPlayers;
  [a[i], a[j]] = [a[j], a[i]]; renderSetupPlayers();
}
$("#add-player").addEventListener("click", () => { addSetupPlayer(); renderSetupPlayers(); });
$("#setup-clock-on").addEventListener("change", (e) => { $("#setup-clock-min").disabled = !e.target.checked; });
$("#setup-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  showError("#setup-error", "");
  const g = S.setupGame;
  const players = S.setupPlayers.map((p) => ({ name: p.name.trim(), colour: p.colour }));
  if (players.some((p) => !p.name)) { showError("#setup-error", "Every player needs a name."); return; }
  const body = { game: g.id, players, options: readOptions() };
  if ($("#setup-clock-on").checked) body.clock_minutes = Number($("#setup-clock-min").value) || 10;
  try {
    const v = await change("/api/games", body);
    if (!v) return;
    S.seen.clear(); S.log = [];
    setView(v.view || v);
    speak(`New game of ${g.name}: ${players.map((p) => p.name).join(", ")}.`);
    location.hash = "#live";
  } catch (err) { showError("#setup-error", err.message); }
});
function renderRuleSheet() {
  const sheet = S.view?.rule_sheet || [];
  $("#rule-sheet").replaceChildren(...(sheet.length ? sheet.map((t) => el("li", { text: t })) : [el("li", { text: "No game yet." })]));
}
async function loadCatalog() {
  try {
    S.catalog = await getJSON("/api/catalog");
  } catch (err) { showError("#setup-error", "Could not load the games: " + err.message); return; }
  $("#game-choices").replaceChildren(...S.catalog.map((g) => el("button", {
    type: "button", role: "radio", "data-game": g.id, "aria-checked": "false", onclick: () => chooseGame(g.id) },
    g.name, el("small", { text: g.min_players === g.max_players ? `${g.min_players} players` : `${g.min_players}–${g.max_players} players` }))));
  if (S.setupPlayers.length === 0 && S.view?.players) {
    S.setupPlayers = S.view.players.map((p) => ({ name: p.name, colour: p.colour || PALETTE[0] }));
  }
  chooseGame(S.view?.game || "classic");
}

/* ------------------------------------------------------------------ proof: history, enlarge, corrections */
function cardsRow(cards) {
  return el("span", { class: "cards" }, ...Object.entries(cards || {}).map(([who, c]) => cardEl(c, who)));
}
function historyList(target, view, readOnly) {
  const items = (view.history || []).slice().reverse();
  target.replaceChildren(...(items.length ? items.map((h) => el("li", {},
    el("button", { type: "button", "data-battle": h.battle, onclick: () => openBattle(h, view, readOnly) },
      el("span", { class: "bnum", text: `Battle ${h.battle}` }), cardsRow(h.cards),
      el("span", { class: "htext", text: h.text }),
      h.photo ? el("img", { src: h.photo, alt: "photo", loading: "lazy" }) : null))) : [el("li", { text: "No battles yet." })]));
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
  $("#battle-title").textContent = `Battle ${h.battle}`;
  $("#battle-cards").replaceChildren(...Object.entries(h.cards || {}).map(([who, c]) =>
    el("div", { class: "bc" }, cardEl(c), el("span", { text: who, style: `color:${playerColour(who)}` }))));
  const rulings = (h.rulings && h.rulings.length ? h.rulings : [{ text: h.text }]).filter((r) => r.type !== "prompt");
  $("#battle-rulings").replaceChildren(...rulings.map((r) => el("li", { text: r.text })));
  const img = $("#battle-photo");
  if (h.photo) { img.src = h.photo; img.hidden = false; } else { img.hidden = true; img.removeAttribute("src"); }
  const fix = $("#battle-fix"); fix.replaceChildren();
  showError("#battle-error", "");
  if (!readOnly) {
    const seqs = flipSeqs(h);
    fix.append(el("h3", { text: "Misread a card? Fix it:" }));
    for (const [who, c] of Object.entries(h.cards || {})) {
      const seq = seqs[who];
      const inp = el("input", { value: c, "aria-label": `${who}'s card`, "data-fix-card": who, autocapitalize: "characters", autocomplete: "off" });
      fix.append(el("div", { class: "fixrow" }, el("b", { text: `${who}:` }), inp,
        el("button", { type: "button", disabled: seq === undefined, "data-fix-btn": who,
          onclick: () => correct(seq, correctedFlip(h, who, inp.value.trim().toUpperCase()), "#battle-error") },
          seq === undefined ? "(use the log)" : `Fix ${who}'s card`)));
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
    return el("li", {}, el("span", { class: "seq", text: `#${r.seq}` }), el("span", { text: r.text }),
      fixable ? el("button", { type: "button", onclick: () => prefillFix(r) }, "Fix") : null);
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
      `${g.name || g.game}: ${(g.players || []).map((p) => (typeof p === "string" ? p : p.name)).join(", ")}`,
      el("span", { class: "gmeta", text: `${g.created ? new Date(typeof g.created === "number" ? g.created * 1000 : g.created).toLocaleString() : ""} — ${g.result ? (g.result.text || g.result) : g.finished ? "finished" : "not finished"}` }))))
      : [el("li", { text: "No games yet." })]));
  } catch (err) { ul.replaceChildren(el("li", { class: "error", text: err.message })); }
}
async function openPastGame(id) {
  const box = $("#past-game");
  try {
    const v = await getJSON(`/api/games/${id}`);
    const hist = el("ol", { class: "history", reversed: true });
    box.replaceChildren(
      el("h2", { text: `${v.name} — game ${v.game_id ?? id} (read-only)` }),
      el("p", { text: v.result ? v.result.text : v.over ? "Finished." : (v.prompt?.text || "") }),
      el("ul", { class: "players" }, ...(v.players || []).map((p) => el("li", { class: "player" + (p.out ? " out" : ""), style: `--pc:${p.colour || "#888"}` },
        el("div", { class: "pname", text: p.name }), el("div", { class: "pcount", text: String(p.count) })))),
      el("h3", { text: "Battles" }), hist,
      el("details", {}, el("summary", { text: "Rules" }), el("ul", { class: "rule-sheet" }, ...(v.rule_sheet || []).map((t) => el("li", { text: t })))));
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

/* ------------------------------------------------------------------ wake lock */
let wakeLock = null;
async function keepAwake() {
  if (!("wakeLock" in navigator)) {
    $("#wake-status").textContent = window.isSecureContext ? "This browser cannot keep the screen on: set its sleep time longer."
      : "The screen may go to sleep: open the page over HTTPS (warref serve --https) to keep it on.";
    return;
  }
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    $("#wake-status").textContent = "The screen stays on while this page is open.";
    wakeLock.addEventListener("release", () => { wakeLock = null; });
  } catch (err) { $("#wake-status").textContent = "The screen may go to sleep (" + err.message + ")."; }
}
document.addEventListener("visibilitychange", () => { if (S.started && document.visibilityState === "visible" && !wakeLock) keepAwake(); });

/* ------------------------------------------------------------------ tap to start */
$("#start-btn").addEventListener("click", () => {
  S.started = true;
  $("#start-overlay").hidden = true;
  if ("speechSynthesis" in window) {
    try { const u = new SpeechSynthesisUtterance(" "); u.volume = 0; speechSynthesis.speak(u); } catch (e) { /* ignore */ }
  }
  keepAwake();
  const t = $("#banner-text").textContent;
  if (S.view && S.view.game && t) speak(t);
});

/* ------------------------------------------------------------------ tabs */
const TABS = ["live", "setup", "proof", "games", "share"];
function route() {
  const tab = (location.hash || "#live").slice(1);
  const cur = TABS.includes(tab) ? tab : "live";
  for (const t of TABS) $(`#tab-${t}`).hidden = t !== cur;
  for (const a of document.querySelectorAll(".tabs a")) {
    a.classList.toggle("active", a.dataset.tab === cur);
    if (a.dataset.tab === cur) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  if (cur === "setup" && !S.catalog.length) loadCatalog();
  if (cur === "games") loadGames();
  if (cur === "share") loadShare();
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
    if (msg.type === "hello" || msg.type === "setup") {
      if (msg.type === "setup") { S.seen.clear(); }
      if (msg.view) setView(msg.view);
    } else if (msg.type === "rulings") handleRulings(msg.rulings, msg.view);
    else if (msg.type === "correction") handleCorrection(msg.changed, msg.view);
    else if (msg.type === "clock") setClock(msg.clock);
  };
  ws.onclose = () => { ws = null; scheduleReconnect(); };
  ws.onerror = () => { try { ws && ws.close(); } catch (e) { /* ignore */ } };
}
function scheduleReconnect() {
  $("#badge-reconnect").hidden = false;
  clearTimeout(wsTimer);
  wsTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 10000);
}
async function refreshState() {
  try { setView(await getJSON("/api/state"), true); } catch (err) { /* the next reconnect tries again */ }
}
window.__warref = { S, connect, refreshState, dropSocket: () => ws && ws.close() };

/* ------------------------------------------------------------------ start */
buildKeys();
updatePinBadge();
route();
refreshState().then(() => { if (!S.view || !S.view.game) { renderLive(); } });
connect();
if ("serviceWorker" in navigator && (window.isSecureContext)) {
  navigator.serviceWorker.register("sw.js").catch(() => { /* works without it */ });
}
