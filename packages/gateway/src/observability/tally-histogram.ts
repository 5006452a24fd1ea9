import { Histogram, type Registry } from 'prom-client';
import { DURATION_BUCKETS, type MethodTally } from './request-tally.ts';

type Labels = { network: string; method: string };
type HistogramData = Awaited<ReturnType<Histogram<keyof Labels>['get']>>;
type BucketValue = {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  metricName: string;
  /** Exemplars are not kept: null on buckets, absent on the sum and count, as prom-client writes them. */
  exemplar: null | undefined;
};

/**
 * A Prometheus histogram exported from tallies the request path keeps itself (MethodTally)
 * instead of from `observe` calls: prom-client's registry reads a metric through `get` (JSON) and
 * `getForPromString` (text), and both are answered here in the shape its own Histogram gives.
 */
export class TallyHistogram extends Histogram<keyof Labels> {
  private readonly config: { name: string; help: string };

  constructor(
    config: { name: string; help: string; registers: Registry[] },
    private readonly tallies: () => Iterable<[Labels, MethodTally]>,
  ) {
    super({ ...config, labelNames: ['network', 'method'], buckets: DURATION_BUCKETS });
    this.config = { name: config.name, help: config.help };
  }

  /** The text format's view: bucket labels apart from the series' own (`sharedLabels`). */
  async getForPromString(): Promise<HistogramData> {
    const values: BucketValue[] = [];
    const { name, help } = this.config;
    for (const [labels, tally] of this.tallies()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += tally.durations[i];
        values.push(entry(`${name}_bucket`, { le }, labels, cumulative, null));
      });
      const count = cumulative + tally.durations[DURATION_BUCKETS.length];
      values.push(
        entry(`${name}_bucket`, { le: '+Inf' }, labels, count, null),
        entry(`${name}_sum`, {}, labels, tally.durationSum, undefined),
        entry(`${name}_count`, {}, labels, count, undefined),
      );
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values } as unknown as HistogramData;
  }

  override async get(): Promise<HistogramData> {
    const data = await this.getForPromString();
    const values = (data.values as BucketValue[]).map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...data, values } as HistogramData;
  }
}

const entry = (
  metricName: string,
  labels: BucketValue['labels'],
  sharedLabels: Labels,
  value: number,
  exemplar: null | undefined,
): BucketValue => ({ labels, sharedLabels, value, metricName, exemplar });
