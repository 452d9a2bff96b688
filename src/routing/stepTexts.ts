import createInstructions from 'osrm-text-instructions';
import { STEP_TYPES, type RouteStep, type StepType } from './steps.js';

/** The languages of Maplink's turnByTurn (trip-schema `Languages`). */
export const STEP_LANGUAGES = ['pt_BR', 'es_AR', 'en'] as const;
export type StepLanguage = (typeof STEP_LANGUAGES)[number];

/** osrm-text-instructions' translation for each (Argentina's Spanish is its Latin American `es`). */
const OSRM_LANGUAGE: Readonly<Record<StepLanguage, string>> = { pt_BR: 'pt-BR', es_AR: 'es', en: 'en' };

const compiler = createInstructions('v5');

/** Each type's place in STEP_TYPES, for the texts' keys. */
const TYPE_NUMBER = Object.fromEntries(STEP_TYPES.map((type, i) => [type, i])) as Readonly<Record<StepType, number>>;

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
 * road's name and ref, a roundabout's exit, the stop reached (`legIndex` of `legCount` legs). Given
 * the graph's `roadLabel`, texts are kept by what they depend on (the road's label, the type, the
 * exit): a country's streets are worded again and again.
 */
export function wordSteps(steps: RouteStep[], language: StepLanguage, legIndex: number, legCount: number, roadLabel?: Uint32Array): void {
  const code = OSRM_LANGUAGE[language];
  const kept = (texts[language] ??= new Map<number, string>());
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const depart = i === 0 && step.type === 'CONTINUE_ON_STREET';
    const exit = step.exitNumber ?? 0;
    // Departures (their compass direction) and arrivals (their stop's number) are worded each time: one of each a leg.
    const key = roadLabel && !depart && step.road >= 0 && exit < 32 ? roadLabel[step.road] * 1024 + TYPE_NUMBER[step.type] * 32 + exit : -1;
    let text = key >= 0 ? kept.get(key) : undefined;
    if (text === undefined) {
      text = compile(code, step, depart, legIndex, legCount);
      if (key >= 0) {
        if (kept.size >= MAX_TEXTS) kept.clear();
        kept.set(key, text);
      }
    }
    step.text = text;
  }
}

function compile(code: string, step: RouteStep, depart: boolean, legIndex: number, legCount: number): string {
  const maneuver = depart
    ? { type: 'depart', bearing_after: step.bearing }
    : { ...MANEUVER[step.type], ...(step.exitNumber !== undefined && { exit: step.exitNumber }) };
  // The library's ordinals have one gender per language: Portuguese's masculine (o 1º destino), where
  // a roundabout's exit is feminine (a 2ª saída); Spanish's feminine (la 2ª salida), where a stop is
  // masculine (tu 1º destino).
  const formatToken = code === 'pt-BR' && step.type === 'ROUNDABOUT'
    ? (token: string, value: string) => (token === 'exit_number' ? value.replace('º', 'ª') : value)
    : code === 'es' && step.type === 'VIA_POINT'
      ? (token: string, value: string) => (token === 'nth' ? value.replace('ª', 'º') : value)
      : undefined;
  const text = compiler.compile(code, { maneuver, name: step.name ?? '', ref: step.ref, destinations: step.destination, mode: 'driving' }, { legIndex, legCount, formatToken });
  // Its Spanish leaves a roundabout without the preposition ("Sal la rotonda").
  return code === 'es' && step.type === 'LEAVE_ROUNDABOUT' ? text.replace(/^Sal la rotonda/, 'Sal de la rotonda') : text;
}

/** Texts worded lately per language, by label, type and exit (wordSteps); emptied when full. */
const texts: Partial<Record<StepLanguage, Map<number, string>>> = {};
const MAX_TEXTS = 65_536;
