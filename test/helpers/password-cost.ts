/**
 * scrypt at 1/32 of the production work (N=2^10 against 2^15) for the apps tests build: a sign-in,
 * a hash and a check, costs ~3 ms of CPU instead of ~300 (decision 305). Still scrypt in the same
 * stored form, so every path reading a hash runs as in production; the process tests, which start
 * the built server, and the unit test of the hash's form keep the production cost.
 */
export const TEST_PASSWORD_COST = { N: 1024, r: 8, p: 1 } as const;
