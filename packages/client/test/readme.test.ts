// The README's examples compile against the current contract: each ```ts block is type-checked as its own
// module, with the few names the snippets take as given declared up front.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

const PRELUDE = `
import { createClient } from '../src/index.js';
declare const apiKey: string;
declare const orderId: string;
declare function render(text: string): void;
const persona = createClient({ apiKey: 'svc_live_example' });
`;

describe('README', () => {
  it('every TypeScript example compiles', () => {
    expect(blocks.length).toBeGreaterThan(5);
    const root = new URL('..', import.meta.url).pathname;
    const files = new Map(
      blocks.map((block, index) => {
        // A block that creates its own client or imports the package gets the package from src.
        const code = block.replaceAll("from '@persona-api/client'", "from '../src/index.js'");
        const ownsClient = /const persona = createClient/.test(code);
        const prelude = ownsClient ? PRELUDE.replace(/^const persona.*$/m, '').replace(/^import \{ createClient \}.*$/m, '') : PRELUDE;
        const needsImport = ownsClient && !/import \{[^}]*createClient/.test(code);
        return [
          `${root}test/__readme-${index}.ts`,
          `${needsImport ? "import { createClient } from '../src/index.js';\n" : ''}${prelude}\n${code}\nexport {};\n`,
        ];
      }),
    );
    const { options } = ts.parseJsonConfigFileContent(ts.readConfigFile(`${root}tsconfig.json`, ts.sys.readFile).config, ts.sys, root);
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (file) => files.get(file) ?? readFile(file);
    host.fileExists = (file) => files.has(file) || fileExists(file);
    const program = ts.createProgram([...files.keys()], options, host);
    const errors = [...files.keys()].flatMap((file) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        return `${file.split('/').pop()}:${line + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      }),
    );
    expect(errors).toEqual([]);
  }, 60_000);
});
