/**
 * A setting (env var or command-line flag) has a bad value, or the command line is malformed.
 * The message is one line that names the setting, e.g.
 * `PORT must be an integer from 0 to 65535 (got "abc")`; the launcher prints it without a stack.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(message: string) {
    super(message);
  }
}
