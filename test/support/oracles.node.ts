// Judges we did not write, run in Node: the official e-invoice validators (test/oracles) and
// poppler's PDF tools. Unit tests call these directly; workerd tests reach them through the
// ORACLES service binding (vitest.workers.config.ts, test/support/oracles.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import type { EinvoiceToCheck, EinvoiceVerdict, SepaFileToCheck, SepaVerdict } from './oracle-types';

export type { EinvoiceToCheck, EinvoiceVerdict };

const run = promisify(execFile);
const ORACLES = fileURLToPath(new URL('../oracles', import.meta.url));

/** Validates documents in one batch (one JVM start per syntax and rule set). */
export async function validateEinvoices(docs: readonly EinvoiceToCheck[]): Promise<Record<string, EinvoiceVerdict>> {
  const dir = await mkdtemp(join(tmpdir(), 'einvoice-'));
  try {
    const files = new Map<string, string>();
    for (const d of docs) {
      if (!/^[\w-]+$/.test(d.name) || files.has(d.name)) throw new Error(`Bad or repeated document name ${JSON.stringify(d.name)}.`);
      const file = `${d.name}${d.xrechnung ? '.xrechnung' : ''}.xml`;
      files.set(d.name, file);
      await writeFile(join(dir, file), d.xml);
    }
    const out = await run(join(ORACLES, 'validate-einvoice-batch.sh'), [dir], { maxBuffer: 64 * 1024 * 1024 }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
      if (err.code === 1 && err.stdout !== undefined) return { stdout: err.stdout };
      throw new Error(`The e-invoice validator could not run: ${err.stderr ?? String(err)}`);
    });
    const verdicts: Record<string, EinvoiceVerdict> = {};
    const byFile = new Map<string, EinvoiceVerdict>();
    for (const [name, file] of files) byFile.set(file, (verdicts[name] = { valid: false, errors: [] }));
    for (const line of out.stdout.split('\n')) {
      const [file, source, flag, rule, , message] = line.split('\t');
      const verdict = file === undefined ? undefined : byFile.get(file);
      if (!verdict) continue;
      if (source === 'RESULT') verdict.valid = flag === 'VALID';
      else verdict.errors.push(`${source} ${rule}: ${(message ?? '').trim()}`);
    }
    for (const [name, v] of Object.entries(verdicts)) if (!v.valid && v.errors.length === 0) v.errors.push(`no verdict for ${name}`);
    return verdicts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withPdf<T>(pdf: Uint8Array, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of a PDF as poppler's pdftotext reads it (layout kept, pages separated by \f). */
export function pdfText(pdf: Uint8Array): Promise<string> {
  return withPdf(pdf, async (file) => (await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 16 * 1024 * 1024 })).stdout);
}

/** pdfinfo's fields (Pages, Page size, PDF version, Producer, …). */
export function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdfinfo', ['-meta', file]);
    const info: Record<string, string> = {};
    for (const line of stdout.split('\n')) {
      const m = /^([A-Za-z ]+):\s+(.*)$/.exec(line);
      if (m) info[m[1]!] = m[2]!;
    }
    info.metadata = stdout;
    return info;
  });
}

/** The files embedded in a PDF (poppler's pdfdetach), by name. */
export function pdfAttachments(pdf: Uint8Array): Promise<Record<string, string>> {
  return withPdf(pdf, async (file, dir) => {
    const out = join(dir, 'attachments');
    await run('mkdir', ['-p', out]);
    await run('pdfdetach', ['-saveall', '-o', out, file]);
    const files: Record<string, string> = {};
    for (const name of await readdir(out)) files[name] = await readFile(join(out, name), 'utf8');
    return files;
  });
}

/** The images a PDF places (poppler's pdfimages -list): page, size, colour and encoding of each. */
export function pdfImages(pdf: Uint8Array): Promise<{ page: number; type: string; width: number; height: number; color: string; enc: string }[]> {
  return withPdf(pdf, async (file) => {
    const { stdout } = await run('pdfimages', ['-list', file]);
    // Two header lines, then: page num type width height color comp bpc enc interp object ID …
    return stdout
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => {
        const [page, , type, width, height, color, , , enc] = l.trim().split(/\s+/);
        return { page: Number(page), type: type!, width: Number(width), height: Number(height), color: color!, enc: enc! };
      });
  });
}

/**
 * The ORACLES service binding's handler: POST /einvoice {documents}, POST /pdf/text, /pdf/info and
 * /pdf/attachments, /pdf/images with the PDF as the body. Answers JSON.
 */
export async function oracleService(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  try {
    if (path === '/einvoice') {
      const { documents } = (await request.json()) as { documents: EinvoiceToCheck[] };
      return Response.json(await validateEinvoices(documents));
    }
    if (path === '/sepa') {
      const { files } = (await request.json()) as { files: SepaFileToCheck[] };
      return Response.json(await validateSepa(files));
    }
    const pdf = new Uint8Array(await request.arrayBuffer());
    if (path === '/pdf/text') return Response.json({ text: await pdfText(pdf) });
    if (path === '/pdf/info') return Response.json(await pdfInfo(pdf));
    if (path === '/pdf/attachments') return Response.json(await pdfAttachments(pdf));
    if (path === '/pdf/images') return Response.json(await pdfImages(pdf));
    return new Response('not found', { status: 404 });
  } catch (err) {
    return new Response(String(err instanceof Error ? err.message : err), { status: 500 });
  }
}

export type { SepaFileToCheck, SepaVerdict };

/** Runs test/oracles/validate-sepa.sh (xmllint, no JVM) on each file, all at once. */
export async function validateSepa(files: readonly SepaFileToCheck[]): Promise<Record<string, SepaVerdict>> {
  const names = new Set<string>();
  for (const f of files) {
    if (!/^[\w-]+$/.test(f.name) || names.has(f.name)) throw new Error(`Bad or repeated file name ${JSON.stringify(f.name)}.`);
    names.add(f.name);
  }
  const dir = await mkdtemp(join(tmpdir(), 'sepa-'));
  try {
    const verdicts = await Promise.all(
      files.map(async (f): Promise<[string, SepaVerdict]> => {
        const path = join(dir, `${f.name}.xml`);
        await writeFile(path, f.xml);
        const args = f.strict ? ['--strict', path] : [path];
        const out = await run(join(ORACLES, 'validate-sepa.sh'), args, { maxBuffer: 16 * 1024 * 1024 }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
          // Exit 1 is a verdict; 2 (unknown message type, no file) means the judge could not judge.
          if (err.code === 1 && err.stdout !== undefined) return { stdout: err.stdout };
          throw new Error(`The SEPA validator could not run on ${f.name}: ${err.stderr ?? String(err)}`);
        });
        return [f.name, sepaVerdict(out.stdout, path)];
      }),
    );
    return Object.fromEntries(verdicts);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function sepaVerdict(stdout: string, path: string): SepaVerdict {
  const errors: string[] = [];
  let judge = 'XML';
  let valid = false;
  for (const raw of stdout.split('\n')) {
    const line = raw.replaceAll(path, '').trim();
    if (line === '') continue;
    const section = /^# (ISO|DK-SEPA) /.exec(line);
    if (section) judge = section[1]!;
    else if (line.startsWith('RESULT:')) valid = line === 'RESULT: VALID';
    else if (line.startsWith('ARITH')) errors.push(`ARITH: ${line.slice(5).trim()}`);
    else if (!line.startsWith('#')) errors.push(`${judge}: ${line.replace(/^:(\d+): /, 'line $1: ')}`);
  }
  if (!valid && errors.length === 0) errors.push('no verdict');
  return { valid, errors };
}
