// Who may talk to the dashboard: the token and the Host header.
import { hostAllowed, isLoopbackAddress, requestToken, tokenMatches } from '../../../src/dashboard/guard.js';

describe('dashboard guard', () => {
  it('takes the token from ?token= or a Bearer header, and compares it whole', () => {
    expect(requestToken(new URL('http://x/api?token=abc'), undefined)).toBe('abc');
    expect(requestToken(new URL('http://x/api'), 'Bearer xyz')).toBe('xyz');
    expect(requestToken(new URL('http://x/api'), undefined)).toBeUndefined();
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('ab', 'abc')).toBe(false);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });

  it('accepts a Host that is an IP literal or localhost on the served port, refuses domains (DNS rebinding)', () => {
    expect(hostAllowed('127.0.0.1:8080', 8080, '127.0.0.1')).toBe(true);
    expect(hostAllowed('localhost:8080', 8080, '127.0.0.1')).toBe(true);
    expect(hostAllowed('[::1]:8080', 8080, '::1')).toBe(true);
    expect(hostAllowed('127.0.0.1:8081', 8080, '127.0.0.1')).toBe(false);
    expect(hostAllowed('evil.example.com:8080', 8080, '127.0.0.1')).toBe(false);
    expect(hostAllowed('127.0.0.1.nip.io:8080', 8080, '127.0.0.1')).toBe(false);
    expect(hostAllowed(undefined, 8080, '127.0.0.1')).toBe(false);
    expect(hostAllowed('', 8080, '127.0.0.1')).toBe(false);
    // The name it was started on, when given by name.
    expect(hostAllowed('dash.internal:9000', 9000, 'dash.internal')).toBe(true);
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['0.0.0.0', '192.168.1.4', '::', 'example.com']) expect(isLoopbackAddress(a)).toBe(false);
  });
});
