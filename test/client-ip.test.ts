import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { clientIp, forwardedAddress } from '../src/http/client-ip.ts';

// Issue 28, item 13: with TRUST_PROXY, only an X-Forwarded-For entry that parses as an IP address
// is a client's identity; anything else would hand a client a fresh rate-limit bucket per string.

function request(xff: string | undefined, peer = '10.0.0.2'): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } } as unknown as IncomingMessage;
}

test('an X-Forwarded-For entry that is an IP address (with or without a port) is the client', () => {
  assert.equal(clientIp(request('203.0.113.7'), 1), '203.0.113.7');
  assert.equal(clientIp(request('198.51.100.1, 203.0.113.7'), 1), '203.0.113.7');
  assert.equal(clientIp(request('198.51.100.1, 203.0.113.7'), 2), '198.51.100.1');
  assert.equal(clientIp(request('2001:DB8::1'), 1), '2001:db8::1');
  assert.equal(clientIp(request('::ffff:203.0.113.9'), 1), '203.0.113.9');
  assert.equal(clientIp(request('203.0.113.7:4711'), 1), '203.0.113.7');
  assert.equal(clientIp(request('[2001:db8::2]:4711'), 1), '2001:db8::2');
});

test('an X-Forwarded-For entry that is not an IP address is not trusted: the proxy\'s address keys the request', () => {
  for (const forged of ['unknown', 'evil.example', 'x'.repeat(300), '203.0.113.300', '1.2.3', '<script>', '2001:db8::1::2', '_', '203.0.113.7 extra', '[::1', 'fe80::1%eth0/64']) {
    assert.equal(clientIp(request(forged), 1), '10.0.0.2', forged);
    assert.equal(forwardedAddress(forged), null, forged);
  }
  assert.equal(clientIp(request(undefined), 1), '10.0.0.2');
  assert.equal(clientIp(request('203.0.113.7'), 0), '10.0.0.2', 'TRUST_PROXY=0 ignores the header');
});
