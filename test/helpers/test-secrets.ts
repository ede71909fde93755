// The secrets the tests' apps and started servers are configured with (never production's).
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
