#!/usr/bin/env node
/**
 * The `express-nicepay` command (package.json `bin`). See docs/cli.md for commands and
 * exit codes. No top-level await: the module graph stays loadable by require(esm).
 * @module
 */
import { main } from './main.js';
import { processIo } from './output.js';

void main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code;
});
