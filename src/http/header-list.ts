// writeHead's flat [name, value, …] header form, built without an object to walk.

/** Sets `name` in a flat header list, replacing a field of the same name (names are compared in lower case). */
export function set(list: (string | number)[], name: string, value: string): void {
  const lower = name.toLowerCase();
  let i = 0;
  while (i < list.length && list[i] !== lower) i += 2;
  list[i] = lower;
  list[i + 1] = value;
}

export function setAll(list: (string | number)[], fields: Record<string, string>): void {
  for (const k in fields) set(list, k, fields[k] as string);
}
