// @ts-check
// The page's words, from the server's message catalog (RiderAppText.swift), put on <body data-texts> in the
// browser's language with English where a translation is missing.
const body = document.body;

function parse(value) {
  try {
    const parsed = JSON.parse(value || '{}');
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch (error) {
    return {};
  }
}

export const texts = parse(body.dataset.texts);
export const config = parse(body.dataset.config);
export const lang = ['en', 'hi', 'mr'].includes(document.documentElement.lang) ? document.documentElement.lang : 'en';

// t('key', {name: 'x'}) fills {name}. The server sends every key (English where a language lacks one).
export function t(key, values = {}) {
  const template = texts[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => (values[name] ?? ''));
}

// Every element with data-t gets its words (data-t-label: the aria-label, data-t-placeholder: the placeholder).
/** @param {ParentNode} [root] */
export function translate(root = document) {
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-t]'))) {
    if (texts[element.dataset.t] != null) element.textContent = texts[element.dataset.t];
  }
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-t-label]'))) {
    if (texts[element.dataset.tLabel] != null) element.setAttribute('aria-label', texts[element.dataset.tLabel]);
  }
  for (const element of /** @type {NodeListOf<HTMLInputElement>} */ (root.querySelectorAll('[data-t-placeholder]'))) {
    if (texts[element.dataset.tPlaceholder] != null) element.placeholder = texts[element.dataset.tPlaceholder];
  }
  if (texts.title) document.title = texts.title;
}

const locale = lang === 'en' ? 'en-IN' : `${lang}-IN`;
const numbers = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
const tenths = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// 850 → "850 m", 2300 → "2.3 km" (rounded as a rider reads a sign).
export function distanceText(metres) {
  if (!Number.isFinite(metres)) return '';
  if (metres < 1000) return t('metres', { n: numbers.format(Math.max(0, Math.round(metres / 10) * 10)) });
  return t('kilometres', { n: tenths.format(Math.round(metres / 100) / 10) });
}

export function minutesText(seconds) {
  return t('minutes', { n: numbers.format(Math.max(1, Math.round(seconds / 60))) });
}

export function clockText(ms) {
  try {
    return new Date(ms).toLocaleTimeString(lang === 'en' ? [] : [`${lang}-IN`], { hour: '2-digit', minute: '2-digit' });
  } catch (error) {
    return new Date(ms).toLocaleTimeString();
  }
}
