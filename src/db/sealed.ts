import type { Tx } from './connect.ts';

/**
 * A transaction's handle that refuses statements once sealed. An emit batch sends its COMMIT
 * right behind the statements its works sent, without waiting for their results
 * (src/documents/numbering.ts); a statement sent through the transaction's handle after that
 * would run on its connection outside the transaction, or inside the next one of that
 * connection. Sealed, the handle throws instead, and the work that tried fails.
 */
export function sealable(tx: Tx): { tx: Tx; seal(): void } {
  let sealed = false;
  const refuse = (): never => {
    throw new Error('a statement was sent through a transaction after its COMMIT was sent');
  };
  const handle = new Proxy(tx, {
    // tx`…` (a statement or a fragment of one) and tx(…) (a helper for one)
    apply(target, thisArg, args: unknown[]) {
      if (sealed) refuse();
      return Reflect.apply(target, thisArg, args) as unknown;
    },
    // tx.unsafe, tx.file, tx.savepoint, tx.json, …: the driver's methods are closures over it
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        if (sealed) refuse();
        return Reflect.apply(value, target, args) as unknown;
      };
    },
  });
  return { tx: handle, seal: () => void (sealed = true) };
}
