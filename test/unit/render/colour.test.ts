// Colour policy (as cli-runtime's AllowsColorOutput): TTY, NO_COLOR, TERM=dumb, --color, never in machine formats.
import { paint, shouldColour, type ColourContext } from '../../../src/render/colour.js';

const base: ColourContext = { mode: 'auto', output: 'table', isTTY: true, env: { TERM: 'xterm-256color' } };
const decide = (over: Partial<ColourContext>) => shouldColour({ ...base, ...over });

describe('shouldColour', () => {
  it('auto colours a table on a terminal', () => {
    expect(decide({})).toBe(true);
  });

  it('auto does not colour when stdout is not a terminal', () => {
    expect(decide({ isTTY: false })).toBe(false);
  });

  it.each([[''], ['1'], ['0']])('auto does not colour when NO_COLOR is set (to %j)', (value) => {
    expect(decide({ env: { TERM: 'xterm', NO_COLOR: value } })).toBe(false);
  });

  it('auto does not colour on TERM=dumb', () => {
    expect(decide({ env: { TERM: 'dumb' } })).toBe(false);
  });

  it('always colours even off a terminal, with NO_COLOR or TERM=dumb', () => {
    expect(decide({ mode: 'always', isTTY: false, env: { NO_COLOR: '1', TERM: 'dumb' } })).toBe(true);
  });

  it('never does not colour, even on a terminal', () => {
    expect(decide({ mode: 'never' })).toBe(false);
  });

  it.each(['json', 'yaml', 'kv'] as const)('never colours %s output, whatever --color says', (output) => {
    for (const mode of ['auto', 'always', 'never'] as const) expect(decide({ output, mode })).toBe(false);
  });
});

describe('paint', () => {
  it('emits ANSI codes only when enabled', () => {
    expect(paint(true).green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(paint(false).green('ok')).toBe('ok');
    expect(paint(false).bold.red('x')).toBe('x');
  });
});
