import createInstructions from 'osrm-text-instructions';
import type { RouteStep, StepType } from './steps.js';

/** The languages of Maplink's turnByTurn (trip-schema `Languages`). */
export const STEP_LANGUAGES = ['pt_BR', 'es_AR', 'en'] as const;
export type StepLanguage = (typeof STEP_LANGUAGES)[number];

/** osrm-text-instructions' translation for each (Argentina's Spanish is its Latin American `es`). */
const OSRM_LANGUAGE: Readonly<Record<StepLanguage, string>> = { pt_BR: 'pt-BR', es_AR: 'es', en: 'en' };

const compiler = createInstructions('v5');

/** The OSRM maneuver that words each step type (OSRM's route step: maneuver type and modifier). */
const MANEUVER: Readonly<Record<StepType, { type: string; modifier?: string }>> = {
  U_TURN: { type: 'turn', modifier: 'uturn' },
  LEFT_U_TURN: { type: 'turn', modifier: 'uturn' },
  RIGHT_U_TURN: { type: 'turn', modifier: 'uturn' },
  KEEP_LEFT: { type: 'fork', modifier: 'slight left' },
  KEEP_RIGHT: { type: 'fork', modifier: 'slight right' },
  ROUNDABOUT: { type: 'roundabout', modifier: 'straight' },
  LEAVE_ROUNDABOUT: { type: 'exit roundabout', modifier: 'straight' },
  TURN_SHARP_LEFT: { type: 'turn', modifier: 'sharp left' },
  TURN_LEFT: { type: 'turn', modifier: 'left' },
  TURN_SLIGHT_LEFT: { type: 'turn', modifier: 'slight left' },
  CONTINUE_ON_STREET: { type: 'new name', modifier: 'straight' },
  TURN_SLIGHT_RIGHT: { type: 'turn', modifier: 'slight right' },
  TURN_RIGHT: { type: 'turn', modifier: 'right' },
  TURN_SHARP_RIGHT: { type: 'turn', modifier: 'sharp right' },
  VIA_POINT: { type: 'arrive' },
  LAST_POINT: { type: 'arrive' },
  UNKNOWN: { type: 'continue', modifier: 'straight' },
};

/**
 * Words every step of a leg in the language (osrm-text-instructions, OSRM's and Mapbox's phrasing
 * library): the first step as a departure with its compass direction, the others by type, with the
 * road's name and ref, a roundabout's exit, the stop reached (`legIndex` of `legCount` legs).
 */
export function wordSteps(steps: RouteStep[], language: StepLanguage, legIndex: number, legCount: number): void {
  const code = OSRM_LANGUAGE[language];
  steps.forEach((step, i) => {
    const depart = i === 0 && step.type === 'CONTINUE_ON_STREET';
    const arrive = step.type === 'VIA_POINT' || step.type === 'LAST_POINT';
    // Everything the text depends on: a city's streets are worded again and again.
    const key = `${code}\u001f${depart ? `depart ${step.bearing}` : step.type}\u001f${step.exitNumber}\u001f${step.name}\u001f${step.ref}\u001f${step.destination}\u001f${arrive ? `${legIndex}/${legCount}` : ''}`;
    let text = texts.get(key);
    if (text === undefined) {
      const maneuver = depart
        ? { type: 'depart', bearing_after: step.bearing }
        : { ...MANEUVER[step.type], ...(step.exitNumber !== undefined && { exit: step.exitNumber }) };
      // A roundabout's exit is feminine in Portuguese (a 2ª saída); the library's ordinals are masculine (destino).
      const formatToken = code === 'pt-BR' && step.type === 'ROUNDABOUT'
        ? (token: string, value: string) => (token === 'exit_number' ? value.replace('º', 'ª') : value)
        : undefined;
      text = compiler.compile(code, {
        maneuver, name: step.name ?? '', ref: step.ref, destinations: step.destination, mode: 'driving',
      }, { legIndex, legCount, formatToken });
      if (texts.size >= MAX_TEXTS) texts.clear();
      texts.set(key, text);
    }
    step.text = text;
  });
}

/** Texts worded lately, by what they depend on (wordSteps); emptied when full. */
const texts = new Map<string, string>();
const MAX_TEXTS = 65_536;
