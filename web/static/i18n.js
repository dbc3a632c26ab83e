/* warref: the page's language (issue 64). Plain JS, no build step; loaded before the page's own script.

   The device's language: what was chosen on this device (localStorage "warref-lang"), else the
   browser's ("pt-PT", "pt-BR", "pt" -> Portuguese), else English. The words come from
   /i18n/LANG.json, written by `make locale` from web/locale/LANG.po (the translator edits the .po only):
   English -> the translation, a list [singular, plural] for a word said with a count.

     t("Seat {n}", {n: 2})                     a sentence of the page, its {names} filled in
     tn("{n} point", "{n} points", n, {...})   one that depends on a count (n is an argument too)
     msg(message)                              a message from the server (referee/say.py's plain data),
                                               as web/i18n.py's message_in renders it
     translatePage(root)                       every element marked data-i18n (its text) and the
                                               attributes its data-i18n-attr names, in the language
   An entry missing from the catalog is said in English. docs/translating.md says more. */
"use strict";

const LANGS = { en: "English", pt: "Português" };
const SPEECH_LANG = { en: "en", pt: "pt-PT" };
const I18N = {
  lang: "en",
  words: {},
  ready: null,            // a promise: the catalog of the device's language is loaded
  changed: [],            // functions called after the language changes
};

function deviceLang() {
  let saved = null;
  try { saved = localStorage.getItem("warref-lang"); } catch (e) { /* no storage */ }
  if (saved && LANGS[saved]) return saved;
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
  return /^pt\b/i.test(String(langs[0] || "")) ? "pt" : "en";
}

async function loadLang(lang) {
  let words = {};
  if (lang !== "en") {
    try {
      const r = await fetch(`/i18n/${lang}.json`, { cache: "no-cache" });
      if (r.ok) words = await r.json();
    } catch (e) { /* offline: English until it loads */ }
  }
  I18N.lang = lang;
  I18N.words = words;
  document.documentElement.lang = lang === "pt" ? "pt-PT" : "en";
}

/* "{name}" put in as str.format does (a name not given stays as it is) */
function fillIn(text, args) {
  return String(text).replace(/\{(\w+)\}/g, (whole, k) => (args && args[k] !== undefined && args[k] !== null ? String(args[k]) : whole));
}
function pluralForm(n) { return n === 1 ? 0 : 1; }       // English and Portuguese: 1 ponto, 0 and 2 pontos

function t(english, args) {
  const found = I18N.words[english];
  return fillIn(typeof found === "string" && found ? found : english, args);
}
function tn(singular, plural, n, args) {
  const found = I18N.words[singular];
  const form = pluralForm(n);
  const text = Array.isArray(found) && found.every(Boolean) ? found[Math.min(form, found.length - 1)] : (form ? plural : singular);
  return fillIn(text, { ...(args || {}), n });
}

const AND = { en: " and ", pt: " e " };
const DECIMAL_MARK = { en: ".", pt: "," };
const RANKS_PT = { A: ["o", "ás"], J: ["o", "valete"], Q: ["a", "dama"], K: ["o", "rei"], T: ["o", "10"] };
const SUITS_PT = { C: "paus", D: "ouros", H: "copas", S: "espadas" };
function cardWords(m) {
  const code = String(m.card);
  const hasNumber = m.number !== undefined && m.number !== null;
  if (I18N.lang !== "pt") return String(hasNumber ? m.number : code);
  if (hasNumber) return `o ${m.number}`;
  if (code === "JOKER") return "o jóquer";
  if (RANKS_PT[code] || /^\d+$/.test(code)) {                    // a rank reported without its suit
    const [article, word] = RANKS_PT[code] || ["o", code];
    return `${article} ${word}`;
  }
  const rank = code.slice(0, -1), suit = code.slice(-1);
  if (SUITS_PT[suit] && rank) {
    const [article, word] = RANKS_PT[rank] || ["o", rank];
    return `${article} ${word} de ${SUITS_PT[suit]}`;
  }
  return code;
}
/* a message ({id, args, plural?}), a list of names ({names}), a card ({card, number?}), a decimal number
   ({decimal}: "0.5", written with the language's mark) or a plain value */
function msg(m, top = true) {
  if (m === null || m === undefined) return "";
  if (typeof m !== "object") return String(m);
  if (Array.isArray(m.names)) {
    const names = m.names;
    return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")}${AND[I18N.lang] || AND.en}${names[names.length - 1]}`;
  }
  if ("card" in m) return cardWords(m);
  if ("decimal" in m) return String(m.decimal).replace(".", DECIMAL_MARK[I18N.lang] || ".");   // 0.5, 0,5
  const args = m.args || {};
  const found = I18N.words[m.id];
  const form = pluralForm(args.n);
  let template;
  if (Array.isArray(found) && found.every(Boolean)) template = found[Math.min(form, found.length - 1)];
  else if (typeof found === "string" && found) template = found;
  else template = m.plural && form ? m.plural : m.id;          // not translated: the English
  const said = {};
  for (const [k, v] of Object.entries(args)) said[k] = msg(v, false);
  const text = fillIn(template, said);
  return top ? text.slice(0, 1).toUpperCase() + text.slice(1) : text;
}
/* a server's sentence in the page's language: its English text as it came, or its message rendered */
function said(text, message) {
  return I18N.lang === "en" || !message ? (text || "") : msg(message);
}

/* the marked elements: their English is kept on the element the first time, so a page can switch back */
function translatePage(root = document) {
  const marked = [];
  if (root.matches && (root.matches("[data-i18n]") || root.matches("[data-i18n-attr]"))) marked.push(root);
  marked.push(...root.querySelectorAll("[data-i18n], [data-i18n-attr]"));
  for (const e of marked) {
    if (!e.__i18n) e.__i18n = { text: e.hasAttribute("data-i18n") ? e.textContent.replace(/\s+/g, " ").trim() : null, attrs: {} };
    if (e.__i18n.text) e.textContent = t(e.__i18n.text);
    for (const name of (e.getAttribute("data-i18n-attr") || "").split(/\s+/).filter(Boolean)) {
      if (!(name in e.__i18n.attrs)) e.__i18n.attrs[name] = (e.getAttribute(name) || "").replace(/\s+/g, " ").trim();
      if (e.__i18n.attrs[name]) e.setAttribute(name, t(e.__i18n.attrs[name]));
    }
  }
}

/* the device's language changed (the page's switch): remembered, loaded, the page said again */
async function setLang(lang) {
  if (!LANGS[lang]) return;
  try { localStorage.setItem("warref-lang", lang); } catch (e) { /* no storage: this page only */ }
  await loadLang(lang);
  translatePage(document);
  for (const f of I18N.changed) f(lang);
}

/* a <select> of the languages (the page's header has one); short: each said by its code ("EN", "PT"),
   its name as the title, where the header has little room (the dashboard on a phone) */
function langSwitch(select, short = false) {
  if (!select) return;
  select.replaceChildren(...Object.entries(LANGS).map(([k, name]) => {
    const o = document.createElement("option");
    o.value = k; o.textContent = short ? k.toUpperCase() : name; o.lang = k; o.title = name;
    return o;
  }));
  select.value = I18N.lang;
  select.addEventListener("change", () => setLang(select.value));
  I18N.changed.push((lang) => { select.value = lang; });
}

/* a voice for the language: the device's own for pt-PT, else any Portuguese one (none: the default) */
function voiceFor(lang) {
  if (!("speechSynthesis" in window)) return null;
  const want = SPEECH_LANG[lang] || "en";
  const voices = speechSynthesis.getVoices() || [];
  const norm = (x) => String(x || "").toLowerCase().replace("_", "-");
  return voices.find((v) => norm(v.lang) === want.toLowerCase())
    || voices.find((v) => norm(v.lang).startsWith(want.slice(0, 2).toLowerCase())) || null;
}

I18N.ready = loadLang(deviceLang()).then(() => translatePage(document));
window.__i18n = { I18N, t, tn, msg, setLang };
