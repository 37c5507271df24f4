// @ts-check
// A time of day as the customer's texts write it: 24-hour hours and minutes in Latin digits ("21:51"), in the
// customer's own time zone, whatever the browser's own habit (an English browser would say "09:51 PM" beside a text
// that said "21:51").

/** @param {string} iso @returns {string} */
export function clock(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
}
