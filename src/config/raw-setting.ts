/** A raw setting value and the name to blame in an error (the flag, or the env var). */
export interface RawSetting {
  value: string;
  name: string;
}

/** JSON quoting keeps the message on one line; long values are cut. */
export function quote(value: string): string {
  const max = 80;
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
