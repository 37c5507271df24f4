// @ts-check
// The handover, as the store sees it: who is coming for an order (first name), how far by road and when they arrived
// (GET /api/v1/orders/{id}/pickup), and "Undo Ready" for the minute the server allows it (POST …/ready/undo). The
// store's page reads it for the orders a rider is or may soon be coming for; the countdowns move every second.

/**
 * The handover of one order, as GET /api/v1/orders/{id}/pickup answers it.
 * @typedef {{stage?: string, rider?: {firstName?: string}, etaSeconds?: number | null, distanceM?: number | null,
 *   lastFixAt?: string | null, arrivedAt?: string, pickedUpAt?: string | null, undoableUntil?: string | null}} Pickup
 */

// Statuses a rider is waiting for, on the way to, or at the store with.
export const HANDOVER = ['READY_FOR_PICKUP', 'RIDER_ASSIGNED'];

// What the order's chip says once the pickup is known: "A rider is on the way" said nothing of a rider at the counter.
/** @param {Pickup} pickup @returns {string | null} */
export function stageWords(pickup) {
  const name = (pickup.rider && pickup.rider.firstName) || 'The rider';
  if (pickup.stage === 'AT_THE_STORE') return `${name} is at the store`;
  if (pickup.stage === 'ON_THE_WAY') return `${name} is on the way`;
  if (pickup.stage === 'PICKED_UP') return `${name} has picked it up`;
  return null;
}

/** @param {string | undefined | null} value */
function clock(value) {
  if (!value) return '';
  return new Date(value).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

// "About 4 min away · 1.2 km by road": the road figures the server computed from the rider's last fix.
/** @param {Pickup} pickup */
function roadEta(pickup) {
  if (pickup.etaSeconds == null) {
    return pickup.lastFixAt ? 'No road route from where they are yet' : 'No position from their phone yet';
  }
  const minutes = Math.round(pickup.etaSeconds / 60);
  const time = minutes < 1 ? 'Under a minute away' : `About ${minutes} min away`;
  const metres = pickup.distanceM;
  const distance = metres == null ? '' : metres < 1000 ? ` \u00b7 ${Math.round(metres / 10) * 10} m by road`
    : ` \u00b7 ${(metres / 1000).toFixed(1)} km by road`;
  return `${time}${distance}`;
}

// The line under the chip (which names the rider): how far, or since when; null when nobody is coming yet.
/** @param {Pickup} pickup @returns {string | null} */
export function riderLine(pickup) {
  switch (pickup.stage) {
    case 'ON_THE_WAY': return roadEta(pickup);
    case 'AT_THE_STORE': return `Arrived at ${clock(pickup.arrivedAt)}, waiting at the counter`;
    case 'PICKED_UP': return pickup.pickedUpAt ? `Picked up at ${clock(pickup.pickedUpAt)}` : null;
    default: return null;
  }
}

/** @param {string | undefined | null} until */
function secondsLeft(until) {
  return until ? Math.max(0, Math.ceil((Date.parse(until) - Date.now()) / 1000)) : 0;
}

// The undo button's words, with the seconds left.
/** @param {string | undefined | null} until */
function undoWords(until) {
  return `Undo \u201cReady\u201d (${secondsLeft(until)} s)`;
}

// A button that takes "Ready" back, counting down to the end of the minute; `act` sends it.
/** @param {Pickup} pickup @param {() => Promise<void>} act */
export function undoButton(pickup, act) {
  const button = document.createElement('button');
  button.type = 'button';
  button.dataset.until = pickup.undoableUntil || '';
  button.textContent = undoWords(pickup.undoableUntil);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await act();
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

// Every second: the countdowns move on, and a button whose minute is over goes (the server would refuse it).
/** @param {ParentNode} root */
export function tickUndo(root) {
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (root.querySelectorAll('button[data-until]'))) {
    if (secondsLeft(button.dataset.until) <= 0) button.remove();
    else button.textContent = undoWords(button.dataset.until);
  }
}
