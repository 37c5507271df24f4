// @ts-check
// The end of a task as the rider learns of it: the server's task adopted in place of the page's (a task that ended
// without the rider ending it was cancelled, or taken away by a dispatcher), and what the rider is told then. The
// session, the offers and the taps all come here; nothing here calls back into them.
import { t } from '../rider-i18n.js';
import { isFinal, pendingFor, displayTask, tripTaskIds } from '../Connection/rider-state.js';
import { notify } from '../rider-notice.js';
import { showFinished } from '../rider-screens.js';

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initTaskEnd(rider) {
  ({ store, queue } = rider);
}

// The server's task replaces the page's; a task that ended without the rider ending it was cancelled.
export async function adoptServerTask(task, { boot = false } = {}) {
  const previous = store.get().task;
  // With batching every task of the trip is live, not only the one to act on now.
  const live = tripTaskIds(task);
  if (previous && (!task || task.taskId !== previous.taskId)) {
    const ending = pendingFor(queue, previous.taskId).some((item) => item.kind === 'status' && isFinal(item.status));
    await queue.reconcile(live);
    store.update({ task });
    if (!ending && !live.includes(previous.taskId)) taskEnded(previous, 'cancelled');
  } else {
    if (boot || task) await queue.reconcile(live);
    store.update({ task });
  }
  const { navigation } = store.get();
  if (navigation) navigation.taskChanged(displayTask(store.get(), queue));
}

const DONE_WORDS = { delivered: 'deliveryComplete', failed: 'deliveryFailed', returned: 'orderReturned' };

export function taskEnded(task, how) {
  const { navigation, reported } = store.get();
  if (navigation) navigation.end();
  if (reported && reported.taskId === task.taskId) store.update({ reported: null });
  if (how === 'cancelled') {
    // Taken away by a dispatcher: why, in the fixed words of the reason's kind, rather than "cancelled".
    const { orderNews } = store.get();
    if (orderNews && orderNews.orderId === task.orderId && orderNews.key.startsWith('rider.orderReassigned')) {
      const kind = orderNews.key.split('.')[2];
      const ref = task.externalRef || '';
      notify(kind ? t(`reassigned_${kind}`, { ref }) : t('reassigned', { ref }));
      store.update({ orderNews: null });
      return;
    }
    notify(`${t('orderCancelled')}. ${t('cancelledStop')}`);
    return;
  }
  if (tripTaskIds(task).length > 1) {
    // More orders on the trip: a word under the bar, and on to the next stop.
    notify(t(DONE_WORDS[how]), 'success');
    return;
  }
  notify('');
  showFinished(task, how);
}
