// No import circles among the modules as they load (issue 19), checked in CI by `npm run lint:imports`: the code as
// compiled, so type-only imports (erased) do not count. The boundaries are in .dependency-cruiser.cjs.
const boundaries = require('./.dependency-cruiser.cjs');

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
  ],
  options: { ...boundaries.options, tsPreCompilationDeps: false },
};
