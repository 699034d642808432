// Media files for the upload tests, made on the spot: images with sharp, video and audio with the
// ffmpeg Rookery would use (none means those tests are skipped, with the reason).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../src/config.ts";
import { findFfmpeg } from "../src/media/ffmpeg.ts";
import type { TestServer } from "./rig.ts";

export const ffmpeg = findFfmpeg(loadConfig({}));
export const noFfmpeg = ffmpeg ? false : "no ffmpeg on PATH, FFMPEG_PATH or in the optional npm package";

/** A photo with noise (so it compresses like one), EXIF orientation 6 (turned) and a GPS position. */
export async function photo(width = 600, height = 400, quality = 90): Promise<Buffer> {
  const noise = await sharp({
    create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } },
  })
    .png()
    .toBuffer();
  return sharp(noise)
    .jpeg({ quality })
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: "Rookery Camera" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 3/1" },
    })
    .toBuffer();
}

export const png = (w = 300, h = 200) =>
  sharp({ create: { width: w, height: h, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } })
    .png()
    .toBuffer();

export const webp = (w = 320, h = 240) =>
  sharp({ create: { width: w, height: h, channels: 3, background: "#3366aa" } })
    .webp()
    .toBuffer();

export async function animatedGif(width = 64, height = 48): Promise<Buffer> {
  const frame = (color: string) =>
    sharp({ create: { width, height, channels: 4, background: color } })
      .gif()
      .toBuffer();
  return sharp([await frame("#0f0"), await frame("#00f"), await frame("#f00")], { join: { animated: true } })
    .gif({ delay: [100, 100, 100] })
    .toBuffer();
}

/** Made with ffmpeg's test sources: one second of MPEG-4 video in AVI (to be transcoded), or WAV audio. */
function generate(args: string[], extension: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "rookery-media-test-"));
  try {
    const out = join(dir, `out.${extension}`);
    execFileSync(ffmpeg!.ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...args, out]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const video = () =>
  generate(
    [
      "-f",
      "lavfi",
      "-i",
      "testsrc=duration=1:size=320x240:rate=10",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=1",
      "-c:v",
      "mpeg4",
      "-c:a",
      "pcm_s16le",
      "-shortest",
    ],
    "avi",
  );

export const audio = () => generate(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "pcm_s16le"], "wav");

export function form(fields: Record<string, string | Blob>, fileName = "upload.bin"): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") fd.append(k, v);
    else fd.append(k, v, k === "file" || k === "thumbnail" ? fileName : undefined);
  }
  return fd;
}

export const blob = (data: Buffer, type: string) => new Blob([new Uint8Array(data)], { type });

/** Uploads through POST /api/v2/media and waits for processing; returns the finished entity. */
export async function upload(
  server: TestServer,
  token: string,
  data: Buffer,
  type: string,
  fields: Record<string, string> = {},
) {
  const res = await server.post("/api/v2/media", { token, multipart: form({ ...fields, file: blob(data, type) }) });
  if (res.status !== 200 && res.status !== 202) throw new Error(`upload: ${res.status} ${res.text}`);
  if (res.status === 200) return res.body;
  await server.settle();
  const done = await server.get(`/api/v1/media/${res.body.id}`, { token });
  if (done.status !== 200) throw new Error(`processing: ${done.status} ${done.text}`);
  return done.body;
}

/** Fetches a served file (under /system/ or wherever its URL points). */
export async function download(url: string): Promise<{ status: number; headers: Headers; data: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
}
