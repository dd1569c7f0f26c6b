// Named types in the OpenAPI document (platform/http/named-schemas.ts): a titled schema is held once
// under components/schemas and referred to everywhere it appears.
import { describe, expect, it } from 'vitest';
import { hoistNamedSchemas } from '../../src/platform/http/named-schemas.ts';

const party = { title: 'Party', type: 'object', properties: { id: { type: 'string' } } };
const page = { title: 'PartyPage', type: 'object', properties: { parties: { type: 'array', items: party } } };
const op = (schema: unknown) => ({ responses: { 200: { content: { 'application/json': { schema } } } } });

describe('hoistNamedSchemas', () => {
  it('moves titled schemas to components, nested ones too, and refers to them', () => {
    const doc = hoistNamedSchemas({ paths: { '/p': { get: op(page) }, '/p/{id}': { get: op({ type: 'object', properties: { party } }) } } });
    expect(doc.paths['/p'].get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PartyPage' });
    expect(doc.paths['/p/{id}'].get.responses[200].content['application/json'].schema.properties.party).toEqual({ $ref: '#/components/schemas/Party' });
    expect(doc.components.schemas.PartyPage.properties.parties.items).toEqual({ $ref: '#/components/schemas/Party' });
    expect(doc.components.schemas.Party).toEqual(party);
  });

  it('leaves schemas whose title is a heading, not a type name, in place', () => {
    const titled = { title: 'the party', type: 'string' };
    const doc = hoistNamedSchemas({ paths: { '/p': { get: op(titled) } } });
    expect(doc.paths['/p'].get.responses[200].content['application/json'].schema).toEqual(titled);
    expect(doc.components.schemas).toEqual({});
  });

  it('hoists out of components already there, without replacing a component by a reference to itself', () => {
    const doc = hoistNamedSchemas({ components: { schemas: { PartyPage: page } }, paths: {} });
    expect(doc.components.schemas.PartyPage.title).toBe('PartyPage');
    expect(doc.components.schemas.PartyPage.properties.parties.items).toEqual({ $ref: '#/components/schemas/Party' });
  });

  it('refuses two different schemas under one title', () => {
    const other = { ...party, properties: { name: { type: 'string' } } };
    expect(() => hoistNamedSchemas({ paths: { '/a': { get: op(party) }, '/b': { get: op(other) } } })).toThrow(/two different schemas are titled Party/);
  });
});
