// What the service says and does at start: the "listening" line an operator reads, and the
// safer defaults of NODE_ENV=production.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

const PRIVATE_NETWORKS_WARNING = /"level":"warn","msg":"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: /;

function listeningLine(t: TestService): Record<string, unknown> {
  const line = t.logLines.find((l) => l.includes('"msg":"listening"'));
  assert.ok(line !== undefined, 'a listening line');
  return JSON.parse(line) as Record<string, unknown>;
}

test('production warns about WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, closes public sign-up, and logs the dashboard\'s public URL', async () => {
  const t = await startTestService({ env: { NODE_ENV: 'production', TAX_AUTHORITY: 'simulator', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', PUBLIC_URL: 'https://ecf.example.com/' }, captureLog: true });
  try {
    assert.match(t.logLines.join('\n'), PRIVATE_NETWORKS_WARNING);
    const listening = listeningLine(t);
    assert.equal(listening.dashboard, 'https://ecf.example.com/dashboard/');
    assert.equal(listening.node, process.version);
    assert.equal(listening.pid, process.pid);
    const res = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: 'new@example.com', password: 'long enough password', name: 'Nueva SRL', rnc: '130000093' } });
    assert.equal(res.body.error?.code, 'REGISTRATION_DISABLED', res.text);
    const page = await call(t.url, 'GET', '/dashboard/config.json');
    assert.deepEqual(page.body.data, { registrationEnabled: false, sequenceExpiryWarningDays: 30 });
  } finally {
    await t.close();
  }
});

test('without the setting, or outside production, nothing is warned about; the dashboard URL is the listening one', async () => {
  const envs: Record<string, string>[] = [{ NODE_ENV: 'production', TAX_AUTHORITY: 'simulator' }, { NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }];
  for (const env of envs) {
    const t = await startTestService({ env, captureLog: true });
    try {
      assert.doesNotMatch(t.logLines.join('\n'), PRIVATE_NETWORKS_WARNING, JSON.stringify(env));
      assert.equal(listeningLine(t).dashboard, `${t.url}/dashboard/`);
    } finally {
      await t.close();
    }
  }
});
