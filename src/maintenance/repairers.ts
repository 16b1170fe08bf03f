import type { Config } from '../config.ts';
import { recreatePollJobs, recreateSubmitJobs } from '../documents/repair.ts';
import { recreateAnnulmentJobs } from '../sequences/repair.ts';
import { recreateDeliveryJobs } from '../webhooks/delivery.ts';
import type { Repairer } from './repair.ts';

/**
 * Everything that must have a job while it is in flight, and how to give it one back. A new
 * kind of work with a job per record adds its entry here: the
 * kind of its job, and a function that finds its records in flight without one (an
 * index-backed query, like those of the entries below) and inserts their jobs under a
 * unique key, so that two instances repairing at once add each job once.
 */
export function jobRepairers(config: Config): readonly Repairer[] {
  return [
    { kind: 'webhook.deliver', what: 'pending webhook deliveries', repair: recreateDeliveryJobs },
    { kind: 'document.submit', what: 'documents waiting to be sent', repair: recreateSubmitJobs },
    { kind: 'document.poll', what: 'documents waiting for their verdict', repair: (sql, limit, recreated) => recreatePollJobs(sql, limit, config.authority.pollIntervalMs, recreated) },
    { kind: 'annulment.submit', what: 'annulments waiting to be sent', repair: recreateAnnulmentJobs },
  ];
}
