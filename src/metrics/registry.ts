// A minimal Prometheus text-format (version 0.0.4) registry: counters and histograms kept
// in memory, plus gauges computed when scraped.

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

const keyOf = (labels: Labels): string => JSON.stringify(labels);

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  readonly name: string;
  readonly help: string;

  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  inc(labels: Labels = {}, by = 1): void {
    this.cell(labels).value += by;
  }

  /** The series of `labels`, to keep and increment directly (no key built per increment). */
  cell(labels: Labels): { value: number } {
    const k = keyOf(labels);
    let entry = this.values.get(k);
    if (entry === undefined) this.values.set(k, (entry = { labels, value: 0 }));
    return entry;
  }

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, ...[...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${e.value}`)];
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly name: string;
  readonly help: string;
  readonly buckets: readonly number[];

  constructor(name: string, help: string, buckets: readonly number[]) {
    this.name = name;
    this.help = help;
    this.buckets = buckets;
  }

  observe(labels: Labels, value: number): void {
    this.cell(labels).observe(value);
  }

  /** The series of `labels`, to keep and observe directly. Counts are kept per bucket and summed when rendered. */
  cell(labels: Labels): { observe(value: number): void } {
    const k = keyOf(labels);
    let s = this.series.get(k);
    if (s === undefined) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    const series = s;
    const buckets = this.buckets;
    return {
      observe(value: number): void {
        let i = 0;
        while (i < buckets.length && value > (buckets[i] as number)) i++;
        if (i < buckets.length) series.counts[i] = (series.counts[i] as number) + 1;
        series.sum += value;
        series.count += 1;
      },
    };
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i] as number;
        lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(b) })} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

/** A gauge read at scrape time; features hand /metrics functions that return these. */
export interface GaugeFamily {
  name: string;
  help: string;
  samples: { labels?: Labels; value: number }[];
}

/** The database-derived gauges of one part of the service, read at each scrape. */
export type GaugeSource = () => Promise<GaugeFamily[]>;

export function gauge(name: string, help: string, samples: { labels?: Labels; value: number }[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...samples.map((s) => `${name}${labelText(s.labels ?? {})} ${s.value}`)];
}
