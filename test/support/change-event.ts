/** One event as `changes:list` and `:subscribe` send it (API.md section 11). */
export interface ChangeEvent {
  id: number;
  collection: string;
  action: string;
  key: unknown;
  data: Record<string, unknown>;
  at: string;
}
