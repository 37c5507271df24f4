// @ts-check
// Spoken instructions (speechSynthesis, in the page's language) and Mute, remembered on the phone.
import { t, lang } from '../rider-i18n.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
const VOICES = { en: 'en-IN', hi: 'hi-IN', mr: 'mr-IN' };

export class Voice {
  constructor() {
    this.muted = localStorage.getItem('riderMuted') === '1';
    $('mute').addEventListener('click', () => this.setMuted(!this.muted));
    this.setMuted(this.muted);
  }

  speak(text) {
    if (this.muted || !text || !('speechSynthesis' in window)) return;
    try {
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = VOICES[lang] || 'en-IN';
      window.speechSynthesis.speak(utterance);
    } catch (error) {
      // No voice on this device: the banner says it all.
    }
  }

  setMuted(muted) {
    this.muted = muted;
    localStorage.setItem('riderMuted', muted ? '1' : '0');
    const button = $('mute');
    button.textContent = t(muted ? 'unmute' : 'mute');
    button.setAttribute('aria-pressed', muted ? 'true' : 'false');
    if (muted && 'speechSynthesis' in window) {
      try {
        window.speechSynthesis.cancel();
      } catch (error) {
        // Nothing was being said.
      }
    }
  }
}
