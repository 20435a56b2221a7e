import 'vitest';

export type ProvidedDatabase =
  | { driver: 'pglite'; templateFile: string }
  | { driver: 'postgres'; adminUrl: string; template: string };

declare module 'vitest' {
  export interface ProvidedContext {
    database: ProvidedDatabase;
    contractReportDir: string;
  }
}
