// A minimal PNG decoder for the browser smoke test (tests/web/smoke.mjs):
// 8-bit RGB or RGBA, not interlaced, which is what Chromium's screenshots
// are. Node's zlib inflates; the five scanline filters are undone here
// (PNG specification, 2nd edition, section 9: "Filtering").
import zlib from 'node:zlib';

/**
 * Decodes `buf` (a whole PNG file) into { width, height, rgba }, where rgba
 * is a Uint8Array of width * height * 4 bytes, rows top to bottom, alpha 255
 * for RGB images. Throws on anything else (bit depth, palette, interlace).
 */
export function decodePng(buf) {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  signature.forEach((b, i) => {
    if (buf[i] !== b) throw new Error('not a PNG file');
  });
  let width = 0, height = 0, channels = 0;
  const idat = [];
  for (let at = 8; at < buf.length;) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, color, , , interlace] = data.subarray(8, 13);
      channels = { 2: 3, 6: 4 }[color];
      if (depth !== 8 || !channels || interlace !== 0) {
        throw new Error(`PNG: depth ${depth}, color type ${color}, interlace ${interlace} not supported`);
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? row[x - channels] : 0;
      const b = up[x];
      const c = x >= channels ? up[x - channels] : 0;
      let p;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: {
          const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`PNG: filter type ${filter} on row ${y}`);
      }
      row[x] = (src[x] + p) & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += channels) {
    rgba[i * 4] = rows[j];
    rgba[i * 4 + 1] = rows[j + 1];
    rgba[i * 4 + 2] = rows[j + 2];
    rgba[i * 4 + 3] = channels === 4 ? rows[j + 3] : 255;
  }
  return { width, height, rgba };
}
