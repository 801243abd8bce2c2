// A partial sync's filters: Argo CD's --resource syntax and kubectl's label selectors.
import { InputError } from '../../../src/model/errors.js';
import { matchesResource, parseResourceFilter, parseSelector, selectorMatches } from '../../../src/sync/subset.js';

const key = (group: string, kind: string, namespace: string, name: string) => ({ group, kind, namespace, name });

describe('--resource', () => {
  it('GROUP:KIND:NAME matches in any namespace; GROUP:KIND:NAMESPACE/NAME in one', () => {
    const f = parseResourceFilter('apps:Deployment:orders');
    expect(matchesResource(f, key('apps', 'Deployment', 'shop', 'orders'))).toBe(true);
    expect(matchesResource(f, key('apps', 'Deployment', 'other', 'orders'))).toBe(true);
    expect(matchesResource(f, key('', 'Deployment', 'shop', 'orders'))).toBe(false);
    const g = parseResourceFilter(':ConfigMap:shop/settings');
    expect(matchesResource(g, key('', 'ConfigMap', 'shop', 'settings'))).toBe(true);
    expect(matchesResource(g, key('', 'ConfigMap', 'web', 'settings'))).toBe(false);
  });

  it('globs and exclusion', () => {
    const f = parseResourceFilter('*:*:orders-*');
    expect(matchesResource(f, key('apps', 'Deployment', 'shop', 'orders-v2'))).toBe(true);
    expect(matchesResource(f, key('apps', 'Deployment', 'shop', 'orders'))).toBe(false);
    expect(parseResourceFilter('!apps:Deployment:x').exclude).toBe(true);
    expect(matchesResource(parseResourceFilter('apps:Deploy.ment:x'), key('apps', 'DeployXment', '', 'x'))).toBe(false);
  });

  it.each(['Deployment/orders', 'apps:Deployment', 'apps::x', 'apps:Deployment:', 'a:b:c:d', 'apps:Deployment:ns/'])('%s is an input error', (t) => {
    expect(() => parseResourceFilter(t)).toThrow(InputError);
  });
});

describe('-l selector', () => {
  const labels = { app: 'shop', tier: 'web' };
  it.each([
    ['app=shop', true],
    ['app==shop', true],
    ['app!=shop', false],
    ['app!=other', true],
    ['missing!=x', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['tier in (web, db)', true],
    ['tier notin (web)', false],
    ['app=shop,tier=db', false],
    ['app=shop, tier in (web)', true],
  ])('%s → %s', (sel, want) => expect(selectorMatches(parseSelector(sel), labels)).toBe(want));

  it.each(['', 'a=b,', 'a b', '=x'])('%j is an input error', (sel) => {
    expect(() => parseSelector(sel)).toThrow(InputError);
  });
});
