import { randomBytes } from 'node:crypto';
import { ENVIRONMENTS, type Environment, parseEnvironment } from '../../environments.ts';
import { SEED_TTL_MS } from '../../ecf/xml/seed.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { Ledger } from '../verdicts.ts';

// What the simulated DGII remembers, in memory and separately per environment: seeds it
// handed out, tokens it issued, documents it received and the eNCFs it accepted. Every
// collection is bounded, so a flood of requests cannot exhaust memory.

const MAX_SEEDS = 10_000;
const MAX_TOKENS = 10_000;
const MAX_TRACKS = 100_000;

export interface WireMessage {
  valor: string;
  codigo: number;
}

export interface Track {
  trackId: string;
  /** RNC or cédula of the token holder that sent it; only they may query it. */
  holderId: string;
  rncEmisor: string;
  encf: string;
  receivedAt: number;
  /** Until then the status is "En Proceso". */
  readyAt: number;
  /** 1 Aceptado, 2 Rechazado, 4 Aceptado Condicional. */
  codigo: 1 | 2 | 4;
  mensajes: WireMessage[];
  secuenciaUtilizada: boolean;
  /** The security code of the e-CF's signature, which Consulta Estado must be given; null when unsigned. */
  securityCode: string | null;
}

/** A summary (RFCE) received: answered by "Consulta RFCE" to its sender, given its security code. */
export interface Summary {
  holderId: string;
  securityCode: string;
  codigo: 1 | 2 | 4;
  mensajes: WireMessage[];
}

/** eNCFs are matched without regard to capitals, as DGII matches its paths. */
function encfKey(rncEmisor: string, encf: string): string {
  return `${rncEmisor.trim()}|${encf.trim().toUpperCase()}`;
}

export class EnvironmentState {
  private readonly seeds = new TtlCache<true>(SEED_TTL_MS, MAX_SEEDS);
  private tokens: TtlCache<string>;
  private readonly tracks = new Map<string, Track>();
  /** trackIds of each `rncEmisor|eNCF`, oldest first. */
  private readonly byEncf = new Map<string, string[]>();
  private readonly acceptedKeys = new Set<string>();
  private readonly summaries = new Map<string, Summary>();
  private readonly tokenTtlMs: number;
  /** Annulled spans per `rncEmisor|tipo`. */
  private readonly annulments = new Map<string, { desde: number; hasta: number }[]>();

  constructor(tokenTtlMs: number) {
    this.tokenTtlMs = tokenTtlMs;
    this.tokens = new TtlCache<string>(tokenTtlMs, MAX_TOKENS);
  }

  issueSeed(): string {
    const value = randomBytes(64).toString('base64');
    this.seeds.set(value, true);
    return value;
  }

  /** True once for a seed that was issued and has not expired. */
  consumeSeed(value: string): boolean {
    if (this.seeds.get(value) === undefined) return false;
    this.seeds.delete(value);
    return true;
  }

  issueToken(holderId: string, now: number): { token: string; expedido: Date; expira: Date } {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, holderId, now);
    return { token, expedido: new Date(now), expira: new Date(now + this.tokenTtlMs) };
  }

  holderOf(token: string): string | null {
    return this.tokens.get(token) ?? null;
  }

  expireTokens(): void {
    this.tokens = new TtlCache<string>(this.tokenTtlMs, MAX_TOKENS);
  }

  addTrack(track: Track): void {
    if (this.tracks.size >= MAX_TRACKS) {
      const oldest = this.tracks.values().next();
      if (oldest.done !== true) this.removeTrack(oldest.value);
    }
    this.tracks.set(track.trackId, track);
    if (track.encf === '') return;
    const key = encfKey(track.rncEmisor, track.encf);
    this.byEncf.set(key, [...(this.byEncf.get(key) ?? []), track.trackId]);
  }

  private removeTrack(track: Track): void {
    this.tracks.delete(track.trackId);
    const key = encfKey(track.rncEmisor, track.encf);
    const rest = (this.byEncf.get(key) ?? []).filter((id) => id !== track.trackId);
    if (rest.length === 0) this.byEncf.delete(key);
    else this.byEncf.set(key, rest);
  }

  track(trackId: string): Track | undefined {
    return this.tracks.get(trackId);
  }

  /** The documents received with this RNCEmisor and eNCF, oldest first. */
  tracksOf(rncEmisor: string, encf: string): Track[] {
    const ids = this.byEncf.get(encfKey(rncEmisor, encf)) ?? [];
    return ids.map((id) => this.tracks.get(id)).filter((t): t is Track => t !== undefined);
  }

  /**
   * Records a summary's verdict. A later rejection of the same eNCF (sent again) does not hide an
   * acceptance: the eNCF stays accepted, as DGII reports it.
   */
  addSummary(rncEmisor: string, encf: string, summary: Summary): void {
    const key = encfKey(rncEmisor, encf);
    if (this.summaries.get(key)?.codigo === 1 && summary.codigo !== 1) return;
    if (this.summaries.size >= MAX_TRACKS && !this.summaries.has(key)) {
      const oldest = this.summaries.keys().next();
      if (oldest.done !== true) this.summaries.delete(oldest.value);
    }
    this.summaries.set(key, summary);
  }

  summaryOf(rncEmisor: string, encf: string): Summary | undefined {
    return this.summaries.get(encfKey(rncEmisor, encf));
  }

  isAccepted(rncEmisor: string, encf: string): boolean {
    return this.acceptedKeys.has(`${rncEmisor}|${encf}`);
  }

  markAccepted(rncEmisor: string, encf: string): void {
    this.acceptedKeys.add(`${rncEmisor}|${encf}`);
  }

  /** The first accepted eNCF of the emisor in the span, or null. */
  acceptedIn(rncEmisor: string, tipo: number, span: { desde: number; hasta: number }): string | null {
    const prefix = `${rncEmisor}|E${tipo}`;
    let first: string | null = null;
    for (const key of this.acceptedKeys) {
      if (!key.startsWith(prefix)) continue;
      const encf = key.slice(rncEmisor.length + 1);
      const n = Number(encf.slice(3));
      if (n >= span.desde && n <= span.hasta && (first === null || encf < first)) first = encf;
    }
    return first;
  }

  /** The first annulled eNCF of the emisor in the span, or null. */
  annulledIn(rncEmisor: string, tipo: number, span: { desde: number; hasta: number }): string | null {
    const hit = (this.annulments.get(`${rncEmisor}|${tipo}`) ?? []).filter((a) => a.desde <= span.hasta && a.hasta >= span.desde);
    if (hit.length === 0) return null;
    const n = Math.max(span.desde, Math.min(...hit.map((a) => a.desde)));
    return `E${tipo}${String(n).padStart(10, '0')}`;
  }

  annulledExactly(rncEmisor: string, tipo: number, span: { desde: number; hasta: number }): boolean {
    return (this.annulments.get(`${rncEmisor}|${tipo}`) ?? []).some((a) => a.desde === span.desde && a.hasta === span.hasta);
  }

  addAnnulment(rncEmisor: string, tipo: number, span: { desde: number; hasta: number }): void {
    const key = `${rncEmisor}|${tipo}`;
    this.annulments.set(key, [...(this.annulments.get(key) ?? []), { ...span }]);
  }

  isAnnulled(rncEmisor: string, encf: string): boolean {
    const m = /^E(\d{2})(\d{10})$/.exec(encf);
    if (m === null) return false;
    const n = Number(m[2]);
    return this.annulledIn(rncEmisor, Number(m[1]), { desde: n, hasta: n }) !== null;
  }
}

export interface SimulatorCounters {
  seedsIssued: number;
  tokensIssued: number;
  documentsReceived: number;
  summariesReceived: number;
  statusQueries: number;
  /** Consulta Estado: an e-CF by its data. */
  ecfStatusQueries: number;
  trackIdQueries: number;
  summaryQueries: number;
  annulmentsReceived: number;
  directoryQueries: number;
  approvalsReceived: number;
}

export class SimulatorState implements Ledger {
  readonly environments: Readonly<Record<Environment, EnvironmentState>>;
  readonly counters: SimulatorCounters = { seedsIssued: 0, tokensIssued: 0, documentsReceived: 0, summariesReceived: 0, statusQueries: 0, ecfStatusQueries: 0, trackIdQueries: 0, summaryQueries: 0, annulmentsReceived: 0, directoryQueries: 0, approvalsReceived: 0 };

  constructor(tokenTtlMs: number) {
    this.environments = Object.fromEntries(ENVIRONMENTS.map((e) => [e, new EnvironmentState(tokenTtlMs)])) as Record<Environment, EnvironmentState>;
  }

  accepted(environment: string, rncEmisor: string, encf: string): boolean {
    const env = parseEnvironment(environment);
    return env !== null && this.environments[env].isAccepted(rncEmisor, encf);
  }

  annulled(environment: string, rncEmisor: string, encf: string): boolean {
    const env = parseEnvironment(environment);
    return env !== null && this.environments[env].isAnnulled(rncEmisor, encf);
  }
}
