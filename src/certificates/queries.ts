import type { Queryable } from '../db/connect.ts';

// Certificate queries. Each function is one statement; callers pass `sql` or a transaction.

export interface CertificateRow {
  id: string;
  tenantId: number;
  subject: string;
  issuer: string;
  serialNumber: string;
  holderId: string | null;
  validFrom: Date;
  validTo: Date;
  fingerprint256: string;
  active: boolean;
  createdAt: Date;
}

export interface SealedCertificateRow extends CertificateRow {
  keySealed: Buffer;
  certificateSealed: Buffer;
  /** Null for certificates stored before intermediates were kept (0019). */
  chainSealed: Buffer | null;
}

export type NewCertificate = Omit<SealedCertificateRow, 'createdAt' | 'active'>;

// Listings never read the sealed columns.
const COLUMNS = 'id, tenant_id, subject, issuer, serial_number, holder_id, valid_from, valid_to, fingerprint256, active, created_at';

/** Serialises certificate changes of one tenant (the tenant row is the lock). */
export async function lockTenant(sql: Queryable, tenantId: number): Promise<void> {
  await sql`select id from tenants where id = ${tenantId} for update`;
}

export async function deactivateAll(sql: Queryable, tenantId: number): Promise<void> {
  await sql`update certificates set active = false where tenant_id = ${tenantId} and active`;
}

/** Inserts the certificate as the tenant's active one (the caller deactivated the others). */
export async function insertActiveCertificate(sql: Queryable, c: NewCertificate): Promise<CertificateRow> {
  const [row] = await sql<CertificateRow[]>`
    insert into certificates (id, tenant_id, subject, issuer, serial_number, holder_id, valid_from, valid_to, fingerprint256, key_sealed, certificate_sealed, chain_sealed, active)
    values (${c.id}, ${c.tenantId}, ${c.subject}, ${c.issuer}, ${c.serialNumber}, ${c.holderId}, ${c.validFrom}, ${c.validTo},
            ${c.fingerprint256}, ${c.keySealed}, ${c.certificateSealed}, ${c.chainSealed}, true)
    returning ${sql.unsafe(COLUMNS)}`;
  return row as CertificateRow;
}

export async function listCertificates(sql: Queryable, tenantId: number): Promise<CertificateRow[]> {
  return sql<CertificateRow[]>`
    select ${sql.unsafe(COLUMNS)} from certificates where tenant_id = ${tenantId} order by created_at desc, id`;
}

export async function deleteCertificate(sql: Queryable, tenantId: number, id: string): Promise<CertificateRow | undefined> {
  const [row] = await sql<CertificateRow[]>`
    delete from certificates where id = ${id} and tenant_id = ${tenantId} returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

/** Makes the most recently uploaded certificate active, when the tenant has none active. */
export async function activateNewest(sql: Queryable, tenantId: number): Promise<void> {
  await sql`
    update certificates set active = true
    where id = (select id from certificates where tenant_id = ${tenantId} order by created_at desc, id limit 1)
      and not exists (select 1 from certificates where tenant_id = ${tenantId} and active)`;
}

export async function findActiveSealed(sql: Queryable, tenantId: number): Promise<SealedCertificateRow | undefined> {
  const [row] = await sql<SealedCertificateRow[]>`
    select ${sql.unsafe(COLUMNS)}, key_sealed, certificate_sealed, chain_sealed
    from certificates where tenant_id = ${tenantId} and active`;
  return row;
}
