// The HTTP side of the printed representation, shared by issued and received documents.
import { DEFAULT_PRINT_FORMAT, PRINT_FORMATS, type PrintedPdf, type PrintFormat } from '../ecf/print/index.ts';
import type { ParamDoc } from '../http/openapi.ts';
import { S } from '../http/openapi.ts';
import { Query } from '../http/query.ts';
import type { Reply } from '../http/types.ts';

export const PRINT_QUERY_DOCS: Record<string, ParamDoc> = {
  formato: {
    description: 'carta (US Letter, the default), a4, or ticket80 (an 80 mm receipt roll, as long as the content needs).',
    schema: S.string({ enum: [...PRINT_FORMATS], default: DEFAULT_PRINT_FORMAT }),
  },
};

/** `formato`, the only query parameter; anything else or an unknown format is a 422. */
export function readPrintFormat(params: URLSearchParams): PrintFormat {
  const q = new Query(params);
  const format = q.oneOf('formato', PRINT_FORMATS) ?? DEFAULT_PRINT_FORMAT;
  q.done();
  return format;
}

export function pdfReply(pdf: PrintedPdf): Reply {
  return {
    status: 200,
    raw: { data: pdf.data, contentType: 'application/pdf' },
    headers: { 'content-disposition': `inline; filename="${pdf.filename}"`, 'cache-control': 'private, no-store' },
  };
}
