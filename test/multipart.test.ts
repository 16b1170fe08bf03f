// multipart/form-data: encoding one file part, and a parser that refuses anything malformed
// with MultipartError and nothing else.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { encodeMultipartFile, findFilePart, multipartBoundary, MultipartError, parseMultipart } from '../src/dgii/protocol/multipart.ts';

const CT = 'multipart/form-data; boundary=XyZ';

function body(...lines: string[]): Buffer {
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

function refuses(contentType: string | undefined, input: Buffer, pattern: RegExp, limits = {}): void {
  assert.throws(() => parseMultipart(contentType, input, limits), (err: unknown) => err instanceof MultipartError && pattern.test(err.message));
}

describe('encodeMultipartFile', () => {
  it('round-trips a file through parseMultipart byte for byte', () => {
    const content = '<?xml version="1.0"?><ECF>ñ – €</ECF>';
    const encoded = encodeMultipartFile({ field: 'xml', filename: '131880681E310000000001.xml', content });
    assert.match(encoded.contentType, /^multipart\/form-data; boundary=----ecf-[0-9a-f]{36}$/);
    const parts = parseMultipart(encoded.contentType, encoded.body);
    assert.equal(parts.length, 1);
    assert.deepEqual({ ...parts[0], data: parts[0]?.data.toString('utf8') }, {
      name: 'xml',
      filename: '131880681E310000000001.xml',
      contentType: 'text/xml',
      data: content,
    });
  });

  it('keeps binary content intact, CRLF and dashes included', () => {
    const content = Buffer.concat([randomBytes(2048), Buffer.from('\r\n--\r\n--'), randomBytes(64)]);
    const encoded = encodeMultipartFile({ field: 'xml', filename: 'a.bin', content, contentType: 'application/octet-stream' });
    assert.deepEqual(parseMultipart(encoded.contentType, encoded.body)[0]?.data, content);
  });

  it('percent-encodes quotes and line breaks in the file name so the header stays well-formed', () => {
    const encoded = encodeMultipartFile({ field: 'xml', filename: 'a"b\r\nc.xml', content: 'x' });
    assert.match(encoded.body.toString('utf8'), /filename="a%22b%0D%0Ac\.xml"/);
    assert.equal(parseMultipart(encoded.contentType, encoded.body)[0]?.filename, 'a%22b%0D%0Ac.xml');
  });

  it('uses a new boundary for every body', () => {
    const a = encodeMultipartFile({ field: 'xml', filename: 'a.xml', content: 'x' });
    const b = encodeMultipartFile({ field: 'xml', filename: 'a.xml', content: 'x' });
    assert.notEqual(a.contentType, b.contentType);
  });
});

describe('multipartBoundary', () => {
  it('reads a quoted boundary with other parameters around it', () => {
    assert.equal(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"'), 'a b:c');
  });

  it('refuses a missing header, another media type, a missing or invalid boundary', () => {
    for (const [value, pattern] of [
      [undefined, /no Content-Type/],
      ['application/json', /expected multipart\/form-data/],
      ['multipart/form-data', /no boundary/],
      ['multipart/form-data; boundary=', /not valid/],
      [`multipart/form-data; boundary=${'a'.repeat(71)}`, /not valid/],
      ['multipart/form-data; boundary="ends with space "', /not valid/],
      ['multipart/form-data; boundary="unterminated', /unterminated/],
      ['multipart/form-data; boundary=a; boundary=b', /given twice/],
    ] as const) {
      assert.throws(() => multipartBoundary(value), (err: unknown) => err instanceof MultipartError && pattern.test(err.message), String(value));
    }
  });
});

describe('parseMultipart', () => {
  it('reads several parts, skipping the preamble and the epilogue', () => {
    const input = body(
      'preamble text',
      '--XyZ',
      'Content-Disposition: form-data; name="note"',
      '',
      'hola',
      '--XyZ',
      'content-disposition: form-data; name=xml; filename="doc.xml"',
      'Content-Type: application/xml',
      '',
      '<a/>',
      '--XyZ--',
      'epilogue',
    );
    const parts = parseMultipart(CT, input);
    assert.deepEqual(
      parts.map((p) => [p.name, p.filename, p.contentType, p.data.toString()]),
      [
        ['note', null, null, 'hola'],
        ['xml', 'doc.xml', 'application/xml', '<a/>'],
      ],
    );
    assert.equal(findFilePart(parts, 'xml')?.data.toString(), '<a/>');
    assert.equal(findFilePart(parts, 'note'), null, 'a plain field is not a file');
  });

  it('accepts transport padding after a boundary and an empty part body', () => {
    const input = body('--XyZ  ', 'Content-Disposition: form-data; name="xml"; filename="e.xml"', '', '', '--XyZ--');
    const [part] = parseMultipart(CT, input);
    assert.equal(part?.data.length, 0);
  });

  it('refuses malformed structures with a message that says what is wrong', () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('no boundary here'), /does not contain the boundary/],
      [body('--XyZ', 'Content-Disposition: form-data; name="x"', '', 'data without an end'), /ends before the closing boundary/],
      [body('--XyZ', 'Content-Type: text/plain', '', 'x', '--XyZ--'), /no Content-Disposition/],
      [body('--XyZ', 'Content-Disposition: attachment; name="x"', '', 'x', '--XyZ--'), /not form-data/],
      [body('--XyZ', 'Content-Disposition: form-data; filename="a"', '', 'x', '--XyZ--'), /no field name/],
      [body('--XyZ', 'Content-Disposition: form-data; name="x"', 'Content-Disposition: form-data; name="y"', '', 'x', '--XyZ--'), /two Content-Disposition/],
      [body('--XyZ', 'Broken header line', '', 'x', '--XyZ--'), /header line is malformed/],
      [body('--XyZ', 'Content-Disposition: form-data; name="x', '', 'x', '--XyZ--'), /unterminated quoted/],
      [body('--XyZ', 'Content-Disposition: form-data; name="x"', '', 'x', '--XyZ', 'Content-Disposition: form-data; name="y"'), /unterminated or too large/],
      [Buffer.from('--XyZ\nContent-Disposition: form-data; name="x"\n\nx\n--XyZ--'), /not followed by CRLF/],
    ];
    for (const [input, pattern] of cases) refuses(CT, input, pattern);
  });

  it('enforces its limits on parts, header size and body size', () => {
    const many = body(...Array.from({ length: 5 }, (_, i) => [`--XyZ`, `Content-Disposition: form-data; name="f${i}"`, '', 'v']).flat(), '--XyZ--');
    refuses(CT, many, /more than 4 parts/, { maxParts: 4 });
    const bigHeader = body('--XyZ', `Content-Disposition: form-data; name="${'n'.repeat(200)}"`, '', 'v', '--XyZ--');
    refuses(CT, bigHeader, /unterminated or too large/, { maxHeaderBytes: 100 });
    refuses(CT, Buffer.alloc(2000), /exceeds 1000 bytes/, { maxBodyBytes: 1000 });
  });

  it('throws only MultipartError on random input, whatever the boundary', () => {
    for (let i = 0; i < 300; i++) {
      const boundary = i % 3 === 0 ? 'XyZ' : randomBytes(4).toString('hex');
      const pieces = [randomBytes(i % 50), Buffer.from(`--${boundary}\r\n`), randomBytes(i % 40), Buffer.from('\r\n\r\n'), randomBytes(i % 30)];
      const input = Buffer.concat(i % 2 === 0 ? pieces : pieces.reverse());
      try {
        parseMultipart(`multipart/form-data; boundary=${boundary}`, input);
      } catch (err) {
        assert.ok(err instanceof MultipartError, `unexpected ${String(err)}`);
      }
    }
  });
});
