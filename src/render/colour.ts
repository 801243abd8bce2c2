// The colour policy (as cli-runtime's AllowsColorOutput) and the only import of chalk.
import { Chalk, type ChalkInstance } from 'chalk';

import type { ColorMode, OutputFormat } from '../model/context.js';
export type { ColorMode, OutputFormat };

export interface ColourContext {
  mode: ColorMode;
  output: OutputFormat;
  isTTY: boolean;
  env: Record<string, string | undefined>;
}

/**
 * Whether to colour: never in json/yaml/kv; `always`/`never` as told; `auto` only on a TTY,
 * and not when NO_COLOR is set (any value, even empty) or TERM=dumb.
 */
export function shouldColour(ctx: ColourContext): boolean {
  if (ctx.output !== 'table') return false;
  if (ctx.mode === 'always') return true;
  if (ctx.mode === 'never') return false;
  if (!ctx.isTTY) return false;
  if (ctx.env.NO_COLOR !== undefined) return false;
  if (ctx.env.TERM === 'dumb') return false;
  return true;
}

/** A chalk instance that colours or not according to the decision. */
export function paint(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}
export type Paint = ChalkInstance;
