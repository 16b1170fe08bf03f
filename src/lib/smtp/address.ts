// Mail addresses as this service accepts them: the dot-atom form of RFC 5322 in ASCII, nothing
// that could end a header or an SMTP command (no CR, LF, NUL, spaces, angle brackets, commas,
// quotes or comments). DGII's CorreoComprador, MAIL_FROM and a tenant's reply-to all pass here.

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const ADDRESS = new RegExp(`^${ATOM}(?:\\.${ATOM})*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$`);

/** RFC 5321's limits: 254 octets in all, 64 for the local part. */
export const MAX_ADDRESS_LENGTH = 254;

export function isMailAddress(value: string): boolean {
  if (value.length > MAX_ADDRESS_LENGTH || !ADDRESS.test(value)) return false;
  return value.indexOf('@') <= 64;
}

/** The domain of an address (for Message-ID and EHLO). */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
