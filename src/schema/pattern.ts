import { RE2JS } from 're2js';

/**
 * A field's `pattern` runs on RE2 semantics (re2js, pure JavaScript): matching time is linear
 * in the value, so a pattern like `^(a+)+$` cannot hold the event loop. RE2 has no
 * backreferences or lookaround; such patterns are refused when the field is defined.
 */
export type PatternTest = (value: string) => boolean;

/** Compiles a pattern, or throws an Error whose message says what RE2 refused. */
export function compilePattern(source: string): PatternTest {
  const compiled = RE2JS.compile(source);
  // Like RegExp.prototype.test: the pattern may match anywhere unless it anchors itself.
  return (value) => compiled.matcher(value).find();
}
