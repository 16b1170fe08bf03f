import type { Verdict } from './authority.ts';

// The checks the simulated authority applies before its verdict, as DGII would on these
// points. The message codes are the simulator's own (DGII publishes its codes only in
// its portal); acceptance is code 0, as the specification shows.

export interface Candidate {
  environment: string;
  rncEmisor: string;
  encf: string;
  /** yyyy-MM-dd */
  fechaEmision: string;
  /** Free text of the document the scenario marker may appear in. */
  notes: string;
}

export interface Ledger {
  /** Whether (environment, emisor, eNCF) was already accepted. */
  accepted(environment: string, rncEmisor: string, encf: string): boolean;
  /** Whether (environment, emisor, eNCF) lies in an accepted annulment (ANECF). */
  annulled(environment: string, rncEmisor: string, encf: string): boolean;
}

const ACCEPTED: Verdict = { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado' };

// Test scenarios: a document whose notes carry one of these markers gets that verdict,
// so that every outcome can be exercised end to end.
const SCENARIOS: Record<string, Verdict> = {
  '[simulador:condicional]': { estado: 'aceptado_condicional', dgiiCode: '1', dgiiMessage: 'Aceptado Condicional: el documento presenta observaciones no bloqueantes' },
  '[simulador:rechazar]': { estado: 'rechazado', dgiiCode: '2', dgiiMessage: 'Rechazado por solicitud de prueba' },
};

const RULES: { check: (c: Candidate, ledger: Ledger, today: string) => boolean; verdict: Verdict }[] = [
  {
    check: (c, ledger) => ledger.accepted(c.environment, c.rncEmisor, c.encf),
    verdict: { estado: 'rechazado', dgiiCode: '4', dgiiMessage: 'El eNCF ya fue utilizado por este emisor' },
  },
  {
    check: (c, ledger) => ledger.annulled(c.environment, c.rncEmisor, c.encf),
    verdict: { estado: 'rechazado', dgiiCode: '8', dgiiMessage: 'El eNCF fue anulado por el emisor' },
  },
  {
    check: (c, _l, today) => c.fechaEmision > today,
    verdict: { estado: 'rechazado', dgiiCode: '5', dgiiMessage: 'La FechaEmision no puede ser posterior a la fecha actual' },
  },
];

/** Today in the Dominican Republic (GMT-4, no daylight saving), as yyyy-MM-dd. */
export function todayInSantoDomingo(now = Date.now()): string {
  return new Date(now - 4 * 3_600_000).toISOString().slice(0, 10);
}

export function decide(c: Candidate, ledger: Ledger, now = Date.now()): Verdict {
  const today = todayInSantoDomingo(now);
  for (const rule of RULES) if (rule.check(c, ledger, today)) return rule.verdict;
  for (const [marker, verdict] of Object.entries(SCENARIOS)) if (c.notes.includes(marker)) return verdict;
  return ACCEPTED;
}
