import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { weakenVersionNeeds } from './jazzer-compat.ts';

const prebuild = join(createRequire(import.meta.url).resolve('@jazzer.js/fuzzer/package.json'), '..', 'prebuilds', 'fuzzer-linux-x64.node');

/** The version needs of an ELF64 file: name and flags, read independently of the code under test (the section walk of `readelf -V`). */
function needs(elf: Buffer): Map<string, number> {
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const out = new Map<string, number>();
  for (let i = 0; i < elf.readUInt16LE(0x3c); i++) {
    const at = shoff + i * elf.readUInt16LE(0x3a);
    if (elf.readUInt32LE(at + 4) !== 0x6ffffffe) continue;
    const strtab = Number(elf.readBigUInt64LE(shoff + elf.readUInt32LE(at + 0x28) * elf.readUInt16LE(0x3a) + 0x18));
    let need = Number(elf.readBigUInt64LE(at + 0x18));
    for (;;) {
      let aux = need + elf.readUInt32LE(need + 8);
      for (let k = 0; k < elf.readUInt16LE(need + 2); k++) {
        const name = elf.toString('latin1', strtab + elf.readUInt32LE(aux + 8), elf.indexOf(0, strtab + elf.readUInt32LE(aux + 8)));
        out.set(name, elf.readUInt16LE(aux + 4));
        aux += elf.readUInt32LE(aux + 12);
      }
      if (elf.readUInt32LE(need + 12) === 0) break;
      need += elf.readUInt32LE(need + 12);
    }
  }
  return out;
}

describe('Jazzer.js on an older glibc', () => {
  it('marks weak exactly the glibc 2.38 and libstdc++ 3.4.32 needs of the linux-x64 prebuild, and nothing else', () => {
    const before = needs(readFileSync(prebuild));
    expect(before.get('GLIBC_2.38')).toBe(0);
    expect(before.get('GLIBCXX_3.4.32')).toBe(0);
    const elf = readFileSync(prebuild);
    weakenVersionNeeds(elf);
    const after = needs(elf);
    for (const [name, flags] of before) expect(after.get(name), name).toBe(name === 'GLIBC_2.38' || name === 'GLIBCXX_3.4.32' ? flags | 2 : flags);
  });

  it('refuses a file that is not ELF64 little-endian', () => {
    expect(() => weakenVersionNeeds(Buffer.from('#!/bin/sh\n'.padEnd(64, ' ')))).toThrow(/not an ELF64/);
  });
});
