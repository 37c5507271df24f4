// @ts-check
// The navigation's words: the manoeuvre's arrow, the instruction on the banner and what is spoken, in the page's
// language.
import { t, lang, distanceText } from '../rider-i18n.js';

const ICONS = {
  left: '↰', right: '↱', 'slight left': '↖', 'slight right': '↗', 'sharp left': '↰', 'sharp right': '↱',
  straight: '↑', uturn: '↶',
};

export function icon(step) {
  if (!step) return '↑';
  const type = step.maneuver && step.maneuver.type;
  if (type === 'arrive') return '⚑';
  if (type === 'roundabout' || type === 'rotary') return '⟳';
  return ICONS[step.maneuver && step.maneuver.modifier] || '↑';
}

// The instruction in the page's language: the server's own words in English, the same manoeuvre in Hindi or
// Marathi from the catalog's phrases.
export function instruction(step) {
  if (!step) return '';
  if (lang === 'en' && step.instruction) return step.instruction;
  const m = step.maneuver || {};
  const name = step.name || '';
  switch (m.type) {
    case 'arrive': return t('navArrive');
    case 'depart': return name ? t('navDepartOn', { name }) : t('navDepart');
    case 'roundabout':
    case 'rotary': {
      const text = m.exit ? t('navRoundaboutExit', { exit: m.exit }) : t('navRoundabout');
      return name ? t('navOnto', { action: text, name }) : text;
    }
    default: {
      const action = t(`turn_${(m.modifier || 'straight').replace(/ /g, '_')}`);
      return name ? t('navOnto', { action, name }) : action;
    }
  }
}

export function announcement(item, allSteps) {
  if (lang === 'en') return item.text;
  const step = allSteps[item.stepIndex];
  const next = allSteps[item.stepIndex + 1];
  const nextText = !next ? '' : next.maneuver && next.maneuver.type === 'arrive' ? t('navWillArrive') : instruction(next);
  const warning = /^In (\d+) (?:meters|metres)/i.exec(item.text);
  if (warning) return t('navIn', { distance: distanceText(Number(warning[1])), instruction: nextText });
  if (/, then /.test(item.text)) {
    return t('navThen', { first: instruction(step), second: next && next.maneuver.type === 'arrive' ? t('navArrive') : nextText });
  }
  if (item.stepIndex === 0 && item.distanceAlongStepM === 0) return instruction(step);
  return next ? instruction(next) : item.text;
}
