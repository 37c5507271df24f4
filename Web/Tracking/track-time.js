// @ts-check
// The ended tracking page: a time the server wrote in UTC, shown in the customer's own time as their texts write it.
import { clock } from './track-clock.js';

for (const element of document.querySelectorAll('time[datetime]')) {
  const shown = clock(element.getAttribute('datetime') || '');
  if (shown) element.textContent = shown;
}
