// Writes the extension's 128x128 PNG icon (drawn here, no copied art): a dark rounded
// square, a row of "ranks" with the first failing one in red and its collateral in amber.
import * as fs from "fs";
import * as zlib from "zlib";

const W = 128, H = 128;
const px = new Uint8Array(W * H * 4);
function blend(x, y, [r, g, b], a) {
  if (x < 0 || y < 0 || x >= W || y >= H || a <= 0) return;
  const i = (y * W + x) * 4, A = Math.min(1, a), ia = px[i + 3] / 255;
  const oa = A + ia * (1 - A);
  for (const [k, c] of [[0, r], [1, g], [2, b]]) px[i + k] = Math.round((c * A + px[i + k] * ia * (1 - A)) / (oa || 1));
  px[i + 3] = Math.round(oa * 255);
}
// Coverage of a rounded rectangle by 4x4 supersampling.
function roundRect(x0, y0, x1, y1, rad, color, alpha = 1) {
  for (let y = Math.floor(y0); y < Math.ceil(y1); y++)
    for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
      let cov = 0;
      for (let sy = 0; sy < 4; sy++)
        for (let sx = 0; sx < 4; sx++) {
          const X = x + (sx + 0.5) / 4, Y = y + (sy + 0.5) / 4;
          if (X < x0 || X > x1 || Y < y0 || Y > y1) continue;
          const cx = Math.min(Math.max(X, x0 + rad), x1 - rad), cy = Math.min(Math.max(Y, y0 + rad), y1 - rad);
          if ((X - cx) ** 2 + (Y - cy) ** 2 <= rad * rad) cov++;
        }
      blend(x, y, color, (cov / 16) * alpha);
    }
}
function disc(cx, cy, r, color, alpha = 1) { roundRect(cx - r, cy - r, cx + r, cy + r, r, color, alpha); }
function line(x0, y0, x1, y1, w, color, alpha = 1) {
  const n = Math.ceil(Math.hypot(x1 - x0, y1 - y0) * 2);
  for (let i = 0; i <= n; i++) disc(x0 + ((x1 - x0) * i) / n, y0 + ((y1 - y0) * i) / n, w / 2, color, alpha * 0.35);
}

roundRect(4, 4, 124, 124, 22, [24, 32, 48]);
roundRect(4, 4, 124, 40, 22, [34, 46, 68], 0.6);
// A timeline of ranks: four rows of events; the first fault on rank 2 (red), collateral later (amber).
const rows = [34, 56, 78, 100];
for (const y of rows) line(20, y, 108, y, 3, [110, 130, 160], 0.9);
for (const [x, y] of [[30, 34], [52, 34], [30, 56], [52, 56], [30, 100], [52, 100]]) disc(x, y, 5, [120, 200, 140]);
for (const [x, y] of [[90, 34], [90, 56], [92, 100]]) disc(x, y, 7, [240, 176, 40]);
line(44, 78, 88, 38, 4, [240, 176, 40], 0.8);
line(44, 78, 88, 60, 4, [240, 176, 40], 0.8);
line(44, 78, 88, 98, 4, [240, 176, 40], 0.8);
disc(40, 78, 12, [230, 60, 60]);
disc(40, 78, 5, [255, 235, 235]);

// PNG encoding (RGBA, 8 bit, no interlace).
const crcTable = new Uint32Array(256).map((_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
const crc32 = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(W, 0); ihdr.writeUInt32BE(H, 4); ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
const raw = Buffer.alloc((W * 4 + 1) * H);
for (let y = 0; y < H; y++) { raw[y * (W * 4 + 1)] = 0; Buffer.from(px.buffer, y * W * 4, W * 4).copy(raw, y * (W * 4 + 1) + 1); }
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw, { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
const out = process.argv[2] ?? "media/icon.png";
fs.writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes, ${W}x${H})`);
