// The exit codes and the errors that carry them live at the bottom (model/errors.ts); cli/ re-exports them.
export * from '../model/errors.js';
