#!/usr/bin/env node
// Runs this package's Redocly CLI with its arguments, minus the one banner it prints on every run under
// Node 20 ("Deprecation warning: Node.js 20 support is ending"). Everything else — errors, warnings,
// lint problems — is passed through untouched, and the exit code is Redocly's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const cliPackage = require.resolve('@redocly/cli/package.json');
const bin = join(dirname(cliPackage), require(cliPackage).bin.redocly ?? require(cliPackage).bin);

// Telemetry and update checks off: the build must not call home (and the machine has no network for it).
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
const child = spawn(process.execPath, [bin, ...process.argv.slice(2)], { stdio: ['inherit', 'inherit', 'pipe'], env });

// A box is buffered until it closes, then dropped only if it is the Node 20 notice.
let box = null;
let droppedBox = false;
let pendingBlank = false; // a blank line is held back in case the Node 20 box follows it
createInterface({ input: child.stderr }).on('line', (line) => {
  const trimmed = line.trim();
  if (!box && trimmed === '' && !droppedBox) {
    if (pendingBlank) process.stderr.write('\n');
    pendingBlank = true;
    return;
  }
  if (box) {
    box.push(line);
    if (trimmed.startsWith('╚')) {
      const isNode20Notice = box.some((l) => l.includes('Node.js 20'));
      if (!isNode20Notice) process.stderr.write(`${box.join('\n')}\n`);
      droppedBox = isNode20Notice;
      box = null;
    }
    return;
  }
  if (trimmed.startsWith('╔')) {
    box = pendingBlank ? ['', line] : [line];
    pendingBlank = false;
    return;
  }
  if (pendingBlank) process.stderr.write('\n');
  pendingBlank = false;
  if (trimmed === '' && droppedBox) return; // the blank line Redocly prints after the box
  droppedBox = false;
  process.stderr.write(`${line}\n`);
});

child.on('close', (code, signal) => {
  if (box) process.stderr.write(`${box.join('\n')}\n`); // an unterminated box is never swallowed
  if (pendingBlank) process.stderr.write('\n');
  process.exit(signal ? 1 : (code ?? 1));
});
