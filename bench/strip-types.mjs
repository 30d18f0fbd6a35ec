// `node --import ./bench/strip-types.mjs file.ts`: runs TypeScript with types stripped by esbuild and no
// keepNames (see strip-types-hooks.mjs), for measuring the code as compiled JS would run it.
import { register } from 'node:module';

register('./strip-types-hooks.mjs', import.meta.url);
