/** What the tests need beyond Node, PostgreSQL and Redis, as scripts/test-prerequisites.js obtained it (npm test runs it first). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain Node script, shared with the test command
const script = require('../../scripts/test-prerequisites') as {
  testPrerequisites(): { chromium: string; pgbouncer: string; curl: string };
  CHROMIUM_ARGS: string[];
};

export const testPrerequisites = script.testPrerequisites;
/** Flags for a headless Chromium that must not phone home (this machine has no internet). */
export const CHROMIUM_ARGS = script.CHROMIUM_ARGS;
