import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'dist-types/', 'node_modules/', 'coverage/', 'storage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // The rules engine stays pure: no framework, database, queue or clock. Time comes in as an argument.
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*', 'typeorm', 'typeorm/*', 'bullmq', 'pg', 'ioredis', 'express', 'class-validator', 'class-transformer'], message: 'src/engine must stay framework-free.' },
            { group: ['../*', '!../engine/*'], message: 'src/engine imports only from src/engine.' },
            { group: ['node:*'], message: 'src/engine takes no Node built-ins: pass data in.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'No clock in the engine: take `now` as an argument.' },
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'No clock in the engine: take `now` as an argument.' },
        { selector: "MemberExpression[object.name='process']", message: 'No process access in the engine.' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'The engine is deterministic.' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
