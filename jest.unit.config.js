// Unit tests: pure rules, co-located beside the code as *.spec.ts under src/ (and test/support/, the tests' own pure parts), and the TypeScript SDK's (clients/typescript/test/).
module.exports = {
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/support/**/*.spec.ts', '<rootDir>/clients/typescript/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testEnvironment: 'node',
};
