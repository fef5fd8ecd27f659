import type { Field } from '../schema/collection.js';
import { isRecord } from '../is-record.js';
import { END_INSTANT, MIN_INSTANT, parsePeriod, periodDays } from './date-period.js';
import { and, FALSE_NODE, or, TRUE_NODE, type CompareOp, type FilterNode } from './filter-node.js';
import { isNullNode, notNullNode, operatorType } from './filter-operands.js';
import type { TimeZone } from '../request/time-zone.js';

export type DateOperator = '$dateOn' | '$dateNotOn' | '$dateBefore' | '$dateNotBefore' | '$dateAfter' | '$dateNotAfter' | '$dateBetween';

const PERIOD_FORMS =
  'takes a period: 2026, 2026Q1, 2026W05, 2026w05, 2026-01, 2026-01-15, 2026-01-15T10:30, an ISO instant, [from, to] or "[from,to]" (each optionally ending in a zone, +08:00)';

/**
 * The bounds of a period on a date or dateOnly field: [start, end) as field values, a bound
 * beyond the years such a field holds being undefined (no bound), so no out-of-range value
 * ever reaches the database.
 */
function periodBounds(field: Field, operator: string, value: unknown, zone: TimeZone): { start: unknown; end: unknown } {
  // qs turns `[$dateBetween][0]=…&[$dateBetween][1]=…` into an array, or an indexed object.
  const period = parsePeriod(isRecord(value) ? Object.values(value) : value, zone);
  if (period === undefined) throw operatorType(field, operator, PERIOD_FORMS);
  // A zone the value names itself (`2026+08:00`) decides its days too.
  if (field.def.type === 'dateOnly') return periodDays(period, period.zone);
  return {
    start: period.start < MIN_INSTANT ? undefined : new Date(period.start),
    end: period.end >= END_INSTANT ? undefined : new Date(period.end),
  };
}

/** The date period operators, read in `zone` unless the value names its own. */
export function dateCondition(field: Field, operator: DateOperator, value: unknown, zone: TimeZone): FilterNode {
  const { start, end } = periodBounds(field, operator, value, zone);
  const compare = (op: CompareOp, bound: unknown): FilterNode => ({ kind: 'compare', field, op, value: bound });
  // Before the start / at or after the end: nothing when the period is open on that side.
  const before = start === undefined ? FALSE_NODE : compare('lt', start);
  const after = end === undefined ? FALSE_NODE : compare('gte', end);
  const inside = start === undefined && end === undefined
    ? notNullNode(field)
    : and([start === undefined ? TRUE_NODE : compare('gte', start), end === undefined ? TRUE_NODE : compare('lt', end)]);
  switch (operator) {
    case '$dateOn':
    case '$dateBetween':
      return inside;
    case '$dateNotOn':
      return or([before, after, isNullNode(field)]);
    case '$dateBefore':
      return before;
    case '$dateNotBefore':
      return or([start === undefined ? TRUE_NODE : compare('gte', start), isNullNode(field)]);
    case '$dateAfter':
      return after;
    case '$dateNotAfter':
      return or([end === undefined ? TRUE_NODE : compare('lt', end), isNullNode(field)]);
  }
}
