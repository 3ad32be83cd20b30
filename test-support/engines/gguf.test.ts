import { describe, expect, it } from 'vitest';
import { GgufFormatError, readGgufMetadata, toF16, writeGguf, type GgufValue } from './gguf.ts';

describe('GGUF v3 writer and reader (the tiny model file, docs/engines.md)', () => {
  it('reads back the key-values it wrote, in order, with their types', () => {
    const meta = new Map<string, GgufValue>([
      ['general.architecture', { type: 'string', value: 'qwen2' }],
      ['qwen2.block_count', { type: 'u32', value: 2 }],
      ['qwen2.rope.freq_base', { type: 'f32', value: 1e8 }],
      ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
      ['tokenizer.ggml.tokens', { type: 'array', itemType: 8, items: ['a', 'Ġb', '<tool_call>'] }],
      ['tokenizer.ggml.token_type', { type: 'array', itemType: 5, items: [1, 1, 4] }],
    ]);
    const file = writeGguf(meta, [{ name: 'w', shape: [2, 3], dtype: 'f32', data: new Float32Array([1, 2, 3, 4, 5, 6]) }]);
    const back = readGgufMetadata(file);
    expect([...back.keys()]).toEqual([...meta.keys()]);
    expect(back.get('tokenizer.ggml.tokens')).toEqual(meta.get('tokenizer.ggml.tokens'));
    expect(back.get('qwen2.block_count')).toEqual({ type: 'u32', value: 2 });
    expect(back.get('qwen2.rope.freq_base')).toEqual({ type: 'f32', value: 1e8 });
    expect(back.get('tokenizer.ggml.add_bos_token')).toEqual({ type: 'bool', value: false });
    // The tensor data starts at a 32-byte boundary: 6 f32 values, padded to 32 bytes, end the file.
    expect(file.length % 32).toBe(0);
    expect([0, 5].map((i) => file.readFloatLE(file.length - 32 + 4 * i))).toEqual([1, 6]);
  });

  it('writes F16 as IEEE half precision, rounding to nearest even', () => {
    const h = toF16(new Float32Array([1, -2, 0.5, 65504, 0, 1e-9, 1 + 2 ** -11, 1 + 3 * 2 ** -11]));
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => h.readUInt16LE(i * 2))).toEqual([0x3c00, 0xc000, 0x3800, 0x7bff, 0, 0, 0x3c00, 0x3c02]);
  });

  it('refuses a file that is not GGUF v3, and a tensor whose data does not fit its shape', () => {
    expect(() => readGgufMetadata(Buffer.from('GGML0000'))).toThrow(GgufFormatError);
    expect(() => writeGguf(new Map(), [{ name: 'x', shape: [4], dtype: 'f32', data: new Float32Array(3) }])).toThrow(/3 values for shape \[4\]/);
  });
});
