import { describe, expect, it } from 'vitest';
import { loadOrder } from '../../src/backups/catalog.ts';

describe('backup load order', () => {
  it('puts every table after the tables it references, ties by name', () => {
    const { order, dropped } = loadOrder(
      ['documents', 'businesses', 'files', 'export_runs', 'parties'],
      [
        { table: 'documents', references: 'businesses' },
        { table: 'documents', references: 'parties' },
        { table: 'documents', references: 'documents' },
        { table: 'parties', references: 'businesses' },
        { table: 'files', references: 'businesses' },
        { table: 'export_runs', references: 'files' },
        { table: 'export_runs', references: 'businesses' },
      ],
    );
    expect(order).toEqual(['businesses', 'files', 'parties', 'documents', 'export_runs']);
    expect(dropped).toEqual([]);
  });
  it('drops a table that references something outside the set, and its dependants', () => {
    const { order, dropped } = loadOrder(
      ['businesses', 'webhook_deliveries', 'delivery_notes'],
      [
        { table: 'webhook_deliveries', references: 'webhook_endpoints' },
        { table: 'delivery_notes', references: 'webhook_deliveries' },
      ],
    );
    expect(order).toEqual(['businesses']);
    expect(dropped).toEqual(['delivery_notes', 'webhook_deliveries']);
  });
  it('reports a cycle', () => {
    expect(() =>
      loadOrder(
        ['a', 'b'],
        [
          { table: 'a', references: 'b' },
          { table: 'b', references: 'a' },
        ],
      ),
    ).toThrow(/cycle/);
  });
});
