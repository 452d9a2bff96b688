/** The part of osrm-text-instructions (no types of its own) that stepTexts.ts uses. */
declare module 'osrm-text-instructions' {
  interface OsrmStep {
    maneuver: { type: string; modifier?: string; exit?: number; bearing_after?: number };
    name: string;
    ref?: string;
    destinations?: string;
    mode: string;
  }
  interface CompileOptions {
    legIndex?: number;
    legCount?: number;
    formatToken?: (token: string, value: string) => string;
  }
  interface Compiler {
    compile(language: string, step: OsrmStep, options?: CompileOptions): string;
  }
  export default function createInstructions(version: 'v5'): Compiler;
}
