// -f with an ApplicationSet file: told apart from an Application file by a cheap look.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdsApplicationSet } from '../../../src/cli/appset-file.js';
import { memoryIo } from '../../../src/cli/io.js';
import { tempDir } from '../../support/temp-dir.js';

describe('holdsApplicationSet', () => {
  const dir = tempDir('appset-file-');
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('is true for an ApplicationSet in YAML or JSON', async () => {
    expect(await holdsApplicationSet(file('a.yaml', 'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\n'))).toBe(true);
    expect(await holdsApplicationSet(file('b.yaml', "apiVersion: argoproj.io/v1alpha1\nkind: 'ApplicationSet'\n"))).toBe(true);
    expect(await holdsApplicationSet(file('c.json', '{"apiVersion":"argoproj.io/v1alpha1","kind": "ApplicationSet"}'))).toBe(true);
  });

  it('is false for an Application, a template mentioning the kind, stdin and a missing file', async () => {
    expect(await holdsApplicationSet(file('app.yaml', 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\n'))).toBe(false);
    expect(await holdsApplicationSet(file('d.yaml', 'kind: Application\nmetadata:\n  annotations: {note: "kind: ApplicationSet"}\n'))).toBe(false);
    expect(await holdsApplicationSet('-')).toBe(false);
    // `-f -`: the text read from standard input is looked at instead.
    expect(await holdsApplicationSet('-', memoryIo({ stdin: 'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n' }).io)).toBe(true);
    expect(await holdsApplicationSet('-', memoryIo({ stdin: 'apiVersion: argoproj.io/v1alpha1\nkind: Application\n' }).io)).toBe(false);
    expect(await holdsApplicationSet(join(dir, 'missing.yaml'))).toBe(false);
  });
});
