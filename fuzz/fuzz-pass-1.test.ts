import { fuzzPass } from './fuzz-pass.ts';

// Shard 1 of the fuzz pass (fuzz-pass.ts): the fuzz tier runs the shards side by side.
fuzzPass(1);
