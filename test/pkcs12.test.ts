import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, createHash, createHmac, createPrivateKey, getCiphers } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { checkSigningCertificate, describeCertificate } from '../src/certificates/check.ts';
import {
  DerError, MAX_DEPTH, MAX_NODES, decodeDer, explicit, octetsOf, readOctets, readOid, readString, readUint, sequence,
} from '../src/crypto/der.ts';
import { LEGACY_REEXPORT_STEPS, PKCS12_ERRORS, Pkcs12Error, parsePkcs12 } from '../src/certificates/pkcs12.ts';
import { WorkBudget, bmpPassword, pkcs12Kdf } from '../src/certificates/pkcs12-kdf.ts';

const PASSWORD = 'Secreto-123';
const NON_ASCII = 'contraseña-ñ';
const SUBJECT = '/CN=Empresa Prueba SRL/serialNumber=101010101';
const EC_P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
// Without a MAC, OpenSSL 3 leaves certificates unencrypted unless -certpbe is given.
const NO_MAC = ['-nomac', '-certpbe', 'AES-256-CBC'];
const LEGACY_3DES = ['-keypbe', 'PBE-SHA1-3DES', '-certpbe', 'PBE-SHA1-3DES', '-macalg', 'sha1'];

let dir = '';
const openssl = (args: readonly string[]): void => {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
};
const file = (name: string): Buffer => readFileSync(join(dir, name));
const pem = (name: string): X509Certificate => new X509Certificate(file(name));

/** Self-signed (or, with `ca`, CA-issued) certificate and key `<name>.pem` / `<name>.key`. */
function makeCert(name: string, subject: string, newkey: string[], ca?: string): void {
  const issuer = ca === undefined ? [] : ['-CA', `${ca}.pem`, '-CAkey', `${ca}.key`];
  openssl(['req', '-x509', ...newkey, '-nodes', '-days', '30', '-subj', subject, '-utf8', ...issuer,
    '-keyout', `${name}.key`, '-out', `${name}.pem`]);
}

let seq = 0;
function exportP12(password: string, args: readonly string[], key = 'ee', cert = 'ee'): Buffer {
  const out = `out-${++seq}.p12`;
  openssl(['pkcs12', '-export', '-inkey', `${key}.key`, '-in', `${cert}.pem`, '-passout', `pass:${password}`,
    ...args, '-out', out]);
  return file(out);
}

function parseError(p12: Buffer, password: string): Pkcs12Error {
  try {
    parsePkcs12(p12, password);
  } catch (e) {
    assert.ok(e instanceof Pkcs12Error, `expected Pkcs12Error, got ${String(e)}`);
    return e;
  }
  return assert.fail('the file parsed');
}

// A minimal DER writer, only for building test inputs the openssl CLI refuses to produce.
function header(tag: number, length: number): Buffer {
  if (length < 0x80) return Buffer.from([tag, length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([header(tag, body.length), body]);
};
const hex = (h: string): Buffer => Buffer.from(h, 'hex');
const DATA_OID = tlv(0x06, hex('2a864886f70d010701'));
const INT3 = tlv(0x02, hex('03'));

function pfxParts(p12: Buffer): { authSafe: Buffer; infos: Buffer[]; mac: Buffer | undefined } {
  const pfx = sequence(decodeDer(p12, 'PFX'), 'PFX');
  const authSafe = readOctets(explicit(sequence(pfx[1], 'authSafe')[1], 0, 'content'), 'content');
  const infos = sequence(decodeDer(authSafe, 'safe'), 'safe').map((n) => Buffer.from(n.raw));
  return { authSafe, infos, mac: pfx[2] === undefined ? undefined : Buffer.from(pfx[2].raw) };
}
const pfxOf = (content: Buffer, mac?: Buffer): Buffer =>
  tlv(0x30, INT3, tlv(0x30, DATA_OID, tlv(0xa0, content)), ...(mac === undefined ? [] : [mac]));

/** Deterministic pseudo-random bytes so a failing garbage case can be reproduced. */
function prng(seed: string, length: number): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 32 < length; i++) chunks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, length);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'pkcs12-test-'));
  makeCert('ee', SUBJECT, ['-newkey', 'rsa:2048']);
  makeCert('other', '/CN=Other', ['-newkey', 'rsa:2048']);
  makeCert('ec', '/CN=Empresa EC', EC_P256);
  makeCert('short', '/CN=Empresa Corta', ['-newkey', 'rsa:1024']);
  makeCert('root', '/CN=Root CA', ['-newkey', 'rsa:2048']);
  makeCert('int', '/CN=Intermediate CA', ['-newkey', 'rsa:2048'], 'root');
  makeCert('leaf', SUBJECT, ['-newkey', 'rsa:2048', '-addext', 'basicConstraints=critical,CA:FALSE'], 'int');
  makeCert('person', '/CN=Juan Pérez 001-1234567-8', EC_P256);
  makeCert('etsi', '/CN=Ana Gómez/serialNumber=IDCDO-40212345678', EC_P256);
  writeFileSync(join(dir, 'mixed.pem'), Buffer.concat([file('root.pem'), file('leaf.pem'), file('int.pem')]));
});

after(() => rmSync(dir, { recursive: true, force: true }));

function assertParsesAsEe(p12: Buffer, password: string): void {
  const { privateKey, certificate, chain } = parsePkcs12(p12, password);
  assert.equal(privateKey.type, 'private');
  assert.equal(certificate.fingerprint256, pem('ee.pem').fingerprint256);
  assert.ok(certificate.checkPrivateKey(privateKey));
  assert.deepEqual(chain, []);
}

describe('parsePkcs12 with OpenSSL 3 exports', () => {
  test('parsePkcs12 reads the default export (PBES2 AES-256-CBC, SHA-256 MAC)', () => {
    const p12 = exportP12(PASSWORD, []);
    assertParsesAsEe(p12, PASSWORD);
    const { certificate, privateKey } = parsePkcs12(p12, PASSWORD);
    assert.equal(privateKey.asymmetricKeyType, 'rsa');
    assert.deepEqual(checkSigningCertificate({ privateKey, certificate }, new Date()), []);
  });

  test('parsePkcs12 reads legacy 3DES encryption with a SHA-1 MAC (appendix-B KDF)', () => {
    assertParsesAsEe(exportP12(PASSWORD, LEGACY_3DES), PASSWORD);
  });

  test('parsePkcs12 reads files with unencrypted certificates and files without a MAC', () => {
    assertParsesAsEe(exportP12(PASSWORD, ['-certpbe', 'NONE']), PASSWORD);
    assertParsesAsEe(exportP12(PASSWORD, NO_MAC), PASSWORD);
    assertParsesAsEe(exportP12(PASSWORD, ['-nomac', ...LEGACY_3DES.slice(0, 4)]), PASSWORD);
    assertParsesAsEe(exportP12('', ['-nomac', '-keypbe', 'NONE', '-certpbe', 'NONE']), 'ignored');
  });

  test('parsePkcs12 reads other PBES2 ciphers, 2-key 3DES and SHA-224/384/512 MACs', () => {
    const variants = [
      ['-keypbe', 'DES-EDE3-CBC', '-certpbe', 'AES-128-CBC', '-macalg', 'sha512'],
      ['-keypbe', 'AES-192-CBC', '-certpbe', 'AES-192-CBC', '-macalg', 'sha384'],
      ['-keypbe', 'PBE-SHA1-2DES', '-certpbe', 'PBE-SHA1-2DES', '-macalg', 'sha224'],
    ];
    for (const args of variants) assertParsesAsEe(exportP12(PASSWORD, args), PASSWORD);
  });

  test('parsePkcs12 reads empty and non-ASCII passwords under PBES2 and the legacy scheme', () => {
    for (const password of ['', NON_ASCII]) {
      assertParsesAsEe(exportP12(password, []), password);
      assertParsesAsEe(exportP12(password, LEGACY_3DES), password);
      assertParsesAsEe(exportP12(password, ['-nomac', ...LEGACY_3DES.slice(0, 4)]), password);
    }
  });

  test('parsePkcs12 reads files whose MAC was made with OpenSSL 1.0 byte-wise password conversion', () => {
    // OpenSSL 3 converts this (valid UTF-8) string to exactly the BMP bytes OpenSSL 1.0 produced
    // for NON_ASCII: each UTF-8 byte widened to 16 bits.
    const widened = Buffer.from(NON_ASCII, 'utf8').toString('latin1');
    assertParsesAsEe(exportP12(widened, LEGACY_3DES), NON_ASCII);
  });

  test('parsePkcs12 accepts an empty password stored as no password at all', () => {
    const { authSafe, mac } = pfxParts(exportP12('', []));
    assert.ok(mac !== undefined);
    const salt = hex('0102030405060708');
    const kdf = { hash: 'sha256', blockSize: 64, salt, iterations: 2048, purpose: 3, length: 32 } as const;
    const key = pkcs12Kdf({ ...kdf, password: Buffer.alloc(0) }, new WorkBudget());
    const digest = createHmac('sha256', key).update(authSafe).digest();
    const sha256 = tlv(0x30, tlv(0x06, hex('608648016503040201')), tlv(0x05));
    const macData = tlv(0x30, tlv(0x30, sha256, tlv(0x04, digest)), tlv(0x04, salt), tlv(0x02, hex('0800')));
    const p12 = pfxOf(tlv(0x04, authSafe), macData);
    assertParsesAsEe(p12, '');
    assert.equal(parseError(p12, 'x').code, 'BAD_PASSWORD');
  });

  test('parsePkcs12 reports a wrong password as BAD_PASSWORD without echoing it', () => {
    const wrong = 'not-the-password';
    const files = [
      exportP12(PASSWORD, []),
      exportP12(PASSWORD, LEGACY_3DES),
      exportP12(PASSWORD, NO_MAC),
      exportP12(PASSWORD, ['-nomac', ...LEGACY_3DES.slice(0, 4)]),
    ];
    for (const p12 of files) {
      const error = parseError(p12, wrong);
      assert.equal(error.code, 'BAD_PASSWORD');
      assert.equal(error.message, PKCS12_ERRORS.BAD_PASSWORD);
      assert.ok(!error.message.includes(wrong) && !error.message.includes(PASSWORD));
    }
    assert.equal(parseError(exportP12(NON_ASCII, []), 'contrasena-n').code, 'BAD_PASSWORD');
  });

  test('parsePkcs12 reads BER constructed OCTET STRINGs in the authSafe and in EncryptedData', () => {
    const withMac = pfxParts(exportP12(PASSWORD, []));
    const pieces = [0, 100, 101, 900].map((at, i, all) => withMac.authSafe.subarray(at, all[i + 1]));
    assertParsesAsEe(pfxOf(tlv(0x24, ...pieces.map((p) => tlv(0x04, p))), withMac.mac), PASSWORD);

    const noMac = pfxParts(exportP12(PASSWORD, NO_MAC));
    const infos = noMac.infos.map((raw) => {
      const info = sequence(decodeDer(raw, 'info'), 'info');
      if (readOid(info[0], 'type') !== '1.2.840.113549.1.7.6') return raw;
      const [version, eci] = sequence(explicit(info[1], 0, 'ed'), 'ed');
      const [type, alg, content] = sequence(eci, 'eci');
      assert.ok(version && type && alg && content && !content.constructed);
      const cipher = octetsOf(content, 'content');
      const split = tlv(0xa0, tlv(0x04, cipher.subarray(0, 16)), tlv(0x04, cipher.subarray(16)));
      return tlv(0x30, info[0]!.raw, tlv(0xa0, tlv(0x30, version.raw, tlv(0x30, type.raw, alg.raw, split))));
    });
    assert.notDeepEqual(infos, noMac.infos);
    assertParsesAsEe(pfxOf(tlv(0x04, tlv(0x30, ...infos))), PASSWORD);
  });
});

describe('parsePkcs12 with RC2 (-legacy) files', () => {
  test('parsePkcs12 rejects RC2-40 as UNSUPPORTED_ALGORITHM with working re-export advice', () => {
    const legacy = exportP12(PASSWORD, ['-legacy']);
    if (getCiphers().includes('rc2-40-cbc')) {
      assertParsesAsEe(legacy, PASSWORD);
    } else {
      const error = parseError(legacy, PASSWORD);
      assert.equal(error.code, 'UNSUPPORTED_ALGORITHM');
      assert.match(error.message, /pbeWithSHAAnd40BitRC2-CBC/);
      for (const step of LEGACY_REEXPORT_STEPS) assert.ok(error.message.includes(step));
    }
    // The advice, run verbatim (plus the passwords the CLI would otherwise prompt for).
    writeFileSync(join(dir, 'old.p12'), legacy);
    for (const step of LEGACY_REEXPORT_STEPS) {
      const [command = '', ...args] = step.split(' ');
      const passwords = command === 'openssl' ? ['-passin', `pass:${PASSWORD}`, '-passout', `pass:${PASSWORD}`] : [];
      execFileSync(command, [...args, ...passwords], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    }
    assertParsesAsEe(file('new.p12'), PASSWORD);
    assert.throws(() => file('old.pem'), { code: 'ENOENT' });
  });

  test('parsePkcs12 decrypts RC2 and RC4 when the runtime has the OpenSSL legacy provider', () => {
    const cases: { args: string[]; exportWith: string; parseWith: string; expected: string }[] = [
      { args: ['-legacy'], exportWith: PASSWORD, parseWith: PASSWORD, expected: 'match' },
      {
        args: ['-legacy', '-keypbe', 'PBE-SHA1-RC4-128', '-certpbe', 'PBE-SHA1-RC2-128'],
        exportWith: PASSWORD, parseWith: PASSWORD, expected: 'match',
      },
      {
        args: ['-legacy', '-keypbe', 'PBE-SHA1-RC4-40', '-certpbe', 'PBE-SHA1-RC2-40'],
        exportWith: NON_ASCII, parseWith: NON_ASCII, expected: 'match',
      },
      // RC4 has no padding to fail: without a MAC only the garbled plaintext betrays the password.
      {
        args: ['-legacy', '-nomac', '-keypbe', 'PBE-SHA1-RC4-128', '-certpbe', 'NONE'],
        exportWith: PASSWORD, parseWith: 'wrong', expected: 'BAD_PASSWORD',
      },
    ];
    const inputs = cases.map(({ args, exportWith, parseWith }) => {
      const path = join(dir, `legacy-${++seq}.p12`);
      writeFileSync(path, exportP12(exportWith, args));
      return { path, password: parseWith };
    });
    const script = `import { readFileSync } from 'node:fs';
      import { parsePkcs12 } from ${JSON.stringify(new URL('../src/certificates/pkcs12.ts', import.meta.url).href)};
      for (const { path, password } of ${JSON.stringify(inputs)}) {
        try {
          const r = parsePkcs12(readFileSync(path), password);
          console.log(r.certificate.checkPrivateKey(r.privateKey) ? 'match' : 'mismatch');
        } catch (e) { console.log(e.code); }
      }`;
    const args = ['--openssl-legacy-provider', '--input-type=module', '-e', script];
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', cwd });
    assert.deepEqual(child.stdout.trim().split('\n'), cases.map((c) => c.expected), child.stderr);
  });
});

describe('parsePkcs12 key and certificate pairing', () => {
  const expectedChain = (): string[] => [pem('int.pem').fingerprint256, pem('root.pem').fingerprint256];

  test('parsePkcs12 picks the end-entity certificate of a chain added with -certfile', () => {
    writeFileSync(join(dir, 'cas.pem'), Buffer.concat([file('root.pem'), file('int.pem')]));
    const p12 = exportP12(PASSWORD, ['-certfile', 'cas.pem'], 'leaf', 'leaf');
    const { certificate, privateKey, chain } = parsePkcs12(p12, PASSWORD);
    assert.equal(certificate.fingerprint256, pem('leaf.pem').fingerprint256);
    assert.ok(certificate.checkPrivateKey(privateKey));
    assert.deepEqual(chain.map((c) => c.fingerprint256), expectedChain());
  });

  test('parsePkcs12 pairs by public key when no bag attribute links key and certificate', () => {
    const keyOnly = pfxParts(exportP12(PASSWORD, ['-nocerts'], 'leaf'));
    const certsOnly = pfxParts(exportP12(PASSWORD, ['-nokeys'], 'leaf', 'mixed'));
    const p12 = pfxOf(tlv(0x04, tlv(0x30, ...certsOnly.infos, ...keyOnly.infos)));
    const { certificate, chain } = parsePkcs12(p12, PASSWORD);
    assert.equal(certificate.fingerprint256, pem('leaf.pem').fingerprint256);
    assert.deepEqual(chain.map((c) => c.fingerprint256), expectedChain());
    // The key decides even against the preference for non-CA certificates.
    const intKey = pfxParts(exportP12(PASSWORD, ['-nocerts'], 'int'));
    const forInt = parsePkcs12(pfxOf(tlv(0x04, tlv(0x30, ...certsOnly.infos, ...intKey.infos))), PASSWORD);
    assert.equal(forInt.certificate.fingerprint256, pem('int.pem').fingerprint256);
    const rootThenLeaf = [pem('root.pem'), pem('leaf.pem')].map((c) => c.fingerprint256);
    assert.deepEqual(forInt.chain.map((c) => c.fingerprint256), rootThenLeaf);
  });

  test('parsePkcs12 returns a non-matching pair, which checkSigningCertificate rejects', () => {
    const keyOnly = pfxParts(exportP12(PASSWORD, ['-nocerts'], 'other'));
    const certOnly = pfxParts(exportP12(PASSWORD, ['-nokeys'], 'ee', 'ee'));
    const parsed = parsePkcs12(pfxOf(tlv(0x04, tlv(0x30, ...keyOnly.infos, ...certOnly.infos))), PASSWORD);
    assert.equal(parsed.certificate.fingerprint256, pem('ee.pem').fingerprint256);
    assert.deepEqual(checkSigningCertificate(parsed, new Date()).map((p) => p.message), [
      'The private key does not belong to the certificate.',
    ]);
    const direct = { privateKey: createPrivateKey(file('other.key')), certificate: pem('ee.pem') };
    assert.deepEqual(checkSigningCertificate(direct, new Date()).map((p) => p.path), ['privateKey']);
  });

  test('parsePkcs12 reports the public-key privacy and integrity modes as UNSUPPORTED_ALGORITHM', () => {
    const enveloped = tlv(0x30, tlv(0x06, hex('2a864886f70d010703')), tlv(0xa0, tlv(0x30, INT3)));
    const error = parseError(pfxOf(tlv(0x04, tlv(0x30, enveloped))), PASSWORD);
    assert.equal(error.code, 'UNSUPPORTED_ALGORITHM');
    assert.match(error.message, /envelopedData/);
    const signed = tlv(0x30, INT3, tlv(0x30, tlv(0x06, hex('2a864886f70d010702')), tlv(0xa0, tlv(0x30, INT3))));
    assert.match(parseError(signed, PASSWORD).message, /signedData/);
  });

  test('parsePkcs12 reports NO_PRIVATE_KEY and NO_CERTIFICATE', () => {
    assert.equal(parseError(exportP12(PASSWORD, ['-nokeys'], 'ee', 'ee'), PASSWORD).code, 'NO_PRIVATE_KEY');
    assert.equal(parseError(exportP12(PASSWORD, ['-nocerts'], 'ee'), PASSWORD).code, 'NO_CERTIFICATE');
  });
});

describe('checkSigningCertificate', () => {
  const paths = (name: string, now: Date): string[] =>
    checkSigningCertificate(parsePkcs12(exportP12(PASSWORD, [], name, name), PASSWORD), now).map((p) => p.path);

  test('checkSigningCertificate reports an EC key as not RSA', () => {
    const parsed = parsePkcs12(exportP12(PASSWORD, [], 'ec', 'ec'), PASSWORD);
    assert.equal(parsed.privateKey.asymmetricKeyType, 'ec');
    const problems = checkSigningCertificate(parsed, new Date());
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /ec; DGII signatures require an RSA key/);
  });

  test('checkSigningCertificate reports a 1024-bit RSA key as too short', () => {
    const parsed = parsePkcs12(exportP12(PASSWORD, [], 'short', 'short'), PASSWORD);
    const problems = checkSigningCertificate(parsed, new Date());
    assert.deepEqual(problems.map((p) => p.message), ['The RSA key has 1024 bits; at least 2048 are required.']);
  });

  test('checkSigningCertificate reports expiry at validTo and not-yet-valid before validFrom', () => {
    const { validFrom, validTo } = describeCertificate(pem('ee.pem'));
    assert.deepEqual(paths('ee', validTo), ['certificate.validTo']);
    assert.deepEqual(paths('ee', new Date(validTo.getTime() - 1000)), []);
    assert.deepEqual(paths('ee', new Date(validFrom.getTime() - 1000)), ['certificate.validFrom']);
    assert.deepEqual(paths('ee', validFrom), []);
  });
});

describe('describeCertificate', () => {
  test('describeCertificate lists subject, issuer, serial, validity, fingerprint and holder id', () => {
    const cert = pem('ee.pem');
    const d = describeCertificate(cert);
    assert.equal(d.subject, 'CN=Empresa Prueba SRL, serialNumber=101010101');
    assert.equal(d.issuer, d.subject);
    assert.equal(d.serialNumber, cert.serialNumber);
    assert.equal(d.fingerprint256, cert.fingerprint256);
    assert.equal(d.validFrom.getTime(), new Date(cert.validFrom).getTime());
    assert.equal(d.validTo.getTime() - d.validFrom.getTime(), 30 * 86_400_000);
    assert.equal(d.holderId, '101010101');
  });

  test('describeCertificate finds the holder id in the CN or an ETSI serialNumber, else null', () => {
    assert.equal(describeCertificate(pem('person.pem')).holderId, '00112345678');
    assert.equal(describeCertificate(pem('person.pem')).subject, 'CN=Juan Pérez 001-1234567-8');
    assert.equal(describeCertificate(pem('etsi.pem')).holderId, '40212345678');
    assert.equal(describeCertificate(pem('root.pem')).holderId, null);
  });
});

describe('hostile input', () => {
  const assertMalformed = (input: Buffer, label: string): void => {
    const error = parseError(input, PASSWORD);
    assert.equal(error.code, 'MALFORMED', `${label}: ${error.message}`);
  };

  test('parsePkcs12 rejects random bytes as MALFORMED', () => {
    for (let i = 0; i < 300; i++) {
      const bytes = prng(`random-${i}`, 1 + (i * 37) % 3000);
      if (i % 2 === 0) bytes[0] = 0x30;
      assertMalformed(bytes, `random ${i}`);
    }
    assertMalformed(Buffer.alloc(0), 'empty');
  });

  test('parsePkcs12 rejects every 97th-byte truncation as MALFORMED', () => {
    for (const p12 of [exportP12(PASSWORD, []), exportP12(PASSWORD, LEGACY_3DES), exportP12(PASSWORD, NO_MAC)]) {
      for (let at = 0; at < p12.length; at += 97) assertMalformed(p12.subarray(0, at), `truncated at ${at}`);
      assertMalformed(Buffer.concat([p12, hex('00')]), 'trailing byte');
    }
  });

  test('parsePkcs12 answers corrupted files only with Pkcs12Error', () => {
    const original = exportP12(PASSWORD, ['-nomac', '-certpbe', 'NONE']);
    const started = Date.now();
    for (let at = 0; at < original.length; at += 97) {
      for (const flip of [0x01, 0x80, 0xff]) {
        const corrupt = Buffer.from(original);
        corrupt[at] = (corrupt[at] ?? 0) ^ flip;
        try {
          parsePkcs12(corrupt, PASSWORD);
        } catch (e) {
          assert.ok(e instanceof Pkcs12Error, `byte ${at} ^ ${flip}: ${String(e)}`);
        }
      }
    }
    assert.ok(Date.now() - started < 10_000);
  });

  test('parsePkcs12 rejects huge, oversized and indefinite lengths as MALFORMED', () => {
    assertMalformed(hex('3084ffffffff020103'), 'length past the end');
    assertMalformed(hex('308900000000000000000302010300'), 'nine length bytes');
    assertMalformed(hex('30800201030000'), 'indefinite length');
    assertMalformed(hex('3fffffffff7f00'), 'huge tag number');
    assertMalformed(Buffer.alloc(2 * 1024 * 1024, 0x30), 'oversized file');
  });

  test('parsePkcs12 rejects deep nesting as MALFORMED quickly', () => {
    const deepNest = (levels: number): Buffer => {
      const headers: Buffer[] = [];
      for (let i = 0, size = 2; i < levels; i++) {
        const h = header(0x30, size);
        headers.push(h);
        size += h.length;
      }
      return Buffer.concat([...headers.reverse(), tlv(0x30)]);
    };
    const deep = deepNest(100_000);
    const inPfx = pfxOf(tlv(0x04, deepNest(1000)));
    const started = Date.now();
    assertMalformed(deep, 'nested SEQUENCEs');
    assertMalformed(inPfx, 'nesting inside the authSafe');
    assert.ok(Date.now() - started < 1000);
  });

  test('parsePkcs12 rejects a flood of tiny elements as MALFORMED', () => {
    assertMalformed(tlv(0x30, Buffer.alloc(2 * (MAX_NODES + 1), hex('3000'))), 'element flood');
    const longOid = tlv(0x06, Buffer.concat([Buffer.alloc(4095, 0x81), hex('01')]));
    assert.match(parseError(tlv(0x30, INT3, tlv(0x30, longOid)), PASSWORD).message, /bad object identifier/);
  });

  test('parsePkcs12 refuses absurd iteration counts instead of hanging', () => {
    const p12 = exportP12(PASSWORD, ['-nomac', '-iter', '65535']);
    const patched = Buffer.from(p12.toString('hex').replaceAll('020300ffff', '02037fffff'), 'hex');
    assert.notDeepEqual(patched, p12);
    const started = Date.now();
    assert.match(parseError(patched, PASSWORD).message, /iteration count/);
    assert.ok(Date.now() - started < 1000);
  });
});

describe('DER reader and KDF building blocks', () => {
  test('decodeDer decodes OIDs, BMPStrings, integers and constructed OCTET STRINGs', () => {
    assert.equal(readOid(decodeDer(hex('060b2a864886f70d010c0a0102'), 'oid'), 'oid'), '1.2.840.113549.1.12.10.1.2');
    assert.equal(readOid(decodeDer(hex('0603883703'), 'oid'), 'oid'), '2.999.3');
    assert.equal(readString(decodeDer(hex('1e0a0063006f00f1006f0021'), 's'), 's'), 'coño!');
    assert.equal(readUint(decodeDer(hex('0203010000'), 'n'), 'n', 1e6), 65536);
    assert.throws(() => readUint(decodeDer(hex('0201ff'), 'n'), 'n', 10), DerError);
    const constructed = decodeDer(hex('240a0402abcd2404040201ef'), 'os');
    assert.deepEqual(readOctets(constructed, 'os'), hex('abcd01ef'));
  });

  test('decodeDer caps nesting at MAX_DEPTH', () => {
    const nest = (depth: number): Buffer => {
      let b = tlv(0x05);
      for (let i = 0; i < depth; i++) b = tlv(0x30, b);
      return b;
    };
    assert.doesNotThrow(() => decodeDer(nest(MAX_DEPTH), 'n'));
    assert.throws(() => decodeDer(nest(MAX_DEPTH + 1), 'n'), DerError);
  });

  test('pkcs12Kdf matches a published appendix-B MAC key vector', () => {
    const salt = hex('e241f01650dbeae4');
    const input = { hash: 'sha256', blockSize: 64, salt, iterations: 2048, purpose: 3, length: 32 } as const;
    const key = pkcs12Kdf({ ...input, password: bmpPassword('123456') }, new WorkBudget());
    assert.equal(key.toString('hex'), '721259f14aad70b58839f71566b433da1b8ad08f650f4d02faaa0b9b095bb51d');
  });

  test('bmpPassword encodes UTF-16BE with a NUL terminator, surrogate pairs included', () => {
    assert.deepEqual(bmpPassword('ñ'), hex('00f10000'));
    assert.deepEqual(bmpPassword('😀'), hex('d83dde000000'));
    assert.deepEqual(bmpPassword(''), hex('0000'));
  });
});
