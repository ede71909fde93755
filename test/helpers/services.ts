// Whether the real services a test needs are configured. A test that needs one is skipped, with the
// reason, where it is not set; CI sets both, and fails a run without them (.ci/run).

/** False when DATABASE_URL is set; otherwise the skip reason, naming the variable and what needs it. */
export const withoutPostgres = (needs: string): false | string =>
  process.env.DATABASE_URL ? false : `DATABASE_URL is not set: ${needs}`;

/** False when REDIS_URL is set; otherwise the skip reason, naming the variable and what needs it. */
export const withoutRedis = (needs: string): false | string =>
  process.env.REDIS_URL ? false : `REDIS_URL is not set: ${needs}`;
