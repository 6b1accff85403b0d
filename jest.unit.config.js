// Unit tests: pure rules, co-located beside the code as *.spec.ts under src/.
module.exports = {
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testEnvironment: 'node',
};
