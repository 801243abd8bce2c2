import { parse } from 'yaml';
import { formatEvent, type LoopEvent } from '../../../src/watch/events.js';

const ev: LoopEvent = {
  time: new Date('2026-11-30T05:00:00.000Z'),
  action: 'heal',
  object: 'Deployment/orders',
  namespace: 'shop',
  result: 'applied',
  revision: '0123456789abcdef0123456789abcdef01234567',
  message: 'took spec.replicas from kubectl-scale',
  detail: { retryInMs: 0 },
};

describe('formatEvent', () => {
  it('prints kv pairs on one line, quoting values with spaces', () => {
    expect(formatEvent(ev, 'kv')).toBe(
      'TIME=2026-11-30T05:00:00.000Z ACTION=heal OBJECT=Deployment/orders NAMESPACE=shop RESULT=applied ' +
        'REVISION=0123456789abcdef0123456789abcdef01234567 MESSAGE="took spec.replicas from kubectl-scale" RETRY_IN_MS=0\n',
    );
  });
  it('prints one JSON object per line', () => {
    const line = formatEvent(ev, 'json');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd().includes('\n')).toBe(false);
    expect(JSON.parse(line)).toEqual({
      time: '2026-11-30T05:00:00.000Z',
      action: 'heal',
      object: 'Deployment/orders',
      namespace: 'shop',
      result: 'applied',
      revision: ev.revision,
      message: ev.message,
      retryInMs: 0,
    });
  });
  it('prints a YAML document per event', () => {
    const text = formatEvent(ev, 'yaml');
    expect(text.startsWith('---\n')).toBe(true);
    expect(parse(text)).toMatchObject({ action: 'heal', object: 'Deployment/orders' });
  });
  it('prints a readable timestamped line in table mode', () => {
    expect(formatEvent(ev, 'table')).toBe(
      '2026-11-30T05:00:00.000Z  heal       Deployment/orders (shop)  applied  revision 0123456789ab  retryInMs=0  - took spec.replicas from kubectl-scale\n',
    );
  });
});
