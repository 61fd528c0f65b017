/**
 * Where a command writes (results to `out`, stdout; progress and errors to `err`, stderr) and
 * reads: its environment, and standard input for the secrets a `--…-stdin` flag asks for.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** All of standard input as UTF-8 text (read only when a command's `--…-stdin` flag asks). */
  readStdin(): Promise<string>;
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/**
 * A copy without `raw` fields (the verbatim gateway body), for readable output. A Date is kept
 * as it is, so JSON prints it as an ISO string (rebuilt from its entries it would print `{}`).
 */
export function withoutRaw(value: unknown): unknown {
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(withoutRaw);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'raw')
      .map(([k, v]) => [k, withoutRaw(v)]),
  );
}

/** Pretty JSON with a trailing newline. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(withoutRaw(value), null, 2)}\n`;
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Writes rows as CSV under a fixed header (printed even when there are no rows, so scripts
 * can rely on it), CRLF line ends per RFC 4180, reporting progress on stderr every `every`
 * rows so a long export shows life. The output starts with a UTF-8 byte-order mark, as the
 * example back office's CSV does: Korean Excel reads UTF-8 only with one.
 */
export function writeCsv(io: CliIo, columns: readonly string[], rows: readonly object[], every = 1000): void {
  io.out(`\uFEFF${columns.join(',')}\r\n`);
  rows.forEach((row, i) => {
    io.out(`${columns.map((c) => csvField((row as Record<string, unknown>)[c])).join(',')}\r\n`);
    if ((i + 1) % every === 0 && i + 1 < rows.length) io.err(`wrote ${i + 1}/${rows.length} rows\n`);
  });
}

/** "1 record", "2 records". */
export function records(n: number): string {
  return `${n} record${n === 1 ? '' : 's'}`;
}
