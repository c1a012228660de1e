// Binary assets of the PDF renderer, bundled as data modules (wrangler.toml [[rules]] "Data").
// DejaVu Sans (dejavu-fonts-ttf, Bitstream Vera licence with public-domain changes): Latin,
// Latin Extended, Greek, Cyrillic and the euro sign, embedded in every PDF (PDF/A needs embedded
// fonts). sRGB2014.icc: the ICC's sRGB profile (International Color Consortium, free to copy and
// embed), the output intent of PDF/A-3 files.
import regular from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
import bold from 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf';
import srgb from './assets/sRGB2014.icc';

export interface PdfAssets {
  regular: Uint8Array;
  bold: Uint8Array;
  srgbIcc: Uint8Array;
}

export const pdfAssets: PdfAssets = { regular: new Uint8Array(regular), bold: new Uint8Array(bold), srgbIcc: new Uint8Array(srgb) };
