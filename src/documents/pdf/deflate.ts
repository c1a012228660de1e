// Compression of a document's streams by the runtime's zlib instead of pdf-lib's pure-JS pako:
// the same Flate data (RFC 1950), a tenth of the CPU. pdf-lib compresses embedded files, fonts,
// their ToUnicode maps and the colour profile through `context.flateStream`, which is replaced on
// the document's own context, and page content streams at serialisation, which are handed over
// already compressed. What is left to pako are the object and cross-reference streams the writer
// makes (small: dictionaries and offsets).
import { deflateSync } from 'node:zlib';
import { PDFContentStream, PDFName, PDFRawStream, typedArrayFor, type PDFDocument } from 'pdf-lib';

/** From now on, streams this document's context compresses are compressed natively. */
export function useNativeDeflate(pdf: PDFDocument): void {
  const context = pdf.context;
  context.flateStream = (contents, dict = {}) => context.stream(deflateSync(typedArrayFor(contents)), { ...dict, Filter: 'FlateDecode' });
}

/** Turns the page content streams drawn so far into streams compressed natively (call once drawing is done). */
export function compressContentStreams(pdf: PDFDocument): void {
  const context = pdf.context;
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    // A content stream made to be compressed names FlateDecode in its dictionary already.
    if (!(object instanceof PDFContentStream) || !object.dict.has(PDFName.of('Filter'))) continue;
    context.assign(ref, PDFRawStream.of(object.dict, deflateSync(object.getUnencodedContents())));
  }
}
