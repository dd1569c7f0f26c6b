#!/usr/bin/env node
// The installed `pinkas` command: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/main.ts');
