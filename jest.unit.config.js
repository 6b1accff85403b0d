// Unit tests: pure rules, co-located beside the code as *.spec.ts under src/, and the TypeScript SDK's (clients/typescript/test/).
module.exports = {
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/clients/typescript/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testEnvironment: 'node',
};
