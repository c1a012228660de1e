// The PDF renderer of billing documents (src/documents/model.ts → A4 PDF, optionally Factur-X).
export { renderPdf, type RenderPdfOptions } from './render';
export { girocodePayload } from './girocode';
export { FACTURX_FILE_NAME } from './facturx';
