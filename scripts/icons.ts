// Renders Doppel's icon (assets/icon/icon.svg; icon-16.svg for the 16 px size, drawn on its pixel
// grid) to the PNGs the manifest names (public/icon/16.png, 32, 48, 128), in Debian's Chromium.
// Run: npm run icons        (add --preview FILE.png to also draw them on light and dark toolbars)
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from '../test/e2e/harness';

const SOURCE = fileURLToPath(new URL('../assets/icon/', import.meta.url));
const OUT = fileURLToPath(new URL('../public/icon/', import.meta.url));
export const ICON_SIZES = [16, 32, 48, 128] as const;

const svgFor = (size: number): string => readFileSync(`${SOURCE}${size === 16 ? 'icon-16.svg' : 'icon.svg'}`, 'utf8');
const dataUrl = (svg: string): string => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const size of ICON_SIZES) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<style>html,body{margin:0;background:transparent}</style><img src="${dataUrl(svgFor(size))}" width="${size}" height="${size}">`);
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    writeFileSync(`${OUT}${size}.png`, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    console.log(`wrote public/icon/${size}.png`);
  }
  const previewAt = process.argv.indexOf('--preview');
  if (previewAt > 0) {
    // Each PNG at its own size and magnified 8×, on Chrome's light and dark toolbar colours.
    const cells = ICON_SIZES.map((size) => {
      const src = `data:image/png;base64,${readFileSync(`${OUT}${size}.png`).toString('base64')}`;
      return `<img src="${src}" width="${size}"> <img src="${src}" width="${Math.min(size * 8, 256)}" style="image-rendering:pixelated">`;
    }).join(' ');
    await page.setViewportSize({ width: 1400, height: 600 });
    await page.setContent(`<body style="margin:0">${['#f1f3f4', '#35363a'].map((bg) => `<div style="background:${bg};padding:12px;display:flex;gap:12px;align-items:end">${cells}</div>`).join('')}</body>`);
    await page.screenshot({ path: process.argv[previewAt + 1]!, fullPage: true });
  }
} finally {
  await browser.close();
}
