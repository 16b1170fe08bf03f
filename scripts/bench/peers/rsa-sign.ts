import { generateKeyPairSync, sign } from 'node:crypto';

// One core's RSA-2048 signatures per second: PKCS#1 v1.5 over SHA-256, what an e-CF's XMLDSig
// costs in the private-key operation. Prints {"signaturesPerSecond": n} after BENCH_SIGN_SEC.
const seconds = Number(process.env.BENCH_SIGN_SEC ?? 3);
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const data = Buffer.alloc(512, 7);
for (let i = 0; i < 200; i++) sign('sha256', data, privateKey);
const end = performance.now() + seconds * 1000;
let n = 0;
while (performance.now() < end) {
  sign('sha256', data, privateKey);
  n++;
}
process.stdout.write(`${JSON.stringify({ signaturesPerSecond: n / seconds })}\n`);
