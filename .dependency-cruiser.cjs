// Import boundaries and the order of the layers (issues 19, 34), checked in CI by `npm run lint:imports`. ARCHITECTURE.md
// explains them. Type-only imports count like any other: a type that two layers share lives in the lower one.
/** What another folder may import: a folder's index.ts, or a pure table (types and constant tables, no I/O). */
const PURE_TABLES = [
  '^src/documents/(doc-types|doc-type-sql|currency|snapshot-types)\\.ts$',
  '^src/businesses/dealer-types\\.ts$',
  '^src/expenses/categories\\.ts$',
];
const PUBLIC_ENTRIES = ['^src/[^/]+/index\\.ts$', ...PURE_TABLES];

/**
 * The layers, lowest first: a module imports its own layer or a lower one, never a higher one. A pure table is read
 * from any layer (it is part of its folder's layer only for what it imports itself). Derived from the imports of
 * issue 34; a new folder goes where its imports put it.
 */
const LAYERS = [
  ['platform'],
  ['domain.ts'],
  ['openfrmt'],
  ['pdf'],
  ['accounts'],
  ['businesses'],
  ['parties'],
  ['exchange-rates'],
  ['ledger'],
  ['documents'],
  ['expenses'],
  ['allocation'],
  ['donations'],
  ['prints'],
  ['exports'],
  ['vat'],
  ['reports'],
  ['backups'],
  ['files'],
  ['webhooks'],
  ['events'],
  ['request-log'],
  ['console'],
  ['app.ts', 'bootstrap.ts', 'domains.ts', 'idempotent-creates.ts', 'services.ts', 'mcp'],
  ['main.ts', 'runtime', 'cli'],
];
/** `^src/x/` for a folder, `^src/x\.ts$` for a file at the top of src. */
const pathOf = (entry) => (entry.endsWith('.ts') ? `^src/${entry.replace('.', '\\.')}$` : `^src/${entry}/`);
const LAYER_RULES = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-order-${layer[0].replace('.ts', '')}`,
  severity: 'error',
  comment: `A module of the layer of ${layer.join(', ')} imports no higher layer (${LAYERS.slice(i + 1)
    .flat()
    .join(', ')}): arrows point down.`,
  from: { path: layer.map(pathOf) },
  to: {
    path: LAYERS.slice(i + 1)
      .flat()
      .map(pathOf),
    pathNot: PURE_TABLES,
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...LAYER_RULES,
    {
      name: 'every-module-in-a-layer',
      severity: 'error',
      comment: 'Each folder and top-level file of src has its place in LAYERS.',
      from: { path: '^src/', pathNot: LAYERS.flat().map(pathOf) },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes load order matter and hides which module owns what; type-only imports count.',
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
      name: 'domains-meet-through-index',
      severity: 'error',
      comment:
        "A folder imports another folder's code only through that folder's index.ts (its public surface), or one of the " +
        'pure tables other layers read: the document types (doc-types.ts) and their SQL predicate (doc-type-sql.ts), ' +
        'document currency arithmetic (currency.ts), ' +
        "the snapshot's types (snapshot-types.ts), the dealer types (dealer-types.ts), the expense categories " +
        '(categories.ts). src/platform is shared plumbing, imported directly.',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/platform/', ...PUBLIC_ENTRIES] },
    },
    {
      name: 'app-meets-domains-through-index',
      severity: 'error',
      comment:
        'The composition root (src/*.ts: app, services, domains, main) imports a domain through its index.ts too; ' +
        "src/domains.ts also imports each domain's domain.ts (its routes and background work).",
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/platform/', ...PUBLIC_ENTRIES, '^src/[^/]+/domain\\.ts$'] },
    },
    {
      name: 'domain-entry-only-from-domains',
      severity: 'error',
      comment:
        "A domain's domain.ts (its routes and background work) is imported by the list of domains (src/domains.ts) only, " +
        "so importing a domain's index.ts never loads its HTTP layer.",
      from: { path: '^src/', pathNot: '^src/domains\\.ts$' },
      to: { path: '^src/[^/]+/domain\\.ts$' },
    },
    {
      name: 'index-loads-no-routes',
      severity: 'error',
      comment: "A folder's index.ts is its service surface: it does not load the folder's routes or its domain.ts.",
      from: { path: '^src/([^/]+)/index\\.ts$' },
      to: { path: '^src/$1/(routes|domain)\\.ts$' },
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
      comment:
        'src/documents/doc-types.ts is read by src/pdf and src/openfrmt: it imports types only (no I/O, no runtime dependency), ' +
        'and the one list of dealer types (src/businesses/dealer-types.ts, itself a pure table).',
      from: { path: '^src/documents/doc-types\\.ts$' },
      to: { path: '^src/', pathNot: '^src/businesses/dealer-types\\.ts$', dependencyTypesNot: ['type-only'] },
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
// Read by test/foundation/architecture-map.test.ts (ARCHITECTURE.md gives the same order); not a cruiser option.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS });
