// Import boundaries (issue 19), checked in CI by `npm run lint:imports`. ARCHITECTURE.md explains the layers.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes load order matter and hides which module owns what.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-no-domain',
      severity: 'error',
      comment: 'src/platform is shared plumbing (db, http, errors, config, ids, money): it never imports a domain.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'pure-formats-import-no-io',
      severity: 'error',
      comment:
        'OPENFRMT record formatting and the PDF layout are pure: each imports only its own folder, and the document ' +
        'types\' table (src/documents/doc-types.ts, pure; it imports only the DealerType type).',
      from: { path: '^src/(openfrmt|pdf)/' },
      to: { path: '^src/', pathNot: ['^src/openfrmt/', '^src/pdf/', '^src/documents/doc-types\\.ts$'] },
    },
    {
      name: 'doc-types-table-is-pure',
      severity: 'error',
      comment: 'src/documents/doc-types.ts is read by src/pdf and src/openfrmt: it imports types only (no I/O, no runtime dependency).',
      from: { path: '^src/documents/doc-types\\.ts$' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code (entry points excepted).',
      from: { orphan: true, pathNot: ['^src/(main|cli/main)\\.ts$', '\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
