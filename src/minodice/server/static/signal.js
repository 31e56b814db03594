// Telling a person it is their turn when they look elsewhere: the tab's title, a short
// tone and a vibration. Tone and vibration are switchable and remembered on this device;
// until chosen they follow the system: off under prefers-reduced-motion.
import { store } from "./api.js";
import { _ } from "./i18n.js";

export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/** "sound" or "vibrate": the person's choice on this device, else on unless reduced motion. */
export function signalOn(name) {
  const chosen = store.get(`signal.${name}`);
  return chosen === null ? !reducedMotion() : Boolean(chosen);
}

export function setSignal(name, on) { store.set(`signal.${name}`, Boolean(on)); }

const TITLE = "Mino Dice";
let audio = null;

/** The title says whose turn it is; tone and vibration only when the turn is new. */
export function turnSignal(yours, isNew) {
  document.title = yours ? "● " + _("Your turn") + " · " + TITLE : TITLE;
  if (!yours || !isNew) return;
  // Browsers allow tone and vibration only once the person has touched the page (before
  // that, each try is refused with a console warning): the title says it meanwhile.
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  if (signalOn("vibrate") && navigator.vibrate) navigator.vibrate(180);
  if (signalOn("sound")) tone();
}

function tone() {
  try {
    audio ||= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    const now = audio.currentTime;
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.12, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.3);
    osc.connect(gain).connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.3);
  } catch (err) { /* no audio on this device: the title and the page still say it */ }
}
