// @ts-check
// Reporting a problem on the task: the kinds riders meet at this point of the delivery (the server's list, in the
// page's config), an optional note for the dispatcher, and who will be told before anything is sent. The customer
// hears the catalog's fixed words for the kind, never the note. The report goes through the tap queue like any tap.
import { t, config } from '../rider-i18n.js';
import { $, show, displayTask } from '../Connection/rider-state.js';
import { notify } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { record } from '../rider-taps.js';

/** @typedef {{type: string, offeredIn: string[], tellsCustomerIn: string[]}} IssueKind */
/** @type {IssueKind[]} */
const KINDS = Array.isArray(config.issues) ? config.issues : [];
const NOTE_LIMIT = 500;

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initReport(rider) {
  ({ store, queue } = rider);
  $('report-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send();
  });
  $('report-cancel').addEventListener('click', close);
  $('report-sheet').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
  $('report-kinds').addEventListener('change', explain);
}

/** @type {HTMLElement | null} */
let opener = null;

export function openReport() {
  const task = displayTask(store.get(), queue);
  if (!task) return;
  const kinds = KINDS.filter((kind) => kind.offeredIn.includes(task.status));
  const legend = $('report-kinds').querySelector('legend');
  $('report-kinds').replaceChildren(legend, ...kinds.map((kind) => {
    const label = document.createElement('label');
    const input = Object.assign(document.createElement('input'), { type: 'radio', name: 'kind', value: kind.type });
    label.append(input, document.createTextNode(t(`issue_${kind.type}`)));
    return label;
  }));
  $('report-note').value = '';
  opener = /** @type {HTMLElement | null} */ (document.activeElement);
  show($('report-sheet'), true);
  explain();
  /** @type {HTMLElement | null} */ ($('report-kinds').querySelector('input'))?.focus();
}

function close() {
  show($('report-sheet'), false);
  if (opener && opener.focus) opener.focus({ preventScroll: true });
}

function chosen() {
  const input = /** @type {HTMLInputElement | null} */ ($('report-kinds').querySelector('input:checked'));
  return input ? KINDS.find((kind) => kind.type === input.value) || null : null;
}

// Who hears of it, said before the rider sends: the customer only for the kinds that concern them, at this point.
function explain() {
  const kind = chosen();
  const task = displayTask(store.get(), queue);
  const tellsCustomer = Boolean(kind && task && kind.tellsCustomerIn.includes(task.status));
  $('report-who').textContent = !kind ? t('reportChoose') : tellsCustomer ? t('reportTellsBoth') : t('reportTellsDispatcher');
  $('report-send').disabled = !kind;
}

async function send() {
  const kind = chosen();
  const task = displayTask(store.get(), queue);
  if (!kind || !task) return;
  const note = $('report-note').value.trim().slice(0, NOTE_LIMIT);
  close();
  const action = await record('issue', note ? { type: kind.type, note } : { type: kind.type });
  if (!action) return;
  store.update({ reported: { taskId: task.taskId, type: kind.type } });
  // Who was told is the server's answer (rider-taps.js); until it comes the report is only saved.
  notify(t('issueSaved'), 'success');
  render();
}
