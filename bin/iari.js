#!/usr/bin/env node
import './register-ts.mjs';
await import('../src/cli/entry.ts');
