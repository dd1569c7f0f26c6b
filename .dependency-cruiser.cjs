// Import boundaries (issue 19), checked in CI by `npm run lint:imports`. ARCHITECTURE.md explains the layers.
// Import circles are checked on the compiled code by .dependency-cruiser-runtime.cjs: a type-only import (the ledger
// reading the document snapshot's type while documents call the ledger) is erased and cannot make load order matter.
/** @type {import('dependency-cruiser').IConfiguration} */
/** What another folder may import: a folder's index.ts, or a pure table. */
const PUBLIC_ENTRIES = ['^src/[^/]+/index\\.ts$', '^src/documents/(doc-types|currency)\\.ts$', '^src/expenses/categories\\.ts$'];

module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-domain',
      severity: 'error',
      comment: 'src/platform is shared plumbing (db, http, errors, config, ids, money): it never imports a domain.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'domains-meet-through-index',
      severity: 'error',
      comment:
        "A folder imports another folder's code only through that folder's index.ts (its public surface), or one of the " +
        'pure tables other layers read: the document types (doc-types.ts), document currency arithmetic (currency.ts), ' +
        'the expense categories (categories.ts). src/platform is shared plumbing, imported directly.',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/platform/', ...PUBLIC_ENTRIES] },
    },
    {
      name: 'app-meets-domains-through-index',
      severity: 'error',
      comment: 'The composition root (src/*.ts: app, services, domains, main) imports a domain through its index.ts too.',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/platform/', ...PUBLIC_ENTRIES] },
    },
    {
      name: 'pure-formats-import-no-io',
      severity: 'error',
      comment:
        'OPENFRMT record formatting and the PDF layout are pure: each imports only its own folder, the document ' +
        "types' table (src/documents/doc-types.ts, pure; it imports only the DealerType type) and the money arithmetic " +
        '(src/platform/money.ts, pure: the one rounding of quantities and of quantity × price) and the Israel wall clock ' +
        '(src/platform/israel-time.ts, pure: the date and time of an instant, for the production directory).',
      from: { path: '^src/(openfrmt|pdf)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/openfrmt/', '^src/pdf/', '^src/documents/doc-types\\.ts$', '^src/platform/money\\.ts$', '^src/platform/israel-time\\.ts$'],
      },
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
