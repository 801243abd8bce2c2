// Durations are parsed at the bottom (model/duration.ts); cli/ re-exports the parser.
export * from '../model/duration.js';
