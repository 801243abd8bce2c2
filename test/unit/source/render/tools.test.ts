// The bound on every program a render runs (helm, kustomize, git verify, gpg), as Argo CD's repo-server bounds them
// (util/exec): ARGOCD_EXEC_TIMEOUT, default 90 s, then SIGTERM, and SIGKILL after ARGOCD_EXEC_FATAL_TIMEOUT (10 s).
import { goDurationMs } from '../../../../src/model/duration.js';
import { execTimeouts, runTool } from '../../../../src/source/render/tools.js';

const node = process.execPath;

describe('execTimeouts', () => {
  it("reads Go durations; a value Go's time.ParseDuration refuses (a bare number) keeps the default, as in Argo CD", () => {
    expect(execTimeouts({})).toEqual({ timeoutMs: 90_000, fatalMs: 10_000 });
    expect(execTimeouts({ ARGOCD_EXEC_TIMEOUT: '3m', ARGOCD_EXEC_FATAL_TIMEOUT: '1m30s' })).toEqual({ timeoutMs: 180_000, fatalMs: 90_000 });
    expect(execTimeouts({ ARGOCD_EXEC_TIMEOUT: '180', ARGOCD_EXEC_FATAL_TIMEOUT: 'soon' })).toEqual({ timeoutMs: 90_000, fatalMs: 10_000 });
    expect(execTimeouts({ ARGOCD_EXEC_TIMEOUT: '0' }).timeoutMs).toBe(0);
  });

  it('parses the units Go does', () => {
    expect([goDurationMs('1h2m3.5s'), goDurationMs('250ms'), goDurationMs('1500us'), goDurationMs('.5s'), goDurationMs('2000000ns')]).toEqual([
      3_723_500, 250, 1.5, 500, 2,
    ]);
    expect([goDurationMs(''), goDurationMs('90'), goDurationMs('1d'), goDurationMs('-1s'), goDurationMs(undefined)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('runTool', () => {
  it('runs a program to its end within the bound', async () => {
    const r = await runTool(node, ['-e', 'process.stdout.write("out"); process.stderr.write("err")'], { env: { ...process.env } });
    expect(r).toEqual({ code: 0, stdout: 'out', stderr: 'err' });
  });

  it('stops a program that overruns ARGOCD_EXEC_TIMEOUT with SIGTERM, and says so after what it wrote; never a success', async () => {
    // Exits 0 on SIGTERM: still not a success, its output may be cut short.
    const script = 'process.stderr.write("working"); process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)';
    const r = await runTool(node, ['-e', script], { env: { ...process.env, ARGOCD_EXEC_TIMEOUT: '300ms' } });
    expect(r).toEqual({
      code: null,
      stdout: '',
      stderr: "working\nstopped after 0.3 s, its time limit (ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server)",
      timedOut: true,
    });
  });

  it('kills a program that ignores SIGTERM after ARGOCD_EXEC_FATAL_TIMEOUT', async () => {
    const script = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)';
    const r = await runTool(node, ['-e', script], { env: { ...process.env, ARGOCD_EXEC_TIMEOUT: '300ms', ARGOCD_EXEC_FATAL_TIMEOUT: '300ms' } });
    expect([r.code, r.timedOut, r.stderr]).toEqual([null, true, "stopped after 0.3 s, its time limit (ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server)"]);
  });
});
