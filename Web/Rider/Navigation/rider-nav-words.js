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

// What lies at the end of the route, said before the rider is there: the side of the road the door is on (the arrive
// maneuver's modifier, from the route's geometry), never "You have arrived".
export function destinationAhead(step) {
  const modifier = (step && step.maneuver && step.maneuver.modifier) || '';
  return t(/left/.test(modifier) ? 'navDestinationLeft' : /right/.test(modifier) ? 'navDestinationRight' : 'navDestinationAhead');
}

// The banner's words for the next manoeuvre, before it is reached: the arrival is spoken of as what is ahead.
export function upcoming(step) {
  return step && step.maneuver && step.maneuver.type === 'arrive' ? destinationAhead(step) : instruction(step);
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
  const nextText = upcoming(next);
  if (/^You have arrived/i.test(item.text)) return t('navArrive');
  const warning = /^In (\d+) (?:meters|metres)/i.exec(item.text);
  if (warning) return t('navIn', { distance: distanceText(Number(warning[1])), instruction: nextText });
  const thenIn = /, then in (\d+) (?:meters|metres)/i.exec(item.text);
  if (thenIn) {
    const second = t('navIn', { distance: distanceText(Number(thenIn[1])), instruction: nextText });
    return t('navThen', { first: instruction(step), second });
  }
  if (/, then /.test(item.text)) return t('navThen', { first: instruction(step), second: nextText });
  if (item.stepIndex === 0 && item.distanceAlongStepM === 0) return instruction(step);
  return next ? instruction(next) : item.text;
}
