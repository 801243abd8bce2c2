import { firstOutOfBounds, outOfBoundsMessage, resolveLinkTarget } from '../../../../src/source/render/symlinks.js';

describe('symbolic links in a source', () => {
  it.each([
    ['apps/web/cm.yaml', 'shared.yaml', 'apps/web/shared.yaml'],
    ['apps/web/cm.yaml', '../common/cm.yaml', 'apps/common/cm.yaml'],
    ['apps/web/cm.yaml', './sub/../cm2.yaml', 'apps/web/cm2.yaml'],
    ['apps/web/cm.yaml', '../../top.yaml', 'top.yaml'],
    ['top.yaml', 'apps/web/cm.yaml', 'apps/web/cm.yaml'],
  ])('%s -> %s resolves to %s', (link, target, resolved) => {
    expect(resolveLinkTarget(link, target)).toBe(resolved);
  });

  it.each([
    ['apps/web/cm.yaml', '/etc/passwd', 'absolute'],
    ['apps/web/cm.yaml', '../../../outside.yaml', 'above the root'],
    ['top.yaml', '../repo/top2.yaml', 'out and back in (Argo CD refuses it too)'],
    ['apps/web/cm.yaml', 'C:\\\\secrets.yaml', 'a Windows drive path'],
  ])('%s -> %s is out of bounds (%s)', (link, target) => {
    expect(resolveLinkTarget(link, target)).toBeUndefined();
  });

  it("uses Argo CD's words for the refusal", () => {
    expect(outOfBoundsMessage('apps/web/cm.yaml')).toBe('repository contains out-of-bounds symlinks. file: apps/web/cm.yaml');
  });

  it('names the first link out of the repository in the order a walk of the checkout meets it (a folder before a longer name)', () => {
    const links = [
      { path: 'a-b', target: '/etc/passwd' },
      { path: 'a/x', target: '../../up' },
      { path: 'a/ok', target: '../a-b' },
    ];
    expect(firstOutOfBounds(links)).toBe('a/x');
    expect(firstOutOfBounds(links.slice(0, 1))).toBe('a-b');
    expect(firstOutOfBounds([{ path: 'a/ok', target: '../a-b' }])).toBeUndefined();
    expect(firstOutOfBounds([])).toBeUndefined();
  });
});
