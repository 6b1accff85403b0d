/** A setting of the environment that is wrong; its message starts with the variable's name. */
export class ConfigError extends Error {}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A value for a message on one line: control characters escaped (a report must stay one log line). */
export function printable(value: string): string {
  return value.replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
