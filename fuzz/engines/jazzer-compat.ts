import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Jazzer.js 4.0.0's native part (@jazzer.js/fuzzer) ships one linux-x64 prebuild, linked on a
 * glibc 2.38 / GCC 13 system: it asks for `__isoc23_strtol` and `__isoc23_strtoul` (GLIBC_2.38)
 * and `std::ios_base_library_init()` (GLIBCXX_3.4.32), so it does not load where glibc is older
 * (Debian 12 has 2.36, Ubuntu 22.04 2.35) and the package has no source to build instead. Where it
 * fails for exactly that reason, a copy of the prebuild is made to load: those three version needs
 * are marked weak, and a 3-function shim preloaded beside it supplies the symbols (the C23 strtol
 * pair differ from the classic ones only in reading a "0b" prefix; the iostream init is the old
 * static initialiser). The copy lives under .fuzz/; node_modules is never touched. docs/fuzzing.md.
 */

const require = createRequire(import.meta.url);
const NEEDS = new Set(['GLIBC_2.38', 'GLIBCXX_3.4.32']);
const SYMBOLS = new Set(['__isoc23_strtol', '__isoc23_strtoul', '_ZSt21ios_base_library_initv']);
const SHIM = `#include <cstdlib>
#include <ios>
extern "C" long __isoc23_strtol(const char *s, char **e, int b) { return std::strtol(s, e, b); }
extern "C" unsigned long __isoc23_strtoul(const char *s, char **e, int b) { return std::strtoul(s, e, b); }
namespace std { void ios_base_library_init() { static ios_base::Init init; } }
`;

export type JazzerLaunch = { ok: true; nodeArgs: string[]; env: Record<string, string>; note: string | null } | { ok: false; why: string };

function loads(nodeArgs: string[], env: Record<string, string>): string | null {
  const r = spawnSync(process.execPath, [...nodeArgs, '-e', "require('@jazzer.js/fuzzer')"], { cwd: process.cwd(), env: { ...process.env, ...env }, encoding: 'utf8' });
  return r.status === 0 ? null : (r.stderr.split('\n').find((l) => /Error/.test(l)) ?? r.stderr.slice(0, 300)).trim();
}

/** How to start node so that Jazzer.js's addon loads here, or why it cannot. */
export function jazzerLaunch(workDir: string): JazzerLaunch {
  let prebuild: string;
  try {
    prebuild = join(require.resolve('@jazzer.js/fuzzer/package.json'), '..', 'prebuilds', `fuzzer-${process.platform}-${process.arch}.node`);
  } catch {
    return { ok: false, why: '@jazzer.js/core is not installed (npm ci installs it as a devDependency)' };
  }
  const plain = loads([], {});
  if (plain === null) return { ok: true, nodeArgs: [], env: {}, note: null };
  if (!/GLIBC_2\.38|GLIBCXX_3\.4\.32/.test(plain) || process.platform !== 'linux') return { ok: false, why: `the Jazzer.js addon does not load: ${plain}` };
  const dir = join(workDir, 'jazzer-compat');
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, 'fuzzer.node');
  const shim = join(dir, 'libiari-glibc-shim.so');
  const preload = join(dir, 'redirect-addon.cjs');
  if (!existsSync(copy)) {
    const elf = readFileSync(prebuild);
    weakenVersionNeeds(elf);
    writeFileSync(copy, elf);
  }
  if (!existsSync(shim)) {
    writeFileSync(join(dir, 'shim.cc'), SHIM);
    const cc = spawnSync('c++', ['-shared', '-fPIC', '-O2', '-o', shim, join(dir, 'shim.cc')], { encoding: 'utf8' });
    if (cc.status !== 0) return { ok: false, why: `the Jazzer.js prebuild needs glibc 2.38 (${plain}); building its compatibility shim needs a C++ compiler: ${cc.error?.message ?? cc.stderr.slice(0, 300)}` };
  }
  writeFileSync(
    preload,
    `// Loads iari's compatible copy of the Jazzer.js addon in place of the prebuild (fuzz/engines/jazzer-compat.ts).
const original = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  return original.call(this, module, filename === ${JSON.stringify(prebuild)} ? ${JSON.stringify(copy)} : filename, ...rest);
};
`,
  );
  const nodeArgs = ['--require', preload];
  const env = { LD_PRELOAD: [shim, process.env['LD_PRELOAD']].filter(Boolean).join(':') };
  const again = loads(nodeArgs, env);
  if (again !== null) return { ok: false, why: `the Jazzer.js addon does not load (${plain}), nor its compatible copy: ${again}` };
  return { ok: true, nodeArgs, env, note: `the Jazzer.js prebuild needs glibc 2.38 and libstdc++ 3.4.32; running a copy with those needs weakened and a preloaded shim (${dir})` };
}

/**
 * Marks the version needs in NEEDS weak (VER_FLG_WEAK: glibc then only warns when they are
 * missing) and clears the version of the symbols in SYMBOLS (so any definition satisfies them).
 * ELF64 little-endian only (the linux-x64 and linux-arm64 prebuilds).
 */
export function weakenVersionNeeds(elf: Buffer): void {
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) throw new Error('not an ELF64 little-endian file');
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a);
  const shnum = elf.readUInt16LE(0x3c);
  const sections = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * shentsize;
    return { type: elf.readUInt32LE(at + 4), offset: Number(elf.readBigUInt64LE(at + 0x18)), size: Number(elf.readBigUInt64LE(at + 0x20)), link: elf.readUInt32LE(at + 0x28), entsize: Number(elf.readBigUInt64LE(at + 0x38)) };
  });
  const cString = (at: number): string => elf.toString('latin1', at, elf.indexOf(0, at));
  const SHT_DYNSYM = 11;
  const SHT_GNU_VERSYM = 0x6fffffff;
  const SHT_GNU_VERNEED = 0x6ffffffe;
  for (const s of sections.filter((x) => x.type === SHT_GNU_VERNEED)) {
    const strtab = sections[s.link]?.offset ?? 0;
    for (let need = s.offset, more = true; more; ) {
      const count = elf.readUInt16LE(need + 2);
      let aux = need + elf.readUInt32LE(need + 8);
      for (let k = 0; k < count; k++) {
        if (NEEDS.has(cString(strtab + elf.readUInt32LE(aux + 8)))) elf.writeUInt16LE(elf.readUInt16LE(aux + 4) | 0x2, aux + 4);
        aux += elf.readUInt32LE(aux + 12);
      }
      const next = elf.readUInt32LE(need + 12);
      more = next !== 0;
      need += next;
    }
  }
  const dynsym = sections.find((x) => x.type === SHT_DYNSYM);
  const versym = sections.find((x) => x.type === SHT_GNU_VERSYM);
  if (dynsym === undefined || versym === undefined) return;
  const strtab = sections[dynsym.link]?.offset ?? 0;
  for (let i = 0; i < dynsym.size / dynsym.entsize; i++) {
    if (SYMBOLS.has(cString(strtab + elf.readUInt32LE(dynsym.offset + i * dynsym.entsize)))) elf.writeUInt16LE(1, versym.offset + i * 2);
  }
}
