/** The admin token global-setup.js puts in the environment for this run. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
