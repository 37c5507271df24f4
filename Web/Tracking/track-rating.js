// @ts-check
// After delivery: the customer's one rating of it, sent with the tracking link's token. The form and every word
// come from the server in the customer's language; this only sends it and says how that went.

const MAXIMUM_COMMENT = 1000;

/** @param {string} template @param {Record<string, string | number>} values */
const say = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? ''));

/** @param {number} stars */
const starLine = (stars) => '★'.repeat(stars) + '☆'.repeat(5 - stars);

/**
 * Makes the section's rating form send itself; does nothing without one (already rated, or not delivered).
 * @param {HTMLElement | null} section the page's `#after-delivery`
 */
export function setUpRating(section) {
  const form = section?.querySelector('form#rating');
  if (!section || !(form instanceof HTMLFormElement)) return;
  const text = JSON.parse(section.dataset.texts || '{}');
  const message = /** @type {HTMLElement} */ (form.querySelector('#rating-message'));
  const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
  const token = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');

  /** @param {string} words @param {boolean} [done] */
  const tell = (words, done = false) => {
    message.textContent = words;
    if (!done) return;
    // Rated (now or before): the form gives way to a line that says so.
    const line = document.createElement('p');
    line.id = 'rating-given';
    line.className = 'rating-given';
    line.textContent = words;
    form.replaceWith(line);
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name=stars]:checked'));
    if (!chosen) {
      tell(text.chooseStars);
      return;
    }
    const comment = /** @type {HTMLTextAreaElement} */ (form.querySelector('#rating-comment')).value.trim();
    if ([...comment].length > MAXIMUM_COMMENT) {
      tell(say(text.commentTooLong, { max: MAXIMUM_COMMENT }));
      return;
    }
    const stars = Number(chosen.value);
    button.disabled = true;
    try {
      const response = await fetch(`/track/${encodeURIComponent(token)}/rating`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store',
        body: JSON.stringify(comment ? { stars, comment } : { stars }),
      });
      if (response.status === 201) {
        tell(`${starLine(stars)} ${say(text.yourRating, { stars })} · ${text.thanks}`, true);
        return;
      }
      const problem = await response.json().catch(() => ({}));
      if (problem.code === 'ALREADY_RATED') {
        tell(text.alreadyRated, true);
        return;
      }
      tell(text.ratingFailed);
    } catch (error) {
      tell(text.ratingFailed);
    }
    button.disabled = false;
  });
}

setUpRating(document.getElementById('after-delivery'));
