// One JSON Schema compiled by ajv's standalone code generator into a module that imports nothing,
// shared by gen-receipt-validator.ts and gen-weather-validator.ts: `iari test` and `iari receipts
// verify` then load no ajv and compile nothing at start-up (issue 41).
import standaloneCode from 'ajv/dist/standalone/index.js';
import ucs2length from 'ajv/dist/runtime/ucs2length.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/** The module's text: `// @ts-nocheck`, the `header` comment line (its generator and source), then ajv's code. */
export function standaloneValidatorModule(ajv: Ajv2020, schema: Record<string, unknown>, header: string): string {
  const validate = ajv.compile(schema);
  type Standalone = (ajv: unknown, validate: unknown) => string;
  const standalone = ((standaloneCode as unknown as { default?: Standalone }).default ?? standaloneCode) as unknown as Standalone;
  let code = standalone(ajv, validate);
  // The one runtime helper such code needs (string length in code points), inlined so that the module
  // imports nothing: ajv's own function, as its source text.
  const helper = (ucs2length as unknown as { default: (s: string) => number }).default ?? ucs2length;
  const required = 'require("ajv/dist/runtime/ucs2length").default';
  if (code.includes(required)) code = code.replace(required, `(${helper.toString()})`);
  if (/require\(/.test(code)) throw new Error('the generated validator needs another ajv runtime helper');
  return ['// @ts-nocheck', header, '/* eslint-disable */', code.replace(/^"use strict";/, ''), ''].join('\n');
}
