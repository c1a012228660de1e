import { CamtInputError } from './model';

// Banks send camt files as UTF-8, some German ones as ISO-8859-1 (declared in the XML declaration).

const LATIN1 = /^(iso-8859-1|iso8859-1|latin-?1|l1|iso-8859-15|windows-1252|cp1252)$/i;

/** The text of an uploaded file, in the encoding its XML declaration names (UTF-8 unless told). */
export function decodeCamtBytes(bytes: Uint8Array): string {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.replace(/^\uFEFF|^ï»¿/, ''))?.[1];
  if (declared && LATIN1.test(declared)) return new TextDecoder('windows-1252').decode(bytes);
  if (declared && !/^utf-?8$/i.test(declared)) {
    throw new CamtInputError([{ path: 'Document', rule: 'unsupported_encoding', message: `The encoding ${declared} is not supported; send UTF-8 or ISO-8859-1.` }]);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CamtInputError([{ path: 'Document', rule: 'invalid_encoding', message: 'The file is not valid UTF-8 (and declares no other encoding).' }]);
  }
}
