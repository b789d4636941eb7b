import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from '@microsoft/api-extractor';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHANGED = 'the extension surface changed: review docs/api/extension-api.api.md, then run npm run api:report';

/**
 * docs/api/extension-api.api.md is API Extractor's report of the extension surface (what src/extension-api/index.ts
 * exports, and the engine types it refers to), checked in so that a change to the surface shows in review as a diff of
 * that file. This spec is `npm run api:check` without its shared dist-types/ folder: it emits the declarations into a
 * folder of its own (so that it runs beside `npm run api:report`) and compares the report API Extractor makes of them
 * with the checked-in one, without writing it. See docs/extending.md, "Versioning of the extension surface".
 */
describe('The extension surface', () => {
  let project: string;

  /** The declarations of tsconfig.api-report.json, emitted under <project>/dist-types as `tsc -p` would. */
  function emitDeclarations(): void {
    const configPath = join(ROOT, 'tsconfig.api-report.json');
    const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, { outDir: join(project, 'dist-types') }, configPath);
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const emitted = program.emit();
    const errors = [...parsed.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length > 0) {
      const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
      throw new Error(`the declarations do not compile (npm run typecheck):\n${ts.formatDiagnostics(errors, host)}`);
    }
  }

  /**
   * API Extractor with api-extractor.json, on the declarations under <project>: what `api-extractor run` reports, without
   * --local (the checked-in report is only read). The project folder is the temporary one, with a copy of package.json,
   * so that the paths the report names (dist-types/src/...) are the ones `npm run api:report` writes.
   */
  function extract() {
    const configObjectFullPath = join(ROOT, 'api-extractor.json');
    const configObject = ExtractorConfig.loadFile(configObjectFullPath);
    configObject.projectFolder = project;
    configObject.compiler = { ...configObject.compiler, tsconfigFilePath: join(ROOT, 'tsconfig.api-report.json') };
    configObject.apiReport = { ...configObject.apiReport, enabled: true, reportFolder: join(ROOT, 'docs/api'), reportTempFolder: join(project, 'report') };
    const config = ExtractorConfig.prepare({ configObject, configObjectFullPath, packageJsonFullPath: join(project, 'package.json') });
    const messages: ExtractorMessage[] = [];
    const result = Extractor.invoke(config, {
      localBuild: false,
      printApiReportDiff: true,
      messageCallback: (message) => {
        messages.push(message);
        message.handled = true;
      },
    });
    const diff = messages.filter((m) => m.messageId === 'console-api-report-diff').map((m) => m.text);
    const problems = messages
      .filter((m) => m.logLevel === ExtractorLogLevel.Error || m.logLevel === ExtractorLogLevel.Warning)
      .filter((m) => m.messageId !== 'console-api-report-diff' && m.messageId !== 'console-api-report-not-copied')
      .map((m) => `${m.messageId}: ${m.text}`);
    return { changed: result.apiReportChanged, diff: diff.join('\n'), problems };
  }

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'api-report-'));
    copyFileSync(join(ROOT, 'package.json'), join(project, 'package.json'));
    emitDeclarations();
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('is the one docs/api/extension-api.api.md records', () => {
    const check = extract();
    if (check.changed) throw new Error(`${CHANGED}\n\n${check.diff}`);
    expect(check.problems).toEqual([]);
  });

  it('is checked: an export added to the entry is a change of the report', () => {
    appendFileSync(join(project, 'dist-types/src/extension-api/index.d.ts'), '\nexport declare const surfaceProbe: number;\n');
    const check = extract();
    expect(check.changed).toBe(true);
    expect(check.diff).toContain('export const surfaceProbe: number;');
  });
});
