/** Thrown by `within` when the work took longer than its deadline. */
export class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * `work`, or DeadlineExceeded after `ms`. The work is not cancelled (a query cannot be from
 * here); its late rejection is dropped rather than left unhandled.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
