/** A header sent once (a repeated one counts as absent). */
export function headerText(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
