// The request budget's pure parts (test/integration/support/request-budget.ts): how a logged request becomes a shape,
// and what counts as growth. The measurement itself runs on the local control plane (test/integration/request-budget.test.ts).
import { budgetGrowth, countShapes, formatBudget, parseBudget, requestShape } from '../../integration/support/request-budget.js';

const NS = ['budget-3-ab12cd34'];

describe('requestShape', () => {
  it('names the measured namespace {ns} and every object {name}, keeping resource, subresource and group', () => {
    expect(requestShape('GET', 'https://127.0.0.1:6443/api/v1/namespaces/budget-3-ab12cd34/configmaps?limit=500', NS)).toBe(
      'GET /api/v1/namespaces/{ns}/configmaps?limit',
    );
    expect(requestShape('PATCH', '/apis/apps/v1/namespaces/budget-3-ab12cd34/deployments/web-0?fieldManager=argocd-controller&force=true', NS)).toBe(
      'PATCH /apis/apps/v1/namespaces/{ns}/deployments/{name}?fieldManager&force',
    );
    expect(requestShape('PUT', '/apis/argoproj.io/v1alpha1/namespaces/budget-3-ab12cd34/applications/budget/status', NS)).toBe(
      'PUT /apis/argoproj.io/v1alpha1/namespaces/{ns}/applications/{name}/status',
    );
    expect(requestShape('GET', '/api/v1/namespaces/budget-3-ab12cd34', NS)).toBe('GET /api/v1/namespaces/{ns}');
    expect(requestShape('GET', '/api/v1/namespaces/argocd/configmaps/argocd-cm', NS)).toBe('GET /api/v1/namespaces/argocd/configmaps/{name}');
    expect(requestShape('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=500', NS)).toBe(
      'GET /apis/rbac.authorization.k8s.io/v1/clusterroles?limit',
    );
    expect(requestShape('GET', '/apis', NS)).toBe('GET /apis');
  });

  it('keeps the value of dryRun and watch (a dry run is not an apply)', () => {
    expect(requestShape('PATCH', '/api/v1/namespaces/budget-3-ab12cd34/services/svc-0?dryRun=All&fieldManager=x', NS)).toBe(
      'PATCH /api/v1/namespaces/{ns}/services/{name}?dryRun=All&fieldManager',
    );
  });

  it("leaves out the groups other suites' CRDs come and go in (*.test, example domains)", () => {
    expect(requestShape('GET', '/apis/opts1a2b3c.kgitops.test/v1/namespaces/x/gadgets', NS)).toBeUndefined();
    expect(requestShape('GET', '/apis/widgets.example.com/v1', NS)).toBeUndefined();
  });
});

describe('countShapes', () => {
  it('counts the request lines of a -v 6 log by shape and ignores every other line', () => {
    const log = [
      'I GET https://h/api/v1/namespaces/budget-3-ab12cd34/configmaps?limit=500 200 in 3 ms',
      'I GET https://h/api/v1/namespaces/budget-3-ab12cd34/configmaps?limit=500&continue=abc 200 in 2 ms',
      'I POST https://h/apis/authorization.k8s.io/v1/selfsubjectaccessreviews failed: ECONNRESET in 1 ms',
      'status: 3 API requests, 0 retried, in 40 ms',
      'I   request header accept: application/json',
    ].join('\n');
    expect(countShapes(log, NS)).toEqual({
      'GET /api/v1/namespaces/{ns}/configmaps?limit': 1,
      'GET /api/v1/namespaces/{ns}/configmaps?continue&limit': 1,
      'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews': 1,
    });
  });
});

describe('budgetGrowth', () => {
  const budget = { 'diff@3': { 'GET /a': 2, 'GET /b': 1 } };
  it('passes the same or fewer requests', () => {
    expect(budgetGrowth({ 'diff@3': { 'GET /a': 2 } }, budget)).toEqual([]);
  });
  it('names every shape that grew or is new, and a command the budget does not have', () => {
    expect(budgetGrowth({ 'diff@3': { 'GET /a': 3, 'GET /b': 1, 'GET /c': 1 }, 'list@3': { 'GET /a': 1 } }, budget)).toEqual([
      'diff@3: GET /a: 3 requests, budget 2',
      'diff@3: GET /c: 1 requests, budget 0',
      'list@3: not in the budget',
    ]);
  });
  it('reads back what it writes, sorted, with totals', () => {
    const text = formatBudget({ 'z@3': { 'GET /b': 1, 'GET /a': 2 }, 'a@3': { 'GET /x': 1 } });
    expect(parseBudget(text)).toEqual({ 'a@3': { 'GET /x': 1 }, 'z@3': { 'GET /a': 2, 'GET /b': 1 } });
    expect(Object.keys(JSON.parse(text).commands)).toEqual(['a@3', 'z@3']);
    expect(JSON.parse(text).totals).toEqual({ 'a@3': 1, 'z@3': 3 });
    expect(() => parseBudget('{"commands":{}}')).toThrow(/not a budget of schemaVersion 1/);
  });
});
