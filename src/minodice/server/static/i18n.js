// Translations come from the same gettext catalogues as the terminal's (served by
// /api/i18n/LANG); English is the source language. The game's words (minotaur, griffin…,
// or skull-king, pirate… in the 2016 edition) are catalogue entries too.
export const LANGUAGES = { en: "English", de: "Deutsch", nl: "Nederlands", pt: "Português", es: "Español" };

let messages = {};
export let lang = "en";

export function chooseLanguage() {
  const saved = localStorage.getItem("minodice.lang");
  if (saved && LANGUAGES[saved]) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = String(wanted).slice(0, 2).toLowerCase();
    if (LANGUAGES[code]) return code;
  }
  return "en";
}

export async function loadLanguage(code) {
  lang = LANGUAGES[code] ? code : "en";
  document.documentElement.lang = lang;
  if (lang === "en") { messages = {}; return; }
  const response = await fetch(`/api/i18n/${lang}`);
  messages = response.ok ? (await response.json()).messages : {};
}

// _("Round {n}/{total}", {n: 3, total: 8})
export function _(text, values) {
  const found = messages[text];
  const out = typeof found === "string" && found ? found : text;
  return values ? format(out, values) : out;
}

export function format(text, values) {
  return text.replace(/\{([a-z_]+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

// A number with a decimal point in the reader's language ("1.5" in English, "1,5" in
// German): `digits` after it (at least `least`), and a plus sign before a positive one
// when `signed`.
const numbers = new Map();
export function decimal(x, digits = 1, signed = false, least = digits) {
  const key = `${lang} ${digits} ${signed} ${least}`;
  if (!numbers.has(key)) {
    numbers.set(key, new Intl.NumberFormat(lang, { minimumFractionDigits: least,
      maximumFractionDigits: digits, signDisplay: signed ? "exceptZero" : "auto" }));
  }
  return numbers.get(key).format(x);
}

// A die kind, symbol or face in the table's words ("6" stays "6").
export function word(name) {
  return /^\d+$/.test(String(name)) ? String(name) : _(String(name));
}

/** The page's language as this browser writes it (en-GB, not the American en, for a
 * British reader's dates), for dates and lists. */
export function locale() {
  return (navigator.languages || [navigator.language || lang]).find((l) => String(l).slice(0, 2).toLowerCase() === lang) || lang;
}

export function capital(text) {
  return text ? text[0].toLocaleUpperCase(lang) + text.slice(1) : text;
}
