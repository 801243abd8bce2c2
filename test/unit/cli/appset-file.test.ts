// -f with an ApplicationSet file: told apart from an Application file by a cheap look.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdsApplicationSet } from '../../../src/cli/appset-file.js';
import { tempDir } from '../../support/temp-dir.js';

describe('holdsApplicationSet', () => {
  const dir = tempDir('appset-file-');
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('is true for an ApplicationSet in YAML or JSON', () => {
    expect(holdsApplicationSet(file('a.yaml', 'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\n'))).toBe(true);
    expect(holdsApplicationSet(file('b.yaml', "apiVersion: argoproj.io/v1alpha1\nkind: 'ApplicationSet'\n"))).toBe(true);
    expect(holdsApplicationSet(file('c.json', '{"apiVersion":"argoproj.io/v1alpha1","kind": "ApplicationSet"}'))).toBe(true);
  });

  it('is false for an Application, a template mentioning the kind, stdin and a missing file', () => {
    expect(holdsApplicationSet(file('app.yaml', 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\n'))).toBe(false);
    expect(holdsApplicationSet(file('d.yaml', 'kind: Application\nmetadata:\n  annotations: {note: "kind: ApplicationSet"}\n'))).toBe(false);
    expect(holdsApplicationSet('-')).toBe(false);
    // `-f -`: the text read from standard input is looked at instead.
    expect(holdsApplicationSet('-', 'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n')).toBe(true);
    expect(holdsApplicationSet('-', 'apiVersion: argoproj.io/v1alpha1\nkind: Application\n')).toBe(false);
    expect(holdsApplicationSet(join(dir, 'missing.yaml'))).toBe(false);
  });
});
