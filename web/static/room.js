/* warref: Guerra rooms on phones (/room and /room/CODE). Plain JS, no build step, nothing fetched
   from the internet. The server side is web/rooms.py and web/rooms_api.py: a seat's device proves
   its seat with the token it got when it created or joined the room (kept here in localStorage,
   per room code), in the X-Seat-Token header and as the WebSocket's first message. */
"use strict";

// $ and el come from dom.js

const R = {
  code: null,          // this room's code (null on /room)
  token: null,         // this device's seat token for the room (null: watching)
  view: null,          // the latest view from the server
  offset: 0,           // server clock minus this device's clock, in ms
  rulings: null,       // the latest rulings' texts (to say only the new ones)
  busy: false,         // a move is on its way
  clickedAt: -1,       // the view version a move was chosen on: its buttons wait for a newer view
  suggestion: null,    // {text, key, until}
  hint: null,          // the coach's answer {move, text, moves}: shown while no move has been made since
  wasYours: false,
  hands: [],           // what the hand area showed, per view version (the tests read it)
  errors: [],          // every error shown (the tests read it)
};
window.__spoken = [];

/* ------------------------------------------------------------------ words */
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
// Guerra numbers its cards: the ace is 1 (the lowest), a jack 11 and a queen 12 of the advanced deck
const RANKS = { A: "1", 1: "1", J: "11", Q: "12", 11: "11", 12: "12" };
function cardParts(code) {
  const suit = code.slice(-1);
  let rank = code.slice(0, -1);
  rank = RANKS[rank] || rank;
  return { rank, suit: SUITS[suit] || "", red: suit === "H" || suit === "D" };
}
function cardName(code) { const p = cardParts(code); return `${p.rank}${p.suit}`; }
// every word a person reads or hears goes through t()/tn() (i18n.js): web/locale/pt.po has them
function ordinal(i) { return [t("1st"), t("2nd"), t("3rd")][i] || t("{n}th", { n: i + 1 }); }
function points(n) { return tn("{n} point", "{n} points", n); }
function orList(names) {
  if (names.length <= 1) return names.join("");
  return t("{first} or {last}", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}
function andList(names) {
  if (names.length <= 1) return names.join("");
  return t("{first} and {last}", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}
function asObject(x) { return Array.isArray(x) ? Object.fromEntries(x) : (x || {}); }
function pendingOf(tb) {
  const p = tb && tb.pending;
  if (!p) return null;
  return Array.isArray(p) ? { side: p[0], value: p[1] } : p;
}

/* ------------------------------------------------------------------ speech (as the dashboard: every ruling said) */
let voiceOn = localStorage.getItem("warref-speech") !== "off";
let voiceReady = false;
function showVoice() {
  const b = $("#r-speech");
  b.textContent = voiceOn ? t("🔊 Voice on") : t("🔇 Voice off");
  b.title = t("Say the rulings aloud");
  b.setAttribute("aria-pressed", voiceOn ? "true" : "false");
  b.classList.toggle("ok", voiceOn);
}
$("#r-speech").addEventListener("click", () => {
  voiceOn = !voiceOn;
  localStorage.setItem("warref-speech", voiceOn ? "on" : "off");
  if (!voiceOn && "speechSynthesis" in window) speechSynthesis.cancel();
  showVoice();
});
/* browsers speak only after a tap on the page */
document.addEventListener("pointerup", (e) => {
  if (voiceReady || !e.isTrusted) return;
  voiceReady = true;
  if ("speechSynthesis" in window) {
    try { const u = new SpeechSynthesisUtterance(" "); u.volume = 0; speechSynthesis.speak(u); } catch (err) { /* no voice */ }
  }
}, true);
function speak(text) {
  if (!text) return;
  window.__spoken.push(text);
  window.__spokenLang = SPEECH_LANG[I18N.lang] || "en";             // the tests read it
  if (!voiceOn || !voiceReady || !("speechSynthesis" in window)) return;
  try {
    const u = new SpeechSynthesisUtterance(text);
    u.rate = 0.95; u.lang = SPEECH_LANG[I18N.lang] || "en";      // pt-PT with a Portuguese voice where the device has one
    const voice = I18N.lang === "en" ? null : voiceFor(I18N.lang);
    if (voice) u.voice = voice;
    speechSynthesis.speak(u);
  } catch (err) { /* no voice: the list still shows it */ }
}

/* ------------------------------------------------------------------ errors: shown until closed or replaced */
function showError(msg) {
  if (!msg) return;
  R.errors.push(msg);
  $("#r-error-text").textContent = msg;
  $("#r-error").hidden = false;
}
function clearError() { $("#r-error").hidden = true; $("#r-error-text").textContent = ""; }
$("#r-error-close").addEventListener("click", clearError);

/* ------------------------------------------------------------------ requests */
class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}
function detailText(body, status) {
  if (body && body.detail_msg && I18N.lang !== "en") return msg(body.detail_msg);     // the server's sentence, in this language
  const d = body && body.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg || JSON.stringify(x)).join(" ");
  return t("The server answered {status}.", { status });
}
async function request(method, url, body, tries = 1) {
  const headers = { "Content-Type": "application/json" };
  if (R.token) headers["X-Seat-Token"] = R.token;
  let r = null;
  for (let i = 0; ; i++) {
    try {
      r = await fetch(url, { method, headers, cache: "no-store", body: body === undefined ? undefined : JSON.stringify(body) });
      break;
    } catch (err) {
      if (i + 1 >= tries) throw new ApiError(0, t("The server cannot be reached: check the Wi-Fi, then try again."));
      await new Promise((ok) => setTimeout(ok, 400 * (i + 1)));
    }
  }
  let data = null;
  try { data = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) throw new ApiError(r.status, detailText(data, r.status));
  return data;
}
function newId() { return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`; }
/* the id of one create or join: it brings back the seat's token on a retry, so it is a long random one */
function onceId() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/* ------------------------------------------------------------------ seat tokens, per room code */
const KEY = (code) => `warref-room:${code}`;
function savedSeat(code) {
  try { return JSON.parse(localStorage.getItem(KEY(code)) || "null"); } catch (e) { return null; }
}
function saveSeat(code, answer, name) {
  localStorage.setItem(KEY(code), JSON.stringify({ token: answer.token, seat: answer.seat, name }));
  if (name) localStorage.setItem("warref-room-name", name);
}
function forgetSeat(code) { localStorage.removeItem(KEY(code)); }
function lastName() { return localStorage.getItem("warref-room-name") || ""; }

/* ================================================================== /room: create, join, list */
function chosen(name) { const c = document.querySelector(`input[name=${name}]:checked`); return c ? c.value : null; }
function drawCreateSeats() {
  const n = Number(chosen("c-players") || 2);
  const list = $("#c-seats");
  const ticked = new Set([...list.querySelectorAll("input:checked")].map((x) => Number(x.value)));
  list.textContent = "";
  list.append(el("li", { class: "c-seat" }, el("span", { class: "c-seat-name" }, t("Seat 1: you")),
    el("small", { class: "c-seat-team" }, n > 2 ? t("team A") : "")));
  for (let i = 1; i < n; i++) {
    const team = n > 2 ? (i % 2 === 0 ? t("team A (your partner)") : t("team B")) : t("your opponent");
    list.append(el("li", { class: "c-seat" },
      el("span", { class: "c-seat-name" }, t("Seat {n}", { n: i + 1 })),
      el("small", { class: "c-seat-team" }, team),
      el("label", { class: "c-npc" }, el("input", { type: "checkbox", value: String(i), "data-npc-seat": String(i), checked: ticked.has(i) }), " NPC")));
  }
}
function createBody(allNpcs) {
  const name = $("#c-name").value.trim();
  const players = Number(chosen("c-players") || 2);
  const npcSeats = allNpcs ? [...Array(players).keys()].slice(1)
    : [...document.querySelectorAll("#c-seats input:checked")].map((x) => Number(x.value)).filter((i) => i < players);
  return { name, players, npc_seats: npcSeats, level: $("#c-level").value, options: { cut: chosen("c-cut") || "optional", deck: "auto" } };
}
async function createRoom(allNpcs) {
  clearError();
  const body = createBody(allNpcs);
  if (!body.name) { showError(t("Type your name first: it is how the table calls you.")); $("#c-name").focus(); return; }
  for (const b of document.querySelectorAll("#c-form button")) b.disabled = true;
  body.id = onceId();                    // one id per tap: a retry of it gets the same room, not a second one
  try {
    const answer = await request("POST", "/api/rooms", body, 3);
    saveSeat(answer.code, answer, body.name);
    if (allNpcs) {
      R.token = answer.token;
      await request("POST", `/api/rooms/${answer.code}/start`, { fill: true }, 3);
    }
    location.assign(`/room/${answer.code}`);
  } catch (err) {
    showError(err.message);
    for (const b of document.querySelectorAll("#c-form button")) b.disabled = false;
  }
}
function cleanCode(text) { return String(text || "").trim().toUpperCase().replace(/[^A-Z0-9]/g, ""); }
async function joinByCode() {
  clearError();
  const code = cleanCode($("#j-code").value);
  if (!code) { showError(t("Type the room's code: the 6 letters and digits on the creator's screen.")); return; }
  const name = $("#j-name").value.trim();
  if (name) localStorage.setItem("warref-room-name", name);
  try {
    await request("GET", `/api/rooms/${encodeURIComponent(code)}`, undefined, 2);   // a wrong code says so here
    location.assign(`/room/${code}`);
  } catch (err) { showError(err.message); }
}
let listTimer = null, listPages = 1;
/* the lobby's list, a page (20 rooms, newest first) at a time: "More rooms" shows the next page, and a
   refresh reloads as many pages as are shown */
async function loadList(more) {
  if (more === true) listPages += 1;
  const rooms = [];
  let after = null;
  try {
    for (let page = 0; page < listPages; page++) {
      const data = await request("GET", `/api/rooms?limit=20${after ? `&after=${encodeURIComponent(after)}` : ""}`);
      rooms.push(...((data && data.rooms) || []));
      after = data && data.next;
      if (!after) { listPages = page + 1; break; }
    }
  } catch (err) { $("#l-empty").textContent = err.message; $("#l-empty").hidden = false; return; }
  $("#l-more").hidden = !after;
  const ul = $("#l-rooms");
  ul.textContent = "";
  $("#l-empty").textContent = t("No room has a free seat right now.");
  $("#l-empty").hidden = rooms.length > 0;
  for (const r of rooms) {
    const seats = r.seats.map((s, i) => (s === "(open)" ? t("open seat") : r.free.includes(i) ? t("{name} (an NPC: take it over)", { name: s }) : s)).join(", ");
    const mine = savedSeat(r.code);
    const doing = r.started ? t("playing: take over an NPC") : t("waiting for players");
    ul.append(el("li", { class: "l-room", "data-room": r.code },
      el("span", { class: "l-code r-mono" }, r.code),
      el("span", { class: "l-about" },
        el("b", {}, t("{n} players · {what}", { n: r.players, what: doing })),
        el("small", {}, seats)),
      el("a", { class: "link-btn l-join", href: `/room/${r.code}` }, mine ? t("Back to my seat") : t("Join"))));
  }
}
function openLobby() {
  $("#r-lobby").hidden = false;
  document.title = t("Guerra rooms — warref");
  $("#c-name").value = lastName();
  $("#j-name").value = lastName();
  drawCreateSeats();
  for (const r of document.querySelectorAll("input[name=c-players]")) r.addEventListener("change", drawCreateSeats);
  $("#c-form").addEventListener("submit", (e) => { e.preventDefault(); createRoom(false); });
  $("#c-npcs").addEventListener("click", () => createRoom(true));
  $("#j-form").addEventListener("submit", (e) => { e.preventDefault(); joinByCode(); });
  $("#j-code").addEventListener("input", () => { const v = cleanCode($("#j-code").value); if (v !== $("#j-code").value) $("#j-code").value = v; });
  $("#l-refresh").addEventListener("click", () => loadList());
  $("#l-more").addEventListener("click", () => loadList(true));
  loadList();
  listTimer = setInterval(() => { if (document.visibilityState === "visible") loadList(); }, 5000);
}

/* ================================================================== /room/CODE: one room */
let ws = null, backoff = 500, wsTimer = null, pingTimer = null, stopped = false;
function setOffline(off) { $("#r-offline").hidden = !off; document.body.classList.toggle("offline", off); }
function connect() {
  clearTimeout(wsTimer);
  if (stopped) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/rooms/${R.code}`;
  let sock;
  try { sock = new WebSocket(url); } catch (e) { scheduleReconnect(); return; }
  ws = sock;
  sock.onopen = () => {
    sock.send(JSON.stringify({ token: R.token }));
    backoff = 500;
    setOffline(false);
  };
  sock.onmessage = (m) => {
    let msg; try { msg = JSON.parse(m.data); } catch (e) { return; }
    handle(msg);
  };
  sock.onclose = (e) => {
    if (ws !== sock) return;
    ws = null;
    if (e.code === 4403 || e.code === 4401) {        // this device's token is not one of the room's
      forgetSeat(R.code); R.token = null;
      backoff = 500;
    } else if (e.code === 4404) {                    // no such room: nothing to reconnect to
      stopped = true; setOffline(false); $("#r-gone").hidden = false;
      return;
    }
    scheduleReconnect();
  };
  sock.onerror = () => { try { sock.close(); } catch (e) { /* ignore */ } };
}
function scheduleReconnect() {
  setOffline(true);
  clearTimeout(wsTimer);
  wsTimer = setTimeout(connect, backoff + Math.random() * 250);
  backoff = Math.min(backoff * 2, 10000);
}
function reconnectNow() {
  const old = ws; ws = null;
  if (old) { try { old.close(); } catch (e) { /* ignore */ } }
  backoff = 500;
  connect();
}
function handle(msg) {
  if (!msg || typeof msg !== "object") return;
  if (msg.type === "view") render(msg);
  else if (msg.type === "error") showError(msg.detail ? detailText(msg, msg.status) : t("The server refused that."));
  else if (msg.type === "pong" && typeof msg.now === "number") R.offset = msg.now * 1000 - Date.now();
  else if (msg.type === "suggestion") showSuggestion(msg);
}
async function refreshView() {
  try { render(await request("GET", `/api/rooms/${R.code}`)); } catch (err) {
    if (err.status === 403) { forgetSeat(R.code); R.token = null; showError(err.message); reconnectNow(); }
    else if (err.status === 404) { stopped = true; showError(err.message); $("#r-gone").hidden = false; }
    else if (err.status) showError(err.message);
  }
}
document.addEventListener("visibilitychange", () => {
  if (R.code && document.visibilityState === "visible" && !ws && !stopped) { backoff = 500; connect(); }
});

function openRoom(code) {
  R.code = code;
  document.title = t("Room {code} — Guerra", { code });
  const saved = savedSeat(code);
  R.token = saved ? saved.token : null;
  $("#r-room").hidden = false;
  $("#r-join-name").value = lastName();
  $("#r-start").addEventListener("click", () => start(false));
  $("#r-fill").addEventListener("click", () => start(true));
  $("#r-again").addEventListener("click", again);
  $("#r-coach").addEventListener("change", (e) => setCoach(e.target.checked));
  $("#r-hint-btn").addEventListener("click", askHint);
  refreshView();
  connect();
  pingTimer = setInterval(() => { if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "ping" })); }, 20000);
  setInterval(tickRing, 200);
}

/* -- actions ---------------------------------------------------------------------------------------- */
async function join(seat) {
  clearError();
  const name = $("#r-join-name").value.trim();
  if (!name) { showError(t("Type your name first: it is how the table calls you.")); $("#r-join-name").focus(); return; }
  try {
    // one id per tap: a retry of it gets the same seat and token, not a refusal and a seat held by nobody
    const answer = await request("POST", `/api/rooms/${R.code}/join`, { name, seat, id: onceId() }, 2);
    saveSeat(R.code, answer, name);
    R.token = answer.token;
    R.rulings = null;
    reconnectNow();
  } catch (err) { showError(err.message); }
}
async function moveSeat(seat) {
  clearError();
  try {
    const answer = await request("POST", `/api/rooms/${R.code}/seat`, { seat }, 2);
    const saved = savedSeat(R.code);
    if (saved) saveSeat(R.code, { token: saved.token, seat: answer.seat }, saved.name);
  } catch (err) { showError(err.message); }
}
async function start(fill) {
  clearError();
  for (const b of [$("#r-start"), $("#r-fill")]) b.disabled = true;
  try { await request("POST", `/api/rooms/${R.code}/start`, { fill }, 2); } catch (err) {
    showError(err.message);
    for (const b of [$("#r-start"), $("#r-fill")]) b.disabled = false;
  }
}
async function again() {
  clearError();
  $("#r-again").disabled = true;
  try { await request("POST", `/api/rooms/${R.code}/again`, {}, 2); } catch (err) { showError(err.message); }
  $("#r-again").disabled = false;
}
async function play(move) {
  if (R.busy) return;
  clearError();
  R.busy = true;
  R.clickedAt = R.view ? R.view.room.version : -1;
  drawMoves();
  const body = { move: { kind: move.kind, slot: move.slot ?? null, down: !!move.down, parity: move.parity ?? null, choice: move.choice ?? null }, id: newId() };
  try {
    await request("POST", `/api/rooms/${R.code}/act`, body, 3);     // the same id: a retry changes nothing twice
  } catch (err) {
    showError(err.message);
    R.clickedAt = -1;
  }
  R.busy = false;
  drawMoves();
  if (!ws || ws.readyState !== 1) refreshView();
  else setTimeout(() => { if (R.clickedAt >= 0 && R.view && R.view.room.version <= R.clickedAt) refreshView(); }, 2500);
}
async function suggest(move, words) {
  clearError();
  try {
    const answer = await request("POST", `/api/rooms/${R.code}/suggest`, { move }, 2);
    const to = (answer && answer.shown_to) || [];
    $("#r-suggest-to").textContent = to.length ? ` (${to.join(", ")})` : "";
    const who = andList(to) || t("your partner");
    flash(t("Suggested to {who}: {what}.", { who, what: words }));
  } catch (err) { showError(err.message); }
}
/* -- the coach: the hard NPC's move for this seat and one sentence why (when the creator has it on) ----- */
async function askHint() {
  clearError();
  $("#r-hint-btn").disabled = true;
  try {
    R.hint = await request("POST", `/api/rooms/${R.code}/hint`, {}, 2);
    drawMoves();
    speak(said(R.hint.text, R.hint.msg));
  } catch (err) { showError(err.message); $("#r-hint-btn").disabled = false; }
}
function sameMove(a, b) {
  return ["kind", "slot", "down", "parity", "choice"].every((k) => (a[k] ?? null) === (b[k] ?? null) || (k === "down" && !a[k] === !b[k]));
}
function drawCoach(v) {
  const room = v.room;
  const seated = room.you !== null && room.you !== undefined;
  $("#r-coach-line").hidden = !seated || room.over || (!room.creator && !room.coach);
  $("#r-coach-label").hidden = !room.creator;
  $("#r-coach").checked = !!room.coach;
  $("#r-coach-note").textContent = room.creator ? "" : t("The coach is on: ask 💡 Hint on your turn.");
}
async function setCoach(on) {
  clearError();
  try { await request("POST", `/api/rooms/${R.code}/coach`, { on }, 2); } catch (err) { showError(err.message); }
  refreshView();
}

function flash(text) {
  const box = $("#r-suggestion");
  box.textContent = text; box.hidden = false; box.classList.add("sent");
  clearTimeout(flash.t);
  flash.t = setTimeout(() => { box.classList.remove("sent"); drawSuggestion(); }, 3000);
}

/* -- suggestions from a partner (only the partners get them) ------------------------------------------ */
function suggestionWords(move) {
  const k = move && move.kind;
  if (k === "flip") return move.down ? t("play a card face down") : t("play a card face up");
  const cut = { up: t("cut up"), down: t("cut down") }[move.choice] || t("cut");
  return { raise: t("Ofensiva! (raise)"), accept: t("accept"), refuse: t("refuse"), pass: t("pass"), call: t("call a troca"),
           abstain: t("abstain"), cut }[k] || String(k || t("something"));
}
function showSuggestion(msg) {
  R.suggestion = { from: msg.from, move: msg.move, key: decisionKey(R.view), until: Date.now() + 20000 };
  R.suggestion.text = suggestionText(R.suggestion);
  drawSuggestion();
  speak(R.suggestion.text);
}
function drawSuggestion() {
  const box = $("#r-suggestion");
  if (box.classList.contains("sent")) return;
  const s = R.suggestion;
  const live = s && Date.now() < s.until && s.key === decisionKey(R.view);
  box.hidden = !live;
  if (live) box.textContent = `💡 ${suggestionText(s)}`;
}
function suggestionText(s) { return t("{name} suggests: {what}", { name: s.from, what: suggestionWords(s.move) }); }
/* a suggestion is about the rodada in play: it goes when the rodada (or the confronto) is over */
function decisionKey(v) {
  if (!v || !v.table || v.room.over) return "";
  return `${v.table.confrontos}:${v.table.rodada}`;
}

/* -- drawing -------------------------------------------------------------------------------------------- */
function myName(v) { return v && v.room.you !== null && v.room.you !== undefined ? v.room.seats[v.room.you].name : null; }
function shownName(v, name) {       // a player who took over an NPC is named as the player
  const s = v && v.room.seats.find((x) => x.name === name);
  return (s && s.shown) || name;
}
/* a side's players, each whole on a line of its own (a long name ends in … rather than breaking) */
function sideMembers(v, side, fallback) {
  const names = v.room.seats.filter((s) => s.side === side && (s.shown || s.name)).map((s) => s.shown || s.name);
  if (!names.length) return [fallback];
  return names.map((n) => el("span", { class: "r-member", title: n }, n));
}
/* a side in a few words: in a team game "your side" or "the other side" (the names are on the score) */
function sideWord(v, side, sides) {
  const me = v.room.you !== null && v.room.you !== undefined ? v.room.seats[v.room.you] : null;
  if (v.room.players <= 2 || !me) return sides[side];
  return side === me.side ? t("your side") : t("the other side");
}
function sideNames(v) {
  if (v.side_names && I18N.lang === "en") return v.side_names;
  const names = [[], []];
  for (const s of v.room.seats) names[s.side].push(s.name || t("seat {n}", { n: s.seat + 1 }));
  return names.map((n) => andList(n));
}
function render(v) {
  if (!v || !v.room) return;
  if (R.view && v.room.version < R.view.room.version && v.room.code === R.view.room.code) return;  // an older view
  R.view = v;
  if (typeof v.now === "number") R.offset = v.now * 1000 - Date.now();
  const room = v.room;
  $("#r-code").textContent = room.code;
  $("#r-code-small").textContent = room.code;
  $("#r-join-code").textContent = room.code;
  const address = `${location.origin}/room/${room.code}`;
  $("#r-address").textContent = address;
  const qr = `/api/rooms/${room.code}/qr.svg`;
  if ($("#r-qr").getAttribute("src") !== qr) $("#r-qr").src = qr;

  drawJoin(v);
  $("#r-wait").hidden = room.started;
  $("#r-seats-wait-box").hidden = room.started;
  $("#r-table").hidden = !room.started;
  if (!room.started) drawWaiting(v);
  else drawTable(v);
  drawSeats(v, room.started ? $("#r-seats") : $("#r-seats-wait"));
  drawCoach(v);
  document.body.dataset.version = String(room.version);
}
function freeSeats(v) {
  const room = v.room;
  if (room.over) return [];
  return room.seats.filter((s) => (s.by === "open" && !room.started) || (s.by === "npc" && !s.away));
}
function drawJoin(v) {
  const room = v.room;
  const free = freeSeats(v);
  const show = room.you === null && free.length > 0;
  $("#r-join").hidden = !show;
  if (!show) return;
  const ul = $("#r-join-seats");
  ul.textContent = "";
  // by team (the creator's first), and on a team an empty chair before an NPC's
  const order = free.slice().sort((a, b) => a.side - b.side || (a.by === "open" ? 0 : 1) - (b.by === "open" ? 0 : 1) || a.seat - b.seat);
  for (const s of order) {
    const what = s.by === "open" ? t("Seat {n}: open", { n: s.seat + 1 }) : t("Seat {n}: take over {name}", { n: s.seat + 1, name: s.name });
    ul.append(el("li", {}, el("button", { type: "button", class: "r-take", "data-take-seat": String(s.seat), onclick: () => join(s.seat) },
      what, room.players > 2 ? el("small", { class: "r-team" }, teamWords(room, s)) : null)));
  }
}
/* "team A, with Alex" / "team B, against Alex and Sam": whom a seat plays with */
function teamWords(room, seat) {
  const mates = room.seats.filter((x) => x.side === seat.side && x.seat !== seat.seat && x.by !== "open").map((x) => x.shown || x.name);
  const others = room.seats.filter((x) => x.side !== seat.side && x.by !== "open").map((x) => x.shown || x.name);
  const team = seat.side === 0 ? t("team A") : t("team B");
  if (mates.length) return ` · ${t("{team}, with {names}", { team, names: andList(mates) })}`;
  return others.length ? ` · ${t("{team}, against {names}", { team, names: andList(others) })}` : ` · ${team}`;
}
function drawWaiting(v) {
  const room = v.room;
  const open = room.seats.filter((s) => s.by === "open").length;
  $("#r-wait-text").textContent = open
    ? `${tn("Waiting for {n} more player…", "Waiting for {n} more players…", open)}${room.creator ? "" : ` ${t("The room's creator starts the game.")}`}`
    : room.creator ? t("Everyone is here: start the game.") : t("Everyone is here: the room's creator starts the game.");
  $("#r-start-box").hidden = !room.creator;
  $("#r-start").disabled = open > 0;
  $("#r-start").title = open ? t("Some seats are still empty") : "";
  $("#r-fill").hidden = open === 0;
  $("#r-fill").disabled = false;
}
function drawSeats(v, ul) {
  const room = v.room;
  const tb = v.table || {};
  const counts = asObject(tb.counts);
  const waiting = new Set((v.waiting && v.waiting.seats) || []);
  ul.textContent = "";
  for (const s of room.seats) {
    let status, cls;
    if (s.by === "open") { status = t("open seat"); cls = "open"; }
    else if (s.by === "npc" && s.away) { status = t("away: an NPC plays until they are back"); cls = "away"; }
    else if (s.by === "npc") { status = t("NPC ({level})", { level: levelWord(room.level) }); cls = "npc"; }
    else if (s.online) { status = t("online"); cls = "online"; }
    else { status = t("offline"); cls = "offline"; }
    const name = s.shown || s.name || t("Seat {n}", { n: s.seat + 1 });
    const li = el("li", { class: `r-seat side-${s.side} ${cls}${s.seat === room.you ? " me" : ""}${waiting.has(s.name) ? " waiting" : ""}`,
                          "data-seat": String(s.seat), "data-status": cls },
      el("span", { class: "r-seat-dot", "aria-hidden": "true" }),
      el("span", { class: "r-seat-name", title: name }, name,
        s.seat === room.you ? el("small", { class: "r-you" }, ` ${t("(you)")}`) : null),
      el("span", { class: "r-seat-status" }, status,
        !room.started && s.by === "open" && room.you !== null && room.you !== undefined
          ? el("button", { type: "button", class: "secondary r-small r-move-here", "data-move-seat": String(s.seat),
                           onclick: () => moveSeat(s.seat) }, room.players > 2 ? `${t("Sit here")}${teamWords(room, s)}` : t("Sit here"))
          : null),
      // cards in hand: only while a confronto's cards are dealt (none before the cut and deal, none once over)
      room.started && !room.over && v.dealt && counts[s.name] !== undefined ? el("span", { class: "r-seat-count", title: t("cards in hand") }, `${counts[s.name]} 🂠`) : null,
      waiting.has(s.name) && !room.over ? el("span", { class: "r-seat-turn" }, t("now")) : null);
    ul.append(li);
  }
}
function cardEl(code, extra = "") {
  if (!code) return el("span", { class: `r-card back ${extra}`, "data-card": "back", "aria-label": t("a face-down card") });
  const p = cardParts(code);
  return el("span", { class: `r-card${p.red ? " red" : ""} ${extra}`, "data-card": code, "aria-label": cardName(code) },
    el("span", { class: "r-rank" }, p.rank), el("span", { class: "r-suit" }, p.suit));
}
function levelWord(level) { return { easy: t("easy"), normal: t("normal"), hard: t("hard") }[level] || level; }
const WHOSE_YOURS = {
  cut: () => t("Your cut: up (deal from the bottom) or down (from the top)"),
  fim: () => t("Fim de Guerra: look at your hand and decide"),
  abstain: () => t("You receive first: keep this hand, or abstain without looking"),
  troca: () => t("You hold a run of three: call a troca, or pass"),
  answer: () => t("Ofensiva! Your side answers: accept, refuse or raise again"),
  turn: () => t("Your turn: play a card"),
};
const WHOSE_OTHERS = {
  cut: (w) => t("{who} cuts", { who: w }),
  fim: (w) => t("Fim de Guerra: {who} decides", { who: w }),
  abstain: (w) => t("{who} may abstain", { who: w }),
  troca: (w) => t("{who} may call a troca", { who: w }),
  answer: (w) => t("Ofensiva! {who} answers", { who: w }),
  turn: (w) => t("{who} plays", { who: w }),
};
function drawTable(v) {
  const room = v.room;
  const tb = v.table || {};
  const sides = sideNames(v);
  const me = room.you !== null ? room.seats[room.you] : null;
  const scores = v.scores || tb.scores || [0, 0];

  // the score, each side
  const score = $("#r-score");
  score.textContent = "";
  for (const i of [0, 1]) {
    score.append(el("div", { class: `r-side side-${i}${me && me.side === i ? " mine" : ""}`, "data-side": String(i) },
      el("span", { class: "r-side-name", title: sides[i] }, ...sideMembers(v, i, sides[i]), me && me.side === i ? el("small", {}, ` ${t("(you)")}`) : null),
      el("b", { class: "r-side-score" }, String(scores[i]))));
  }
  score.append(el("span", { class: "r-to" }, t("to 6")));

  // the confronto's value, an Ofensiva on the table, Fim de Guerra / Guerra Fria
  const stakes = $("#r-stakes");
  stakes.textContent = "";
  const p = pendingOf(tb);
  // a game over has no confronto in play: no stakes, Fim de Guerra or Guerra Fria left on the screen
  if (!room.over) stakes.append(el("span", { class: "r-worth" }, t("Confronto {number} · worth {points}", { number: (tb.confrontos || 0) + 1, points: points(tb.value || 1) })));
  if (p && !room.over) {
    const many = p.side === (me && me.side) || room.players > 2;
    stakes.append(el("span", { class: "r-pill raise" }, many ? t("Ofensiva! {side} propose {value}", { side: sides[p.side], value: p.value })
      : t("Ofensiva! {side} proposes {value}", { side: sides[p.side], value: p.value })));
  }
  if (tb.mode === "fim" && !room.over) stakes.append(el("span", { class: "r-pill fim" }, t("Fim de Guerra: {side} at 5", { side: sides[tb.fim_side] || "" })));
  if (tb.mode === "fria" && !room.over) stakes.append(el("span", { class: "r-pill fria" }, t("Guerra Fria: nobody looks at their cards")));

  // the end
  const over = room.over || !!v.result;
  $("#r-result").hidden = !over;
  if (over) {
    const res = v.result || {};
    const won = me && (res.winners || []).includes(me.name);
    $("#r-result-text").textContent = `${said(res.text, res.msg) || t("The game is over.")}${won ? ` ${t("You win!")}` : ""} ${
      t("Final score: {side0} {score0}, {side1} {score1}.", { side0: sides[0], score0: scores[0], side1: sides[1], score1: scores[1] })}`;
  }
  $("#r-again").hidden = !(over && room.creator);

  // whose decision, and the ring
  const w = v.waiting;
  const whose = $("#r-whose");
  $("#r-turn").hidden = over;
  $("#r-turn").classList.toggle("yours", !!(w && w.yours));
  if (w) {
    const npcs = new Set(room.seats.filter((s) => s.by === "npc").map((s) => s.name));
    const others = w.seats.filter((s) => !me || s !== me.name);
    const named = (seats) => orList(seats.map((x) => shownName(v, x)));
    let text = w.yours ? (WHOSE_YOURS[w.kind] || (() => t("Your decision")))() : (WHOSE_OTHERS[w.kind] || ((x) => t("Waiting for {who}", { who: x })))(named(w.seats));
    if (w.yours && others.length) text += ` ${t("(or {who})", { who: named(others) })}`;
    if (!w.yours && w.seats.every((s) => npcs.has(s))) text += ` ${t("(NPC thinking…)")}`;
    whose.textContent = text;
  } else whose.textContent = "";
  const latest = (v.rulings || [])[(v.rulings || []).length - 1];
  $("#r-prompt").textContent = over || v.prompt === latest ? "" : said(v.prompt, v.prompt_msg);
  // a buzz when it becomes this phone's turn; browsers refuse (and log an error) before the first tap
  const tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (w && w.yours && !R.wasYours && navigator.vibrate && tapped) { try { navigator.vibrate(150); } catch (e) { /* no vibration */ } }
  // each new decision of this seat (its kind, confronto, rodada and the moves made so far) is scrolled to once
  const decision = w && w.yours ? `${w.kind}:${decisionKey(v)}:${room.moves}` : null;
  const newDecision = !!decision && decision !== R.scrolledFor;
  if (newDecision) R.scrolledFor = decision;
  R.wasYours = !!(w && w.yours);
  $("#r-table").classList.toggle("yours", R.wasYours);
  tickRing();

  drawRodadas(v, sides);
  drawHand(v);
  drawMoves();
  drawSuggest(v);
  drawSuggestion();
  drawRulings(v);
  // this seat's decision: its move buttons come into view (they stay at the screen's foot, the timer's
  // ring at its top, while the page scrolls: room.css), however many rodadas are above them
  if (newDecision) $("#r-mine").scrollIntoView({ block: "end", behavior: "instant" });
}
function drawRodadas(v, sides) {
  const tb = v.table || {};
  const box = $("#r-rodadas");
  box.textContent = "";
  const played = tb.played || [];
  const results = tb.results || [];
  const last = Math.max(tb.rodada || 0, ...played.map((x) => x[0]), -1);
  if (!played.length) {
    box.append(el("p", { class: "r-note" }, v.room.over ? "" : t("No card played yet in this confronto.")));
    return;
  }
  for (let r = 0; r <= last; r++) {
    const cards = played.filter((x) => x[0] === r);
    if (!cards.length && (r !== tb.rodada || v.room.over)) continue;
    let verdict = "";
    if (r < results.length) verdict = results[r] === null ? t("tie") : `${sideWord(v, results[r], sides)} ✓`;
    const row = el("div", { class: `r-rodada${r === tb.rodada && r >= results.length ? " now" : ""}`, "data-rodada": String(r) },
      el("span", { class: "r-rodada-label" }, t("{nth} rodada", { nth: ordinal(r) })),
      el("span", { class: "r-rodada-cards" }, cards.map((x) => el("span", { class: "r-played" }, cardEl(x[2], "small"), el("small", {}, shownName(v, x[1]))))),
      el("span", { class: `r-rodada-result${results[r] === null ? " tie" : ""}` }, verdict));
    box.append(row);
  }
}
function drawHand(v) {
  const room = v.room;
  const tb = v.table || {};
  const mine = room.you !== null && room.you !== undefined;
  $("#r-mine").hidden = !mine || room.over;
  const hand = $("#r-hand");
  hand.textContent = "";
  if (!mine) return;
  const cards = tb.hand || [];
  for (const c of cards) hand.append(cardEl(c));
  const notes = [];
  if (!cards.length) notes.push(room.over ? "" : t("No cards yet: they are dealt after the cut."));
  else if (cards.every((c) => c === null)) {
    notes.push(tb.mode === "fria" ? t("Guerra Fria: nobody looks at their own cards. Choose blind!")
      : t("You receive first: you may abstain without looking at your cards."));
  }
  if ((tb.my_down || []).length) notes.push(t("Face down this confronto: {cards}.", { cards: tb.my_down.map(cardName).join(" ") }));
  const known = asObject(tb.known);
  for (const [seat, cs] of Object.entries(known)) {
    if (cs && cs.length) notes.push(t("Shown in {seat}'s failed troca, not yet played face up: {cards}.", { seat, cards: cs.map(cardName).join(" ") }));
  }
  $("#r-hand-note").textContent = notes.filter(Boolean).join(" ");
  R.hands.push({ version: room.version, cards: cards.map((c) => c || "back") });
  if (R.hands.length > 500) R.hands.shift();
}
function moveWords(m, v) {
  const tb = v.table || {};
  const w = v.waiting || {};
  const p = pendingOf(tb);
  const sides = sideNames(v);
  const me = v.room.seats[v.room.you];
  switch (m.kind) {
    case "flip": {
      const c = (tb.hand || [])[m.slot];
      // a card this seat may not look at is named by its place only (the label would name it)
      const label = c ? (m.down ? t("Play {card} face down", { card: cardName(c) }) : t("Play {card} face up", { card: cardName(c) }))
        : (m.down ? t("Play card {n} face down (unseen)", { n: m.slot + 1 }) : t("Play card {n} face up (unseen)", { n: m.slot + 1 }));
      return [label, m.down ? t("encoberta: worth 0") : ""];
    }
    case "raise": return [w.kind === "answer" ? t("Ofensiva again!") : t("Ofensiva!"), t("raise to {n} points", { n: p ? p.value + 1 : (tb.value || 1) + 1 })];
    case "accept": return w.kind === "fim" ? [t("Accept Fim de Guerra"), t("win: +1 and the game; lose: they get +2")]
      : [t("Accept"), p ? t("the confronto is worth {value}", { value: p.value }) : t("the confronto is worth")];
    case "refuse": return w.kind === "fim" ? [t("Refuse Fim de Guerra"), t("they get +1")]
      : [t("Refuse"), p ? (p.side === me.side ? t("{side} take {points}", { side: sides[p.side], points: points(tb.value || 1) })
        : t("{side} takes {points}", { side: sides[p.side], points: points(tb.value || 1) })) : ""];
    case "cut": return [I18N.lang === "en" && m.label ? m.label : m.choice === "up" ? t("Cut up") : t("Cut down"),
      m.choice === "up" ? t("deal from the bottom") : t("deal from the top")];
    case "call": return [I18N.lang === "en" && m.label ? m.label : m.parity === "even" ? t("Troca: call even") : t("Troca: call odd"),
      t("then the die is rolled")];
    case "abstain": return [I18N.lang === "en" && m.label ? m.label : t("Abstain"), t("throw this hand away unseen")];
    case "pass": return [{ cut: t("No cut"), abstain: t("Keep this hand"), troca: t("No troca") }[w.kind] || (I18N.lang === "en" && m.label) || t("Pass"), ""];
    default: return [(I18N.lang === "en" && m.label) || m.kind, ""];
  }
}
function drawMoves() {
  const v = R.view;
  const box = $("#r-moves");
  box.textContent = "";
  $("#r-hint-btn").hidden = true;
  $("#r-hint").hidden = true;
  if (!v || v.room.you === null || v.room.over) return;
  const moves = v.moves || [];
  const me = v.room.seats[v.room.you];
  if (!moves.length) {
    if (me && me.by === "npc") box.append(el("p", { class: "r-note" }, me.away ? t("An NPC played for you while you were away: it is your seat again in a moment.") : t("An NPC plays this seat.")));
    return;
  }
  const stale = R.busy || (R.clickedAt >= 0 && v.room.version <= R.clickedAt);
  const hinted = R.hint && R.hint.moves === v.room.moves ? R.hint : null;
  $("#r-hint").hidden = !hinted;
  $("#r-hint").textContent = hinted ? `💡 ${said(hinted.text, hinted.msg)}` : "";
  moves.forEach((m, i) => {
    const [label, hint] = moveWords(m, v);
    const cls = `r-move k-${m.kind}${m.down ? " down" : ""}${hinted && sameMove(m, hinted.move) ? " r-hinted" : ""}`;
    box.append(el("button", { type: "button", class: cls, "data-move": String(i), "data-kind": m.kind, disabled: stale,
                               onclick: () => play(m) },
      el("span", { class: "r-move-label" }, label), hint ? el("small", { class: "r-move-hint" }, hint) : null));
  });
  $("#r-hint-btn").hidden = !(v.room.coach && !hinted);
  $("#r-hint-btn").disabled = stale;
}
function drawSuggest(v) {
  const room = v.room;
  const me = room.you !== null ? room.seats[room.you] : null;
  const partners = me ? room.seats.filter((s) => s.side === me.side && s.seat !== me.seat) : [];
  const box = $("#r-suggest");
  box.hidden = !me || !partners.length || room.over;
  if (box.hidden) return;
  $("#r-suggest-to").textContent = ` (${partners.map((s) => s.shown || s.name).join(", ")})`;
  const buttons = $("#r-suggest-buttons");
  // the server's list of what the partners may do now is the last word: a suggestion is one of their moves
  const allowed = Array.isArray(v.suggest) ? v.suggest : null;
  const offered = suggestions(v.table || {}, me.side)
    .filter(([m]) => !allowed || allowed.some((a) => a.kind === m.kind && !!a.down === !!m.down));
  const key = `${I18N.lang}:${offered.map(([m]) => m.kind + (m.down ? "-down" : "")).join(" ")}`;
  if (buttons.dataset.offered === key) return;
  buttons.dataset.offered = key;
  buttons.replaceChildren(...offered.map(([move, text]) => el("button", {
    type: "button", class: "secondary r-small", "data-suggest": move.kind + (move.down ? "-down" : ""),
    onclick: () => suggest(move, suggestionWords(move)) }, text)));
}
/* What a partner may sensibly suggest now, from the table the seat sees: an Ofensiva only where the
   rules allow one (never at the cut, in Fim de Guerra or Guerra Fria, at 6 points, twice in a row by
   one side), accept / refuse only when there is something to answer, cards only once they are dealt. */
function suggestions(tb, side) {
  const p = pendingOf(tb);
  const out = [];
  const dealt = tb.phase === "deal" || tb.phase === "play";
  const mayRaise = tb.mode === "normal" && dealt && (p ? p.side !== side && p.value < 6
                                                      : (tb.value || 1) < 6 && tb.last_raise !== side);
  if (mayRaise) out.push([{ kind: "raise" }, t("Ofensiva!")]);
  const answer = (p && p.side !== side) || (tb.mode === "fim" && tb.phase === "decide" && tb.fim_side === side);
  if (answer) out.push([{ kind: "accept" }, t("Accept")], [{ kind: "refuse" }, t("Refuse")]);
  if (dealt && !p) {
    out.push([{ kind: "flip", slot: 0, down: false }, t("Play face up")]);
    // an encoberta only in the 2nd and 3rd rodadas
    if (tb.mode === "normal" && (tb.rodada || 0) >= 1) out.push([{ kind: "flip", slot: 0, down: true }, t("Play face down")]);
  }
  if (tb.phase === "cut" || (tb.mode === "normal" && tb.phase === "deal" && !p)) out.push([{ kind: "pass" }, t("Pass")]);
  return out;
}
function drawRulings(v) {
  const msgs = v.ruling_msgs || [];
  const list = (v.rulings || []).map((text, i) => said(text, msgs[i]));     // in the page's language
  const ol = $("#r-rulings");
  ol.textContent = "";
  list.slice().reverse().forEach((text, i) => ol.append(el("li", { class: i === 0 ? "latest" : "" }, text)));
  $("#r-latest").textContent = list.length ? list[list.length - 1] : "";
  // say only what is new: the view carries the last six rulings and how many there have been
  const old = R.rulings;
  const count = v.ruling_count || 0;
  R.rulings = count;
  if (old === null) return;
  const fresh = count < old ? list : list.slice(Math.max(0, list.length - (count - old)));   // fewer: a new game
  if (fresh.length > 4 && "speechSynthesis" in window && voiceReady && voiceOn) speechSynthesis.cancel();   // far behind: only the latest
  for (const text of fresh.slice(-4)) speak(text);
}

/* -- the timer: a ring that shrinks to the deadline, on the server's clock ------------------------ */
const RING = 2 * Math.PI * 44;
function tickRing() {
  const v = R.view;
  const ring = $("#r-ring");
  const w = v && v.waiting;
  if (!w || !w.deadline || !w.since || (v && v.room.over)) { ring.classList.add("idle"); $("#r-ring-text").textContent = ""; return; }
  ring.classList.remove("idle");
  const now = (Date.now() + R.offset) / 1000;
  const total = Math.max(0.001, w.deadline - w.since);
  const left = Math.max(0, w.deadline - now);
  const frac = Math.min(1, left / total);
  const arc = $("#r-ring-arc");
  arc.style.strokeDasharray = `${RING}`;
  arc.style.strokeDashoffset = `${RING * (1 - frac)}`;
  ring.classList.toggle("low", frac <= 0.2);
  ring.classList.toggle("mid", frac > 0.2 && frac <= 0.5);
  $("#r-ring-text").textContent = String(Math.ceil(left));
  ring.dataset.left = left.toFixed(1);
  if (R.suggestion && Date.now() > R.suggestion.until) { R.suggestion = null; drawSuggestion(); }
}

/* ------------------------------------------------------------------ start */
window.__room = { R, handle, render, refreshView, dropSocket: () => { if (ws) ws.close(); } };
/* the words of the device's language first (i18n.js); the switch says everything again at once */
I18N.changed.push(() => {
  showVoice();
  if (!R.code) { document.title = t("Guerra rooms — warref"); drawCreateSeats(); loadList(); }
  else { document.title = t("Room {code} — Guerra", { code: R.code }); if (R.view) { const v = R.view; R.view = null; render(v); } }
  if (R.suggestion) drawSuggestion();
});
I18N.ready.then(() => {
  langSwitch($("#r-lang"));
  showVoice();
  const path = location.pathname.match(/^\/room\/([^/]+)\/?$/);
  if (path) openRoom(cleanCode(decodeURIComponent(path[1])));
  else openLobby();
});

// a phone turned (or a window resized) while it is this seat's decision: its moves come back into view
addEventListener("resize", () => { if (R.wasYours) $("#r-mine").scrollIntoView({ block: "end", behavior: "instant" }); });
$("#r-howto").addEventListener("click", () => showHowTo("guerra").catch((err) => showError(err.message)));
