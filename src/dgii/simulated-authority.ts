import { randomUUID } from 'node:crypto';
import type { EcfObject, EcfValue } from '../documents/validation/types.ts';
import type { StatusQuery, StatusResult, Submission, SubmitResult, TaxAuthority, Verdict } from './authority.ts';
import { decide, type Ledger } from './verdicts.ts';

interface Pending {
  readyAt: number;
  verdict: Verdict;
}

/** Concatenated text of the free-text fields, where test scenario markers are looked for. */
export function notesOf(ecf: EcfObject): string {
  const parts: string[] = [];
  const walk = (v: EcfValue | undefined): void => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== undefined) Object.values(v as EcfObject).forEach(walk);
  };
  walk(ecf);
  return parts.join(' ');
}

/**
 * An in-process stand-in for DGII: takes a document, answers "En Proceso" for
 * `processingMs`, then its verdict. It keeps its state in memory, so it suits one
 * process (development, tests of the pipeline).
 */
export class SimulatedAuthority implements TaxAuthority, Ledger {
  private readonly pending = new Map<string, Pending>();
  private readonly acceptedKeys = new Set<string>();

  constructor(private readonly processingMs: number) {}

  accepted(environment: string, rncEmisor: string, encf: string): boolean {
    return this.acceptedKeys.has(`${environment}|${rncEmisor}|${encf}`);
  }

  async submit(s: Submission): Promise<SubmitResult> {
    const verdict = decide({ environment: s.environment, rncEmisor: s.rncEmisor, encf: s.encf, fechaEmision: s.fechaEmision, notes: notesOf(s.ecf) }, this);
    if (verdict.estado !== 'rechazado') this.acceptedKeys.add(`${s.environment}|${s.rncEmisor}|${s.encf}`);
    const trackId = randomUUID();
    this.pending.set(trackId, { readyAt: Date.now() + this.processingMs, verdict });
    return { kind: 'queued', trackId };
  }

  async status(q: StatusQuery): Promise<StatusResult> {
    const p = this.pending.get(q.trackId);
    if (p === undefined) return { kind: 'not-found' };
    if (Date.now() < p.readyAt) return { kind: 'pending', dgiiMessage: 'En Proceso' };
    return { kind: 'final', verdict: p.verdict };
  }
}
