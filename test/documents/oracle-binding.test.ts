import { describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import { create } from 'xmlbuilder2';
import qrcode from 'qrcode-generator';
import { pdfAssets } from '../../src/documents/assets';
import { pdfText, validateEinvoices } from '../support/oracles';

describe('smoke', () => {
  it('reaches the validators from workerd', async () => {
    const v = await validateEinvoices([{ name: 'x', xml: create({ a: { '@b': 'ä' } }).end() }]);
    expect(v.x!.valid).toBe(false);
    const doc = await PDFDocument.create();
    doc.registerFontkit(fontkit);
    const font = await doc.embedFont(pdfAssets.regular, { subset: true });
    const page = doc.addPage([595.28, 841.89]);
    page.drawText('Grüße ł € é ß', { x: 50, y: 700, size: 12, font });
    const q = qrcode(0, 'M'); q.addData('BCD'); q.make();
    const bytes = await doc.save();
    expect(await pdfText(bytes)).toContain('Grüße ł € é ß');
    expect(q.getModuleCount()).toBeGreaterThan(10);
  });
});
