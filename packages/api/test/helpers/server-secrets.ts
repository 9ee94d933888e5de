/** The secrets of every test server, the sources' and the suite's one from dist/ alike. */
export const TEST_SECRETS = {
  OAUTH_JWT_SECRET: "test-oauth-secret-0123456789abcdef0123456789",
  PLUGIN_JWT_SECRET: "test-plugin-secret-0123456789abcdef012345678",
  ENCRYPTION_KEY: "0".repeat(64),
};
