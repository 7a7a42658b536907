#!/usr/bin/env node
// Runs a wasm32-wasip1 module under Node's WASI (preview 1): cargo's runner
// for that target (`runner` in .cargo/config.toml).
//
// Usage: scripts/wasi-run.mjs MODULE.wasm [ARGS...]
// The module gets ARGS (argv[0] is the module's path), this process's
// environment, and the current directory and the crate's root preopened
// under their own absolute paths (so paths relative to the current
// directory, and the absolute paths cargo passes, both resolve). It exits
// with the module's exit code; a trap (a Rust panic aborts under wasm)
// exits with 101, as a failed Rust test binary does.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";

// Node 20 warns that WASI is experimental on every run; the tests' output
// is what matters here.
process.removeAllListeners("warning");
const { WASI } = await import("node:wasi");

const [modulePath, ...args] = process.argv.slice(2);
if (!modulePath) {
  console.error("wasi-run.mjs: usage: node scripts/wasi-run.mjs MODULE.wasm [ARGS...]");
  process.exit(2);
}
const crateRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const preopens = { ".": process.cwd() };
for (const dir of new Set([process.cwd(), crateRoot])) {
  preopens[dir] = dir;
}
const wasi = new WASI({
  version: "preview1",
  args: [modulePath, ...args],
  env: process.env,
  preopens,
  returnOnExit: true,
});
let code;
try {
  const bytes = await readFile(modulePath);
  const instance = await WebAssembly.instantiate(
    await WebAssembly.compile(bytes),
    wasi.getImportObject(),
  );
  code = wasi.start(instance);
} catch (e) {
  console.error(`wasi-run.mjs: ${modulePath}: ${e}`);
  if (e instanceof WebAssembly.RuntimeError) {
    // A panic aborts under wasm before the test harness prints the output
    // it captured, the panic's message included.
    console.error(
      "wasi-run.mjs: a panic aborts the module under wasm; run the test named last above again with --nocapture to see its message",
    );
  }
  code = 101;
}
process.exit(code ?? 0);
